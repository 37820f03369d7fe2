//! The byte stream between this client and a server it imports (a child
//! process, an in-process stream), read frame by frame before rmcp sees
//! it, so that what a hostile server sends costs bounded memory and fails
//! the request it answers at once, with a reason, instead of being
//! dropped by rmcp and leaving the request to time out.
//!
//! Outgoing frames are scanned for the ids of this client's requests
//! ([`GuardedWrite`]); each incoming frame ([`GuardedRead`]) is held whole
//! up to [`MAX_FRAME_BYTES`] (the limit of rmcp's own reader) and then:
//!
//! - an answer to an id this client never sent (or already had answered)
//!   is dropped: rmcp would fail the handshake on one;
//! - an answer over the size limit is read through without being kept,
//!   and becomes a JSON-RPC error for its id; so does a `tools/list` page
//!   of more than [`MAX_TOOLS_PER_PAGE`] tools, as soon as that many are
//!   counted;
//! - an answer that is not UTF-8, not JSON, nested past serde_json's
//!   recursion limit, or not shaped as an MCP message becomes an error for
//!   its id, saying which;
//! - a request or notification that cannot be read is dropped, as rmcp
//!   would drop it.
//!
//! It also notes the tools a listing marks as requiring the Tasks
//! extension, which rmcp's `Tool` has no field for ([`TaskTools`]).
//! Over HTTP, where a message is a JSON body or an SSE event rather than
//! a line, [`Message`] runs the same checks on each one, read by the
//! HTTP client the import sends through ([`GuardedHttp`], `sse`).

mod http;
mod message;
mod scan;
mod sse;

use std::collections::{BTreeSet, HashSet, VecDeque};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, ready};

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

pub(crate) use http::GuardedHttp;
use message::{Message, Verdict};
use scan::Scan;

/// The longest frame read: rmcp's own line limit, so that nothing this
/// guard passes is dropped by rmcp for its size.
pub(crate) const MAX_FRAME_BYTES: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// The most tools one `tools/list` page may hold.
pub(crate) const MAX_TOOLS_PER_PAGE: usize = super::import::MAX_IMPORTED_TOOLS;

/// Requests remembered at most; the oldest is forgotten first (a request
/// abandoned without an answer would otherwise stay forever).
const MAX_IN_FLIGHT: usize = 65_536;

/// Outgoing bytes held before they are written on.
const WRITE_BUFFER: usize = 64 << 10;

/// JSON-RPC's code for a message that could not be read.
const PARSE_ERROR: i64 = -32700;

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

    /// Notes a tool that turned out to require a task (a 2025-11-25
    /// server refused a plain call to it).
    pub(crate) fn insert(&self, name: &str) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(name.to_owned());
    }

    /// Forgets every tool noted: a listing is about to note them again
    /// (a tool that no longer requires a task is then called plainly).
    pub(crate) fn clear(&self) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
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

/// The ids (raw JSON text) of this client's requests not yet answered.
#[derive(Debug, Default, Clone)]
pub(crate) struct InFlight(Arc<Mutex<Ids>>);

#[derive(Debug, Default)]
struct Ids {
    live: HashSet<Box<[u8]>>,
    /// Insertion order, for forgetting the oldest; may hold ids already
    /// answered (compacted when it grows).
    order: VecDeque<Box<[u8]>>,
}

impl InFlight {
    fn lock(&self) -> std::sync::MutexGuard<'_, Ids> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Notes a request this client sent (`id` its raw JSON text).
    pub(crate) fn sent(&self, id: &[u8]) {
        let mut ids = self.lock();
        if !ids.live.insert(id.into()) {
            return;
        }
        ids.order.push_back(id.into());
        while ids.live.len() > MAX_IN_FLIGHT {
            let Some(oldest) = ids.order.pop_front() else {
                break;
            };
            ids.live.remove(&oldest);
        }
        if ids.order.len() > 2 * MAX_IN_FLIGHT {
            let Ids { live, order } = &mut *ids;
            order.retain(|id| live.contains(id));
        }
    }

    /// Whether `id` was in flight (it no longer is).
    pub(crate) fn answered(&self, id: &[u8]) -> bool {
        self.lock().live.remove(id)
    }
}

/// Why a message over [`MAX_FRAME_BYTES`] is refused.
fn too_big() -> String {
    format!(
        "it is over {} MiB, the limit of one message",
        MAX_FRAME_BYTES >> 20
    )
}

