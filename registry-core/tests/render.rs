//! Provider renderers: golden files for every format, the same bytes in a
//! second process, a built-in prefix that plugin churn never changes, and
//! renders cached per pool.
//!
//! `UPDATE_GOLDEN=1 cargo test -p registry-core --test render` rewrites the
//! files in `tests/golden/`.
//!
//! A test binary of its own, not a module of the shared `it`: the golden
//! pool's built-ins are the binary's linked list (`BaseTools::linked`),
//! exactly the tools declared here, and `schemas_are_generated_once_per_tool`
//! counts what building that list computes. Its `read_file` (and alias
//! `cat`) is declared by `pool` in `it` and by `input_examples` in
//! `linked_catalog` too, and `#[tool]` claims every name and alias as a
//! link-time symbol, so no two of those suites can share a binary: one of
//! `render` and `pool` has to be alone, and this is the one that reads its
//! linked list.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use registry_core::{
    Flags, PermissionContext, Tool, ToolBuilder, ToolContext, ToolHandle, ToolOutput, ToolRegistry,
    catalog::BaseTools,
    declare::Loading,
    pool::ToolPool,
    render::{AnthropicOptions, ProviderFormat},
    text::{to_canonical_pretty, to_canonical_string},
    tool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------
// Built-in fixtures.

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct ReadFileInput {
    /// Path relative to the workspace root.
    path: String,
    /// First line to return, 1-based.
    offset: Option<u32>,
    /// How many lines to return.
    limit: Option<u32>,
}

/// Read a UTF-8 file and return its contents with line numbers.
///
/// Binary files are refused.
#[tool(
    name = "read_file",
    aliases = ["Read", "cat"],
    concurrency_safe = true,
    read_only = true,
    max_result_chars = 100_000,
    allowed_callers = ["direct", "program"],
)]
struct ReadFile;

impl Tool for ReadFile {
    type Input = ReadFileInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: ReadFileInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.path)
    }
}

/// How line endings are written back.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
#[serde(rename_all = "snake_case")]
enum LineEndings {
    /// Keep whatever the file uses.
    Keep,
    /// Unix.
    Lf,
    /// Windows.
    Crlf,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Edit {
    /// Text to find; must occur in the file.
    old_text: String,
    /// Text to put in its place.
    new_text: String,
    /// Replace every occurrence, not only the first.
    replace_all: Option<bool>,
}

/// Where to keep a copy of the file before editing.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Backup {
    /// Directory for the copy.
    dir: String,
    /// How many copies to keep.
    keep: Option<u8>,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct EditFileInput {
    /// The file to edit.
    path: String,
    /// Replacements, applied in order.
    edits: Vec<Edit>,
    /// Line endings of the result.
    line_endings: Option<LineEndings>,
    backup: Option<Backup>,
}

/// Replace text in a file.
#[tool(name = "edit_file", read_only = false, destructive = true)]
struct EditFile;

impl Tool for EditFile {
    type Input = EditFileInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: EditFileInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.path)
    }
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct BashInput {
    /// The command line.
    command: String,
    /// Kill the command after this many milliseconds.
    timeout_ms: Option<u64>,
}

fn is_listing(input: &BashInput) -> bool {
    input.command.starts_with("ls")
}

/// Run a shell command and return its output.
#[tool(
    name = "bash",
    allowed_callers = ["direct"],
    concurrency_safe = is_listing,
    read_only = is_listing,
    destructive = |i: &BashInput| i.command.starts_with("rm"),
    max_result_chars = unbounded,
    user_facing_name = "Shell",
)]
struct Bash;

impl Tool for Bash {
    type Input = BashInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: BashInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.command)
    }
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct WebFetchInput {
    /// The URL to fetch.
    url: String,
    /// Extra request headers.
    #[serde(default)]
    headers: BTreeMap<String, String>,
}

/// Fetch a web page and return it as Markdown.
#[tool(
    name = "web_fetch",
    defer,
    read_only = true,
    user_facing_name = "Fetch URL",
    search_hint = "http download page url"
)]
struct WebFetch;

impl Tool for WebFetch {
    type Input = WebFetchInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: WebFetchInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.url)
    }
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
#[serde(rename_all = "snake_case")]
enum Status {
    Pending,
    Done,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct TodoItem {
    text: String,
    status: Status,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct TodoInput {
    /// The whole list, replacing the previous one.
    items: Vec<TodoItem>,
}

/// Replace the session's todo list.
#[tool(name = "todo_write")]
struct TodoWrite;

impl Tool for TodoWrite {
    type Input = TodoInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: TodoInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.items.len().to_string())
    }
}

