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
//! Two calls of one conversation running at once on two replicas both
//! change it; the second save finds the first's and merges, per key
//! ([`merge_state`]): discoveries, grants and Rule of Two properties are
//! added, and of the session state, what this replica's call changed
//! (each file read, the working directory, each value by key) is laid
//! over the other's. Merging, not a lease on the conversation: a lease
//! would run a conversation's calls one at a time across replicas,
//! adding a store round trip to each and a wait behind any slow call,
//! and a replica dying while holding it would stall the conversation for
//! the lease's length. Modifiers only ever add files and set keys, so a
//! per-key merge loses nothing; two calls setting one key at once end as
//! two concurrent calls do on one replica, with one of the values.
//!
//! A 2026-07-28 request has no session. Its conversation is named by a
//! handle in the request's `_meta` ([`CONVERSATION_META_KEY`]): the
//! server makes one up when a request names none, and hands it out in the
//! result's `_meta` once the conversation holds something (a grant, a
//! discovery, session state). The handle is 128 random bits, so it is as
//! hard to guess as a session id. A handle whose record expired starts
//! afresh, as an expired session would: nothing is granted that was not
//! granted again. When the server authenticates its callers (bearer
//! tokens), a conversation's record is bound to the caller that first
//! stored it: a handle sent by another caller is refused (a JSON-RPC
//! error), so a handle that leaks is no use without its token.
//!
//! Every name under which one conversation's data is kept starts with
//! its hash tag, `{<session id or handle>}` (Redis Cluster puts every key
//! with one tag in one slot).

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
    format!("{{{session}}}record")
}

/// The key under which rmcp's handshake of a session is kept.
fn handshake_key(session: &str) -> String {
    format!("{{{session}}}handshake")
}

/// The key under which a stateless conversation's record is kept.
fn conversation_key(handle: &str) -> String {
    format!("{{{handle}}}conversation")
}

/// The lease of a call (`request`: its id as JSON) of a conversation.
pub(crate) fn call_key(conversation: &str, request: &str) -> String {
    format!("{{{conversation}}}call:{request}")
}

/// Who sent a request, as the HTTP layer authenticated it: a digest of
/// a digest of its bearer token, as hex (what a record is bound to; the
/// store never holds what would pass the token check).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Caller(pub(crate) String);

/// The authenticated caller of a request that came over HTTP, if the
/// server checks tokens.
pub(crate) fn caller_of(
    context: &rmcp::service::RequestContext<rmcp::RoleServer>,
) -> Option<Caller> {
    context
        .extensions
        .get::<http::request::Parts>()?
        .extensions
        .get::<Caller>()
        .cloned()
}

/// Why a conversation's record was not loaded.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LoadError {
    /// The store failed: the request was not served and may be retried.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The conversation is bound to another caller.
    #[error(
        "the conversation `{handle}` belongs to another caller: a handle is bound to the bearer \
         token that started its conversation; leave `_meta.{CONVERSATION_META_KEY}` out to start \
         a new conversation"
    )]
    NotYours {
        /// The handle sent.
        handle: String,
    },
}

/// A call's answer when the store failed before it ran.
pub(crate) fn not_run(err: &dyn std::fmt::Display) -> rmcp::model::CallToolResult {
    rmcp::model::CallToolResult::error(vec![rmcp::model::ContentBlock::text(format!(
        "{err}; the call was not run and may be retried"
    ))])
}

impl LoadError {
    /// A call's answer when its record was not loaded: an error result
    /// when the store failed ([`not_run`]), a JSON-RPC error when the
    /// conversation is another caller's.
    pub(crate) fn into_call_answer(self) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        match self {
            LoadError::Store(err) => Ok(not_run(&err).into()),
            refused => Err(refused.into_error("")),
        }
    }

    /// The error a request refused for this gets: a store's failure says
    /// what may be retried (`retry`), a conversation of another caller is
    /// `invalid params`.
    pub(crate) fn into_error(self, retry: &str) -> rmcp::ErrorData {
        match self {
            LoadError::Store(err) => {
                rmcp::ErrorData::internal_error(format!("{err}; {retry}"), None)
            }
            refused @ LoadError::NotYours { .. } => {
                rmcp::ErrorData::invalid_params(refused.to_string(), None)
            }
        }
    }
}

/// The start of a bound record's bytes, before the record's own fields.
const OWNER_FIELD: &str = "{\"owner\":\"";

