//! Three `mcp_server` replicas behind a real load balancer (HAProxy,
//! round-robin, no affinity) sharing a real Redis, driven by the official
//! MCP clients: the TypeScript SDK on a 2025-11-25 session
//! (`scripts/mcp_replicas_ts.mjs`) and the Python SDK on 2026-07-28,
//! stateless (`scripts/mcp_replicas_python.py`). The scripts hold the
//! client's checks; this harness owns the parts and the failures it
//! injects when a script asks (`phase kill`: one replica is killed while
//! calls run; `phase redis-down` and `redis-up`: Redis is killed, then
//! started again on its append-only file; `phase hold-start` and
//! `kill-holder`: the replica running one held call is found by its open
//! connection in HAProxy's stats and killed), and checks through
//! HAProxy's stats that every replica answered.
//!
//! Needs `redis-server` and `haproxy` (Debian's; `.ci/run` installs both
//! and sets `REGISTRY_REPLICAS_REQUIRED=1`), and each client's packages
//! as the interop tests find them. Without them the tests say so and pass,
//! unless required.
//!
//! Built with the examples' `web` feature only: its `web_fetch` is the one
//! deferred tool the clients discover through `tool_search`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a whole client run may take before it counts as a hang.
const RUN_LIMIT: Duration = Duration::from_secs(240);

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

