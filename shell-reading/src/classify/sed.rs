//! sed: in-place editing, script files, and the script commands that
//! write files or run programs.
//!
//! A sed script is read command by command, as GNU sed reads it: addresses
//! (`N`, `$`, `/re/`, `\cREc`, `first~step`, `addr,addr`, `!`), then the
//! command. `w FILE`, `W FILE`, `s///w FILE` write (truncating FILE);
//! `e` and `s///e` run a command. A script this reader cannot follow
//! counts as destructive.

use super::programs::has_long;
use crate::options::{Arg::*, Item, Table, bad, ok};
use crate::reading::has;
use crate::syntax::Word;
use crate::wrappers::{HELP, VERSION, wrapper};

/// `sed -i` edits in place; a script file is not known; a script that
/// writes or runs a command destroys. `--sandbox` refuses `e`, `r` and `w`.
pub(crate) fn sed_destroys(args: &[Word]) -> bool {
    let Ok((items, _)) = SED.parse(args) else {
        return true;
    };
    if has(&SED, &items, "in-place") || has(&SED, &items, "file") {
        return true;
    }
    if has(&SED, &items, "sandbox") || has_long(args, "sandbox") {
        return false;
    }
    let mut scripts: Vec<&str> = items
        .iter()
        .filter_map(|item| match item {
            Item::Opt { opt, value } if SED.is(*opt, "expression") => value.as_deref(),
            _ => None,
        })
        .collect();
    if scripts.is_empty() {
        scripts.extend(items.iter().find_map(|item| match item {
            Item::Operand(w) => Some(w.text.as_str()),
            _ => None,
        }));
    }
    // GNU sed joins `-e` scripts with newlines.
    let script = scripts.join("\n");
    script_acts(&script)
}

/// Whether a sed script writes a file or runs a command (or cannot be
/// read, which counts as both).
pub(crate) fn script_acts(script: &str) -> bool {
    Script {
        chars: script.chars().collect(),
        at: 0,
    }
    .acts()
    .unwrap_or(true)
}

struct Script {
    chars: Vec<char>,
    at: usize,
}

