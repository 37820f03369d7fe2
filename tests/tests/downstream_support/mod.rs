//! Shared by the `downstream_*` suites: where the fixture crates' tools are
//! declared, computed from the fixtures' source text so the expected lines
//! follow the files when they are edited.
//!
//! Only `&'static str` and `include_str!` here: nothing in this module may
//! refer to a fixture crate, or it would link that crate into every suite
//! and hide the failure mode `downstream_unlinked` demonstrates.

// Each suite uses a different subset of the fixtures.
#![allow(dead_code)]

use registry_core::{catalog::BaseTools, declare::Origin};

/// One source file of a fixture crate.
pub struct Fixture {
    /// The crate as `CARGO_CRATE_NAME` spells it.
    pub crate_name: &'static str,
    /// The module the file defines.
    pub module_path: &'static str,
    /// The path `file!()` gives inside the crate: workspace-relative, since
    /// the fixtures are workspace members.
    pub file: &'static str,
    /// The file's text.
    pub source: &'static str,
}

impl Fixture {
    /// The origin `#[tool]` must record for the struct declared by the one
    /// line of this file that contains `needle`.
    pub fn origin_of(&self, needle: &str) -> Origin {
        Origin {
            crate_name: self.crate_name,
            module_path: self.module_path,
            file: self.file,
            line: line_of(self.source, needle),
        }
    }
}

/// `tools-alpha`'s root module: `alpha_read`, `alpha_experimental`.
pub const ALPHA_LIB: Fixture = Fixture {
    crate_name: "tools_alpha",
    module_path: "tools_alpha",
    file: "tests/crates/tools-alpha/src/lib.rs",
    source: include_str!("../../crates/tools-alpha/src/lib.rs"),
};

/// `tools-alpha`'s `edit` module: `alpha_write`.
pub const ALPHA_EDIT: Fixture = Fixture {
    crate_name: "tools_alpha",
    module_path: "tools_alpha::edit",
    file: "tests/crates/tools-alpha/src/edit.rs",
    source: include_str!("../../crates/tools-alpha/src/edit.rs"),
};

/// `tools-beta`'s root module: `beta_lab`, `beta_plain`.
pub const BETA_LIB: Fixture = Fixture {
    crate_name: "tools_beta",
    module_path: "tools_beta",
    file: "tests/crates/tools-beta/src/lib.rs",
    source: include_str!("../../crates/tools-beta/src/lib.rs"),
};

/// `tools-beta`'s `search` module: `beta_search`.
pub const BETA_SEARCH: Fixture = Fixture {
    crate_name: "tools_beta",
    module_path: "tools_beta::search",
    file: "tests/crates/tools-beta/src/search.rs",
    source: include_str!("../../crates/tools-beta/src/search.rs"),
};

/// `renamed-core-user`'s root module: `renamed_echo`.
pub const RENAMED_LIB: Fixture = Fixture {
    crate_name: "renamed_core_user",
    module_path: "renamed_core_user",
    file: "tests/crates/renamed-core-user/src/lib.rs",
    source: include_str!("../../crates/renamed-core-user/src/lib.rs"),
};

/// `tools-gated`'s root module: `gated_plain`, `gated_extra`, `gated_shell`.
pub const GATED_LIB: Fixture = Fixture {
    crate_name: "tools_gated",
    module_path: "tools_gated",
    file: "tests/crates/tools-gated/src/lib.rs",
    source: include_str!("../../crates/tools-gated/src/lib.rs"),
};

/// `tools-gated-clash`'s root module: `clash_lookup`, `clash_always`.
pub const GATED_CLASH_LIB: Fixture = Fixture {
    crate_name: "tools_gated_clash",
    module_path: "tools_gated_clash",
    file: "tests/crates/tools-gated-clash/src/lib.rs",
    source: include_str!("../../crates/tools-gated-clash/src/lib.rs"),
};

/// The 1-based line of the only line of `source` containing `needle`.
///
/// # Panics
///
/// When `needle` is on no line or on several.
pub fn line_of(source: &str, needle: &str) -> u32 {
    let hits: Vec<usize> = source
        .lines()
        .enumerate()
        .filter(|(_, line)| line.contains(needle))
        .map(|(index, _)| index + 1)
        .collect();
    match hits.as_slice() {
        [line] => u32::try_from(*line).expect("fixture files are short"),
        _ => panic!("`{needle}` should be on exactly one line, found on {hits:?}"),
    }
}

/// The primary names in list order.
pub fn names(tools: &BaseTools) -> Vec<&str> {
    tools.iter().map(|tool| tool.name()).collect()
}
