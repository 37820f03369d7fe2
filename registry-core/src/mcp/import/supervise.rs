//! Keeping a connection watched: when it ends (the server exits, the
//! connection breaks, a heartbeat goes unanswered) the server's tools are
//! unregistered and, over HTTP with a [`Backoff`], the server is reached
//! again and re-listed. A lazy import's tools stay registered instead,
//! and its next call starts the server again (`lazy`).

use std::sync::Arc;
use std::time::Duration;

use rmcp::{Peer, RoleClient};
use tokio_util::sync::CancellationToken;

use super::Shared;
use super::config::{Backoff, McpServerConfig, Transport};
use super::connect::{Connection, EXIT_GRACE, open};

/// Waits for the connection to end, then unregisters the server's tools
/// and, for HTTP with a backoff, reconnects; for a lazy import not shut
/// down, only marks the server down.
pub(super) async fn supervise(
    shared: Arc<Shared>,
    mut connection: Connection,
    config: Arc<McpServerConfig>,
    stop: CancellationToken,
) {
    loop {
        let Connection { running, mut child } = connection;
        let cancel = running.cancellation_token();
        let peer = running.peer().clone();
        let reason = tokio::select! {
            reason = running.waiting() => match &mut child {
                Some(child) => format!("{reason:?}; {}", child.report(EXIT_GRACE).await),
                None => format!("{reason:?}"),
            },
            () = stop.cancelled() => {
                cancel.cancel();
                "shut down".to_owned()
            }
            failure = heartbeat(&peer, config.heartbeat) => {
                cancel.cancel();
                failure
            }
        };
        if shared.lazy.is_some() && !stop.is_cancelled() {
            shared.unlink();
            tracing::info!(server = %shared.server, %reason, "MCP server of a lazy import disconnected; its tools stay registered and the next call starts it again");
            return;
        }
        let removed = shared.detach();
        tracing::info!(server = %shared.server, removed, %reason, "MCP server disconnected; its tools are unregistered");
        let (Some(backoff), Transport::Http { .. }) = (config.reconnect, &config.transport) else {
            return;
        };
        if stop.is_cancelled() {
            return;
        }
        drop(child);
        match reconnect(&shared, &config, backoff, &stop).await {
            Some(next) => connection = next,
            None => return,
        }
    }
}

/// Returns (with why) when a ping fails or goes unanswered; never, with
/// no interval.
async fn heartbeat(peer: &Peer<RoleClient>, interval: Option<Duration>) -> String {
    let Some(interval) = interval else {
        return std::future::pending().await;
    };
    loop {
        tokio::time::sleep(interval).await;
        let ping = rmcp::model::ClientRequest::PingRequest(rmcp::model::PingRequest {
            method: Default::default(),
            extensions: Default::default(),
        });
        match tokio::time::timeout(interval, peer.send_request(ping)).await {
            Ok(Ok(_)) => {}
            Ok(Err(err)) => return format!("heartbeat failed: {err}"),
            Err(_) => return format!("heartbeat unanswered within {interval:?}"),
        }
    }
}

async fn reconnect(
    shared: &Arc<Shared>,
    config: &McpServerConfig,
    backoff: Backoff,
    stop: &CancellationToken,
) -> Option<Connection> {
    let mut delay = backoff.initial;
    for attempt in 1..=backoff.attempts {
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            () = stop.cancelled() => return None,
        }
        delay = (delay * 2).min(backoff.max);
        match open(shared, config).await {
            Ok(connection) => {
                shared.attach(&connection.running);
                match shared.sync_tools().await {
                    Ok(()) => return Some(connection),
                    Err(err) => {
                        tracing::warn!(server = %shared.server, attempt, %err, "reconnected but listing failed");
                        let _ = connection.running.cancel().await;
                        shared.detach();
                    }
                }
            }
            Err(err) => tracing::warn!(server = %shared.server, attempt, %err, "reconnect failed"),
        }
    }
    tracing::error!(server = %shared.server, attempts = backoff.attempts, "gave up reconnecting");
    None
}