fn wait_for_port(port: u16, what: &str) {
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{what} did not listen on {port}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A child killed when dropped.
struct Owned(Child);

impl Drop for Owned {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn binary(var: &str, default: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| default.to_owned())
}

fn runs(binary: &str) -> bool {
    Command::new(binary)
        .arg("-v")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

/// Whether Redis and HAProxy are here; `false` after saying loudly why
/// the test is skipped (a failure instead when they are required).
fn parts_present(test: &str) -> bool {
    let redis = binary("REGISTRY_REDIS_SERVER", "redis-server");
    let haproxy = binary("REGISTRY_HAPROXY", "haproxy");
    let missing: Vec<&str> = [(&redis, "redis-server"), (&haproxy, "haproxy")]
        .into_iter()
        .filter(|(binary, _)| !runs(binary))
        .map(|(_, name)| name)
        .collect();
    if missing.is_empty() {
        return true;
    }
    assert!(
        std::env::var_os("REGISTRY_REPLICAS_REQUIRED").is_none(),
        "REGISTRY_REPLICAS_REQUIRED is set but {missing:?} cannot run"
    );
    eprintln!("\n!!! SKIPPED: {test}: no {missing:?} (.ci/run installs them from Debian)\n");
    false
}

/// Redis on `port`, keeping its data in `dir`'s append-only file, so a
/// restart finds the sessions it held.
fn start_redis(port: u16, dir: &Path) -> Owned {
    let child = Command::new(binary("REGISTRY_REDIS_SERVER", "redis-server"))
        .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
        .arg("--dir")
        .arg(dir)
        .args([
            "--appendonly",
            "yes",
            "--appendfsync",
            "always",
            "--save",
            "",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("redis-server starts");
    wait_for_port(port, "redis-server");
    Owned(child)
}

/// One replica, and its endpoint's port. Its stderr is drained (and kept
/// for a failure's message) so a chatty replica never blocks.
fn start_replica(redis: u16, workspace: &Path, log: mpsc::Sender<String>) -> (Owned, u16) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp_server"))
        .args(["--http", "127.0.0.1:0"])
        .args(["--session-store", &format!("redis://127.0.0.1:{redis}/")])
        .arg("--workspace")
        .arg(workspace)
        .args(["--ask-client", "--defer", "--page-size", "4"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mcp_server starts");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    stderr.read_line(&mut line).expect("a line on stderr");
    let port = line
        .trim()
        .strip_prefix("serving MCP at http://127.0.0.1:")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no endpoint in {line:?}"));
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            let _ = log.send(line);
        }
    });
    (Owned(child), port)
}

/// HAProxy in front of `replicas`: round-robin per request, no
/// affinity, a TCP health check every 200 ms; a request whose replica
/// refuses the connection goes to another.
fn start_haproxy(dir: &Path, port: u16, replicas: &[u16]) -> Owned {
    let mut config = format!(
        "global\n    stats socket {sock} mode 600 level admin\n    maxconn 512\n\
         defaults\n    mode http\n    timeout connect 1s\n    timeout client 60s\n    timeout server 60s\n\
         \x20   retries 3\n    option redispatch\n    option http-server-close\n\
         frontend mcp\n    bind 127.0.0.1:{port}\n    default_backend replicas\n\
         backend replicas\n    balance roundrobin\n",
        sock = dir.join("haproxy.sock").display()
    );
    for (i, replica) in replicas.iter().enumerate() {
        config.push_str(&format!(
            "    server r{} 127.0.0.1:{replica} check inter 200ms fall 1 rise 2\n",
            i + 1
        ));
    }
    let path = dir.join("haproxy.cfg");
    std::fs::write(&path, config).expect("write the config");
    let child = Command::new(binary("REGISTRY_HAPROXY", "haproxy"))
        .arg("-f")
        .arg(&path)
        .arg("-db")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("haproxy starts");
    wait_for_port(port, "haproxy");
    Owned(child)
}

/// Requests each replica took, from HAProxy's stats (`stot`: with
/// `http-server-close`, one per request).
fn served(dir: &Path) -> Vec<(String, u64)> {
    stat_column(dir, "stot")
}

/// Connections open to each replica now, from HAProxy's stats (`scur`:
/// an SSE stream holds its connection until it ends).
fn open_now(dir: &Path) -> Vec<(String, u64)> {
    stat_column(dir, "scur")
}

/// One column of HAProxy's stats for each replica (`r1`, `r2`, `r3`).
fn stat_column(dir: &Path, name: &str) -> Vec<(String, u64)> {
    let mut socket = std::os::unix::net::UnixStream::connect(dir.join("haproxy.sock"))
        .expect("the stats socket");
    socket.write_all(b"show stat\n").unwrap();
    let mut csv = String::new();
    socket.read_to_string(&mut csv).unwrap();
    let header: Vec<&str> = csv
        .lines()
        .next()
        .unwrap()
        .trim_start_matches("# ")
        .split(',')
        .collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (px, sv, value) = (column("pxname"), column("svname"), column(name));
    csv.lines()
        .skip(1)
        .map(|line| line.split(',').collect::<Vec<_>>())
        .filter(|row| row.len() > value && row[px] == "replicas" && row[sv].starts_with('r'))
        .map(|row| (row[sv].to_owned(), row[value].parse().unwrap_or(0)))
        .collect()
}

/// Runs one client script against three replicas behind HAProxy,
/// answering its phases; returns its summary line.
fn run_behind_balancer(client: Command) -> serde_json::Value {
    let dir = tempfile::tempdir().expect("tempdir");
    let workspace = dir.path().join("workspace");
    let redis_dir = dir.path().join("redis");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::create_dir_all(&redis_dir).unwrap();
    let redis_port = free_port();
    let mut redis = start_redis(redis_port, &redis_dir);
    let (log, logs) = mpsc::channel();
    let mut replicas: Vec<(Owned, u16)> = (0..3)
        .map(|_| start_replica(redis_port, &workspace, log.clone()))
        .collect();
    let lb_port = free_port();
    let ports: Vec<u16> = replicas.iter().map(|(_, port)| *port).collect();
    let _haproxy = start_haproxy(dir.path(), lb_port, &ports);

    let mut client = client;
    client
        .arg(format!("http://127.0.0.1:{lb_port}/mcp"))
        .arg(&workspace)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = Owned(client.spawn().expect("the client starts"));
    let mut stdin: ChildStdin = child.0.stdin.take().unwrap();
    let stdout = BufReader::new(child.0.stdout.take().unwrap());
    let mut stderr = child.0.stderr.take().unwrap();
    let (lines_tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let _ = lines_tx.send(line);
        }
    });
    let failure = |why: &str, child: &mut Owned, stderr: &mut dyn Read| -> ! {
        let _ = child.0.kill();
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        let replicas: Vec<String> = logs.try_iter().collect();
        panic!(
            "{why}\nclient stderr:\n{text}\nreplica stderr:\n{}",
            replicas.join("\n")
        );
    };

    let deadline = Instant::now() + RUN_LIMIT;
    let mut summary = None;
    // Connections open per replica before the held call starts.
    let mut before_hold = Vec::new();
    loop {
        let line = match lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) => line,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                failure("the client hung", &mut child, &mut stderr)
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        match line.as_str() {
            "phase kill" => {
                // Mid-burst: the client is running calls three at a time.
                std::thread::sleep(Duration::from_millis(150));
                let (mut victim, _) = replicas.remove(1);
                victim.0.kill().expect("kill a replica");
                victim.0.wait().unwrap();
                writeln!(stdin, "killed").unwrap();
            }
            "phase redis-down" => {
                redis.0.kill().expect("kill redis");
                redis.0.wait().unwrap();
                writeln!(stdin, "down").unwrap();
            }
            "phase redis-up" => {
                redis = start_redis(redis_port, &redis_dir);
                writeln!(stdin, "up").unwrap();
            }
            "phase hold-start" => {
                before_hold = open_now(dir.path());
                writeln!(stdin, "ready").unwrap();
            }
            "phase kill-holder" => {
                // The replica running the held call is the one with a
                // connection more than before: the call's SSE stream.
                let now = open_now(dir.path());
                let holder = now
                    .iter()
                    .find(|(server, open)| {
                        let was = before_hold.iter().find(|(s, _)| s == server);
                        *open > was.map_or(0, |(_, n)| *n)
                    })
                    .map(|(server, _)| server.clone());
                let Some(holder) = holder else {
                    failure(
                        &format!("no replica holds the call: {before_hold:?} then {now:?}"),
                        &mut child,
                        &mut stderr,
                    )
                };
                let index: usize = holder[1..].parse().expect("a server named r<n>");
                let port = ports[index - 1];
                let Some(at) = replicas.iter().position(|(_, p)| *p == port) else {
                    failure(
                        &format!("the holder {holder} was already killed"),
                        &mut child,
                        &mut stderr,
                    )
                };
                let (mut victim, _) = replicas.remove(at);
                victim.0.kill().expect("kill the call's replica");
                victim.0.wait().unwrap();
                eprintln!("killed {holder}, which held the call");
                writeln!(stdin, "killed").unwrap();
            }
            other if other.starts_with('{') => {
                summary = Some(serde_json::from_str::<serde_json::Value>(other).unwrap());
            }
            other => failure(
                &format!("unexpected line {other:?}"),
                &mut child,
                &mut stderr,
            ),
        }
    }
    let status = child.0.wait().unwrap();
    if !status.success() {
        failure(
            &format!("the client failed ({status})"),
            &mut child,
            &mut stderr,
        );
    }
    let Some(summary) = summary else {
        failure("no summary line", &mut child, &mut stderr)
    };
    let served = served(dir.path());
    assert_eq!(served.len(), 3, "{served:?}");
    for (replica, requests) in &served {
        assert!(
            *requests > 0,
            "replica {replica} answered nothing: {served:?}"
        );
    }
    eprintln!("requests per replica: {served:?}");
    drop(replicas);
    summary
}

