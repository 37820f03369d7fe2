//! Code generation: the user's struct unchanged, then one `const _` block
//! holding the sealed metadata impl and the inventory submission.
//!
//! Only keys the author wrote appear in the output; every default comes from
//! `registry_core`'s `Declaration::new`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use crate::ast::{self, Loading, ToolModel};
use crate::attr::{PostureArg, ResultCapArg};
use crate::{check, fallback};

/// The whole `#[tool]` expansion: the model, or the fallback on error.
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    match ast::parse(args, item) {
        Ok(model) => expand(&model),
        Err(failure) => fallback::expand(failure),
    }
}

fn expand(model: &ToolModel) -> TokenStream {
    let krate = &model.krate;
    let item = &model.item;
    let ident = model.ident();
    let name = &model.name;
    let aliases = &model.aliases;
    let description = model.description.text();
    let flag = match &model.flag {
        Some(flag) => quote!(::core::option::Option::Some(#flag)),
        None => quote!(::core::option::Option::None),
    };
    // Spanned on the struct name so `line!()` and `Default` errors land there.
    let origin = quote_spanned! {ident.span()=>
        #krate::__private::Origin {
            crate_name: ::core::env!("CARGO_CRATE_NAME"),
            module_path: ::core::module_path!(),
            file: ::core::file!(),
            line: ::core::line!(),
        }
    };
    let construct = if check::is_unit(item) {
        quote!(#ident)
    } else {
        quote_spanned!(ident.span()=> <#ident as ::core::default::Default>::default())
    };
    let declare = declare_fn(model);
    let claims = link_claims(model);

    let register = match &model.gate {
        None => quote!(#krate::__private::Registration::of::<#ident>()),
        Some(_) => quote!(#krate::__private::Registration::of_gated::<#ident>(&GATE)),
    };
    let tool = quote! {
        const _: () = {
            #[automatically_derived]
            impl #krate::__private::Sealed for #ident {}

            #[automatically_derived]
            impl #krate::__private::ToolDeclaration for #ident {
                const NAME: &'static str = #name;
                const ALIASES: &'static [&'static str] = &[#(#aliases),*];
                const DESCRIPTION: &'static str = #description;
                const FLAG: ::core::option::Option<&'static str> = #flag;
                const ORIGIN: #krate::__private::Origin = #origin;

                fn construct() -> Self {
                    #construct
                }
                #declare
            }

            #krate::__private::inventory::submit! {
                #register
            }

            #claims
        };
    };
    let Some(gate) = &model.gate else {
        return quote!(#item #tool);
    };

    // Exactly one of the two exists in any build: the tool, or the record
    // of its names that keeps duplicate checks and the catalog lock whole
    // across feature sets.
    let cfg = gate.cfg_tokens();
    let gate = gate.const_tokens(krate);
    quote! {
        #[cfg(#cfg)]
        #item

        const _: () = {
            const GATE: #krate::__private::CfgPredicate = #gate;

            #[cfg(#cfg)]
            #tool

            #[cfg(not(#cfg))]
            #krate::__private::inventory::submit! {
                #krate::__private::Registration::compiled_out(#name, &[#(#aliases),*], #origin, &GATE)
            }
        };
    }
}

/// One exported symbol per claimed name and alias, so two linked crates
/// that claim one name fail at link time ("duplicate symbol") with both
/// definitions' locations, before any program starts. Each static is
/// spanned on its literal, so the linker's "defined at" points into the
/// attribute; the `unsafe(export_name)` attribute keeps the macro's own
/// span, so a crate under `#![forbid(unsafe_code)]` still compiles (the
/// lint does not look into an external macro's tokens). A crate opts out
/// with `--cfg registry_core_skip_link_check` (tests of the run-time
/// collision report do).
fn link_claims(model: &ToolModel) -> TokenStream {
    let statics = std::iter::once(&model.name)
        .chain(&model.aliases)
        .enumerate()
        .map(|(index, lit)| {
            let symbol = format!("{}{}", LINK_CLAIM_PREFIX, lit.value());
            let ident = quote::format_ident!("CLAIM_{}", index);
            let item = quote_spanned!(lit.span()=> static #ident: u8 = 0;);
            quote! {
                #[cfg(not(registry_core_skip_link_check))]
                #[used]
                #[unsafe(export_name = #symbol)]
                #item
            }
        });
    quote! {
        #[allow(unexpected_cfgs)]
        const _: () = {
            #(#statics)*
        };
    }
}

/// The prefix of every link-time claim symbol. Tool names are
/// `[a-zA-Z0-9_-]`, so the symbol stays within what every linker accepts.
const LINK_CLAIM_PREFIX: &str = "registry_core$tool_name_or_alias$";

/// `fn declare`, present only when the author wrote a key beyond identity.
fn declare_fn(model: &ToolModel) -> TokenStream {
    let krate = &model.krate;
    let mut calls = Vec::new();
    // The `__` setters take postures already erased to one type (see
    // `registry_core::__private::fixed`): each tool then compiles no
    // evaluator code of its own beyond its expressions.
    for (method, posture) in [
        (quote!(__concurrency_safe), &model.concurrency_safe),
        (quote!(__read_only), &model.read_only),
        (quote!(__destructive), &model.destructive),
    ] {
        if let Some(posture) = posture {
            let value = posture_tokens(krate, posture);
            calls.push(quote!(.#method(#value)));
        }
    }
    if let Some(cap) = &model.max_result_chars {
        let value = match cap {
            ResultCapArg::Chars(n) => quote!(#krate::__private::cap(#n)),
            ResultCapArg::Unbounded(span) => {
                quote_spanned!(*span=> #krate::__private::ResultCap::Unbounded)
            }
        };
        calls.push(quote!(.max_result_chars(#value)));
    }
    if let Some(loading) = model.loading {
        let variant = match loading {
            Loading::Deferred => quote!(Deferred),
            Loading::AlwaysLoad => quote!(AlwaysLoad),
        };
        calls.push(quote!(.loading(#krate::__private::Loading::#variant)));
    }
    if let Some(hint) = &model.search_hint {
        calls.push(quote!(.search_hint(#hint)));
    }
    for example in &model.input_examples {
        calls.push(quote!(.__input_example_json(#example)));
    }
    if let Some(strict) = model.strict {
        calls.push(quote!(.strict(#strict)));
    }
    if let Some(name) = &model.user_facing_name {
        calls.push(quote!(.user_facing_name(#name)));
    }
    if let Some(idempotent) = model.idempotent {
        calls.push(quote!(.idempotent(#idempotent)));
    }
    if let Some(open_world) = model.open_world {
        calls.push(quote!(.open_world(#open_world)));
    }
    if let Some(callers) = model.allowed_callers {
        let variant = match (callers.direct, callers.program) {
            (true, true) => quote!(DirectAndProgram),
            (false, true) => quote!(Program),
            _ => quote!(Direct),
        };
        calls.push(quote!(.allowed_callers(#krate::__private::Callers::#variant)));
    }
    if let Some(rule) = &model.rule_of_two {
        let variants = rule
            .variants
            .iter()
            .map(|v| syn::Ident::new(v, proc_macro2::Span::call_site()));
        calls.push(quote!(.rule_of_two([#(#krate::__private::Exposure::#variants),*])));
    }
    if model.long_running {
        calls.push(quote!(.long_running()));
    }
    if model.internal {
        calls.push(quote!(.internal()));
    }
    if let Some(expr) = &model.classifier_input {
        let checked = check::classifier_input_expr(expr);
        calls.push(quote!(.classifier_input(#checked)));
    }
    if let Some(expr) = &model.access {
        let text = ast::expr_text(expr);
        let checked = check::access_expr(expr, krate);
        calls.push(quote!(.__access(#krate::__private::access::<Self::Input>(#checked, #text))));
    }
    if let Some(expr) = &model.enabled {
        let checked = check::enabled_expr(expr);
        calls.push(quote!(.enabled(#checked)));
    }
    if calls.is_empty() {
        return TokenStream::new();
    }
    quote! {
        fn declare(
            declaration: #krate::__private::Declaration<Self::Input>,
        ) -> #krate::__private::Declaration<Self::Input> {
            declaration #(#calls)*
        }
    }
}

fn posture_tokens(krate: &syn::Path, posture: &PostureArg) -> TokenStream {
    match posture {
        PostureArg::Fixed(value) => quote!(#krate::__private::fixed(#value)),
        PostureArg::PerInput(expr) => {
            let text = ast::expr_text(expr);
            let eval = check::posture_expr(expr);
            quote!(#krate::__private::per_input::<Self::Input>(#eval, #text))
        }
    }
}
