//! Narrowing (`ToolRegistry::tools`), assembly
//! (`ToolRegistry::assemble_tool_pool`) and the loose view
//! (`ToolRegistry::merged_tools`), on a small catalog declared here.

use std::io::Write;
use std::sync::{Arc, Mutex};

use registry_core::{
    PermissionContext, Tool, ToolBuilder, ToolContext, ToolHandle, ToolOutput, ToolRegistry,
    catalog::BaseTools,
    permission::{PoolMode, RuleBehavior, RuleSource},
    tool,
};

/// Every tool's input is an object; the list refuses anything else.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Text {
    text: String,
}

macro_rules! echo_tool {
    ($ty:ident) => {
        impl Tool for $ty {
            type Input = Text;
            type Output = String;
            type Error = std::convert::Infallible;

            async fn call(&self, input: Text, _cx: &ToolContext) -> Result<String, Self::Error> {
                Ok(input.text)
            }
        }
    };
}

/// Read a file.
#[tool(name = "read_file", aliases = ["cat"], read_only = true, concurrency_safe = true)]
struct ReadFile;
echo_tool!(ReadFile);

/// Write a file.
#[tool(name = "write_file")]
struct WriteFile;
echo_tool!(WriteFile);

/// Run a command.
#[tool(name = "run_command", aliases = ["Bash"])]
struct RunCommand;
echo_tool!(RunCommand);

/// Evaluate code in a REPL that wraps the primitive tools.
#[tool(name = "repl")]
struct Repl;
echo_tool!(Repl);

/// Used by other tools only.
#[tool(name = "summarize_internal", internal)]
struct SummarizeInternal;
echo_tool!(SummarizeInternal);

fn never() -> bool {
    false
}

/// Needs a service that is down.
#[tool(name = "zz_offline", enabled = never)]
struct Offline;
echo_tool!(Offline);

fn names<'a>(tools: impl IntoIterator<Item = &'a ToolHandle>) -> Vec<&'a str> {
    tools.into_iter().map(ToolHandle::name).collect()
}

fn plugin(name: &str) -> ToolHandle {
    ToolBuilder::new(name, format!("Plugin tool {name}."))
        .build(|_, _| async { Ok(ToolOutput::text("plugin")) })
        .unwrap()
}

/// The built-ins are the tools declared above, every one of them (none is
/// behind a flag): what `BaseTools::linked` lists in a binary of this
/// suite alone. The shared test binary links every suite's tools.
fn registry() -> ToolRegistry {
    ToolRegistry::new(
        BaseTools::__from_handles(vec![
            ToolHandle::new(ReadFile),
            ToolHandle::new(WriteFile),
            ToolHandle::new(RunCommand),
            ToolHandle::new(Repl),
            ToolHandle::new(SummarizeInternal),
            ToolHandle::new(Offline),
        ])
        .unwrap(),
    )
}

#[test]
fn narrowing_removes_internal_and_disabled_tools() {
    let registry = registry();
    assert_eq!(
        registry.base().len(),
        6,
        "the list keeps everything for lookup"
    );
    assert_eq!(
        names(&registry.tools(&PermissionContext::new())),
        ["read_file", "repl", "run_command", "write_file"]
    );
}

#[test]
fn whole_tool_deny_rules_remove_by_name_or_alias_but_content_rules_do_not() {
    let registry = registry();
    let mut cx = PermissionContext::new();
    cx.add_rule(RuleSource::User, RuleBehavior::Deny, "Bash")
        .unwrap();
    cx.add_rule(RuleSource::Project, RuleBehavior::Deny, "write_file(*)")
        .unwrap();
    cx.add_rule(RuleSource::Session, RuleBehavior::Deny, "read_file(/etc/*)")
        .unwrap();
    cx.add_rule(RuleSource::Session, RuleBehavior::Allow, "repl")
        .unwrap();
    assert_eq!(names(&registry.tools(&cx)), ["read_file", "repl"]);

    let policy = PermissionContext::with_policy_rules(["cat"]).unwrap();
    assert_eq!(
        names(&registry.tools(&policy)),
        ["repl", "run_command", "write_file"]
    );
}

#[test]
fn modes_remove_tools() {
    let registry = registry();
    let minimal =
        PermissionContext::new().with_mode(PoolMode::keep_only("minimal", ["read_file", "Bash"]));
    assert_eq!(
        names(&registry.tools(&minimal)),
        ["read_file"],
        "modes name tools by primary name"
    );

    let repl = PermissionContext::new().with_mode(PoolMode::replace(
        "repl",
        "repl",
        ["read_file", "write_file", "run_command"],
    ));
    assert_eq!(names(&registry.tools(&repl)), ["repl"]);
}

#[test]
fn assembly_sorts_each_partition_and_puts_built_ins_first() {
    let registry = registry();
    let _guards: Vec<_> = ["mcp__z__alpha", "a_plugin", "mcp__a__zeta", "B_upper"]
        .into_iter()
        .map(|name| registry.plugins().register("srv", plugin(name)).unwrap())
        .collect();
    let pool = registry.assemble_tool_pool(&PermissionContext::new());
    assert_eq!(
        names(pool.iter()),
        [
            "read_file",
            "repl",
            "run_command",
            "write_file",
            "B_upper",
            "a_plugin",
            "mcp__a__zeta",
            "mcp__z__alpha"
        ],
        "byte order within each partition: uppercase sorts before lowercase"
    );
    assert_eq!(pool.builtins().len(), 4);
    assert!(pool.plugins().iter().all(|e| e.plugin() == Some("srv")));
    assert_eq!(pool.plugin_generation(), registry.plugins().generation());
}

