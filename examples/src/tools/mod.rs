//! The tools, one module each. Every module's documentation explains why
//! the tool's posture is what it is; every struct's doc comment is the
//! description the model reads.

pub mod edit_file;
pub mod glob;
pub mod grep;
pub mod list_dir;
pub mod read_file;
pub mod run_command;
pub mod todo_write;
pub mod web_fetch;
pub mod write_file;

pub use edit_file::EditFile;
pub use glob::Glob;
pub use grep::Grep;
pub use list_dir::ListDir;
pub use read_file::ReadFile;
pub use run_command::RunCommand;
pub use todo_write::TodoWrite;
#[cfg(feature = "web")]
pub use web_fetch::WebFetch;
pub use write_file::WriteFile;
