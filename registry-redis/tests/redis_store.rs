//! The Redis store against a real `redis-server` on loopback: the
//! store's contract (compare-and-set, expiry, delete), a session restored
//! through it, and a Redis that goes down and comes back.
//!
//! The server is Debian's `redis-server` (`.ci/run` installs it and sets
//! `REGISTRY_REDIS_REQUIRED=1`); `REGISTRY_REDIS_SERVER` names another
//! binary. Without one the tests say so and pass, unless required.

use std::time::{Duration, SystemTime};

use registry_core::permission::GrantRecord;
use registry_core::session::{
    Session, SessionRecord, SessionStore, StoreError, StoreLimits, Stored,
};

mod support;
use support::{Redis, guarded, store, store_at};

#[tokio::test]
async fn saves_are_compare_and_set_and_records_expire() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let store = store(&redis, "contract");
    let ttl = Duration::from_secs(60);
    assert_eq!(guarded(store.load("s")).await, Ok(None));
    assert_eq!(guarded(store.save("s", b"one", None, ttl)).await, Ok(1));
    // Bytes that are not UTF-8 survive.
    let binary = [0u8, 159, 146, 150, 255];
    assert_eq!(guarded(store.save("s", &binary, Some(1), ttl)).await, Ok(2));
    assert_eq!(
        guarded(store.load("s")).await,
        Ok(Some(Stored {
            bytes: binary.to_vec(),
            revision: 2
        }))
    );
    // A writer that read an older revision, or none, loses and writes
    // nothing.
    for stale in [None, Some(1)] {
        assert_eq!(
            guarded(store.save("s", b"lost", stale, ttl)).await,
            Err(StoreError::Conflict {
                session: "s".into(),
                expected: stale,
                found: Some(2)
            })
        );
    }
    assert_eq!(guarded(store.load("s")).await.unwrap().unwrap().revision, 2);

    guarded(store.save("brief", b"x", None, Duration::from_millis(50)))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(guarded(store.load("brief")).await, Ok(None), "expired");

    guarded(store.delete("s")).await.unwrap();
    assert_eq!(guarded(store.load("s")).await, Ok(None));
    guarded(store.delete("never-there")).await.unwrap();
    redis.stop().await;
}

/// What one replica stored, another restores: discoveries, state and
/// grants, and no grant that lapsed in between.
/// Logs keep their last entries at their positions, apart from records,
/// and expire.
#[tokio::test]
async fn logs_keep_their_last_entries_with_positions_and_expire() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let store = store(&redis, "logs");
    let ttl = Duration::from_secs(60);
    for (i, entry) in [&b"a"[..], b"b", &[0, 255], b"d"].iter().enumerate() {
        assert_eq!(
            guarded(store.append("l", entry, 3, ttl)).await,
            Ok(i as u64)
        );
    }
    assert_eq!(
        guarded(store.read_log("l", 0)).await,
        Ok(vec![
            (1, b"b".to_vec()),
            (2, vec![0, 255]),
            (3, b"d".to_vec())
        ])
    );
    assert_eq!(
        guarded(store.read_log("l", 3)).await,
        Ok(vec![(3, b"d".to_vec())])
    );
    assert_eq!(guarded(store.read_log("l", 9)).await, Ok(vec![]));
    assert_eq!(guarded(store.read_log("none", 0)).await, Ok(vec![]));
    guarded(store.save("l", b"record", None, ttl))
        .await
        .unwrap();
    assert_eq!(guarded(store.read_log("l", 0)).await.unwrap().len(), 3);
    guarded(store.delete("l")).await.unwrap();
    assert_eq!(guarded(store.read_log("l", 0)).await, Ok(vec![]));
    assert_eq!(guarded(store.load("l")).await, Ok(None));
    guarded(store.append("short", b"x", 3, Duration::from_millis(30)))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(120)).await;
    assert_eq!(guarded(store.read_log("short", 0)).await, Ok(vec![]));
    redis.stop().await;
}

