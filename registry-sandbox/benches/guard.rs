//! What the guards cost a command, against the same command unguarded.
//!
//! `cargo bench -p registry-sandbox --bench guard`
//!
//! Each case runs `sh -c CASE` in a scratch directory, once with no guard
//! ([`Policy::unguarded`]) and once with every guard on (exec guard with a
//! deny rule to check, mount namespace with a write-guarded file, network
//! namespace, Landlock, seccomp), through the same [`SandboxedCommand`]:
//!
//! - `true`: the fixed cost of a guarded command (namespaces, mounts, the
//!   tracer thread, one exec stop);
//! - `ls`: one ordinary program;
//! - `programs_1000`: a script that starts 1,000 programs (each an exec
//!   stop and a judged argument vector);
//! - `cargo_build`: `cargo build` of a one-file crate from clean (a real
//!   build's many processes; set `REGISTRY_BENCH_CARGO=0` to skip).
//!
//! Goals (issue 32): at most 5 ms added per command, at most 1.2x on the
//! 1,000-program script. The ratios are printed by criterion's own
//! report; compare `guarded` with `unguarded` in each group.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use registry_core::__private::enforce::PathAccess;
use registry_core::permission::{
    AllowedBy, CallRules, PermissionContext, PermissionMode, RuleBehavior, RuleSource,
};
use registry_sandbox::{Policy, Prediction, SandboxedCommand};

fn guarded(root: &Path, command: &str) -> Policy {
    let mut cx = PermissionContext::new();
    cx.add_rule(RuleSource::Project, RuleBehavior::Deny, "run_command(rm:*)")
        .unwrap();
    cx.add_rule(
        RuleSource::Project,
        RuleBehavior::Deny,
        "edit_file(guarded.txt)",
    )
    .unwrap();
    let rules = CallRules::new(
        Arc::new(cx),
        "run_command",
        Vec::new(),
        PermissionMode::Bypass,
    )
    .with_path_tools(Arc::from(vec![("edit_file".to_owned(), PathAccess::Write)]))
    .with_allowed_by(AllowedBy::Mode(PermissionMode::Bypass));
    let reading = shell_reading::read(command);
    Policy::new(&rules, root, Prediction::from_reading(&reading), Vec::new()).unwrap()
}

fn bench_case(c: &mut Criterion, name: &str, command: &str, root: &Path, samples: usize) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut group = c.benchmark_group(name);
    group.sample_size(samples);
    for (label, guard) in [("unguarded", false), ("guarded", true)] {
        group.bench_function(label, |b| {
            b.iter(|| {
                let policy = if guard {
                    guarded(root, command)
                } else {
                    Policy::unguarded()
                };
                let out = runtime
                    .block_on(
                        SandboxedCommand::new("sh")
                            .arg("-c")
                            .arg(command)
                            .current_dir(root)
                            .env("CARGO_HOME", root.join(".cargo-home"))
                            .output(policy),
                    )
                    .unwrap();
                assert_eq!(out.code, Some(0), "{command}: {out:?}");
            })
        });
    }
    group.finish();
}

fn guards(c: &mut Criterion) {
    if registry_sandbox::probe().exec_guard.is_err() {
        eprintln!("no exec guard here:\n{}", registry_sandbox::probe());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("guarded.txt"), "x").unwrap();
    bench_case(c, "true", "true", root, 50);
    bench_case(c, "ls", "ls -la", root, 50);
    bench_case(
        c,
        "programs_1000",
        "i=0; while [ $i -lt 1000 ]; do /bin/true; i=$((i+1)); done",
        root,
        10,
    );
    if std::env::var("REGISTRY_BENCH_CARGO").as_deref() != Ok("0") {
        let krate = root.join("small");
        std::fs::create_dir_all(krate.join("src")).unwrap();
        std::fs::write(
            krate.join("Cargo.toml"),
            "[package]\nname = \"small\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
        )
        .unwrap();
        std::fs::write(
            krate.join("src/main.rs"),
            "fn main() { println!(\"{}\", (1..10u64).product::<u64>()); }\n",
        )
        .unwrap();
        bench_case(
            c,
            "cargo_build",
            "cd small && cargo clean -q && cargo build --offline -q",
            root,
            10,
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(5));
    targets = guards
}
criterion_main!(benches);
