//! Expansions and substitutions inside a word: parameters, command
//! substitutions (`$(...)`, backquotes), arithmetic, bash's `$'...'` and
//! `$"..."`, and process substitutions, each substitution parsed as the
//! list it runs.
//!
//! An expansion makes the word dynamic and notes whether bash evaluates a
//! value as an expression; what the value is, it never guesses.

use super::list::Stop;
use super::word::Builder;
use super::{MAX_DEPTH, Parser, Result};
use crate::syntax::ast::Word;

impl Parser<'_> {
    /// Just after a `$`.
    pub(super) fn dollar(&mut self, b: &mut Builder, quoted: bool) -> Result<()> {
        match self.peek() {
            Some(b'(') if self.look(1) == Some(b'(') => {
                self.bump();
                self.bump();
                self.arithmetic(b)
            }
            Some(b'(') => {
                self.bump();
                let script = self.list(Stop::PAREN)?;
                if self.peek() != Some(b')') {
                    return self.fail("a `$(` with no `)`");
                }
                self.bump();
                b.substitutions.push(script);
                b.mark_dynamic();
                b.text.extend_from_slice(b"$(...)");
                Ok(())
            }
            Some(b'{') => {
                self.bump();
                self.parameter(b, quoted)
            }
            // bash's old arithmetic `$[...]`: its names are evaluated.
            Some(b'[') => {
                b.mark_dynamic();
                b.evaluates = true;
                b.text.push(b'$');
                Ok(())
            }
            Some(b'\'') if !quoted => {
                // bash's `$'...'`; dash reads `$` and a quoted string, which
                // ends at the first `'`: where bash's escaped `\'` sits, the
                // two read different commands.
                self.dollar_single_quote(b)
            }
            Some(b'"') if !quoted => {
                // bash's `$"..."` (a translated string); dash reads `$` and
                // a quoted string.
                self.bump();
                b.mark_dynamic();
                b.shape.has_dollar_quote = true;
                self.expanding_text(b, Some(b'"'))
            }
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                b.mark_dynamic();
                b.text.push(b'$');
                while let Some(c) = self.peek() {
                    if !(c.is_ascii_alphanumeric() || c == b'_') {
                        break;
                    }
                    self.at += 1;
                    b.text.push(c);
                }
                Ok(())
            }
            Some(c) if c.is_ascii_digit() || b"@*#?-$!".contains(&c) => {
                self.at += 1;
                b.mark_dynamic();
                b.text.push(b'$');
                b.text.push(c);
                Ok(())
            }
            // Anything else: a literal dollar sign.
            _ => {
                b.push_quoted(b'$');
                Ok(())
            }
        }
    }

    /// After `$` at a `'`: bash's `$'...'`, up to its closing quote.
    fn dollar_single_quote(&mut self, b: &mut Builder) -> Result<()> {
        self.at += 1;
        b.mark_dynamic();
        b.shape.has_dollar_quote = true;
        loop {
            match self.raw() {
                None => return self.fail("an unterminated `$'`"),
                Some(b'\'') => {
                    self.at += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.at += 1;
                    if self.raw() == Some(b'\'') {
                        return self.fail(
                            "a `$'...'` with an escaped quote, which sh and bash end at different places",
                        );
                    }
                    if let Some(n) = self.raw() {
                        b.text.push(n);
                        self.at += 1;
                    }
                }
                Some(c) => {
                    b.text.push(c);
                    self.at += 1;
                }
            }
        }
    }

    /// After `$((`: up to the matching `))`. A name or expansion inside
    /// means bash evaluates a value as an expression.
    fn arithmetic(&mut self, b: &mut Builder) -> Result<()> {
        self.enter()?;
        b.mark_dynamic();
        b.text.extend_from_slice(b"$((...))");
        let mut parens = 0usize;
        loop {
            match self.peek() {
                None => return self.fail("a `$((` with no `))`"),
                Some(b'(') => {
                    parens += 1;
                    self.bump();
                }
                Some(b')') if parens == 0 => {
                    self.bump();
                    if self.bump() != Some(b')') {
                        return self.fail("a `$((` closed by a single `)`");
                    }
                    break;
                }
                Some(b')') => {
                    parens -= 1;
                    self.bump();
                }
                Some(b'$') => {
                    self.bump();
                    b.evaluates = true;
                    self.dollar(b, true)?;
                }
                Some(b'`') => {
                    self.bump();
                    self.backquote(b, true)?;
                }
                Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                    b.evaluates = true;
                    self.bump();
                }
                Some(0) => return self.fail("a NUL character"),
                Some(_) => {
                    self.bump();
                }
            }
        }
        self.leave();
        Ok(())
    }

    /// After `${`: up to the matching `}`, substitutions inside parsed.
    fn parameter(&mut self, b: &mut Builder, quoted: bool) -> Result<()> {
        self.enter()?;
        b.mark_dynamic();
        b.text.extend_from_slice(b"${");
        // The body at the top level, for the evaluation check. It ends at
        // the first `}` not quoted or inside a nested expansion: a literal
        // `{` does not nest (`${x:-{}` ends after `{`), for sh and bash
        // alike.
        let mut body = Vec::new();
        loop {
            let Some(c) = self.bump() else {
                return self.fail("a `${` with no `}`");
            };
            match c {
                b'}' => break,
                b'\\' => {
                    self.at += 1;
                }
                b'\'' if !quoted => loop {
                    match self.raw() {
                        None => return self.fail("an unterminated single quote"),
                        Some(b'\'') => {
                            self.at += 1;
                            break;
                        }
                        Some(_) => self.at += 1,
                    }
                },
                b'"' => {
                    let mut inner = Builder::new();
                    self.expanding_text(&mut inner, Some(b'"'))?;
                    b.substitutions.append(&mut inner.substitutions);
                    b.evaluates |= inner.evaluates;
                }
                // Inside an unquoted `${...}` bash reads `$'...'` too.
                b'$' => self.dollar(b, quoted)?,
                b'`' => self.backquote(b, true)?,
                0 => return self.fail("a NUL character"),
                c => body.push(c),
            }
        }
        b.text.extend_from_slice(b"...}");
        // `${!x}` (indirection), `${x@P}` (transformations), `${a[i]}` and
        // `${x:offset}` (arithmetic) evaluate a value.
        let name_end = body
            .iter()
            .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
            .unwrap_or(body.len());
        let after = &body[name_end..];
        let offset = after.first() == Some(&b':')
            && !matches!(after.get(1), Some(b'-' | b'=' | b'?' | b'+'));
        if body.first() == Some(&b'!')
            || after.first() == Some(&b'@')
            || after.first() == Some(&b'[')
            || offset
        {
            b.evaluates = true;
        }
        self.leave();
        Ok(())
    }

    /// After a backquote: its text, unescaped as the shell does, read as a
    /// list of its own.
    pub(super) fn backquote(&mut self, b: &mut Builder, quoted: bool) -> Result<()> {
        let start = self.at;
        let mut inner = Vec::new();
        loop {
            let Some(c) = self.bump() else {
                return self.fail("an unterminated backquote");
            };
            match c {
                b'`' => break,
                b'\\' => match self.raw() {
                    Some(n) if matches!(n, b'$' | b'`' | b'\\') || (quoted && n == b'"') => {
                        self.at += 1;
                        inner.push(n);
                    }
                    _ => inner.push(b'\\'),
                },
                c => inner.push(c),
            }
        }
        let mut parser = Parser::new(&inner, self.depth + 1);
        parser.origin = self.origin + start;
        if parser.depth > MAX_DEPTH {
            return self.fail("nesting deeper than the reader follows");
        }
        let script = parser.program()?;
        b.substitutions.push(script);
        b.mark_dynamic();
        b.text.extend_from_slice(b"`...`");
        Ok(())
    }

    /// At `<(` or `>(`: bash's process substitution, a word naming a pipe
    /// to or from a list.
    pub(super) fn process_substitution(&mut self) -> Result<Word> {
        self.bump();
        self.bump();
        let script = self.list(Stop::PAREN)?;
        if self.peek() != Some(b')') {
            return self.fail("a process substitution with no `)`");
        }
        self.bump();
        Ok(Word {
            text: "/dev/fd/(...)".to_owned(),
            dynamic: true,
            substitutions: vec![script],
            ..Word::default()
        })
    }
}