#[tokio::test]
async fn a_session_saved_by_one_replica_is_restored_by_another() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let (here, there) = (store(&redis, "replicas"), store(&redis, "replicas"));
    let now = SystemTime::now();
    let ms = |at: SystemTime| {
        u64::try_from(
            at.duration_since(SystemTime::UNIX_EPOCH)
                .unwrap()
                .as_millis(),
        )
        .unwrap()
    };

    let session = Session::new();
    session.discover("create_issue");
    session.restore(
        SessionRecord {
            format: SessionRecord::FORMAT,
            grants: vec![
                GrantRecord {
                    tool: "run_command".into(),
                    content: Some("cargo test".into()),
                    lapses_at_unix_ms: None,
                },
                GrantRecord {
                    tool: "write_file".into(),
                    content: Some("notes.md".into()),
                    lapses_at_unix_ms: Some(ms(now + Duration::from_secs(1))),
                },
            ],
            ..SessionRecord::default()
        },
        now,
    );
    let limits = StoreLimits::default();
    let bytes = session.record(now).encode("conv-1", &limits).unwrap();
    guarded(here.save("conv-1", &bytes, None, limits.ttl))
        .await
        .unwrap();

    // Two seconds later, on the other replica: the short grant lapsed.
    let later = now + Duration::from_secs(2);
    let stored = guarded(there.load("conv-1")).await.unwrap().unwrap();
    let restored = Session::new();
    restored.restore(
        SessionRecord::decode("conv-1", &stored.bytes).unwrap(),
        later,
    );
    assert_eq!(restored.discovered(), ["create_issue"]);
    let grants: Vec<String> = restored
        .record(later)
        .grants
        .into_iter()
        .map(|g| format!("{}({})", g.tool, g.content.unwrap_or_default()))
        .collect();
    assert_eq!(grants, ["run_command(cargo test)"]);
    redis.stop().await;
}

/// A Redis that is down is an error naming it, within the store's
/// timeouts; when it is back, the same store works again.
#[tokio::test]
async fn a_redis_that_is_down_is_an_error_and_the_store_recovers() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let store = store(&redis, "outage");
    let ttl = Duration::from_secs(60);
    guarded(store.save("s", b"before", None, ttl))
        .await
        .unwrap();
    let url = redis.url();
    let port = redis.stop().await;

    for _ in 0..3 {
        match guarded(store.load("s")).await {
            Err(StoreError::Unavailable { store, session, .. }) => {
                assert_eq!(store, url);
                assert_eq!(session, "s");
            }
            other => panic!("a down Redis must be an error, not {other:?}"),
        }
    }
    assert!(matches!(
        guarded(store.save("s", b"during", Some(1), ttl)).await,
        Err(StoreError::Unavailable { .. })
    ));

    // Back (empty: it kept nothing on disk), on the same port.
    let binary =
        std::env::var("REGISTRY_REDIS_SERVER").unwrap_or_else(|_| "redis-server".to_owned());
    let again = Redis::spawn(&binary, port).await.expect("redis restarts");
    let recovered = guarded(async {
        loop {
            match store.load("s").await {
                Ok(found) => return found,
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    })
    .await;
    assert_eq!(recovered, None, "the restarted Redis holds nothing");
    assert_eq!(guarded(store.save("s", b"after", None, ttl)).await, Ok(1));
    again.stop().await;
}

/// A lease is live while renewed, then lapsed (and told from one never
/// taken) until it is forgotten.
#[tokio::test]
async fn leases_lapse_unless_renewed_and_are_remembered_lapsed() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let store = store(&redis, "leases");
    let length = Duration::from_millis(300);
    let ttl = Duration::from_secs(60);
    assert_eq!(guarded(store.lease("{c1}call:1")).await, Ok(None));
    guarded(store.hold("{c1}call:1", "replica-a", length, ttl))
        .await
        .unwrap();
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(150)).await;
        let lease = guarded(store.lease("{c1}call:1")).await.unwrap().unwrap();
        assert!(lease.live && lease.holder == "replica-a", "{lease:?}");
        guarded(store.hold("{c1}call:1", "replica-a", length, ttl))
            .await
            .unwrap();
    }
    tokio::time::sleep(length + Duration::from_millis(200)).await;
    let lapsed = guarded(store.lease("{c1}call:1")).await.unwrap();
    assert_eq!(
        lapsed,
        Some(registry_core::session::Lease {
            holder: "replica-a".into(),
            live: false
        })
    );
    // A lease and a record of one name are apart.
    assert_eq!(guarded(store.load("{c1}call:1")).await, Ok(None));
    redis.stop().await;
}

/// A watch is told of each append, by any writer, through pub/sub: the
/// waiting side never polls.
#[tokio::test]
async fn a_watched_log_tells_of_each_append() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let writer = store(&redis, "watch");
    let reader = store(&redis, "watch");
    let ttl = Duration::from_secs(60);
    let mut grew = guarded(reader.watch_log("{s1}answers")).await.unwrap();
    // The subscription marks the watch changed once it is made (an append
    // may have come before it): read, then wait.
    guarded(grew.changed()).await.unwrap();
    for i in 0..3u64 {
        assert_eq!(
            guarded(writer.append("{s1}answers", b"answer", 8, ttl)).await,
            Ok(i)
        );
        guarded(grew.changed()).await.unwrap();
        let entries = guarded(reader.read_log("{s1}answers", i)).await.unwrap();
        assert_eq!(entries, vec![(i, b"answer".to_vec())]);
    }
    redis.stop().await;
}

