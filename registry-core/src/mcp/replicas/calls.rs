//! Calls lost with their replica: every call ends, whichever replica
//! dies.
//!
//! A replica running a `tools/call` of a conversation kept in a shared
//! store holds a lease on it ([`SharedStore::run_call`]): taken before the
//! tool runs, renewed every [`RENEW`] while it runs, live for [`LEASE`]
//! after each renewal. The ids of the events of the call's stream name the
//! call ([`CallTag`], after a `~`), so a replica that a client resumes the
//! stream on (`Last-Event-ID`) knows which request it answers. When the
//! stream's log holds no answer, the lease says what became of the call
//! ([`fate`]): still running (the resumed stream waits for its answer),
//! lost with its replica (the lease lapsed: it had started, so it may
//! have run), or never started (no lease: it did not run). A lost or
//! never-started call is answered on the resumed stream
//! ([`lost_answer`]): an error result for a `tools/call`, saying which,
//! so the client's call ends within about [`LEASE`] + [`RENEW`] of the
//! replica's death instead of at its own timeout.

use std::time::Duration;

use rmcp::model::{
    CallToolResult, ContentBlock, ErrorData, RequestId, ServerJsonRpcMessage, ServerResult,
};

use crate::mcp::shared::{RecordOf, SharedStore};
use crate::session::StoreError;

/// How long a call's lease lives after each renewal. A replica that dies
/// is known lost within this long of its last renewal.
pub(crate) const LEASE: Duration = Duration::from_secs(3);
/// How often a running call's lease is renewed, and how often a stream
/// resumed onto a running call looks at the lease again. A third of
/// [`LEASE`], so two renewals may fail (a slow store) before the lease
/// lapses under a call that still runs.
pub(crate) const RENEW: Duration = Duration::from_secs(1);
/// How long a lapsed lease is remembered: a client resumes within
/// seconds (its SDK's retry), and a call's record of it is small.
const REMEMBERED: Duration = Duration::from_secs(120);

/// Which request a stream answers: its conversation (a session id or a
/// stateless conversation's handle), the request's id as JSON, and what
/// kind of request it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CallTag {
    conversation: String,
    /// The request id, as JSON (`7`, `"abc"`).
    request: String,
    kind: Kind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A `tools/call` of a session (2025-11-25 and before).
    SessionCall,
    /// A `tools/call` of a stateless (2026-07-28) conversation.
    StatelessCall,
    /// Any other request of a session: no lease, answered by an error.
    SessionRequest,
}

impl Kind {
    fn letter(self) -> char {
        match self {
            Kind::SessionCall => 'c',
            Kind::StatelessCall => 'n',
            Kind::SessionRequest => 'r',
        }
    }

    fn of(letter: &str) -> Option<Self> {
        match letter {
            "c" => Some(Kind::SessionCall),
            "n" => Some(Kind::StatelessCall),
            "r" => Some(Kind::SessionRequest),
            _ => None,
        }
    }
}

impl CallTag {
    /// The request `id` of `conversation`: a `tools/call` when `call`, on a
    /// session unless `stateless`.
    pub(crate) fn new(conversation: &str, id: &RequestId, call: bool, stateless: bool) -> Self {
        let kind = match (call, stateless) {
            (true, false) => Kind::SessionCall,
            (true, true) => Kind::StatelessCall,
            (false, _) => Kind::SessionRequest,
        };
        CallTag {
            conversation: conversation.to_owned(),
            request: serde_json::to_string(id).unwrap_or_default(),
            kind,
        }
    }

    /// The conversation the request is of.
    pub(crate) fn conversation(&self) -> &str {
        &self.conversation
    }

    /// The lease's name: under the conversation's hash tag, as every name
    /// of one conversation is (see `shared`).
    fn lease_name(&self) -> String {
        crate::mcp::shared::call_key(&self.conversation, &self.request)
    }

    /// The tag as the end of an event id: `~<kind>~<conversation>~<id>`.
    /// Neither a stream id nor a conversation holds a `~`, so the first
    /// one starts the tag, whatever the request id holds.
    pub(crate) fn suffix(&self) -> String {
        format!(
            "~{}~{}~{}",
            self.kind.letter(),
            self.conversation,
            self.request
        )
    }

    /// The request id to answer.
    fn request_id(&self) -> Option<RequestId> {
        serde_json::from_str(&self.request).ok()
    }

    /// Whether `message` answers this request (a response or an error with
    /// its id).
    pub(crate) fn is_answered_by(&self, message: &ServerJsonRpcMessage) -> bool {
        let id = match message {
            ServerJsonRpcMessage::Response(response) => Some(&response.id),
            ServerJsonRpcMessage::Error(error) => error.id.as_ref(),
            _ => None,
        };
        id.is_some_and(|id| serde_json::to_string(id).is_ok_and(|json| json == self.request))
    }
}

