//! Every checked-in fuzz input, replayed through its target's body in
//! `cargo test`: the seed corpora (`fuzz/corpus/<target>/`) and the
//! crashes the fuzzer found (`fuzz/regressions/<target>/`), each a
//! regression test once fixed. A body panics only when a property of the
//! code under test fails, so this is also the test that no panic escapes
//! a public function on any of these inputs.

use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use registry_fuzz_bodies::TARGETS;

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn every_checked_in_input_passes_its_target() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut failures = Vec::new();
    let mut replayed = 0;
    for (target, body) in TARGETS {
        let seeds = inputs(&root.join("corpus").join(target));
        assert!(
            !seeds.is_empty(),
            "fuzz/corpus/{target}/ has no seed inputs"
        );
        let regressions = inputs(&root.join("regressions").join(target));
        for path in seeds.iter().chain(&regressions) {
            let data = fs::read(path).expect("a checked-in input reads");
            replayed += 1;
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| body(&data))) {
                let message = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_default();
                failures.push(format!("{}: {message}", path.display()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {replayed} inputs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_target_has_a_fuzz_target_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (target, _) in TARGETS {
        let file = root.join("fuzz_targets").join(format!("{target}.rs"));
        let text =
            fs::read_to_string(&file).unwrap_or_else(|_| panic!("{} is missing", file.display()));
        assert!(
            text.contains(&format!("registry_fuzz_bodies::{target}::run")),
            "{} does not call its body",
            file.display()
        );
    }
}
