//! Reading a file line by line with bounded memory.
//!
//! `BufRead::lines` holds a whole line, so one 512 MiB line with no newline
//! costs 512 MiB (and more while the buffer grows), even when the caller
//! wanted one line. [`LineReader`] keeps at most [`MAX_LINE_BYTES`] of a
//! line, skips the rest while still finding where the line ends, and
//! checks UTF-8 over the whole line, kept or skipped, so "is this text"
//! does not depend on where the cut falls.

use std::io::{self, BufRead};

/// The most bytes of one line kept; the rest of the line is skipped and
/// the result says how much. Long enough for any hand-written source
/// line, short enough that a minified file or a binary blob without
/// newlines costs nothing.
pub const MAX_LINE_BYTES: usize = 4096;

/// One line, without its line break (`\n` or `\r\n`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line {
    /// The kept start of the line, cut on a character boundary.
    pub(crate) text: String,
    /// Bytes of the line that were not kept.
    pub(crate) cut: usize,
    /// Whether the whole line, kept or not, is valid UTF-8.
    pub(crate) utf8: bool,
}

impl Line {
    /// The text for the model: the kept start, and a marker saying how much
    /// of the line is not shown.
    pub(crate) fn shown(&self) -> String {
        if self.cut == 0 {
            self.text.clone()
        } else {
            format!("{} [… line cut: {} more bytes]", self.text, self.cut)
        }
    }
}

/// Reads lines of at most `max` kept bytes each.
pub(crate) struct LineReader<R> {
    reader: R,
    max: usize,
}

impl<R: BufRead> LineReader<R> {
    /// A reader keeping at most `max` bytes of each line.
    pub(crate) fn new(reader: R, max: usize) -> Self {
        LineReader { reader, max }
    }

    /// Whether nothing follows: lets a caller that has all the lines it
    /// wants ask "are there more?" without reading another line.
    pub(crate) fn at_end(&mut self) -> io::Result<bool> {
        Ok(self.reader.fill_buf()?.is_empty())
    }

    /// The next line, `None` at the end of the input. With `keep = false`
    /// the line is only skipped (its text comes back empty): for lines
    /// before the first one a caller wants.
    pub(crate) fn next_line(&mut self, keep: bool) -> io::Result<Option<Line>> {
        let mut kept: Vec<u8> = Vec::new();
        let mut cut = 0usize;
        let mut utf8 = Utf8Stream::default();
        let mut valid = true;
        let mut read_any = false;
        loop {
            let buf = match self.reader.fill_buf() {
                Ok(buf) => buf,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            if buf.is_empty() {
                if !read_any {
                    return Ok(None);
                }
                break;
            }
            read_any = true;
            let newline = buf.iter().position(|&b| b == b'\n');
            let chunk = &buf[..newline.unwrap_or(buf.len())];
            valid = valid && utf8.feed(chunk);
            let room = if keep {
                self.max.saturating_sub(kept.len())
            } else {
                0
            };
            let take = room.min(chunk.len());
            kept.extend_from_slice(&chunk[..take]);
            cut += chunk.len() - take;
            let consumed = chunk.len() + usize::from(newline.is_some());
            self.reader.consume(consumed);
            if newline.is_some() {
                break;
            }
        }
        valid = valid && utf8.finish();
        // `\r\n` line ends: the `\r` is part of the break, not the text.
        if cut == 0 && kept.last() == Some(&b'\r') {
            kept.pop();
        }
        let text = match String::from_utf8(kept) {
            Ok(text) => text,
            Err(err) => {
                // The cut may fall inside a character: keep the whole ones.
                let valid_up_to = err.utf8_error().valid_up_to();
                let mut bytes = err.into_bytes();
                cut += bytes.len() - valid_up_to;
                bytes.truncate(valid_up_to);
                String::from_utf8(bytes).unwrap_or_default()
            }
        };
        Ok(Some(Line {
            text,
            cut,
            utf8: valid,
        }))
    }
}

/// UTF-8 validation over a byte stream that arrives in pieces split
/// anywhere, even inside a character.
#[derive(Debug, Default)]
struct Utf8Stream {
    /// The start of a character whose remaining bytes have not arrived.
    pending: [u8; 4],
    pending_len: usize,
}

impl Utf8Stream {
    /// Feeds the next piece; `false` once the stream is invalid.
    fn feed(&mut self, mut bytes: &[u8]) -> bool {
        // Complete the character left over from the previous piece.
        while self.pending_len > 0 {
            let Some((&first, rest)) = bytes.split_first() else {
                return true;
            };
            self.pending[self.pending_len] = first;
            self.pending_len += 1;
            bytes = rest;
            match std::str::from_utf8(&self.pending[..self.pending_len]) {
                Ok(_) => self.pending_len = 0,
                Err(err) if err.error_len().is_none() && self.pending_len < 4 => {}
                Err(_) => return false,
            }
        }
        match std::str::from_utf8(bytes) {
            Ok(_) => true,
            Err(err) if err.error_len().is_none() => {
                let tail = &bytes[err.valid_up_to()..];
                self.pending[..tail.len()].copy_from_slice(tail);
                self.pending_len = tail.len();
                true
            }
            Err(_) => false,
        }
    }

