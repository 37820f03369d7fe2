//! Typed errors for everything that can go wrong at run time: a bad name, a
//! catalog that does not add up, a call that fails.
//!
//! Error texts go back to the model (and into logs), and much of what they
//! quote came from the model: a path, a field name, a value. Every such
//! quotation is shown through [`cap_error_text`], so a 10 MB path makes a
//! 1 KiB error, not a 10 MB one.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::fmt::{self, Write as _};

use crate::definition::Origin;
use crate::gate::CfgPredicate;

/// The most characters of one quoted text (a path, a name, a value) an
/// error message shows; see [`cap_error_text`].
pub const MAX_ERROR_TEXT_CHARS: usize = 1024;

/// The most characters of a tool's own error message shown inside a
/// [`ToolError`]: room for a few capped quotations and the words around
/// them.
pub const MAX_ERROR_MESSAGE_CHARS: usize = 4 * MAX_ERROR_TEXT_CHARS;

/// `text` as it may be quoted inside an error message: unchanged when it
/// has at most [`MAX_ERROR_TEXT_CHARS`] characters; otherwise its start and
/// its end, with a marker in between saying how many characters were cut.
/// The end is kept because that is where a path names its file and a serde
/// message says what it expected.
///
/// ```
/// use registry_core::{MAX_ERROR_TEXT_CHARS, cap_error_text};
///
/// assert_eq!(cap_error_text("src/main.rs"), "src/main.rs");
/// let huge = format!("{}/main.rs", "a/".repeat(5_000_000));
/// let shown = cap_error_text(&huge);
/// assert!(shown.chars().count() <= MAX_ERROR_TEXT_CHARS);
/// assert!(shown.contains("characters cut"));
/// assert!(shown.ends_with("/main.rs"));
/// ```
pub fn cap_error_text(text: &str) -> Cow<'_, str> {
    // Bytes bound characters from above: the cheap check settles most texts.
    if text.len() <= MAX_ERROR_TEXT_CHARS || text.chars().count() <= MAX_ERROR_TEXT_CHARS {
        return Cow::Borrowed(text);
    }
    let mut capper = Capper::new(MAX_ERROR_TEXT_CHARS);
    // Writing to a `Capper` cannot fail.
    let _ = capper.write_str(text);
    Cow::Owned(capper.finish())
}

/// Displays a value through the same cap as [`cap_error_text`], without
/// ever holding its whole text: for a tool's error, whose message may be
/// built from anything.
pub(crate) struct Capped<'a, T: ?Sized> {
    value: &'a T,
    max: usize,
}

/// A quoted text, capped at [`MAX_ERROR_TEXT_CHARS`].
pub(crate) fn capped<T: fmt::Display + ?Sized>(value: &T) -> Capped<'_, T> {
    Capped {
        value,
        max: MAX_ERROR_TEXT_CHARS,
    }
}

/// A whole error message, capped at [`MAX_ERROR_MESSAGE_CHARS`].
pub(crate) fn capped_message<T: fmt::Display + ?Sized>(value: &T) -> Capped<'_, T> {
    Capped {
        value,
        max: MAX_ERROR_MESSAGE_CHARS,
    }
}

impl<T: fmt::Display + ?Sized> fmt::Display for Capped<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut capper = Capper::new(self.max);
        write!(capper, "{}", self.value)?;
        f.write_str(&capper.finish())
    }
}

/// Keeps the start and the end of a text written to it in pieces, and
/// counts what falls in between. Memory is bounded by `max`, whatever is
/// written.
struct Capper {
    max: usize,
    /// The start of the text: everything, until more than `max` characters
    /// arrive; then the first `head_max()` of them.
    head: String,
    head_chars: usize,
    /// Set once the text is known to be longer than `max`.
    overflowed: bool,
    /// The last `tail_max` characters seen after the head.
    tail: VecDeque<char>,
    tail_max: usize,
    /// Characters dropped between head and tail.
    cut: usize,
}

