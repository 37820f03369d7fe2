//! A tool that declares what each call touches: the access expression is
//! bound to `fn(&Input) -> Access` where the user wrote it, and recorded
//! with its text for the catalog lock.
use registry_core::{
    Tool, ToolContext, access::{Access, AccessKey},
    tool,
};
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EditInput {
    path: String,
}
/// Edit one file.
struct EditFile;
const _: () = {
    #[automatically_derived]
    impl ::registry_core::__private::Sealed for EditFile {}
    #[automatically_derived]
    impl ::registry_core::__private::ToolDeclaration for EditFile {
        const NAME: &'static str = "edit_file";
        const ALIASES: &'static [&'static str] = &[];
        const DESCRIPTION: &'static str = "Edit one file.";
        const FLAG: ::core::option::Option<&'static str> = ::core::option::Option::None;
        const ORIGIN: ::registry_core::__private::Origin = ::registry_core::__private::Origin {
            crate_name: ::core::env!("CARGO_CRATE_NAME"),
            module_path: ::core::module_path!(),
            file: ::core::file!(),
            line: ::core::line!(),
        };
        fn construct() -> Self {
            EditFile
        }
        fn declare(
            declaration: ::registry_core::__private::Declaration<Self::Input>,
        ) -> ::registry_core::__private::Declaration<Self::Input> {
            declaration
                .__access(
                    ::registry_core::__private::access::<
                        Self::Input,
                    >(
                        {
                            let checked: fn(
                                &Self::Input,
                            ) -> ::registry_core::__private::Access = |i: &EditInput| Access::write(
                                AccessKey::path(&i.path),
                            );
                            checked
                        },
                        "|i: &EditInput| Access::write(AccessKey::path(&i.path))",
                    ),
                )
        }
    }
    ::registry_core::__private::inventory::submit! {
        ::registry_core::__private::Registration::of:: < EditFile > ()
    }
    #[allow(unexpected_cfgs)]
    const _: () = {
        #[cfg(not(registry_core_skip_link_check))]
        #[used]
        #[unsafe(export_name = "registry_core$tool_name_or_alias$edit_file")]
        static CLAIM_0: u8 = 0;
    };
};
impl Tool for EditFile {
    type Input = EditInput;
    type Output = String;
    type Error = std::convert::Infallible;
    async fn call(
        &self,
        input: EditInput,
        _cx: &ToolContext,
    ) -> Result<String, Self::Error> {
        Ok(input.path)
    }
}
fn main() {}
