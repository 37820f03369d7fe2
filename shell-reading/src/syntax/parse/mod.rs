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

// One module a job: `cursor` moves through the characters and reserved
// words, `list` reads lists and pipelines, `compound` and `simple` the
// commands in them, `redirect` and `heredoc` redirections, `word` the
// words and `expansion` what expands inside them.
mod compound;
mod cursor;
mod expansion;
mod heredoc;
mod list;
mod redirect;
mod simple;
mod word;

use std::fmt;

use super::ast::{Script, Word};
use heredoc::Pending;

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
}

#[cfg(test)]
mod tests;