/// The marker's length with the widest count: what it can take of `max`.
const MARKER_RESERVE: usize = " [… 18446744073709551615 characters cut …] ".len();

impl Capper {
    fn new(max: usize) -> Self {
        let room = max.saturating_sub(MARKER_RESERVE);
        Capper {
            max,
            head: String::new(),
            head_chars: 0,
            overflowed: false,
            tail: VecDeque::new(),
            tail_max: room / 4,
            cut: 0,
        }
    }

    fn finish(self) -> String {
        let mut out = self.head;
        if self.cut > 0 {
            out.push_str(&format!(" [… {} characters cut …] ", self.cut));
        }
        out.extend(self.tail);
        out
    }

    /// The text turned out longer than `max`: keep the start of the head,
    /// and move the rest of it into the tail window.
    fn overflow(&mut self) {
        self.overflowed = true;
        let keep = self.max.saturating_sub(MARKER_RESERVE) - self.tail_max;
        let split = self
            .head
            .char_indices()
            .nth(keep)
            .map_or(self.head.len(), |(i, _)| i);
        let rest = self.head.split_off(split);
        self.head_chars = keep;
        self.push_tail(&rest);
    }

    /// Adds `s` to the tail window, counting what falls out of it. Only
    /// the last `tail_max` characters of a long piece are looked at twice.
    fn push_tail(&mut self, s: &str) {
        let n = s.chars().count();
        if n >= self.tail_max {
            self.cut += self.tail.len() + (n - self.tail_max);
            self.tail.clear();
            let start = match self.tail_max {
                0 => s.len(),
                m => s.char_indices().rev().nth(m - 1).map_or(0, |(i, _)| i),
            };
            self.tail.extend(s[start..].chars());
        } else {
            for c in s.chars() {
                if self.tail.len() == self.tail_max {
                    self.tail.pop_front();
                    self.cut += 1;
                }
                self.tail.push_back(c);
            }
        }
    }
}

impl fmt::Write for Capper {
    fn write_str(&mut self, mut s: &str) -> fmt::Result {
        if !self.overflowed {
            // Until more than `max` characters have arrived nothing needs
            // cutting.
            let room = self.max - self.head_chars;
            match s.char_indices().nth(room) {
                None => {
                    self.head.push_str(s);
                    self.head_chars += s.chars().count();
                    return Ok(());
                }
                Some((at, _)) => {
                    self.head.push_str(&s[..at]);
                    self.head_chars = self.max;
                    s = &s[at..];
                    self.overflow();
                }
            }
        }
        self.push_tail(s);
        Ok(())
    }
}

/// A tool name or alias that breaks `^[a-zA-Z0-9_-]{1,64}$`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// The name is the empty string.
    #[error("tool name is empty; names must match ^[a-zA-Z0-9_-]{{1,64}}$")]
    Empty,
    /// The name is longer than 64 bytes.
    #[error("tool name `{}` is {len} characters long; the limit is 64", capped(.name))]
    TooLong {
        /// The offending name.
        name: String,
        /// Its length in bytes.
        len: usize,
    },
    /// The name holds a character outside `[a-zA-Z0-9_-]`.
    #[error(
        "tool name `{}` has `{ch}` at byte {index}; only ASCII letters, digits, `_` and `-` are allowed",
        capped(.name)
    )]
    BadChar {
        /// The offending name.
        name: String,
        /// The first character that is not allowed.
        ch: char,
        /// Its byte offset.
        index: usize,
    },
}