/// A record's bytes bound to `owner`: its JSON object with the owner as
/// its first field.
fn bind(record: &[u8], owner: Option<&str>) -> Vec<u8> {
    match (owner, record.split_first()) {
        (Some(owner), Some((b'{', rest))) => {
            let mut bytes = Vec::with_capacity(record.len() + owner.len() + 16);
            bytes.extend_from_slice(OWNER_FIELD.as_bytes());
            bytes.extend_from_slice(owner.as_bytes());
            bytes.extend_from_slice(b"\"");
            if rest.first() != Some(&b'}') {
                bytes.push(b',');
            }
            bytes.extend_from_slice(rest);
            bytes
        }
        _ => record.to_vec(),
    }
}

/// A stored record's owner, if bound, and the record's own bytes.
fn unbind(stored: &[u8]) -> (Option<String>, Vec<u8>) {
    let Some(rest) = stored.strip_prefix(OWNER_FIELD.as_bytes()) else {
        return (None, stored.to_vec());
    };
    let Some(end) = rest.iter().position(|b| *b == b'"') else {
        return (None, stored.to_vec());
    };
    let owner = String::from_utf8_lossy(&rest[..end]).into_owned();
    let mut record = vec![b'{'];
    record.extend_from_slice(
        rest[end + 1..]
            .strip_prefix(b",")
            .unwrap_or(&rest[end + 1..]),
    );
    (Some(owner), record)
}

