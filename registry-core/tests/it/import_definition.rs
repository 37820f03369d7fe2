//! Importing a tool definition without a live MCP connection
//! (`declare::imported`): definitions parsed from MCP `tools/list` JSON
//! become tools with the right name, description, posture, loading and
//! origin, or an error naming the tool; and (feature `mcp`) the tool made
//! from a definition is the one `McpImport` makes of the same definition
//! listed by a live server.
//!
//! Everything outside the `live` module runs without any feature:
//! `cargo test -p registry-core --no-default-features --test it import_definition::`.

use registry_core::declare::imported::{
    DefinitionImport, ImportError, RemoteAnnotations, RemoteToolDefinition, imported_tool_name,
    server_segment,
};
use registry_core::declare::{DefinitionError, Loading, PostureKind};
use registry_core::{
    PermissionContext, ToolContext, ToolHandle, ToolOutput, ToolRegistry, catalog::BaseTools,
};
use serde_json::{Value, json};

/// The `_meta` key an MCP server marks an always-loaded tool with.
const ALWAYS_LOAD_META_KEY: &str = "anthropic/alwaysLoad";

/// The longest description an imported tool keeps, in characters.
const MAX_DESCRIPTION_CHARS: usize = 2048;

/// One page of a `tools/list` result, as a server would send it: every
/// case the import distinguishes (fields this crate does not read, such as
/// `icons`, included).
fn listed() -> Value {
    json!({ "tools": [
        {
            "name": "read_note",
            "title": "Read a note",
            "description": "Read one note by its id.",
            "inputSchema": {
                "type": "object",
                "properties": { "id": { "type": "string", "description": "The note's id." } },
                "required": ["id"]
            },
            "outputSchema": {
                "type": "object",
                "properties": { "text": { "type": "string" } },
                "required": ["text"]
            },
            "annotations": {
                "title": "Reader",
                "readOnlyHint": true,
                "idempotentHint": true,
                "openWorldHint": false
            },
            "icons": [{ "src": "https://notes.example.com/read.png", "mimeType": "image/png" }],
            "_meta": { "anthropic/alwaysLoad": true, "vendor/other": 1 }
        },
        {
            "name": "append_note",
            "description": "Append text to a note.",
            "inputSchema": {
                "type": "object",
                "properties": { "id": { "type": "string" }, "text": { "type": "string" } },
                "required": ["id", "text"]
            },
            "annotations": {
                "title": "Append to a note",
                "readOnlyHint": false,
                "destructiveHint": false,
                "idempotentHint": false,
                "openWorldHint": false
            }
        },
        {
            "name": "liar",
            "description": "Claims to only read.",
            "inputSchema": { "type": "object" },
            "annotations": { "readOnlyHint": true, "destructiveHint": true }
        },
        { "name": "silent", "inputSchema": { "type": "object" } },
        {
            "name": "stringy_meta",
            "description": "Not quite always loaded.",
            "inputSchema": { "type": "object" },
            "_meta": { "anthropic/alwaysLoad": "true" }
        },
        {
            "name": "bad_output",
            "description": "Its output schema is malformed.",
            "inputSchema": { "type": "object" },
            "outputSchema": { "type": "object", "properties": [] }
        },
        { "name": "séarch notes", "description": "Unicode and a space.", "inputSchema": { "type": "object" } },
        { "name": "🔍", "description": "Only an emoji.", "inputSchema": { "type": "object" } },
        { "name": "x".repeat(300), "description": "Far too long a name.", "inputSchema": { "type": "object" } },
        { "name": "wordy", "description": "é".repeat(5000), "inputSchema": { "type": "object" } }
    ] })
}

/// Tools whose input schema import refuses, each with its name.
fn bad_schemas() -> Value {
    json!({ "tools": [
        { "name": "stringly", "inputSchema": { "type": "string" } },
        { "name": "untyped", "inputSchema": { "properties": {} } },
        { "name": "listy", "inputSchema": { "type": "object", "properties": [] } },
        { "name": "badprop", "inputSchema": { "type": "object", "properties": { "a": 3 } } },
        { "name": "badreq", "inputSchema": { "type": "object", "required": "x" } }
    ] })
}

