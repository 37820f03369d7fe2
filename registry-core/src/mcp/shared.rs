//! Serving one conversation from any replica: each HTTP session's
//! [`SessionRecord`] lives in a [`SessionStore`] shared by the replicas,
//! and so does rmcp's record of the session's handshake, so a request
//! that lands on a replica that never saw the session is answered as the
//! first replica would have.
//!
//! Per `tools/call` of a session, the connection loads the session's
//! record (when its revision moved since this replica last saw it,
//! restoring discoveries, state and grants), runs the call, and saves
//! the record again with a compare-and-set. A store that cannot be read
//! fails the call before it runs, with an error result naming the store:
//! never a silent fresh session that has lost its grants.
//!
//! A 2026-07-28 request has no session. Its conversation is named by a
//! handle in the request's `_meta` ([`CONVERSATION_META_KEY`]): the
//! server makes one up when a request names none, and hands it out in the
//! result's `_meta` once the conversation holds something (a grant, a
//! discovery, session state). The handle is 128 random bits, so it is as
//! hard to guess as a session id. A handle whose record expired starts
//! afresh, as an expired session would: nothing is granted that was not
//! granted again.

use std::sync::Arc;
use std::time::SystemTime;

use rmcp::transport::streamable_http_server::session::store::{
    SessionState as Handshake, SessionStore as HandshakeStore, SessionStoreError,
};

use crate::session::{Session, SessionRecord, SessionStore, StoreError, StoreLimits};

/// A store and its limits, as a server shares them between replicas.
#[derive(Clone)]
pub(crate) struct SharedStore {
    pub(crate) store: Arc<dyn SessionStore>,
    pub(crate) limits: StoreLimits,
}

/// The key under which a session's record is kept.
fn record_key(session: &str) -> String {
    format!("record:{session}")
}

/// The key under which rmcp's handshake of a session is kept.
fn handshake_key(session: &str) -> String {
    format!("handshake:{session}")
}

/// The key under which a stateless conversation's record is kept.
fn conversation_key(handle: &str) -> String {
    format!("conversation:{handle}")
}

/// The request `_meta` key naming a stateless (2026-07-28) request's
/// conversation, and the result `_meta` key that hands it out.
pub(crate) const CONVERSATION_META_KEY: &str = "tool-registry.dev/conversation";

/// Whose record a request reads and writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RecordOf {
    /// A session of a revision before 2026-07-28, by its `mcp-session-id`.
    Session(String),
    /// A stateless request's conversation, by the handle this server gave
    /// it; `fresh` when the handle was made for this request (nothing is
    /// stored under it yet, and it is handed out only once there is).
    Conversation { handle: String, fresh: bool },
}

impl RecordOf {
    fn key(&self) -> String {
        match self {
            RecordOf::Session(id) => record_key(id),
            RecordOf::Conversation { handle, .. } => conversation_key(handle),
        }
    }

    /// The id errors name.
    fn id(&self) -> &str {
        match self {
            RecordOf::Session(id) | RecordOf::Conversation { handle: id, .. } => id,
        }
    }

    /// The handle to hand back in the result's `_meta`, if any.
    pub(crate) fn handle(&self) -> Option<&str> {
        match self {
            RecordOf::Conversation { handle, .. } => Some(handle),
            RecordOf::Session(_) => None,
        }
    }
}

/// Where one connection stands with the store: the revision of the
/// record it last loaded or saved, and the bytes it had then (a record
/// that did not change is not written again).
#[derive(Debug, Default)]
pub(crate) struct Synced {
    revision: Option<u64>,
    bytes: Option<Vec<u8>>,
    /// When this connection last wrote the record.
    written: Option<std::time::Instant>,
}

impl SharedStore {
    /// Brings `session` up to the stored record, when it
    /// moved since `synced`.
    pub(crate) async fn load(
        &self,
        of: &RecordOf,
        synced: &tokio::sync::Mutex<Synced>,
        session: &Session,
    ) -> Result<(), StoreError> {
        if matches!(of, RecordOf::Conversation { fresh: true, .. }) {
            return Ok(());
        }
        let stored = self.store.load(&of.key()).await?;
        let mut synced = synced.lock().await;
        adopt(stored, of.id(), &mut synced, session)
    }

    /// Saves the record when it changed; a session's unchanged record
    /// also when its expiry is due for renewal (an eighth of the ttl after
    /// this connection last wrote it), so an active session never
    /// expires. When another replica saved it in between, its record is
    /// merged in (its discoveries and grants added, its state taken) and
    /// the save tried again, a few times. Returns whether anything is
    /// stored.
    pub(crate) async fn save(
        &self,
        of: &RecordOf,
        synced: &tokio::sync::Mutex<Synced>,
        session: &Session,
    ) -> Result<bool, StoreError> {
        let key = of.key();
        let mut synced = synced.lock().await;
        for _ in 0..4 {
            let record = session.record(SystemTime::now());
            let bytes = record.encode(of.id(), &self.limits)?;
            let unchanged = match (&synced.bytes, of) {
                (Some(before), _) => *before == bytes,
                (None, RecordOf::Conversation { .. }) => bytes == self.empty(of.id())?,
                (None, RecordOf::Session(_)) => false,
            };
            // A session's unchanged record is written again only to renew
            // its expiry, once an eighth of it has passed.
            let renew = matches!(of, RecordOf::Session(_))
                && synced
                    .written
                    .is_none_or(|at| at.elapsed() >= self.limits.ttl / 8);
            if unchanged && !renew {
                return Ok(synced.revision.is_some());
            }
            match self
                .store
                .save(&key, &bytes, synced.revision, self.limits.ttl)
                .await
            {
                Ok(revision) => {
                    synced.revision = Some(revision);
                    synced.bytes = Some(bytes);
                    synced.written = Some(std::time::Instant::now());
                    if renew && let RecordOf::Session(id) = of {
                        self.renew_handshake(id).await;
                    }
                    return Ok(true);
                }
                Err(StoreError::Conflict { .. }) => {
                    let stored = self.store.load(&key).await?;
                    adopt(stored, of.id(), &mut synced, session)?;
                }
                Err(other) => return Err(other),
            }
        }
        Err(StoreError::Conflict {
            session: of.id().to_owned(),
            expected: synced.revision,
            found: None,
        })
    }

