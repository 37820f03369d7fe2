//! What rmcp's types leave out of a server's `tools/list`: read from the
//! raw frames as they pass, before rmcp parses them.
//!
//! rmcp 3.11's `Tool` has no `execution` field, so a tool that requires
//! the Tasks extension (`"execution": {"taskSupport": "required"}`, which
//! every plain call to it fails) would be imported like any other. On the
//! transports whose bytes this crate handles (child processes, in-process
//! streams) each newline-delimited frame is also looked at here; over
//! HTTP such a tool is refused at its first call instead.

use std::collections::BTreeSet;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, ready};

use serde_json::Value;
use tokio::io::{AsyncRead, ReadBuf};

/// The longest frame looked at; a longer one passes unread (its tools keep
/// the default, to be refused at their first call if they need tasks).
const MAX_FRAME_BYTES: usize = 16 << 20;

/// Names of the tools a server listed as requiring the Tasks extension.
#[derive(Debug, Default, Clone)]
pub(crate) struct TaskTools(Arc<Mutex<BTreeSet<String>>>);

impl TaskTools {
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(name)
    }

    fn note(&self, frame: &[u8]) {
        let Ok(value) = serde_json::from_slice::<Value>(frame) else {
            return;
        };
        let Some(tools) = value.pointer("/result/tools").and_then(Value::as_array) else {
            return;
        };
        let mut set = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        for tool in tools {
            let required = tool
                .pointer("/execution/taskSupport")
                .and_then(Value::as_str)
                == Some("required");
            if let (true, Some(name)) = (required, tool.get("name").and_then(Value::as_str)) {
                set.insert(name.to_owned());
            }
        }
    }
}

/// A reader that hands every byte through unchanged and looks at each
/// complete line.
pub(crate) struct Sniff<R> {
    inner: R,
    line: Vec<u8>,
    too_long: bool,
    tasks: TaskTools,
}

impl<R> Sniff<R> {
    pub(crate) fn new(inner: R, tasks: TaskTools) -> Self {
        Sniff {
            inner,
            line: Vec::new(),
            too_long: false,
            tasks,
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        for chunk in bytes.split_inclusive(|&b| b == b'\n') {
            let (body, ends) = match chunk.strip_suffix(b"\n") {
                Some(body) => (body, true),
                None => (chunk, false),
            };
            if !self.too_long {
                if self.line.len() + body.len() > MAX_FRAME_BYTES {
                    self.too_long = true;
                    self.line = Vec::new();
                } else {
                    self.line.extend_from_slice(body);
                }
            }
            if ends {
                if !self.too_long && self.line.windows(7).any(|w| w == b"\"tools\"") {
                    self.tasks.note(&self.line);
                }
                self.line.clear();
                self.too_long = false;
            }
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Sniff<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        ready!(Pin::new(&mut self.inner).poll_read(cx, buf))?;
        let fresh = buf.filled()[before..].to_vec();
        self.feed(&fresh);
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_requiring_tools_are_noted_across_chunks() {
        let tasks = TaskTools::default();
        let mut sniff = Sniff::new(tokio::io::empty(), tasks.clone());
        let frame = br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"plain","inputSchema":{}},{"name":"slow","inputSchema":{},"execution":{"taskSupport":"required"}},{"name":"opt","execution":{"taskSupport":"optional"}}]}}"#;
        let (a, b) = frame.split_at(40);
        sniff.feed(a);
        sniff.feed(b);
        assert!(!tasks.contains("slow"), "not before the line ends");
        sniff.feed(b"\n");
        assert!(tasks.contains("slow"));
        assert!(!tasks.contains("plain") && !tasks.contains("opt"));
    }
}