/// The ids of the subscriber connections of the Redis at `url` (a
/// connection in subscriber mode has the `P` flag), and its channels with
/// a subscriber.
async fn pubsub_use(url: &str) -> (Vec<String>, Vec<String>) {
    let client = redis::Client::open(url).unwrap();
    let mut connection = client.get_multiplexed_async_connection().await.unwrap();
    let clients: String = redis::cmd("CLIENT")
        .arg("LIST")
        .query_async(&mut connection)
        .await
        .unwrap();
    let subscribers = clients
        .lines()
        .filter(|line| {
            line.split(' ').any(|field| {
                field
                    .strip_prefix("flags=")
                    .is_some_and(|f| f.contains('P'))
            })
        })
        .filter_map(|line| line.split(' ').next().map(str::to_owned))
        .collect();
    let channels: Vec<String> = redis::cmd("PUBSUB")
        .arg("CHANNELS")
        .query_async(&mut connection)
        .await
        .unwrap();
    (subscribers, channels)
}

/// Watches of one store share one subscriber connection, however many
/// logs are watched (a client holding many resumed streams open holds no
/// Redis connections), and a log nobody watches any more is unsubscribed.
#[tokio::test]
async fn every_watch_of_a_store_shares_one_connection() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let reader = store(&redis, "shared");
    let writer = store(&redis, "shared");
    let logs: Vec<String> = (0..40).map(|i| format!("{{s{i}}}answers")).collect();
    let mut watches = Vec::new();
    for log in &logs {
        let mut watch = guarded(reader.watch_log(log)).await.unwrap();
        guarded(watch.changed()).await.unwrap();
        watches.push(watch);
    }
    // Two watches of one log: both hear its append.
    let mut again = guarded(reader.watch_log(&logs[0])).await.unwrap();
    guarded(writer.append(&logs[0], b"x", 8, Duration::from_secs(60)))
        .await
        .unwrap();
    guarded(watches[0].changed()).await.unwrap();
    guarded(again.changed()).await.unwrap();

    let (subscribers, channels) = pubsub_use(&redis.url()).await;
    assert_eq!(
        subscribers.len(),
        1,
        "one subscriber connection for 40 logs"
    );
    assert_eq!(channels.len(), 40, "{channels:?}");

    // Nobody watches any more: unsubscribed within the sweep (2 s).
    drop(watches);
    drop(again);
    let start = std::time::Instant::now();
    while !pubsub_use(&redis.url()).await.1.is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "still subscribed: {:?}",
            pubsub_use(&redis.url()).await.1
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    redis.stop().await;
}

/// A watch outlives a Redis restart: the store's subscriber connects
/// again, marks the watch changed (an append may have come while it was
/// away), and hears the appends after.
#[tokio::test]
async fn a_watch_outlives_a_redis_restart() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let store = store(&redis, "restart");
    let mut watch = guarded(store.watch_log("{s}answers")).await.unwrap();
    guarded(watch.changed()).await.unwrap();
    let port = redis.stop().await;
    let binary =
        std::env::var("REGISTRY_REDIS_SERVER").unwrap_or_else(|_| "redis-server".to_owned());
    let again = Redis::spawn(&binary, port).await.expect("redis restarts");
    // Subscribed again: told to read once more.
    guarded(watch.changed()).await.unwrap();
    let writer = store_at(port, "restart");
    guarded(writer.append("{s}answers", b"after", 8, Duration::from_secs(60)))
        .await
        .unwrap();
    guarded(watch.changed()).await.unwrap();
    assert_eq!(
        guarded(store.read_log("{s}answers", 0)).await.unwrap(),
        vec![(0, b"after".to_vec())]
    );
    again.stop().await;
}

/// A watch lives through the subscriber's sweeps (each pings the
/// connection): after several, one connection still serves it, with no
/// reconnection in between (a reconnection would show as a new client id).
#[tokio::test]
async fn a_watch_lives_through_the_sweeps_on_one_connection() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let store = store(&redis, "sweeps");
    let mut watch = guarded(store.watch_log("{s}answers")).await.unwrap();
    guarded(watch.changed()).await.unwrap();
    let before = pubsub_use(&redis.url()).await.0;
    assert_eq!(before.len(), 1, "{before:?}");
    tokio::time::sleep(Duration::from_millis(5_500)).await;
    assert_eq!(
        pubsub_use(&redis.url()).await.0,
        before,
        "the subscriber reconnected"
    );
    guarded(store.append("{s}answers", b"late", 8, Duration::from_secs(60)))
        .await
        .unwrap();
    guarded(watch.changed()).await.unwrap();
    redis.stop().await;
}
