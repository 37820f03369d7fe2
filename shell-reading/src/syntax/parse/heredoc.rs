//! Here-documents: the delimiter after `<<` or `<<-`, and the body, read
//! when the line of its operator ends and expanded as the shell will when
//! the delimiter is unquoted.
//!
//! Where sh and bash would end a body at different lines, the text is
//! unreadable rather than read one way.

use super::word::{Builder, ends_word};
use super::{Parser, Result};
use crate::syntax::ast::{Redirect, RedirectKind, Word};

/// A here-document waiting for the end of its line.
pub(super) struct Pending {
    delimiter: Vec<u8>,
    quoted: bool,
    strip_tabs: bool,
}

impl Parser<'_> {
    pub(super) fn heredoc(&mut self, fd: Option<u32>, strip_tabs: bool) -> Result<Redirect> {
        self.blanks();
        let Some((target, shape)) = (match self.peek() {
            Some(c) if !ends_word(c) && c != b'#' => self.word()?,
            _ => None,
        }) else {
            return self.fail("a here-document without a delimiter");
        };
        if shape.has_dollar_quote {
            return self.fail(
                "a here-document delimiter with `$'...'` or `$\"...\"`, which sh and bash read differently",
            );
        }
        // Only quoting makes the body literal; a `$` in the delimiter is a
        // character of it (`<<$x` ends at a line `$x`, and is expanded).
        self.pending.push(Pending {
            delimiter: target.text.clone().into_bytes(),
            quoted: shape.has_quoting,
            strip_tabs,
        });
        Ok(Redirect {
            fd,
            kind: RedirectKind::HereDoc,
            target,
        })
    }

    /// Reads a here-document's lines up to its delimiter (the newline that
    /// ended the line of its operator just consumed) and, for an unquoted
    /// delimiter, expands the body as the shell will.
    pub(super) fn heredoc_body(&mut self, pending: &Pending) -> Result<Word> {
        let start = self.at;
        let mut body = Vec::new();
        loop {
            if self.at >= self.src.len() {
                self.at = start;
                return self.fail("a here-document whose delimiter never comes");
            }
            let end = self.src[self.at..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(self.src.len(), |n| self.at + n);
            let mut line = &self.src[self.at..end];
            if pending.strip_tabs {
                while let Some(rest) = line.strip_prefix(b"\t") {
                    line = rest;
                }
            }
            self.at = (end + 1).min(self.src.len());
            if line == pending.delimiter.as_slice() {
                break;
            }
            // Inside `$(...)` bash also ends a body at the delimiter with a
            // `)` after it; dash does not. And in a body it expands, bash
            // joins a line ending in `\` to the next before it looks for
            // the delimiter. Either way the shells would read on from
            // different places.
            if line
                .strip_prefix(pending.delimiter.as_slice())
                .is_some_and(|rest| rest.starts_with(b")"))
                || (!pending.quoted && line.ends_with(b"\\"))
            {
                self.at = start;
                return self.fail("a here-document whose end sh and bash find in different places");
            }
            body.extend_from_slice(line);
            body.push(b'\n');
        }
        if pending.quoted {
            return Ok(Word {
                text: String::from_utf8_lossy(&body).into_owned(),
                ..Word::default()
            });
        }
        let mut inner = Parser::new(&body, self.depth + 1);
        inner.origin = self.origin + start;
        let mut builder = Builder::new();
        builder.mark_quoted();
        inner.expanding_text(&mut builder, None)?;
        Ok(builder.finish().map(|(w, _)| w).unwrap_or_default())
    }
}
