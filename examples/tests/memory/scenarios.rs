//! What a child runs: one scenario, through the same path a runtime takes,
//! from the text a provider or a server sent to the result the runtime
//! gets. Each checks its outcome, so a scenario that took a shortcut (a
//! call refused before it reached the part under test) fails instead of
//! measuring nothing.

use std::sync::Arc;

use registry_core::declare::imported::{DefinitionImport, RemoteToolDefinition};
use registry_core::execute::ExecutorConfig;
use registry_core::permission::{Approval, ApprovalRequest, Approver, JudgeFuture};
use registry_core::permission::{RuleBehavior, RuleSource};
use registry_core::provider::Provider;
use registry_core::render::AnthropicOptions;
use registry_core::serde_json::{self, Value, json};
use registry_core::{
    Flags, PermissionContent, PermissionContext, PermissionMode, Tool, ToolCall, ToolContext,
    ToolOutput, ToolRegistry, catalog::BaseTools, tool,
};
use registry_examples::Sandbox;
use schemars::JsonSchema;
use serde::Deserialize;

use super::payload;

/// Runs the scenario `name` with a payload of `size` (bytes, or tools for
/// the catalog).
pub fn run(name: &str, size: usize) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    match name {
        "argument" => runtime.block_on(argument(size)),
        "imported_argument" => runtime.block_on(imported_argument(size)),
        "result_spilled" => runtime.block_on(result(size, true)),
        "result_cut" => runtime.block_on(result(size, false)),
        "command" => runtime.block_on(command(size)),
        "catalog" => catalog(size),
        other => panic!("no scenario `{other}`"),
    }
}

/// The argument scenario's tool: a typed `#[tool]` whose big field is an
/// ordinary `String`, and whose permission content is its path.
///
/// Keep a note in the workspace's notes.
#[tool(
    name = "store_note",
    concurrency_safe = false,
    read_only = false,
    destructive = false
)]
#[derive(Debug, Default)]
struct StoreNote;

/// The arguments of `store_note`.
#[derive(Debug, Deserialize, JsonSchema)]
struct StoreNoteInput {
    /// Where the note goes.
    path: String,
    /// The note.
    text: String,
}

impl Tool for StoreNote {
    type Input = StoreNoteInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: StoreNoteInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        let lines = input.text.lines().count();
        Ok(format!(
            "stored {} bytes ({lines} lines) at {}",
            input.text.len(),
            input.path
        ))
    }

    fn permission_content(&self, input: &StoreNoteInput) -> Option<PermissionContent> {
        Some(PermissionContent::path(&input.path))
    }
}

/// The result scenarios' tool: prints `bytes` bytes of log.
///
/// Print the build log.
#[tool(name = "build_log", read_only = true, concurrency_safe = true)]
#[derive(Debug, Default)]
struct BuildLog;

/// The arguments of `build_log`.
#[derive(Debug, Deserialize, JsonSchema)]
struct BuildLogInput {
    /// How many bytes of log to print.
    bytes: usize,
}

impl Tool for BuildLog {
    type Input = BuildLogInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: BuildLogInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(payload::log(input.bytes))
    }
}

/// Approves every call it is asked about, having looked at what it was
/// shown, as a UI would.
struct ApproveAll;

impl Approver for ApproveAll {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest) -> JudgeFuture<'a, Approval> {
        Box::pin(async move {
            assert!(request.input.is_object() && !request.reason.is_empty());
            Approval::AllowOnce
        })
    }
}

/// The rules a project might have: deny and allow rules with content
/// patterns of every form, for the tools the scenarios call.
fn rules() -> PermissionContext {
    let mut rules = PermissionContext::new();
    for (behavior, rule) in [
        (RuleBehavior::Deny, "store_note(secrets/**)"),
        (RuleBehavior::Deny, "store_note(*.pem)"),
        (RuleBehavior::Allow, "store_note(notes:*)"),
        (RuleBehavior::Deny, "run_command(rm:*)"),
        (RuleBehavior::Deny, "run_command(git push * --force)"),
        (RuleBehavior::Allow, "run_command(ls:*)"),
        (
            RuleBehavior::Deny,
            "mcp__notes__append(*BEGIN PRIVATE KEY*)",
        ),
        (RuleBehavior::Deny, "mcp__notes__append(password:*)"),
    ] {
        rules
            .add_rule(RuleSource::Project, behavior, rule)
            .expect("a valid rule");
    }
    rules
}