/// An event id split into the id the event store gave and the tag naming
/// its request, if it carries one.
pub(crate) fn split_event_id(id: &str) -> (&str, Option<CallTag>) {
    let Some((base, tag)) = id.split_once('~') else {
        return (id, None);
    };
    let parsed = tag.split_once('~').and_then(|(kind, rest)| {
        let (conversation, request) = rest.split_once('~')?;
        Some(CallTag {
            conversation: conversation.to_owned(),
            request: request.to_owned(),
            kind: Kind::of(kind)?,
        })
    });
    (base, parsed)
}

/// The lease of the call `context` asks for, when its conversation is
/// kept in a store (`store`) shared with other replicas (`replica`: this
/// one's name, `None` without replicas): the tag naming the call, and the
/// guard that renews the lease until the call ends.
pub(crate) async fn lease(
    store: Option<(&RecordOf, &SharedStore)>,
    context: &rmcp::service::RequestContext<rmcp::RoleServer>,
    replica: Option<&str>,
) -> Result<Option<(CallTag, Running)>, StoreError> {
    let (Some((of, store)), Some(replica)) = (store, replica) else {
        return Ok(None);
    };
    let stateless = crate::mcp::shared::is_stateless(context);
    let tag = CallTag::new(of.id(), &context.id, true, stateless);
    let running = store.run_call(&tag, replica).await?;
    Ok(Some((tag, running)))
}

/// A progress notification of a call: named by `tag` (a stateless
/// call's) for the event store, so the ids of its stream's events name
/// the call too.
pub(crate) fn progress(
    token: rmcp::model::ProgressToken,
    step: u32,
    message: String,
    tag: Option<&CallTag>,
) -> rmcp::model::ServerNotification {
    let params =
        rmcp::model::ProgressNotificationParam::new(token, f64::from(step)).with_message(message);
    let mut note = rmcp::model::ProgressNotification::new(params);
    if let Some(tag) = tag {
        note.extensions.insert(tag.clone());
    }
    note.into()
}

/// A call's lease, renewed until this is dropped (when the call has
/// ended, or was cancelled).
pub(crate) struct Running {
    renewing: tokio::task::JoinHandle<()>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.renewing.abort();
    }
}

impl SharedStore {
    /// Takes the lease on the call `tag` for `holder` (this replica),
    /// before the call runs: a call whose lease cannot be taken is not run,
    /// since a replica that resumed its stream could not tell whether it
    /// had. The lease is renewed every [`RENEW`] until the returned guard
    /// is dropped, each renewal given at most [`RENEW`] (a store slower
    /// than that must not hold the next renewal back); a renewal that
    /// fails or times out is logged, and when none lands for a whole
    /// [`LEASE`] the lease lapses and a resumed stream reports the call
    /// lost, though it runs.
    pub(crate) async fn run_call(
        &self,
        tag: &CallTag,
        holder: &str,
    ) -> Result<Running, StoreError> {
        let name = tag.lease_name();
        self.store.hold(&name, holder, LEASE, REMEMBERED).await?;
        let store = std::sync::Arc::clone(&self.store);
        let holder = holder.to_owned();
        let renewing = tokio::spawn(async move {
            let mut every = tokio::time::interval(RENEW);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            every.tick().await;
            loop {
                every.tick().await;
                let renewed =
                    tokio::time::timeout(RENEW, store.hold(&name, &holder, LEASE, REMEMBERED));
                match renewed.await {
                    Ok(Ok(())) => {}
                    Ok(Err(err)) => tracing::warn!(%err, "a running call's lease was not renewed"),
                    Err(_) => tracing::warn!(
                        "a running call's lease was not renewed: the store took over {RENEW:?}"
                    ),
                }
            }
        });
        Ok(Running { renewing })
    }
}

/// What became of a request whose stream holds no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fate {
    /// Its replica holds the lease: the answer is still to come.
    Running,
    /// The lease lapsed: its replica (`holder`) is gone, and the call had
    /// started, so it may have run.
    Lost { holder: String },
    /// No replica took the call's lease: it did not run (or the request is
    /// not a call, which holds no lease).
    NeverStarted,
}

/// What the store says of the request `tag`.
pub(crate) async fn fate(store: &SharedStore, tag: &CallTag) -> Result<Fate, StoreError> {
    if tag.kind == Kind::SessionRequest {
        return Ok(Fate::NeverStarted);
    }
    Ok(match store.store.lease(&tag.lease_name()).await? {
        Some(lease) if lease.live => Fate::Running,
        Some(lease) => Fate::Lost {
            holder: lease.holder,
        },
        None => Fate::NeverStarted,
    })
}

