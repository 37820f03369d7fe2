//! A real `redis-server` on a free loopback port, for the tests of this
//! crate (`.ci/run` installs Debian's and sets `REGISTRY_REDIS_REQUIRED=1`;
//! `REGISTRY_REDIS_SERVER` names another binary; without one the tests say
//! so and pass, unless required).

#![allow(dead_code)] // each test file uses part of it

use std::net::TcpListener;
use std::process::Stdio;
use std::time::Duration;

use registry_redis::{RedisOptions, RedisSessionStore};
use tokio::process::{Child, Command};

/// A generous bound for anything that should take milliseconds, so a
/// hang fails the test instead of stalling it.
pub const GUARD: Duration = Duration::from_secs(20);

pub struct Redis {
    child: Child,
    pub port: u16,
}

impl Redis {
    /// A fresh server on a free port, or `None` (and a note) when there
    /// is no `redis-server` and none is required.
    pub async fn start() -> Option<Redis> {
        let binary =
            std::env::var("REGISTRY_REDIS_SERVER").unwrap_or_else(|_| "redis-server".to_owned());
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        match Redis::spawn(&binary, port).await {
            Some(redis) => Some(redis),
            None if std::env::var_os("REGISTRY_REDIS_REQUIRED").is_some() => {
                panic!("REGISTRY_REDIS_REQUIRED is set but `{binary}` did not start")
            }
            None => {
                eprintln!("SKIPPED: no `{binary}` to run (set REGISTRY_REDIS_SERVER)");
                None
            }
        }
    }

    pub async fn spawn(binary: &str, port: u16) -> Option<Redis> {
        let child = Command::new(binary)
            .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
            .args([
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "yes",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .ok()?;
        let redis = Redis { child, port };
        tokio::time::timeout(GUARD, async {
            while tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_err()
            {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .ok()?;
        Some(redis)
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    pub async fn stop(mut self) -> u16 {
        let _ = self.child.kill().await;
        self.port
    }
}

pub fn store(redis: &Redis, prefix: &str) -> RedisSessionStore {
    store_at(redis.port, prefix)
}

/// A store on the server at `port` (another process's).
pub fn store_at(port: u16, prefix: &str) -> RedisSessionStore {
    let options = RedisOptions {
        key_prefix: format!("test:{prefix}:"),
        response_timeout: Duration::from_millis(500),
        connect_timeout: Duration::from_millis(500),
    };
    RedisSessionStore::new(&format!("redis://127.0.0.1:{port}/"), options)
        .expect("a well-formed URL")
}

pub async fn guarded<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(GUARD, future)
        .await
        .expect("the store answered within the guard")
}
