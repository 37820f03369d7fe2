//! An SSE answer from an HTTP server, read through the guard: the bytes
//! of each event bounded before they are parsed ([`bounded_events`]), and
//! each event's data checked as one [`Message`] before rmcp parses it
//! ([`guarded_events`]).
//!
//! On the stream that answers a POSTed request, an event that cannot be
//! read (or a stream that is not SSE at all) becomes that request's
//! error, and the stream ends there: rmcp would skip such an event and
//! wait for an answer the server may never send.

use bytes::Bytes;
use futures_util::stream::{BoxStream, StreamExt};
use rmcp::transport::streamable_http_client::SseError;
use sse_stream::{Sse, SseStream};

use super::{InFlight, MAX_FRAME_BYTES, Message, TaskTools, Verdict, not_utf8, too_big};

/// The raw bytes one event may take: its data's limit, and room for the
/// field names and the other fields.
const MAX_EVENT_BYTES: usize = MAX_FRAME_BYTES + (64 << 10);

/// Why reading the body of an SSE answer stopped.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BodyError {
    /// One event was longer than [`MAX_EVENT_BYTES`].
    #[error("an event is over {} MiB", MAX_FRAME_BYTES >> 20)]
    TooBig,
    /// The connection failed.
    #[error(transparent)]
    Http(reqwest::Error),
}

/// Counts the bytes of the event being read (a blank line ends one).
#[derive(Debug, Default)]
struct EventLength {
    event: usize,
    line: usize,
    after_cr: bool,
}

impl EventLength {
    /// Whether the event being read is still within the limit.
    fn observe(&mut self, chunk: &[u8]) -> bool {
        for &b in chunk {
            let after_cr = std::mem::take(&mut self.after_cr);
            match b {
                b'\n' if after_cr => {}
                b'\r' | b'\n' => {
                    if self.line == 0 {
                        self.event = 0;
                    }
                    self.line = 0;
                    self.after_cr = b == b'\r';
                }
                _ => {
                    self.line += 1;
                    self.event += 1;
                }
            }
        }
        self.event <= MAX_EVENT_BYTES
    }
}

/// The events of `response`'s body, parsed by `sse_stream` with no event
/// held past [`MAX_EVENT_BYTES`].
pub(crate) fn bounded_events(
    response: reqwest::Response,
) -> BoxStream<'static, Result<Sse, SseError>> {
    let state = (Some(response), EventLength::default());
    let bytes = futures_util::stream::unfold(state, |(response, mut length)| async move {
        let mut response = response?;
        let item = match response.chunk().await {
            Ok(Some(chunk)) if length.observe(&chunk) => Ok::<Bytes, BodyError>(chunk),
            Ok(Some(_)) => Err(BodyError::TooBig),
            Ok(None) => return None,
            Err(err) => Err(BodyError::Http(err)),
        };
        let response = item.is_ok().then_some(response);
        Some((item, (response, length)))
    });
    SseStream::from_bytes_stream(bytes).boxed()
}

/// What the guard knows of one stream.
struct Guard {
    events: BoxStream<'static, Result<Sse, SseError>>,
    in_flight: InFlight,
    tasks: TaskTools,
    /// The id of the request this stream answers (a POST's stream).
    expected: Option<Vec<u8>>,
    done: bool,
}

/// `events` through the guard; `expected` is the raw id of the request
/// whose POST they answer, if any.
pub(crate) fn guarded_events(
    events: BoxStream<'static, Result<Sse, SseError>>,
    in_flight: InFlight,
    tasks: TaskTools,
    expected: Option<Vec<u8>>,
) -> BoxStream<'static, Result<Sse, SseError>> {
    let guard = Guard {
        events,
        in_flight,
        tasks,
        expected,
        done: false,
    };
    futures_util::stream::unfold(guard, |mut guard| async move {
        let item = guard.next().await?;
        Some((item, guard))
    })
    .boxed()
}

