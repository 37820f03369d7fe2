//! The compile-time gate of a tool: every `#[cfg]` on the struct (and every
//! `cfg` inside a `#[cfg_attr]`) combined into one predicate.
//!
//! Code generation puts the tool's items under `#[cfg(gate)]` and a record
//! of its names under `#[cfg(not(gate))]`, so exactly one of the two exists
//! in any build; the predicate also becomes a `CfgPredicate` constant the
//! runtime can show and compare.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::quote;
use syn::{Attribute, Meta};

/// A parsed `cfg` predicate.
#[derive(Debug, Clone, PartialEq)]
pub enum Predicate {
    Name(String),
    KeyValue(String, String),
    All(Vec<Predicate>),
    Any(Vec<Predicate>),
    Not(Box<Predicate>),
}

/// The combined gate of one struct; `None` when it has no `cfg`.
pub fn of(attrs: &[Attribute]) -> Option<Predicate> {
    let mut parts = Vec::new();
    for attr in attrs {
        if let Some(predicate) = gate_of_attr(&attr.meta) {
            parts.push(predicate);
        }
    }
    match parts.len() {
        0 => None,
        1 => parts.pop(),
        _ => Some(Predicate::All(parts)),
    }
}

/// The gate one attribute adds: `cfg(p)` is `p`; `cfg_attr(c, a, b, ..)`
/// is `any(not(c), <gates of a, b, ..>)`, nested `cfg_attr`s included.
fn gate_of_attr(meta: &Meta) -> Option<Predicate> {
    let Meta::List(list) = meta else {
        return None;
    };
    if list.path.is_ident("cfg") {
        return Some(parse(list.tokens.clone()));
    }
    if !list.path.is_ident("cfg_attr") {
        return None;
    }
    let mut args = split_commas(list.tokens.clone()).into_iter();
    let condition = parse(args.next()?);
    let inner: Vec<Predicate> = args
        .filter_map(|tokens| syn::parse2::<Meta>(tokens).ok())
        .filter_map(|meta| gate_of_attr(&meta))
        .collect();
    if inner.is_empty() {
        return None;
    }
    let inner = match inner.len() {
        1 => inner.into_iter().next()?,
        _ => Predicate::All(inner),
    };
    Some(Predicate::Any(vec![negate(condition), inner]))
}

fn negate(predicate: Predicate) -> Predicate {
    match predicate {
        Predicate::Not(inner) => *inner,
        other => Predicate::Not(Box::new(other)),
    }
}

