//! Where a conversation's state lives between requests when any of
//! several server replicas may answer the next one.
//!
//! A [`SessionRecord`] is what a conversation accumulates that the
//! registry keeps: the deferred tools it discovered (in discovery order),
//! its [`SessionState`] (what context modifiers changed), its
//! allow-always grants, each with the moment it lapses, and the calls that
//! brought it Rule of Two properties. The record is
//! versioned ([`SessionRecord::FORMAT`]) and bounded: [`StoreLimits`] caps its
//! encoded size and how long a store keeps it.
//!
//! A [`SessionStore`] holds records as bytes under a session id, with a
//! revision so two replicas writing one session cannot silently overwrite
//! each other ([`SessionStore::save`] is a compare-and-set).
//! [`MemorySessionStore`] is the in-process default; a shared backend
//! (Redis, in the `registry-redis` crate) implements the same trait.
//! Beside records, a store keeps logs (appended by one replica, read by
//! another, with a watch that says when one grows, so nobody polls) and
//! leases ([`Lease`]: who holds a name, and whether they still renew it,
//! so a replica can tell a call still running elsewhere from one lost
//! with its replica).
//!
//! Failing closed: a store that cannot be read is an error
//! ([`StoreError`]), never an empty record: a session silently restarted
//! from nothing would lose its grants and discoveries, and a caller
//! cannot tell that from a new session. A grant restored after it lapsed
//! is dropped on restore, and one that lapses while held stops answering.
//! The session writes and restores its own record ([`Session::record`],
//! [`Session::restore`]).

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::SessionState;
use crate::permission::{ExposedBy, GrantRecord};

/// One conversation's state as a store holds it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionRecord {
    /// [`SessionRecord::FORMAT`] when written by this build.
    pub format: u32,
    /// Discovered deferred tools, in discovery order.
    pub discovered: Vec<String>,
    /// What context modifiers changed.
    pub state: SessionState,
    /// Allow-always grants still live when the record was taken.
    pub grants: Vec<GrantRecord>,
    /// The calls that brought Rule of Two properties (a few per
    /// property). Absent in records written before the rule existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exposed_by: Vec<ExposedBy>,
    /// The durable turn waiting for a person (its id), if one is: the one
    /// a resume may finish. Absent when none waits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_turn: Option<String>,
}

impl SessionRecord {
    /// The record format this build writes and reads. A record of another
    /// format is refused ([`StoreError::Format`]) rather than guessed at.
    pub const FORMAT: u32 = 1;

    /// The record as bytes, refused when larger than `limits` allow.
    pub fn encode(&self, session: &str, limits: &StoreLimits) -> Result<Vec<u8>, StoreError> {
        // Serializing plain data into a `Vec` cannot fail; say so if it did.
        let bytes = serde_json::to_vec(self).map_err(|err| StoreError::Corrupt {
            session: session.to_owned(),
            message: err.to_string(),
        })?;
        if bytes.len() > limits.max_bytes {
            return Err(StoreError::TooLarge {
                session: session.to_owned(),
                bytes: bytes.len(),
                limit: limits.max_bytes,
            });
        }
        Ok(bytes)
    }

    /// Reads a record written by [`encode`](Self::encode); another format
    /// or damaged bytes are an error naming the session.
    pub fn decode(session: &str, bytes: &[u8]) -> Result<Self, StoreError> {
        #[derive(Deserialize)]
        struct Header {
            format: u32,
        }
        let corrupt = |err: serde_json::Error| StoreError::Corrupt {
            session: session.to_owned(),
            message: err.to_string(),
        };
        let Header { format } = serde_json::from_slice(bytes).map_err(corrupt)?;
        if format != SessionRecord::FORMAT {
            return Err(StoreError::Format {
                session: session.to_owned(),
                found: format,
                supported: SessionRecord::FORMAT,
            });
        }
        serde_json::from_slice(bytes).map_err(corrupt)
    }
}

/// How much a store keeps, and for how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreLimits {
    /// A record not written for this long is gone.
    pub ttl: Duration,
    /// The largest encoded record accepted.
    pub max_bytes: usize,
}

