//! [`MemorySessionStore`]: the store in this process's memory.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

// Tokio's clock: the same as the system's, but one a test can pause and
// advance (leases and expiry without waiting).
use tokio::time::Instant;

use super::{Lease, SessionStore, StoreError, StoreFuture, Stored};

/// The in-process store: records in this process's memory, each expiring
/// `ttl` after its last save. Right for one replica and for tests; it
/// does not survive the process.
#[derive(Debug, Default)]
pub struct MemorySessionStore {
    records: Mutex<HashMap<String, Entry>>,
    logs: Mutex<HashMap<String, Log>>,
    /// Who waits for each log's next entry: told directly by `append`.
    watchers: Mutex<HashMap<String, tokio::sync::watch::Sender<()>>>,
    leases: Mutex<HashMap<String, Held>>,
}

#[derive(Debug)]
struct Held {
    holder: String,
    live_until: Instant,
    expires: Instant,
}

#[derive(Debug)]
struct Log {
    /// The position the next entry gets.
    next: u64,
    entries: std::collections::VecDeque<Vec<u8>>,
    expires: Instant,
}

#[derive(Debug)]
struct Entry {
    bytes: Vec<u8>,
    revision: u64,
    expires: Instant,
}

impl MemorySessionStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records held and not yet expired.
    pub fn len(&self) -> usize {
        let now = Instant::now();
        self.lock().values().filter(|e| e.expires > now).count()
    }

    /// Whether no live record is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        // Nothing panics while holding the lock; a poisoned map is intact.
        self.records.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn logs(&self) -> std::sync::MutexGuard<'_, HashMap<String, Log>> {
        self.logs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn watchers(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, tokio::sync::watch::Sender<()>>> {
        self.watchers.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn leases(&self) -> std::sync::MutexGuard<'_, HashMap<String, Held>> {
        self.leases.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl SessionStore for MemorySessionStore {
    fn load<'a>(&'a self, session: &'a str) -> StoreFuture<'a, Option<Stored>> {
        let now = Instant::now();
        let found = self
            .lock()
            .get(session)
            .filter(|entry| entry.expires > now)
            .map(|entry| Stored {
                bytes: entry.bytes.clone(),
                revision: entry.revision,
            });
        Box::pin(std::future::ready(Ok(found)))
    }

    fn save<'a>(
        &'a self,
        session: &'a str,
        bytes: &'a [u8],
        expected: Option<u64>,
        ttl: Duration,
    ) -> StoreFuture<'a, u64> {
        let now = Instant::now();
        let mut records = self.lock();
        // Expired records are dropped as writes come, so the map is
        // bounded by the sessions live within one `ttl`.
        records.retain(|_, entry| entry.expires > now);
        let found = records.get(session).map(|entry| entry.revision);
        let outcome = if found == expected {
            let revision = found.map_or(1, |r| r + 1);
            let expires = later(now, ttl);
            records.insert(
                session.to_owned(),
                Entry {
                    bytes: bytes.to_vec(),
                    revision,
                    expires,
                },
            );
            Ok(revision)
        } else {
            Err(StoreError::Conflict {
                session: session.to_owned(),
                expected,
                found,
            })
        };
        Box::pin(std::future::ready(outcome))
    }

    fn delete<'a>(&'a self, session: &'a str) -> StoreFuture<'a, ()> {
        self.lock().remove(session);
        self.logs().remove(session);
        self.leases().remove(session);
        Box::pin(std::future::ready(Ok(())))
    }

    fn append<'a>(
        &'a self,
        log: &'a str,
        entry: &'a [u8],
        keep: usize,
        ttl: Duration,
    ) -> StoreFuture<'a, u64> {
        let log_name = log;
        let now = Instant::now();
        let mut logs = self.logs();
        logs.retain(|_, log| log.expires > now);
        let log = logs.entry(log.to_owned()).or_insert_with(|| Log {
            next: 0,
            entries: std::collections::VecDeque::new(),
            expires: now,
        });
        let position = log.next;
        log.next += 1;
        log.entries.push_back(entry.to_vec());
        while log.entries.len() > keep {
            log.entries.pop_front();
        }
        log.expires = later(now, ttl);
        drop(logs);
        let mut watchers = self.watchers();
        if let Some(watcher) = watchers.get(log_name) {
            // `send_replace` marks every receiver changed; with none left,
            // nobody waits and the entry goes.
            watcher.send_replace(());
            if watcher.receiver_count() == 0 {
                watchers.remove(log_name);
            }
        }
        Box::pin(std::future::ready(Ok(position)))
    }

    fn read_log<'a>(&'a self, log: &'a str, from: u64) -> StoreFuture<'a, Vec<(u64, Vec<u8>)>> {
        let now = Instant::now();
        let found = self
            .logs()
            .get(log)
            .filter(|log| log.expires > now)
            .map(|log| {
                let first = log.next - log.entries.len() as u64;
                log.entries
                    .iter()
                    .enumerate()
                    .map(|(i, entry)| (first + i as u64, entry))
                    .filter(|(position, _)| *position >= from)
                    .map(|(position, entry)| (position, entry.clone()))
                    .collect()
            })
            .unwrap_or_default();
        Box::pin(std::future::ready(Ok(found)))
    }

    fn watch_log<'a>(&'a self, log: &'a str) -> StoreFuture<'a, tokio::sync::watch::Receiver<()>> {
        let mut watchers = self.watchers();
        // Senders nobody listens to any more are dropped as watches come.
        watchers.retain(|_, watcher| watcher.receiver_count() > 0);
        let receiver = watchers
            .entry(log.to_owned())
            .or_insert_with(|| tokio::sync::watch::channel(()).0)
            .subscribe();
        Box::pin(std::future::ready(Ok(receiver)))
    }

    fn hold<'a>(
        &'a self,
        name: &'a str,
        holder: &'a str,
        length: Duration,
        ttl: Duration,
    ) -> StoreFuture<'a, ()> {
        let now = Instant::now();
        let mut leases = self.leases();
        leases.retain(|_, held| held.expires > now);
        leases.insert(
            name.to_owned(),
            Held {
                holder: holder.to_owned(),
                live_until: later(now, length),
                expires: later(now, ttl.max(length)),
            },
        );
        Box::pin(std::future::ready(Ok(())))
    }

    fn lease<'a>(&'a self, name: &'a str) -> StoreFuture<'a, Option<Lease>> {
        let now = Instant::now();
        let found = self
            .leases()
            .get(name)
            .filter(|held| held.expires > now)
            .map(|held| Lease {
                holder: held.holder.clone(),
                live: held.live_until > now,
            });
        Box::pin(std::future::ready(Ok(found)))
    }
}

/// `now + wait`, or a century from now when that does not fit an
/// `Instant`: a very long ttl (`Duration::MAX` for "never") means late,
/// not at once.
fn later(now: Instant, wait: Duration) -> Instant {
    now.checked_add(wait)
        .or_else(|| now.checked_add(Duration::from_secs(100 * 365 * 24 * 3600)))
        .unwrap_or(now)
}
