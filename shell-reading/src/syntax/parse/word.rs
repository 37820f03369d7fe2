//! Words: quoting removed as the shell removes it, and what the spelling
//! says beyond the word's text (a descriptor number, an assignment sh and
//! bash read differently, a quoted here-document delimiter).
//!
//! What a `$` or a backquote starts is read by
//! [`expansion`](super::expansion).

use super::{Parser, Result};
use crate::syntax::ast::{Script, Word};

/// What a word's spelling says beyond the word itself.
#[derive(Default)]
pub(super) struct Shape {
    /// Only unquoted ASCII digits: a `<` or `>` right after makes it a
    /// descriptor number.
    pub(super) digits_only: bool,
    /// `NAME+=value`.
    pub(super) append_assignment: bool,
    /// `NAME[subscript]=value`.
    pub(super) subscript_assignment: bool,
    /// `{name}`: before a redirection, bash's descriptor variable.
    pub(super) braced_name: bool,
    /// Some character was quoted (a backslash, single or double quotes):
    /// what makes a here-document delimiter quoted.
    pub(super) has_quoting: bool,
    /// The word holds `$'...'` or `$"..."`, which sh and bash read as
    /// different text.
    pub(super) has_dollar_quote: bool,
}

/// A word being built.
pub(super) struct Builder {
    pub(super) text: Vec<u8>,
    started: bool,
    pub(super) dynamic: bool,
    plain: bool,
    assignment: bool,
    pub(super) evaluates: bool,
    pub(super) substitutions: Vec<Script>,
    pub(super) shape: Shape,
}

impl Builder {
    pub(super) fn new() -> Builder {
        Builder {
            text: Vec::new(),
            started: false,
            dynamic: false,
            plain: true,
            assignment: false,
            evaluates: false,
            substitutions: Vec::new(),
            shape: Shape {
                digits_only: true,
                ..Shape::default()
            },
        }
    }

    fn push_unquoted(&mut self, c: u8) {
        if c == b'=' && self.plain && !self.assignment {
            if is_name(&self.text) {
                self.assignment = true;
            } else if let Some(name) = self.text.strip_suffix(b"+")
                && is_name(name)
            {
                self.shape.append_assignment = true;
            } else if let Some(open) = self.text.iter().position(|&b| b == b'[')
                && is_name(&self.text[..open])
                && self.text.ends_with(b"]")
            {
                self.shape.subscript_assignment = true;
            }
        }
        self.shape.digits_only &= c.is_ascii_digit();
        self.started = true;
        self.text.push(c);
    }

    pub(super) fn push_quoted(&mut self, c: u8) {
        self.mark_quoted();
        self.text.push(c);
    }

    pub(super) fn mark_quoted(&mut self) {
        self.started = true;
        self.plain = false;
        self.shape.digits_only = false;
    }

    pub(super) fn mark_dynamic(&mut self) {
        self.mark_quoted();
        self.dynamic = true;
    }

    pub(super) fn finish(self) -> Option<(Word, Shape)> {
        if !self.started {
            return None;
        }
        let mut shape = self.shape;
        shape.braced_name = self.plain
            && self.text.len() > 2
            && self.text.starts_with(b"{")
            && self.text.ends_with(b"}")
            && is_name(&self.text[1..self.text.len() - 1]);
        let word = Word {
            text: String::from_utf8_lossy(&self.text).into_owned(),
            dynamic: self.dynamic,
            plain: self.plain,
            assignment: self.assignment,
            evaluates: self.evaluates,
            substitutions: self.substitutions,
        };
        Some((word, shape))
    }
}

/// `[A-Za-z_][A-Za-z0-9_]*`
pub(super) fn is_name(text: &[u8]) -> bool {
    text.first()
        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        && text.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// Characters that end an unquoted word.
pub(super) fn ends_word(c: u8) -> bool {
    matches!(
        c,
        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
    )
}

impl Parser<'_> {
    /// Reads one word up to an unquoted blank or operator character.
    pub(super) fn word(&mut self) -> Result<Option<(Word, Shape)>> {
        let mut b = Builder::new();
        while let Some(c) = self.peek() {
            match c {
                c if ends_word(c) => break,
                b'\\' => {
                    // Not a continuation: `peek` skipped those.
                    b.shape.has_quoting = true;
                    self.at += 1;
                    let Some(escaped) = self.raw() else {
                        return self.fail("a backslash at the end of the text");
                    };
                    self.at += 1;
                    b.push_quoted(escaped);
                }
                b'\'' => {
                    self.at += 1;
                    b.mark_quoted();
                    b.shape.has_quoting = true;
                    loop {
                        let Some(q) = self.raw() else {
                            return self.fail("an unterminated single quote");
                        };
                        self.at += 1;
                        if q == b'\'' {
                            break;
                        }
                        b.push_quoted(q);
                    }
                }
                b'"' => {
                    self.at += 1;
                    b.mark_quoted();
                    b.shape.has_quoting = true;
                    self.expanding_text(&mut b, Some(b'"'))?;
                }
                b'`' => {
                    self.at += 1;
                    self.backquote(&mut b, false)?;
                }
                b'$' => {
                    self.at += 1;
                    self.dollar(&mut b, false)?;
                }
                b'*' | b'?' | b'[' | b'{' | b'}' => {
                    self.at += 1;
                    b.push_unquoted(c);
                    b.dynamic = true;
                }
                b'~' if !b.started
                    || (b.assignment && matches!(b.text.last(), Some(b'=' | b':'))) =>
                {
                    self.at += 1;
                    b.push_unquoted(c);
                    b.dynamic = true;
                }
                0 => return self.fail("a NUL character"),
                c => {
                    self.at += 1;
                    b.push_unquoted(c);
                }
            }
        }
        Ok(b.finish())
    }

    /// The inside of double quotes (`end` = `"`, its opening quote already
    /// read) or a here-document body (`end` = `None`): `$` and backquotes
    /// expand, a backslash escapes only `$`, `` ` ``, `\` (and `"` inside
    /// quotes).
    pub(super) fn expanding_text(&mut self, b: &mut Builder, end: Option<u8>) -> Result<()> {
        loop {
            let Some(c) = self.bump() else {
                return match end {
                    Some(_) => self.fail("an unterminated double quote"),
                    None => Ok(()),
                };
            };
            match c {
                c if Some(c) == end => return Ok(()),
                b'\\' => match self.raw() {
                    Some(n) if matches!(n, b'$' | b'`' | b'\\') || (end.is_some() && n == b'"') => {
                        self.at += 1;
                        b.push_quoted(n);
                    }
                    _ => b.push_quoted(b'\\'),
                },
                b'$' => self.dollar(b, true)?,
                b'`' => self.backquote(b, true)?,
                0 => return self.fail("a NUL character"),
                c => b.push_quoted(c),
            }
        }
    }
}