/// Why a listing of more than [`MAX_TOOLS_PER_PAGE`] tools is refused.
fn too_many_tools() -> String {
    format!("it lists more than {MAX_TOOLS_PER_PAGE} tools, the most one server may offer")
}

/// Why a message that is not UTF-8 is refused (`valid` bytes are).
fn not_utf8(valid: usize) -> String {
    format!("it is not UTF-8 (an invalid byte at offset {valid})")
}

/// Why a frame is not passed on.
fn unreadable(frame: &[u8], response: bool) -> Option<String> {
    let body = frame.strip_suffix(b"\r").unwrap_or(frame);
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    if body.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    if let Err(err) = std::str::from_utf8(body) {
        return Some(not_utf8(err.valid_up_to()));
    }
    let deep = |err: &serde_json::Error| {
        (err.to_string().contains("recursion limit"))
            .then(|| "it nests deeper than the 128 levels a JSON reader follows".to_owned())
    };
    if let Err(err) = serde_json::from_slice::<serde::de::IgnoredAny>(body) {
        return Some(deep(&err).unwrap_or_else(|| format!("it is not JSON ({err})")));
    }
    if response && let Err(err) = serde_json::from_slice::<rmcp::model::ServerJsonRpcMessage>(body)
    {
        return Some(
            deep(&err).unwrap_or_else(|| format!("it is not shaped as an MCP answer ({err})")),
        );
    }
    None
}

/// A JSON-RPC error answering `id`.
fn error_frame(id: &[u8], message: &str) -> Vec<u8> {
    let id = String::from_utf8_lossy(id);
    let message = serde_json::to_string(&format!("the server's answer was refused: {message}"))
        .expect("a string serialises");
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{PARSE_ERROR},"message":{message}}}}}"#)
        .into_bytes()
        .into_iter()
        .chain([b'\n'])
        .collect()
}

/// The server-to-client half: see the module.
pub(crate) struct GuardedRead<R> {
    inner: R,
    in_flight: InFlight,
    tasks: TaskTools,
    /// The frame being read (emptied, not grown, once it is over the
    /// limit), and everything scanned of it.
    frame: Vec<u8>,
    bytes: usize,
    scan: Scan,
    /// Why the frame is refused, once its size or its tool count says.
    refusal: Option<String>,
    /// The frame already failed its request (before its end).
    answered: bool,
    /// Frames ready for rmcp, and how much of the first it has read.
    ready: VecDeque<Vec<u8>>,
    offset: usize,
    chunk: Box<[u8]>,
    eof: bool,
}

impl<R> GuardedRead<R> {
    pub(crate) fn new(inner: R, in_flight: InFlight, tasks: TaskTools) -> Self {
        GuardedRead {
            inner,
            in_flight,
            tasks,
            frame: Vec::new(),
            bytes: 0,
            scan: Scan::default(),
            refusal: None,
            answered: false,
            ready: VecDeque::new(),
            offset: 0,
            chunk: vec![0; 64 << 10].into_boxed_slice(),
            eof: false,
        }
    }

