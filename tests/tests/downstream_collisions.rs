//! Two linked tool crates that claim the same names: the list refuses to
//! build, and the error names both definitions of every contested name by
//! crate, module, file and line. Tools behind a runtime flag are checked
//! whether or not the flag is set.

mod downstream_support;

use downstream_support::{ALPHA_EDIT, ALPHA_LIB, BETA_LIB, BETA_SEARCH};
use registry_core::{
    Flags,
    catalog::{BaseTools, CatalogError, Claim, Collision},
    declare::{NameRole, Origin},
};

registry_core::link!(tools_alpha, tools_beta);

fn claim(tool: &str, role: NameRole, origin: Origin) -> Claim {
    Claim {
        tool: tool.to_owned(),
        role,
        origin,
        gate: None,
        compiled_out: false,
    }
}

fn collision(name: &str, first: Claim, second: Claim) -> Collision {
    Collision {
        name: name.to_owned(),
        first,
        second,
    }
}

/// Every collision between the two fixtures, in the order the error lists
/// them (by contested name).
fn expected_collisions() -> Vec<Collision> {
    let alpha_read = ALPHA_LIB.origin_of("pub struct AlphaRead;");
    let alpha_experimental = ALPHA_LIB.origin_of("pub struct AlphaExperimental;");
    let alpha_write = ALPHA_EDIT.origin_of("pub struct AlphaWrite;");
    let beta_search = BETA_SEARCH.origin_of("pub struct BetaSearch;");
    let beta_lab = BETA_LIB.origin_of("pub struct BetaLab;");
    let shadow_write = BETA_LIB.origin_of("pub struct ShadowWrite;");
    vec![
        collision(
            "alpha_experimental",
            claim("alpha_experimental", NameRole::Name, alpha_experimental),
            claim("beta_lab", NameRole::Alias, beta_lab),
        ),
        collision(
            "alpha_read",
            claim("alpha_read", NameRole::Name, alpha_read.clone()),
            claim("beta_search", NameRole::Alias, beta_search.clone()),
        ),
        collision(
            "alpha_write",
            claim("alpha_write", NameRole::Name, alpha_write),
            claim("alpha_write", NameRole::Name, shadow_write),
        ),
        collision(
            "aread",
            claim("alpha_read", NameRole::Alias, alpha_read),
            claim("beta_search", NameRole::Alias, beta_search),
        ),
    ]
}

/// The error text, spelled out in full from the fixtures' paths and the
/// lines of their structs.
fn expected_message() -> String {
    let line = |fixture: &downstream_support::Fixture, needle| fixture.origin_of(needle).line;
    let alpha_read = line(&ALPHA_LIB, "pub struct AlphaRead;");
    let alpha_experimental = line(&ALPHA_LIB, "pub struct AlphaExperimental;");
    let alpha_write = line(&ALPHA_EDIT, "pub struct AlphaWrite;");
    let beta_search = line(&BETA_SEARCH, "pub struct BetaSearch;");
    let beta_lab = line(&BETA_LIB, "pub struct BetaLab;");
    let shadow_write = line(&BETA_LIB, "pub struct ShadowWrite;");
    format!(
        "4 tool name collision(s) in the linked catalog:
  - `alpha_experimental` is claimed twice: \
as the name of tool `alpha_experimental` (crate `tools_alpha`, module `tools_alpha`, tests/crates/tools-alpha/src/lib.rs:{alpha_experimental}) \
and as an alias of tool `beta_lab` (crate `tools_beta`, module `tools_beta`, tests/crates/tools-beta/src/lib.rs:{beta_lab})
  - `alpha_read` is claimed twice: \
as the name of tool `alpha_read` (crate `tools_alpha`, module `tools_alpha`, tests/crates/tools-alpha/src/lib.rs:{alpha_read}) \
and as an alias of tool `beta_search` (crate `tools_beta`, module `tools_beta::search`, tests/crates/tools-beta/src/search.rs:{beta_search})
  - `alpha_write` is claimed twice: \
as the name of tool `alpha_write` (crate `tools_alpha`, module `tools_alpha::edit`, tests/crates/tools-alpha/src/edit.rs:{alpha_write}) \
and as the name of tool `alpha_write` (crate `tools_beta`, module `tools_beta`, tests/crates/tools-beta/src/lib.rs:{shadow_write})
  - `aread` is claimed twice: \
as an alias of tool `alpha_read` (crate `tools_alpha`, module `tools_alpha`, tests/crates/tools-alpha/src/lib.rs:{alpha_read}) \
and as an alias of tool `beta_search` (crate `tools_beta`, module `tools_beta::search`, tests/crates/tools-beta/src/search.rs:{beta_search})"
    )
}

fn collisions_for(flags: &Flags) -> Vec<Collision> {
    match BaseTools::linked(flags) {
        Err(CatalogError::Collisions(collisions)) => collisions,
        Err(other) => panic!("expected collisions, got: {other}"),
        Ok(tools) => panic!("expected collisions, got a list of {} tools", tools.len()),
    }
}

/// Guards the helper the other tests rely on: an origin's line is the line
/// of the `struct` itself, even under a multi-line `#[tool(...)]`.
#[test]
fn origins_point_at_the_struct_line_not_the_attribute() {
    let origin = ALPHA_LIB.origin_of("pub struct AlphaExperimental;");
    let lines: Vec<&str> = ALPHA_LIB.source.lines().collect();
    assert_eq!(
        lines[origin.line as usize - 1],
        "pub struct AlphaExperimental;"
    );
    let attribute = downstream_support::line_of(ALPHA_LIB.source, r#"name = "alpha_experimental""#);
    assert!(attribute < origin.line, "{attribute} < {}", origin.line);

    let tools = match BaseTools::linked(&Flags::new()) {
        Err(CatalogError::Collisions(collisions)) => collisions,
        other => panic!("expected collisions, got {other:?}"),
    };
    let experimental = tools
        .iter()
        .find(|c| c.name == "alpha_experimental")
        .unwrap();
    assert_eq!(experimental.first.origin, origin);
}

#[test]
fn linked_names_both_definitions_of_every_collision() {
    assert_eq!(collisions_for(&Flags::new()), expected_collisions());
}

#[test]
fn the_error_message_says_exactly_what_collided_and_where() {
    let err = BaseTools::linked(&Flags::new()).expect_err("the catalog is inconsistent");
    assert_eq!(err.to_string(), expected_message());
}

#[test]
fn tools_behind_an_unset_flag_still_collide() {
    let off = collisions_for(&Flags::new());
    assert!(
        off.iter().any(|c| c.name == "alpha_experimental"
            && c.first.origin.crate_name == "tools_alpha"
            && c.second.origin.crate_name == "tools_beta"),
        "{off:?}"
    );
    // Flipping the flag changes nothing: the check never depended on it.
    assert_eq!(
        collisions_for(&Flags::new().with("alpha_experimental")),
        off
    );
}
