//! What `#[tool]` emits when the attribute is wrong: the errors, the user's
//! item unchanged, and stub impls, so code that uses the tool elsewhere in
//! the crate keeps type-checking and only the real mistakes are reported.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Failure;

pub fn expand(failure: Box<Failure>) -> TokenStream {
    let Failure {
        errors,
        item,
        tool,
        krate,
    } = *failure;
    let errors = errors.write_errors();
    // A generic struct cannot take the stubs; its error already says why.
    let stubs = tool.filter(|tool| tool.generics.params.is_empty()).map(|tool| {
        let ident = &tool.ident;
        quote! {
            const _: () = {
                #[automatically_derived]
                impl #krate::__private::Sealed for #ident {}
                #[automatically_derived]
                impl #krate::__private::ToolDeclaration for #ident {
                    const NAME: &'static str = "";
                    const ALIASES: &'static [&'static str] = &[];
                    const DESCRIPTION: &'static str = "";
                    const FLAG: ::core::option::Option<&'static str> = ::core::option::Option::None;
                    const ORIGIN: #krate::__private::Origin = #krate::__private::Origin::RUNTIME;
                    fn construct() -> Self {
                        ::core::unreachable!("#[tool] failed to compile")
                    }
                }
            };
        }
    });
    quote! {
        #item
        #stubs
        #errors
    }
}
