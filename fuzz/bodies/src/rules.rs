//! `rules`: permission rule text.
//!
//! Property: what parses displays as text that parses to the same rule,
//! and displays again as the same text.

use registry_core::permission::PermissionRule;

/// The input as one rule's text.
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(rule) = text.parse::<PermissionRule>() else {
        return;
    };
    let shown = rule.to_string();
    let again: PermissionRule = shown.parse().unwrap_or_else(|err| {
        panic!("{text:?} displays as {shown:?}, which does not parse: {err}")
    });
    assert_eq!(again, rule, "{text:?} displays as {shown:?}, another rule");
    assert_eq!(again.to_string(), shown, "{text:?}: display is not stable");
}
