//! A [`SessionStore`] on Redis: every replica of a tool server reads and
//! writes one conversation's [`SessionRecord`](registry_core::session::SessionRecord)
//! in the same place, so the next request of a session may land on any
//! of them.
//!
//! Each record is one Redis hash under `{prefix}{name}` holding the
//! record's bytes and its revision, with the store's time to live set on
//! every save. A save is one Lua script, so the compare-and-set
//! ([`SessionStore::save`]) is atomic on the server: two replicas saving
//! one session never both win. A log is a list and its counter
//! (`…:log`, `…:next`), a lease its holder and a key that lives as long as
//! the lease (`…:lease`, `…:live`), and a log's appends are published
//! (`…:appended`), so a replica waiting for an entry is told at once
//! ([`SessionStore::watch_log`]) instead of polling.
//!
//! **Redis Cluster.** Every key of a name carries the name's hash tag:
//! the `{…}` the name holds (a server names all of one conversation's
//! records, logs and leases with the conversation's tag), or the whole
//! name in braces when it holds none. So every script and multi-key
//! command touches one slot, and one conversation's keys live on one
//! node. The key prefix must not hold a `{`, or it would be the tag of
//! every key (refused by [`RedisSessionStore::new`]).
//! The store speaks to one Redis endpoint (redis-rs's plain client, not
//! its cluster client): against a cluster, put a cluster-aware proxy in
//! front (Envoy's or Redis's own proxy), which routes each command by its
//! one slot; a node reached directly answers `MOVED` for the others'
//! slots, which the store reports as unavailable.
//!
//! Every request is bounded by [`RedisOptions::response_timeout`] and
//! every connection attempt by [`RedisOptions::connect_timeout`]: a Redis
//! that is down or unreachable answers [`StoreError::Unavailable`] within
//! those bounds, naming the server, never a hang and never an empty
//! record. The connection is made on first use and remade after a failure,
//! so the store recovers by itself when Redis comes back.
//!
//! ```no_run
//! # async fn demo() -> Result<(), registry_core::session::StoreError> {
//! use registry_redis::{RedisOptions, RedisSessionStore};
//!
//! let store = RedisSessionStore::new("redis://127.0.0.1:6379/", RedisOptions::default())?;
//! # let _ = store;
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use registry_core::session::{Lease, SessionStore, StoreError, Stored};

mod keys;
mod watch;

/// What every [`SessionStore`] method returns.
type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// How the store talks to Redis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedisOptions {
    /// Prefixed to every session id to make its key.
    pub key_prefix: String,
    /// The longest one request may take before it is an error.
    pub response_timeout: Duration,
    /// The longest one connection attempt may take.
    pub connect_timeout: Duration,
}

impl Default for RedisOptions {
    /// Keys under `tool-registry:session:`; 2 s per request, 1 s per
    /// connection attempt.
    fn default() -> Self {
        RedisOptions {
            key_prefix: "tool-registry:session:".to_owned(),
            response_timeout: Duration::from_secs(2),
            connect_timeout: Duration::from_secs(1),
        }
    }
}

/// Session records in Redis. Cheap to clone (clones share the
/// connection).
#[derive(Clone)]
pub struct RedisSessionStore {
    connection: ConnectionManager,
    /// Every watch of a log, over one subscriber connection.
    watches: std::sync::Arc<watch::Watches>,
    /// The server as errors name it (the URL without credentials).
    server: String,
    prefix: String,
    /// The scripts, hashed once (each call sends the hash, and the text
    /// only when the server does not know it yet).
    save: redis::Script,
    append: redis::Script,
    read_log: redis::Script,
    hold: redis::Script,
}

impl std::fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSessionStore")
            .field("server", &self.server)
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

