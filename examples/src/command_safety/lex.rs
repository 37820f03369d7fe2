//! The tokenizer: shell text to words, operators and redirections.
//!
//! One pass over the text, no recursion, no backtracking: cost is linear in
//! the length. It recognizes only what the classifier can reason about
//! (words with quoting, parameter expansions, globs, the list and pipeline
//! operators, redirections) and stops with [`Unsupported`] at everything
//! else: subshells and function definitions (`(`), command, arithmetic and
//! process substitution, here-documents, `case` terminators, bash's `|&`
//! and `&>`, unterminated quotes. The caller treats that as "not
//! understood", which is the strict answer.
//!
//! Words are quote-removed as the shell will hand them to the program
//! (`'rm'`, `\rm` and `r"m"` are all `rm`), with line continuations
//! removed everywhere outside single quotes, before anything else looks at
//! them.

use std::fmt;

/// A word as the program will receive it, with what the shell may still
/// change about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word {
    /// The text after quote removal. For a [`dynamic`](Self::dynamic) word
    /// this is only an approximation (expansions are kept verbatim).
    pub text: String,
    /// The shell, not the text, decides the final value: a parameter
    /// expansion, an unquoted glob (`*`, `?`, `[`), a brace (`{`, `}`) or
    /// a leading tilde. Such a word may become zero, one or many words, or
    /// an option.
    pub dynamic: bool,
    /// Every character was an unquoted character outside any expansion:
    /// only such a word can be a reserved word (`if`, `{`, `!`).
    pub plain: bool,
    /// The word is an assignment `NAME=value` (an unquoted valid name before
    /// the first unquoted `=`).
    pub assignment: bool,
}

impl Word {
    /// A word the shell hands over as is.
    #[cfg(test)]
    pub(crate) fn literal(text: &str) -> Word {
        Word {
            text: text.to_owned(),
            dynamic: false,
            plain: true,
            assignment: false,
        }
    }

    /// The word is exactly `text`, with no expansion.
    pub(crate) fn is(&self, text: &str) -> bool {
        !self.dynamic && self.text == text
    }
}

/// The operators that join commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// `|`
    Pipe,
    /// `&&`
    And,
    /// `||`
    Or,
    /// `;`
    Semi,
    /// `&`: the command before it runs in the background.
    Background,
    /// A newline: ends a command like `;`.
    Newline,
}

/// What a redirection does to its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RedirectKind {
    /// `<`: opens the target for reading.
    Read,
    /// `>` or `>|`: creates or truncates the target.
    Truncate,
    /// `>>`: creates the target or appends to it.
    Append,
    /// `<>`: opens the target read-write, creating it.
    ReadWrite,
    /// `<&` or `>&`: duplicates or closes a descriptor; with a target that
    /// is not a number or `-`, bash truncates a file of that name instead.
    Duplicate,
}

/// One redirection: `[n]op target`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Redirect {
    /// What it does.
    pub kind: RedirectKind,
    /// Its target word.
    pub target: Word,
}

/// One token of a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token {
    /// A word.
    Word(Word),
    /// A list or pipeline operator.
    Op(Op),
    /// A redirection with its target.
    Redirect(Redirect),
}

/// A construct the classifier does not model; the command is then not
/// understood.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unsupported(pub &'static str);

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// Splits `text` into tokens, or says which construct it does not model.
pub(crate) fn tokenize(text: &str) -> Result<Vec<Token>, Unsupported> {
    Lexer {
        chars: text.chars().collect(),
        at: 0,
        tokens: Vec::new(),
    }
    .run()
}

struct Lexer {
    chars: Vec<char>,
    at: usize,
    tokens: Vec<Token>,
}

/// A word being built.
#[derive(Default)]
struct Builder {
    text: String,
    started: bool,
    dynamic: bool,
    /// Every character so far was an unquoted literal.
    plain: bool,
    assignment: bool,
    /// Only unquoted ASCII digits so far: a `<` or `>` right after makes it
    /// a descriptor number, not a word.
    digits_only: bool,
}

impl Builder {
    fn new() -> Builder {
        Builder {
            plain: true,
            digits_only: true,
            ..Builder::default()
        }
    }

    fn push_unquoted(&mut self, c: char) {
        if c == '=' && self.plain && !self.assignment && is_name(&self.text) {
            self.assignment = true;
        }
        self.digits_only &= c.is_ascii_digit();
        self.started = true;
        self.text.push(c);
    }

