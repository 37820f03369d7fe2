//! One whole message from a server that is not a line of a byte stream:
//! an HTTP response's JSON body, read in chunks, or an SSE event's data.
//! It runs the checks the line guard runs (size, tool count, UTF-8, JSON,
//! depth, MCP shape, the id in flight) and notes task-requiring tools, so
//! a message over HTTP costs what the same message costs over stdio.
//!
//! Over HTTP a message may also be known to answer one request: the one
//! whose POST it is the response to (`expected`). A message on that
//! response that cannot be read, and is no request of the server's, is
//! taken as that request's answer and refused, so the request fails at
//! once instead of waiting for an answer that will not come.

use super::scan::Scan;
use super::{
    InFlight, MAX_FRAME_BYTES, MAX_TOOLS_PER_PAGE, TaskTools, error_frame, too_big, too_many_tools,
    unreadable,
};

/// A message being read; see the module.
#[derive(Debug, Default)]
pub(crate) struct Message {
    /// The bytes kept (none once over the limit, or when only scanned).
    frame: Vec<u8>,
    keep: bool,
    bytes: usize,
    scan: Scan,
    refusal: Option<String>,
}

/// What to do with a message once read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Pass it on as it is.
    Pass,
    /// Answer request `id` (raw JSON text) with `error`, a JSON-RPC error
    /// frame saying why, instead.
    Refuse { id: Vec<u8>, error: Vec<u8> },
    /// An answer to `id`, which this client never sent (or already had
    /// answered): dropped.
    Stray { id: Vec<u8> },
    /// Dropped: unreadable, and nobody's answer.
    Drop,
}

impl Message {
    /// A message whose bytes are kept as they are read, up to the limit
    /// (a JSON body).
    pub(crate) fn keeping() -> Self {
        Message {
            keep: true,
            ..Message::default()
        }
    }

    /// Reads the next piece. Newlines are JSON whitespace here.
    pub(crate) fn feed(&mut self, part: &[u8]) {
        self.scan.feed(part);
        self.bytes = self.bytes.saturating_add(part.len());
        if self.keep && self.bytes <= MAX_FRAME_BYTES {
            self.frame.extend_from_slice(part);
        } else if self.frame.capacity() > 0 {
            self.frame = Vec::new();
        }
        if self.refusal.is_none() {
            if self.bytes > MAX_FRAME_BYTES {
                self.refusal = Some(too_big());
            } else if self.scan.tools() > MAX_TOOLS_PER_PAGE {
                self.frame = Vec::new();
                self.refusal = Some(too_many_tools());
            }
        }
    }

    /// Whether the message is already refused (too big, too many tools):
    /// the rest need not be read.
    pub(crate) fn refused(&self) -> bool {
        self.refusal.is_some()
    }

    /// The bytes kept (a [`keeping`](Self::keeping) message's).
    pub(crate) fn take_frame(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.frame)
    }

    /// The verdict on the message whose bytes are `frame` (read so far,
    /// when it was refused before its end), answering `expected` if it
    /// cannot be read and is no request; an answer passed is no longer in
    /// flight, and a listing passed has its task tools noted.
    pub(crate) fn verdict(
        &self,
        frame: &[u8],
        in_flight: &InFlight,
        tasks: &TaskTools,
        expected: Option<&[u8]>,
    ) -> Verdict {
        let method = self.scan.has_method();
        let id = self.scan.id().filter(|_| !method);
        let why = match &self.refusal {
            Some(why) => Some(why.clone()),
            None => unreadable(frame, id.is_some()),
        };
        let Some(why) = why else {
            return match id {
                Some(id) if !in_flight.answered(id) => Verdict::Stray { id: id.to_vec() },
                Some(_) => {
                    if memchr::memmem::find(frame, b"\"taskSupport\"").is_some() {
                        tasks.note(frame);
                    }
                    Verdict::Pass
                }
                None => Verdict::Pass,
            };
        };
        if method {
            tracing::warn!(%why, "an unreadable MCP message was dropped");
            return Verdict::Drop;
        }
        let answers = match id {
            Some(id) if in_flight.answered(id) => Some(id),
            Some(id) => return Verdict::Stray { id: id.to_vec() },
            None => expected.filter(|id| in_flight.answered(id)),
        };
        let Some(id) = answers else {
            tracing::warn!(%why, "an unreadable MCP message was dropped");
            return Verdict::Drop;
        };
        tracing::warn!(%why, "MCP answer refused");
        let mut error = error_frame(id, &why);
        error.pop(); // The line guard's newline.
        Verdict::Refuse {
            id: id.to_vec(),
            error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judge(text: &[u8], expected: Option<&[u8]>) -> (Verdict, TaskTools) {
        let (in_flight, tasks) = (InFlight::default(), TaskTools::default());
        in_flight.sent(b"7");
        let mut message = Message::keeping();
        for line in text.split_inclusive(|&b| b == b'\n') {
            message.feed(line);
        }
        let frame = message.take_frame();
        (message.verdict(&frame, &in_flight, &tasks, expected), tasks)
    }

    fn refused_with(verdict: &Verdict, word: &str) -> bool {
        matches!(verdict, Verdict::Refuse { id, error }
            if id == b"7" && String::from_utf8_lossy(error).contains(word))
    }

    #[test]
    fn a_pretty_printed_answer_passes_and_notes_task_tools() {
        let body = b"{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 7,\n  \"result\": {\"tools\": [\n    {\"name\": \"slow\", \"inputSchema\": {}, \"execution\": {\"taskSupport\": \"required\"}}\n  ]}\n}\n";
        let (verdict, tasks) = judge(body, Some(b"7"));
        assert_eq!(verdict, Verdict::Pass);
        assert!(tasks.contains("slow"));
    }

    #[test]
    fn an_unreadable_body_answers_the_request_it_was_posted_for() {
        let (verdict, _) = judge(b"this is not JSON", Some(b"7"));
        assert!(refused_with(&verdict, "not JSON"), "{verdict:?}");
        let (verdict, _) = judge(b"this is not JSON", None);
        assert_eq!(verdict, Verdict::Drop, "nobody's answer");
    }

    #[test]
    fn an_answer_to_another_id_is_a_stray() {
        let (verdict, _) = judge(br#"{"jsonrpc":"2.0","id":9,"result":{}}"#, Some(b"7"));
        assert_eq!(verdict, Verdict::Stray { id: b"9".to_vec() });
    }

    #[test]
    fn an_oversized_body_is_refused_before_its_end_without_being_kept() {
        let mut message = Message::keeping();
        message.feed(br#"{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":""#);
        let chunk = vec![b'a'; 1 << 20];
        while !message.refused() {
            message.feed(&chunk);
        }
        let frame = message.take_frame();
        assert!(frame.is_empty(), "nothing over the limit is kept");
        let in_flight = InFlight::default();
        in_flight.sent(b"7");
        let verdict = message.verdict(&frame, &in_flight, &TaskTools::default(), Some(b"7"));
        assert!(refused_with(&verdict, "16 MiB"), "{verdict:?}");
    }
}
