//! One legacy session served by several replicas at once, behind a load
//! balancer without affinity: what must reach the replica that is
//! waiting for it, wherever the balancer sends it.
//!
//! - **The client's answers.** A replica asking the client (an approval
//!   through `elicitation/create`) waits for the answer; the client posts
//!   it to whichever replica the balancer picks. Every request a replica
//!   sends carries an id naming the replica (`<replica>.<n>`), so a
//!   replica receiving an answer that is not its own appends it to the
//!   session's relay log in the shared store, and the replica waiting
//!   reads it there. The id also keeps two replicas' questions apart: each
//!   numbers its own from 0, and an answer to one must never answer the
//!   other.
//! - **Resumable streams.** Every SSE event is appended to its stream's
//!   log in the shared store before it is sent (rmcp's `EventStore`), so a
//!   client reconnecting with `Last-Event-ID` to another replica is
//!   replayed what it missed.
//!
//! Without a shared store, sessions are this process's alone and nothing
//! is relayed or rewritten.

use std::sync::Arc;
use std::time::Duration;

use futures_util::{Stream, StreamExt};
use rmcp::model::{ClientJsonRpcMessage, NumberOrString, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::store::{
    EventId, EventStore, EventStoreError, EventStream,
};
use rmcp::transport::streamable_http_server::{RestoreOutcome, SessionId, SessionManager};
use serde::{Deserialize, Serialize};

use super::shared::SharedStore;

/// Entries a session's relay log keeps: answers are read within
/// milliseconds, so a few dozen cover any burst.
const RELAY_KEEP: usize = 64;
/// Events a stream's log keeps for replay.
const EVENTS_KEEP: usize = 256;
/// The position part of a priming event's id (it is not kept).
const PRIMED: &str = "primed";
/// How often a replica waiting for an answer looks for it in the relay log.
const RELAY_POLL: Duration = Duration::from_millis(20);

/// This process among the replicas: a random name, fresh at each start.
#[derive(Debug, Clone)]
pub(crate) struct Replica(Arc<str>);

impl Replica {
    pub(crate) fn new() -> Self {
        let id = uuid::Uuid::new_v4().simple().to_string();
        Replica(id[..12].into())
    }

    /// `id` as this replica sends it.
    fn tag(&self, id: &NumberOrString) -> NumberOrString {
        match id {
            NumberOrString::Number(n) => NumberOrString::String(format!("{}.{n}", self.0).into()),
            other => other.clone(),
        }
    }

    /// Whose request an answer's id names: this replica's (with the id
    /// rmcp gave it), another's, or no replica's.
    fn owner(&self, id: &NumberOrString) -> Owner {
        let NumberOrString::String(tagged) = id else {
            return Owner::Untagged;
        };
        match tagged.split_once('.') {
            Some((replica, n)) if replica == &*self.0 => match n.parse() {
                Ok(n) => Owner::Here(NumberOrString::Number(n)),
                Err(_) => Owner::Untagged,
            },
            Some((replica, _)) if replica.len() == self.0.len() => Owner::Elsewhere,
            _ => Owner::Untagged,
        }
    }
}

enum Owner {
    Here(NumberOrString),
    Elsewhere,
    Untagged,
}

/// A server message as this replica sends it: a request's id tagged.
fn tag_message(replica: &Replica, message: &ServerJsonRpcMessage) -> Option<ServerJsonRpcMessage> {
    match message {
        ServerJsonRpcMessage::Request(request) => {
            let mut request = request.clone();
            request.id = replica.tag(&request.id);
            Some(ServerJsonRpcMessage::Request(request))
        }
        _ => None,
    }
}

fn tag_event(replica: &Replica, mut event: ServerSseMessage) -> ServerSseMessage {
    if let Some(tagged) = event
        .message
        .as_deref()
        .and_then(|m| tag_message(replica, m))
    {
        event.message = Some(Arc::new(tagged));
    }
    event
}

/// The id of a client's answer (a response or an error), if it is one.
fn answer_id(message: &ClientJsonRpcMessage) -> Option<&NumberOrString> {
    match message {
        ClientJsonRpcMessage::Response(response) => Some(&response.id),
        ClientJsonRpcMessage::Error(error) => error.id.as_ref(),
        _ => None,
    }
}

fn with_answer_id(mut message: ClientJsonRpcMessage, id: NumberOrString) -> ClientJsonRpcMessage {
    match &mut message {
        ClientJsonRpcMessage::Response(response) => response.id = id,
        ClientJsonRpcMessage::Error(error) => error.id = Some(id),
        _ => {}
    }
    message
}

fn relay_log(session: &str) -> String {
    format!("answers:{session}")
}

fn events_log(stream: &str) -> String {
    format!("events:{stream}")
}

/// rmcp's local sessions, with answers relayed and request ids tagged
/// when a store is shared.
pub(crate) struct Sessions {
    local: LocalSessionManager,
    shared: Option<(SharedStore, Replica)>,
}

impl Sessions {
    pub(crate) fn new(local: LocalSessionManager, shared: Option<SharedStore>) -> Self {
        let shared = shared.map(|store| (store, Replica::new()));
        let local = match &shared {
            Some((store, replica)) => local.with_event_store(Arc::new(Streams {
                store: store.clone(),
                replica: replica.clone(),
                unkept: std::sync::atomic::AtomicU64::new(0),
            })),
            None => local,
        };
        Sessions { local, shared }
    }

    fn tagged<S>(&self, stream: S) -> impl Stream<Item = ServerSseMessage> + Send + 'static
    where
        S: Stream<Item = ServerSseMessage> + Send + 'static,
    {
        let replica = self.shared.as_ref().map(|(_, replica)| replica.clone());
        stream.map(move |event| match &replica {
            Some(replica) => tag_event(replica, event),
            None => event,
        })
    }

    /// Where the relay log of `session` stands now: answers appended from
    /// here on are for questions asked from now.
    pub(crate) async fn relay_mark(&self, session: &str) -> u64 {
        let Some((shared, _)) = &self.shared else {
            return 0;
        };
        match shared.store.read_log(&relay_log(session), 0).await {
            Ok(entries) => entries.last().map_or(0, |(position, _)| position + 1),
            Err(err) => {
                tracing::warn!(%err, "relay log unreadable; answers through other replicas are lost");
                u64::MAX
            }
        }
    }

    /// Until cancelled (when the question is answered or times out):
    /// takes this replica's answers for `session` out of the relay log,
    /// from `mark` on, into the local session.
    pub(crate) async fn relay_answers(&self, session: &str, mut mark: u64) {
        let Some((shared, replica)) = &self.shared else {
            return std::future::pending().await;
        };
        let id: SessionId = session.into();
        loop {
            tokio::time::sleep(RELAY_POLL).await;
            let entries = match shared.store.read_log(&relay_log(session), mark).await {
                Ok(entries) => entries,
                Err(err) => {
                    tracing::debug!(%err, "relay log unreadable; trying again");
                    continue;
                }
            };
            for (position, bytes) in entries {
                mark = position + 1;
                let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(&bytes) else {
                    continue;
                };
                if let Some(Owner::Here(original)) = answer_id(&message).map(|id| replica.owner(id))
                    && let Err(err) = self
                        .local
                        .accept_message(&id, with_answer_id(message, original))
                        .await
                {
                    tracing::debug!(%err, "a relayed answer found no session");
                }
            }
        }
    }
}

impl SessionManager for Sessions {
    type Error = LocalSessionManagerError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        self.local.create_session().await
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.local.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.local.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.local.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let stream = self.local.create_stream(id, message).await?;
        Ok(SyncStream::new(Box::pin(self.tagged(stream)) as _))
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        let Some((shared, replica)) = &self.shared else {
            return self.local.accept_message(id, message).await;
        };
        match answer_id(&message).map(|answer| replica.owner(answer)) {
            Some(Owner::Here(original)) => {
                self.local
                    .accept_message(id, with_answer_id(message, original))
                    .await
            }
            Some(Owner::Elsewhere) => {
                // Another replica asked: it reads the answer from the log.
                match serde_json::to_vec(&message) {
                    Ok(bytes) if bytes.len() > shared.limits.max_bytes => {
                        tracing::error!(
                            bytes = bytes.len(),
                            "a client's answer is over the store's size limit; not relayed"
                        );
                    }
                    Ok(bytes) => {
                        if let Err(err) = shared
                            .store
                            .append(&relay_log(id), &bytes, RELAY_KEEP, shared.limits.ttl)
                            .await
                        {
                            tracing::error!(%err, "a client's answer could not be relayed");
                        }
                    }
                    Err(err) => tracing::error!(%err, "a client's answer could not be encoded"),
                }
                Ok(())
            }
            Some(Owner::Untagged) | None => self.local.accept_message(id, message).await,
        }
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let stream = self.local.create_standalone_stream(id).await?;
        Ok(SyncStream::new(Box::pin(self.tagged(stream)) as _))
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let stream = self.local.resume(id, last_event_id).await?;
        Ok(SyncStream::new(Box::pin(self.tagged(stream)) as _))
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        self.local.restore_session(id).await
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.local.event_store()
    }
}

