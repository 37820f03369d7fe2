//! Telling a replica that a log grew: Redis pub/sub, every watch of one
//! store over one subscriber connection.
//!
//! A watch lasts as long as a question waits for its answer or a client
//! follows a resumed stream, and the latter is a client's to open: a
//! connection per watch would let anyone holding streams open hold as
//! many Redis connections. So one task per store owns one pub/sub
//! connection, subscribes to a channel when its first watch comes and
//! unsubscribes once nobody watches it, and hands each message to the
//! channel's watchers. Watches of one channel share one sender.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::sync::watch::{Receiver, Sender};

/// The first wait before connecting again after a failure; doubled up to
/// [`RETRY_MAX`].
const RETRY_FIRST: Duration = Duration::from_millis(50);
const RETRY_MAX: Duration = Duration::from_secs(1);

/// How often channels nobody watches any more are unsubscribed, and the
/// connection is pinged.
const SWEEP: Duration = Duration::from_secs(2);

/// The watches of one store.
pub(crate) struct Watches {
    channels: Arc<Mutex<HashMap<String, Sender<()>>>>,
    /// To the subscriber task: a channel to subscribe to. Started with the
    /// first watch; ends when the store (every clone) is dropped.
    subscribe: Mutex<Option<UnboundedSender<String>>>,
    client: redis::Client,
    timeout: Duration,
}

impl Watches {
    /// Watches of the Redis `client`, a connection attempt bounded by
    /// `timeout`.
    pub(crate) fn new(client: redis::Client, timeout: Duration) -> Watches {
        Watches {
            channels: Arc::default(),
            subscribe: Mutex::new(None),
            client,
            timeout,
        }
    }

    /// A receiver marked changed at each message on `channel`, and once
    /// whenever the subscription is (re)made, since a message may have
    /// come while nobody listened: a reader that reads the log after each
    /// change misses nothing.
    pub(crate) fn watch(&self, channel: String) -> Receiver<()> {
        let mut channels = self.channels.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(sender) = channels.get(&channel) {
            return sender.subscribe();
        }
        let (sender, receiver) = tokio::sync::watch::channel(());
        channels.insert(channel.clone(), sender);
        drop(channels);
        let mut subscribe = self
            .subscribe
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        // The task ends only when its sender is dropped, unless it died
        // with the runtime that spawned it: then a new one (which takes
        // every watched channel) serves from now on.
        if let Some(task) = subscribe.as_ref()
            && task.send(channel).is_ok()
        {
            return receiver;
        }
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(subscriber(
            self.client.clone(),
            self.timeout,
            Arc::clone(&self.channels),
            rx,
        ));
        *subscribe = Some(tx);
        receiver
    }
}

/// The one subscriber of a store: (re)connects with a backoff, subscribes
/// to every watched channel, relays messages, drops channels nobody
/// watches. Ends when the store is dropped.
async fn subscriber(
    client: redis::Client,
    timeout: Duration,
    channels: Arc<Mutex<HashMap<String, Sender<()>>>>,
    mut subscribe: UnboundedReceiver<String>,
) {
    let lock = || channels.lock().unwrap_or_else(PoisonError::into_inner);
    let mut retry = RETRY_FIRST;
    loop {
        let connected = async {
            let pubsub = client.get_async_pubsub().await?;
            let (mut sink, stream) = pubsub.split();
            let watched: Vec<String> = lock()
                .iter()
                .filter(|(_, sender)| sender.receiver_count() > 0)
                .map(|(channel, _)| channel.clone())
                .collect();
            for channel in &watched {
                sink.subscribe(channel).await?;
            }
            Ok::<_, redis::RedisError>((sink, stream))
        };
        let (mut sink, mut stream) = match tokio::time::timeout(timeout, connected).await {
            Ok(Ok(connected)) => connected,
            Ok(Err(err)) => {
                tracing::debug!(%err, "subscribing to logs failed");
                if wait(&mut subscribe, &mut retry).await {
                    continue;
                }
                return;
            }
            Err(_) => {
                tracing::debug!("subscribing to logs timed out");
                if wait(&mut subscribe, &mut retry).await {
                    continue;
                }
                return;
            }
        };
        retry = RETRY_FIRST;
        // Whatever came while nobody listened: every watcher reads again.
        for sender in lock().values() {
            sender.send_replace(());
        }
        let mut sweep = tokio::time::interval(SWEEP);
        loop {
            tokio::select! {
                message = stream.next() => match message {
                    Some(message) => {
                        if let Some(sender) = lock().get(message.get_channel_name()) {
                            sender.send_replace(());
                        }
                    }
                    None => break,
                },
                channel = subscribe.recv() => match channel {
                    Some(channel) => {
                        let subscribed = tokio::time::timeout(timeout, sink.subscribe(&channel));
                        if !matches!(subscribed.await, Ok(Ok(()))) {
                            break;
                        }
                        // Subscribed now: an append that came before is
                        // read by the first look.
                        if let Some(sender) = lock().get(&channel) {
                            sender.send_replace(());
                        }
                    }
                    None => return,
                },
                _ = sweep.tick() => {
                    let idle: Vec<String> = {
                        let mut channels = lock();
                        let idle = channels
                            .iter()
                            .filter(|(_, sender)| sender.receiver_count() == 0)
                            .map(|(channel, _)| channel.clone())
                            .collect::<Vec<_>>();
                        for channel in &idle {
                            channels.remove(channel);
                        }
                        idle
                    };
                    // A connection gone half-open fails no read: a ping
                    // not answered in time is what tells.
                    let alive = async {
                        for channel in idle {
                            sink.unsubscribe(&channel).await?;
                        }
                        sink.ping::<redis::Value>().await.map(drop)
                    };
                    if !matches!(tokio::time::timeout(timeout, alive).await, Ok(Ok(()))) {
                        break;
                    }
                }
            }
        }
        tracing::debug!("the logs' subscription dropped; subscribing again");
    }
}

/// Waits before the next connection attempt, doubling `retry`; `false`
/// when the store is gone meanwhile. Requests to subscribe that come
/// while waiting are in the map already: the next connection takes them.
async fn wait(subscribe: &mut UnboundedReceiver<String>, retry: &mut Duration) -> bool {
    let deadline = tokio::time::Instant::now() + *retry;
    *retry = (*retry * 2).min(RETRY_MAX);
    loop {
        tokio::select! {
            () = tokio::time::sleep_until(deadline) => return true,
            channel = subscribe.recv() => if channel.is_none() {
                return false;
            },
        }
    }
}
