//! What a call's content rules (`Tool(content)`) are matched against: the
//! text a tool names as its permission content, and what kind of text it
//! is.
//!
//! The kind decides how the text is compared, never whether: a path is
//! normalised lexically so that `src/./secret` and `src/x/../secret` cannot
//! slip past a rule for `src/secret`; a shell command is split at control
//! operators so that a deny rule for `rm:*` still sees `ls && rm -rf x`.
//!
//! This module owns the content and its normalisation; the pattern forms
//! live in [`pattern`](super::pattern).

/// How a content text is compared with rule patterns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ContentKind {
    /// Opaque text, compared as written (a URL, a query).
    Text,
    /// A shell command line. `prefix:*` ends at a word boundary; deny and
    /// ask rules also match each `;` / `&` / `|` / newline separated
    /// segment; allow rules' wildcards never cover shell control
    /// characters (see [`ContentPattern::allows`](super::ContentPattern::allows)).
    Command,
    /// A file path, normalised lexically (see [`normalize_path`]).
    /// `prefix:*` ends at a path-component boundary.
    Path,
}

/// A call's permission content: the text content rules are matched
/// against, with its kind. Tools produce it from their parsed input in
/// [`Tool::permission_content`](crate::Tool::permission_content).
///
/// ```
/// use registry_core::{ContentKind, PermissionContent};
///
/// let path = PermissionContent::path("./src/../secrets//key.pem");
/// assert_eq!(path.as_str(), "secrets/key.pem");
/// assert_eq!(path.kind(), ContentKind::Path);
///
/// let command = PermissionContent::command("git status");
/// assert_eq!(command.as_str(), "git status");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PermissionContent {
    kind: ContentKind,
    text: String,
}

impl PermissionContent {
    /// Opaque text, compared as written.
    pub fn text(text: impl Into<String>) -> Self {
        PermissionContent {
            kind: ContentKind::Text,
            text: text.into(),
        }
    }

    /// A shell command line, kept as written (whitespace included: a
    /// command is not re-tokenised, so an exact rule matches exactly).
    pub fn command(command: impl Into<String>) -> Self {
        PermissionContent {
            kind: ContentKind::Command,
            text: command.into(),
        }
    }

    /// A file path, normalised lexically with [`normalize_path`].
    pub fn path(path: impl AsRef<str>) -> Self {
        PermissionContent {
            kind: ContentKind::Path,
            text: normalize_path(path.as_ref()),
        }
    }

    /// How the text is compared.
    pub fn kind(&self) -> ContentKind {
        self.kind
    }

    /// The text (for a path, the normalised path).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Consumes the content, returning its text.
    pub fn into_string(self) -> String {
        self.text
    }
}

/// Normalises a `/`-separated path lexically, without touching the file
/// system: empty and `.` components are dropped, `name/..` cancels out,
/// `..` directly under the root `/` is dropped, and a trailing `/` goes.
/// An empty relative result is `.`.
///
/// Not normalised, on purpose or because it cannot be done lexically:
/// symbolic links (`link/..` is taken to be the directory holding `link`),
/// `..` leading out of a relative path (kept: `../x` stays `../x` and
/// matches no rule written for paths inside), relative versus absolute
/// (`src/a` and `/work/src/a` are different texts), case, `~`, `\` (an
/// ordinary character on Unix) and Unicode normalisation. Rules about
/// paths are a first filter; the tool's own sandbox check, which resolves
/// the real path, remains the gate.
///
/// ```
/// use registry_core::normalize_path;
///
/// assert_eq!(normalize_path("src/./a//b/../c.rs"), "src/a/c.rs");
/// assert_eq!(normalize_path("/../etc/passwd"), "/etc/passwd");
/// assert_eq!(normalize_path("../outside"), "../outside");
/// assert_eq!(normalize_path("./"), ".");
/// ```
pub fn normalize_path(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => match parts.last() {
                Some(&last) if last != ".." => {
                    parts.pop();
                }
                // `/..` is `/`.
                _ if absolute => {}
                _ => parts.push(".."),
            },
            part => parts.push(part),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_owned(),
        (false, false) => joined,
    }
}

/// The characters through which one shell command line runs, or feeds,
/// another: what an allow rule's wildcard must never cover.
pub(crate) fn is_shell_control(c: char) -> bool {
    matches!(
        c,
        ';' | '&' | '|' | '`' | '$' | '<' | '>' | '(' | ')' | '\n' | '\r'
    )
}