impl Script {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        Some(c)
    }

    fn skip_blanks(&mut self) {
        while self.peek().is_some_and(|c| c == ' ' || c == '\t') {
            self.at += 1;
        }
    }

    /// To the end of the line (a label, a file name, text).
    fn rest_of_line(&mut self) {
        while self.next().is_some_and(|c| c != '\n') {}
    }

    /// The text of `a`, `i` and `c`: to the end of the line, a line that
    /// ends in `\` continuing it.
    fn text(&mut self) {
        while let Some(c) = self.next() {
            match c {
                '\\' => {
                    self.next();
                }
                '\n' => return,
                _ => {}
            }
        }
    }

    /// A label: to a newline or `;` (GNU).
    fn label(&mut self) {
        while self.peek().is_some_and(|c| c != '\n' && c != ';') {
            self.at += 1;
        }
    }

    /// A delimited part (`/re/`, the halves of `s` and `y`): up to the
    /// unescaped `delim`. `None` when it never ends.
    fn delimited(&mut self, delim: char) -> Option<()> {
        loop {
            match self.next()? {
                '\\' => {
                    self.next()?;
                }
                '\n' if delim != '\n' => return None,
                c if c == delim => return Some(()),
                _ => {}
            }
        }
    }

    fn address(&mut self) -> Option<()> {
        match self.peek() {
            Some('0'..='9') => {
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.at += 1;
                }
                if self.peek() == Some('~') {
                    self.at += 1;
                    while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                        self.at += 1;
                    }
                }
            }
            Some('$') => self.at += 1,
            Some('/') => {
                self.at += 1;
                self.delimited('/')?;
            }
            Some('\\') => {
                self.at += 1;
                let delim = self.next()?;
                self.delimited(delim)?;
            }
            _ => return Some(()),
        }
        // Regex flags of an address.
        while self.peek().is_some_and(|c| c == 'I' || c == 'M') {
            self.at += 1;
        }
        Some(())
    }

    /// `Some(true)` when a command writes or runs something; `None` when
    /// the script cannot be followed.
    fn acts(&mut self) -> Option<bool> {
        loop {
            // Separators and blanks between commands.
            while self
                .peek()
                .is_some_and(|c| c.is_whitespace() || c == ';' || c == '}')
            {
                self.at += 1;
            }
            let Some(_) = self.peek() else {
                return Some(false);
            };
            self.address()?;
            self.skip_blanks();
            if self.peek() == Some(',') {
                self.at += 1;
                self.skip_blanks();
                match self.peek() {
                    // GNU's `addr,+N` and `addr,~N`.
                    Some('+' | '~') => {
                        self.at += 1;
                        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                            self.at += 1;
                        }
                    }
                    _ => self.address()?,
                }
            }
            self.skip_blanks();
            while self.peek() == Some('!') {
                self.at += 1;
                self.skip_blanks();
            }
            match self.next()? {
                '{' | '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x'
                | 'z' | 'F' => {}
                '#' | 'r' | 'R' => self.rest_of_line(),
                'a' | 'i' | 'c' => self.text(),
                ':' | 'b' | 't' | 'T' | 'v' => self.label(),
                // An optional number.
                'l' | 'q' | 'Q' | 'L' => {
                    self.skip_blanks();
                    while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                        self.at += 1;
                    }
                }
                'w' | 'W' | 'e' => return Some(true),
                'y' => {
                    let delim = self.next()?;
                    self.delimited(delim)?;
                    self.delimited(delim)?;
                }
                's' => {
                    let delim = self.next()?;
                    if delim == '\n' || delim == '\\' {
                        return None;
                    }
                    self.delimited(delim)?;
                    self.delimited(delim)?;
                    // Flags: `g`, `p`, `i`, `I`, `m`, `M`, a number; `e`
                    // runs the pattern space, `w FILE` writes.
                    loop {
                        match self.peek() {
                            Some('g' | 'p' | 'i' | 'I' | 'm' | 'M' | '0'..='9') => self.at += 1,
                            Some('e' | 'w') => return Some(true),
                            _ => break,
                        }
                    }
                }
                _ => return None,
            }
        }
    }
}

pub(crate) const SED: Table = Table {
    permute: true,
    ..wrapper(&[
        ok('n', "quiet", No),
        ok(' ', "silent", No),
        ok(' ', "debug", No),
        ok('e', "expression", Required),
        ok('f', "file", Required),
        ok(' ', "follow-symlinks", No),
        bad('i', "in-place", Optional),
        ok('l', "line-length", Required),
        ok(' ', "posix", No),
        ok('E', "regexp-extended", No),
        ok('r', "", No),
        ok('s', "separate", No),
        ok(' ', "sandbox", No),
        ok('u', "unbuffered", No),
        ok('z', "null-data", No),
        HELP,
        VERSION,
    ])
};

#[cfg(test)]
mod tests {
    use super::script_acts;

    #[test]
    fn scripts_that_write_or_run_are_found() {
        for acting in [
            "w out",
            "1w out",
            "/x/w out",
            "s/a/b/w out",
            "s/a/b/gw out",
            "s|a|b|e",
            "e",
            "1e touch x",
            "$!W out",
            "p;w out",
            "{p;w out\n}",
            "1,3 w out",
            "/a/,+2w out",
            "s/a/b/;w out",
            "y/ab/cd/;e",
            // Not followed: counts as acting.
            "s/unterminated",
            "k",
        ] {
            assert!(script_acts(acting), "{acting:?}");
        }
        for reading in [
            "p",
            "s/a/b/g",
            "s/w/e/",
            "s/a/w/",
            "/w/d",
            "1d;$d",
            "y/we/ew/",
            "a write this",
            "i\\\nw not a command",
            "# w comment",
            ":w\nb w",
            "s/\\//w/g",
            "\\,w,p",
            "10q",
            "l 5",
        ] {
            assert!(!script_acts(reading), "{reading:?}");
        }
    }
}