/// A runtime tool definition that breaks a rule `#[tool]` would have caught
/// at compile time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DefinitionError {
    /// The name or an alias breaks the naming rule.
    #[error("tool `{}`: {source}", capped(.tool))]
    Name {
        /// The tool being defined.
        tool: String,
        /// What is wrong with the name.
        #[source]
        source: NameError,
    },
    /// An alias equals the tool's own name.
    #[error("tool `{}`: alias `{}` is the tool's own name", capped(.tool), capped(.alias))]
    AliasIsName {
        /// The tool being defined.
        tool: String,
        /// The alias.
        alias: String,
    },
    /// The same alias is listed twice.
    #[error("tool `{}`: alias `{}` is listed twice", capped(.tool), capped(.alias))]
    RepeatedAlias {
        /// The tool being defined.
        tool: String,
        /// The alias.
        alias: String,
    },
    /// The input schema is not an object schema, which every provider
    /// requires.
    #[error("tool `{tool}`: {source}; pass one to `ToolBuilder::input_schema`")]
    InputNotObject {
        /// The tool being defined.
        tool: String,
        /// What the schema is instead.
        #[source]
        source: crate::schema::ObjectSchemaError,
    },
    /// The description is empty; the model could not choose the tool.
    #[error(
        "tool `{}` has an empty description; the model chooses tools by their description",
        capped(.tool)
    )]
    EmptyDescription {
        /// The tool being defined.
        tool: String,
    },
}

/// How a name is used by a definition: the thing two definitions fight over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRole {
    /// The tool's primary name.
    Name,
    /// One of the tool's aliases.
    Alias,
}

impl fmt::Display for NameRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NameRole::Name => "name",
            NameRole::Alias => "alias",
        })
    }
}

/// One side of a name collision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The tool's primary name.
    pub tool: String,
    /// Whether the contested string is that tool's name or an alias.
    pub role: NameRole,
    /// Where the tool is declared.
    pub origin: Origin,
    /// The `#[cfg]` gate on the tool, if any: a clash with a gated tool is
    /// reported in every build, whether or not the gate holds in this one.
    pub gate: Option<CfgPredicate>,
    /// Whether this build compiled the tool out (its gate does not hold).
    pub compiled_out: bool,
}

impl fmt::Display for Claim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.role {
            NameRole::Name => write!(f, "the name of tool `{}` ({}", self.tool, self.origin)?,
            NameRole::Alias => write!(f, "an alias of tool `{}` ({}", self.tool, self.origin)?,
        }
        match (&self.gate, self.compiled_out) {
            (Some(gate), true) => write!(f, ", under `cfg({gate})`, compiled out of this build)"),
            (Some(gate), false) => write!(f, ", under `cfg({gate})`)"),
            (None, _) => f.write_str(")"),
        }
    }
}

/// Two definitions claim the same model-facing name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{name}` is claimed twice: as {first} and as {second}")]
pub struct Collision {
    /// The contested name.
    pub name: String,
    /// The definition met first (in sorted order).
    pub first: Claim,
    /// The other definition.
    pub second: Claim,
}

/// The authoritative list could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// Names or aliases collide across the linked catalog.
    #[error("{} tool name collision(s) in the linked catalog:\n{}", .0.len(), list(.0))]
    Collisions(Vec<Collision>),
    /// A tool's constructor panicked while the list was built.
    #[error("constructing tool `{tool}` ({origin}) panicked: {message}")]
    ConstructorPanicked {
        /// The tool's name.
        tool: String,
        /// Where it is declared.
        origin: Origin,
        /// The panic payload, when it was a string.
        message: String,
    },
    /// A tool's `type Input` does not render an object schema, so no
    /// provider would accept its definition.
    #[error(
        "tool `{tool}` ({origin}): {source}; make its `type Input` a struct with named fields \
         deriving `Deserialize` and `JsonSchema` (wrap a bare value: `struct Input {{ text: String }}`)"
    )]
    InputNotObject {
        /// The tool's name.
        tool: String,
        /// Where it is declared.
        origin: Origin,
        /// What the schema is instead, and the fix.
        #[source]
        source: crate::schema::ObjectSchemaError,
    },
    /// A runtime definition broke a naming rule.
    #[error(transparent)]
    Definition(#[from] DefinitionError),
    /// A crate that should contribute tools contributed none: it is most
    /// likely not linked into this binary.
    #[error(
        "no tool from crate `{crate_name}` is in the list: the crate is probably not linked into this binary. \
         Add `registry_core::link!({crate_name});` to the binary (see the `link!` docs)"
    )]
    CrateNotLinked {
        /// The crate's name as `CARGO_CRATE_NAME` spells it.
        crate_name: String,
    },
}