/// The simple commands of a command line, split at `;`, `&`, `|`, line
/// breaks, backquotes, `$(`, braces, parentheses and `!` (line
/// continuations joined first), with runs of whitespace collapsed to one
/// space and leading keywords, plain wrappers and assignments dropped
/// (`then`, `env`, `sudo`, `FOO=1`); empty ones dropped. So `rm:*` covers
/// `ls && rm x`, `echo $(rm x)`, `if :; then rm x; fi` and `env rm x`, and
/// `git push:*` covers `git  push`. A command that can run text its words
/// do not show (see [`command_is_opaque`]) is not matched at all: the
/// pipeline treats it as content no rule can check.
///
/// Not a shell parser: quoting is ignored, so a quoted `;` splits too.
/// That only ever adds segments, and segments are used only to find more
/// deny and ask matches. Quotes and escapes are not resolved either
/// (`g''it push` is not `git push`): deny rules on commands are a first
/// filter, behind the tool's own check and the safety classifier.
pub(crate) fn command_segments(command: &str) -> impl Iterator<Item = String> {
    // A line continuation joins its two lines (`git push\<newline>--force`).
    let joined = command.replace("\\\r\n", "").replace("\\\n", "");
    joined
        .split([';', '&', '|', '\n', '\r', '`', '{', '}', '(', ')', '!'])
        .map(|segment| {
            let mut words: Vec<&str> = segment
                .split(|c: char| c.is_whitespace() || c == '$')
                .filter(|word| !word.is_empty())
                .collect();
            // What the shell runs after a keyword or a plain wrapper is the
            // command a rule is about (`if :; then rm -rf x; fi`,
            // `env rm -rf x`, `sudo rm -rf x`).
            let leading = words
                .iter()
                .take_while(|word| LEADING_WORDS.contains(word) || word.contains('='))
                .count();
            words.drain(..leading);
            words.join(" ")
        })
        .filter(|segment| !segment.is_empty())
        .collect::<Vec<_>>()
        .into_iter()
}

/// Shell keywords and argument-less wrappers that stand before the command
/// they run.
const LEADING_WORDS: &[&str] = &[
    "if", "then", "else", "elif", "while", "until", "do", "time", "env", "command", "exec",
    "nohup", "sudo", "doas", "builtin",
];

/// Whether a command can run text its words do not show, so no content
/// rule can vouch for what it does: a substitution, `eval`, a shell given a
/// script with `-c`, or `xargs` (its command's arguments come from input).
pub(crate) fn command_is_opaque(command: &str) -> bool {
    command.contains("$(")
        || command.contains('`')
        || command.contains("<(")
        || command.contains(">(")
        || command_segments(command).any(|segment| {
            let mut words = segment.split(' ');
            let first = words.next().unwrap_or_default();
            let program = first.rsplit('/').next().unwrap_or(first);
            matches!(program, "eval" | "xargs" | "source" | ".")
                || (matches!(program, "sh" | "bash" | "dash" | "zsh" | "ksh" | "fish")
                    && segment
                        .split(' ')
                        .any(|w| w.starts_with('-') && w.contains('c')))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_normalise_lexically() {
        let cases = [
            ("src/lib.rs", "src/lib.rs"),
            ("./src/lib.rs", "src/lib.rs"),
            ("src//lib.rs", "src/lib.rs"),
            ("src/x/../lib.rs", "src/lib.rs"),
            ("src/", "src"),
            ("", "."),
            (".", "."),
            ("a/..", "."),
            ("../a", "../a"),
            ("../../a/../b", "../../b"),
            ("/", "/"),
            ("/..", "/"),
            ("/a/../../b", "/b"),
            (r"a\..\b", r"a\..\b"),
        ];
        for (given, normalised) in cases {
            assert_eq!(normalize_path(given), normalised, "{given:?}");
        }
    }

    #[test]
    fn command_segments_split_at_control_operators() {
        let segments: Vec<String> =
            command_segments("ls -l && rm  -rf\tx; (cd a | wc)\necho done &").collect();
        assert_eq!(segments, ["ls -l", "rm -rf x", "cd a", "wc", "echo done"]);
    }

    #[test]
    fn command_segments_see_through_keywords_wrappers_and_substitutions() {
        let segments = |c: &str| command_segments(c).collect::<Vec<_>>();
        for (command, inner) in [
            ("echo $(rm -rf x)", "rm -rf x"),
            ("echo `rm -rf x`", "rm -rf x"),
            ("{ rm -rf x; }", "rm -rf x"),
            ("if :; then rm -rf x; fi", "rm -rf x"),
            ("env FOO=1 rm -rf x", "rm -rf x"),
            ("sudo rm -rf x", "rm -rf x"),
            ("! rm -rf x", "rm -rf x"),
            ("git push \\\n--force", "git push --force"),
            ("git pu\\\nsh --force", "git push --force"),
        ] {
            assert!(
                segments(command).iter().any(|s| s == inner),
                "{command:?}: {:?}",
                segments(command)
            );
        }
    }

    #[test]
    fn opaque_commands_are_recognised() {
        for command in [
            "echo $(id)",
            "echo `id`",
            "eval \"$X\"",
            "sh -c 'rm x'",
            "bash -lc 'rm x'",
            "find . | xargs rm",
            ". ./script",
            "cat <(id)",
        ] {
            assert!(command_is_opaque(command), "{command}");
        }
        for command in ["git status", "ls -la", "grep -c x f"] {
            assert!(!command_is_opaque(command), "{command}");
        }
    }
}