fn definitions(page: &Value) -> Vec<RemoteToolDefinition> {
    serde_json::from_value(page["tools"].clone()).expect("a tools/list page deserializes")
}

fn definition(name: &str) -> RemoteToolDefinition {
    definitions(&listed())
        .into_iter()
        .find(|d| d.name == name)
        .unwrap_or_else(|| panic!("no `{name}` in the fixture"))
}

/// Answers with the tool's own name and the arguments.
fn import(importer: &DefinitionImport, definition: &RemoteToolDefinition) -> ToolHandle {
    let remote = definition.name.clone();
    importer
        .import(definition, move |args, _cx| {
            let remote = remote.clone();
            async move { Ok(ToolOutput::text(format!("{remote} {args}"))) }
        })
        .unwrap_or_else(|err| panic!("{err}"))
}

/// (read-only, concurrency-safe, destructive) of a call with `args`.
fn posture(tool: &ToolHandle, args: Value) -> (bool, bool, bool) {
    let call = tool.prepare(args).unwrap();
    (
        call.is_read_only(),
        call.is_concurrency_safe(),
        call.is_destructive(),
    )
}

#[test]
fn a_tools_list_page_deserializes_field_for_field() {
    let read = definition("read_note");
    assert_eq!(read.title.as_deref(), Some("Read a note"));
    assert_eq!(
        read.description.as_deref(),
        Some("Read one note by its id.")
    );
    assert_eq!(read.input_schema["required"], json!(["id"]));
    assert_eq!(
        read.output_schema.as_ref().map(|s| &s["required"]),
        Some(&json!(["text"]))
    );
    let mut annotations = RemoteAnnotations::default();
    annotations.title = Some("Reader".to_owned());
    annotations.read_only_hint = Some(true);
    annotations.idempotent_hint = Some(true);
    annotations.open_world_hint = Some(false);
    assert_eq!(read.annotations, Some(annotations));
    let meta = read.meta.as_ref().expect("_meta");
    assert_eq!(meta[ALWAYS_LOAD_META_KEY], json!(true));
    assert_eq!(meta["vendor/other"], json!(1));

    let silent = definition("silent");
    assert_eq!(
        silent,
        RemoteToolDefinition::new("silent", json!({ "type": "object" }))
    );

    // What a definition serializes to is MCP's shape again (unknown fields
    // such as `icons` are not kept; `null`s are absent).
    let back = serde_json::to_value(&read).unwrap();
    assert_eq!(back["inputSchema"], read.input_schema);
    assert_eq!(back["_meta"][ALWAYS_LOAD_META_KEY], json!(true));
    assert_eq!(back["annotations"]["readOnlyHint"], json!(true));
    assert!(back.get("icons").is_none() && back["annotations"].get("destructiveHint").is_none());
    let again: RemoteToolDefinition = serde_json::from_value(back).unwrap();
    assert_eq!(again, read);

    // Explicit `null`s and fields from later MCP revisions are fine too.
    let newer: RemoteToolDefinition = serde_json::from_value(json!({
        "name": "n", "title": null, "description": null, "inputSchema": { "type": "object" },
        "annotations": null, "_meta": null, "execution": { "taskSupport": "optional" }
    }))
    .unwrap();
    assert_eq!(
        newer,
        RemoteToolDefinition::new("n", json!({ "type": "object" }))
    );
    // A field of the wrong type is a serde error, not a panic.
    let wrong = serde_json::from_value::<RemoteToolDefinition>(json!({
        "name": "n", "inputSchema": {}, "annotations": { "readOnlyHint": "yes" }
    }));
    assert!(wrong.is_err());
}