/// The answer a replica gives for a request lost with its replica (or
/// unanswerable because the store failed, `unknown`): for a `tools/call`,
/// an error result saying what happened and whether the call may have
/// run; for another request, a JSON-RPC error saying the same.
pub(crate) fn lost_answer(tag: &CallTag, fate: &Fate) -> Option<ServerJsonRpcMessage> {
    let id = tag.request_id()?;
    let text = match fate {
        Fate::Lost { holder } => format!(
            "the server replica running this call ({holder}) was lost before it answered \
             (its lease lapsed); the call had started, so it may have run: check its effects \
             before retrying"
        ),
        Fate::NeverStarted => "the server replica that took this request was lost before it \
                               started the call; the call did not run and may be retried"
            .to_owned(),
        Fate::Running => return None,
    };
    Some(answer(tag, id, text))
}

/// The answer for a resumed stream that could not be followed (`err`:
/// the store failed): whether the call ran is unknown.
pub(crate) fn unknown_answer(
    tag: &CallTag,
    err: &dyn std::fmt::Display,
) -> Option<ServerJsonRpcMessage> {
    let id = tag.request_id()?;
    let text = format!(
        "this call's stream could not be resumed: {err}; the call may have run (check its \
         effects before retrying)"
    );
    Some(answer(tag, id, text))
}

fn answer(tag: &CallTag, id: RequestId, text: String) -> ServerJsonRpcMessage {
    match tag.kind {
        Kind::SessionCall | Kind::StatelessCall => {
            let mut result =
                ServerResult::CallToolResult(CallToolResult::error(vec![ContentBlock::text(text)]));
            if tag.kind == Kind::SessionCall {
                // As rmcp answers a peer of a revision before 2026-07-28.
                result.strip_result_type_for_legacy_peer();
            }
            ServerJsonRpcMessage::response(result, id)
        }
        Kind::SessionRequest => {
            ServerJsonRpcMessage::error(ErrorData::internal_error(text, None), Some(id))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{MemorySessionStore, StoreLimits};
    use rmcp::model::NumberOrString;
    use std::sync::Arc;

    #[test]
    fn a_tag_survives_an_event_id_whatever_the_request_id_holds() {
        for id in [
            NumberOrString::Number(7),
            NumberOrString::String("a~b#c}{\"".into()),
        ] {
            let tag = CallTag::new("0f6e1c1e", &id, true, false);
            let event = format!("stream-1#3{}", tag.suffix());
            let (base, back) = split_event_id(&event);
            assert_eq!(base, "stream-1#3");
            assert_eq!(back.as_ref(), Some(&tag));
            assert_eq!(back.unwrap().request_id(), Some(id));
        }
        assert_eq!(split_event_id("stream-1#primed"), ("stream-1#primed", None));
        assert_eq!(split_event_id("s#1~x~y~1").1, None, "an unknown kind");
    }

    /// The lease tells a running call from one lost with its replica and
    /// from one never started, on the in-memory store as on Redis.
    #[tokio::test(start_paused = true)]
    async fn a_lease_lapses_when_its_replica_stops_renewing() {
        let store = SharedStore {
            store: Arc::new(MemorySessionStore::new()),
            limits: StoreLimits::default(),
        };
        let tag = CallTag::new("conv", &NumberOrString::Number(1), true, false);
        assert_eq!(fate(&store, &tag).await, Ok(Fate::NeverStarted));
        let running = store.run_call(&tag, "replica-a").await.unwrap();
        assert_eq!(fate(&store, &tag).await, Ok(Fate::Running));
        // Renewed while the call runs: live long past one lease.
        for _ in 0..5 {
            tokio::time::sleep(LEASE).await;
            assert_eq!(fate(&store, &tag).await, Ok(Fate::Running));
        }
        // The replica dies (its renewals stop): lost within one lease.
        drop(running);
        tokio::time::sleep(LEASE + Duration::from_millis(10)).await;
        let lost = fate(&store, &tag).await.unwrap();
        assert_eq!(
            lost,
            Fate::Lost {
                holder: "replica-a".into()
            }
        );
        let answer = serde_json::to_value(lost_answer(&tag, &lost).unwrap()).unwrap();
        assert_eq!(answer["id"], 1);
        assert_eq!(answer["result"]["isError"], true);
        let text = answer["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("was lost") && text.contains("may have run"),
            "{text}"
        );
        assert!(
            answer["result"].get("resultType").is_none(),
            "a 2025 peer's shape"
        );

        let other = CallTag::new("conv", &NumberOrString::Number(2), false, false);
        let refused =
            serde_json::to_value(lost_answer(&other, &Fate::NeverStarted).unwrap()).unwrap();
        assert_eq!(refused["id"], 2);
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("did not run")
        );
    }
}