/// Counts how often its schema is generated; only in the list with the
/// `counted` flag, which only `schemas_are_generated_once_per_tool` sets.
static SCHEMA_CALLS: AtomicUsize = AtomicUsize::new(0);

#[derive(Deserialize)]
#[allow(dead_code)]
struct CountedInput {
    n: u32,
}

impl JsonSchema for CountedInput {
    fn schema_name() -> Cow<'static, str> {
        "CountedInput".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        SCHEMA_CALLS.fetch_add(1, Ordering::SeqCst);
        schemars::json_schema!({
            "type": "object",
            "properties": { "n": { "type": "integer" } },
            "required": ["n"]
        })
    }
}

/// Count.
#[tool(name = "counted", flag = "counted")]
struct Counted;

impl Tool for Counted {
    type Input = CountedInput;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: CountedInput, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.n.to_string())
    }
}

// ---------------------------------------------------------------------------
// Plugin fixtures and pools.

fn plugin(builder: ToolBuilder) -> ToolHandle {
    builder
        .build(|_, _| async { Ok(ToolOutput::text("")) })
        .unwrap_or_else(|err| panic!("fixture plugin: {err}"))
}

/// The plugin tools of the golden pool, with their owners.
fn plugins() -> Vec<(&'static str, ToolHandle)> {
    vec![
        (
            "notes",
            plugin(
                ToolBuilder::new("mcp__notes__search", "Search notes by text.")
                    .input_schema(json!({
                        "type": "object",
                        "properties": {
                            "query": { "type": "string", "description": "Words to look for." },
                            "limit": { "type": "integer", "minimum": 1, "maximum": 50 }
                        },
                        "required": ["query"]
                    }))
                    .read_only(true)
                    .concurrency_safe(true)
                    .user_facing_name("Search notes"),
            ),
        ),
        (
            "notes",
            plugin(
                ToolBuilder::new("mcp__notes__tag", "Set tags on a note.")
                    .input_schema(json!({
                        "type": "object",
                        "properties": {
                            "note_id": { "type": "string" },
                            "tags": { "type": "object", "additionalProperties": { "type": "string" } }
                        },
                        "required": ["note_id", "tags"]
                    }))
                    .read_only(false)
                    .destructive_when(|args| args["tags"].as_object().is_some_and(|t| t.is_empty())),
            ),
        ),
        (
            "config",
            plugin(
                ToolBuilder::new(
                    "deploy",
                    "Deploy the site to production.\nRuns the build first.\n\nAsks before uploading.",
                )
                .loading(Loading::Deferred)
                .destructive(true),
            ),
        ),
        // Clashes with a built-in: dropped at assembly.
        (
            "rogue",
            plugin(ToolBuilder::new("read_file", "Not the real read_file.")),
        ),
    ]
}

fn base() -> BaseTools {
    BaseTools::linked(&Flags::new()).unwrap_or_else(|err| panic!("fixture catalog: {err}"))
}

/// The golden pool. `reverse` registers the plugins in reverse order,
/// which must not change a byte.
fn golden_pool(reverse: bool) -> ToolPool {
    let registry = ToolRegistry::new(base());
    let mut tools = plugins();
    if reverse {
        tools.reverse();
    }
    for (owner, tool) in tools {
        registry.plugins().register(owner, tool).unwrap().detach();
    }
    registry.assemble_tool_pool(&PermissionContext::new())
}

/// Every render of a pool, by golden file name.
fn renders(pool: &ToolPool) -> Vec<(&'static str, Arc<str>)> {
    vec![
        (
            "anthropic.json",
            pool.render_anthropic(AnthropicOptions::new()),
        ),
        (
            "anthropic_cache_control.json",
            pool.render_anthropic(AnthropicOptions::new().with_cache_control(true)),
        ),
        ("openai_chat.json", pool.render_openai_chat()),
        ("openai_responses.json", pool.render_openai_responses()),
        ("mcp_tools_list.json", pool.render_mcp_tools_list()),
        ("prompt.txt", pool.render_prompt_catalog()),
        ("typescript.d.ts", pool.render_typescript()),
    ]
}

// ---------------------------------------------------------------------------
// Golden files.

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn parse(text: &str, what: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|err| panic!("{what} is not JSON: {err}"))
}

