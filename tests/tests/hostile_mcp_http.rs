//! Importing from a hostile streamable-HTTP MCP server (`hostile/http.rs`,
//! one misbehaviour per case, each in both answer styles a server may
//! use: a JSON body and an SSE stream) costs what the same server costs
//! over stdio (`hostile_mcp.rs`): bounded time and bounded memory, an
//! error naming what was wrong, the connection and the other servers
//! unaffected. Each case runs in a child process of its own with the
//! same limits (`hostile_support`); call timeouts are left at their
//! defaults (60 s) except where the server never answers at all, which
//! no reader can tell from a slow answer.

mod hostile_support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use hostile_support::{SERVER, call, hostile, huge_description_is_cut, refused_by};
use registry_core::catalog::PluginRegistry;
use registry_core::mcp::{McpImport, McpServerConfig};

/// The hostile server in HTTP mode, killed when dropped.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start(case: &str, style: &str) -> HttpServer {
        let mut child = Command::new(SERVER)
            .args(["--http", case, style])
            .stdout(Stdio::piped())
            .spawn()
            .expect("the hostile server starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped"))
            .read_line(&mut line)
            .expect("the server says its port");
        let port = line
            .trim()
            .strip_prefix("LISTENING ")
            .unwrap_or_else(|| panic!("not a port: {line}"));
        HttpServer {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }

    fn config(&self, name: &str) -> McpServerConfig {
        McpServerConfig::http(name, &self.url)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Imports `case` (answered in `style`), calls `echo` with `bad`, checks
/// the error says each of `why`, and calls `echo` again: the connection
/// outlived the bad answer.
async fn bad_call(registry: &PluginRegistry, case: &str, style: &str, why: &[&str]) {
    bad_call_with(registry, case, style, why, |config| config).await;
}

async fn bad_call_with(
    registry: &PluginRegistry,
    case: &str,
    style: &str,
    why: &[&str],
    configure: impl FnOnce(McpServerConfig) -> McpServerConfig,
) {
    let server = HttpServer::start(case, style);
    let import = McpImport::connect(registry, configure(server.config("bad")))
        .await
        .expect("imports");
    let err = call(registry, "mcp__bad__echo", "bad")
        .await
        .expect_err("the bad answer fails the call");
    for word in why {
        assert!(err.contains(word), "`{word}` not in: {err}");
    }
    assert!(import.is_connected(), "one bad answer keeps the connection");
    assert_eq!(
        call(registry, "mcp__bad__echo", "hi").await,
        Ok("echo: hi".to_owned()),
        "the server still answers"
    );
}

/// Imports `case` (its listing answered in `style`) and expects the
/// import to fail, saying each of `why`.
async fn bad_list(registry: &PluginRegistry, case: &str, style: &str, why: &[&str]) {
    let server = HttpServer::start(case, style);
    refused_by(registry, server.config("bad"), why).await;
}

/// Two tests, one per answer style, each running `$body(registry, style)`.
macro_rules! both_styles {
    ($json:ident, $sse:ident, $body:expr) => {
        #[test]
        fn $json() {
            hostile(stringify!($json), |registry| async move {
                $body(registry, "json").await
            });
        }

        #[test]
        fn $sse() {
            hostile(stringify!($sse), |registry| async move {
                $body(registry, "sse").await
            });
        }
    };
}

both_styles!(
    an_oversized_answer_json,
    an_oversized_answer_sse,
    |registry: PluginRegistry, style: &'static str| async move {
        bad_call(&registry, "oversized", style, &["16 MiB", "limit"]).await;
    }
);

both_styles!(
    bytes_that_are_not_utf8_json,
    bytes_that_are_not_utf8_sse,
    |registry: PluginRegistry, style: &'static str| async move {
        bad_list(&registry, "invalid-utf8", style, &["UTF-8"]).await;
    }
);

both_styles!(
    an_answer_that_is_not_json_json,
    an_answer_that_is_not_json_sse,
    |registry: PluginRegistry, style: &'static str| async move {
        bad_call(&registry, "not-json", style, &["not JSON"]).await;
    }
);

both_styles!(
    json_nested_too_deep_json,
    json_nested_too_deep_sse,
    |registry: PluginRegistry, style: &'static str| async move {
        bad_list(&registry, "deep", style, &["nests deeper"]).await;
    }
);

both_styles!(
    json_that_is_no_mcp_message_json,
    json_that_is_no_mcp_message_sse,
    |registry: PluginRegistry, style: &'static str| async move {
        bad_call(
            &registry,
            "not-mcp",
            style,
            &["not shaped as an MCP answer"],
        )
        .await;
    }
);

both_styles!(
    a_hundred_thousand_tools_in_one_list_json,
    a_hundred_thousand_tools_in_one_list_sse,
    |registry: PluginRegistry, style: &'static str| async move {
        bad_list(&registry, "many-tools", style, &["more than 10000 tools"]).await;
    }
);

both_styles!(
    a_ten_megabyte_description_json,
    a_ten_megabyte_description_sse,
    |registry: PluginRegistry, style: &'static str| async move {
        let server = HttpServer::start("huge-description", style);
        let import = McpImport::connect(&registry, server.config("huge"))
            .await
            .expect("imports");
        huge_description_is_cut(&registry).await;
        drop(import);
    }
);

/// A JSON body holds one answer: to an id never sent, it leaves the call
/// none, and the call fails at once saying so.
#[test]
fn an_answer_to_an_id_never_sent_json() {
    hostile(
        "an_answer_to_an_id_never_sent_json",
        |registry| async move {
            bad_call(&registry, "stray-id", "json", &["never sent"]).await;
        },
    );
}

/// On an SSE stream the stray answer is dropped and the right one, after
/// it, is the call's.
#[test]
fn an_answer_to_an_id_never_sent_sse() {
    hostile("an_answer_to_an_id_never_sent_sse", |registry| async move {
        let server = HttpServer::start("stray-id", "sse");
        let _import = McpImport::connect(&registry, server.config("stray"))
            .await
            .expect("imports");
        for text in ["bad", "hi"] {
            assert_eq!(
                call(&registry, "mcp__stray__echo", text).await,
                Ok(format!("echo: {text}"))
            );
        }
    });
}

/// A malformed event on a call's stream is that call's answer: the call
/// fails at once, though the server holds the stream open.
#[test]
fn a_malformed_event_then_nothing_sse() {
    hostile(
        "a_malformed_event_then_nothing_sse",
        |registry| async move {
            bad_call(&registry, "malformed-then-hang", "sse", &["not JSON"]).await;
        },
    );
}

/// Half a JSON body and then nothing cannot be told from a slow body: the
/// call ends at its timeout, and the connection and the others live on.
#[test]
fn half_a_body_then_nothing_json() {
    hostile("half_a_body_then_nothing_json", |registry| async move {
        bad_call_with(
            &registry,
            "malformed-then-hang",
            "json",
            &["did not answer within"],
            |config| config.call_timeout(Duration::from_secs(1)),
        )
        .await;
    });
}

/// A server that never answers a call costs that call its timeout, and
/// nothing more.
#[test]
fn a_server_that_never_answers() {
    hostile("a_server_that_never_answers", |registry| async move {
        bad_call_with(
            &registry,
            "never-answers",
            "json",
            &["did not answer within"],
            |config| config.call_timeout(Duration::from_secs(1)),
        )
        .await;
    });
}
