//! `lock`: the catalog lock reader.
//!
//! Property: no panic; a lock that parses renders to text that parses to
//! the same lock and renders to the same bytes.

use registry_core::catalog::lock::CatalogLock;

/// The input as a lock file's text.
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(lock) = CatalogLock::parse(text, "fuzz.lock.json") else {
        return;
    };
    let rendered = lock.to_json();
    let again = CatalogLock::parse(&rendered, "fuzz.lock.json")
        .unwrap_or_else(|err| panic!("a parsed lock renders as text that does not parse: {err}"));
    assert_eq!(
        again.to_json(),
        rendered,
        "a lock's rendering is not stable"
    );
}