/// One MCP `Tool` as `tools/list` writes it, rebuilt here from its value:
/// the `Tool` keys and the `annotations` keys in the order the MCP schema
/// declares them (the order an MCP SDK serialises its own `Tool` in, so
/// that re-serialising it changes no byte), everything inside (the
/// schemas) canonical.
fn mcp_wire_text(tool: &Value) -> String {
    const TOOL_KEYS: [&str; 6] = [
        "name",
        "title",
        "description",
        "inputSchema",
        "outputSchema",
        "annotations",
    ];
    const ANNOTATION_KEYS: [&str; 5] = [
        "title",
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    ];
    fn ordered(value: &Value, keys: &[&str], field: &dyn Fn(&str, &Value) -> String) -> String {
        let map = value
            .as_object()
            .unwrap_or_else(|| panic!("not an object: {value}"));
        let unknown: Vec<&String> = map.keys().filter(|k| !keys.contains(&k.as_str())).collect();
        assert!(unknown.is_empty(), "keys {unknown:?} in {value}");
        let fields: Vec<String> = keys
            .iter()
            .filter_map(|key| map.get(*key).map(|v| (*key, v)))
            .map(|(key, v)| format!("{}:{}", to_canonical_string(&json!(key)), field(key, v)))
            .collect();
        format!("{{{}}}", fields.join(","))
    }
    ordered(tool, &TOOL_KEYS, &|key, value| {
        if key == "annotations" {
            ordered(value, &ANNOTATION_KEYS, &|_, v| to_canonical_string(v))
        } else {
            to_canonical_string(value)
        }
    })
}

/// What the golden file holds for a render: JSON pretty-printed by the
/// canonical writer (for review and diffs), text as it is.
fn golden_text(name: &str, render: &str) -> String {
    if name.ends_with(".json") {
        format!("{}\n", to_canonical_pretty(&parse(render, name)))
    } else {
        render.to_owned()
    }
}