#[test]
fn names_descriptions_and_origins_follow_the_server() {
    let importer = DefinitionImport::new("notes");
    assert_eq!(importer.server(), "notes");
    assert!(!importer.is_trusted());
    assert_eq!(importer.owner(), server_segment("notes"));
    for definition in definitions(&listed()) {
        let tool = import(&importer, &definition);
        let spec = tool.spec();
        assert_eq!(spec.name(), imported_tool_name("notes", &definition.name));
        assert!(provider_safe(spec.name()), "{}", spec.name());
        assert!(spec.name().starts_with("mcp__notes__"), "{}", spec.name());
        let origin = spec
            .remote_origin()
            .expect("an imported tool has an origin");
        assert_eq!(origin.server(), "notes");
        assert_eq!(origin.tool(), definition.name, "the server's own name");
        assert!(!origin.is_trusted());
        assert!(spec.description().chars().count() <= MAX_DESCRIPTION_CHARS);
        assert!(!spec.description().trim().is_empty());
        assert_eq!(tool.input_schema(), &definition.input_schema);
    }
    let spec = |name: &str| import(&importer, &definition(name)).spec().clone();
    assert_eq!(spec("read_note").name(), "mcp__notes__read_note");
    assert_eq!(spec("read_note").description(), "Read one note by its id.");
    assert!(
        spec("silent")
            .description()
            .contains("the server gave no description"),
        "{}",
        spec("silent").description()
    );
    let wordy = spec("wordy");
    assert_eq!(wordy.description().chars().count(), MAX_DESCRIPTION_CHARS);
    assert!(
        wordy.description().ends_with("of 5000 characters shown]"),
        "{}",
        wordy.description()
    );

    // A trusted import records the trust.
    let trusted = import(
        &DefinitionImport::new("notes").trusted(true),
        &definition("silent"),
    );
    assert!(trusted.spec().remote_origin().unwrap().is_trusted());
}

#[test]
fn unicode_and_long_names_are_normalised_with_a_stable_hash() {
    let importer = DefinitionImport::new("my.notes");
    let segment = server_segment("my.notes");
    assert!(segment.starts_with("my_notes-"), "{segment}");
    let mut seen = std::collections::BTreeSet::new();
    for remote in ["séarch notes", "🔍", &"x".repeat(300)] {
        let tool = import(&importer, &definition(remote));
        let name = tool.name().to_owned();
        assert!(provider_safe(&name), "{name}");
        assert!(name.len() <= 64, "{name}");
        assert!(name.starts_with(&format!("mcp__{segment}__")), "{name}");
        // Changed or cut: an 8-hex-digit hash of the originals ends it.
        let (_, hash) = name.rsplit_once('-').expect("a hash suffix");
        assert_eq!(hash.len(), 8, "{name}");
        assert!(hash.chars().all(|c| c.is_ascii_hexdigit()), "{name}");
        // The same in every process: a fixed hash, not a seeded one.
        assert_eq!(name, imported_tool_name("my.notes", remote));
        assert!(seen.insert(name), "two originals, one name");
        // A call still goes out under the server's own name.
        assert_eq!(tool.spec().remote_origin().unwrap().tool(), remote);
    }
    let search = import(&importer, &definition("séarch notes"));
    assert!(
        search
            .name()
            .starts_with(&format!("mcp__{segment}__s_arch_notes-")),
        "{}",
        search.name()
    );
    // Pinned: changing the hash renames every imported tool everywhere.
    assert_eq!(imported_tool_name("srv", "a b"), "mcp__srv__a_b-bbd654ac");
}

#[test]
fn annotations_set_the_posture_only_from_a_trusted_server() {
    let args = |name: &str| match name {
        "read_note" => json!({ "id": "n1" }),
        "append_note" => json!({ "id": "n1", "text": "more" }),
        _ => json!({}),
    };
    let untrusted = DefinitionImport::new("u");
    for name in ["read_note", "append_note", "liar", "silent"] {
        let tool = import(&untrusted, &definition(name));
        assert_eq!(posture(&tool, args(name)), (false, false, true), "{name}");
        // Not declared: re-serving it promises nothing either.
        let spec = tool.spec();
        assert!(!spec.read_only().is_declared(), "{name}");
        assert!(!spec.concurrency_safe().is_declared(), "{name}");
        assert_eq!(spec.destructive().value(), &PostureKind::Fixed(true));
        assert!(!spec.posture().idempotent().is_declared(), "{name}");
        assert!(!spec.posture().open_world().is_declared(), "{name}");
    }

    let trusted = DefinitionImport::new("t").trusted(true);
    let of = |name: &str| posture(&import(&trusted, &definition(name)), args(name));
    assert_eq!(of("read_note"), (true, true, false));
    // readOnlyHint wins over a contradictory destructiveHint.
    assert_eq!(of("liar"), (true, true, false));
    assert_eq!(of("append_note"), (false, false, false));
    assert_eq!(of("silent"), (false, false, true), "missing = strictest");

    let reader = import(&trusted, &definition("read_note"));
    let posture = reader.spec().posture();
    assert!(posture.read_only().is_declared());
    assert!(posture.idempotent().is_declared() && *posture.idempotent().value());
    assert!(posture.open_world().is_declared() && !*posture.open_world().value());
    let silent = import(&trusted, &definition("silent"));
    assert!(!silent.spec().read_only().is_declared());
    assert!(!silent.spec().posture().idempotent().is_declared());
}

