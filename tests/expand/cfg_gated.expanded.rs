//! A tool behind a compile-time gate written after `#[tool]`: the gate is
//! repeated on the generated items so they vanish with the struct.
use registry_core::tool;
/// Fetch a URL.
#[cfg(feature = "web")]
#[cfg_attr(not(debug_assertions), cfg(feature = "release_web"))]
pub struct WebFetch;
#[cfg(feature = "web")]
#[cfg_attr(not(debug_assertions), cfg(feature = "release_web"))]
const _: () = {
    #[automatically_derived]
    impl ::registry_core::__private::Sealed for WebFetch {}
    #[automatically_derived]
    impl ::registry_core::__private::ToolDeclaration for WebFetch {
        const NAME: &'static str = "web_fetch";
        const ALIASES: &'static [&'static str] = &[];
        const DESCRIPTION: &'static str = "Fetch a URL.";
        const FLAG: ::core::option::Option<&'static str> = ::core::option::Option::None;
        const ORIGIN: ::registry_core::__private::Origin = ::registry_core::__private::Origin {
            crate_name: ::core::env!("CARGO_CRATE_NAME"),
            module_path: ::core::module_path!(),
            file: ::core::file!(),
            line: ::core::line!(),
        };
        fn construct() -> Self {
            WebFetch
        }
        fn declare(
            declaration: ::registry_core::__private::Declaration<Self::Input>,
        ) -> ::registry_core::__private::Declaration<Self::Input> {
            declaration
                .concurrency_safe(::registry_core::__private::Posture::Fixed(true))
                .read_only(::registry_core::__private::Posture::Fixed(true))
                .max_result_chars(::registry_core::__private::ResultCap::Unbounded)
        }
    }
    ::registry_core::__private::inventory::submit! {
        ::registry_core::__private::Registration::of:: < WebFetch > ()
    }
};
/// The URL to fetch.
#[cfg(feature = "web")]
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct WebFetchInput {
    pub url: String,
}
#[cfg(feature = "web")]
impl registry_core::Tool for WebFetch {
    type Input = WebFetchInput;
    type Output = String;
    type Error = std::convert::Infallible;
    async fn call(
        &self,
        input: WebFetchInput,
        _cx: &registry_core::ToolContext,
    ) -> Result<String, Self::Error> {
        Ok(input.url)
    }
}
fn main() {}
