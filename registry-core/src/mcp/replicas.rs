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
//!   The waiting replica is told of each relayed answer by the store
//!   ([`SessionStore::watch_log`](crate::session::SessionStore::watch_log):
//!   Redis pub/sub, or directly in memory), never by polling.
//! - **Resumable streams** (`streams`). Every SSE event is appended to
//!   its stream's log in the shared store before it is sent (rmcp's
//!   `EventStore`), so a client reconnecting with `Last-Event-ID` to
//!   another replica is replayed what it missed.
//! - **Calls lost with their replica** (`calls`). A request's stream
//!   names its request in every event id; a replica that a client resumes
//!   the stream on follows it until it is answered, and answers it itself
//!   when the call's lease says its replica is gone.
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
use rmcp::transport::streamable_http_server::session::store::EventStore;
use rmcp::transport::streamable_http_server::{RestoreOutcome, SessionId, SessionManager};

use super::shared::SharedStore;

pub(crate) mod calls;
mod streams;

use calls::CallTag;
pub(crate) use streams::LOST;
use streams::Streams;

/// Entries a session's relay log keeps: answers are read within
/// milliseconds, so a few dozen cover any burst.
const RELAY_KEEP: usize = 64;
/// How long a replica waits before watching the relay log again, when
/// the store could not be watched or read.
const RELAY_RETRY: Duration = Duration::from_millis(200);

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

/// The session's relay log: under the session's hash tag, with its
/// other names (see `shared`).
fn relay_log(session: &str) -> String {
    format!("{{{session}}}answers")
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
    /// from `mark` on, into the local session. The store says when the log
    /// grows; the log is read once at the start and again at each change.
    pub(crate) async fn relay_answers(&self, session: &str, mut mark: u64) {
        let Some((shared, replica)) = &self.shared else {
            return std::future::pending().await;
        };
        let id: SessionId = session.into();
        let log = relay_log(session);
        loop {
            let mut grew = match shared.store.watch_log(&log).await {
                Ok(grew) => grew,
                Err(err) => {
                    tracing::debug!(%err, "relay log cannot be watched; trying again");
                    tokio::time::sleep(RELAY_RETRY).await;
                    continue;
                }
            };
            loop {
                let entries = match shared.store.read_log(&log, mark).await {
                    Ok(entries) => entries,
                    Err(err) => {
                        tracing::debug!(%err, "relay log unreadable; trying again");
                        tokio::time::sleep(RELAY_RETRY).await;
                        continue;
                    }
                };
                for (position, bytes) in entries {
                    mark = position + 1;
                    let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(&bytes) else {
                        continue;
                    };
                    if let Some(Owner::Here(original)) =
                        answer_id(&message).map(|id| replica.owner(id))
                        && let Err(err) = self
                            .local
                            .accept_message(&id, with_answer_id(message, original))
                            .await
                    {
                        tracing::debug!(%err, "a relayed answer found no session");
                    }
                }
                if grew.changed().await.is_err() {
                    // The store stopped watching: watch again.
                    break;
                }
            }
        }
    }

    /// This replica's name, when a store is shared: the holder of the
    /// leases of the calls it runs.
    pub(crate) fn replica_name(&self) -> Option<&str> {
        self.shared.as_ref().map(|(_, replica)| &*replica.0)
    }
}

/// Every event of `stream` with an id naming `tag`'s request (after the
/// id the event store gave), unless it names one already.
fn name_request<S>(stream: S, tag: CallTag) -> impl Stream<Item = ServerSseMessage> + Send + 'static
where
    S: Stream<Item = ServerSseMessage> + Send + 'static,
{
    let suffix = tag.suffix();
    stream.map(move |mut event| {
        if let Some(id) = &mut event.event_id
            && !id.contains('~')
        {
            id.push_str(&suffix);
        }
        event
    })
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
        // With a store shared, the stream's event ids name its request, so
        // the replica a client resumes it on knows what to answer.
        let request = match (&message, &self.shared) {
            (ClientJsonRpcMessage::Request(request), Some(_)) => Some(CallTag::new(
                id,
                &request.id,
                matches!(
                    request.request,
                    rmcp::model::ClientRequest::CallToolRequest(_)
                ),
                false,
            )),
            _ => None,
        };
        let stream = self.tagged(self.local.create_stream(id, message).await?);
        Ok(SyncStream::new(match request {
            Some(tag) => Box::pin(name_request(stream, tag)) as _,
            None => Box::pin(stream) as _,
        }))
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
        // A stream names its session's request: resuming another
        // session's is refused, as an unknown event id is.
        if let (_, Some(tag)) = calls::split_event_id(&last_event_id)
            && tag.conversation() != &**id
        {
            return Err(LocalSessionManagerError::SessionError(
                rmcp::transport::streamable_http_server::session::local::SessionError::InvalidEventId,
            ));
        }
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
}