fn node_modules() -> Option<PathBuf> {
    [
        std::env::var_os("REGISTRY_MCP_NODE_MODULES").map(PathBuf::from),
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/node-mcp/node_modules")),
    ]
    .into_iter()
    .flatten()
    .find(|dir| dir.join("@modelcontextprotocol/sdk").is_dir())
}

fn python() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("REGISTRY_MCP_PYTHON") {
        return Some(PathBuf::from(path));
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/venv-mcp/bin/python");
    venv.is_file().then_some(venv)
}

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scripts")
        .join(name)
}

#[test]
fn the_typescript_sdk_on_a_2025_session_is_served_by_any_replica() {
    if !parts_present("replicas behind HAProxy (TypeScript)") {
        return;
    }
    let Some(modules) = node_modules() else {
        assert!(
            std::env::var_os("REGISTRY_MCP_NODE_REQUIRED").is_none(),
            "REGISTRY_MCP_NODE_REQUIRED=1 but no node_modules with the MCP SDK"
        );
        eprintln!("\n!!! SKIPPED: replicas (TypeScript): no node_modules with the MCP SDK\n");
        return;
    };
    let mut node = Command::new("node");
    node.arg(script("mcp_replicas_ts.mjs"))
        .env("REGISTRY_MCP_NODE_MODULES", modules);
    let summary = run_behind_balancer(node);
    eprintln!("TypeScript client: {summary}");
    assert_eq!(summary["protocol"], "2025-11-25", "{summary}");
    assert_eq!(summary["asked"], 1, "{summary}");
    // The call whose replica was killed ended with an error result (the
    // script checked its words); how long it took is reported, not
    // asserted (the machine is shared): about the SDK's 3 s retry, or the
    // 3 s lease and a 1 s look, whichever is later.
    eprintln!(
        "a call lost with its replica ended after {} ms: {}",
        summary["lostCallMs"], summary["lostText"]
    );
}

#[test]
fn the_python_sdk_on_stateless_2026_is_served_by_any_replica() {
    if !parts_present("replicas behind HAProxy (Python)") {
        return;
    }
    let Some(python) = python() else {
        assert!(
            std::env::var_os("REGISTRY_MCP_PYTHON_REQUIRED").is_none(),
            "REGISTRY_MCP_PYTHON_REQUIRED=1 but no interpreter with the MCP SDK"
        );
        eprintln!("\n!!! SKIPPED: replicas (Python): no interpreter with the MCP SDK\n");
        return;
    };
    let mut client = Command::new(python);
    client.arg(script("mcp_replicas_python.py"));
    let summary = run_behind_balancer(client);
    eprintln!("Python client: {summary}");
    assert_eq!(summary["protocol"], "2026-07-28", "{summary}");
    assert_eq!(summary["asked"], 1, "{summary}");
}
