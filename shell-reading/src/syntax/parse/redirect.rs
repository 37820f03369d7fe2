//! Redirections: the operator, its descriptor number and its target.
//!
//! A here-document's operator is read here; its delimiter and body are
//! read by [`heredoc`](super::heredoc).

use super::word::ends_word;
use super::{Parser, Result};
use crate::syntax::ast::{Redirect, RedirectKind, Word};

impl Parser<'_> {
    pub(super) fn trailing_redirects(&mut self) -> Result<Vec<Redirect>> {
        let mut redirects = Vec::new();
        loop {
            self.blanks();
            let digits = self.fd_digits();
            match self.look(digits) {
                Some(b'<' | b'>') if self.look(digits + 1) != Some(b'(') => {}
                Some(b'&') if digits == 0 && self.look(1) == Some(b'>') => {}
                _ => return Ok(redirects),
            }
            let fd = if digits > 0 {
                let (word, _) = self.word()?.expect("digits start here");
                Some(self.fd_number(&word.text)?)
            } else {
                None
            };
            redirects.push(self.redirect(fd)?);
        }
    }

    /// How many ASCII digits start here (one pass: `look(n)` for each n
    /// would be quadratic in a run of digits).
    fn fd_digits(&self) -> usize {
        let mut n = 0;
        let mut i = self.skip_continuations(self.at);
        while self.src.get(i).is_some_and(u8::is_ascii_digit) {
            n += 1;
            i = self.skip_continuations(i + 1);
        }
        n
    }

    pub(super) fn fd_number(&self, digits: &str) -> Result<u32> {
        match digits.parse() {
            Ok(fd) => Ok(fd),
            Err(_) => self.fail("a descriptor number too large"),
        }
    }

    /// At `<`, `>` or `&>` (any descriptor number already read).
    pub(super) fn redirect(&mut self, fd: Option<u32>) -> Result<Redirect> {
        let kind = match self.bump() {
            Some(b'<') => match self.peek() {
                Some(b'<') => {
                    self.bump();
                    match self.peek() {
                        Some(b'<') => {
                            self.bump();
                            RedirectKind::HereString
                        }
                        Some(b'-') => {
                            self.bump();
                            return self.heredoc(fd, true);
                        }
                        _ => return self.heredoc(fd, false),
                    }
                }
                Some(b'>') => {
                    self.bump();
                    RedirectKind::ReadWrite
                }
                Some(b'&') => {
                    self.bump();
                    RedirectKind::Duplicate
                }
                _ => RedirectKind::Read,
            },
            Some(b'>') => match self.peek() {
                Some(b'>') => {
                    self.bump();
                    RedirectKind::Append
                }
                Some(b'|') => {
                    self.bump();
                    RedirectKind::Truncate
                }
                Some(b'&') => {
                    self.bump();
                    RedirectKind::Duplicate
                }
                _ => RedirectKind::Truncate,
            },
            Some(b'&') => {
                self.bump();
                let append = self.peek() == Some(b'>');
                if append {
                    self.bump();
                }
                RedirectKind::OutputAndError { append }
            }
            _ => unreachable!("called at a redirection operator"),
        };
        let target = self.redirect_target()?;
        Ok(Redirect { fd, kind, target })
    }

    fn redirect_target(&mut self) -> Result<Word> {
        self.blanks();
        match self.peek() {
            Some(b'<' | b'>') if self.look(1) == Some(b'(') => self.process_substitution(),
            None | Some(b'#') => self.fail("a redirection without a target"),
            Some(c) if ends_word(c) => self.fail("a redirection without a target"),
            Some(_) => Ok(self.word()?.expect("a word starts here").0),
        }
    }
}