/// Writes the record if the stored revision is the expected one (`""`:
/// no record), sets its expiry, and answers `{1, new revision}`; else
/// writes nothing and answers `{0, stored revision or ""}`.
const SAVE: &str = r"
local stored = redis.call('HGET', KEYS[1], 'rev')
local expected = ARGV[1]
if (stored == false and expected == '') or (stored ~= false and stored == expected) then
  local revision = 1
  if stored ~= false then revision = tonumber(stored) + 1 end
  redis.call('HSET', KEYS[1], 'rev', revision, 'bytes', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return {1, tostring(revision)}
end
if stored == false then stored = '' end
return {0, stored}
";

/// Appends ARGV[1] to the list KEYS[1] (keeping its last ARGV[2]
/// entries), counts it in KEYS[2], renews both for ARGV[3] ms, publishes
/// the entry's position on the channel ARGV[4], and answers the position.
const APPEND: &str = r"
local n = redis.call('INCR', KEYS[2])
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PUBLISH', ARGV[4], n - 1)
return n - 1
";

/// Writes the holder ARGV[1] of a lease to KEYS[1], kept ARGV[3] ms, and
/// KEYS[2], which lives ARGV[2] ms: while it does, the lease is live.
const HOLD: &str = r"
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
return 1
";

/// Answers `{position of the first entry returned, entries}` of the list
/// KEYS[1] (counted in KEYS[2]) from position ARGV[1] on.
const READ_LOG: &str = r"
local n = tonumber(redis.call('GET', KEYS[2]) or '0')
local first = n - redis.call('LLEN', KEYS[1])
local start = tonumber(ARGV[1]) - first
if start < 0 then start = 0 end
return {first + start, redis.call('LRANGE', KEYS[1], start, -1)}
";

impl RedisSessionStore {
    /// A store on the Redis at `url` (`redis://host:port/db`). Connects on
    /// first use; must be called within a Tokio runtime. A malformed URL is
    /// an error here.
    pub fn new(url: &str, options: RedisOptions) -> Result<Self, StoreError> {
        let server = redact(url);
        if options.key_prefix.contains('{') {
            return Err(StoreError::Config {
                store: server,
                message: format!(
                    "the key prefix `{}` holds a `{{`: it would be the Redis Cluster hash tag of \
                     every key",
                    options.key_prefix
                ),
            });
        }
        let unavailable = |err: redis::RedisError| StoreError::Config {
            store: server.clone(),
            message: err.to_string(),
        };
        let client = redis::Client::open(url).map_err(unavailable)?;
        let config = ConnectionManagerConfig::new()
            .set_response_timeout(Some(options.response_timeout))
            .set_connection_timeout(Some(options.connect_timeout))
            // One quick retry inside a request; the manager reconnects in
            // the background after that, and the request fails now.
            .set_number_of_retries(1)
            .set_max_delay(Duration::from_millis(200));
        let connection =
            ConnectionManager::new_lazy_with_config(client.clone(), config).map_err(unavailable)?;
        Ok(RedisSessionStore {
            connection,
            watches: std::sync::Arc::new(watch::Watches::new(
                client,
                options.connect_timeout + options.response_timeout,
            )),
            server: server.clone(),
            prefix: options.key_prefix,
            save: redis::Script::new(SAVE),
            append: redis::Script::new(APPEND),
            read_log: redis::Script::new(READ_LOG),
            hold: redis::Script::new(HOLD),
        })
    }

    /// The key of the record `name`, which every other key of the name
    /// extends: it carries the name's hash tag (see the crate docs).
    fn key(&self, name: &str) -> String {
        keys::record(&self.prefix, name)
    }

    /// A log's list and its counter.
    fn log_keys(&self, log: &str) -> (String, String) {
        let key = self.key(log);
        (format!("{key}:log"), format!("{key}:next"))
    }

    /// A lease's holder, and the key that lives as long as the lease.
    fn lease_keys(&self, name: &str) -> (String, String) {
        let key = self.key(name);
        (format!("{key}:lease"), format!("{key}:live"))
    }

    /// The channel a log's appends are published on.
    fn channel(&self, log: &str) -> String {
        format!("{}:appended", self.key(log))
    }

    fn unavailable(&self, session: &str, err: &redis::RedisError) -> StoreError {
        StoreError::Unavailable {
            store: self.server.clone(),
            session: session.to_owned(),
            message: err.to_string(),
        }
    }

    fn corrupt(&self, session: &str, message: String) -> StoreError {
        StoreError::Corrupt {
            session: session.to_owned(),
            message: format!("{message} (in {})", self.server),
        }
    }
}

impl SessionStore for RedisSessionStore {
    fn load<'a>(&'a self, session: &'a str) -> StoreFuture<'a, Option<Stored>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let (revision, bytes): (Option<String>, Option<Vec<u8>>) = redis::cmd("HMGET")
                .arg(self.key(session))
                .arg("rev")
                .arg("bytes")
                .query_async(&mut connection)
                .await
                .map_err(|err| self.unavailable(session, &err))?;
            match (revision, bytes) {
                (None, None) => Ok(None),
                (Some(revision), Some(bytes)) => {
                    let revision = revision.parse::<u64>().map_err(|_| {
                        self.corrupt(
                            session,
                            format!("its revision `{revision}` is not a number"),
                        )
                    })?;
                    Ok(Some(Stored { bytes, revision }))
                }
                _ => Err(self.corrupt(session, "it holds only half a record".to_owned())),
            }
        })
    }

    fn save<'a>(
        &'a self,
        session: &'a str,
        bytes: &'a [u8],
        expected: Option<u64>,
        ttl: Duration,
    ) -> StoreFuture<'a, u64> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let expected_arg = expected.map(|r| r.to_string()).unwrap_or_default();
            let ttl_ms = millis(ttl);
            let (written, revision): (i64, String) = self
                .save
                .key(self.key(session))
                .arg(expected_arg)
                .arg(bytes)
                .arg(ttl_ms)
                .invoke_async(&mut connection)
                .await
                .map_err(|err| self.unavailable(session, &err))?;
            let parsed = || {
                revision.parse::<u64>().map_err(|_| {
                    self.corrupt(
                        session,
                        format!("its revision `{revision}` is not a number"),
                    )
                })
            };
            if written == 1 {
                return parsed();
            }
            let found = if revision.is_empty() {
                None
            } else {
                Some(parsed()?)
            };
            Err(StoreError::Conflict {
                session: session.to_owned(),
                expected,
                found,
            })
        })
    }

    fn delete<'a>(&'a self, session: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let (list, counter) = self.log_keys(session);
            let (holder, live) = self.lease_keys(session);
            redis::cmd("DEL")
                .arg(self.key(session))
                .arg(list)
                .arg(counter)
                .arg(holder)
                .arg(live)
                .query_async::<i64>(&mut connection)
                .await
                .map_err(|err| self.unavailable(session, &err))?;
            Ok(())
        })
    }

    fn append<'a>(
        &'a self,
        log: &'a str,
        entry: &'a [u8],
        keep: usize,
        ttl: Duration,
    ) -> StoreFuture<'a, u64> {
        Box::pin(self.append_entry(log, entry, keep, ttl))
    }

    fn read_log<'a>(&'a self, log: &'a str, from: u64) -> StoreFuture<'a, Vec<(u64, Vec<u8>)>> {
        Box::pin(self.read_entries(log, from))
    }

    fn watch_log<'a>(&'a self, log: &'a str) -> StoreFuture<'a, tokio::sync::watch::Receiver<()>> {
        let receiver = self.watches.watch(self.channel(log));
        Box::pin(std::future::ready(Ok(receiver)))
    }

    fn hold<'a>(
        &'a self,
        name: &'a str,
        holder: &'a str,
        length: Duration,
        ttl: Duration,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let (holder_key, live_key) = self.lease_keys(name);
            let length_ms = millis(length);
            let _: i64 = self
                .hold
                .key(holder_key)
                .key(live_key)
                .arg(holder)
                .arg(length_ms)
                .arg(millis(ttl).max(length_ms))
                .invoke_async(&mut connection)
                .await
                .map_err(|err| self.unavailable(name, &err))?;
            Ok(())
        })
    }

    fn lease<'a>(&'a self, name: &'a str) -> StoreFuture<'a, Option<Lease>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let (holder_key, live_key) = self.lease_keys(name);
            let (holder, live): (Option<String>, Option<String>) = redis::cmd("MGET")
                .arg(holder_key)
                .arg(live_key)
                .query_async(&mut connection)
                .await
                .map_err(|err| self.unavailable(name, &err))?;
            Ok(holder.map(|holder| Lease {
                holder,
                live: live.is_some(),
            }))
        })
    }
}