    /// Writes the session's handshake again, renewing its expiry with the
    /// record's (a session active for longer than the ttl must stay
    /// restorable on every replica). A failure only means a replica that
    /// never saw the session may not restore it later.
    async fn renew_handshake(&self, session: &str) {
        let key = handshake_key(session);
        let renewed = async {
            if let Some(stored) = self.store.load(&key).await? {
                self.store
                    .save(&key, &stored.bytes, Some(stored.revision), self.limits.ttl)
                    .await?;
            }
            Ok::<(), StoreError>(())
        };
        if let Err(err) = renewed.await {
            tracing::warn!(%err, "a session's handshake was not renewed");
        }
    }

    /// The bytes of a conversation that holds nothing yet.
    fn empty(&self, id: &str) -> Result<Vec<u8>, StoreError> {
        Session::new()
            .record(SystemTime::now())
            .encode(id, &self.limits)
    }
}

/// Takes in the stored record, when its revision is not the one `synced`
/// last saw; no record means none is held.
fn adopt(
    stored: Option<crate::session::Stored>,
    session_id: &str,
    synced: &mut Synced,
    session: &Session,
) -> Result<(), StoreError> {
    let Some(stored) = stored else {
        synced.revision = None;
        synced.bytes = None;
        return Ok(());
    };
    if synced.revision != Some(stored.revision) {
        session.restore(
            SessionRecord::decode(session_id, &stored.bytes)?,
            SystemTime::now(),
        );
        synced.revision = Some(stored.revision);
        synced.bytes = Some(stored.bytes);
    }
    Ok(())
}

/// rmcp's record of each session's handshake, in the same store: what
/// lets a replica that never saw a session answer its requests.
pub(crate) struct Handshakes(pub(crate) SharedStore);

#[async_trait::async_trait]
impl HandshakeStore for Handshakes {
    async fn load(&self, session_id: &str) -> Result<Option<Handshake>, SessionStoreError> {
        let Some(stored) = self.0.store.load(&handshake_key(session_id)).await? else {
            return Ok(None);
        };
        Ok(Some(serde_json::from_slice(&stored.bytes)?))
    }

    async fn store(&self, session_id: &str, state: &Handshake) -> Result<(), SessionStoreError> {
        let key = handshake_key(session_id);
        let bytes = serde_json::to_vec(state)?;
        // The handshake is written once per session; a second write (a
        // restore re-storing it) replaces it whatever its revision.
        let current = self.0.store.load(&key).await?.map(|s| s.revision);
        self.0
            .store
            .save(&key, &bytes, current, self.0.limits.ttl)
            .await?;
        Ok(())
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        self.0.store.delete(&handshake_key(session_id)).await?;
        self.0.store.delete(&record_key(session_id)).await?;
        Ok(())
    }
}

/// Whose record a request reads: its session's, for a legacy HTTP
/// session; its conversation's, for a stateless request (the handle it
/// names in `_meta`, or a new one); none for stdio. A handle this server
/// could not have given is an error naming the key.
pub(crate) fn record_of(
    context: &rmcp::service::RequestContext<rmcp::RoleServer>,
) -> Result<Option<RecordOf>, String> {
    if let Some(id) = session_id(context) {
        return Ok(Some(RecordOf::Session(id)));
    }
    if !is_stateless(context) {
        return Ok(None);
    }
    match context.meta.get(CONVERSATION_META_KEY) {
        None => Ok(Some(RecordOf::Conversation {
            handle: uuid::Uuid::new_v4().simple().to_string(),
            fresh: true,
        })),
        Some(serde_json::Value::String(handle))
            if handle.len() == 32 && handle.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            Ok(Some(RecordOf::Conversation {
                handle: handle.to_ascii_lowercase(),
                fresh: false,
            }))
        }
        Some(other) => Err(format!(
            "`_meta.{CONVERSATION_META_KEY}` is {other}, not a conversation handle this server gave \
             (32 hex digits); leave it out to start a new conversation"
        )),
    }
}

/// Whether the request negotiated 2026-07-28 or later, which has no
/// sessions (each request is served on its own).
pub(crate) fn is_stateless(context: &rmcp::service::RequestContext<rmcp::RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str())
}

/// The MCP session id of a request that came over HTTP, if any.
pub(crate) fn session_id(
    context: &rmcp::service::RequestContext<rmcp::RoleServer>,
) -> Option<String> {
    context
        .extensions
        .get::<http::request::Parts>()?
        .headers
        .get("mcp-session-id")?
        .to_str()
        .ok()
        .map(str::to_owned)
}
