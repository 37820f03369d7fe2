//! Telling a replica that a log grew: Redis pub/sub, one subscription per
//! watch, on a connection of its own (a watch lasts as long as a question
//! waits for its answer, so they are few).

use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::watch::Sender;

/// The first wait before subscribing again after a failure; doubled up to
/// [`RETRY_MAX`].
const RETRY_FIRST: Duration = Duration::from_millis(50);
const RETRY_MAX: Duration = Duration::from_secs(1);

/// Until nobody holds the receiver: subscribes to `channel` and marks
/// `changes` changed at each message. After (re)subscribing it marks it
/// changed once more, since an append may have come while nobody
/// listened; the reader then reads the log and misses nothing. A
/// subscription that fails or drops is made again, with a backoff.
pub(crate) async fn relay(
    client: redis::Client,
    channel: String,
    timeout: Duration,
    changes: Sender<()>,
) {
    let mut retry = RETRY_FIRST;
    loop {
        let subscribed = async {
            let mut pubsub = client.get_async_pubsub().await?;
            pubsub.subscribe(&channel).await?;
            Ok::<_, redis::RedisError>(pubsub)
        };
        let subscribed = tokio::select! {
            () = changes.closed() => return,
            subscribed = tokio::time::timeout(timeout, subscribed) => subscribed,
        };
        match subscribed {
            Ok(Ok(mut pubsub)) => {
                retry = RETRY_FIRST;
                changes.send_replace(());
                let mut messages = pubsub.on_message();
                loop {
                    tokio::select! {
                        () = changes.closed() => return,
                        message = messages.next() => match message {
                            Some(_) => {
                                changes.send_replace(());
                            }
                            None => break,
                        },
                    }
                }
                tracing::debug!(%channel, "a log's subscription dropped; subscribing again");
            }
            Ok(Err(err)) => tracing::debug!(%channel, %err, "subscribing to a log failed"),
            Err(_) => tracing::debug!(%channel, "subscribing to a log timed out"),
        }
        tokio::select! {
            () = changes.closed() => return,
            () = tokio::time::sleep(retry) => {}
        }
        retry = (retry * 2).min(RETRY_MAX);
    }
}