#[test]
fn renders_match_the_golden_files() {
    let pool = golden_pool(false);
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    for (name, render) in renders(&pool) {
        let path = golden_dir().join(name);
        let expected = golden_text(name, &render);
        if update {
            std::fs::create_dir_all(golden_dir()).unwrap();
            std::fs::write(&path, &expected).unwrap();
            continue;
        }
        let golden = std::fs::read_to_string(&path).unwrap_or_else(|err| {
            panic!(
                "{}: {err}; run `UPDATE_GOLDEN=1 cargo test -p registry-core --test render`",
                path.display()
            )
        });
        assert!(
            golden == expected,
            "{name} differs from its golden file; if the change is intended, run \
             `UPDATE_GOLDEN=1 cargo test -p registry-core --test render` and review the diff\n\
             --- golden\n{golden}\n--- rendered\n{expected}"
        );
        // The render itself is exactly the compact canonical form of the
        // golden JSON: byte for byte, not only the same value. MCP's is
        // the exception: each tool's keys are in MCP wire order (so that
        // an SDK re-serialising it sends the same bytes), the rest
        // canonical; see `mcp_wire_text`.
        if name == "mcp_tools_list.json" {
            let tools: Vec<String> = pool
                .iter()
                .map(|tool| mcp_wire_text(&ProviderFormat::Mcp.definition(tool)))
                .collect();
            assert_eq!(*render, format!(r#"{{"tools":[{}]}}"#, tools.join(",")));
        } else if name.ends_with(".json") {
            assert_eq!(
                *render,
                to_canonical_string(&parse(&golden, name)),
                "{name}"
            );
        }
    }
}

#[test]
fn the_golden_pool_has_the_expected_shape() {
    let pool = golden_pool(false);
    let names: Vec<&str> = pool.iter().map(ToolHandle::name).collect();
    assert_eq!(
        names,
        [
            "bash",
            "edit_file",
            "read_file",
            "todo_write",
            "web_fetch",
            "deploy",
            "mcp__notes__search",
            "mcp__notes__tag",
        ]
    );
    assert_eq!(pool.builtins().len(), 5);
    // web_fetch (the last built-in) is deferred: the breakpoint is on
    // todo_write, the last built-in in the cached prefix.
    assert_eq!(pool.anthropic_cache_breakpoint(), Some(3));
    // The clashing plugin lost to the built-in.
    assert_eq!(
        pool.get("read_file")
            .unwrap()
            .spec()
            .description()
            .lines()
            .next(),
        Some("Read a UTF-8 file and return its contents with line numbers.")
    );
}

#[test]
fn formats_carry_what_the_providers_need() {
    let pool = golden_pool(false);
    let anthropic = parse(&pool.render_anthropic(AnthropicOptions::new()), "anthropic");
    let by_name = |value: &Value, name: &str| -> Value {
        value
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name || t["function"]["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{name} missing"))
    };
    assert_eq!(
        by_name(&anthropic, "web_fetch")["defer_loading"],
        json!(true)
    );
    assert_eq!(by_name(&anthropic, "deploy")["defer_loading"], json!(true));
    assert!(by_name(&anthropic, "bash").get("defer_loading").is_none());
    let read = by_name(&anthropic, "read_file");
    assert!(read["input_schema"].get("$schema").is_none());
    assert!(read["input_schema"].get("title").is_none());
    // Not deferred, so the definition is exactly what the array holds.
    assert_eq!(
        read,
        ProviderFormat::Anthropic.definition(pool.get("read_file").unwrap())
    );

    let chat = parse(&pool.render_openai_chat(), "openai chat");
    let strict = |name: &str| by_name(&chat, name)["function"]["strict"].clone();
    assert_eq!(strict("read_file"), json!(true));
    assert_eq!(strict("edit_file"), json!(true));
    assert_eq!(strict("todo_write"), json!(true));
    assert_eq!(strict("mcp__notes__search"), json!(true));
    // Maps cannot be closed: the original schema, not strict.
    assert_eq!(strict("web_fetch"), json!(false));
    assert_eq!(strict("mcp__notes__tag"), json!(false));
    let tag = by_name(&chat, "mcp__notes__tag");
    assert_eq!(
        tag["function"]["parameters"],
        *pool.get("mcp__notes__tag").unwrap().input_schema()
    );
    let edit = by_name(&chat, "edit_file");
    let params = &edit["function"]["parameters"];
    assert_eq!(
        params["required"],
        json!(["backup", "edits", "line_endings", "path"])
    );
    assert_eq!(
        params["properties"]["backup"]["anyOf"][1],
        json!({ "type": "null" })
    );

    let responses = parse(&pool.render_openai_responses(), "openai responses");
    for (chat_tool, flat) in chat
        .as_array()
        .unwrap()
        .iter()
        .zip(responses.as_array().unwrap())
    {
        let mut nested = chat_tool["function"].clone();
        nested["type"] = json!("function");
        // Chat Completions has no programmatic calling: only Responses
        // says who may call a tool.
        let mut flat = flat.clone();
        flat.as_object_mut().unwrap().remove("allowed_callers");
        assert_eq!(nested, flat);
    }
    // Who may call a tool, in each provider's words, and the program tool
    // last where some tool may be called from a program.
    let callers =
        |render: &Value, name: &str| by_name(render, name).get("allowed_callers").cloned();
    assert_eq!(
        callers(&responses, "read_file"),
        Some(json!(["direct", "programmatic"]))
    );
    assert_eq!(callers(&responses, "bash"), Some(json!(["direct"])));
    assert_eq!(callers(&responses, "edit_file"), None);
    assert_eq!(
        responses.as_array().unwrap().last(),
        Some(&json!({ "type": "programmatic_tool_calling" }))
    );
    assert_eq!(
        chat.as_array().unwrap().len() + 1,
        responses.as_array().unwrap().len()
    );
    let anthropic = parse(&pool.render_anthropic(Default::default()), "anthropic");
    assert_eq!(
        callers(&anthropic, "read_file"),
        Some(json!(["direct", "code_execution_20260120"]))
    );
    assert_eq!(
        anthropic.as_array().unwrap().last(),
        Some(&json!({ "name": "code_execution", "type": "code_execution_20260120" }))
    );

    let mcp = parse(&pool.render_mcp_tools_list(), "mcp");
    let tools = &mcp["tools"];
    let annotations = |name: &str| by_name(tools, name).get("annotations").cloned();
    assert_eq!(
        annotations("read_file"),
        Some(json!({ "readOnlyHint": true }))
    );
    // Writes and destroys: exactly MCP's defaults, so no hint is needed.
    assert_eq!(annotations("edit_file"), None);
    assert_eq!(annotations("deploy"), None);
    // Per-input postures are omitted: only the title remains.
    assert_eq!(annotations("bash"), Some(json!({ "title": "Shell" })));
    assert_eq!(by_name(tools, "bash")["title"], json!("Shell"));
    // Nothing declared: no annotations at all (MCP's strict defaults).
    assert_eq!(annotations("todo_write"), None);
    assert!(by_name(tools, "todo_write").get("title").is_none());
    // Not read-only, destructive per input: the client assumes the worst.
    assert_eq!(annotations("mcp__notes__tag"), None);

    let catalog = pool.render_prompt_catalog();
    assert!(catalog.contains("- web_fetch (deferred): Fetch a web page"));
    assert!(catalog.contains(
        "- deploy (deferred): Deploy the site to production.\n  Runs the build first.\n\n  Asks before uploading.\n"
    ));
    assert!(catalog.contains(
        "- read_file: Read a UTF-8 file and return its contents with line numbers.\n\n  Binary files are refused.\n"
    ));
}

// ---------------------------------------------------------------------------
// Stable across processes.

const CHILD_ENV: &str = "REGISTRY_CORE_RENDER_CHILD";
const BEGIN: &str = "\n<<<renders>>>\n";
const END: &str = "\n<<<end renders>>>\n";

/// Every render in one string, each headed by its name and length.
fn serialize(renders: &[(&str, Arc<str>)]) -> String {
    let mut out = String::new();
    for (name, render) in renders {
        out.push_str(&format!("== {name} ({} bytes)\n{render}\n", render.len()));
    }
    out
}

/// Not a test on its own: prints every render when started by
/// `renders_are_byte_identical_in_another_process`.
#[test]
fn child_prints_renders() {
    let Some(mode) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let pool = golden_pool(mode == "reverse");
    let text = format!("{BEGIN}{}{END}", serialize(&renders(&pool)));
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes()).unwrap();
    stdout.flush().unwrap();
}