fn list(collisions: &[Collision]) -> String {
    collisions
        .iter()
        .map(|c| format!("  - {c}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A call could not be made or did not succeed. Every variant names the tool.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The arguments do not fit the tool's input type.
    #[error("invalid input for tool `{}` {}: {}", capped(.tool), location(.path), capped(.message))]
    InvalidInput {
        /// The tool called.
        tool: String,
        /// Where in the arguments the problem is: empty for the arguments
        /// as a whole (a missing top-level field, an array where an object
        /// belongs), `edits[2]` for a nested value (a field missing there
        /// is named by `message`).
        path: String,
        /// What is wrong there, as serde said it.
        message: String,
    },
    /// The tool's own `validate_input` rejected the parsed input.
    #[error("tool `{}` rejected its input: {}", capped(.tool), capped_message(.source))]
    Rejected {
        /// The tool called.
        tool: String,
        /// The tool's typed explanation, shown to the model.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The permission check denied the call.
    #[error("tool `{}` may not run: {}", capped(.tool), capped_message(.reason))]
    PermissionDenied {
        /// The tool called.
        tool: String,
        /// Why not.
        reason: String,
    },
    /// The tool asks for a person's approval of this call, and the call was
    /// run without it (see [`PreparedCall::run_approved`](crate::PreparedCall::run_approved)).
    #[error(
        "tool `{}` needs approval before it runs: {}",
        capped(.tool),
        capped_message(.reason)
    )]
    NeedsApproval {
        /// The tool called.
        tool: String,
        /// What the person is asked to confirm.
        reason: String,
    },
    /// The tool ran and returned its error.
    #[error("tool `{}` failed: {}", capped(.tool), capped_message(.source))]
    Failed {
        /// The tool called.
        tool: String,
        /// The tool's typed error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The tool's output could not be turned into text for the model.
    #[error(
        "tool `{}` produced output that could not be rendered: {}",
        capped(.tool),
        capped_message(.message)
    )]
    Output {
        /// The tool called.
        tool: String,
        /// What went wrong.
        message: String,
    },
    /// A value prepared for one tool was handed to another.
    #[error("input prepared for another tool was passed to `{}`", capped(.tool))]
    InputMismatch {
        /// The tool called.
        tool: String,
    },
}

/// Where an [`ToolError::InvalidInput`] is, in words.
fn location(path: &str) -> String {
    if path.is_empty() {
        "at the input root".to_owned()
    } else {
        format!("at `{}`", capped(path))
    }
}

