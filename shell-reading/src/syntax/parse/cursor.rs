//! Moving through the text: characters with line continuations skipped,
//! blanks, comments and line ends, and the reserved words a command may
//! start with.
//!
//! It reads no construct itself; at a line end it hands the pending
//! here-documents to [`heredoc`](super::heredoc).

use super::word::ends_word;
use super::{Parser, Result};

/// Reserved words, recognised only where a command starts.
const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for",
    "select", "in", "function", "{", "}", "!", "[[", "]]",
];

impl Parser<'_> {
    // ---- characters ----------------------------------------------------

    /// The index of the next character at or after `i`, line
    /// continuations (backslash-newline) skipped.
    pub(super) fn skip_continuations(&self, mut i: usize) -> usize {
        while self.src.get(i) == Some(&b'\\') && self.src.get(i + 1) == Some(&b'\n') {
            i += 2;
        }
        i
    }

    /// The `n`th character from here (0: the next), continuations skipped.
    pub(super) fn look(&self, n: usize) -> Option<u8> {
        let mut i = self.skip_continuations(self.at);
        for _ in 0..n {
            i = self.skip_continuations(i + 1);
        }
        self.src.get(i).copied()
    }

    pub(super) fn peek(&mut self) -> Option<u8> {
        self.at = self.skip_continuations(self.at);
        self.src.get(self.at).copied()
    }

    pub(super) fn bump(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.at += 1;
        Some(c)
    }

    /// The next character exactly as written (inside single quotes and
    /// comments no continuation is removed).
    pub(super) fn raw(&self) -> Option<u8> {
        self.src.get(self.at).copied()
    }

    pub(super) fn blanks(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }

    /// A comment runs to the end of the line (the newline is left).
    pub(super) fn comment(&mut self) {
        if self.peek() == Some(b'#') {
            while self.raw().is_some_and(|c| c != b'\n') {
                self.at += 1;
            }
        }
    }

    /// At a newline: consumes it and reads the bodies of the
    /// here-documents whose line it ends.
    pub(super) fn newline(&mut self) -> Result<()> {
        self.at += 1;
        for pending in std::mem::take(&mut self.pending) {
            let body = self.heredoc_body(&pending)?;
            self.bodies.push(body);
        }
        Ok(())
    }

    /// Blanks, comments and newlines, where the grammar allows them.
    pub(super) fn linebreak(&mut self) -> Result<()> {
        loop {
            self.blanks();
            self.comment();
            if self.peek() == Some(b'\n') {
                self.newline()?;
            } else {
                return Ok(());
            }
        }
    }

    // ---- reserved words ------------------------------------------------

    /// The reserved word that starts here, if any (only meaningful where a
    /// command may start).
    pub(super) fn keyword(&self) -> Option<&'static str> {
        let mut i = self.skip_continuations(self.at);
        let mut buf = [0u8; 8];
        let mut len = 0;
        while let Some(&c) = self.src.get(i) {
            if ends_word(c) {
                break;
            }
            if !(c.is_ascii_lowercase() || matches!(c, b'{' | b'}' | b'!' | b'[' | b']')) {
                return None;
            }
            if len == buf.len() {
                return None;
            }
            buf[len] = c;
            len += 1;
            i = self.skip_continuations(i + 1);
        }
        let word = &buf[..len];
        KEYWORDS.iter().copied().find(|k| k.as_bytes() == word)
    }

    pub(super) fn take_keyword(&mut self, keyword: &str) {
        for _ in 0..keyword.len() {
            self.bump();
        }
    }

    pub(super) fn expect_keyword(
        &mut self,
        keyword: &'static str,
        missing: &'static str,
    ) -> Result<()> {
        if self.keyword() == Some(keyword) {
            self.take_keyword(keyword);
            Ok(())
        } else {
            self.fail(missing)
        }
    }
}
