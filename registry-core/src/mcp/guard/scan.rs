//! What the guard needs to know of one newline-delimited JSON-RPC frame,
//! read as its bytes pass, in one linear pass that keeps no copy: the
//! top-level `id` (its raw text), whether it has a top-level `method`,
//! and how many tools a `result.tools` array holds. It does not validate
//! JSON (serde_json does that on frames within the size limit); it only
//! tracks strings, depth and the keys of the first two levels.

/// The longest `id` kept: longer ones are no id this client ever sent.
const MAX_ID_BYTES: usize = 128;

/// The longest key compared (`method`): longer keys are none of ours.
const MAX_KEY_BYTES: usize = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Key {
    #[default]
    Other,
    Id,
    Method,
    Result,
    Tools,
}

#[derive(Debug, Default)]
pub(crate) struct Scan {
    depth: u32,
    /// Whether each of the first three levels is an object (bit set) or
    /// an array.
    objects: u8,
    in_string: bool,
    escaped: bool,
    /// The next string at this level is a key.
    expect_key: bool,
    reading_key: bool,
    key: Vec<u8>,
    /// The key of the value being read at depth 1 and depth 2.
    top: Key,
    second: Key,
    after_colon: bool,
    /// The raw `id` value while it is read, and whether it is whole.
    id: Vec<u8>,
    reading_id: bool,
    id_done: bool,
    id_bad: bool,
    method: bool,
    tools: usize,
}

impl Scan {
    /// Reads `bytes`, none of which is a newline.
    pub(crate) fn feed(&mut self, mut bytes: &[u8]) {
        while let Some((&b, rest)) = bytes.split_first() {
            if self.in_string && !self.reading_key && !self.reading_id && !self.escaped {
                // The bulk of a big frame is string content: skip to
                // what can end it.
                match memchr::memchr2(b'"', b'\\', bytes) {
                    Some(at) => {
                        bytes = &bytes[at..];
                        let (&b, rest) = bytes.split_first().expect("memchr found a byte");
                        self.string_byte(b);
                        bytes = rest;
                    }
                    None => return,
                }
                continue;
            }
            if self.in_string {
                self.string_byte(b);
            } else {
                self.structural(b);
            }
            bytes = rest;
        }
    }

    fn string_byte(&mut self, b: u8) {
        if self.reading_id {
            self.push_id(b);
        }
        if self.escaped {
            self.escaped = false;
            if self.reading_key {
                self.push_key(b);
            }
            return;
        }
        match b {
            b'\\' => self.escaped = true,
            b'"' => {
                self.in_string = false;
                if self.reading_key {
                    self.reading_key = false;
                    self.end_key();
                }
            }
            _ if self.reading_key => self.push_key(b),
            _ => {}
        }
    }

    fn push_key(&mut self, b: u8) {
        if self.key.len() <= MAX_KEY_BYTES {
            self.key.push(b);
        }
    }

    fn push_id(&mut self, b: u8) {
        if self.id.len() < MAX_ID_BYTES {
            self.id.push(b);
        } else {
            self.id_bad = true;
        }
    }

    fn end_key(&mut self) {
        let key = match (self.depth, self.key.as_slice()) {
            (1, b"id") => Key::Id,
            (1, b"method") => Key::Method,
            (1, b"result") => Key::Result,
            (2, b"tools") if self.top == Key::Result => Key::Tools,
            _ => Key::Other,
        };
        match self.depth {
            1 => self.top = key,
            2 => self.second = key,
            _ => {}
        }
        if key == Key::Method {
            self.method = true;
        }
        self.key.clear();
    }

    fn is_object(&self, depth: u32) -> bool {
        (1..=3).contains(&depth) && self.objects & (1 << (depth - 1)) != 0
    }