#[test]
fn renders_are_byte_identical_in_another_process() {
    let ours = serialize(&renders(&golden_pool(false)));
    let exe = std::env::current_exe().unwrap();
    let output = Command::new(exe)
        .args(["--exact", "child_prints_renders", "--nocapture"])
        // The child registers the plugins in the other order.
        .env(CHILD_ENV, "reverse")
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        output.status.success(),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let start = stdout
        .find(BEGIN)
        .unwrap_or_else(|| panic!("child printed no renders:\n{stdout}"))
        + BEGIN.len();
    let end = stdout[start..].find(END).expect("end marker") + start;
    assert!(
        stdout[start..end] == ours,
        "the child process rendered different bytes"
    );
}

// ---------------------------------------------------------------------------
// Prefix stability under plugin churn.

/// The Anthropic array's bytes up to and including the last built-in, and
/// the catalog's built-in entries, checked to be true byte prefixes.
fn builtin_prefixes(pool: &ToolPool) -> (String, String) {
    let options = AnthropicOptions::new().with_cache_control(true);
    let rendered = pool.render_anthropic(options);
    let tools = parse(&rendered, "anthropic");
    let tools = tools.as_array().unwrap();
    let builtins = pool.builtins().len();
    assert!(builtins > 0);
    let mut prefix = String::from("[");
    for (i, tool) in tools[..builtins].iter().enumerate() {
        if i > 0 {
            prefix.push(',');
        }
        prefix.push_str(&to_canonical_string(tool));
    }
    assert!(
        rendered.starts_with(&prefix),
        "the built-ins are not a byte prefix"
    );
    assert!(matches!(rendered.as_bytes()[prefix.len()], b',' | b']'));
    // Exactly one breakpoint, on the last non-deferred built-in.
    let marked: Vec<usize> = tools
        .iter()
        .enumerate()
        .filter(|(_, t)| t.get("cache_control").is_some())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(marked, [3], "cache_control moved");
    assert_eq!(tools[3]["name"], "todo_write");
    assert_eq!(tools[3]["cache_control"], json!({ "type": "ephemeral" }));

    let catalog = pool.render_prompt_catalog();
    let entry = |tool: &ToolHandle| match ProviderFormat::Prompt.definition(tool) {
        Value::String(entry) => entry,
        other => panic!("a catalog entry is text, not {other}"),
    };
    let catalog_prefix: String = pool
        .builtins()
        .iter()
        .map(|builtin| entry(builtin.tool()))
        .collect();
    assert!(catalog.starts_with(&catalog_prefix));
    (prefix, catalog_prefix)
}

