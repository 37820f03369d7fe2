//! The provider edge: a recorded response of each wire format (parallel
//! calls, an alias, a bad argument, a denied call, an image, a PDF, a
//! structured result, a deferred tool found through `tool_search`, a
//! provider-run tool) goes through `respond`, and the next request is
//! compared with a golden file; the streamed form gives the same calls;
//! ids and order survive every adapter for any list of results; and when
//! the official SDKs are installed (`.ci/run` does), every request part
//! and tool definition validates against their types.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use registry_core::{
    Executor, Json, PermissionContext, ToolBuilder, ToolCallResult, ToolOutput, ToolRegistry,
    catalog::{BaseTools, PluginGuard},
    declare::{Callers, ContentBlock, EmbeddedResource, Image, IntoToolOutput, RemoteOrigin},
    pool::ToolPool,
    provider::{Calls, NextRequest, Provider},
    render::{AnthropicOptions, ProviderFormat},
    search::ToolSearchIndex,
    session::{DeferralPolicy, Session},
};
use serde_json::{Value, json};

/// Eight PNG-signature bytes and a little more: what the goldens encode.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\nimg";

struct World {
    registry: Arc<ToolRegistry>,
    index: Arc<ToolSearchIndex>,
    _guards: Vec<PluginGuard>,
}

fn world() -> World {
    world_with(Vec::new())
}

/// [`world`], with `extra` plugin tools registered (owner, tool) in order.
fn world_with(extra: Vec<(&str, registry_core::ToolHandle)>) -> World {
    let read_file = ToolBuilder::new("read_file", "Read a UTF-8 file.")
        .aliases(["cat"])
        .allowed_callers(Callers::DirectAndProgram)
        .read_only(true)
        .concurrency_safe(true)
        .input_example(json!({ "path": "src/lib.rs" }))
        .strict(true)
        .input_schema(json!({
            "type": "object",
            "properties": { "path": { "type": "string" } },
            "required": ["path"],
        }))
        .build(|args: Value, _cx| async move {
            let path = args["path"].as_str().ok_or("`path` must be a string")?;
            Ok(ToolOutput::text(format!("contents of {path}")))
        })
        .unwrap();
    // Its result is for the model's own eyes: never called from a program.
    let screenshot = ToolBuilder::new("screenshot", "Take a screenshot.")
        .allowed_callers(Callers::Direct)
        .read_only(true)
        .build(|_: Value, _cx| async move {
            Ok(ToolOutput::text("the screen:").with(Image::new(PNG, "image/png")))
        })
        .unwrap();
    #[derive(serde::Serialize, schemars::JsonSchema)]
    struct Report {
        pages: u32,
    }
    let report = ToolBuilder::new("report", "Make the weekly report.")
        .read_only(true)
        .build(|_: Value, _cx| async move {
            let out = Json(Report { pages: 1 }).into_tool_output().unwrap();
            Ok(out.with(EmbeddedResource::document(
                "report.pdf",
                b"%PDF-1.7".to_vec(),
                "application/pdf",
            )))
        })
        .unwrap();
    // Says nothing about its posture: asks, and with no approver is denied.
    let delete_file = ToolBuilder::new("delete_file", "Delete a file.")
        .build(|_: Value, _cx| async move { Ok(ToolOutput::text("deleted")) })
        .unwrap();
    let builtins = vec![
        registry_core::search::__tool_search(),
        read_file,
        screenshot,
        report,
        delete_file,
    ];
    let registry = Arc::new(ToolRegistry::new(
        BaseTools::__from_handles(builtins).unwrap(),
    ));
    let merge = ToolBuilder::new(
        "mcp__github__merge_pull_request",
        "Merge a pull request in a GitHub repository.",
    )
    .remote_origin(RemoteOrigin::new("github", "merge_pull_request"))
    .build(|_: Value, _cx| async move { Ok(ToolOutput::text("merged")) })
    .unwrap();
    let mut guards = vec![registry.plugins().register("github", merge).unwrap()];
    for (owner, tool) in extra {
        guards.push(registry.plugins().register(owner, tool).unwrap());
    }
    let index = Arc::new(ToolSearchIndex::new(&registry));
    World {
        registry,
        index,
        _guards: guards,
    }
}

/// An executor for one session in `format`, with everything imported
/// deferred and `tool_search` answering in that format's shape.
fn setup(w: &World, format: ProviderFormat) -> (Executor, ToolPool, Arc<Session>) {
    let pool = w.registry.assemble_tool_pool(&PermissionContext::new());
    let session = Arc::new(Session::new());
    let executor = w
        .registry
        .executor()
        .session(Arc::clone(&session))
        .tool_search_with(Arc::clone(&w.index), DeferralPolicy::Always, format)
        .build();
    (executor, pool, session)
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/provider")
}

