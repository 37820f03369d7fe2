//! The rules `#[tool]` enforces, each returning an error spanned on the
//! token that breaks it. Messages are lowercase and name the key as written.

use darling::{Error, Result};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Fields, Item, ItemStruct, LitStr};

use crate::ast::{Description, Loading};
use crate::attr::Switch;

const MAX_NAME_LEN: usize = 64;

/// `^[a-zA-Z0-9_-]{1,64}$`, the strictest rule among the providers.
/// registry-core holds the same rule for names made at run time.
/// What is wrong with a name, as a phrase that starts with the name.
fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("the empty string is not a name".to_owned());
    }
    if name.len() > MAX_NAME_LEN {
        return Some(format!(
            "`{name}` is {} characters long; the limit is {MAX_NAME_LEN}",
            name.len()
        ));
    }
    name.chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
        .map(|c| {
            format!("`{name}` contains `{c}`; only ASCII letters, digits, `_` and `-` are allowed")
        })
}

pub fn name(name: Option<&LitStr>) -> Result<LitStr> {
    let Some(name) = name else {
        return Err(Error::custom(
            "missing `name` in #[tool(...)]: every tool needs a model-facing name, e.g. #[tool(name = \"read_file\")]",
        ));
    };
    match name_problem(&name.value()) {
        Some(problem) => Err(Error::custom(format!(
            "#[tool(name = ...)]: {problem} (names must match ^[a-zA-Z0-9_-]{{1,64}}$)"
        ))
        .with_span(name)),
        None => Ok(name.clone()),
    }
}

pub fn aliases(aliases: &[LitStr], name: Option<&LitStr>) -> Result<Vec<LitStr>> {
    let mut errors = Error::accumulator();
    for (i, alias) in aliases.iter().enumerate() {
        let value = alias.value();
        if let Some(problem) = name_problem(&value) {
            errors.push(
                Error::custom(format!(
                    "#[tool(aliases = ...)]: {problem} (aliases follow the name rule ^[a-zA-Z0-9_-]{{1,64}}$)"
                ))
                .with_span(alias),
            );
        }
        if name.is_some_and(|n| n.value() == value) {
            errors.push(
                Error::custom(format!(
                    "#[tool(aliases = ...)]: `{value}` is the tool's own name; an alias is an old name that must keep resolving"
                ))
                .with_span(alias),
            );
        }
        if aliases[..i].iter().any(|earlier| earlier.value() == value) {
            errors.push(
                Error::custom(format!(
                    "#[tool(aliases = ...)]: `{value}` is listed more than once"
                ))
                .with_span(alias),
            );
        }
    }
    errors.finish_with(aliases.to_vec())
}

/// The description: `description = "..."`, else the doc comment.
pub fn description(attr: Option<&LitStr>, item: &ItemStruct) -> Result<Description> {
    if let Some(lit) = attr {
        return if lit.value().trim().is_empty() {
            Err(Error::custom(
                "#[tool(description = ...)] is empty; the model chooses tools by their description",
            )
            .with_span(lit))
        } else {
            Ok(Description::Attr(lit.clone()))
        };
    }
    let doc = doc_comment(item);
    if doc.is_empty() {
        return Err(Error::custom(format!(
            "tool `{}` has no description: add a doc comment (`/// ...`) to the struct or write #[tool(description = \"...\")]; the model chooses tools by their description",
            item.ident
        ))
        .with_span(&item.ident));
    }
    Ok(Description::Doc(doc))
}

/// The struct's `///` lines, with the one leading space rustdoc strips
/// removed and surrounding blank lines trimmed. Blank `///` lines inside
/// are kept: they separate paragraphs. (`"".lines()` yields nothing, so
/// lines are split on `\n` instead.)
fn doc_comment(item: &ItemStruct) -> String {
    let lines: Vec<String> = item
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .flat_map(|chunk| chunk.split('\n').map(str::to_owned).collect::<Vec<_>>())
        .map(|line| line.strip_prefix(' ').map(str::to_owned).unwrap_or(line))
        .map(|line| line.trim_end().to_owned())
        .collect();
    lines.join("\n").trim().to_owned()
}

