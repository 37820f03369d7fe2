//! Which kind of command starts here, and the compound commands: groups,
//! subshells, `((...))`, `if`, `while` and `until`, `for` and `select`,
//! `case`, bash's `[[ ]]`, and function definitions.
//!
//! A simple command is read by [`simple`](super::simple).

use super::list::Stop;
use super::word::{ends_word, is_name};
use super::{Parser, Result};
use crate::syntax::ast::{Command, Compound, Script, Word};

impl Parser<'_> {
    pub(super) fn command(&mut self) -> Result<Command> {
        self.blanks();
        if let Some(keyword) = self.keyword() {
            let compound = match keyword {
                "{" => {
                    self.take_keyword("{");
                    let body = self.body(Stop::at(&["}"]))?;
                    self.expect_keyword("}", "a `{` with no `}`")?;
                    Compound::Group(body)
                }
                "if" => self.if_clause()?,
                "while" | "until" => {
                    self.take_keyword(keyword);
                    let condition = self.body(Stop::at(&["do"]))?;
                    self.expect_keyword("do", "a loop with no `do`")?;
                    let body = self.body(Stop::at(&["done"]))?;
                    self.expect_keyword("done", "a loop with no `done`")?;
                    Compound::Loop { condition, body }
                }
                "for" | "select" => self.for_clause(keyword)?,
                "case" => self.case_clause()?,
                "[[" => self.conditional()?,
                "function" => return self.function_keyword(),
                _ => return self.fail("a reserved word where a command should be"),
            };
            let redirects = self.trailing_redirects()?;
            return Ok(Command::Compound(compound, redirects));
        }
        match self.peek() {
            Some(b'(') => {
                let arithmetic = self.look(1) == Some(b'(');
                self.bump();
                let body = self.body(Stop::PAREN)?;
                if self.peek() != Some(b')') {
                    return self.fail("a `(` with no `)`");
                }
                self.bump();
                let redirects = self.trailing_redirects()?;
                let compound = if arithmetic {
                    Compound::Arithmetic(body)
                } else {
                    Compound::Subshell(body)
                };
                Ok(Command::Compound(compound, redirects))
            }
            None | Some(b')' | b'|' | b';' | b'&' | b'\n') => {
                self.fail("an operator where a command should be")
            }
            _ => self.simple_command(),
        }
    }

    /// A list that must hold at least one command (the part of a compound
    /// command).
    fn body(&mut self, stop: Stop) -> Result<Script> {
        let list = self.list(stop)?;
        if list.is_empty() {
            return self.fail("an empty command list");
        }
        Ok(list)
    }

    fn if_clause(&mut self) -> Result<Compound> {
        self.take_keyword("if");
        let mut parts = vec![self.body(Stop::at(&["then"]))?];
        self.expect_keyword("then", "an `if` with no `then`")?;
        parts.push(self.body(Stop::at(&["elif", "else", "fi"]))?);
        loop {
            match self.keyword() {
                Some("elif") => {
                    self.take_keyword("elif");
                    parts.push(self.body(Stop::at(&["then"]))?);
                    self.expect_keyword("then", "an `elif` with no `then`")?;
                    parts.push(self.body(Stop::at(&["elif", "else", "fi"]))?);
                }
                Some("else") => {
                    self.take_keyword("else");
                    parts.push(self.body(Stop::at(&["fi"]))?);
                    self.expect_keyword("fi", "an `if` with no `fi`")?;
                    return Ok(Compound::If(parts));
                }
                Some("fi") => {
                    self.take_keyword("fi");
                    return Ok(Compound::If(parts));
                }
                _ => return self.fail("an `if` with no `fi`"),
            }
        }
    }

    fn for_clause(&mut self, keyword: &'static str) -> Result<Compound> {
        self.take_keyword(keyword);
        self.blanks();
        if self.peek() == Some(b'(') {
            return self.fail("bash's arithmetic `for ((...))`");
        }
        let Some((name, _)) = self.word()? else {
            return self.fail("a `for` with no name");
        };
        if name.dynamic || !is_name(name.text.as_bytes()) {
            return self.fail("a `for` whose name is not a variable name");
        }
        self.blanks();
        let mut words = None;
        match self.peek() {
            Some(b';') => {
                self.bump();
            }
            _ => {
                self.linebreak()?;
                if self.keyword() == Some("in") {
                    self.take_keyword("in");
                    let mut list = Vec::new();
                    loop {
                        self.blanks();
                        self.comment();
                        match self.peek() {
                            Some(b';') => {
                                self.bump();
                                break;
                            }
                            Some(b'\n') => {
                                self.newline()?;
                                break;
                            }
                            None => return self.fail("a `for` with no `do`"),
                            Some(c) if ends_word(c) => {
                                return self.fail("an operator in a `for` word list");
                            }
                            Some(_) => {
                                let (word, _) = self.word()?.expect("a word starts here");
                                list.push(word);
                            }
                        }
                    }
                    words = Some(list);
                }
            }
        }
        self.linebreak()?;
        self.expect_keyword("do", "a `for` with no `do`")?;
        let body = self.body(Stop::at(&["done"]))?;
        self.expect_keyword("done", "a `for` with no `done`")?;
        Ok(Compound::For { name, words, body })
    }

    fn case_clause(&mut self) -> Result<Compound> {
        self.take_keyword("case");
        self.blanks();
        let Some((word, _)) = self.word()? else {
            return self.fail("a `case` with no word");
        };
        self.linebreak()?;
        self.expect_keyword("in", "a `case` with no `in`")?;
        let mut arms = Vec::new();
        loop {
            self.linebreak()?;
            if self.keyword() == Some("esac") {
                self.take_keyword("esac");
                return Ok(Compound::Case { word, arms });
            }
            if self.peek() == Some(b'(') {
                self.bump();
            }
            let mut patterns = Vec::new();
            loop {
                self.blanks();
                match self.peek() {
                    Some(c) if !ends_word(c) => {
                        let (pattern, _) = self.word()?.expect("a word starts here");
                        patterns.push(pattern);
                    }
                    _ => return self.fail("a `case` pattern missing"),
                }
                self.blanks();
                match self.bump() {
                    Some(b'|') => {}
                    Some(b')') => break,
                    _ => return self.fail("a `case` pattern with no `)`"),
                }
            }
            let list = self.list(Stop {
                keywords: &["esac"],
                case_arm: true,
                paren: false,
            })?;
            arms.push((patterns, list));
            if self.peek() == Some(b';') {
                // `;;`, `;&` or bash's `;;&`.
                self.bump();
                self.bump();
                if self.peek() == Some(b'&') {
                    self.bump();
                }
            } else if self.keyword() != Some("esac") {
                return self.fail("a `case` with no `esac`");
            }
        }
    }

    /// bash's `[[ ... ]]`: words up to `]]`, its operators skipped.
    fn conditional(&mut self) -> Result<Compound> {
        self.take_keyword("[[");
        let mut words = Vec::new();
        loop {
            self.blanks();
            if self.peek() == Some(b'\n') {
                self.newline()?;
                continue;
            }
            if self.keyword() == Some("]]") {
                self.take_keyword("]]");
                break;
            }
            match self.peek() {
                None => return self.fail("a `[[` with no `]]`"),
                // To dash, `[[` is a program: these are its pipes, lists
                // and redirections, running other commands.
                Some(b'<' | b'>' | b'|' | b'&') => {
                    return self.fail(
                        "an operator inside `[[`, which sh (to which `[[` is a command) reads as a pipe, list or redirection",
                    );
                }
                Some(b'(' | b')') => {
                    self.bump();
                }
                Some(b';') => return self.fail("a `;` inside `[[`"),
                Some(_) => {
                    let (word, _) = self.word()?.expect("a word starts here");
                    words.push(word);
                }
            }
        }
        // `-eq` and its kin evaluate both sides as arithmetic.
        let arithmetic = words.iter().any(|w| {
            w.plain
                && matches!(
                    w.text.as_str(),
                    "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge"
                )
        });
        // Every operand that is not a plain number is evaluated: a literal
        // name too (`[[ x -eq 1 ]]` evaluates `x`'s value as an
        // expression).
        if arithmetic {
            for word in &mut words {
                let operator = word.plain && word.text.starts_with('-');
                let number = !word.dynamic && word.text.bytes().all(|c| c.is_ascii_digit());
                word.evaluates |= !operator && !number;
            }
        }
        Ok(Compound::Conditional(words))
    }

    /// bash's `function name [()] body`.
    fn function_keyword(&mut self) -> Result<Command> {
        self.take_keyword("function");
        self.blanks();
        let Some((name, _)) = self.word()? else {
            return self.fail("a `function` with no name");
        };
        self.blanks();
        if self.peek() == Some(b'(') {
            self.bump();
            self.blanks();
            if self.bump() != Some(b')') {
                return self.fail("a function name followed by `(` but no `)`");
            }
        }
        self.function_body(name)
    }

    pub(super) fn function_body(&mut self, name: Word) -> Result<Command> {
        self.linebreak()?;
        self.enter()?;
        let body = self.command()?;
        self.leave();
        if !matches!(body, Command::Compound(..)) {
            return self.fail("a function body that is not a compound command");
        }
        Ok(Command::Function {
            name,
            body: Box::new(body),
        })
    }
}
