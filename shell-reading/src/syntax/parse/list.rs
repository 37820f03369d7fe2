//! Lists: the whole program, lists of and-or lists ended by `;`, `&` or a
//! newline, and-or lists and pipelines, each up to where its [`Stop`]
//! says it ends.
//!
//! The commands in them are read by [`compound`](super::compound) and
//! [`simple`](super::simple).

use super::{Parser, Result};
use crate::syntax::ast::{AndOr, Connector, ListItem, Pipeline, Script};

/// Where a list ends.
#[derive(Clone, Copy)]
pub(super) struct Stop {
    /// At an unmatched `)`.
    pub(super) paren: bool,
    /// At one of these reserved words.
    pub(super) keywords: &'static [&'static str],
    /// At `;;`, `;&` or `;;&` (a `case` arm).
    pub(super) case_arm: bool,
}

impl Stop {
    pub(super) const END: Stop = Stop {
        paren: false,
        keywords: &[],
        case_arm: false,
    };
    pub(super) const PAREN: Stop = Stop {
        paren: true,
        ..Stop::END
    };
    pub(super) const fn at(keywords: &'static [&'static str]) -> Stop {
        Stop {
            keywords,
            ..Stop::END
        }
    }
}

impl Parser<'_> {
    pub(super) fn program(mut self) -> Result<Script> {
        let script = self.list(Stop::END)?;
        match self.peek() {
            None => {}
            Some(b')') => return self.fail("a `)` with no `(`"),
            Some(_) => return self.fail("a reserved word out of place"),
        }
        if !self.pending.is_empty() {
            return self.fail("a here-document whose body never ends");
        }
        Ok(script)
    }

    pub(super) fn list(&mut self, stop: Stop) -> Result<Script> {
        self.enter()?;
        let claimed = self.bodies.len();
        let mut items = Vec::new();
        loop {
            self.linebreak()?;
            if self.at_end_of(stop)? {
                break;
            }
            let and_or = self.and_or()?;
            self.blanks();
            self.comment();
            let background = match self.peek() {
                Some(b';') if !matches!(self.look(1), Some(b';' | b'&')) => {
                    self.bump();
                    false
                }
                Some(b'&') => {
                    self.bump();
                    true
                }
                Some(b'\n') => {
                    self.newline()?;
                    false
                }
                _ => {
                    items.push(ListItem {
                        and_or,
                        background: false,
                    });
                    if self.at_end_of(stop)? {
                        break;
                    }
                    return self.fail("a command where an operator or a line end should be");
                }
            };
            items.push(ListItem { and_or, background });
        }
        let heredocs = self.bodies.split_off(claimed);
        self.leave();
        Ok(Script { items, heredocs })
    }

    /// Whether the list ends here (the terminator is left unread).
    fn at_end_of(&mut self, stop: Stop) -> Result<bool> {
        match self.peek() {
            None => return Ok(true),
            Some(b')') if stop.paren => return Ok(true),
            Some(b')') => return self.fail("a `)` with no `(`"),
            Some(b';') if matches!(self.look(1), Some(b';' | b'&')) => {
                return if stop.case_arm {
                    Ok(true)
                } else {
                    self.fail("`;;` outside a `case`")
                };
            }
            _ => {}
        }
        Ok(self.keyword().is_some_and(|k| stop.keywords.contains(&k)))
    }

    fn and_or(&mut self) -> Result<AndOr> {
        let first = self.pipeline()?;
        let mut rest = Vec::new();
        loop {
            self.blanks();
            let connector = match (self.peek(), self.look(1)) {
                (Some(b'&'), Some(b'&')) => Connector::And,
                (Some(b'|'), Some(b'|')) => Connector::Or,
                _ => break,
            };
            self.bump();
            self.bump();
            self.linebreak()?;
            rest.push((connector, self.pipeline()?));
        }
        Ok(AndOr { first, rest })
    }

    fn pipeline(&mut self) -> Result<Pipeline> {
        self.blanks();
        let mut negated = false;
        while self.keyword() == Some("!") {
            self.take_keyword("!");
            self.blanks();
            negated = true;
        }
        let mut commands = vec![self.command()?];
        loop {
            self.blanks();
            match (self.peek(), self.look(1)) {
                (Some(b'|'), Some(b'|')) => break,
                // bash's `|&` pipes standard error too; dash refuses it.
                (Some(b'|'), Some(b'&')) => {
                    self.bump();
                    self.bump();
                }
                (Some(b'|'), _) => {
                    self.bump();
                }
                _ => break,
            }
            self.linebreak()?;
            commands.push(self.command()?);
        }
        Ok(Pipeline { negated, commands })
    }
}