    fn feed(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let (part, ends) = match memchr::memchr(b'\n', bytes) {
                Some(at) => (&bytes[..at], Some(at)),
                None => (bytes, None),
            };
            self.scan.feed(part);
            self.bytes += part.len();
            if self.bytes <= MAX_FRAME_BYTES {
                self.frame.extend_from_slice(part);
            } else if !self.frame.is_empty() || self.frame.capacity() > 0 {
                self.frame = Vec::new();
            }
            self.fail_early();
            match ends {
                Some(at) => {
                    self.end_frame();
                    bytes = &bytes[at + 1..];
                }
                None => break,
            }
        }
    }

    /// Fails the request a frame answers as soon as the frame is known to
    /// be refused, before its end (which may be a gigabyte away).
    fn fail_early(&mut self) {
        if self.refusal.is_none() {
            if self.bytes > MAX_FRAME_BYTES {
                self.refusal = Some(too_big());
            } else if self.scan.tools() > MAX_TOOLS_PER_PAGE {
                self.frame = Vec::new();
                self.bytes = MAX_FRAME_BYTES + 1;
                self.refusal = Some(too_many_tools());
            }
        }
        if !self.answered && self.refusal.is_some() && !self.scan.has_method() {
            self.refuse();
        }
    }

    /// Answers the frame's request with its refusal, once its id is read.
    fn refuse(&mut self) {
        let (Some(why), Some(id)) = (&self.refusal, self.scan.id()) else {
            return;
        };
        self.answered = true;
        if self.in_flight.answered(id) {
            tracing::warn!(%why, "MCP answer refused");
            let frame = error_frame(id, why);
            self.ready.push_back(frame);
        }
    }

    fn end_frame(&mut self) {
        if self.refusal.is_some() && !self.answered && !self.scan.has_method() {
            self.refuse();
        }
        let scan = std::mem::take(&mut self.scan);
        let frame = std::mem::take(&mut self.frame);
        self.bytes = 0;
        let refused = self.refusal.take();
        if std::mem::take(&mut self.answered) {
            return;
        }
        if let Some(why) = refused {
            tracing::warn!(%why, "an MCP message was dropped");
            return;
        }
        let response = !scan.has_method() && scan.id().is_some();
        let why = unreadable(&frame, response);
        if !response {
            match why {
                Some(why) => tracing::warn!(%why, "an unreadable MCP message was dropped"),
                None => {
                    self.ready.push_back(with_newline(frame));
                }
            }
            return;
        }
        let id = scan.id().expect("a response has an id");
        if !self.in_flight.answered(id) {
            tracing::debug!(
                id = %String::from_utf8_lossy(id),
                "an MCP answer to no request in flight was dropped"
            );
            return;
        }
        match why {
            Some(why) => {
                tracing::warn!(%why, "MCP answer refused");
                self.ready.push_back(error_frame(id, &why));
            }
            None => {
                if memchr::memmem::find(&frame, b"\"taskSupport\"").is_some() {
                    self.tasks.note(&frame);
                }
                self.ready.push_back(with_newline(frame));
            }
        }
    }
}

fn with_newline(mut frame: Vec<u8>) -> Vec<u8> {
    frame.push(b'\n');
    frame
}

impl<R: AsyncRead + Unpin> AsyncRead for GuardedRead<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        loop {
            if let Some(front) = this.ready.front() {
                let rest = &front[this.offset..];
                let n = rest.len().min(buf.remaining());
                buf.put_slice(&rest[..n]);
                this.offset += n;
                if this.offset == front.len() {
                    this.ready.pop_front();
                    this.offset = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if this.eof {
                // An unfinished last frame is dropped, as rmcp drops it.
                return Poll::Ready(Ok(()));
            }
            let mut chunk = ReadBuf::new(&mut this.chunk);
            ready!(Pin::new(&mut this.inner).poll_read(cx, &mut chunk))?;
            let filled = chunk.filled().len();
            if filled == 0 {
                this.eof = true;
                continue;
            }
            let bytes = std::mem::take(&mut this.chunk);
            this.feed(&bytes[..filled]);
            this.chunk = bytes;
        }
    }
}

/// The client-to-server half: notes each request's id before the frame's
/// last byte is written, so its answer is never taken for a stray.
pub(crate) struct GuardedWrite<W> {
    inner: W,
    in_flight: InFlight,
    scan: Scan,
    pending: Vec<u8>,
}

impl<W> GuardedWrite<W> {
    pub(crate) fn new(inner: W, in_flight: InFlight) -> Self {
        GuardedWrite {
            inner,
            in_flight,
            scan: Scan::default(),
            pending: Vec::new(),
        }
    }

    fn note(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            match memchr::memchr(b'\n', bytes) {
                Some(at) => {
                    self.scan.feed(&bytes[..at]);
                    let scan = std::mem::take(&mut self.scan);
                    if let (true, Some(id)) = (scan.has_method(), scan.id()) {
                        self.in_flight.sent(id);
                    }
                    bytes = &bytes[at + 1..];
                }
                None => {
                    self.scan.feed(bytes);
                    break;
                }
            }
        }
    }
}

