//! The parser: command-line text to a [`Script`].
//!
//! It reads the POSIX shell grammar and the bash constructs a command line
//! meets in practice: quoting and line continuations, parameter
//! expansions, command, arithmetic and process substitutions (each parsed
//! as the list it runs), here-documents (bodies with an unquoted delimiter
//! are expanded, so their substitutions are parsed too), subshells and
//! groups, `if`, `while`, `until`, `for`, `select`, `case`, `[[ ]]` and
//! function definitions.
//!
//! Where sh (dash) and bash would read the same text as different
//! programs, the text is [`Unreadable`]: a `+=` or `a[i]=` assignment
//! before a command (an assignment to bash, the program to dash), a
//! `{name}>` redirection (a descriptor variable to bash, the program to
//! dash), bash's arithmetic `for ((...))`. Where they read the same
//! programs with different effects (bash's `&>`, `|&`, `$'...'`), the
//! reading keeps both possibilities: `&>` truncates its target in either
//! reading, a `$'...'` word is dynamic. `((...))` is read as dash reads
//! it, two nested subshells, which finds every command bash's arithmetic
//! reading could run and more.
//!
//! Cost is linear in the length: one pass, no backtracking; a backquoted
//! substitution and a here-document body are read a second time, as the
//! shell does, which nesting bounds. Nesting deeper than [`MAX_DEPTH`]
//! is unreadable, so recursion is bounded too.

use std::fmt;

use super::ast::{
    AndOr, Command, Compound, Connector, ListItem, Pipeline, Redirect, RedirectKind, Script,
    SimpleCommand, Word,
};

/// How deeply lists, compound commands and substitutions may nest before
/// the text is unreadable.
pub const MAX_DEPTH: usize = 64;

/// Why a text has no reading: a syntax error, a construct sh and bash read
/// as different programs, or nesting past [`MAX_DEPTH`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unreadable {
    /// What was found.
    pub reason: &'static str,
    /// The byte offset where it was found.
    pub at: usize,
}

impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at byte {})", self.reason, self.at)
    }
}

impl std::error::Error for Unreadable {}

/// Parses a whole command line.
pub fn parse(text: &str) -> std::result::Result<Script, Unreadable> {
    Parser::new(text.as_bytes(), 0).program()
}

/// Reserved words, recognised only where a command starts.
const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for",
    "select", "in", "function", "{", "}", "!", "[[", "]]",
];

/// Where a list ends.
#[derive(Clone, Copy)]
struct Stop {
    /// At an unmatched `)`.
    paren: bool,
    /// At one of these reserved words.
    keywords: &'static [&'static str],
    /// At `;;`, `;&` or `;;&` (a `case` arm).
    case_arm: bool,
}

impl Stop {
    const END: Stop = Stop {
        paren: false,
        keywords: &[],
        case_arm: false,
    };
    const PAREN: Stop = Stop {
        paren: true,
        ..Stop::END
    };
    const fn at(keywords: &'static [&'static str]) -> Stop {
        Stop {
            keywords,
            ..Stop::END
        }
    }
}

/// A here-document waiting for the end of its line.
struct Pending {
    delimiter: Vec<u8>,
    quoted: bool,
    strip_tabs: bool,
}

/// What a word's spelling says beyond the word itself.
#[derive(Default)]
struct Shape {
    /// Only unquoted ASCII digits: a `<` or `>` right after makes it a
    /// descriptor number.
    digits_only: bool,
    /// `NAME+=value`.
    append_assignment: bool,
    /// `NAME[subscript]=value`.
    subscript_assignment: bool,
    /// `{name}`: before a redirection, bash's descriptor variable.
    braced_name: bool,
    /// Some character was quoted (a backslash, single or double quotes):
    /// what makes a here-document delimiter quoted.
    has_quoting: bool,
    /// The word holds `$'...'` or `$"..."`, which sh and bash read as
    /// different text.
    has_dollar_quote: bool,
}

/// A word being built.
struct Builder {
    text: Vec<u8>,
    started: bool,
    dynamic: bool,
    plain: bool,
    assignment: bool,
    evaluates: bool,
    substitutions: Vec<Script>,
    shape: Shape,
}