impl Guard {
    async fn next(&mut self) -> Option<Result<Sse, SseError>> {
        while !self.done {
            let sse = match self.events.next().await? {
                Ok(sse) => sse,
                Err(err) => {
                    // A stream that broke on the server's side answers
                    // the request with why; the network's failures are
                    // rmcp's to retry.
                    let refused = unreadable_stream(&err).and_then(|why| self.refuse(&why));
                    self.done = true;
                    return Some(refused.ok_or(err));
                }
            };
            let is_message = matches!(sse.event.as_deref(), None | Some("" | "message"));
            let Some(data) = sse.data.as_deref().filter(|_| is_message) else {
                return Some(Ok(sse));
            };
            let mut message = Message::default();
            message.feed(data.as_bytes());
            let expected = self.expected.as_deref();
            match message.verdict(data.as_bytes(), &self.in_flight, &self.tasks, expected) {
                Verdict::Pass => return Some(Ok(sse)),
                Verdict::Refuse { id, error } => {
                    self.done = self.expected.as_deref() == Some(&id[..]);
                    return Some(Ok(error_event(error, sse.id)));
                }
                Verdict::Stray { id } => tracing::debug!(
                    id = %String::from_utf8_lossy(&id),
                    "an MCP answer to no request in flight was dropped"
                ),
                Verdict::Drop => {}
            }
            // Its message is dropped, not its place in the stream: rmcp
            // skips an event without data but keeps its id (what a resume
            // sends as `Last-Event-ID`) and its retry delay.
            if sse.id.is_some() || sse.retry.is_some() {
                return Some(Ok(Sse {
                    data: None,
                    event: None,
                    ..sse
                }));
            }
        }
        None
    }

    /// The expected request's error event saying `why`, if it is still
    /// in flight.
    fn refuse(&self, why: &str) -> Option<Sse> {
        let id = self.expected.as_deref()?;
        if !self.in_flight.answered(id) {
            return None;
        }
        tracing::warn!(%why, "MCP answer refused");
        let mut error = super::error_frame(id, why);
        error.pop();
        Some(error_event(error, None))
    }
}

fn error_event(error: Vec<u8>, id: Option<String>) -> Sse {
    Sse {
        data: Some(String::from_utf8_lossy(&error).into_owned()),
        id,
        ..Sse::default()
    }
}

/// Why a stream that failed is the server's fault, or `None` when the
/// network failed.
fn unreadable_stream(err: &SseError) -> Option<String> {
    match err {
        SseError::Body(source) => match source.downcast_ref::<BodyError>() {
            Some(BodyError::TooBig) => Some(too_big()),
            _ => None,
        },
        SseError::Utf8Parse(utf8) => Some(not_utf8(utf8.valid_up_to())),
        other => Some(format!("it is not a server-sent event stream ({other})")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_bounded_and_a_blank_line_ends_it() {
        let mut length = EventLength::default();
        assert!(length.observe(b"data: a\r\n\r\ndata: b\n\n"));
        assert_eq!(length.event, 0);
        let line = vec![b'a'; MAX_EVENT_BYTES / 2];
        assert!(length.observe(b"data: "));
        assert!(length.observe(&line));
        assert!(length.observe(b"\ndata: "));
        assert!(!length.observe(&line), "two lines of one event add up");
    }

    #[tokio::test]
    async fn a_malformed_event_answers_the_request_and_ends_the_stream() {
        let (in_flight, tasks) = (InFlight::default(), TaskTools::default());
        in_flight.sent(b"3");
        let events = futures_util::stream::iter([
            Ok(Sse::default().data(r#"{"jsonrpc":"2.0","id":99,"result":{}}"#)),
            Ok(Sse::default().data("this is not JSON")),
            Ok(Sse::default().data(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#)),
        ])
        .boxed();
        let out: Vec<_> = guarded_events(events, in_flight, tasks, Some(b"3".to_vec()))
            .collect()
            .await;
        assert_eq!(out.len(), 1, "the stray is dropped, the stream ends");
        let data = out[0]
            .as_ref()
            .expect("an event")
            .data
            .clone()
            .unwrap_or_default();
        assert!(
            data.contains("\"id\":3") && data.contains("not JSON"),
            "{data}"
        );
    }
}