impl<W: AsyncWrite + Unpin> GuardedWrite<W> {
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        while !self.pending.is_empty() {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &self.pending))?;
            if n == 0 {
                return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into()));
            }
            self.pending.drain(..n);
        }
        Poll::Ready(Ok(()))
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for GuardedWrite<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = &mut *self;
        if this.pending.len() >= WRITE_BUFFER {
            ready!(this.poll_drain(cx))?;
        }
        let n = buf.len().min(WRITE_BUFFER - this.pending.len());
        this.note(&buf[..n]);
        this.pending.extend_from_slice(&buf[..n]);
        // Written on at once where the pipe takes it; what it does not
        // take waits for the next write or flush.
        if let Poll::Ready(Err(err)) = this.poll_drain(cx) {
            return Poll::Ready(Err(err));
        }
        Poll::Ready(Ok(n))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        ready!(self.poll_drain(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        ready!(self.poll_drain(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard() -> (GuardedRead<tokio::io::Empty>, InFlight, TaskTools) {
        let (in_flight, tasks) = (InFlight::default(), TaskTools::default());
        let read = GuardedRead::new(tokio::io::empty(), in_flight.clone(), tasks.clone());
        (read, in_flight, tasks)
    }

    fn passed(read: &mut GuardedRead<tokio::io::Empty>) -> Vec<String> {
        read.ready
            .drain(..)
            .map(|f| String::from_utf8_lossy(&f).into_owned())
            .collect()
    }

    #[test]
    fn answers_to_ids_never_sent_are_dropped_and_requests_pass() {
        let (mut read, in_flight, _) = guard();
        in_flight.sent(b"1");
        read.feed(b"{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{}}\n");
        read.feed(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
        read.feed(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
        read.feed(b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\n");
        let passed = passed(&mut read);
        assert_eq!(passed.len(), 2, "{passed:?}");
        assert!(passed[0].contains("\"id\":1") && passed[1].contains("ping"));
    }

    #[test]
    fn an_unreadable_answer_fails_its_request_with_why() {
        for (frame, why) in [
            (
                &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"x\":\"caf\xC3\x28\"}}"[..],
                "UTF-8",
            ),
            (
                b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"x\":}",
                "not JSON",
            ),
            (b"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":\"no\"}", "shaped"),
        ] {
            let (mut read, in_flight, _) = guard();
            in_flight.sent(b"1");
            read.feed(frame);
            read.feed(b"\n");
            let passed = passed(&mut read);
            assert_eq!(passed.len(), 1);
            assert!(
                passed[0].contains("-32700") && passed[0].contains(why),
                "{passed:?}"
            );
        }
    }

    #[test]
    fn an_oversized_answer_is_refused_without_being_kept() {
        let (mut read, in_flight, _) = guard();
        in_flight.sent(b"3");
        read.feed(b"{\"jsonrpc\":\"2.0\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"");
        let chunk = vec![b'a'; 1 << 20];
        for _ in 0..20 {
            read.feed(&chunk);
        }
        assert!(read.frame.capacity() == 0, "nothing over the limit is kept");
        read.feed(b"\"}]},\"id\":3}\n");
        let passed = passed(&mut read);
        assert_eq!(passed.len(), 1);
        assert!(
            passed[0].contains("\"id\":3") && passed[0].contains("16 MiB"),
            "{passed:?}"
        );
    }

    #[test]
    fn a_page_of_too_many_tools_is_refused_as_soon_as_counted() {
        let (mut read, in_flight, _) = guard();
        in_flight.sent(b"2");
        read.feed(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":[");
        for _ in 0..=MAX_TOOLS_PER_PAGE {
            read.feed(b"{\"name\":\"t\"},");
        }
        let passed = passed(&mut read);
        assert_eq!(passed.len(), 1, "refused before the frame ends");
        assert!(passed[0].contains("more than"), "{passed:?}");
        read.feed(b"{}]}}\n");
        assert!(read.ready.is_empty(), "the rest of the frame is dropped");
    }

    #[test]
    fn task_requiring_tools_are_noted_across_chunks() {
        let (mut read, in_flight, tasks) = guard();
        in_flight.sent(b"1");
        let frame = br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"plain","inputSchema":{}},{"name":"slow","inputSchema":{},"execution":{"taskSupport":"required"}},{"name":"opt","inputSchema":{},"execution":{"taskSupport":"optional"}}]}}"#;
        let (a, b) = frame.split_at(40);
        read.feed(a);
        read.feed(b);
        assert!(!tasks.contains("slow"), "not before the line ends");
        read.feed(b"\n");
        assert!(tasks.contains("slow"));
        assert!(!tasks.contains("plain") && !tasks.contains("opt"));
    }

    #[test]
    fn requests_are_noted_before_they_are_written() {
        let in_flight = InFlight::default();
        let mut write = GuardedWrite::new(Vec::<u8>::new(), in_flight.clone());
        write.note(b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}\n{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}\n");
        assert!(in_flight.answered(b"4"));
        assert!(
            !in_flight.answered(b"9"),
            "our answers to the server are not requests"
        );
    }
}
