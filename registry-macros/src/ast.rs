//! The validated model of one `#[tool]`: the struct it is on and what the
//! attribute said, in the shape code generation wants.

use darling::ast::NestedMeta;
use darling::{Error, FromMeta};
use proc_macro2::TokenStream;
use quote::quote;
use syn::{Expr, Ident, ItemStruct, LitStr};

use crate::attr::{KEYS, PostureArg, ResultCapArg, ToolArgs};
use crate::check;

/// Everything code generation needs, already checked.
pub struct ToolModel {
    /// The struct, exactly as written (re-emitted unchanged).
    pub item: ItemStruct,
    pub krate: syn::Path,
    pub name: LitStr,
    pub aliases: Vec<LitStr>,
    pub description: Description,
    pub concurrency_safe: Option<PostureArg>,
    pub read_only: Option<PostureArg>,
    pub destructive: Option<PostureArg>,
    pub search_hint: Option<LitStr>,
    pub input_examples: Vec<LitStr>,
    pub strict: Option<bool>,
    pub max_result_chars: Option<ResultCapArg>,
    pub loading: Option<Loading>,
    pub flag: Option<LitStr>,
    pub enabled: Option<Expr>,
    pub classifier_input: Option<Expr>,
    pub access: Option<Expr>,
    pub user_facing_name: Option<LitStr>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    pub allowed_callers: Option<crate::attr::AllowedCallers>,
    pub rule_of_two: Option<crate::attr::RuleOfTwoArg>,
    pub long_running: bool,
    pub internal: bool,
    /// `cfg(...)`: the compile-time gate; `None` when ungated.
    pub gate: Option<crate::gate::Predicate>,
}

/// Where the description comes from.
pub enum Description {
    Attr(LitStr),
    Doc(String),
}

impl Description {
    pub fn text(&self) -> String {
        match self {
            Description::Attr(lit) => lit.value(),
            Description::Doc(text) => text.clone(),
        }
    }
}

#[derive(Clone, Copy)]
pub enum Loading {
    Deferred,
    AlwaysLoad,
}

impl ToolModel {
    pub fn ident(&self) -> &Ident {
        &self.item.ident
    }
}

/// The default path of the runtime crate.
pub fn default_krate() -> syn::Path {
    syn::parse_quote!(::registry_core)
}

/// What is left when parsing fails: every error found, and what the
/// fallback needs to keep the user's crate type-checking.
pub struct Failure {
    pub errors: Error,
    /// The user's item, re-emitted unchanged.
    pub item: TokenStream,
    /// Set when the item is a struct: it gets stub impls.
    pub tool: Option<ItemStruct>,
    pub krate: syn::Path,
}