/// A registry of the linked tools (the examples' and this test's), its
/// sandbox and an executor over it in the default mode, with `rules`,
/// an approver that allows, and `config`.
struct Setup {
    registry: ToolRegistry,
    _dir: tempfile::TempDir,
    sandbox: std::path::PathBuf,
}

impl Setup {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let sandbox = dir.path().to_path_buf();
        Setup {
            registry: ToolRegistry::new(BaseTools::linked(&Flags::new()).expect("catalog")),
            _dir: dir,
            sandbox,
        }
    }

    fn executor(&self, config: ExecutorConfig) -> registry_core::Executor {
        self.registry
            .executor()
            .permissions(rules())
            .mode(PermissionMode::Default)
            .approver(Arc::new(ApproveAll))
            .config(config)
            .context(Sandbox::new(&self.sandbox).expect("sandbox").context())
            .build()
    }
}

/// A model's Anthropic response holding one `tool_use` of `store_note`
/// with a `size`-byte `text`: parsed, run by `Provider::respond` (rules
/// checked on its path, the body run), to the next request's
/// `tool_result`.
async fn argument(size: usize) {
    let setup = Setup::new();
    let executor = setup.executor(ExecutorConfig::new());
    let prefix = r#"{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Saving the notes."},{"type":"tool_use","id":"toolu_1","name":"store_note","input":{"path":"notes/long.md","text":""#;
    let suffix = r#""}}],"stop_reason":"tool_use"}"#;
    let response = payload::response(prefix, payload::Kind::Note, size, 1, suffix);

    let next = Provider::Anthropic
        .respond(&executor, &response)
        .await
        .expect("a Messages response");
    let result = &next.results[0]["content"][0];
    assert_eq!(result["is_error"], Value::Null, "{result}");
    let said = result["content"][0]["text"].as_str().expect("text");
    assert!(said.starts_with(&format!("stored {size} bytes")), "{said}");
    assert_eq!(
        next.echo[0]["content"][1]["input"]["text"]
            .as_str()
            .map(str::len),
        Some(size)
    );
}

/// The same through an imported tool (a definition a server listed, not
/// trusted, so every call asks) and OpenAI Chat, whose `arguments` are a
/// JSON string inside the JSON response: content rules see the arguments
/// as canonical JSON, and the approver sees them too.
async fn imported_argument(size: usize) {
    let setup = Setup::new();
    let definition: RemoteToolDefinition = serde_json::from_value(json!({
        "name": "append",
        "description": "Append text to a note.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "path": { "type": "string", "description": "The note." },
                "text": { "type": "string", "description": "What to append." }
            },
            "required": ["path", "text"]
        },
        "_meta": { "anthropic/alwaysLoad": true }
    }))
    .expect("a definition");
    let append = DefinitionImport::new("notes")
        .import(&definition, |args, _cx| async move {
            let bytes = args["text"].as_str().map_or(0, str::len);
            Ok(ToolOutput::text(format!("appended {bytes} bytes")))
        })
        .expect("imports");
    setup
        .registry
        .plugins()
        .register("notes", append)
        .expect("registers")
        .detach();
    let executor = setup.executor(ExecutorConfig::new());

    let prefix = r#"{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"mcp__notes__append","arguments":"{\"path\":\"notes/long.md\",\"text\":\""#;
    let suffix = r#"\"}"}}]}}]}"#;
    let response = payload::response(prefix, payload::Kind::Note, size, 2, suffix);

    let next = Provider::OpenAiChat
        .respond(&executor, &response)
        .await
        .expect("a Chat response");
    let said = next.results[0]["content"].as_str().expect("text");
    assert_eq!(said, format!("appended {size} bytes"));
}

/// A tool printing `size` bytes, run by the executor and capped to its
/// 50,000 characters: spilled to a file (`spill`) or cut with a notice,
/// then turned into the next Anthropic request.
async fn result(size: usize, spill: bool) {
    let setup = Setup::new();
    let spill_dir = tempfile::tempdir().expect("tempdir");
    let mut config = ExecutorConfig::new();
    if spill {
        config = config.spill_dir(spill_dir.path());
    }
    let executor = setup.executor(config);
    let results = executor
        .run_turn(vec![ToolCall::new(
            "toolu_1",
            "build_log",
            json!({ "bytes": size }),
        )])
        .await;
    let result = &results[0];
    assert!(!result.is_error(), "{}", result.content());
    assert!(result.content().chars().count() <= 51_000);
    if size <= 50_000 {
        assert_eq!(result.content().len(), size);
    } else if spill {
        let path = result.spilled_to().expect("spilled");
        assert_eq!(
            std::fs::metadata(path).expect("the spill file").len(),
            size as u64
        );
    } else {
        assert!(result.spilled_to().is_none());
    }
    let next =
        serde_json::to_string(&Provider::Anthropic.results_to(&results)).expect("serialises");
    assert!(next.len() < 60_000);
}