/// A change to a [`PermissionContext`](crate::PermissionContext) that was
/// refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContextError {
    /// The rule string is malformed.
    #[error(transparent)]
    Rule(#[from] crate::permission::RuleError),
    /// Policy rules are set by an administrator, not through the context.
    #[error("policy rules are read-only; `{}` was not added", capped(.rule))]
    PolicyIsReadOnly {
        /// The rule that was refused.
        rule: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_texts_are_borrowed_unchanged() {
        for text in ["", "a", &"é".repeat(MAX_ERROR_TEXT_CHARS)] {
            assert!(matches!(cap_error_text(text), Cow::Borrowed(t) if t == text));
        }
    }

    #[test]
    fn long_texts_keep_start_and_end_within_the_cap() {
        for len in [MAX_ERROR_TEXT_CHARS + 1, 5_000, 1_000_000] {
            let text: String = (0..len)
                .map(|i| char::from_u32(0x61 + (i % 26) as u32).unwrap())
                .chain("€".chars())
                .collect();
            let shown = cap_error_text(&text);
            let chars = shown.chars().count();
            assert!(chars <= MAX_ERROR_TEXT_CHARS, "{len}: {chars}");
            assert!(
                chars > MAX_ERROR_TEXT_CHARS - MARKER_RESERVE,
                "{len}: {chars}"
            );
            assert!(shown.starts_with("abcdefghij"));
            assert!(shown.ends_with("€"));
            // The count in the marker is exactly what is missing.
            let missing = len + 1 - kept_len(&shown);
            assert!(
                shown.contains(&format!(" [… {missing} characters cut …] ")),
                "{shown}"
            );
        }
    }

    /// Characters of `shown` outside its marker.
    fn kept_len(shown: &str) -> usize {
        let start = shown.find(" [… ").unwrap();
        let end = shown.find(" characters cut …] ").unwrap() + " characters cut …] ".len();
        shown[..start].chars().count() + shown[end..].chars().count()
    }

    #[test]
    fn the_cut_does_not_depend_on_how_the_text_arrives() {
        for len in [
            MAX_ERROR_TEXT_CHARS - 1,
            MAX_ERROR_TEXT_CHARS,
            MAX_ERROR_TEXT_CHARS + 1,
            MAX_ERROR_TEXT_CHARS + 300,
            5_000,
        ] {
            let text: String = (0..len)
                .map(|i| if i % 3 == 0 { 'é' } else { 'x' })
                .collect();
            let whole = cap_error_text(&text).into_owned();
            for piece in [1, 2, 3, 7, 255, 1000, len] {
                let mut capper = Capper::new(MAX_ERROR_TEXT_CHARS);
                let chars: Vec<char> = text.chars().collect();
                for chunk in chars.chunks(piece) {
                    capper.write_str(&chunk.iter().collect::<String>()).unwrap();
                }
                assert_eq!(capper.finish(), whole, "len {len}, pieces of {piece}");
            }
        }
    }

    #[test]
    fn whole_messages_are_capped_while_they_are_written() {
        struct Endless;
        impl fmt::Display for Endless {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                for _ in 0..100_000 {
                    f.write_str("0123456789")?;
                }
                f.write_str("end")
            }
        }
        let shown = capped_message(&Endless).to_string();
        assert!(shown.chars().count() <= MAX_ERROR_MESSAGE_CHARS);
        assert!(shown.ends_with("789end"));
        assert!(shown.contains(&format!(
            " [… {} characters cut …] ",
            1_000_003 - kept_len(&shown)
        )));
    }

    #[test]
    fn tool_errors_quote_capped_texts() {
        let huge = "p".repeat(10_000_000);
        let errors = [
            ToolError::InvalidInput {
                tool: "t".into(),
                path: huge.clone(),
                message: huge.clone(),
            },
            ToolError::PermissionDenied {
                tool: "t".into(),
                reason: huge.clone(),
            },
            ToolError::NeedsApproval {
                tool: "t".into(),
                reason: huge.clone(),
            },
            ToolError::Failed {
                tool: "t".into(),
                source: huge.clone().into(),
            },
            ToolError::Rejected {
                tool: "t".into(),
                source: huge.clone().into(),
            },
            ToolError::Output {
                tool: "t".into(),
                message: huge.clone(),
            },
        ];
        for err in errors {
            let text = err.to_string();
            assert!(
                text.chars().count() < MAX_ERROR_MESSAGE_CHARS + 200,
                "{err:?}"
            );
            assert!(text.contains("characters cut"));
        }
        let name = NameError::TooLong {
            name: huge.clone(),
            len: huge.len(),
        };
        assert!(name.to_string().len() < 2 * MAX_ERROR_TEXT_CHARS);
    }

    #[test]
    fn the_input_root_is_named_in_words() {
        let err = ToolError::InvalidInput {
            tool: "read_file".into(),
            path: String::new(),
            message: "missing field `path`".into(),
        };
        assert_eq!(
            err.to_string(),
            "invalid input for tool `read_file` at the input root: missing field `path`"
        );
    }
}