fn recorded(name: &str) -> Value {
    let path = dir().join("responses").join(format!("{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
}

/// The next request as a golden file: canonical, pretty, byte-stable.
fn golden(name: &str, next: &NextRequest) {
    let value = json!({
        "echo": next.echo,
        "results": next.results,
        "skipped": next.skipped.iter().map(ToString::to_string).collect::<Vec<_>>(),
    });
    golden_value(name, &value);
}

/// `value` as a golden file: canonical, pretty, byte-stable.
fn golden_value(name: &str, value: &Value) {
    let text = registry_core::text::to_canonical_pretty(value) + "\n";
    let path = dir().join("golden").join(format!("{name}.json"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "no golden file {}; run with UPDATE_GOLDEN=1",
            path.display()
        )
    });
    assert_eq!(text, expected, "{name}: the next request changed");
}

#[test]
fn anthropic_from_response_to_next_request() {
    let w = world();
    let (executor, pool, session) = setup(&w, ProviderFormat::Anthropic);
    let response = recorded("anthropic");
    let next = runtime()
        .block_on(Provider::Anthropic.respond(&executor, &response))
        .unwrap();
    golden("anthropic", &next);
    let blocks = next.results[0]["content"].as_array().unwrap();
    let ids: Vec<&str> = blocks
        .iter()
        .map(|b| b["tool_use_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "toolu_01", "toolu_02", "toolu_03", "toolu_04", "toolu_05", "toolu_06", "toolu_07"
        ]
    );
    assert_eq!(
        blocks[1]["content"][0]["text"], "contents of b.rs",
        "the alias ran"
    );
    assert_eq!(blocks[2]["content"][1]["type"], "image");
    assert_eq!(
        blocks[3]["is_error"], true,
        "a bad argument is that call's error"
    );
    assert_eq!(blocks[4]["is_error"], true, "the denied call");
    assert_eq!(
        blocks[5]["content"],
        json!([{ "type": "tool_reference", "tool_name": "mcp__github__merge_pull_request" }])
    );
    assert_eq!(blocks[6]["content"][1]["type"], "document");
    assert_eq!(next.skipped.len(), 2, "{:?}", next.skipped);
    validate(
        "anthropic",
        &pool
            .for_session(&session)
            .render_anthropic(AnthropicOptions::new()),
        blocks.clone(),
        &response,
    );
}

/// Programmatic tool calling: calls the provider's program made come
/// back marked with their caller; the executor holds each tool to its
/// allowed callers, and OpenAI's results go back to the program that
/// asked.
#[test]
fn programmatic_calls_are_judged_by_caller_and_answered_to_their_program() {
    let w = world();
    for (format, provider, name) in [
        ("anthropic", Provider::Anthropic, "anthropic-programmatic"),
        (
            "openai-responses",
            Provider::OpenAiResponses,
            "openai-responses-programmatic",
        ),
    ] {
        let (executor, pool, session) = setup(
            &w,
            if format == "anthropic" {
                ProviderFormat::Anthropic
            } else {
                ProviderFormat::OpenAiResponses
            },
        );
        let response = recorded(name);
        let calls = provider.calls_from(&response).unwrap();
        let programs: Vec<Option<&str>> =
            calls.calls().map(|call| call.program.as_deref()).collect();
        let program = if format == "anthropic" {
            "srvtoolu_prog"
        } else {
            "call_prog"
        };
        assert_eq!(programs, [Some(program), Some(program), None], "{format}");
        let next = runtime()
            .block_on(provider.respond(&executor, &response))
            .unwrap();
        golden(name, &next);
        let items: Vec<Value> = next.echo.iter().chain(&next.results).cloned().collect();
        let text = serde_json::to_string(&items).unwrap();
        assert!(text.contains("contents of a.rs"), "{format}: {text}");
        assert!(
            text.contains("tool `screenshot` cannot be called from a program"),
            "{format}: {text}"
        );
        assert!(text.contains("contents of c.rs"), "{format}: {text}");
        let tools = if format == "anthropic" {
            pool.for_session(&session)
                .render_anthropic(Default::default())
        } else {
            pool.for_session(&session).render_openai_responses()
        };
        let parts = if format == "anthropic" {
            next.results[0]["content"].as_array().unwrap().clone()
        } else {
            next.results.clone()
        };
        validate(format, &tools, parts, &response);
    }
}

/// The container a programmatic call's program waits in is handed on:
/// the next request must name it.
#[test]
fn the_container_of_a_programmatic_turn_is_handed_on() {
    let w = world();
    let (executor, _, _) = setup(&w, ProviderFormat::Anthropic);
    let mut response = recorded("anthropic-programmatic");
    response["container"] = json!({ "id": "container_01", "expires_at": "2026-12-07T18:00:00Z" });
    let next = runtime()
        .block_on(Provider::Anthropic.respond(&executor, &response))
        .unwrap();
    assert_eq!(next.container.as_deref(), Some("container_01"));
    let plain = runtime()
        .block_on(Provider::Anthropic.respond(&executor, &recorded("anthropic")))
        .unwrap();
    assert_eq!(plain.container, None);
}

/// A caller this reader does not know, or a malformed one, is a
/// program's: a tool for direct calls only is not run for it.
#[test]
fn an_unknown_or_malformed_caller_is_a_programs() {
    for caller in [
        json!({ "type": "code_execution_20991231", "tool_id": "srv_9" }),
        json!({ "type": 5 }),
        json!({ "tool_id": "srv_9" }),
        json!("direct"),
    ] {
        let response = json!({ "content": [
            { "type": "tool_use", "id": "t1", "name": "screenshot", "input": {}, "caller": caller }
        ] });
        let calls = Provider::Anthropic.calls_from(&response).unwrap();
        let call = calls.calls().next().unwrap();
        assert!(call.program.is_some(), "{caller}");
    }
    let direct = json!({ "content": [
        { "type": "tool_use", "id": "t1", "name": "screenshot", "input": {}, "caller": { "type": "direct" } }
    ] });
    let calls = Provider::Anthropic.calls_from(&direct).unwrap();
    assert_eq!(calls.calls().next().unwrap().program, None);
}

#[test]
fn openai_chat_from_response_to_next_request() {
    let w = world();
    let (executor, pool, session) = setup(&w, ProviderFormat::OpenAiChat);
    let response = recorded("openai-chat");
    let next = runtime()
        .block_on(Provider::OpenAiChat.respond(&executor, &response))
        .unwrap();
    golden("openai-chat", &next);
    let tool_messages: Vec<&Value> = next
        .results
        .iter()
        .filter(|m| m["role"] == "tool")
        .collect();
    let ids: Vec<&str> = tool_messages
        .iter()
        .map(|m| m["tool_call_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "call_01", "call_02", "call_03", "call_04", "call_05", "call_06", "call_07"
        ]
    );
    let bad = tool_messages[3]["content"].as_str().unwrap();
    assert!(
        bad.starts_with("Error: ") && bad.contains("not valid JSON"),
        "{bad}"
    );
    assert!(
        tool_messages[4]["content"]
            .as_str()
            .unwrap()
            .starts_with("Error: ")
    );
    // The image and the PDF follow in one user message.
    let user = next.results.last().unwrap();
    assert_eq!(user["role"], "user");
    let kinds: Vec<&str> = user["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["text", "image_url", "text", "file"]);
    // The discovered tool is appended to the session's tools.
    let tools = pool.for_session(&session).render_openai_chat();
    assert!(tools.contains("mcp__github__merge_pull_request"));
    let mut items = next.echo.clone();
    items.extend(next.results.clone());
    validate("openai-chat", &tools, items, &response);
}

#[test]
fn openai_responses_from_response_to_next_request() {
    let w = world();
    let (executor, pool, session) = setup(&w, ProviderFormat::OpenAiResponses);
    let before = pool.for_session(&session).render_openai_responses();
    let response = recorded("openai-responses");
    let next = runtime()
        .block_on(Provider::OpenAiResponses.respond(&executor, &response))
        .unwrap();
    golden("openai-responses", &next);
    let ids: Vec<&str> = next
        .results
        .iter()
        .map(|i| i["call_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "call_01", "call_02", "call_03", "call_04", "call_05", "call_06", "call_07"
        ]
    );
    assert_eq!(next.results[2]["output"][1]["type"], "input_image");
    let bad = next.results[3]["output"].as_str().unwrap();
    assert!(
        bad.starts_with("Error: ") && bad.contains("an array where a JSON object"),
        "{bad}"
    );
    let search = &next.results[5];
    assert_eq!(search["type"], "tool_search_output");
    // Loaded into its server's namespace, as the session render has it.
    assert_eq!(search["tools"][0]["type"], "namespace");
    assert_eq!(search["tools"][0]["name"], "github");
    assert_eq!(search["tools"][0]["tools"][0]["name"], "merge_pull_request");
    assert_eq!(next.results[6]["output"][1]["type"], "input_file");
    assert_eq!(next.skipped.len(), 1, "web_search_call is the provider's");
    // Native deferral: discovery changes no byte of `tools`.
    let after = pool.for_session(&session).render_openai_responses();
    assert_eq!(before, after);
    let mut items = next.echo.clone();
    items.extend(next.results.clone());
    validate("openai-responses", &after, items, &response);
}

/// Splits a recorded response into the events a stream sends, in small
/// pieces of arguments, and checks the stream puts the same calls
/// together.
#[test]
fn streamed_responses_give_the_same_calls() {
    fn pieces(text: &str) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        chars.chunks(3).map(|c| c.iter().collect()).collect()
    }
    fn same(a: &Calls, b: &Calls) {
        assert_eq!(a.ids(), b.ids());
        let calls = |c: &Calls| {
            c.calls()
                .map(|c| (c.name.clone(), c.input.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(calls(a), calls(b));
        assert_eq!(a.invalid().count(), b.invalid().count());
    }

    // Anthropic: content_block_start, input_json_delta pieces, stop.
    let response = recorded("anthropic");
    let mut stream = Provider::Anthropic.stream();
    let mut message = response.clone();
    message["content"] = json!([]);
    stream
        .push(&json!({ "type": "message_start", "message": message }))
        .unwrap();
    for (i, block) in response["content"].as_array().unwrap().iter().enumerate() {
        let mut start = block.clone();
        if block["type"] == "tool_use" {
            start["input"] = json!({});
        }
        stream
            .push(&json!({ "type": "content_block_start", "index": i, "content_block": start }))
            .unwrap();
        if block["type"] == "tool_use" {
            for piece in pieces(&block["input"].to_string()) {
                stream
                    .push(&json!({ "type": "content_block_delta", "index": i, "delta": { "type": "input_json_delta", "partial_json": piece } }))
                    .unwrap();
            }
        }
        stream
            .push(&json!({ "type": "content_block_stop", "index": i }))
            .unwrap();
    }
    stream.push(&json!({ "type": "message_stop" })).unwrap();
    same(
        &Provider::Anthropic.calls_from(&stream.finish()).unwrap(),
        &Provider::Anthropic.calls_from(&response).unwrap(),
    );

    // A stream cut mid-input: the call is an error result, not lost.
    let mut cut = Provider::Anthropic.stream();
    cut.push(&json!({ "type": "content_block_start", "index": 0, "content_block": { "type": "tool_use", "id": "t1", "name": "read_file", "input": {} } })).unwrap();
    cut.push(&json!({ "type": "content_block_delta", "index": 0, "delta": { "type": "input_json_delta", "partial_json": "{\"path\": \"a" } })).unwrap();
    let calls = Provider::Anthropic.calls_from(&cut.finish()).unwrap();
    assert_eq!(calls.ids(), ["t1"]);
    assert!(
        calls
            .invalid()
            .next()
            .unwrap()
            .content()
            .contains("not valid JSON")
    );

    // Chat: the first fragment has id and name, the rest argument pieces.
    let response = recorded("openai-chat");
    let mut stream = Provider::OpenAiChat.stream();
    for (i, call) in response["choices"][0]["message"]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        stream
            .push(&json!({ "choices": [{ "index": 0, "delta": { "tool_calls": [{ "index": i, "id": call["id"], "type": "function", "function": { "name": call["function"]["name"], "arguments": "" } }] } }] }))
            .unwrap();
        for piece in pieces(call["function"]["arguments"].as_str().unwrap()) {
            stream
                .push(&json!({ "choices": [{ "index": 0, "delta": { "tool_calls": [{ "index": i, "function": { "arguments": piece } }] } }] }))
                .unwrap();
        }
    }
    stream
        .push(&json!({ "choices": [{ "index": 0, "delta": {}, "finish_reason": "tool_calls" }] }))
        .unwrap();
    same(
        &Provider::OpenAiChat.calls_from(&stream.finish()).unwrap(),
        &Provider::OpenAiChat.calls_from(&response).unwrap(),
    );

    // Responses: item added with empty arguments, deltas, item done never
    // sent (the deltas alone must do).
    let response = recorded("openai-responses");
    let mut stream = Provider::OpenAiResponses.stream();
    for (i, item) in response["output"].as_array().unwrap().iter().enumerate() {
        let mut added = item.clone();
        if item["type"] == "function_call" {
            added["arguments"] = json!("");
        }
        stream
            .push(
                &json!({ "type": "response.output_item.added", "output_index": i, "item": added }),
            )
            .unwrap();
        if item["type"] == "function_call" {
            for piece in pieces(item["arguments"].as_str().unwrap()) {
                stream
                    .push(&json!({ "type": "response.function_call_arguments.delta", "output_index": i, "delta": piece }))
                    .unwrap();
            }
        }
    }
    same(
        &Provider::OpenAiResponses
            .calls_from(&stream.finish())
            .unwrap(),
        &Provider::OpenAiResponses.calls_from(&response).unwrap(),
    );
}

#[test]
fn responses_that_are_not_responses_are_errors_not_panics() {
    for bad in [
        json!(null),
        json!([1]),
        json!({ "content": 3 }),
        json!({ "content": [{ "type": "tool_use", "name": "x", "input": {} }] }),
    ] {
        assert!(Provider::Anthropic.calls_from(&bad).is_err(), "{bad}");
    }
    for bad in [
        json!({}),
        json!({ "choices": [] }),
        json!({ "role": "assistant", "tool_calls": 7 }),
    ] {
        assert!(Provider::OpenAiChat.calls_from(&bad).is_err(), "{bad}");
    }
    for bad in [
        json!({}),
        json!({ "output": [{ "type": "function_call", "name": "x", "arguments": "{}" }] }),
    ] {
        assert!(Provider::OpenAiResponses.calls_from(&bad).is_err(), "{bad}");
    }
    // Arguments of every wrong kind are that call's error, named.
    for (arguments, says) in [
        ("", None),
        ("{", Some("not valid JSON")),
        ("null", Some("are null where")),
        ("\"s\"", Some("are a string where")),
        ("[1]", Some("are an array where")),
    ] {
        let response = json!({ "role": "assistant", "tool_calls": [{ "id": "c", "type": "function", "function": { "name": "read_file", "arguments": arguments } }] });
        let calls = Provider::OpenAiChat.calls_from(&response).unwrap();
        assert_eq!(calls.ids(), ["c"]);
        match says {
            None => assert_eq!(calls.calls().next().unwrap().input, json!({})),
            Some(says) => {
                let text = calls.invalid().next().unwrap().content().to_owned();
                assert!(
                    text.contains(says) && text.contains("`read_file`"),
                    "{text}"
                );
            }
        }
    }
}

mod round_trip {
    use super::*;
    use proptest::prelude::*;

    fn result() -> impl Strategy<Value = ToolCallResult> {
        let id = "[a-zA-Z0-9_\\-]{1,12}|\\PC{0,8}";
        let blocks = prop::collection::vec(
            prop_oneof![
                "\\PC{0,20}".prop_map(ContentBlock::Text),
                prop::collection::vec(any::<u8>(), 0..16)
                    .prop_map(|b| ContentBlock::Image(Image::new(b, "image/png"))),
                any::<u32>().prop_map(|n| ContentBlock::Json(json!({ "n": n }))),
            ],
            0..4,
        );
        (id, blocks, any::<bool>()).prop_map(|(id, blocks, is_error)| {
            ToolCallResult::from_output(id, ToolOutput::new(blocks), is_error)
        })
    }

    proptest! {
        #[test]
        fn ids_and_order_survive_every_adapter(results in prop::collection::vec(result(), 0..8)) {
            let ids: Vec<&str> = results.iter().map(ToolCallResult::id).collect();

            let message = &Provider::Anthropic.results_to(&results)[0];
            let got: Vec<&str> = message["content"].as_array().unwrap().iter().map(|b| b["tool_use_id"].as_str().unwrap()).collect();
            prop_assert_eq!(&got, &ids);
            for (block, result) in message["content"].as_array().unwrap().iter().zip(&results) {
                prop_assert_eq!(block.get("is_error").is_some(), result.is_error());
            }

            let messages = Provider::OpenAiChat.results_to(&results);
            let got: Vec<&str> = messages.iter().filter(|m| m["role"] == "tool").map(|m| m["tool_call_id"].as_str().unwrap()).collect();
            prop_assert_eq!(&got, &ids);

            let items = Provider::OpenAiResponses.results_to(&results);
            let got: Vec<&str> = items.iter().map(|i| i["call_id"].as_str().unwrap()).collect();
            prop_assert_eq!(&got, &ids);
        }
    }
}

/// Validates with the official SDKs' types when `REGISTRY_PROVIDER_PYTHON`
/// names a Python that has them (`.ci/run` installs them pinned and sets
/// `REGISTRY_PROVIDER_PYTHON_REQUIRED`, so CI never skips this).
fn validate(format: &str, tools: &str, next: Vec<Value>, response: &Value) {
    let Some(python) = std::env::var_os("REGISTRY_PROVIDER_PYTHON") else {
        assert!(
            std::env::var_os("REGISTRY_PROVIDER_PYTHON_REQUIRED").is_none(),
            "REGISTRY_PROVIDER_PYTHON_REQUIRED is set but REGISTRY_PROVIDER_PYTHON is not"
        );
        eprintln!("SKIPPED: set REGISTRY_PROVIDER_PYTHON to validate against the provider SDKs");
        return;
    };
    let tools: Value = serde_json::from_str(tools).unwrap();
    let doc = json!({ "format": format, "tools": tools, "next": next, "response": response });
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), doc.to_string()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/validate_provider.py");
    let out = std::process::Command::new(python)
        .arg(script)
        .arg(file.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{format}: the SDK types refuse what we send:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What a hostile or unusual stream sends: an index far past the next
/// block is an error (never an allocation), servers that send every
/// parallel call at index 0 or no index at all still give each call, and
/// thinking blocks come back exactly as they were streamed.
#[test]
fn streams_hold_against_odd_and_hostile_events() {
    for index in [1u64, 1 << 40, u64::MAX] {
        let mut stream = Provider::Anthropic.stream();
        let event = json!({ "type": "content_block_start", "index": index, "content_block": { "type": "text", "text": "" } });
        assert!(stream.push(&event).is_err(), "{index}");
        let mut stream = Provider::OpenAiChat.stream();
        let chunk = json!({ "choices": [{ "index": 0, "delta": { "tool_calls": [{ "index": index, "id": "c", "function": { "name": "x", "arguments": "" } }] } }] });
        assert!(stream.push(&chunk).is_err(), "{index}");
        let mut stream = Provider::OpenAiResponses.stream();
        let event =
            json!({ "type": "response.output_item.added", "output_index": index, "item": {} });
        assert!(stream.push(&event).is_err(), "{index}");
    }

    // Two parallel calls, both at index 0, told apart by their ids; then
    // a server that sends no index at all.
    let mut stream = Provider::OpenAiChat.stream();
    for (id, name, args) in [
        ("a", "read_file", "{\"path\":\"a\"}"),
        ("b", "screenshot", "{}"),
    ] {
        let head = json!({ "choices": [{ "index": 0, "delta": { "tool_calls": [{ "index": 0, "id": id, "function": { "name": name, "arguments": "" } }] } }] });
        stream.push(&head).unwrap();
        let body = json!({ "choices": [{ "index": 0, "delta": { "tool_calls": [{ "index": 0, "function": { "arguments": args } }] } }] });
        stream.push(&body).unwrap();
    }
    let calls = Provider::OpenAiChat.calls_from(&stream.finish()).unwrap();
    assert_eq!(calls.ids(), ["a", "b"]);
    let names: Vec<&str> = calls.calls().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["read_file", "screenshot"]);

    let mut stream = Provider::OpenAiChat.stream();
    for fragment in [
        json!({ "id": "x", "function": { "name": "read_file", "arguments": "{\"pa" } }),
        json!({ "function": { "arguments": "th\":\"q\"}" } }),
        json!({ "id": "y", "function": { "name": "screenshot", "arguments": "{}" } }),
    ] {
        stream
            .push(&json!({ "choices": [{ "index": 0, "delta": { "tool_calls": [fragment] } }] }))
            .unwrap();
    }
    let calls = Provider::OpenAiChat.calls_from(&stream.finish()).unwrap();
    assert_eq!(calls.ids(), ["x", "y"]);
    assert_eq!(calls.calls().next().unwrap().input, json!({ "path": "q" }));

    // Thinking, its signature and a tool call, streamed.
    let mut stream = Provider::Anthropic.stream();
    for event in [
        json!({ "type": "content_block_start", "index": 0, "content_block": { "type": "thinking", "thinking": "", "signature": "" } }),
        json!({ "type": "content_block_delta", "index": 0, "delta": { "type": "thinking_delta", "thinking": "Let me " } }),
        json!({ "type": "content_block_delta", "index": 0, "delta": { "type": "thinking_delta", "thinking": "read it." } }),
        json!({ "type": "content_block_delta", "index": 0, "delta": { "type": "signature_delta", "signature": "sig==" } }),
        json!({ "type": "content_block_stop", "index": 0 }),
        json!({ "type": "content_block_start", "index": 1, "content_block": { "type": "tool_use", "id": "t", "name": "read_file", "input": {} } }),
        json!({ "type": "content_block_delta", "index": 1, "delta": { "type": "input_json_delta", "partial_json": "{\"path\": \"a" } }),
    ] {
        stream.push(&event).unwrap();
    }
    let message = stream.finish();
    assert_eq!(
        message["content"][0],
        json!({ "type": "thinking", "thinking": "Let me read it.", "signature": "sig==" })
    );
    // The cut call is that call's error, and the echo carries `{}` for it.
    let w = world();
    let (executor, _, _) = setup(&w, ProviderFormat::Anthropic);
    let next = runtime()
        .block_on(Provider::Anthropic.respond(&executor, &message))
        .unwrap();
    assert_eq!(next.echo[0]["content"][1]["input"], json!({}));
    assert_eq!(next.results[0]["content"][0]["is_error"], true);
}

#[test]
fn openai_formats_name_images_they_cannot_take_and_native_search_is_answered_natively() {
    let svg = ToolCallResult::from_output(
        "c1",
        ToolOutput::image(b"<svg/>".to_vec(), "image/svg+xml"),
        false,
    );
    let messages = Provider::OpenAiChat.results_to(std::slice::from_ref(&svg));
    assert_eq!(messages.len(), 1, "no attachment message for an SVG");
    assert!(
        messages[0]["content"]
            .as_str()
            .unwrap()
            .contains("not sent")
    );
    let items = Provider::OpenAiResponses.results_to(&[svg]);
    assert_eq!(items[0]["output"][0]["type"], "input_text");

    // A native tool_search_call whose arguments cannot be read is still
    // answered with a tool_search_output (loading nothing); the reasoning
    // item is echoed with the calls.
    let w = world();
    let (executor, _, _) = setup(&w, ProviderFormat::OpenAiResponses);
    let response = json!({ "output": [
        { "type": "reasoning", "id": "rs_1", "summary": [] },
        { "type": "tool_search_call", "id": "ts", "call_id": "s1", "execution": "client", "arguments": "{oops", "status": "completed" },
    ] });
    let next = runtime()
        .block_on(Provider::OpenAiResponses.respond(&executor, &response))
        .unwrap();
    assert_eq!(next.echo[0]["type"], "reasoning");
    assert_eq!(next.results[0]["type"], "tool_search_output");
    assert_eq!(next.results[0]["tools"], json!([]));
}

/// `tool_search` is answered from the hits its result carries, as its
/// text would read: found tools as `tool_reference` blocks (Anthropic) or
/// definitions (Responses); a `select:` that also names an unknown tool
/// leaves Anthropic's answer as that text, and Responses still loads what
/// was found; a result the executor cut is text, and loads nothing.
#[test]
fn tool_search_is_answered_from_its_hits() {
    use registry_core::{ToolCall, execute::ExecutorConfig};
    use std::num::NonZeroUsize;

    let search = |query: &str| {
        vec![ToolCall::new(
            "s1",
            "tool_search",
            json!({ "query": query }),
        )]
    };
    let found = "select:mcp__github__merge_pull_request";
    let with_unknown = "select:mcp__github__merge_pull_request,no_such_tool";
    let w = world();
    let run =
        |executor: &Executor, query: &str| runtime().block_on(executor.run_turn(search(query)));

    let (executor, _, _) = setup(&w, ProviderFormat::Anthropic);
    let results = run(&executor, found);
    assert_eq!(
        Provider::Anthropic.results_to(&results)[0]["content"][0]["content"],
        json!([{ "type": "tool_reference", "tool_name": "mcp__github__merge_pull_request" }])
    );
    let results = run(&executor, with_unknown);
    assert!(
        results[0]
            .content()
            .contains("No tool is named: no_such_tool")
    );
    assert_eq!(
        Provider::Anthropic.results_to(&results)[0]["content"][0]["content"],
        json!([{ "type": "text", "text": results[0].content() }])
    );

    let (executor, _, _) = setup(&w, ProviderFormat::OpenAiResponses);
    let items = Provider::OpenAiResponses.results_to(&run(&executor, with_unknown));
    assert_eq!(items[0]["type"], "tool_search_output");
    assert_eq!(items[0]["tools"][0]["name"], "github");
    assert_eq!(
        items[0]["tools"][0]["tools"][0]["name"],
        "merge_pull_request"
    );

    // A turn budget far below the result: cut to a preview.
    for format in [ProviderFormat::Anthropic, ProviderFormat::OpenAiResponses] {
        let executor = w
            .registry
            .executor()
            .config(
                ExecutorConfig::new()
                    .preview_chars(NonZeroUsize::new(20).unwrap())
                    .turn_budget(Some(30)),
            )
            .tool_search_with(Arc::clone(&w.index), DeferralPolicy::Always, format)
            .build();
        let results = run(&executor, found);
        assert!(
            results[0].content().contains("[output truncated"),
            "{}",
            results[0].content()
        );
        if format == ProviderFormat::Anthropic {
            assert_eq!(
                Provider::Anthropic.results_to(&results)[0]["content"][0]["content"],
                json!([{ "type": "text", "text": results[0].content() }])
            );
        } else {
            let items = Provider::OpenAiResponses.results_to(&results);
            assert_eq!(items[0]["tools"], json!([]));
        }
    }
}

/// [`world`] with a second MCP server, `notes`: `search` (always loaded,
/// so it runs without a search first) and `archive` (deferred); `reverse`
/// registers them the other way round.
fn namespaced_world(reverse: bool) -> World {
    use registry_core::declare::Loading;
    let search = ToolBuilder::new("mcp__notes__search", "Find notes by text.")
        .remote_origin(RemoteOrigin::new("notes", "search"))
        .loading(Loading::AlwaysLoad)
        .read_only(true)
        .input_schema(json!({
            "type": "object",
            "properties": { "q": { "type": "string" } },
            "required": ["q"],
        }))
        .build(|args: Value, _cx| async move {
            Ok(ToolOutput::text(format!("notes about {}", args["q"])))
        })
        .unwrap();
    let archive = ToolBuilder::new("mcp__notes__archive", "Archive a note.")
        .remote_origin(RemoteOrigin::new("notes", "archive"))
        .build(|_: Value, _cx| async move { Ok(ToolOutput::text("archived")) })
        .unwrap();
    let mut extra = vec![("notes", search), ("notes", archive)];
    if reverse {
        extra.reverse();
    }
    world_with(extra)
}

/// The session render for OpenAI Responses puts each MCP server's tools
/// into one namespace, where its first tool stood, under their short
/// names and otherwise exactly as they are flat; native tools stay flat;
/// the bytes are the same whatever order the tools were registered in
/// and stay the same while tools are discovered; the render without the
/// client tool search stays flat.
#[test]
fn openai_responses_puts_each_mcp_server_in_a_namespace() {
    let w = namespaced_world(false);
    let (executor, pool, session) = setup(&w, ProviderFormat::OpenAiResponses);
    let text = pool.for_session(&session).render_openai_responses();
    let tools: Value = serde_json::from_str(&text).unwrap();
    golden_value("openai-responses-namespaced-tools", &tools);
    let entries: Vec<(&str, &str)> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["type"].as_str().unwrap(),
                t["name"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        entries,
        [
            ("function", "delete_file"),
            ("function", "read_file"),
            ("function", "report"),
            ("function", "screenshot"),
            ("tool_search", ""),
            ("namespace", "github"),
            ("namespace", "notes"),
            ("programmatic_tool_calling", ""),
        ]
    );
    let notes = &tools[6];
    assert_eq!(notes["description"], "Tools of the MCP server \"notes\".");
    // Each member is its flat definition under its short name, deferred
    // as the session decided.
    for (member, full, deferred) in [
        (&notes["tools"][0], "mcp__notes__archive", true),
        (&notes["tools"][1], "mcp__notes__search", false),
    ] {
        let tool = pool.get(full).unwrap();
        let mut flat = ProviderFormat::OpenAiResponses.definition(tool);
        flat["name"] = json!(&full["mcp__notes__".len()..]);
        if deferred {
            flat["defer_loading"] = json!(true);
        }
        assert_eq!(member, &flat, "{full}");
    }
    assert_eq!(notes["tools"][1]["strict"], true);

    // Registered the other way round: the same bytes.
    let reversed = namespaced_world(true);
    let (_, other_pool, other_session) = setup(&reversed, ProviderFormat::OpenAiResponses);
    assert_eq!(
        other_pool
            .for_session(&other_session)
            .render_openai_responses(),
        text
    );

    // Discovery (through a namespaced search answer) changes no byte.
    let response = recorded("openai-responses-namespaced");
    runtime()
        .block_on(Provider::OpenAiResponses.respond(&executor, &response))
        .unwrap();
    assert!(session.is_discovered("mcp__notes__archive"));
    assert_eq!(pool.for_session(&session).render_openai_responses(), text);

    // Without the client tool search: flat, full names.
    let flat = pool
        .for_session(&session)
        .render_openai_responses_without_tool_search();
    assert!(!flat.contains("\"namespace\""), "{flat}");
    assert!(flat.contains("\"name\":\"mcp__notes__search\""), "{flat}");
}

/// A namespaced `function_call` runs `mcp__<namespace>__<name>` and is
/// answered by its `call_id`; found MCP tools come back inside their
/// namespaces; a second turn calls a found tool by namespace; and the
/// whole round trip (tools, response, echo and results) validates against
/// the SDK's types, with every namespaced call naming a declared function.
#[test]
fn a_namespaced_call_runs_its_tool_and_round_trips_through_the_sdk_types() {
    let w = namespaced_world(false);
    let (executor, pool, session) = setup(&w, ProviderFormat::OpenAiResponses);
    let tools = pool.for_session(&session).render_openai_responses();
    let response = recorded("openai-responses-namespaced");
    let calls = Provider::OpenAiResponses.calls_from(&response).unwrap();
    let names: Vec<&str> = calls.calls().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["mcp__notes__search", "read_file", "tool_search"]);
    let next = runtime()
        .block_on(Provider::OpenAiResponses.respond(&executor, &response))
        .unwrap();
    golden("openai-responses-namespaced", &next);
    assert_eq!(next.echo[1]["namespace"], "notes", "echoed as sent");
    assert_eq!(next.echo[1]["name"], "search");
    assert_eq!(
        next.results[0],
        json!({ "type": "function_call_output", "call_id": "call_01", "output": "notes about \"rust\"" })
    );
    let found = &next.results[2];
    assert_eq!(found["type"], "tool_search_output");
    let loaded: Vec<(&str, Vec<&str>)> = found["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|ns| {
            let members = ns["tools"].as_array().unwrap();
            (
                ns["name"].as_str().unwrap(),
                members
                    .iter()
                    .map(|t| t["name"].as_str().unwrap())
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        loaded,
        [
            ("github", vec!["merge_pull_request"]),
            ("notes", vec!["archive"])
        ]
    );
    let mut items = next.echo.clone();
    items.extend(next.results.clone());
    validate("openai-responses", &tools, items.clone(), &response);

    // Turn two: the found tool, called in its namespace, is now loaded.
    let second = json!({
        "id": "resp_ns_02", "object": "response", "created_at": 1764633601, "model": "gpt-5.4",
        "status": "completed", "parallel_tool_calls": true, "tool_choice": "auto", "tools": [],
        "output": [{ "type": "function_call", "id": "fc_04", "call_id": "call_04", "namespace": "notes", "name": "archive", "arguments": "{}", "status": "completed" }],
    });
    let next = runtime()
        .block_on(Provider::OpenAiResponses.respond(&executor, &second))
        .unwrap();
    let output = next.results[0]["output"].as_str().unwrap();
    assert!(!output.contains("no such tool"), "{output}");
    assert!(!output.contains("deferred"), "{output}");
    assert!(output.contains("mcp__notes__archive"), "{output}");
    items.extend(next.echo);
    items.extend(next.results);
    validate("openai-responses", &tools, items, &second);
}

/// A namespace that cannot be ours is that call's error, naming it; one
/// of the right form that no server has is the executor's unknown tool;
/// a flat call of an imported tool still runs; the streamed form carries
/// the namespace through.
#[test]
fn a_wrong_namespace_is_an_error_that_names_it() {
    let w = namespaced_world(false);
    let (executor, _, _) = setup(&w, ProviderFormat::OpenAiResponses);
    let call = |id: &str, namespace: Value, name: &str, arguments: &str| json!({ "type": "function_call", "call_id": id, "namespace": namespace, "name": name, "arguments": arguments });
    let response = json!({ "output": [
        call("w1", json!("nope"), "search", "{}"),
        call("w2", json!("a__b"), "c", "{}"),
        call("w3", json!(""), "search", "{}"),
        call("w4", json!(7), "search", "{}"),
        call("w5", Value::Null, "mcp__notes__search", "{\"q\":\"flat\"}"),
        call("w6", json!("notes"), "search", "[1]"),
    ] });
    let calls = Provider::OpenAiResponses.calls_from(&response).unwrap();
    assert_eq!(calls.ids(), ["w1", "w2", "w3", "w4", "w5", "w6"]);
    let runnable: Vec<&str> = calls.calls().map(|c| c.name.as_str()).collect();
    assert_eq!(runnable, ["mcp__nope__search", "mcp__notes__search"]);
    let next = runtime()
        .block_on(Provider::OpenAiResponses.respond(&executor, &response))
        .unwrap();
    let outputs: Vec<&str> = next
        .results
        .iter()
        .map(|r| r["output"].as_str().unwrap())
        .collect();
    assert_eq!(outputs[0], "Error: no such tool: `mcp__nope__search`");
    assert!(
        outputs[1].starts_with("Error: ") && outputs[1].contains("there is no namespace `a__b`"),
        "{}",
        outputs[1]
    );
    assert!(
        outputs[2].contains("there is no namespace ``"),
        "{}",
        outputs[2]
    );
    assert!(
        outputs[3].contains("its namespace is not a string"),
        "{}",
        outputs[3]
    );
    assert_eq!(outputs[4], "notes about \"flat\"");
    // Arguments that cannot be read name the tool the namespace resolved to.
    assert!(
        outputs[5].contains("`mcp__notes__search`") && outputs[5].contains("an array"),
        "{}",
        outputs[5]
    );

    let mut stream = Provider::OpenAiResponses.stream();
    let item = json!({ "type": "function_call", "id": "fc", "call_id": "s1", "namespace": "notes", "name": "search", "arguments": "" });
    for event in [
        json!({ "type": "response.output_item.added", "output_index": 0, "item": item }),
        json!({ "type": "response.function_call_arguments.delta", "output_index": 0, "delta": "{\"q\":" }),
        json!({ "type": "response.function_call_arguments.delta", "output_index": 0, "delta": "\"s\"}" }),
    ] {
        stream.push(&event).unwrap();
    }
    let calls = Provider::OpenAiResponses
        .calls_from(&stream.finish())
        .unwrap();
    let call = calls.calls().next().unwrap();
    assert_eq!(
        (call.name.as_str(), &call.input),
        ("mcp__notes__search", &json!({ "q": "s" }))
    );
}
