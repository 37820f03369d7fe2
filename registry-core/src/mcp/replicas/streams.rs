//! Resumable streams on every replica: rmcp's event store over the shared
//! store. Each stream's events are kept in a log of its own before they
//! are sent, so a client reconnecting with `Last-Event-ID` to any replica
//! is replayed what it missed; and a stream whose request went down with
//! its replica is answered (see [`calls`](super::calls)).

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{GetExtensions, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use rmcp::transport::streamable_http_server::session::store::{
    EventId, EventStore, EventStoreError, EventStream,
};
use serde::{Deserialize, Serialize};

use super::calls::{self, CallTag, Fate};
use super::{Replica, tag_message};
use crate::mcp::shared::SharedStore;

/// Events a stream's log keeps for replay.
const EVENTS_KEEP: usize = 256;
/// The position part of a priming event's id (it is not kept).
const PRIMED: &str = "primed";
/// The position part of the id of the answer a replica gave for a lost
/// request (it is not kept: resuming after it replays nothing).
pub(crate) const LOST: &str = "lost";

fn events_log(stream: &str) -> String {
    format!("events:{stream}")
}

/// An SSE event as its stream's log keeps it.
#[derive(Serialize, Deserialize)]
struct StoredEvent {
    message: Option<ServerJsonRpcMessage>,
    retry_ms: Option<u64>,
}

impl StoredEvent {
    /// The event, with the id it was sent with.
    fn into_event(self, id: String) -> ServerSseMessage {
        let mut event = ServerSseMessage::default();
        event.event_id = Some(id);
        event.message = self.message.map(Arc::new);
        event.retry = self.retry_ms.map(Duration::from_millis);
        event
    }
}

/// rmcp's event store over the shared store: each stream's events in a
/// log of its own, their ids `<stream>#<position>`, followed by the tag
/// of the request the stream answers when one is known.
pub(crate) struct Streams {
    pub(super) store: SharedStore,
    pub(super) replica: Replica,
    /// Counts the events sent without being kept (their ids stay unique).
    pub(super) unkept: std::sync::atomic::AtomicU64,
}

impl Streams {
    /// The id of an event sent without being kept: unique, and replaying
    /// nothing.
    fn unkept_id(&self, stream_id: &str) -> EventId {
        let n = self
            .unkept
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        format!("{stream_id}#unkept-{}-{n}", self.replica.0)
    }
}

/// The tag a message carries in its extensions: a stateless call's
/// progress names its request this way, since nothing else tells the
/// event store which request a stateless stream answers.
fn carried_tag(message: &ServerJsonRpcMessage) -> Option<&CallTag> {
    match message {
        ServerJsonRpcMessage::Notification(notification) => {
            notification.notification.extensions().get::<CallTag>()
        }
        _ => None,
    }
}

#[async_trait::async_trait]
impl EventStore for Streams {
    async fn store_event(
        &self,
        stream_id: &str,
        event: &ServerSseMessage,
    ) -> Result<EventId, EventStoreError> {
        // An event without a message is the stream's priming event (a
        // retry hint before anything is sent): nothing to replay, so it is
        // not kept, and resuming after it replays the stream from its
        // start. It saves every call one round trip to the store.
        let Some(message) = event.message.as_deref() else {
            return Ok(format!("{stream_id}#{PRIMED}"));
        };
        let suffix = carried_tag(message)
            .map(CallTag::suffix)
            .unwrap_or_default();
        // Kept as it is sent: a request's id tagged with this replica, so
        // an answer to a replayed question still finds its way here.
        let message = tag_message(&self.replica, message).unwrap_or_else(|| message.clone());
        let stored = StoredEvent {
            message: Some(message),
            retry_ms: event
                .retry
                .map(|r| u64::try_from(r.as_millis()).unwrap_or(u64::MAX)),
        };
        let bytes = serde_json::to_vec(&stored)?;
        if bytes.len() > self.store.limits.max_bytes {
            // Bounded like a record: a larger event is sent, not kept.
            tracing::warn!(
                bytes = bytes.len(),
                limit = self.store.limits.max_bytes,
                "an SSE event too large to keep for replay was sent without being kept"
            );
            return Ok(self.unkept_id(stream_id) + &suffix);
        }
        match self
            .store
            .store
            .append(
                &events_log(stream_id),
                &bytes,
                EVENTS_KEEP,
                self.store.limits.ttl,
            )
            .await
        {
            Ok(position) => Ok(format!("{stream_id}#{position}{suffix}")),
            // The event is still sent (the call's result reaches its
            // client, an error result when the store is what failed); it
            // only cannot be replayed. Its id says so, and a resume from
            // it replays nothing.
            Err(err) => {
                tracing::warn!(%err, "an SSE event was sent without being kept for replay");
                Ok(self.unkept_id(stream_id) + &suffix)
            }
        }
    }

    async fn replay_events_after(
        &self,
        last_event_id: &str,
    ) -> Result<EventStream, EventStoreError> {
        let (base, tag) = calls::split_event_id(last_event_id);
        let (stream_id, from) = base
            .rsplit_once('#')
            .and_then(|(stream, n)| match n {
                PRIMED => Some((stream, 0)),
                n if n.starts_with("unkept-") => Some((stream, u64::MAX)),
                n => Some((stream, n.parse::<u64>().ok()?.saturating_add(1))),
            })
            .ok_or_else(|| format!("`{last_event_id}` is not an event id this server gave"))?;
        if from == u64::MAX && tag.is_none() {
            return Err(format!("`{last_event_id}` names an event that was not kept").into());
        }
        let Some(tag) = tag else {
            let entries = self
                .store
                .store
                .read_log(&events_log(stream_id), from)
                .await?;
            let events: Vec<ServerSseMessage> = entries
                .into_iter()
                .filter_map(|(position, bytes)| {
                    let stored: StoredEvent = serde_json::from_slice(&bytes).ok()?;
                    Some(stored.into_event(format!("{stream_id}#{position}")))
                })
                .collect();
            return Ok(Box::pin(futures_util::stream::iter(events)));
        };
        // The stream of a known request: replayed, then followed until
        // the request is answered (by its replica, or here when that
        // replica is lost).
        let (events, received) = tokio::sync::mpsc::channel(16);
        tokio::spawn(follow(
            self.store.clone(),
            stream_id.to_owned(),
            from.min(u64::MAX - 1),
            tag,
            events,
        ));
        let stream = futures_util::stream::unfold(received, |mut received| async move {
            received.recv().await.map(|event| (event, received))
        });
        Ok(Box::pin(sync_wrapper::SyncStream::new(stream)))
    }
}

/// Sends the events of `stream` from `from` on, as its replica keeps
/// them, until one answers `tag`'s request; when the request's lease says
/// its replica is lost (or never started it), sends the answer for it
/// instead. Ends early when the client goes (`events` closes).
async fn follow(
    store: SharedStore,
    stream: String,
    mut from: u64,
    tag: CallTag,
    events: tokio::sync::mpsc::Sender<ServerSseMessage>,
) {
    let log = events_log(&stream);
    let suffix = tag.suffix();
    // Told at each new event, so an answer that lands is sent at once; the
    // lease is looked at every `RENEW` meanwhile.
    let mut grew = match store.store.watch_log(&log).await {
        Ok(grew) => Some(grew),
        Err(err) => {
            tracing::debug!(%err, "a resumed stream's log cannot be watched; polling it");
            None
        }
    };
    let mut checked_fate = None;
    // When no lease was first seen. A replica tags a call's stream (its
    // priming event) before it takes the call's lease, so a client that
    // resumes in between finds none though the call is about to run: "did
    // not run" is answered only once no lease has come for a whole
    // [`calls::LEASE`].
    let mut unleased_since: Option<tokio::time::Instant> = None;
    loop {
        let entries = match store.store.read_log(&log, from).await {
            Ok(entries) => entries,
            Err(err) => {
                send_answer(&events, &stream, &suffix, calls::unknown_answer(&tag, &err)).await;
                return;
            }
        };
        for (position, bytes) in entries {
            from = position + 1;
            let Ok(stored) = serde_json::from_slice::<StoredEvent>(&bytes) else {
                continue;
            };
            let answered = stored
                .message
                .as_ref()
                .is_some_and(|message| tag.is_answered_by(message));
            let event = stored.into_event(format!("{stream}#{position}{suffix}"));
            if events.send(event).await.is_err() || answered {
                return;
            }
        }
        // The log, read after the lease was found lapsed, holds no answer:
        // none is coming.
        if let Some(fate) = checked_fate.take() {
            send_answer(&events, &stream, &suffix, calls::lost_answer(&tag, &fate)).await;
            return;
        }
        let fate = match calls::fate(&store, &tag).await {
            Ok(Fate::NeverStarted)
                if unleased_since
                    .get_or_insert_with(tokio::time::Instant::now)
                    .elapsed()
                    < calls::LEASE =>
            {
                Ok(Fate::Running)
            }
            other => other,
        };
        match fate {
            Ok(Fate::Running) => {
                let waited = tokio::time::sleep(calls::RENEW);
                tokio::select! {
                    () = events.closed() => return,
                    () = waited => {}
                    () = changed(&mut grew) => {}
                }
            }
            // Read the log once more: the answer may have landed between
            // the read and the look at the lease.
            Ok(fate) => checked_fate = Some(fate),
            Err(err) => {
                send_answer(&events, &stream, &suffix, calls::unknown_answer(&tag, &err)).await;
                return;
            }
        }
    }
}

/// Until `grew` says the log changed (forever without a watch).
async fn changed(grew: &mut Option<tokio::sync::watch::Receiver<()>>) {
    match grew {
        Some(receiver) => {
            if receiver.changed().await.is_err() {
                // The store stopped watching: wait on the timer alone.
                *grew = None;
                std::future::pending::<()>().await;
            }
        }
        None => std::future::pending().await,
    }
}

/// Sends the answer a replica gives for a lost request, with an id that
/// replays nothing.
async fn send_answer(
    events: &tokio::sync::mpsc::Sender<ServerSseMessage>,
    stream: &str,
    suffix: &str,
    answer: Option<ServerJsonRpcMessage>,
) {
    let Some(answer) = answer else { return };
    let mut event = ServerSseMessage::default();
    event.event_id = Some(format!("{stream}#{LOST}{suffix}"));
    event.message = Some(Arc::new(answer));
    let _ = events.send(event).await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;
    use rmcp::model::NumberOrString;

    fn event(data: &str) -> ServerSseMessage {
        let message: ServerJsonRpcMessage = serde_json::from_value(serde_json::json!({
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": { "level": "info", "data": data },
        }))
        .unwrap();
        let mut event = ServerSseMessage::default();
        event.message = Some(Arc::new(message));
        event
    }

    #[tokio::test]
    async fn streams_replay_what_they_kept_and_keep_no_more_than_a_record() {
        let streams = Streams {
            store: SharedStore {
                store: Arc::new(crate::session::MemorySessionStore::new()),
                limits: crate::session::StoreLimits {
                    max_bytes: 512,
                    ..Default::default()
                },
            },
            replica: Replica::new(),
            unkept: std::sync::atomic::AtomicU64::new(0),
        };
        let primed = streams
            .store_event("s1", &ServerSseMessage::default())
            .await
            .unwrap();
        assert_eq!(primed, "s1#primed");
        let first = streams.store_event("s1", &event("one")).await.unwrap();
        let second = streams.store_event("s1", &event("two")).await.unwrap();
        assert_eq!((first.as_str(), second.as_str()), ("s1#0", "s1#1"));
        let big = streams
            .store_event("s1", &event(&"x".repeat(1000)))
            .await
            .unwrap();
        assert!(big.starts_with("s1#unkept-"), "{big}");

        let replayed = |after: &str| {
            let after = after.to_owned();
            let streams = &streams;
            async move {
                let events: Vec<ServerSseMessage> = streams
                    .replay_events_after(&after)
                    .await
                    .unwrap()
                    .collect()
                    .await;
                events
                    .into_iter()
                    .map(|e| e.event_id.unwrap())
                    .collect::<Vec<_>>()
            }
        };
        // After the priming event: the whole stream; after an event: the
        // rest. The big one was sent but not kept.
        assert_eq!(replayed(&primed).await, ["s1#0", "s1#1"]);
        assert_eq!(replayed(&first).await, ["s1#1"]);
        assert!(streams.replay_events_after(&big).await.is_err());
        assert!(streams.replay_events_after("nonsense").await.is_err());
    }

    /// A stateless call's progress names the call: its event's id carries
    /// the call's tag, so a resume from it knows what to answer.
    #[tokio::test]
    async fn a_stateless_calls_progress_names_its_call() {
        let streams = Streams {
            store: SharedStore {
                store: Arc::new(crate::session::MemorySessionStore::new()),
                limits: crate::session::StoreLimits::default(),
            },
            replica: Replica::new(),
            unkept: std::sync::atomic::AtomicU64::new(0),
        };
        let tag = CallTag::new("ab12", &NumberOrString::Number(3), true, true);
        let note = calls::progress(
            rmcp::model::ProgressToken(NumberOrString::Number(1)),
            1,
            "a step".into(),
            Some(&tag),
        );
        let mut event = ServerSseMessage::default();
        event.message = Some(Arc::new(ServerJsonRpcMessage::notification(note)));
        let id = streams.store_event("s9", &event).await.unwrap();
        assert_eq!(id, format!("s9#0{}", tag.suffix()));
        assert_eq!(calls::split_event_id(&id).1, Some(tag));
    }

    /// A stream resumed between the call's priming event (tagged) and its
    /// lease (taken after a store round trip) is not told "did not run":
    /// it waits a whole lease for one, and the call that then runs is
    /// followed to its answer. Only a call no replica leases for that long
    /// is answered as never started.
    #[tokio::test(start_paused = true)]
    async fn a_call_leased_just_after_its_stream_was_resumed_is_followed() {
        let store = SharedStore {
            store: Arc::new(crate::session::MemorySessionStore::new()),
            limits: crate::session::StoreLimits::default(),
        };
        let streams = Streams {
            store: store.clone(),
            replica: Replica::new(),
            unkept: std::sync::atomic::AtomicU64::new(0),
        };
        let tag = CallTag::new("session-2", &NumberOrString::Number(6), true, false);
        let mut resumed = streams
            .replay_events_after(&format!("s3#primed{}", tag.suffix()))
            .await
            .unwrap();
        let late = async {
            tokio::time::sleep(calls::RENEW).await;
            let running = store.run_call(&tag, "replica-a").await.unwrap();
            let done: ServerJsonRpcMessage = serde_json::from_value(serde_json::json!({
                "jsonrpc": "2.0", "id": 6, "result": { "content": [], "isError": false },
            }))
            .unwrap();
            let mut answered = ServerSseMessage::default();
            answered.message = Some(Arc::new(done));
            streams.store_event("s3", &answered).await.unwrap();
            running
        };
        let (first, _running) = tokio::join!(resumed.next(), late);
        let answer = serde_json::to_value(first.unwrap().message.as_deref().unwrap()).unwrap();
        assert_eq!(answer["result"]["isError"], false, "{answer}");

        // Never leased: "did not run", after a whole lease.
        let tag = CallTag::new("session-2", &NumberOrString::Number(7), true, false);
        let started = tokio::time::Instant::now();
        let mut resumed = streams
            .replay_events_after(&format!("s4#primed{}", tag.suffix()))
            .await
            .unwrap();
        let answer = resumed.next().await.unwrap();
        assert!(started.elapsed() >= calls::LEASE);
        let answer = serde_json::to_value(answer.message.as_deref().unwrap()).unwrap();
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(text.contains("did not run"), "{answer}");
    }

    /// A resumed stream of a call whose replica holds its lease waits for
    /// the answer; once the lease lapses with no answer kept, the replica
    /// the client reached answers: the call was lost and may have run.
    #[tokio::test(start_paused = true)]
    async fn a_resumed_stream_of_a_lost_call_ends_with_an_error_result() {
        let store = SharedStore {
            store: Arc::new(crate::session::MemorySessionStore::new()),
            limits: crate::session::StoreLimits::default(),
        };
        let streams = Streams {
            store: store.clone(),
            replica: Replica::new(),
            unkept: std::sync::atomic::AtomicU64::new(0),
        };
        let tag = CallTag::new("session-1", &NumberOrString::Number(4), true, false);
        let running = store.run_call(&tag, "replica-a").await.unwrap();
        let progress = streams.store_event("s1", &event("half way")).await.unwrap();
        let resumed_from = format!("s1#primed{}", tag.suffix());
        let mut resumed = streams.replay_events_after(&resumed_from).await.unwrap();
        let first = resumed.next().await.unwrap();
        assert_eq!(
            first.event_id.unwrap(),
            format!("{progress}{}", tag.suffix())
        );
        // The replica dies: no answer, and after the lease, the lost one.
        drop(running);
        let started = tokio::time::Instant::now();
        let answer = resumed.next().await.unwrap();
        assert!(started.elapsed() <= calls::LEASE + calls::RENEW);
        assert_eq!(
            answer.event_id.unwrap(),
            format!("s1#{LOST}{}", tag.suffix())
        );
        let answer = serde_json::to_value(answer.message.as_deref().unwrap()).unwrap();
        assert_eq!(answer["id"], 4);
        assert_eq!(answer["result"]["isError"], true);
        assert!(
            resumed.next().await.is_none(),
            "the stream ends with the answer"
        );

        // A call that answered in time is replayed, answer and all.
        let tag = CallTag::new("session-1", &NumberOrString::Number(5), true, false);
        let _running = store.run_call(&tag, "replica-a").await.unwrap();
        let done: ServerJsonRpcMessage = serde_json::from_value(serde_json::json!({
            "jsonrpc": "2.0", "id": 5, "result": { "content": [], "isError": false },
        }))
        .unwrap();
        let mut answered = ServerSseMessage::default();
        answered.message = Some(Arc::new(done));
        streams.store_event("s2", &answered).await.unwrap();
        let replayed: Vec<ServerSseMessage> = streams
            .replay_events_after(&format!("s2#primed{}", tag.suffix()))
            .await
            .unwrap()
            .collect()
            .await;
        assert_eq!(replayed.len(), 1);
        assert!(tag.is_answered_by(replayed[0].message.as_deref().unwrap()));
    }
}