impl Builder {
    fn new() -> Builder {
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

    fn push_quoted(&mut self, c: u8) {
        self.mark_quoted();
        self.text.push(c);
    }

    fn mark_quoted(&mut self) {
        self.started = true;
        self.plain = false;
        self.shape.digits_only = false;
    }

    fn mark_dynamic(&mut self) {
        self.mark_quoted();
        self.dynamic = true;
    }

    fn finish(self) -> Option<(Word, Shape)> {
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
fn is_name(text: &[u8]) -> bool {
    text.first()
        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        && text.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// Characters that end an unquoted word.
fn ends_word(c: u8) -> bool {
    matches!(
        c,
        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
    )
}

struct Parser<'a> {
    src: &'a [u8],
    at: usize,
    depth: usize,
    pending: Vec<Pending>,
    /// Here-document bodies read, not yet claimed by the list being read.
    bodies: Vec<Word>,
    /// Where this text starts in the outermost one (for error offsets of
    /// backquotes and here-document bodies, which are read on their own).
    origin: usize,
}

type Result<T> = std::result::Result<T, Unreadable>;

impl<'a> Parser<'a> {
    fn new(src: &'a [u8], depth: usize) -> Parser<'a> {
        Parser {
            src,
            at: 0,
            depth,
            pending: Vec::new(),
            bodies: Vec::new(),
            origin: 0,
        }
    }

    fn fail<T>(&self, reason: &'static str) -> Result<T> {
        Err(Unreadable {
            reason,
            at: self.origin + self.at,
        })
    }

    // ---- characters ----------------------------------------------------

    /// The index of the next character at or after `i`, line
    /// continuations (backslash-newline) skipped.
    fn skip_continuations(&self, mut i: usize) -> usize {
        while self.src.get(i) == Some(&b'\\') && self.src.get(i + 1) == Some(&b'\n') {
            i += 2;
        }
        i
    }

    /// The `n`th character from here (0: the next), continuations skipped.
    fn look(&self, n: usize) -> Option<u8> {
        let mut i = self.skip_continuations(self.at);
        for _ in 0..n {
            i = self.skip_continuations(i + 1);
        }
        self.src.get(i).copied()
    }

    fn peek(&mut self) -> Option<u8> {
        self.at = self.skip_continuations(self.at);
        self.src.get(self.at).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.at += 1;
        Some(c)
    }

    /// The next character exactly as written (inside single quotes and
    /// comments no continuation is removed).
    fn raw(&self) -> Option<u8> {
        self.src.get(self.at).copied()
    }

    fn blanks(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }

    /// A comment runs to the end of the line (the newline is left).
    fn comment(&mut self) {
        if self.peek() == Some(b'#') {
            while self.raw().is_some_and(|c| c != b'\n') {
                self.at += 1;
            }
        }
    }

    /// At a newline: consumes it and reads the bodies of the
    /// here-documents whose line it ends.
    fn newline(&mut self) -> Result<()> {
        self.at += 1;
        for pending in std::mem::take(&mut self.pending) {
            let body = self.heredoc_body(&pending)?;
            self.bodies.push(body);
        }
        Ok(())
    }

    /// Blanks, comments and newlines, where the grammar allows them.
    fn linebreak(&mut self) -> Result<()> {
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

    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.fail("nesting deeper than the reader follows");
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    // ---- reserved words ------------------------------------------------

    /// The reserved word that starts here, if any (only meaningful where a
    /// command may start).
    fn keyword(&self) -> Option<&'static str> {
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

    fn take_keyword(&mut self, keyword: &str) {
        for _ in 0..keyword.len() {
            self.bump();
        }
    }

    fn expect_keyword(&mut self, keyword: &'static str, missing: &'static str) -> Result<()> {
        if self.keyword() == Some(keyword) {
            self.take_keyword(keyword);
            Ok(())
        } else {
            self.fail(missing)
        }
    }

    // ---- the grammar ---------------------------------------------------

    fn program(mut self) -> Result<Script> {
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

    fn list(&mut self, stop: Stop) -> Result<Script> {
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

    fn command(&mut self) -> Result<Command> {
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

    fn function_body(&mut self, name: Word) -> Result<Command> {
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

    fn trailing_redirects(&mut self) -> Result<Vec<Redirect>> {
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

    fn fd_number(&self, digits: &str) -> Result<u32> {
        match digits.parse() {
            Ok(fd) => Ok(fd),
            Err(_) => self.fail("a descriptor number too large"),
        }
    }

    fn simple_command(&mut self) -> Result<Command> {
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

    /// At `<`, `>` or `&>` (any descriptor number already read).
    fn redirect(&mut self, fd: Option<u32>) -> Result<Redirect> {
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

    fn heredoc(&mut self, fd: Option<u32>, strip_tabs: bool) -> Result<Redirect> {
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
    fn heredoc_body(&mut self, pending: &Pending) -> Result<Word> {
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

    // ---- words -----------------------------------------------------------

    /// Reads one word up to an unquoted blank or operator character.
    fn word(&mut self) -> Result<Option<(Word, Shape)>> {
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
    fn expanding_text(&mut self, b: &mut Builder, end: Option<u8>) -> Result<()> {
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

    /// Just after a `$`.
    fn dollar(&mut self, b: &mut Builder, quoted: bool) -> Result<()> {
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
    fn backquote(&mut self, b: &mut Builder, quoted: bool) -> Result<()> {
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
    fn process_substitution(&mut self) -> Result<Word> {
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

#[cfg(test)]
mod tests;