/// The session state after this replica's call and another's ran at once
/// from `base`: theirs, with what `mine` changed since `base` laid over
/// it, per file and per key (see the module docs for why a merge).
pub(crate) fn merge_state(
    base: &crate::session::SessionState,
    mine: &crate::session::SessionState,
    theirs: &crate::session::SessionState,
) -> crate::session::SessionState {
    let mut merged = theirs.clone();
    for file in mine.files_read() {
        if !base.files_read().contains(file) {
            merged.mark_read(file.clone());
        }
    }
    if mine.cwd() != base.cwd()
        && let Some(cwd) = mine.cwd()
    {
        merged.set_cwd(cwd);
    }
    for (key, value) in mine.values() {
        if base.get(key) != Some(value) {
            merged.set(key.clone(), value.clone());
        }
    }
    merged
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

    /// The session id or the handle: what errors and leases name.
    pub(crate) fn id(&self) -> &str {
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
    /// The record's own bytes (without its owner).
    bytes: Option<Vec<u8>>,
    /// The caller the stored record is bound to, if any.
    owner: Option<String>,
    /// When this connection last wrote the record.
    written: Option<std::time::Instant>,
}

impl SharedStore {
    /// Brings `session` up to the stored record, when it moved since
    /// `synced`. A stateless conversation bound to a caller other than
    /// `caller` is refused.
    pub(crate) async fn load(
        &self,
        of: &RecordOf,
        synced: &tokio::sync::Mutex<Synced>,
        session: &Session,
        caller: Option<&Caller>,
    ) -> Result<(), LoadError> {
        if matches!(of, RecordOf::Conversation { fresh: true, .. }) {
            return Ok(());
        }
        let stored = self.store.load(&of.key()).await?;
        let mut synced = synced.lock().await;
        adopt(stored, of.id(), &mut synced, session)?;
        match (&synced.owner, of) {
            (Some(owner), RecordOf::Conversation { handle, .. })
                if caller.is_none_or(|caller| caller.0 != *owner) =>
            {
                Err(LoadError::NotYours {
                    handle: handle.clone(),
                })
            }
            _ => Ok(()),
        }
    }

    /// Saves the record when it changed; a session's unchanged record
    /// also when its expiry is due for renewal (an eighth of the ttl after
    /// this connection last wrote it), so an active session never
    /// expires. When another replica saved it in between, its record is
    /// merged in (its discoveries and grants added, its state merged per
    /// key, [`merge_state`]) and the save tried again, a few times. A
    /// stateless conversation's record is bound to the caller that first
    /// stores it (`caller`, when the server checks tokens). Returns
    /// whether anything is stored.
    pub(crate) async fn save(
        &self,
        of: &RecordOf,
        synced: &tokio::sync::Mutex<Synced>,
        session: &Session,
        caller: Option<&Caller>,
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
            let owner = match of {
                RecordOf::Conversation { .. } => {
                    synced.owner.clone().or_else(|| caller.map(|c| c.0.clone()))
                }
                RecordOf::Session(_) => None,
            };
            let stored = bind(&bytes, owner.as_deref());
            if stored.len() > self.limits.max_bytes {
                return Err(StoreError::TooLarge {
                    session: of.id().to_owned(),
                    bytes: stored.len(),
                    limit: self.limits.max_bytes,
                });
            }
            match self
                .store
                .save(&key, &stored, synced.revision, self.limits.ttl)
                .await
            {
                Ok(revision) => {
                    synced.revision = Some(revision);
                    synced.bytes = Some(bytes);
                    synced.owner = owner;
                    synced.written = Some(std::time::Instant::now());
                    if renew && let RecordOf::Session(id) = of {
                        self.renew_handshake(id).await;
                    }
                    return Ok(true);
                }
                Err(StoreError::Conflict { .. }) => {
                    // Another replica saved first: take in what it stored,
                    // then lay this replica's changes over its state.
                    let base = match &synced.bytes {
                        Some(base) => SessionRecord::decode(of.id(), base)?.state,
                        None => crate::session::SessionState::default(),
                    };
                    let stored = self.store.load(&key).await?;
                    // Read after the load, with no await before `adopt`:
                    // a call of this replica that changed the session
                    // meanwhile is in `mine`, not lost under the other's.
                    let mine = session.state();
                    adopt(stored, of.id(), &mut synced, session)?;
                    session.replace_state(merge_state(&base, &mine, &session.state()));
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
        synced.owner = None;
        return Ok(());
    };
    if synced.revision != Some(stored.revision) {
        let (owner, bytes) = unbind(&stored.bytes);
        session.restore(
            SessionRecord::decode(session_id, &bytes)?,
            SystemTime::now(),
        );
        synced.revision = Some(stored.revision);
        synced.bytes = Some(bytes);
        synced.owner = owner;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::SessionState;
    use serde_json::json;

    fn state(files: &[&str], values: &[(&str, i64)]) -> SessionState {
        let mut state = SessionState::default();
        for file in files {
            state.mark_read(*file);
        }
        for (key, value) in values {
            state.set(*key, json!(value));
        }
        state
    }

    /// Two calls ran at once from one record, each changing its own key:
    /// both changes survive, and what only the other changed is kept.
    #[test]
    fn a_merge_keeps_both_calls_changes_per_key() {
        let base = state(&["a.rs"], &[("todo", 1), ("plan", 1)]);
        let mine = state(&["a.rs", "b.rs"], &[("todo", 2), ("plan", 1)]);
        let mut theirs = state(&["a.rs", "c.rs"], &[("todo", 1), ("plan", 3)]);
        theirs.set_cwd("/work");
        let merged = merge_state(&base, &mine, &theirs);
        assert_eq!(merged.get("todo"), Some(&json!(2)), "mine");
        assert_eq!(merged.get("plan"), Some(&json!(3)), "theirs");
        assert_eq!(
            merged.files_read().iter().collect::<Vec<_>>(),
            ["a.rs", "b.rs", "c.rs"]
        );
        assert_eq!(merged.cwd(), Some("/work"), "only theirs moved it");
    }

    #[test]
    fn a_bound_record_reads_back_with_its_owner() {
        let record = br#"{"format":1,"discovered":[]}"#;
        let bound = bind(record, Some("ab12"));
        assert_eq!(bound, br#"{"owner":"ab12","format":1,"discovered":[]}"#);
        assert_eq!(unbind(&bound), (Some("ab12".to_owned()), record.to_vec()));
        assert_eq!(unbind(record), (None, record.to_vec()));
        assert_eq!(bind(b"{}", Some("ab")), br#"{"owner":"ab"}"#);
        assert_eq!(
            unbind(br#"{"owner":"ab"}"#),
            (Some("ab".to_owned()), b"{}".to_vec())
        );
    }

    /// Every name of one conversation starts with its hash tag, so a
    /// clustered store keeps them in one slot (`registry-redis` checks
    /// that its keys keep the tag).
    #[test]
    fn one_conversations_names_share_its_hash_tag() {
        let id = "0f6e1c1e-5b7d-4c1e-9a43-2a4c6d0e8b11";
        for name in [
            record_key(id),
            handshake_key(id),
            conversation_key(id),
            call_key(id, "7"),
            call_key(id, "\"}{\""),
        ] {
            assert!(name.starts_with(&format!("{{{id}}}")), "{name}");
        }
    }
}
