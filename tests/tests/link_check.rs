//! The build-time duplicate check: two crates that claim one tool name (or
//! alias) fail to link, before any program starts, and the linker names
//! the contested name and both definitions. Also: the same crates link
//! when only one is used, and the opt-out cfg turns the check off.
//!
//! The check needs a real link, so this suite writes a small workspace
//! (two tool crates and a binary, depending on this checkout's
//! `registry-core`) into a temporary directory and runs `cargo build` on
//! it, offline, with a target directory kept between runs.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, PoisonError};

const TOOL_CRATE: &str = r#"
use registry_core::{Tool, ToolContext, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Input {
    pub text: String,
}

/// Echo the text.
#[tool(name = "NAME", aliases = [ALIASES])]
pub struct Echo;

impl Tool for Echo {
    type Input = Input;
    type Output = String;
    type Error = std::convert::Infallible;

    async fn call(&self, input: Input, _cx: &ToolContext) -> Result<String, Self::Error> {
        Ok(input.text)
    }
}
"#;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
        .to_path_buf()
}

/// Writes a workspace with tool crates `a` and `b` and a binary `app`
/// that uses `uses` of them; `skip` lists the crates built with the
/// opt-out cfg.
fn write_workspace(dir: &Path, a: (&str, &str), b: (&str, &str), uses: &[&str], skip: &[&str]) {
    let core = workspace_root().join("registry-core");
    let write = |path: &str, text: &str| {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "Cargo.toml",
        "[workspace]\nresolver = \"3\"\nmembers = [\"a\", \"b\", \"app\"]\n",
    );
    for (krate, (name, aliases)) in [("a", a), ("b", b)] {
        let deps = format!(
            "registry-core = {{ path = {core:?} }}\nserde = {{ version = \"1\", features = [\"derive\"] }}\nschemars = \"1\"\n"
        );
        write(
            &format!("{krate}/Cargo.toml"),
            &format!(
                "[package]\nname = \"{krate}\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\n{deps}"
            ),
        );
        write(
            &format!("{krate}/src/lib.rs"),
            &TOOL_CRATE.replace("NAME", name).replace("ALIASES", aliases),
        );
        if skip.contains(&krate) {
            write(
                &format!("{krate}/build.rs"),
                "fn main() {\n    println!(\"cargo::rustc-check-cfg=cfg(registry_core_skip_link_check)\");\n    println!(\"cargo::rustc-cfg=registry_core_skip_link_check\");\n}\n",
            );
        }
    }
    let deps: String = uses
        .iter()
        .map(|krate| format!("{krate} = {{ path = \"../{krate}\" }}\n"))
        .collect();
    write(
        "app/Cargo.toml",
        &format!(
            "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\nregistry-core = {{ path = {core:?} }}\n{deps}"
        ),
    );
    let links = uses.join(", ");
    write(
        "app/src/main.rs",
        &format!(
            "registry_core::link!({links});\n\nfn main() {{\n    let tools = registry_core::catalog::BaseTools::linked(&registry_core::Flags::new());\n    println!(\"{{}}\", tools.is_ok());\n}}\n"
        ),
    );
    // The checkout's lock keeps the versions (and the offline build) the same.
    std::fs::copy(workspace_root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
}

/// The scratch workspaces share crate names and one target directory, so
/// their builds take turns.
static ONE_BUILD_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Writes a scratch workspace (see [`write_workspace`]) and builds it:
/// success and the combined output. Scenarios take turns, whole: cargo
/// judges freshness by modification times, so one scenario's sources must
/// not be written while another's build is under way.
/// When it linked, it also runs the binary: the third value is what it
/// printed, i.e. whether its tool list built.
fn link(a: (&str, &str), b: (&str, &str), uses: &[&str], skip: &[&str]) -> (bool, String, String) {
    let _turn = ONE_BUILD_AT_A_TIME
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let dir = tempfile::tempdir().unwrap();
    write_workspace(dir.path(), a, b, uses, skip);
    let (ok, output) = build(dir.path());
    let printed = if ok { run_app() } else { String::new() };
    (ok, output, printed)
}

/// `cargo build` of a written workspace: success and combined output.
fn build(dir: &Path) -> (bool, String) {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("link-check");
    let output = Command::new(env!("CARGO"))
        .args(["build", "--offline", "--quiet", "-p", "app"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

/// Runs the binary the last build made.
fn run_app() -> String {
    let app = Path::new(env!("CARGO_TARGET_TMPDIR")).join("link-check/debug/app");
    let output = Command::new(app).output().expect("the app was built");
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

fn linker_reports_duplicate(output: &str, claimed: &str) -> bool {
    let symbol = format!("registry_core$tool_name_or_alias${claimed}");
    output.lines().any(|line| {
        line.contains(&symbol)
            && (line.contains("duplicate symbol") || line.contains("multiple definition"))
    })
}

#[test]
fn two_crates_claiming_one_name_fail_to_link() {
    let (ok, output, _) = link(("shared_echo", ""), ("shared_echo", ""), &["a", "b"], &[]);
    assert!(!ok, "the build must fail:\n{output}");
    assert!(linker_reports_duplicate(&output, "shared_echo"), "{output}");
    if output.contains("duplicate symbol") {
        // rust-lld names both definitions' source files.
        for krate in ["a", "b"] {
            assert!(output.contains(&format!("{krate}/src/lib.rs:")), "{output}");
        }
    }
}

#[test]
fn a_name_against_an_alias_fails_to_link_too() {
    let (ok, output, _) = link(
        ("echo_a", "\"old_echo\""),
        ("old_echo", ""),
        &["a", "b"],
        &[],
    );
    assert!(!ok, "the build must fail:\n{output}");
    assert!(linker_reports_duplicate(&output, "old_echo"), "{output}");
}

#[test]
fn distinct_names_link() {
    let (ok, output, printed) = link(("echo_a", "\"ea\""), ("echo_b", "\"eb\""), &["a", "b"], &[]);
    assert!(ok, "{output}");
    assert_eq!(printed, "true", "the list builds");
}

#[test]
fn a_crate_left_out_of_the_binary_cannot_clash() {
    let (ok, output, printed) = link(("shared_echo", ""), ("shared_echo", ""), &["a"], &[]);
    assert!(ok, "{output}");
    assert_eq!(printed, "true");
}

#[test]
fn the_opt_out_leaves_the_clash_to_run_time() {
    let (ok, output, printed) = link(
        ("shared_echo", ""),
        ("shared_echo", ""),
        &["a", "b"],
        &["a", "b"],
    );
    assert!(ok, "both crates opted out:\n{output}");
    assert_eq!(
        printed, "false",
        "the run-time check still refuses the list"
    );
}