#[test]
fn plugin_churn_never_changes_the_builtin_prefix() {
    let cx = PermissionContext::new();
    let tools = ToolRegistry::new(base());
    let registry = tools.plugins();
    let assemble = || tools.assemble_tool_pool(&cx);

    let (anthropic, catalog) = builtin_prefixes(&assemble());
    let mut renders_seen =
        vec![assemble().render_anthropic(AnthropicOptions::new().with_cache_control(true))];
    let mut check = |step: &str| {
        let pool = assemble();
        let (a, c) = builtin_prefixes(&pool);
        assert!(
            a == anthropic,
            "Anthropic built-in prefix changed after: {step}"
        );
        assert!(
            c == catalog,
            "catalog built-in prefix changed after: {step}"
        );
        let whole = pool.render_anthropic(AnthropicOptions::new().with_cache_control(true));
        assert!(
            !renders_seen.contains(&whole),
            "the plugin change is not visible after: {step}"
        );
        renders_seen.push(whole);
    };

    let [search, tag, deploy, _]: [ToolHandle; 4] = plugins()
        .into_iter()
        .map(|(_, t)| t)
        .collect::<Vec<_>>()
        .try_into()
        .unwrap();
    let search_guard = registry.register("notes", search).unwrap();
    check("adding a plugin");
    registry.register("notes", tag).unwrap().detach();
    check("adding a second plugin of the same owner");
    // Sorts before every built-in by name, and still comes after them.
    let first = registry
        .register(
            "early",
            plugin(ToolBuilder::new("aaa_first", "Sorts first.")),
        )
        .unwrap();
    check("adding a plugin whose name sorts before the built-ins");
    registry.register("config", deploy).unwrap().detach();
    check("adding a deferred plugin");
    registry
        .register("rogue", plugin(ToolBuilder::new("bash", "An impostor.")))
        .unwrap()
        .detach();
    // The impostor is dropped, so the render equals the previous one:
    // check the prefix only.
    builtin_prefixes(&assemble());

    // Rename: the same plugin goes away and comes back under a new name.
    drop(search_guard);
    check("removing a plugin (guard dropped)");
    registry
        .register(
            "notes",
            plugin(ToolBuilder::new(
                "mcp__notes__find",
                "Search notes by text.",
            )),
        )
        .unwrap()
        .detach();
    check("renaming a plugin");
    assert!(first.dispose());
    check("disposing a plugin");
    assert_eq!(registry.unregister_owner("notes"), 2);
    check("unregistering an owner");
    assert_eq!(registry.unregister_owner("config"), 1);
    assert_eq!(registry.unregister_owner("rogue"), 1);
    let (a, c) = builtin_prefixes(&assemble());
    assert!(a == anthropic && c == catalog);
    assert_eq!(assemble().plugins().len(), 0);
}

// ---------------------------------------------------------------------------
// Caching.

#[test]
fn renders_are_cached_per_pool_and_format() {
    let pool = golden_pool(false);
    let formats: Vec<(&str, Arc<str>)> = renders(&pool);
    let again = renders(&pool);
    for ((name, first), (_, second)) in formats.iter().zip(&again) {
        assert!(Arc::ptr_eq(first, second), "{name} rendered twice");
    }
    // Different keys are different renders.
    for (i, (a, first)) in formats.iter().enumerate() {
        for (b, other) in &formats[i + 1..] {
            assert!(
                !Arc::ptr_eq(first, other),
                "{a} and {b} share a cache entry"
            );
            assert_ne!(first, other, "{a} and {b} render the same bytes");
        }
    }
    // A new pool renders afresh, to the same bytes.
    let fresh = golden_pool(false);
    let fresh_anthropic = fresh.render_anthropic(AnthropicOptions::new());
    assert!(!Arc::ptr_eq(&formats[0].1, &fresh_anthropic));
    assert_eq!(formats[0].1, fresh_anthropic);
}

#[test]
fn schemas_are_generated_once_per_tool() {
    // Only this test sets the flag, so only it builds this tool. A list
    // without the flag checks the schema of the flagged-off tool once per
    // process; do that first, so the count below is the handle's alone:
    // once, when the list checks that it is an object; everything after
    // reuses it.
    BaseTools::linked(&Flags::new()).unwrap();
    let before = SCHEMA_CALLS.load(Ordering::SeqCst);
    let base = BaseTools::linked(&Flags::new().with("counted")).unwrap();
    assert_eq!(SCHEMA_CALLS.load(Ordering::SeqCst) - before, 1);
    let registry = ToolRegistry::new(base);
    let pool = registry.assemble_tool_pool(&PermissionContext::new());
    assert!(pool.get("counted").is_some());
    renders(&pool);
    renders(&pool);
    // Another pool over the same handles reuses their schemas.
    let second = registry.assemble_tool_pool(&PermissionContext::new());
    renders(&second);
    assert_eq!(SCHEMA_CALLS.load(Ordering::SeqCst) - before, 1);
}