/// rmcp's streams must be `Sync`; ours are only ever polled through
/// `&mut`, which is what `SyncStream` makes use of.
type SyncStream =
    sync_wrapper::SyncStream<std::pin::Pin<Box<dyn Stream<Item = ServerSseMessage> + Send>>>;

/// An SSE event as its stream's log keeps it.
#[derive(Serialize, Deserialize)]
struct StoredEvent {
    message: Option<ServerJsonRpcMessage>,
    retry_ms: Option<u64>,
}

/// rmcp's event store over the shared store: each stream's events in a
/// log of its own, their ids `<stream>#<position>`.
struct Streams {
    store: SharedStore,
    replica: Replica,
    /// Counts the events sent without being kept (their ids stay unique).
    unkept: std::sync::atomic::AtomicU64,
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
        if event.message.is_none() {
            return Ok(format!("{stream_id}#{PRIMED}"));
        }
        // Kept as it is sent: a request's id tagged with this replica, so
        // an answer to a replayed question still finds its way here.
        let message = event
            .message
            .as_deref()
            .map(|message| tag_message(&self.replica, message).unwrap_or_else(|| message.clone()));
        let stored = StoredEvent {
            message,
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
            return Ok(self.unkept_id(stream_id));
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
            Ok(position) => Ok(format!("{stream_id}#{position}")),
            // The event is still sent (the call's result reaches its
            // client, an error result when the store is what failed); it
            // only cannot be replayed. Its id says so, and a resume from
            // it replays nothing.
            Err(err) => {
                tracing::warn!(%err, "an SSE event was sent without being kept for replay");
                Ok(self.unkept_id(stream_id))
            }
        }
    }

    async fn replay_events_after(
        &self,
        last_event_id: &str,
    ) -> Result<EventStream, EventStoreError> {
        let (stream_id, from) = last_event_id
            .rsplit_once('#')
            .and_then(|(stream, n)| match n {
                PRIMED => Some((stream, 0)),
                n => Some((stream, n.parse::<u64>().ok()?.saturating_add(1))),
            })
            .ok_or_else(|| format!("`{last_event_id}` is not an event id this server gave"))?;
        let entries = self
            .store
            .store
            .read_log(&events_log(stream_id), from)
            .await?;
        let stream_id = stream_id.to_owned();
        let events: Vec<ServerSseMessage> = entries
            .into_iter()
            .filter_map(|(position, bytes)| {
                let stored: StoredEvent = serde_json::from_slice(&bytes).ok()?;
                let mut event = ServerSseMessage::default();
                event.event_id = Some(format!("{stream_id}#{position}"));
                event.message = stored.message.map(Arc::new);
                event.retry = stored.retry_ms.map(Duration::from_millis);
                Some(event)
            })
            .collect();
        Ok(Box::pin(futures_util::stream::iter(events)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_goes_back_to_the_replica_that_asked() {
        let (one, two) = (Replica::new(), Replica::new());
        let asked = one.tag(&NumberOrString::Number(0));
        match one.owner(&asked) {
            Owner::Here(NumberOrString::Number(0)) => {}
            _ => panic!("the asker owns its question"),
        }
        assert!(matches!(two.owner(&asked), Owner::Elsewhere));
        // The same number from the other replica is another question.
        assert!(matches!(
            one.owner(&two.tag(&NumberOrString::Number(0))),
            Owner::Elsewhere
        ));
        assert!(matches!(
            one.owner(&NumberOrString::Number(0)),
            Owner::Untagged
        ));
        assert!(matches!(
            one.owner(&NumberOrString::String("client-chosen".into())),
            Owner::Untagged
        ));
    }

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
}