    fn structural(&mut self, b: u8) {
        if b.is_ascii_whitespace() {
            return;
        }
        let at_id_value = self.depth == 1 && self.top == Key::Id && self.after_colon;
        match b {
            b'"' => {
                self.in_string = true;
                if self.expect_key && self.is_object(self.depth) && self.depth <= 2 {
                    self.reading_key = true;
                }
                self.expect_key = false;
                if at_id_value {
                    self.start_id();
                    self.push_id(b);
                }
            }
            b'{' | b'[' => {
                if at_id_value {
                    // An id is a string or a number.
                    self.id_bad = true;
                }
                if self.reading_id {
                    self.push_id(b);
                }
                self.depth = self.depth.saturating_add(1);
                if (1..=3).contains(&self.depth) {
                    let bit = 1 << (self.depth - 1);
                    if b == b'{' {
                        self.objects |= bit;
                    } else {
                        self.objects &= !bit;
                    }
                }
                if self.depth == 4
                    && b == b'{'
                    && self.top == Key::Result
                    && self.second == Key::Tools
                    && !self.is_object(3)
                {
                    self.tools += 1;
                }
                self.expect_key = b == b'{';
                self.after_colon = false;
            }
            b'}' | b']' => {
                self.end_value_at(self.depth);
                self.depth = self.depth.saturating_sub(1);
                self.after_colon = false;
            }
            b',' => {
                self.end_value_at(self.depth);
                self.expect_key = self.is_object(self.depth);
                self.after_colon = false;
            }
            b':' => self.after_colon = true,
            _ => {
                if at_id_value && !self.reading_id {
                    self.start_id();
                }
                if self.reading_id {
                    self.push_id(b);
                }
            }
        }
    }

    fn start_id(&mut self) {
        self.id.clear();
        self.reading_id = true;
        self.id_done = false;
    }

    /// A `,` or closing bracket at `depth`: a depth-1 value ends.
    fn end_value_at(&mut self, depth: u32) {
        if depth == 1 && self.reading_id {
            self.reading_id = false;
            self.id_done = true;
        }
        if depth == 1 {
            self.top = Key::Other;
        }
        if depth == 2 {
            self.second = Key::Other;
        }
    }

    /// The frame's top-level `id`, once read whole (raw JSON text).
    pub(crate) fn id(&self) -> Option<&[u8]> {
        (self.id_done && !self.id_bad && !self.id.is_empty()).then_some(self.id.as_slice())
    }

    /// Whether the frame has a top-level `method` (a request or a
    /// notification, not a response).
    pub(crate) fn has_method(&self) -> bool {
        self.method
    }

    /// How many tools its `result.tools` array holds so far.
    pub(crate) fn tools(&self) -> usize {
        self.tools
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(frame: &str) -> Scan {
        let mut scan = Scan::default();
        scan.feed(frame.as_bytes());
        scan
    }

    #[test]
    fn finds_the_id_wherever_it_is() {
        for (frame, id) in [
            (r#"{"jsonrpc":"2.0","id":7,"result":{}}"#, Some("7")),
            (
                r#"{"result":{"id":3,"x":"\"id\":9"},"jsonrpc":"2.0","id":12}"#,
                Some("12"),
            ),
            (r#"{ "id" : "a\"b" , "result" : [1,2] }"#, Some(r#""a\"b""#)),
            (r#"{"result":{"content":[{"id":1}]}}"#, None),
            (r#"{"id":{"x":1},"result":{}}"#, None),
            (r#"["id",1]"#, None),
        ] {
            assert_eq!(
                scan(frame).id().map(|id| std::str::from_utf8(id).unwrap()),
                id,
                "{frame}"
            );
        }
    }

    #[test]
    fn tells_requests_from_responses() {
        assert!(scan(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).has_method());
        assert!(!scan(r#"{"jsonrpc":"2.0","id":1,"result":{"method":"x"}}"#).has_method());
    }

    #[test]
    fn counts_listed_tools_and_nothing_else() {
        let frame = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"properties":{"x":{}}}},{"name":"b"}],"other":[{},{}]}}"#;
        assert_eq!(scan(frame).tools(), 2);
        assert_eq!(scan(r#"{"id":1,"result":{"content":[{},{}]}}"#).tools(), 0);
    }

    #[test]
    fn reads_the_same_in_any_chunks() {
        let frame =
            r#"{"result":{"tools":[{"name":"a\\"},{"name":"b"}]},"jsonrpc":"2.0","id":"x\"y"}"#;
        for cut in 0..frame.len() {
            let mut scan = Scan::default();
            scan.feed(&frame.as_bytes()[..cut]);
            scan.feed(&frame.as_bytes()[cut..]);
            assert_eq!(scan.id(), Some(&br#""x\"y""#[..]), "cut at {cut}");
            assert_eq!(scan.tools(), 2, "cut at {cut}");
        }
    }
}