#[test]
fn loading_follows_meta_always_load_and_nothing_else() {
    let importer = DefinitionImport::new("s");
    let loading = |name: &str| {
        *import(&importer, &definition(name))
            .spec()
            .loading()
            .value()
    };
    assert_eq!(loading("read_note"), Loading::AlwaysLoad);
    assert_eq!(loading("silent"), Loading::Deferred);
    assert_eq!(loading("stringy_meta"), Loading::Deferred);
    for value in [json!(false), json!(1), json!(null), json!({})] {
        let mut definition = definition("silent");
        definition.meta = json!({ ALWAYS_LOAD_META_KEY: value }).as_object().cloned();
        assert_eq!(
            *import(&importer, &definition).spec().loading().value(),
            Loading::Deferred,
            "{value}"
        );
    }
}

#[test]
fn output_schemas_titles_and_content_rules() {
    let importer = DefinitionImport::new("s");
    let read = import(&importer, &definition("read_note"));
    assert_eq!(
        read.spec().output_schema(),
        definition("read_note").output_schema.as_ref()
    );
    // A malformed output schema is dropped, the tool kept.
    let bad = import(&importer, &definition("bad_output"));
    assert!(bad.spec().output_schema().is_none());
    assert!(
        import(&importer, &definition("silent"))
            .spec()
            .output_schema()
            .is_none()
    );

    // `title` wins over the annotations' title, which is used otherwise.
    assert_eq!(read.spec().user_facing_name(), "Read a note");
    let append = import(&importer, &definition("append_note"));
    assert_eq!(append.spec().user_facing_name(), "Append to a note");
    let silent = import(&importer, &definition("silent"));
    assert_eq!(silent.spec().user_facing_name(), silent.name());

    // Content rules see the arguments as canonical JSON.
    let call = append.prepare(json!({ "text": "b", "id": "a" })).unwrap();
    assert_eq!(
        call.permission_content().as_deref(),
        Some(r#"{"id":"a","text":"b"}"#)
    );
}

#[test]
fn a_bad_input_schema_is_an_error_naming_the_tool() {
    let importer = DefinitionImport::new("srv");
    for definition in definitions(&bad_schemas()) {
        let err = importer
            .import(&definition, |_, _| async { Ok(ToolOutput::text("")) })
            .expect_err(&definition.name);
        assert!(matches!(err, ImportError::InputSchema { .. }), "{err:?}");
        assert_eq!(err.tool(), definition.name);
        assert_eq!(err.server(), "srv");
        assert!(
            err.reason().starts_with("bad input schema: "),
            "{}",
            err.reason()
        );
        let shown = err.to_string();
        assert!(
            shown.starts_with(&format!(
                "tool `{}` of MCP server `srv`: bad input schema: ",
                definition.name
            )),
            "{shown}"
        );
        // The builder refuses it the same way.
        assert_eq!(importer.builder(&definition).unwrap_err(), err);
    }

    // No schema at all (or not an object) is refused, not a panic.
    for page in [
        json!({ "name": "none" }),
        json!({ "name": "text", "inputSchema": "object" }),
        json!({ "name": "null", "inputSchema": null }),
    ] {
        let definition: RemoteToolDefinition = serde_json::from_value(page).unwrap();
        let err = importer.builder(&definition).unwrap_err();
        assert_eq!(err.tool(), definition.name, "{err}");
    }

    // A hostile name is quoted capped, not whole.
    let huge = RemoteToolDefinition::new("n".repeat(100_000), json!({ "type": "string" }));
    let err = importer.builder(&huge).unwrap_err();
    assert!(err.to_string().len() < 5_000, "{}", err.to_string().len());
    assert_eq!(err.tool().len(), 100_000);
}

#[test]
fn a_definition_error_keeps_its_source() {
    // Not reachable through import (names and descriptions are made
    // valid), but the variant carries the rule broken and says so.
    let source = DefinitionError::EmptyDescription {
        tool: "mcp__srv__t".to_owned(),
    };
    let err = ImportError::Definition {
        server: "srv".to_owned(),
        tool: "t".to_owned(),
        source: source.clone(),
    };
    assert_eq!(err.reason(), source.to_string());
    assert!(
        err.to_string()
            .starts_with("tool `t` of MCP server `srv`: ")
    );
    let chained = std::error::Error::source(&err).map(ToString::to_string);
    assert_eq!(chained, Some(source.to_string()));
}

#[tokio::test]
async fn imported_definitions_register_as_plugins_and_run_their_handler() {
    // No built-ins: what `BaseTools::linked` lists in a binary that
    // declares no tools (the shared test binary links every suite's).
    let registry = ToolRegistry::new(BaseTools::__from_handles(Vec::new()).unwrap());
    let importer = DefinitionImport::new("notes").trusted(true);
    let handles: Vec<_> = definitions(&listed())
        .iter()
        .map(|d| import(&importer, d))
        .collect();
    let errors = registry.plugins().replace_owner(importer.owner(), handles);
    assert!(errors.is_empty(), "{errors:?}");

    let pool = registry.assemble_tool_pool(&PermissionContext::new());
    let read = pool.get("mcp__notes__read_note").expect("registered");
    assert_eq!(posture(read, json!({ "id": "n1" })), (true, true, false));
    let output = read
        .call_json(json!({ "id": "n1" }), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(output.as_str(), r#"read_note {"id":"n1"}"#);
    let emoji = pool
        .get(&imported_tool_name("notes", "🔍"))
        .expect("registered under its safe name");
    let output = emoji
        .call_json(json!({}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(output.as_str(), "🔍 {}");
    assert_eq!(
        registry.plugins().unregister_owner(&importer.owner()),
        definitions(&listed()).len()
    );
}

/// The same definitions, listed by a live (in-process) server and imported
/// by `McpImport`: every tool equals the one `DefinitionImport` makes.
#[cfg(feature = "mcp")]
mod live {
    use std::collections::BTreeMap;

    use super::*;
    use registry_core::catalog::PluginRegistry;
    use registry_core::render::ProviderFormat;

    use crate::mcp_support::{FakeServer, tool};

    fn registered(registry: &PluginRegistry) -> BTreeMap<String, ToolHandle> {
        registry
            .tools()
            .into_iter()
            .map(|t| (t.name().to_owned(), t))
            .collect()
    }

    /// Everything a tool is, compared: its spec (name, description,
    /// posture, loading, origin, output schema, title, through `Debug`
    /// and field by field), its schema, every provider's render, and what
    /// a call gets (posture per call, content-rule text).
    fn assert_same(live: &ToolHandle, offline: &ToolHandle) {
        let name = live.name();
        assert_eq!(live.name(), offline.name());
        let (a, b) = (live.spec(), offline.spec());
        assert_eq!(a.description(), b.description(), "{name}");
        assert_eq!(a.user_facing_name(), b.user_facing_name(), "{name}");
        assert_eq!(a.posture(), b.posture(), "{name}");
        assert_eq!(a.remote_origin(), b.remote_origin(), "{name}");
        assert_eq!(a.output_schema(), b.output_schema(), "{name}");
        assert_eq!(a.origin(), b.origin(), "{name}");
        assert_eq!(format!("{a:?}"), format!("{b:?}"), "{name}");
        assert_eq!(live.input_schema(), offline.input_schema(), "{name}");
        for format in [
            ProviderFormat::Mcp,
            ProviderFormat::Anthropic,
            ProviderFormat::OpenAiChat,
            ProviderFormat::OpenAiResponses,
            ProviderFormat::Prompt,
        ] {
            assert_eq!(
                format.definition(live),
                format.definition(offline),
                "{name} {format:?}"
            );
        }
        let args = json!({ "id": "n1", "text": "t", "z": { "b": 1, "a": [2, 1] } });
        let (a, b) = (live.prepare(args.clone()), offline.prepare(args));
        match (a, b) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.permission_content(), b.permission_content(), "{name}");
                assert_eq!(a.is_read_only(), b.is_read_only(), "{name}");
                assert_eq!(a.is_concurrency_safe(), b.is_concurrency_safe(), "{name}");
                assert_eq!(a.is_destructive(), b.is_destructive(), "{name}");
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{name}"),
            (a, b) => panic!("{name}: {:?} vs {:?}", a.is_ok(), b.is_ok()),
        }
    }

    async fn compare(trusted: bool) {
        let page = listed();
        let mut all = page["tools"].as_array().unwrap().clone();
        all.extend(bad_schemas()["tools"].as_array().unwrap().iter().cloned());
        let server_tools: Vec<_> = all.iter().cloned().map(tool).collect();
        let registry = PluginRegistry::new();
        let (import, _server) = FakeServer::new(server_tools, 0)
            .import(&registry, "my.notes", |c| c.trusted(trusted))
            .await;
        let importer = DefinitionImport::new("my.notes").trusted(trusted);
        assert_eq!(import.owner(), importer.owner());

        let live = registered(&registry);
        let definitions: Vec<RemoteToolDefinition> =
            serde_json::from_value(Value::Array(all)).unwrap();
        let mut offline = BTreeMap::new();
        let mut refused = BTreeMap::new();
        for definition in &definitions {
            match importer.import(definition, |_, _| async { Ok(ToolOutput::text("")) }) {
                Ok(handle) => {
                    offline.insert(handle.name().to_owned(), handle);
                }
                Err(err) => {
                    refused.insert(err.tool().to_owned(), err.reason());
                }
            }
        }
        assert_eq!(
            live.keys().collect::<Vec<_>>(),
            offline.keys().collect::<Vec<_>>(),
            "the same tools are imported"
        );
        assert_eq!(live.len(), listed()["tools"].as_array().unwrap().len());
        for (name, live_tool) in &live {
            assert_same(live_tool, &offline[name]);
            // The definition the import recorded is the same definition,
            // but for an over-long description, kept cut as the tool has it.
            let mut recorded: RemoteToolDefinition =
                serde_json::from_value(import.definition(name).unwrap()).unwrap();
            let original = definitions
                .iter()
                .find(|d| imported_tool_name("my.notes", &d.name) == *name)
                .unwrap();
            let whole = original.description.as_deref().unwrap_or_default();
            if whole.chars().count() > 2_048 {
                let kept = recorded.description.take().unwrap_or_default();
                assert!(kept.contains("[description cut:"), "{name}: {kept}");
                assert!(kept.chars().count() < whole.chars().count(), "{name}");
                let shown = kept.split("\n[description cut:").next().unwrap_or_default();
                assert!(whole.starts_with(shown), "{name}: not a prefix");
                assert_eq!(
                    live_tool.spec().description(),
                    kept,
                    "{name}: the tool and its record say the same"
                );
                recorded.description = original.description.clone();
            }
            assert_eq!(&recorded, original, "{name}");
        }
        // The same tools are refused, for the same reasons.
        let live_refused: BTreeMap<_, _> = import.refused().into_iter().collect();
        assert_eq!(live_refused, refused);
        assert_eq!(
            refused.len(),
            bad_schemas()["tools"].as_array().unwrap().len()
        );
    }

    #[tokio::test]
    async fn an_untrusted_live_import_makes_the_same_tools() {
        compare(false).await;
    }

    #[tokio::test]
    async fn a_trusted_live_import_makes_the_same_tools() {
        compare(true).await;
    }
}

/// Every provider's tool-name rule, `^[a-zA-Z0-9_-]{1,64}$`, written out
/// here so the test does not take the crate's own checker on trust.
fn provider_safe(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}
