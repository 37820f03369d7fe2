//! Quoting text inside error messages without letting it grow them.
//!
//! Error texts go back to the model (and into logs), and much of what they
//! quote came from the model: a path, a field name, a value. Every such
//! quotation is shown through [`cap_error_text`], so a 10 MB path makes a
//! 1 KiB error, not a 10 MB one.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::fmt::{self, Write as _};

/// The most characters of one quoted text (a path, a name, a value) an
/// error message shows; see [`cap_error_text`].
pub const MAX_ERROR_TEXT_CHARS: usize = 1024;

/// The most characters of a tool's own error message shown inside a
/// [`ToolError`](crate::ToolError): room for a few capped quotations and the words around
/// them.
pub const MAX_ERROR_MESSAGE_CHARS: usize = 4 * MAX_ERROR_TEXT_CHARS;

/// `text` as it may be quoted inside an error message: unchanged when it
/// has at most 1,024 characters (`MAX_ERROR_TEXT_CHARS`); otherwise its start and
/// its end, with a marker in between saying how many characters were cut.
/// The end is kept because that is where a path names its file and a serde
/// message says what it expected.
///
/// ```
/// use registry_core::text::cap_error_text;
///
/// assert_eq!(cap_error_text("src/main.rs"), "src/main.rs");
/// let huge = format!("{}/main.rs", "a/".repeat(5_000_000));
/// let shown = cap_error_text(&huge);
/// assert!(shown.chars().count() <= 1024);
/// assert!(shown.contains("characters cut"));
/// assert!(shown.ends_with("/main.rs"));
/// ```
pub fn cap_error_text(text: &str) -> Cow<'_, str> {
    // Bytes bound characters from above: the cheap check settles most texts.
    if text.len() <= MAX_ERROR_TEXT_CHARS || text.chars().count() <= MAX_ERROR_TEXT_CHARS {
        return Cow::Borrowed(text);
    }
    let mut capper = Capper::new(MAX_ERROR_TEXT_CHARS);
    // Writing to a `Capper` cannot fail.
    let _ = capper.write_str(text);
    Cow::Owned(capper.finish())
}

/// Displays a value through the same cap as [`cap_error_text`], without
/// ever holding its whole text: for a tool's error, whose message may be
/// built from anything.
pub(crate) struct Capped<'a, T: ?Sized> {
    value: &'a T,
    max: usize,
}

/// A quoted text, capped at [`MAX_ERROR_TEXT_CHARS`].
pub(crate) fn capped<T: fmt::Display + ?Sized>(value: &T) -> Capped<'_, T> {
    Capped {
        value,
        max: MAX_ERROR_TEXT_CHARS,
    }
}

/// A whole error message, capped at [`MAX_ERROR_MESSAGE_CHARS`].
pub(crate) fn capped_message<T: fmt::Display + ?Sized>(value: &T) -> Capped<'_, T> {
    Capped {
        value,
        max: MAX_ERROR_MESSAGE_CHARS,
    }
}

impl<T: fmt::Display + ?Sized> fmt::Display for Capped<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut capper = Capper::new(self.max);
        write!(capper, "{}", self.value)?;
        f.write_str(&capper.finish())
    }
}

/// Keeps the start and the end of a text written to it in pieces, and
/// counts what falls in between. Memory is bounded by `max`, whatever is
/// written.
struct Capper {
    max: usize,
    /// The start of the text: everything, until more than `max` characters
    /// arrive; then the first `head_max()` of them.
    head: String,
    head_chars: usize,
    /// Set once the text is known to be longer than `max`.
    overflowed: bool,
    /// The last `tail_max` characters seen after the head.
    tail: VecDeque<char>,
    tail_max: usize,
    /// Characters dropped between head and tail.
    cut: usize,
}

/// The marker's length with the widest count: what it can take of `max`.
const MARKER_RESERVE: usize = " [… 18446744073709551615 characters cut …] ".len();

impl Capper {
    fn new(max: usize) -> Self {
        let room = max.saturating_sub(MARKER_RESERVE);
        Capper {
            max,
            head: String::new(),
            head_chars: 0,
            overflowed: false,
            tail: VecDeque::new(),
            tail_max: room / 4,
            cut: 0,
        }
    }

    fn finish(self) -> String {
        let mut out = self.head;
        if self.cut > 0 {
            out.push_str(&format!(" [… {} characters cut …] ", self.cut));
        }
        out.extend(self.tail);
        out
    }

    /// The text turned out longer than `max`: keep the start of the head,
    /// and move the rest of it into the tail window.
    fn overflow(&mut self) {
        self.overflowed = true;
        let keep = self.max.saturating_sub(MARKER_RESERVE) - self.tail_max;
        let split = self
            .head
            .char_indices()
            .nth(keep)
            .map_or(self.head.len(), |(i, _)| i);
        let rest = self.head.split_off(split);
        self.head_chars = keep;
        self.push_tail(&rest);
    }