/// Parses one predicate. Forms Rust may add later (or unstable ones) become
/// an opaque name holding their text: still a correct `#[cfg]` when
/// re-emitted, and treated as an independent condition at run time.
fn parse(tokens: TokenStream) -> Predicate {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    match trees.as_slice() {
        [TokenTree::Ident(ident)] => match ident.to_string().as_str() {
            "true" => Predicate::All(Vec::new()),
            "false" => Predicate::Any(Vec::new()),
            name => Predicate::Name(name.to_owned()),
        },
        [
            TokenTree::Ident(key),
            TokenTree::Punct(eq),
            TokenTree::Literal(value),
        ] if eq.as_char() == '=' => match syn::parse2::<syn::LitStr>(quote!(#value)) {
            Ok(lit) => Predicate::KeyValue(key.to_string(), lit.value()),
            Err(_) => Predicate::Name(tokens.to_string()),
        },
        [TokenTree::Ident(head), TokenTree::Group(group)]
            if group.delimiter() == Delimiter::Parenthesis =>
        {
            let items = split_commas(group.stream());
            match head.to_string().as_str() {
                "all" => Predicate::All(items.into_iter().map(parse).collect()),
                "any" => Predicate::Any(items.into_iter().map(parse).collect()),
                "not" if items.len() == 1 => Predicate::Not(Box::new(parse(
                    items.into_iter().next().unwrap_or_default(),
                ))),
                _ => Predicate::Name(tokens.to_string()),
            }
        }
        _ => Predicate::Name(tokens.to_string()),
    }
}

fn split_commas(tokens: TokenStream) -> Vec<TokenStream> {
    let mut parts = vec![TokenStream::new()];
    for tree in tokens {
        match &tree {
            TokenTree::Punct(p) if p.as_char() == ',' => parts.push(TokenStream::new()),
            _ => {
                if let Some(part) = parts.last_mut() {
                    part.extend([tree]);
                }
            }
        }
    }
    parts.retain(|part| !part.is_empty());
    parts
}

impl Predicate {
    /// The predicate in `#[cfg(...)]` syntax.
    pub fn cfg_tokens(&self) -> TokenStream {
        match self {
            Predicate::Name(text) => text.parse().unwrap_or_default(),
            Predicate::KeyValue(key, value) => {
                let key: TokenStream = key.parse().unwrap_or_default();
                quote!(#key = #value)
            }
            Predicate::All(items) => {
                let items = items.iter().map(Predicate::cfg_tokens);
                quote!(all(#(#items),*))
            }
            Predicate::Any(items) => {
                let items = items.iter().map(Predicate::cfg_tokens);
                quote!(any(#(#items),*))
            }
            Predicate::Not(inner) => {
                let inner = inner.cfg_tokens();
                quote!(not(#inner))
            }
        }
    }

    /// The predicate as a `CfgPredicate` constant expression.
    pub fn const_tokens(&self, krate: &syn::Path) -> TokenStream {
        let ty = quote!(#krate::__private::CfgPredicate);
        match self {
            Predicate::Name(text) => quote!(#ty::Name(#text)),
            Predicate::KeyValue(key, value) => quote!(#ty::KeyValue(#key, #value)),
            Predicate::All(items) => {
                let items = items.iter().map(|p| p.const_tokens(krate));
                quote!(#ty::All(&[#(#items),*]))
            }
            Predicate::Any(items) => {
                let items = items.iter().map(|p| p.const_tokens(krate));
                quote!(#ty::Any(&[#(#items),*]))
            }
            Predicate::Not(inner) => {
                let inner = inner.const_tokens(krate);
                quote!(#ty::Not(&#inner))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(source: &str) -> Option<String> {
        let item: syn::ItemStruct = syn::parse_str(source).unwrap();
        of(&item.attrs).map(|p| p.cfg_tokens().to_string())
    }

    #[test]
    fn no_cfg_no_gate() {
        assert_eq!(gate("#[derive(Debug)] struct S;"), None);
    }

    #[test]
    fn one_cfg_is_its_predicate() {
        assert_eq!(
            gate(r#"#[cfg(feature = "web")] struct S;"#).as_deref(),
            Some(r#"feature = "web""#)
        );
    }

    #[test]
    fn several_gates_are_all_of_them() {
        assert_eq!(
            gate(r#"#[cfg(unix)] #[cfg(any(feature = "a", test))] struct S;"#).as_deref(),
            Some(r#"all (unix , any (feature = "a" , test))"#)
        );
    }

    #[test]
    fn cfg_attr_gates_only_when_its_condition_holds() {
        assert_eq!(
            gate(r#"#[cfg_attr(not(debug_assertions), cfg(feature = "release_web"))] struct S;"#)
                .as_deref(),
            Some(r#"any (debug_assertions , feature = "release_web")"#)
        );
        assert_eq!(
            gate(r#"#[cfg_attr(docsrs, doc = "x")] struct S;"#),
            None,
            "a cfg_attr without cfg gates nothing"
        );
        assert_eq!(
            gate(r#"#[cfg_attr(a, cfg_attr(b, cfg(c)))] struct S;"#).as_deref(),
            Some("any (not (a) , any (not (b) , c))")
        );
    }

    #[test]
    fn unknown_forms_stay_opaque_and_re_emit_as_written() {
        assert_eq!(
            gate(r#"#[cfg(version("1.80"))] struct S;"#).as_deref(),
            Some(r#"version ("1.80")"#)
        );
        assert_eq!(gate("#[cfg(true)] struct S;").as_deref(), Some("all ()"));
        assert_eq!(gate("#[cfg(false)] struct S;").as_deref(), Some("any ()"));
    }
}