/// A duration as whole milliseconds for PEXPIRE and PX: at least one,
/// since zero would delete the key before anyone could read it.
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis())
        .unwrap_or(u64::MAX)
        .max(1)
}

impl RedisSessionStore {
    async fn append_entry(
        &self,
        log: &str,
        entry: &[u8],
        keep: usize,
        ttl: Duration,
    ) -> Result<u64, StoreError> {
        let mut connection = self.connection.clone();
        let (list, counter) = self.log_keys(log);
        let position: i64 = self
            .append
            .key(list)
            .key(counter)
            .arg(entry)
            .arg(keep.max(1))
            .arg(millis(ttl))
            .arg(self.channel(log))
            .invoke_async(&mut connection)
            .await
            .map_err(|err| self.unavailable(log, &err))?;
        u64::try_from(position)
            .map_err(|_| self.corrupt(log, format!("its log position {position} is negative")))
    }

    async fn read_entries(&self, log: &str, from: u64) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        let mut connection = self.connection.clone();
        let (list, counter) = self.log_keys(log);
        let (first, entries): (i64, Vec<Vec<u8>>) = self
            .read_log
            .key(list)
            .key(counter)
            .arg(from)
            .invoke_async(&mut connection)
            .await
            .map_err(|err| self.unavailable(log, &err))?;
        let first = u64::try_from(first)
            .map_err(|_| self.corrupt(log, format!("its log position {first} is negative")))?;
        Ok((first..).zip(entries).collect())
    }
}

/// The URL as errors may show it: any password replaced.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}://…@{}", &url[..scheme], &url[at + 1..])
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn passwords_never_reach_an_error_message() {
        assert_eq!(
            super::redact("redis://user:secret@10.0.0.5:6379/0"),
            "redis://…@10.0.0.5:6379/0"
        );
        assert_eq!(
            super::redact("redis://127.0.0.1:6379/"),
            "redis://127.0.0.1:6379/"
        );
    }
}