/// Parses and checks the attribute and its item, collecting every error.
pub fn parse(args: TokenStream, item: TokenStream) -> Result<ToolModel, Box<Failure>> {
    let original = item.clone();
    let mut errors = Error::accumulator();

    // After a syntax error nothing of the list is known, so nothing may be
    // reported as missing either: the syntax error is the one to fix.
    let (metas, syntax_ok) = match NestedMeta::parse_meta_list(args) {
        Ok(metas) => (metas, true),
        Err(err) => {
            errors.push(err.into());
            (Vec::new(), false)
        }
    };
    let metas = screen_keys(&metas, &mut errors);
    let parsed = parse_args(&metas, &mut errors);
    let krate = parsed
        .krate
        .as_ref()
        .map_or_else(default_krate, |k| k.0.clone());

    let item = match syn::parse2::<syn::Item>(item) {
        Ok(syn::Item::Struct(item)) => Some(item),
        Ok(other) => {
            errors.push(check::unsupported_item(&other));
            None
        }
        Err(err) => {
            errors.push(err.into());
            None
        }
    };

    let Some(mut item) = item else {
        return Err(Box::new(Failure {
            errors: Error::multiple(errors.into_inner()),
            item: original,
            tool: None,
            krate,
        }));
    };

    errors.handle(check::item_shape(&item));
    // A second `#[tool]` was just reported; dropping it keeps it from
    // expanding again into conflicting impls.
    item.attrs.retain(|attr| !check::is_tool_attr(attr));
    // A key written with a wrong value was reported where it was parsed;
    // it must not also count as missing.
    let written = |key: &str| {
        !syntax_ok
            || metas
                .iter()
                .any(|meta| matches!(meta, NestedMeta::Meta(m) if m.path().is_ident(key)))
    };
    let name = match &parsed.name {
        None if written("name") => None,
        name => errors.handle(check::name(name.as_ref().map(|s| &s.0))),
    };
    let aliases = errors.handle(check::aliases(&parsed.aliases.0, name.as_ref()));
    let description = match &parsed.description {
        None if written("description") => None,
        description => errors.handle(check::description(
            description.as_ref().map(|s| &s.0),
            &item,
        )),
    };
    let loading = errors.handle(check::loading(parsed.defer, parsed.always_load));
    if let Some(flag) = &parsed.flag {
        errors.handle(check::flag(&flag.0));
    }

    let errors = errors.into_inner();
    let (true, Some(name), Some(aliases), Some(description), Some(loading)) =
        (errors.is_empty(), name, aliases, description, loading)
    else {
        return Err(Box::new(Failure {
            errors: Error::multiple(errors),
            item: quote!(#item),
            tool: Some(item),
            krate,
        }));
    };

    Ok(ToolModel {
        gate: parsed.cfg.map(|cfg| cfg.0),
        item,
        krate,
        name,
        aliases,
        description,
        concurrency_safe: parsed.concurrency_safe,
        read_only: parsed.read_only,
        destructive: parsed.destructive,
        search_hint: parsed.search_hint.map(|s| s.0),
        input_examples: parsed.input_examples.0,
        strict: parsed.strict.map(|b| b.0),
        max_result_chars: parsed.max_result_chars,
        loading,
        flag: parsed.flag.map(|s| s.0),
        enabled: parsed.enabled.map(|f| f.0),
        classifier_input: parsed.classifier_input.map(|f| f.0),
        access: parsed.access.map(|f| f.0),
        user_facing_name: parsed.user_facing_name.map(|s| s.0),
        idempotent: parsed.idempotent.map(|b| b.0),
        open_world: parsed.open_world.map(|b| b.0),
        allowed_callers: parsed.allowed_callers,
        rule_of_two: parsed.rule_of_two,
        long_running: parsed.long_running.0.is_some(),
        internal: parsed.internal.0.is_some(),
    })
}

/// Rejects unknown and repeated keys (and bare literals) with messages that
/// list the valid keys, and passes the rest on to darling, so one typo does
/// not hide the other mistakes.
fn screen_keys(metas: &[NestedMeta], errors: &mut darling::error::Accumulator) -> Vec<NestedMeta> {
    let mut seen: Vec<String> = Vec::new();
    let mut kept = Vec::new();
    for meta in metas {
        let NestedMeta::Meta(inner) = meta else {
            errors.push(
                Error::custom(format!(
                    "expected `key = value` or a key alone; valid keys: {}",
                    KEYS.join(", ")
                ))
                .with_span(meta),
            );
            continue;
        };
        let path = inner.path();
        let key = path
            .get_ident()
            .map(ToString::to_string)
            .or_else(|| path.is_ident("crate").then(|| "crate".to_owned()))
            .unwrap_or_else(|| quote!(#path).to_string());
        if !KEYS.contains(&key.as_str()) {
            let suggestion = nearest_key(&key)
                .map(|near| format!("did you mean `{near}`? "))
                .unwrap_or_default();
            errors.push(
                Error::custom(format!(
                    "unknown key `{key}` in #[tool(...)]; {suggestion}expected one of: {}",
                    KEYS.join(", ")
                ))
                .with_span(path),
            );
            continue;
        }
        if seen.contains(&key) {
            errors.push(
                Error::custom(format!("`{key}` is given more than once in #[tool(...)]"))
                    .with_span(path),
            );
            continue;
        }
        seen.push(key);
        kept.push(meta.clone());
    }
    kept
}

/// The valid key closest to an unknown one, when it is close enough to be
/// a typo (`readonly`, `read-only`, `concurency_safe`), compared without
/// case, `_` or `-` and then by edit distance; ties go to the earlier key
/// in [`KEYS`], so the suggestion is the same in every build.
fn nearest_key(unknown: &str) -> Option<&'static str> {
    let squash = |key: &str| -> String {
        key.chars()
            .filter(|c| *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let wanted = squash(unknown);
    KEYS.iter()
        .map(|key| (strsim::levenshtein(&wanted, &squash(key)), *key))
        .filter(|(distance, key)| *distance <= (key.len() / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, key)| key)
}

/// Runs darling over the screened keys. darling fails a whole struct when
/// one field is wrong, so on failure each key is parsed alone: every bad
/// value is reported and the good ones still count (a wrong
/// `concurrency_safe` must not also produce "missing `name`").
fn parse_args(metas: &[NestedMeta], errors: &mut darling::error::Accumulator) -> ToolArgs {
    if let Ok(args) = ToolArgs::from_list(metas) {
        return args;
    }
    let good: Vec<NestedMeta> = metas
        .iter()
        .filter(|meta| {
            errors
                .handle(ToolArgs::from_list(std::slice::from_ref(*meta)))
                .is_some()
        })
        .cloned()
        .collect();
    errors
        .handle(ToolArgs::from_list(&good))
        .unwrap_or_default()
}

/// Expression text for display, with the spaces token printing adds around
/// punctuation removed where Rust code would not have them.
pub fn expr_text(expr: &Expr) -> String {
    let raw = quote!(#expr).to_string();
    let mut text = raw;
    for (from, to) in [
        (" . ", "."),
        (" :: ", "::"),
        (" : ", ": "),
        ("& ", "&"),
        (" (", "("),
        ("( ", "("),
        (" )", ")"),
        (" ,", ","),
        ("! ", "!"),
        (" [", "["),
        ("[ ", "["),
        (" ]", "]"),
    ] {
        text = text.replace(from, to);
    }
    // A closure's opening bars came out as `| i: &T |`; tighten the first pair.
    if let Some(rest) = text.strip_prefix("| ")
        && let Some(end) = rest.find(" |")
    {
        text = format!("|{}|{}", &rest[..end], &rest[end + 2..]);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::nearest_key;

    #[test]
    fn typos_get_the_nearest_key_and_strangers_get_none() {
        assert_eq!(nearest_key("readonly"), Some("read_only"));
        assert_eq!(nearest_key("read-only"), Some("read_only"));
        assert_eq!(nearest_key("ReadOnly"), Some("read_only"));
        assert_eq!(nearest_key("concurency_safe"), Some("concurrency_safe"));
        assert_eq!(nearest_key("alias"), Some("aliases"));
        assert_eq!(nearest_key("desc"), None);
        assert_eq!(nearest_key("colour"), None);
        assert_eq!(nearest_key("nam"), Some("name"));
        assert_eq!(nearest_key("max_result_char"), Some("max_result_chars"));
        assert_eq!(nearest_key("always_loaded"), Some("always_load"));
    }
}