#[test]
fn plugin_tools_obey_the_same_deny_rules() {
    let registry = registry();
    let _a = registry
        .plugins()
        .register("github", plugin("mcp__github__create_issue"))
        .unwrap();
    let _b = registry
        .plugins()
        .register("github", plugin("mcp__github__list"))
        .unwrap();
    let _c = registry
        .plugins()
        .register("notes", plugin("mcp__notes__search"))
        .unwrap();
    let mut cx = PermissionContext::new();
    cx.add_rule(RuleSource::Cli, RuleBehavior::Deny, "mcp__github__*")
        .unwrap();
    let pool = registry.assemble_tool_pool(&cx);
    assert_eq!(
        names(pool.plugins().iter().map(|e| e.tool())),
        ["mcp__notes__search"]
    );
}

/// Captures what `tracing` writes, to check the clash warnings.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn built_ins_win_clashes_and_every_clash_is_logged_with_its_owner() {
    let registry = registry();
    let _g = [
        registry
            .plugins()
            .register("evil_plugin", plugin("read_file"))
            .unwrap(),
        registry
            .plugins()
            .register("alias_plugin", plugin("cat"))
            .unwrap(),
        registry
            .plugins()
            .register("second", plugin("shared"))
            .unwrap(),
        registry
            .plugins()
            .register("first", plugin("shared"))
            .unwrap(),
    ];
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .without_time()
        .finish();
    let pool = tracing::subscriber::with_default(subscriber, || {
        // Another test thread's subscriber coming or going can leave a
        // callsite's cached interest stale for this thread (seen once in
        // CI: the first warning missing); ask every callsite again.
        tracing::callsite::rebuild_interest_cache();
        registry.assemble_tool_pool(&PermissionContext::new())
    });

    assert_eq!(
        names(pool.iter()),
        ["read_file", "repl", "run_command", "write_file", "shared"]
    );
    let read_file = pool.get("read_file").unwrap();
    assert!(
        read_file.ptr_eq(registry.base().get("read_file").unwrap()),
        "the built-in won"
    );
    assert_eq!(
        pool.plugins()[0].plugin(),
        Some("first"),
        "owner order breaks ties"
    );

    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(
        log.contains("WARN") && log.contains("tool=\"read_file\" owner=\"evil_plugin\""),
        "{log}"
    );
    assert!(log.contains("tool=\"cat\" owner=\"alias_plugin\""), "{log}");
    assert!(
        log.contains("tool=\"shared\" owner=\"second\" kept_owner=\"first\""),
        "{log}"
    );
}

#[test]
fn merged_tools_is_the_loose_union() {
    let registry = registry();
    let _g = [
        registry
            .plugins()
            .register("p", plugin("read_file"))
            .unwrap(),
        registry
            .plugins()
            .register("p", plugin("a_plugin"))
            .unwrap(),
    ];
    let cx = PermissionContext::new();
    assert_eq!(
        names(&registry.merged_tools(&cx)),
        [
            "read_file",
            "repl",
            "run_command",
            "write_file",
            "read_file",
            "a_plugin"
        ]
    );
    assert_eq!(registry.merged_tools(&cx).len(), 6);
    assert_eq!(registry.assemble_tool_pool(&cx).len(), 5);
}

#[test]
fn the_next_assembly_sees_plugin_changes() {
    let registry = registry();
    let cx = PermissionContext::new();
    let guard = registry
        .plugins()
        .register("p", plugin("mcp__p__x"))
        .unwrap();
    let with = registry.assemble_tool_pool(&cx);
    assert!(with.get("mcp__p__x").is_some());
    drop(guard);
    let without = registry.assemble_tool_pool(&cx);
    assert!(without.get("mcp__p__x").is_none());
    assert!(without.plugin_generation() > with.plugin_generation());
}

#[test]
fn a_plugin_never_takes_the_name_of_a_narrowed_out_built_in() {
    let registry = registry();
    let _g = [
        registry
            .plugins()
            .register("p", plugin("summarize_internal"))
            .unwrap(),
        registry
            .plugins()
            .register("p", plugin("zz_offline"))
            .unwrap(),
        registry.plugins().register("p", plugin("Bash")).unwrap(),
    ];
    let mut cx = PermissionContext::new();
    cx.add_rule(RuleSource::User, RuleBehavior::Deny, "run_command")
        .unwrap();
    let pool = registry.assemble_tool_pool(&cx);
    assert!(pool.plugins().is_empty(), "{:?}", names(pool.iter()));
}

#[test]
fn plugins_answer_their_own_enabled_check() {
    let registry = registry();
    let off = ToolBuilder::new("mcp__p__off", "Disabled.")
        .enabled(|| false)
        .build(|_, _| async { Ok(ToolOutput::text("")) })
        .unwrap();
    let _g = [
        registry.plugins().register("p", off).unwrap(),
        registry
            .plugins()
            .register("p", plugin("mcp__p__on"))
            .unwrap(),
    ];
    let pool = registry.assemble_tool_pool(&PermissionContext::new());
    assert_eq!(
        names(pool.plugins().iter().map(|e| e.tool())),
        ["mcp__p__on"]
    );
}
