//! Importing from a hostile MCP server (`hostile/server.rs`, one
//! misbehaviour per case) costs bounded time and bounded memory, ends in
//! a clear error or a refused tool, and leaves the other servers working.
//!
//! Each case runs in a child process of its own (this test binary, run
//! again on that one test), so its peak resident memory is its own and
//! not its neighbours': the child imports a polite server first, resets
//! its peak (`/proc/self/clear_refs`), imports the hostile one, checks
//! the outcome, calls the polite server again, and reports how far its
//! peak rose. The parent holds it to [`MAX_GROWTH`]. Call timeouts are
//! left at their defaults (60 s): every case must end by what the import
//! reads, within [`CASE_LIMIT`], not by waiting a timeout out.

mod hostile_support;

use std::time::{Duration, Instant};

use hostile_support::{call, hostile, huge_description_is_cut, refused, server};
use registry_core::mcp::McpImport;

#[test]
fn a_hundred_thousand_tools_in_one_list() {
    hostile(
        "a_hundred_thousand_tools_in_one_list",
        |registry| async move {
            refused(&registry, "many", "many-tools", &["more than 10000 tools"]).await;
        },
    );
}

#[test]
fn a_ten_megabyte_description() {
    hostile("a_ten_megabyte_description", |registry| async move {
        let import = McpImport::connect(&registry, server("huge", "huge-description"))
            .await
            .expect("imports");
        huge_description_is_cut(&registry).await;
        drop(import);
    });
}

#[test]
fn a_schema_ten_thousand_levels_deep() {
    hostile("a_schema_ten_thousand_levels_deep", |registry| async move {
        refused(&registry, "deep", "deep-schema", &["nests deeper"]).await;
    });
}

#[test]
fn pagination_that_never_ends() {
    hostile("pagination_that_never_ends", |registry| async move {
        refused(&registry, "endless", "endless-pages", &["pages"]).await;
    });
}

#[test]
fn pagination_that_cycles() {
    hostile("pagination_that_cycles", |registry| async move {
        refused(&registry, "cycling", "cycling-pages", &["came back"]).await;
    });
}

#[test]
fn a_flood_of_list_changed() {
    hostile("a_flood_of_list_changed", |registry| async move {
        let import = McpImport::connect(&registry, server("flood", "list-changed-flood"))
            .await
            .expect("imports");
        // Two seconds of a thousand notifications a second: calls to the
        // flooding server and to the others keep answering throughout.
        let until = Instant::now() + Duration::from_secs(2);
        let mut calls = 0;
        while Instant::now() < until {
            assert_eq!(
                call(&registry, "mcp__flood__echo", "hi").await,
                Ok("echo: hi".to_owned())
            );
            assert_eq!(
                call(&registry, "mcp__polite__echo", "hi").await,
                Ok("echo: hi".to_owned())
            );
            calls += 1;
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(calls > 10, "calls kept answering ({calls})");
        drop(import);
    });
}

#[test]
fn answers_to_ids_never_sent() {
    hostile("answers_to_ids_never_sent", |registry| async move {
        let _import = McpImport::connect(&registry, server("stray", "stray-ids"))
            .await
            .expect("imports");
        for text in ["one", "two", "three"] {
            assert_eq!(
                call(&registry, "mcp__stray__echo", text).await,
                Ok(format!("echo: {text}"))
            );
        }
    });
}

#[test]
fn frames_dripped_one_byte_at_a_time() {
    hostile("frames_dripped_one_byte_at_a_time", |registry| async move {
        let _import = McpImport::connect(&registry, server("drip", "drip"))
            .await
            .expect("imports");
        assert_eq!(
            call(&registry, "mcp__drip__echo", "slowly").await,
            Ok("echo: slowly".to_owned())
        );
    });
}

#[test]
fn bytes_that_are_not_utf8() {
    hostile("bytes_that_are_not_utf8", |registry| async move {
        refused(&registry, "latin", "invalid-utf8", &["UTF-8"]).await;
    });
}

#[test]
fn a_server_that_closes_its_stdout_but_stays_alive() {
    hostile(
        "a_server_that_closes_its_stdout_but_stays_alive",
        |registry| async move {
            let import = McpImport::connect(&registry, server("mute", "closed-stdout"))
                .await
                .expect("the listing came before the close");
            import.disconnected().await;
            let err = call(&registry, "mcp__mute__echo", "hi").await.unwrap_err();
            assert!(err.contains("not registered"), "{err}");
            // And the process is gone, not left running with no one to
            // read it.
            while live_children_running("closed-stdout") > 0 {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        },
    );
}

#[test]
fn a_gigabyte_result() {
    hostile("a_gigabyte_result", |registry| async move {
        let _import = McpImport::connect(&registry, server("big", "gigabyte-result"))
            .await
            .expect("imports");
        let err = call(&registry, "mcp__big__echo", "hi").await.unwrap_err();
        assert!(err.contains("MiB") && err.contains("limit"), "{err}");
    });
}

/// Children of this process running the hostile server with `case`, not
/// yet exited (zombies awaiting their reaper do not count).
fn live_children_running(case: &str) -> usize {
    let me = std::process::id().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter(|entry| {
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            // `pid (comm) state ppid ...`: comm may hold spaces, so read
            // after its closing parenthesis.
            let mut rest = stat
                .rsplit_once(')')
                .map_or("", |(_, r)| r)
                .split_whitespace();
            let (state, ppid) = (rest.next(), rest.next());
            state != Some("Z") && ppid == Some(me.as_str())
        })
        .filter(|entry| {
            std::fs::read(entry.path().join("cmdline"))
                .map(|cmd| cmd.split(|&b| b == 0).any(|arg| arg == case.as_bytes()))
                .unwrap_or(false)
        })
        .count()
}
