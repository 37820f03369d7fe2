//! The authoritative list this crate contributes, and every tool's declared
//! posture.

use registry_core::{
    Flags, ToolHandle,
    catalog::BaseTools,
    declare::{Loading, NameRole, PostureKind, ResultCap, Setting, Source},
};

fn list() -> registry_core::catalog::BaseTools {
    BaseTools::linked(&Flags::new()).expect("the catalog is consistent")
}

#[test]
fn the_list_holds_exactly_these_tools_sorted() {
    let tools = list();
    let names: Vec<&str> = tools.iter().map(ToolHandle::name).collect();
    let mut expected = vec![
        "edit_file",
        "glob",
        "grep",
        "list_dir",
        "read_file",
        "run_command",
        "todo_write",
        "write_file",
    ];
    if cfg!(feature = "web") {
        expected.push("web_fetch");
    }
    expected.sort_unstable();
    assert_eq!(names, expected);
    assert_eq!(tools.get("web_fetch").is_some(), cfg!(feature = "web"));
    assert_eq!(tools.resolve("web_fetch").is_some(), cfg!(feature = "web"));
}

#[test]
fn the_crate_is_linked_and_every_tool_comes_from_it() {
    let tools = list();
    tools
        .require_crates(&["registry_examples"])
        .expect("linked");
    for tool in &tools {
        let origin = tool.spec().origin();
        assert_eq!(origin.crate_name, "registry_examples", "{}", tool.name());
        assert!(
            origin.module_path.starts_with("registry_examples::tools::"),
            "{}: {}",
            tool.name(),
            origin.module_path
        );
        let file = origin.file.replace('\\', "/");
        assert!(
            file.ends_with(&format!("src/tools/{}.rs", tool.name())),
            "{}: one module per tool, named after it, got {file}",
            tool.name()
        );
    }
}

#[test]
fn aliases_resolve_to_read_file() {
    let tools = list();
    for alias in ["Read", "cat"] {
        let (tool, role) = tools.resolve(alias).expect(alias);
        assert_eq!(tool.name(), "read_file");
        assert_eq!(role, NameRole::Alias);
        assert!(tools.get(alias).is_none(), "`get` takes primary names only");
    }
    let (_, role) = tools.resolve("read_file").expect("read_file");
    assert_eq!(role, NameRole::Name);
}

#[test]
fn every_tool_has_a_model_facing_description_and_schema() {
    for tool in &list() {
        let spec = tool.spec();
        assert!(
            spec.description().len() > 80,
            "{}: description too short to choose by",
            tool.name()
        );
        let schema = tool.input_schema();
        assert_eq!(schema["type"], "object", "{}", tool.name());
        assert_eq!(
            schema["additionalProperties"],
            false,
            "{}: inputs deny unknown fields",
            tool.name()
        );
        let properties = schema["properties"]
            .as_object()
            .unwrap_or_else(|| panic!("{}: no properties", tool.name()));
        for (field, property) in properties {
            assert!(
                property.get("description").is_some(),
                "{}: field `{field}` has no description",
                tool.name()
            );
        }
    }
}

/// What a posture setting should be: its value and whether it was declared.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Want {
    Declared(bool),
    Default(bool),
    PerInput,
    /// An undeclared `destructive` following a per-input `read_only`.
    DefaultPerInput,
}

fn check_posture(tool: &str, key: &str, setting: &Setting<PostureKind>, want: Want) {
    let got = match (setting.value(), setting.source()) {
        (PostureKind::PerInput(_), Source::Declared) => Want::PerInput,
        (PostureKind::Fixed(v), Source::Declared) => Want::Declared(*v),
        (PostureKind::Fixed(v), Source::Default) => Want::Default(*v),
        (PostureKind::NotReadOnly, Source::Default) => Want::DefaultPerInput,
        (PostureKind::PerInput(_), Source::Default) | (PostureKind::NotReadOnly, _) => {
            panic!("{tool}.{key}: a default is never an expression, only `not read-only`")
        }
    };
    assert_eq!(got, want, "{tool}.{key}");
}