    /// Whether the stream ended on a character boundary.
    fn finish(&self) -> bool {
        self.pending_len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize, capacity: usize) -> Vec<Line> {
        let reader = io::BufReader::with_capacity(capacity, input);
        let mut reader = LineReader::new(reader, max);
        let mut out = Vec::new();
        while let Some(line) = reader.next_line(true).unwrap() {
            out.push(line);
        }
        out
    }

    fn line(text: &str, cut: usize) -> Line {
        Line {
            text: text.to_owned(),
            cut,
            utf8: true,
        }
    }

    #[test]
    fn splits_like_buf_read_lines() {
        for capacity in [1, 2, 3, 64] {
            assert_eq!(lines(b"", 10, capacity), []);
            assert_eq!(lines(b"a", 10, capacity), [line("a", 0)]);
            assert_eq!(lines(b"a\n", 10, capacity), [line("a", 0)]);
            assert_eq!(
                lines(b"a\r\n\nb", 10, capacity),
                [line("a", 0), line("", 0), line("b", 0)]
            );
        }
    }

    #[test]
    fn long_lines_are_cut_on_a_character_boundary() {
        for capacity in [1, 2, 5, 64] {
            assert_eq!(
                lines("abcdef\nxy".as_bytes(), 4, capacity),
                [line("abcd", 2), line("xy", 0)]
            );
            // `é` is two bytes; a cut after 3 bytes would split the second.
            assert_eq!(lines("éééé".as_bytes(), 3, capacity), [line("é", 6)]);
        }
        assert_eq!(line("abcd", 2).shown(), "abcd [… line cut: 2 more bytes]");
    }

    #[test]
    fn utf8_is_checked_over_the_whole_line_whatever_the_pieces() {
        let mut bytes = "ok\n".as_bytes().to_vec();
        bytes.extend_from_slice(b"abcdef\xff\n");
        bytes.extend_from_slice("€ at the end €".as_bytes());
        for capacity in [1, 2, 3, 7, 64] {
            let found = lines(&bytes, 4, capacity);
            let valid: Vec<bool> = found.iter().map(|l| l.utf8).collect();
            assert_eq!(valid, [true, false, true], "capacity {capacity}");
        }
        // A character cut off by the end of the input is invalid.
        assert!(!lines(&"€".as_bytes()[..2], 10, 64)[0].utf8);
    }

    #[test]
    fn at_end_does_not_consume_a_line() {
        let mut reader = LineReader::new(io::BufReader::new(&b"a\nb"[..]), 10);
        assert_eq!(
            reader.next_line(false).unwrap(),
            Some(Line {
                text: String::new(),
                cut: 1,
                utf8: true
            })
        );
        assert!(!reader.at_end().unwrap());
        assert_eq!(reader.next_line(true).unwrap(), Some(line("b", 0)));
        assert!(reader.at_end().unwrap());
        assert_eq!(reader.next_line(true).unwrap(), None);
    }
}