/// A `size`-byte command line for `run_command`, from a model's
/// Anthropic response: read by the shell reader (over its limit, so
/// unreadable, which must cost nothing), checked against the deny rules,
/// asked about, approved, and handed to the shell, which the kernel
/// refuses an argument that long.
async fn command(size: usize) {
    let setup = Setup::new();
    let executor = setup.executor(ExecutorConfig::new());
    let prefix = r#"{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"run_command","input":{"command":""#;
    let suffix = r#""}}],"stop_reason":"tool_use"}"#;
    let response = payload::response(prefix, payload::Kind::Script, size, 1, suffix);

    let next = Provider::Anthropic
        .respond(&executor, &response)
        .await
        .expect("a Messages response");
    let result = &next.results[0]["content"][0];
    let said = result["content"][0]["text"].as_str().expect("text");
    if size > run_limit() {
        // Approved, run, and refused by the kernel.
        assert_eq!(result["is_error"], true, "{said}");
        assert!(
            said.contains("could not start the sandboxed command"),
            "{said}"
        );
    } else {
        assert!(said.starts_with("exit code: "), "{said}");
    }
}

/// The longest command `execve` takes as one argument on Linux.
fn run_limit() -> usize {
    128 * 1024
}

/// `size` tool definitions as a server's `tools/list` result: parsed,
/// imported, registered as one plugin's tools, assembled into a pool and
/// rendered for Anthropic, OpenAI and MCP; all of it kept, as a runtime
/// keeps its catalog.
fn catalog(size: usize) {
    let mut text = String::from(r#"{"tools":["#);
    for i in 0..size {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&catalog_entry(i));
    }
    text.push_str("]}");
    #[derive(Deserialize)]
    struct List {
        tools: Vec<RemoteToolDefinition>,
    }
    let list: List = serde_json::from_str(&text).expect("a tools/list result");
    drop(text);

    let registry = ToolRegistry::new(BaseTools::linked(&Flags::new()).expect("catalog"));
    let import = DefinitionImport::new("catalog").trusted(true);
    let tools: Vec<_> = list
        .tools
        .iter()
        .map(|definition| {
            import
                .import(definition, |_, _| async { Ok(ToolOutput::text("done")) })
                .expect("imports")
        })
        .collect();
    drop(list);
    let errors = registry.plugins().replace_owner(import.owner(), tools);
    assert!(errors.is_empty(), "{errors:?}");

    let pool = registry.assemble_tool_pool(&PermissionContext::new());
    assert!(pool.len() >= size);
    let anthropic = pool.render_anthropic(AnthropicOptions::new());
    let openai = pool.render_openai_chat();
    let mcp = pool.render_mcp_tools_list();
    assert!(anthropic.len() > size * 100 && openai.len() > size * 100 && mcp.len() > size * 100);
    std::hint::black_box((&registry, &pool, &anthropic, &openai, &mcp));
}

/// One tool as a server might list it: a description of a few sentences
/// and a schema of three documented properties.
fn catalog_entry(i: usize) -> String {
    json!({
        "name": format!("query_table_{i:05}"),
        "title": format!("Query table {i}"),
        "description": format!(
            "Run a read-only query against table {i} of the warehouse and return at most \
             `limit` rows as JSON. Use `filter` to narrow the rows by column values; \
             columns not in the table are an error. Results are ordered by the primary key."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "filter": { "type": "string", "description": "A column filter, e.g. `status = 'open'`." },
                "limit": { "type": "integer", "minimum": 1, "maximum": 1000, "description": "Rows to return." },
                "columns": { "type": "array", "items": { "type": "string" }, "description": "Columns to include; all when absent." }
            },
            "required": ["filter"]
        },
        "annotations": { "readOnlyHint": true, "openWorldHint": false }
    })
    .to_string()
}
