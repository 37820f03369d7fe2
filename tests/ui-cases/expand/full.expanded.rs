//! Every key `#[tool]` accepts.
use registry_core::{Tool, ToolContext, tool};
use schemars::JsonSchema;
use serde::Deserialize;
#[derive(Deserialize, JsonSchema)]
pub struct RunInput {
    pub command: String,
}
fn is_read_only_command(input: &RunInput) -> bool {
    input.command.starts_with("ls")
}
fn sandbox_available() -> bool {
    true
}
/// Run a shell command in the sandbox.
pub struct RunCommand {
    pub timeout_secs: u64,
}
const _: () = {
    #[automatically_derived]
    impl ::registry_core::__private::Sealed for RunCommand {}
    #[automatically_derived]
    impl ::registry_core::__private::ToolDeclaration for RunCommand {
        const NAME: &'static str = "run_command";
        const ALIASES: &'static [&'static str] = &["Bash", "sh"];
        const DESCRIPTION: &'static str = "Run a shell command in the sandbox and return its output.";
        const FLAG: ::core::option::Option<&'static str> = ::core::option::Option::Some(
            "shell",
        );
        const ORIGIN: ::registry_core::__private::Origin = ::registry_core::__private::Origin {
            crate_name: ::core::env!("CARGO_CRATE_NAME"),
            module_path: ::core::module_path!(),
            file: ::core::file!(),
            line: ::core::line!(),
        };
        fn construct() -> Self {
            <RunCommand as ::core::default::Default>::default()
        }
        fn declare(
            declaration: ::registry_core::__private::Declaration<Self::Input>,
        ) -> ::registry_core::__private::Declaration<Self::Input> {
            declaration
                .__concurrency_safe(
                    ::registry_core::__private::per_input::<
                        Self::Input,
                    >(
                        {
                            let checked: fn(&Self::Input) -> ::core::primitive::bool = is_read_only_command;
                            checked
                        },
                        "is_read_only_command",
                    ),
                )
                .__read_only(
                    ::registry_core::__private::per_input::<
                        Self::Input,
                    >(
                        {
                            let checked: fn(&Self::Input) -> ::core::primitive::bool = is_read_only_command;
                            checked
                        },
                        "is_read_only_command",
                    ),
                )
                .__destructive(
                    ::registry_core::__private::per_input::<
                        Self::Input,
                    >(
                        {
                            let checked: fn(&Self::Input) -> ::core::primitive::bool = |
                                input: &RunInput|
                            input.command.contains("rm ");
                            checked
                        },
                        "|input: &RunInput| input.command.contains(\"rm \")",
                    ),
                )
                .max_result_chars(::registry_core::__private::cap(30_000))
                .loading(::registry_core::__private::Loading::Deferred)
                .search_hint("shell exec terminal")
                .user_facing_name("Shell")
                .idempotent(false)
                .open_world(true)
                .allowed_callers(::registry_core::__private::Callers::Direct)
                .internal()
                .classifier_input({
                    let checked: fn(&Self::Input) -> ::std::string::String = |
                        input: &RunInput|
                    input.command.clone();
                    checked
                })
                .enabled({
                    let checked: fn() -> ::core::primitive::bool = sandbox_available;
                    checked
                })
        }
    }
    ::registry_core::__private::inventory::submit! {
        ::registry_core::__private::Registration::of:: < RunCommand > ()
    }
    #[allow(unexpected_cfgs)]
    const _: () = {
        #[cfg(not(registry_core_skip_link_check))]
        #[used]
        #[unsafe(export_name = "registry_core$tool_name_or_alias$run_command")]
        static CLAIM_0: u8 = 0;
        #[cfg(not(registry_core_skip_link_check))]
        #[used]
        #[unsafe(export_name = "registry_core$tool_name_or_alias$Bash")]
        static CLAIM_1: u8 = 0;
        #[cfg(not(registry_core_skip_link_check))]
        #[used]
        #[unsafe(export_name = "registry_core$tool_name_or_alias$sh")]
        static CLAIM_2: u8 = 0;
    };
};
impl Default for RunCommand {
    fn default() -> Self {
        RunCommand { timeout_secs: 30 }
    }
}
impl Tool for RunCommand {
    type Input = RunInput;
    type Output = String;
    type Error = std::io::Error;
    async fn call(
        &self,
        input: RunInput,
        _cx: &ToolContext,
    ) -> Result<String, Self::Error> {
        Ok(input.command)
    }
}
fn main() {}