    /// Adds `s` to the tail window, counting what falls out of it. Only
    /// the last `tail_max` characters of a long piece are looked at twice.
    fn push_tail(&mut self, s: &str) {
        let n = s.chars().count();
        if n >= self.tail_max {
            self.cut += self.tail.len() + (n - self.tail_max);
            self.tail.clear();
            let start = match self.tail_max {
                0 => s.len(),
                m => s.char_indices().rev().nth(m - 1).map_or(0, |(i, _)| i),
            };
            self.tail.extend(s[start..].chars());
        } else {
            for c in s.chars() {
                if self.tail.len() == self.tail_max {
                    self.tail.pop_front();
                    self.cut += 1;
                }
                self.tail.push_back(c);
            }
        }
    }
}

impl fmt::Write for Capper {
    fn write_str(&mut self, mut s: &str) -> fmt::Result {
        if !self.overflowed {
            // Until more than `max` characters have arrived nothing needs
            // cutting.
            let room = self.max - self.head_chars;
            match s.char_indices().nth(room) {
                None => {
                    self.head.push_str(s);
                    self.head_chars += s.chars().count();
                    return Ok(());
                }
                Some((at, _)) => {
                    self.head.push_str(&s[..at]);
                    self.head_chars = self.max;
                    s = &s[at..];
                    self.overflow();
                }
            }
        }
        self.push_tail(s);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_texts_are_borrowed_unchanged() {
        for text in ["", "a", &"é".repeat(MAX_ERROR_TEXT_CHARS)] {
            assert!(matches!(cap_error_text(text), Cow::Borrowed(t) if t == text));
        }
    }

    #[test]
    fn long_texts_keep_start_and_end_within_the_cap() {
        for len in [MAX_ERROR_TEXT_CHARS + 1, 5_000, 1_000_000] {
            let text: String = (0..len)
                .map(|i| char::from_u32(0x61 + (i % 26) as u32).unwrap())
                .chain("€".chars())
                .collect();
            let shown = cap_error_text(&text);
            let chars = shown.chars().count();
            assert!(chars <= MAX_ERROR_TEXT_CHARS, "{len}: {chars}");
            assert!(
                chars > MAX_ERROR_TEXT_CHARS - MARKER_RESERVE,
                "{len}: {chars}"
            );
            assert!(shown.starts_with("abcdefghij"));
            assert!(shown.ends_with("€"));
            // The count in the marker is exactly what is missing.
            let missing = len + 1 - kept_len(&shown);
            assert!(
                shown.contains(&format!(" [… {missing} characters cut …] ")),
                "{shown}"
            );
        }
    }

    /// Characters of `shown` outside its marker.
    fn kept_len(shown: &str) -> usize {
        let start = shown.find(" [… ").unwrap();
        let end = shown.find(" characters cut …] ").unwrap() + " characters cut …] ".len();
        shown[..start].chars().count() + shown[end..].chars().count()
    }

    #[test]
    fn the_cut_does_not_depend_on_how_the_text_arrives() {
        for len in [
            MAX_ERROR_TEXT_CHARS - 1,
            MAX_ERROR_TEXT_CHARS,
            MAX_ERROR_TEXT_CHARS + 1,
            MAX_ERROR_TEXT_CHARS + 300,
            5_000,
        ] {
            let text: String = (0..len)
                .map(|i| if i % 3 == 0 { 'é' } else { 'x' })
                .collect();
            let whole = cap_error_text(&text).into_owned();
            for piece in [1, 2, 3, 7, 255, 1000, len] {
                let mut capper = Capper::new(MAX_ERROR_TEXT_CHARS);
                let chars: Vec<char> = text.chars().collect();
                for chunk in chars.chunks(piece) {
                    capper.write_str(&chunk.iter().collect::<String>()).unwrap();
                }
                assert_eq!(capper.finish(), whole, "len {len}, pieces of {piece}");
            }
        }
    }

    #[test]
    fn whole_messages_are_capped_while_they_are_written() {
        struct Endless;
        impl fmt::Display for Endless {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                for _ in 0..100_000 {
                    f.write_str("0123456789")?;
                }
                f.write_str("end")
            }
        }
        let shown = capped_message(&Endless).to_string();
        assert!(shown.chars().count() <= MAX_ERROR_MESSAGE_CHARS);
        assert!(shown.ends_with("789end"));
        assert!(shown.contains(&format!(
            " [… {} characters cut …] ",
            1_000_003 - kept_len(&shown)
        )));
    }
}