    fn push_quoted(&mut self, c: char) {
        self.started = true;
        self.plain = false;
        self.digits_only = false;
        self.text.push(c);
    }

    fn mark_quoted(&mut self) {
        self.started = true;
        self.plain = false;
        self.digits_only = false;
    }

    fn mark_dynamic(&mut self) {
        self.started = true;
        self.dynamic = true;
        self.plain = false;
        self.digits_only = false;
    }

    fn finish(self) -> Option<Word> {
        self.started.then_some(Word {
            text: self.text,
            dynamic: self.dynamic,
            plain: self.plain,
            assignment: self.assignment,
        })
    }
}

/// `[A-Za-z_][A-Za-z0-9_]*`
fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Lexer {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.at + offset).copied()
    }

    /// Skips any run of line continuations (backslash-newline), which the
    /// shell removes before it reads the characters around them.
    fn skip_continuations(&mut self) {
        while self.peek() == Some('\\') && self.peek_at(1) == Some('\n') {
            self.at += 2;
        }
    }

    /// The next character, line continuations removed.
    fn next_char(&mut self) -> Option<char> {
        self.skip_continuations();
        let c = self.peek()?;
        self.at += 1;
        Some(c)
    }

    /// The next character without consuming it, line continuations removed.
    fn peek_char(&mut self) -> Option<char> {
        self.skip_continuations();
        self.peek()
    }

    fn run(mut self) -> Result<Vec<Token>, Unsupported> {
        loop {
            match self.peek_char() {
                None => return Ok(self.tokens),
                Some(' ' | '\t') => self.at += 1,
                Some('#') => {
                    // A comment runs to the end of the line.
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.at += 1;
                    }
                }
                Some('\n') => {
                    self.at += 1;
                    self.tokens.push(Token::Op(Op::Newline));
                }
                Some('|' | '&' | ';' | '(' | ')') => self.operator()?,
                Some('<' | '>') => self.redirect()?,
                Some(_) => {
                    let word = self.word()?;
                    match self.peek_char() {
                        Some('<' | '>') if word.digits_only => self.redirect()?,
                        _ => {
                            if let Some(word) = word.finish() {
                                self.tokens.push(Token::Word(word));
                            }
                        }
                    }
                }
            }
        }
    }

    fn operator(&mut self) -> Result<(), Unsupported> {
        let first = self.next_char();
        let second = self.peek_char();
        let (op, two) = match (first, second) {
            (Some('|'), Some('|')) => (Op::Or, true),
            (Some('|'), Some('&')) => return Err(Unsupported("`|&` (bash's pipe of stderr)")),
            (Some('|'), _) => (Op::Pipe, false),
            (Some('&'), Some('&')) => (Op::And, true),
            (Some('&'), Some('>')) => {
                return Err(Unsupported("`&>` (read differently by sh and bash)"));
            }
            (Some('&'), _) => (Op::Background, false),
            (Some(';'), Some(';' | '&')) => return Err(Unsupported("`;;` outside a `case`")),
            (Some(';'), _) => (Op::Semi, false),
            _ => {
                return Err(Unsupported(
                    "a subshell, group or function definition (`(`)",
                ));
            }
        };
        if two {
            self.next_char();
        }
        self.tokens.push(Token::Op(op));
        Ok(())
    }

    /// At `<` or `>` (any descriptor number already read).
    fn redirect(&mut self) -> Result<(), Unsupported> {
        let first = self.next_char();
        let second = self.peek_char();
        let kind = match (first, second) {
            (Some('<'), Some('<')) => return Err(Unsupported("a here-document (`<<`)")),
            (Some('<'), Some('>')) => RedirectKind::ReadWrite,
            (Some('<'), Some('&')) => RedirectKind::Duplicate,
            (Some('<'), Some('(')) | (Some('>'), Some('(')) => {
                return Err(Unsupported("a process substitution (`<(` or `>(`)"));
            }
            (Some('<'), _) => {
                return self.target(RedirectKind::Read, false);
            }
            (Some('>'), Some('>')) => RedirectKind::Append,
            (Some('>'), Some('|')) => RedirectKind::Truncate,
            (Some('>'), Some('&')) => RedirectKind::Duplicate,
            _ => return self.target(RedirectKind::Truncate, false),
        };
        self.target(kind, true)
    }

    fn target(&mut self, kind: RedirectKind, skip_second: bool) -> Result<(), Unsupported> {
        if skip_second {
            self.next_char();
        }
        while matches!(self.peek_char(), Some(' ' | '\t')) {
            self.at += 1;
        }
        if matches!(
            self.peek_char(),
            None | Some('\n' | '|' | '&' | ';' | '(' | ')' | '<' | '>' | '#')
        ) {
            return Err(Unsupported("a redirection without a target"));
        }
        let target = self
            .word()?
            .finish()
            .ok_or(Unsupported("a redirection without a target"))?;
        self.tokens.push(Token::Redirect(Redirect { kind, target }));
        Ok(())
    }

    /// Reads one word up to an unquoted blank or operator character.
    fn word(&mut self) -> Result<Builder, Unsupported> {
        let mut word = Builder::new();
        while let Some(c) = self.peek_char() {
            match c {
                ' ' | '\t' | '\n' | '|' | '&' | ';' | '(' | ')' | '<' | '>' => break,
                '\\' => {
                    self.at += 1;
                    let escaped = self
                        .peek()
                        .ok_or(Unsupported("a backslash at the end of the command"))?;
                    self.at += 1;
                    word.push_quoted(escaped);
                }
                '\'' => {
                    self.at += 1;
                    word.mark_quoted();
                    loop {
                        // No line continuation inside single quotes.
                        let q = self
                            .peek()
                            .ok_or(Unsupported("an unterminated single quote"))?;
                        self.at += 1;
                        if q == '\'' {
                            break;
                        }
                        word.push_quoted(q);
                    }
                }
                '"' => {
                    self.at += 1;
                    self.double_quoted(&mut word)?;
                }
                '`' => return Err(Unsupported("a command substitution (backquote)")),
                '$' => {
                    self.at += 1;
                    self.dollar(&mut word, false)?;
                }
                // Globs, braces and a leading tilde are unquoted literal
                // characters (so `{` can still be a reserved word), but
                // the shell may expand the word they are in.
                '*' | '?' | '[' | '{' | '}' => {
                    self.at += 1;
                    word.push_unquoted(c);
                    word.dynamic = true;
                }
                '~' if !word.started => {
                    self.at += 1;
                    word.push_unquoted(c);
                    word.dynamic = true;
                }
                '\0' => return Err(Unsupported("a NUL character")),
                c => {
                    self.at += 1;
                    word.push_unquoted(c);
                }
            }
        }
        Ok(word)
    }

    fn double_quoted(&mut self, word: &mut Builder) -> Result<(), Unsupported> {
        word.mark_quoted();
        loop {
            let c = self
                .next_char()
                .ok_or(Unsupported("an unterminated double quote"))?;
            match c {
                '"' => return Ok(()),
                '\\' => {
                    let next = self
                        .peek()
                        .ok_or(Unsupported("an unterminated double quote"))?;
                    if matches!(next, '$' | '`' | '"' | '\\') {
                        self.at += 1;
                        word.push_quoted(next);
                    } else {
                        word.push_quoted('\\');
                    }
                }
                '`' => return Err(Unsupported("a command substitution (backquote)")),
                '$' => self.dollar(word, true)?,
                '\0' => return Err(Unsupported("a NUL character")),
                c => word.push_quoted(c),
            }
        }
    }

    /// Just after a `$`; `in_double_quotes` when inside `"..."`, where a
    /// `$` before a quote is a literal dollar sign.
    fn dollar(&mut self, word: &mut Builder, in_double_quotes: bool) -> Result<(), Unsupported> {
        match self.peek_char() {
            Some('(') => Err(Unsupported(
                "a command substitution or arithmetic expansion (`$(`)",
            )),
            Some('\'' | '"') if !in_double_quotes => {
                Err(Unsupported("bash's `$'...'` or `$\"...\"` quoting"))
            }
            Some('{') => {
                self.at += 1;
                word.mark_dynamic();
                word.text.push_str("${");
                loop {
                    // Only a plain `${name...}` body is modelled: anything
                    // that could nest another expansion or quote is not.
                    let c = self
                        .next_char()
                        .ok_or(Unsupported("an unterminated `${`"))?;
                    match c {
                        '}' => {
                            word.text.push('}');
                            return Ok(());
                        }
                        '$' | '`' | '\'' | '"' | '\\' | '{' | '\n' | '\0' => {
                            return Err(Unsupported(
                                "a parameter expansion with nested quoting or expansion",
                            ));
                        }
                        c => word.text.push(c),
                    }
                }
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                word.mark_dynamic();
                word.text.push('$');
                while let Some(c) = self.peek_char() {
                    if !(c.is_ascii_alphanumeric() || c == '_') {
                        break;
                    }
                    self.at += 1;
                    word.text.push(c);
                }
                Ok(())
            }
            Some(c) if c.is_ascii_digit() || "@*#?-$!".contains(c) => {
                self.at += 1;
                word.mark_dynamic();
                word.text.push('$');
                word.text.push(c);
                Ok(())
            }
            // A `$` before anything else is a literal dollar sign.
            _ => {
                word.push_quoted('$');
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        tokenize(text)
            .expect("tokenizes")
            .into_iter()
            .map(|t| match t {
                Token::Word(w) => w.text,
                Token::Op(op) => format!("<{op:?}>"),
                Token::Redirect(r) => format!("<{:?} {}>", r.kind, r.target.text),
            })
            .collect()
    }

    #[test]
    fn quotes_and_escapes_are_removed() {
        assert_eq!(words(r#"'rm' \rm r"m" "a b"c"#), ["rm", "rm", "rm", "a bc"]);
        assert_eq!(words(r#""a\$b\x""#), ["a$b\\x"]);
    }

    #[test]
    fn line_continuations_vanish_even_inside_words() {
        assert_eq!(
            words("find . \\\nls -delete"),
            ["find", ".", "ls", "-delete"]
        );
        assert_eq!(words("-del\\\nete"), ["-delete"]);
        assert_eq!(words("'a\\\nb'"), ["a\\\nb"]);
    }

    #[test]
    fn glued_redirections_are_split_from_words() {
        assert_eq!(
            words("find . -delete<a.txt"),
            ["find", ".", "-delete", "<Read a.txt>"]
        );
        assert_eq!(
            words("rm>/dev/null -f"),
            ["rm", "<Truncate /dev/null>", "-f"]
        );
        assert_eq!(words("ls 2>&1"), ["ls", "<Duplicate 1>"]);
        assert_eq!(words("ls a2>x"), ["ls", "a2", "<Truncate x>"]);
        assert_eq!(words("x >> y"), ["x", "<Append y>"]);
    }

    #[test]
    fn operators() {
        assert_eq!(
            words("a|b||c&&d;e&"),
            [
                "a",
                "<Pipe>",
                "b",
                "<Or>",
                "c",
                "<And>",
                "d",
                "<Semi>",
                "e",
                "<Background>"
            ]
        );
        assert_eq!(words("a # b; rm x\nc"), ["a", "<Newline>", "c"]);
        assert_eq!(words("a#b"), ["a#b"]);
    }

    #[test]
    fn expansions_make_words_dynamic() {
        for text in ["$HOME", "\"$x\"", "${x}", "a*", "~", "{a,b}", "$1", "[ab]"] {
            let tokens = tokenize(text).expect(text);
            assert!(
                matches!(&tokens[..], [Token::Word(w)] if w.dynamic),
                "{text}: {tokens:?}"
            );
        }
        for text in ["a~", "'*'", "\\*", "$", "a=b", "\"5$\"", "\"$'\""] {
            let tokens = tokenize(text).expect(text);
            assert!(
                matches!(&tokens[..], [Token::Word(w)] if !w.dynamic),
                "{text}: {tokens:?}"
            );
        }
    }

    #[test]
    fn assignments_need_an_unquoted_name() {
        let first = |text: &str| match tokenize(text).expect(text).remove(0) {
            Token::Word(w) => w.assignment,
            other => panic!("{other:?}"),
        };
        assert!(first("A=1"));
        assert!(first("A_2='x y'"));
        assert!(first("A\\\n=1"));
        assert!(!first("'A'=1"));
        assert!(!first("-A=1"));
        assert!(!first("=1"));
    }

    #[test]
    fn unmodelled_constructs_are_refused() {
        for text in [
            "(ls)",
            "ls () (rm x)",
            "echo $(rm x)",
            "echo `rm x`",
            "echo \"$(rm x)\"",
            "echo $((1))",
            "cat <(rm x)",
            "tee >(rm x)",
            "cat <<EOF",
            "ls |& cat",
            "ls &> x",
            "'open",
            "\"open",
            "ls \\",
            "${x:-$(rm)}",
            "$'\\x41'",
            "ls >",
            "ls > ;",
            "case x in x) ;; esac",
        ] {
            assert!(tokenize(text).is_err(), "{text:?} tokenized");
        }
    }
}