#[test]
fn every_tool_declares_the_posture_of_its_spec() {
    use Want::{Declared, Default, PerInput};
    // (tool, concurrency_safe, read_only, destructive, declared cap, loading)
    let mut table = vec![
        (
            "edit_file",
            Declared(false),
            Declared(false),
            Declared(false),
            None,
            None,
        ),
        (
            "glob",
            Declared(true),
            Declared(true),
            Default(false),
            None,
            None,
        ),
        (
            "grep",
            Declared(true),
            Declared(true),
            Default(false),
            None,
            None,
        ),
        (
            "list_dir",
            Declared(true),
            Declared(true),
            Default(false),
            None,
            None,
        ),
        (
            "read_file",
            Declared(true),
            Declared(true),
            Default(false),
            Some(100_000),
            None,
        ),
        ("run_command", PerInput, PerInput, PerInput, None, None),
        (
            "todo_write",
            Declared(false),
            Declared(false),
            Declared(false),
            None,
            Some(Loading::AlwaysLoad),
        ),
        (
            "write_file",
            Declared(false),
            Declared(false),
            Declared(true),
            None,
            None,
        ),
    ];
    if cfg!(feature = "web") {
        table.push((
            "web_fetch",
            Declared(true),
            Declared(true),
            Default(false),
            None,
            Some(Loading::Deferred),
        ));
    }

    let tools = list();
    assert_eq!(table.len(), tools.len(), "every tool is in the table");
    for (name, concurrency_safe, read_only, destructive, cap, loading) in table {
        let tool = tools.get(name).unwrap_or_else(|| panic!("{name} missing"));
        let spec = tool.spec();
        check_posture(
            name,
            "concurrency_safe",
            spec.concurrency_safe(),
            concurrency_safe,
        );
        check_posture(name, "read_only", spec.read_only(), read_only);
        check_posture(name, "destructive", spec.destructive(), destructive);

        match cap {
            Some(chars) => {
                assert_eq!(
                    spec.max_result_chars().value().limit(),
                    Some(chars),
                    "{name}"
                );
                assert!(spec.max_result_chars().is_declared(), "{name}");
            }
            None => {
                assert_eq!(
                    spec.max_result_chars().value(),
                    &ResultCap::DEFAULT,
                    "{name}"
                );
                assert_eq!(spec.max_result_chars().source(), Source::Default, "{name}");
            }
        }
        match loading {
            Some(loading) => {
                assert_eq!(spec.loading().value(), &loading, "{name}");
                assert!(spec.loading().is_declared(), "{name}");
            }
            None => {
                assert_eq!(spec.loading().value(), &Loading::Eager, "{name}");
                assert_eq!(spec.loading().source(), Source::Default, "{name}");
            }
        }
        assert_eq!(spec.flag(), None, "{name}: gated at compile time only");
        assert!(tool.is_enabled(), "{name}");
        assert_eq!(
            *spec.has_classifier_input().value(),
            name == "run_command",
            "{name}"
        );
    }
}

#[test]
fn run_command_posture_expressions_name_the_classifiers() {
    let tools = list();
    let spec = tools.get("run_command").expect("run_command").spec();
    for (key, setting, function) in [
        (
            "concurrency_safe",
            spec.concurrency_safe(),
            "classification().read_only",
        ),
        ("read_only", spec.read_only(), "classification().read_only"),
        (
            "destructive",
            spec.destructive(),
            "classification().destructive",
        ),
    ] {
        match setting.value() {
            PostureKind::PerInput(expr) => {
                assert!(expr.contains(function), "{key}: {expr}");
            }
            other => panic!("{key}: expected per input, got {other:?}"),
        }
    }
}

#[test]
fn search_hints_help_tool_search() {
    let tools = list();
    let hint = |name: &str| {
        tools
            .get(name)
            .and_then(|t| t.spec().search_hint())
            .map(str::to_owned)
    };
    assert!(hint("glob").is_some_and(|h| h.contains("pattern")));
    if cfg!(feature = "web") {
        assert_eq!(hint("web_fetch").as_deref(), Some("http url download page"));
    }
}
