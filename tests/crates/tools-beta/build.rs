//! This fixture clashes with its sibling on purpose, to test the run-time
//! collision report; it opts out of the link-time duplicate check, which
//! would otherwise stop the test binaries from linking at all.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(registry_core_skip_link_check)");
    println!("cargo::rustc-cfg=registry_core_skip_link_check");
}
