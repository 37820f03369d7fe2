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

use std::sync::Arc;
use std::time::SystemTime;

use rmcp::transport::streamable_http_server::session::store::{
    SessionState as Handshake, SessionStore as HandshakeStore, SessionStoreError,
};

use crate::permission::PermissionPipeline;
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

/// Where one connection stands with the store: the session it serves and
/// the revision of the record it last loaded or saved.
#[derive(Debug, Default)]
pub(crate) struct Synced {
    revision: Option<u64>,
}

impl SharedStore {
    /// Brings `session` and `pipeline` up to the stored record of
    /// `session_id`, when it moved since `synced`.
    pub(crate) async fn load(
        &self,
        session_id: &str,
        synced: &tokio::sync::Mutex<Synced>,
        session: &Session,
        pipeline: &PermissionPipeline,
    ) -> Result<(), StoreError> {
        let stored = self.store.load(&record_key(session_id)).await?;
        let mut synced = synced.lock().await;
        adopt(stored, session_id, &mut synced, session, pipeline)
    }

    /// Saves the record of `session_id`. When another replica saved it in
    /// between, its record is merged in (its discoveries and grants added,
    /// its state taken) and the save tried again, a few times.
    pub(crate) async fn save(
        &self,
        session_id: &str,
        synced: &tokio::sync::Mutex<Synced>,
        session: &Session,
        pipeline: &PermissionPipeline,
    ) -> Result<(), StoreError> {
        let key = record_key(session_id);
        let mut synced = synced.lock().await;
        for _ in 0..4 {
            let record = SessionRecord::capture(session, pipeline, SystemTime::now());
            let bytes = record.encode(session_id, &self.limits)?;
            match self
                .store
                .save(&key, &bytes, synced.revision, self.limits.ttl)
                .await
            {
                Ok(revision) => {
                    synced.revision = Some(revision);
                    return Ok(());
                }
                Err(StoreError::Conflict { .. }) => {
                    let stored = self.store.load(&key).await?;
                    adopt(stored, session_id, &mut synced, session, pipeline)?;
                }
                Err(other) => return Err(other),
            }
        }
        Err(StoreError::Conflict {
            session: session_id.to_owned(),
            expected: synced.revision,
            found: None,
        })
    }
}

/// Takes in the stored record, when its revision is not the one `synced`
/// last saw; no record means none is held.
fn adopt(
    stored: Option<crate::session::Stored>,
    session_id: &str,
    synced: &mut Synced,
    session: &Session,
    pipeline: &PermissionPipeline,
) -> Result<(), StoreError> {
    let Some(stored) = stored else {
        synced.revision = None;
        return Ok(());
    };
    if synced.revision != Some(stored.revision) {
        SessionRecord::decode(session_id, &stored.bytes)?.restore(
            session,
            pipeline,
            SystemTime::now(),
        );
        synced.revision = Some(stored.revision);
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