pub fn loading(defer: Switch, always_load: Switch) -> Result<Option<Loading>> {
    match (defer.0, always_load.0) {
        (Some(_), Some(span)) => Err(Error::custom(
            "#[tool(...)] cannot be both `defer` and `always_load`; choose one",
        )
        .with_span(&span)),
        (Some(_), None) => Ok(Some(Loading::Deferred)),
        (None, Some(_)) => Ok(Some(Loading::AlwaysLoad)),
        (None, None) => Ok(None),
    }
}

pub fn flag(flag: &LitStr) -> Result<()> {
    if flag.value().trim().is_empty() {
        return Err(Error::custom(
            "#[tool(flag = ...)] is empty; name the runtime flag that gates the tool",
        )
        .with_span(flag));
    }
    Ok(())
}

/// One concrete type per tool, declared once: no generics, no second
/// `#[tool]` (which would register the struct twice).
pub fn item_shape(item: &ItemStruct) -> Result<()> {
    if let Some(again) = item.attrs.iter().find(|attr| is_tool_attr(attr)) {
        return Err(Error::custom(
            "#[tool] is given twice on one struct; merge the keys into one attribute",
        )
        .with_span(again.path()));
    }
    if !item.generics.params.is_empty() {
        return Err(Error::custom(
            "#[tool] does not support generic structs: the registry needs one concrete type per tool",
        )
        .with_span(&item.generics));
    }
    Ok(())
}

/// `#[tool]` however it is imported (`tool`, `registry_core::tool`).
pub fn is_tool_attr(attr: &syn::Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "tool")
}

/// How a tool is constructed when the list is built.
pub fn is_unit(item: &ItemStruct) -> bool {
    matches!(item.fields, Fields::Unit)
}

pub fn unsupported_item(item: &Item) -> Error {
    let (what, span) = match item {
        Item::Enum(i) => ("an enum", i.enum_token.span()),
        Item::Fn(i) => ("a function", i.sig.fn_token.span()),
        Item::Impl(i) => ("an impl block", i.impl_token.span()),
        Item::Mod(i) => ("a module", i.mod_token.span()),
        Item::Trait(i) => ("a trait", i.trait_token.span()),
        Item::Union(i) => ("a union", i.union_token.span()),
        Item::Type(i) => ("a type alias", i.type_token.span()),
        Item::Const(i) => ("a const", i.const_token.span()),
        Item::Static(i) => ("a static", i.static_token.span()),
        other => ("this item", other.span()),
    };
    Error::custom(format!(
        "#[tool] applies to a struct (the tool's type), not to {what}"
    ))
    .with_span(&span)
}

// Type rules handed to rustc. Each function-valued key binds the user's
// expression to the function-pointer type the key promises, with that type
// spanned on the expression: a mismatch is then reported on the expression
// (or the closure parameter) and names only the user's types, never a
// `__private` helper. Every valid value is a path to a function or a
// closure that captures nothing (an attribute has no locals to capture), so
// the coercion accepts all of them and untyped closure parameters are
// inferred from it.

/// `concurrency_safe`, `read_only`, `destructive` as an expression:
/// `fn(&Input) -> bool`.
pub fn posture_expr(expr: &Expr) -> TokenStream {
    let ty = quote_spanned!(expr.span()=> fn(&Self::Input) -> ::core::primitive::bool);
    coerced(expr, &ty)
}

/// `classifier_input`: `fn(&Input) -> String`, the text the safety
/// classifier reads.
pub fn classifier_input_expr(expr: &Expr) -> TokenStream {
    let ty = quote_spanned!(expr.span()=> fn(&Self::Input) -> ::std::string::String);
    coerced(expr, &ty)
}

/// `access`: `fn(&Input) -> Access`, what a call reads and writes. The
/// type names `Access` through the crate path, as the user's own code may
/// not have imported it.
pub fn access_expr(expr: &Expr, krate: &syn::Path) -> TokenStream {
    let ty = quote_spanned!(expr.span()=> fn(&Self::Input) -> #krate::__private::Access);
    coerced(expr, &ty)
}

/// `enabled`: `fn() -> bool`, the self-check run when the pool is narrowed.
pub fn enabled_expr(expr: &Expr) -> TokenStream {
    let ty = quote_spanned!(expr.span()=> fn() -> ::core::primitive::bool);
    coerced(expr, &ty)
}

fn coerced(expr: &Expr, ty: &TokenStream) -> TokenStream {
    quote! {{
        let checked: #ty = #expr;
        checked
    }}
}
