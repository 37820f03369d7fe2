//! The smallest tool: a name and a doc comment. Everything else is the
//! fail-closed default, so nothing else appears in the expansion.
use registry_core::{Tool, ToolContext, tool};
use schemars::JsonSchema;
use serde::Deserialize;
/// A tool's input is a struct with named fields: a JSON object.
#[derive(Deserialize, JsonSchema)]
pub struct EchoInput {
    pub text: String,
}
/// Echo the input back.
pub struct Echo;
const _: () = {
    #[automatically_derived]
    impl ::registry_core::__private::Sealed for Echo {}
    #[automatically_derived]
    impl ::registry_core::__private::ToolDeclaration for Echo {
        const NAME: &'static str = "echo";
        const ALIASES: &'static [&'static str] = &[];
        const DESCRIPTION: &'static str = "Echo the input back.";
        const FLAG: ::core::option::Option<&'static str> = ::core::option::Option::None;
        const ORIGIN: ::registry_core::__private::Origin = ::registry_core::__private::Origin {
            crate_name: ::core::env!("CARGO_CRATE_NAME"),
            module_path: ::core::module_path!(),
            file: ::core::file!(),
            line: ::core::line!(),
        };
        fn construct() -> Self {
            Echo
        }
    }
    ::registry_core::__private::inventory::submit! {
        ::registry_core::__private::Registration::of:: < Echo > ()
    }
    #[allow(unexpected_cfgs)]
    const _: () = {
        #[cfg(not(registry_core_skip_link_check))]
        #[used]
        #[unsafe(export_name = "registry_core$tool_name_or_alias$echo")]
        static CLAIM_0: u8 = 0;
    };
};
impl Tool for Echo {
    type Input = EchoInput;
    type Output = String;
    type Error = std::convert::Infallible;
    async fn call(
        &self,
        input: EchoInput,
        _cx: &ToolContext,
    ) -> Result<String, Self::Error> {
        Ok(input.text)
    }
}
fn main() {}