impl Default for StoreLimits {
    /// An hour, and 1 MiB.
    fn default() -> Self {
        StoreLimits {
            ttl: Duration::from_secs(60 * 60),
            max_bytes: 1 << 20,
        }
    }
}

/// A record's bytes as stored, with the revision a later
/// [`save`](SessionStore::save) must name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The encoded [`SessionRecord`].
    pub bytes: Vec<u8>,
    /// Moves with every save; starts at 1.
    pub revision: u64,
}

/// Why a store could not do what was asked. Every variant names the
/// session (and, where there is one, the store).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store could not be reached or answered with an error.
    #[error("the session store `{store}` is unavailable for session `{session}`: {message}")]
    Unavailable {
        /// The store (its kind and address).
        store: String,
        /// The session asked about.
        session: String,
        /// What went wrong.
        message: String,
    },
    /// The store could not be set up (a malformed address, say).
    #[error("the session store `{store}` cannot be used: {message}")]
    Config {
        /// The store (its kind and address).
        store: String,
        /// What is wrong.
        message: String,
    },
    /// Another writer saved the session since it was loaded.
    #[error(
        "session `{session}` changed in the store since it was read \
         (expected revision {expected:?}, found {found:?})"
    )]
    Conflict {
        /// The session.
        session: String,
        /// The revision the writer read (`None`: it expected no record).
        expected: Option<u64>,
        /// The revision the store holds (`None`: no record).
        found: Option<u64>,
    },
    /// The record is larger than the store accepts.
    #[error("the record of session `{session}` is {bytes} bytes, over the limit of {limit}")]
    TooLarge {
        /// The session.
        session: String,
        /// The encoded size.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// The record was written in a format this build does not read.
    #[error(
        "the record of session `{session}` has format {found}; this build reads format {supported}"
    )]
    Format {
        /// The session.
        session: String,
        /// The record's format.
        found: u32,
        /// The one this build reads.
        supported: u32,
    },
    /// The stored bytes are not a record.
    #[error("the record of session `{session}` cannot be read: {message}")]
    Corrupt {
        /// The session.
        session: String,
        /// What is wrong with it.
        message: String,
    },
}

/// The future a [`SessionStore`] method returns.
pub(crate) type StoreFuture<'a, T> =
    Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Holds session records by session id, shared by every replica of a
/// server.
///
/// Every method returns a boxed future,
/// `Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>`,
/// so a store can be shared as `Arc<dyn SessionStore>`; an implementation
/// may name it with a type alias of its own.
pub trait SessionStore: Send + Sync + 'static {
    /// The record of `session`, or `None` when there is none (never
    /// stored, expired or deleted). A store that cannot answer errs.
    fn load<'a>(&'a self, session: &'a str) -> StoreFuture<'a, Option<Stored>>;

    /// Writes `bytes` as the record of `session`, kept for `ttl` from now,
    /// if the stored revision is still `expected` (`None`: no record);
    /// returns the new revision. Otherwise it writes nothing and answers
    /// [`StoreError::Conflict`].
    fn save<'a>(
        &'a self,
        session: &'a str,
        bytes: &'a [u8],
        expected: Option<u64>,
        ttl: Duration,
    ) -> StoreFuture<'a, u64>;

    /// Removes the record of `session`, and the log of that name
    /// (nothing when there is none).
    fn delete<'a>(&'a self, session: &'a str) -> StoreFuture<'a, ()>;

    /// Appends `entry` to the log named `log` (logs and records are apart:
    /// one name may hold both), keeping its last `keep` entries, the log
    /// expiring `ttl` from now; returns the entry's position, counting
    /// every entry ever appended to the log from 0. Replicas relay what
    /// one of them must see through logs (an SSE event to replay, a
    /// client's answer to another replica's question).
    fn append<'a>(
        &'a self,
        log: &'a str,
        entry: &'a [u8],
        keep: usize,
        ttl: Duration,
    ) -> StoreFuture<'a, u64>;

    /// The entries of `log` still kept at position `from` and after,
    /// oldest first, each with its position (none when the log is
    /// missing or expired).
    fn read_log<'a>(&'a self, log: &'a str, from: u64) -> StoreFuture<'a, Vec<(u64, Vec<u8>)>>;

    /// A receiver marked changed whenever an entry is appended to `log`,
    /// by any replica, from the moment this answers: a wait for a log's
    /// next entry without polling. A store that may have missed a
    /// notification (its subscription was remade) marks the receiver
    /// changed too, so a reader that reads the log after each change
    /// misses nothing. The subscription ends when the receiver is dropped.
    fn watch_log<'a>(&'a self, log: &'a str) -> StoreFuture<'a, tokio::sync::watch::Receiver<()>>;

    /// Takes or renews the lease `name` for `holder`: live for `length`
    /// from now, then lapsed, and remembered as lapsed until `ttl` from
    /// now, so a lapsed lease can be told from one never taken. Leases
    /// and records are apart: one name may hold both. The last writer
    /// holds it.
    fn hold<'a>(
        &'a self,
        name: &'a str,
        holder: &'a str,
        length: Duration,
        ttl: Duration,
    ) -> StoreFuture<'a, ()>;

    /// The lease `name`, live or lapsed; `None` when it was never taken
    /// or is forgotten (its `ttl` passed).
    fn lease<'a>(&'a self, name: &'a str) -> StoreFuture<'a, Option<Lease>>;
}

