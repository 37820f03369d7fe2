//! The compile-time gate of a tool, `#[tool(cfg(...))]`.
//!
//! rustc evaluates a `#[cfg]` on the struct before any attribute macro
//! runs, so a tool gated that way vanishes without a trace. Written inside
//! `#[tool]`, the gate reaches the macro in every build: code generation
//! puts the struct and its items under `#[cfg(gate)]` and a record of its
//! names under `#[cfg(not(gate))]`, so exactly one of the two exists, and
//! the predicate becomes a `CfgPredicate` constant the runtime can show and
//! compare.

use darling::FromMeta;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::quote;
use syn::Meta;

/// A parsed `cfg` predicate.
#[derive(Debug, Clone, PartialEq)]
pub enum Predicate {
    Name(String),
    KeyValue(String, String),
    All(Vec<Predicate>),
    Any(Vec<Predicate>),
    Not(Box<Predicate>),
}

/// `cfg(<predicate>)` as a `#[tool]` argument.
#[derive(Debug, Clone)]
pub struct CfgArg(pub Predicate);

impl FromMeta for CfgArg {
    fn from_meta(item: &Meta) -> darling::Result<Self> {
        match item {
            Meta::List(list) if !list.tokens.is_empty() => Ok(CfgArg(parse(list.tokens.clone()))),
            _ => Err(darling::Error::custom(
                "expected a cfg predicate in parentheses, e.g. `cfg(feature = \"web\")`",
            )
            .with_span(item)),
        }
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

    fn round_trip(source: &str) -> String {
        parse(source.parse().unwrap()).cfg_tokens().to_string()
    }

    #[test]
    fn names_and_key_values() {
        assert_eq!(round_trip("unix"), "unix");
        assert_eq!(round_trip(r#"feature = "web""#), r#"feature = "web""#);
    }

    #[test]
    fn combinators_nest() {
        assert_eq!(
            round_trip(r#"all(unix, any(feature = "a", not(test)))"#),
            r#"all (unix , any (feature = "a" , not (test)))"#
        );
        assert_eq!(round_trip("true"), "all ()");
        assert_eq!(round_trip("false"), "any ()");
    }

    #[test]
    fn unknown_forms_stay_opaque_and_re_emit_as_written() {
        assert_eq!(round_trip(r#"version("1.80")"#), r#"version ("1.80")"#);
        assert_eq!(
            parse(r#"version("1.80")"#.parse().unwrap()),
            Predicate::Name(r#"version ("1.80")"#.to_owned())
        );
    }
}
