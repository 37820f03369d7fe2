//! A tool behind a compile-time gate given to `#[tool]`: the struct and its
//! generated items exist under the gate, a record of its names under the
//! negated gate.
use registry_core::tool;
#[cfg(all(feature = "web", any(debug_assertions, feature = "release_web")))]
/// Fetch a URL.
pub struct WebFetch;
const _: () = {
    const GATE: ::registry_core::__private::CfgPredicate = ::registry_core::__private::CfgPredicate::All(
        &[
            ::registry_core::__private::CfgPredicate::KeyValue("feature", "web"),
            ::registry_core::__private::CfgPredicate::Any(
                &[
                    ::registry_core::__private::CfgPredicate::Name("debug_assertions"),
                    ::registry_core::__private::CfgPredicate::KeyValue(
                        "feature",
                        "release_web",
                    ),
                ],
            ),
        ],
    );
    #[cfg(all(feature = "web", any(debug_assertions, feature = "release_web")))]
    const _: () = {
        #[automatically_derived]
        impl ::registry_core::__private::Sealed for WebFetch {}
        #[automatically_derived]
        impl ::registry_core::__private::ToolDeclaration for WebFetch {
            const NAME: &'static str = "web_fetch";
            const ALIASES: &'static [&'static str] = &["fetch"];
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
                    .__concurrency_safe(::registry_core::__private::fixed(true))
                    .__read_only(::registry_core::__private::fixed(true))
                    .max_result_chars(::registry_core::__private::ResultCap::Unbounded)
            }
        }
        ::registry_core::__private::inventory::submit! {
            ::registry_core::__private::Registration::of_gated:: < WebFetch > (& GATE)
        }
        #[allow(unexpected_cfgs)]
        const _: () = {
            #[cfg(not(registry_core_skip_link_check))]
            #[used]
            #[unsafe(export_name = "registry_core$tool_name_or_alias$web_fetch")]
            static CLAIM_0: u8 = 0;
            #[cfg(not(registry_core_skip_link_check))]
            #[used]
            #[unsafe(export_name = "registry_core$tool_name_or_alias$fetch")]
            static CLAIM_1: u8 = 0;
        };
    };
    #[cfg(not(all(feature = "web", any(debug_assertions, feature = "release_web"))))]
    ::registry_core::__private::inventory::submit! {
        ::registry_core::__private::Registration::compiled_out("web_fetch", & ["fetch"],
        ::registry_core::__private::Origin { crate_name :
        ::core::env!("CARGO_CRATE_NAME"), module_path : ::core::module_path!(), file :
        ::core::file!(), line : ::core::line!(), }, & GATE)
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
