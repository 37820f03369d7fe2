//! A simple command: its assignments, words and redirections, and where
//! sh and bash would read its words as different programs (`a+=1 cmd`,
//! `{fd}>f`, words after `&>`).
//!
//! A lone first word followed by `()` is a function definition, whose
//! body [`compound`](super::compound) reads.

use super::{Parser, Result};
use crate::syntax::ast::{Command, SimpleCommand};

impl Parser<'_> {
    pub(super) fn simple_command(&mut self) -> Result<Command> {
        let mut command = SimpleCommand::default();
        // The number of words when bash's `&>` was read: dash reads `cmd
        // &>f more` as `cmd &` and then `>f more`, a command of its own.
        let mut words_at_and_redirect = None;
        loop {
            self.blanks();
            match self.peek() {
                None | Some(b'\n' | b';' | b'|' | b')') => break,
                Some(b'&') if self.look(1) == Some(b'>') => {
                    let redirect = self.redirect(None)?;
                    command.redirects.push(redirect);
                    words_at_and_redirect.get_or_insert(command.words.len());
                }
                Some(b'&') => break,
                Some(b'#') => self.comment(),
                Some(b'<' | b'>') if self.look(1) == Some(b'(') => {
                    let word = self.process_substitution()?;
                    command.words.push(word);
                }
                Some(b'<' | b'>') => {
                    let redirect = self.redirect(None)?;
                    command.redirects.push(redirect);
                }
                Some(b'(') => {
                    let definition = command.words.len() == 1
                        && command.assignments.is_empty()
                        && command.redirects.is_empty();
                    if !definition {
                        return self.fail("a `(` inside a simple command");
                    }
                    self.bump();
                    self.blanks();
                    if self.bump() != Some(b')') {
                        return self.fail("a function name followed by `(` but no `)`");
                    }
                    let name = command.words.pop().expect("one word");
                    return self.function_body(name);
                }
                Some(_) => {
                    let (word, shape) = self.word()?.expect("a word starts here");
                    if matches!(self.peek(), Some(b'<' | b'>')) {
                        if shape.digits_only {
                            let fd = self.fd_number(&word.text)?;
                            let redirect = self.redirect(Some(fd))?;
                            command.redirects.push(redirect);
                            continue;
                        }
                        if shape.braced_name {
                            return self.fail(
                                "a `{name}` redirection, a descriptor variable to bash and a word to sh",
                            );
                        }
                    }
                    if command.words.is_empty() {
                        if shape.append_assignment || shape.subscript_assignment {
                            return self.fail(
                                "a `+=` or `name[...]=` assignment, an assignment to bash and a program to sh",
                            );
                        }
                        if word.assignment {
                            command.assignments.push(word);
                            continue;
                        }
                    }
                    command.words.push(word);
                }
            }
        }
        if command.words.is_empty()
            && command.assignments.is_empty()
            && command.redirects.is_empty()
        {
            return self.fail("an empty command");
        }
        if words_at_and_redirect.is_some_and(|n| command.words.len() > n) {
            return self.fail(
                "words after `&>`, which sh runs as a command of their own and bash as arguments",
            );
        }
        Ok(Command::Simple(command))
    }
}
