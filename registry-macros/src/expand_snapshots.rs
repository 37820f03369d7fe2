//! Expansion snapshots: every `tests/ui-cases/expand/*.rs` (from the
//! workspace root) is expanded in-process and pretty-printed next to it as
//! `*.expanded.rs`; `registry-ui-tests` compiles the same inputs.
//!
//! In-process rendering keeps CI free of a `cargo-expand` install and keeps
//! nested macros (`inventory::submit!`, `line!`) folded, which is what a
//! reader wants to see; `cargo expand` shows the same `#[tool]` output with
//! those macros expanded further. Set `UPDATE_EXPAND=1` to rewrite.

use std::fs;
use std::path::{Path, PathBuf};

use quote::ToTokens;
use syn::{Item, Meta};

fn expand_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/ui-cases/expand")
}

/// Expands every `#[tool]` item of a source file, as the compiler would.
fn expand_file(source: &str) -> String {
    let file = syn::parse_file(source).expect("snapshot input parses");
    let mut items = Vec::new();
    for mut item in file.items {
        let attrs = match &mut item {
            Item::Struct(s) => &mut s.attrs,
            _ => {
                items.push(item);
                continue;
            }
        };
        let Some(position) = attrs.iter().position(crate::check::is_tool_attr) else {
            items.push(item);
            continue;
        };
        let attr = attrs.remove(position);
        let args = match attr.meta {
            Meta::List(list) => list.tokens,
            _ => proc_macro2::TokenStream::new(),
        };
        let expanded = crate::expand::tool(args, item.into_token_stream());
        let expanded: syn::File = syn::parse2(expanded).expect("expansion parses as items");
        items.extend(expanded.items);
    }
    prettyplease::unparse(&syn::File {
        shebang: None,
        attrs: file.attrs,
        items,
    })
}

#[test]
fn expansions_match_their_snapshots() {
    let update = std::env::var_os("UPDATE_EXPAND").is_some();
    let mut inputs: Vec<PathBuf> = fs::read_dir(expand_dir())
        .expect("tests/ui-cases/expand exists")
        .map(|entry| entry.expect("readable entry").path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            name.ends_with(".rs") && !name.ends_with(".expanded.rs")
        })
        .collect();
    inputs.sort();
    assert!(
        inputs.len() >= 3,
        "expected at least three expansion inputs"
    );

    let mut mismatches = Vec::new();
    for input in inputs {
        let actual = expand_file(&fs::read_to_string(&input).expect("readable input"));
        let snapshot = input.with_extension("expanded.rs");
        if update {
            fs::write(&snapshot, &actual).expect("writable snapshot");
            continue;
        }
        match fs::read_to_string(&snapshot) {
            Ok(expected) if expected == actual => {}
            Ok(_) => mismatches.push(format!(
                "{} differs from its snapshot; run with UPDATE_EXPAND=1 and review the diff.\n--- actual ---\n{actual}",
                input.display()
            )),
            Err(_) => mismatches.push(format!(
                "{} has no snapshot; run with UPDATE_EXPAND=1 to create it",
                input.display()
            )),
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n\n"));
}