/// A lease as [`SessionStore::lease`] reads it: who took it last, and
/// whether they still hold it (renewed within its length). A server
/// replica holds one on each call it runs, so another replica can tell a
/// call still running from one lost with its replica.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// Who took it last (a replica's name).
    pub holder: String,
    /// Renewed within its length: the holder is still at work.
    pub live: bool,
}

mod memory;

pub use memory::MemorySessionStore;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Session;
    use std::time::SystemTime;

    fn block<T>(future: StoreFuture<'_, T>) -> Result<T, StoreError> {
        futures_util::FutureExt::now_or_never(future).expect("the memory store never waits")
    }

    /// A ttl too long for a clock (`Duration::MAX`, "never") keeps the
    /// record, its log and a lease, instead of expiring them at once.
    #[test]
    fn an_endless_ttl_keeps_what_it_is_given() {
        let store = MemorySessionStore::new();
        let never = Duration::MAX;
        assert_eq!(block(store.save("s", b"kept", None, never)), Ok(1));
        assert_eq!(block(store.load("s")).unwrap().unwrap().bytes, b"kept");
        assert_eq!(block(store.append("s", b"entry", 4, never)), Ok(0));
        assert_eq!(block(store.read_log("s", 0)).unwrap().len(), 1);
        block(store.hold("call", "replica-a", never, never)).unwrap();
        let lease = block(store.lease("call")).unwrap().unwrap();
        assert!(lease.live, "{lease:?}");
    }

    #[test]
    fn a_record_round_trips_through_bytes_and_restores_a_session() {
        let session = Session::new();
        session.discover("search_issues");
        session.discover("create_issue");
        session.replace_state({
            let mut state = SessionState::default();
            state.mark_read("src/lib.rs");
            state
        });
        let now = SystemTime::now();
        session.grants().restore(
            [GrantRecord {
                tool: "run_command".into(),
                content: Some("cargo test".into()),
                lapses_at_unix_ms: None,
            }],
            now,
        );
        let record = session.record(now);
        let bytes = record.encode("s1", &StoreLimits::default()).unwrap();
        let back = SessionRecord::decode("s1", &bytes).unwrap();
        assert_eq!(back, record);

        let other = Session::new();
        other.restore(back, now);
        assert_eq!(other.discovered(), ["search_issues", "create_issue"]);
        assert!(other.state().files_read().contains("src/lib.rs"));
        assert_eq!(
            other
                .grants()
                .rules()
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            ["run_command(cargo test)"]
        );
    }

    #[test]
    fn a_lapsed_grant_is_neither_stored_nor_restored() {
        let now = SystemTime::now();
        let past = |secs| {
            let at = now - Duration::from_secs(secs);
            Some(
                u64::try_from(
                    at.duration_since(SystemTime::UNIX_EPOCH)
                        .unwrap()
                        .as_millis(),
                )
                .unwrap(),
            )
        };
        let grants = Session::new();
        let grants = grants.grants();
        grants.restore(
            [
                GrantRecord {
                    tool: "write_file".into(),
                    content: Some("a.txt".into()),
                    lapses_at_unix_ms: past(1),
                },
                GrantRecord {
                    tool: "write_file".into(),
                    content: Some("b.txt".into()),
                    lapses_at_unix_ms: past(0).map(|ms| ms + 60_000),
                },
            ],
            now,
        );
        let kept: Vec<_> = grants.records(now).into_iter().map(|g| g.content).collect();
        assert_eq!(kept, [Some("b.txt".to_owned())]);
        // A minute on, the second lapses too: not captured, not answering.
        assert!(grants.records(now + Duration::from_secs(61)).is_empty());
    }

    #[test]
    fn bad_records_are_errors_naming_the_session() {
        let limits = StoreLimits {
            max_bytes: 64,
            ..StoreLimits::default()
        };
        let mut record = SessionRecord {
            format: SessionRecord::FORMAT,
            ..SessionRecord::default()
        };
        record.discovered = (0..20).map(|i| format!("tool_{i}")).collect();
        assert!(matches!(
            record.encode("big", &limits),
            Err(StoreError::TooLarge { ref session, limit: 64, .. }) if session == "big"
        ));
        let future = br#"{"format":2,"discovered":[],"state":{},"grants":[]}"#;
        assert_eq!(
            SessionRecord::decode("old", future),
            Err(StoreError::Format {
                session: "old".into(),
                found: 2,
                supported: SessionRecord::FORMAT
            })
        );
        let err = SessionRecord::decode("torn", b"{\"format\":1,").unwrap_err();
        assert!(err.to_string().contains("`torn`"), "{err}");
    }

    #[test]
    fn saves_are_compare_and_set_and_records_expire() {
        let store = MemorySessionStore::new();
        let ttl = Duration::from_secs(60);
        assert_eq!(block(store.load("s")).unwrap(), None);
        assert_eq!(block(store.save("s", b"one", None, ttl)).unwrap(), 1);
        // A second writer that read nothing does not overwrite the first.
        assert_eq!(
            block(store.save("s", b"lost", None, ttl)),
            Err(StoreError::Conflict {
                session: "s".into(),
                expected: None,
                found: Some(1)
            })
        );
        assert_eq!(block(store.save("s", b"two", Some(1), ttl)).unwrap(), 2);
        assert_eq!(
            block(store.load("s")).unwrap(),
            Some(Stored {
                bytes: b"two".to_vec(),
                revision: 2
            })
        );
        block(store.save("gone", b"x", None, Duration::ZERO)).unwrap();
        assert_eq!(block(store.load("gone")).unwrap(), None);
        assert_eq!(store.len(), 1);
        block(store.delete("s")).unwrap();
        assert!(store.is_empty());
    }

    #[test]
    fn logs_keep_their_last_entries_with_positions_and_expire() {
        let store = MemorySessionStore::new();
        let ttl = Duration::from_secs(60);
        for (i, entry) in [b"a", b"b", b"c", b"d"].iter().enumerate() {
            assert_eq!(block(store.append("l", *entry, 3, ttl)).unwrap(), i as u64);
        }
        // Kept: the last three, at their positions.
        assert_eq!(
            block(store.read_log("l", 0)).unwrap(),
            vec![(1, b"b".to_vec()), (2, b"c".to_vec()), (3, b"d".to_vec())]
        );
        assert_eq!(
            block(store.read_log("l", 3)).unwrap(),
            vec![(3, b"d".to_vec())]
        );
        assert!(block(store.read_log("l", 4)).unwrap().is_empty());
        assert!(block(store.read_log("none", 0)).unwrap().is_empty());
        // A log and a record of one name are apart; delete drops both.
        block(store.save("l", b"record", None, ttl)).unwrap();
        assert_eq!(block(store.read_log("l", 0)).unwrap().len(), 3);
        block(store.delete("l")).unwrap();
        assert!(block(store.read_log("l", 0)).unwrap().is_empty());
        assert_eq!(block(store.load("l")).unwrap(), None);
        block(store.append("gone", b"x", 3, Duration::ZERO)).unwrap();
        assert!(block(store.read_log("gone", 0)).unwrap().is_empty());
    }
}
