//! CRATE_DOCS_PLACEHOLDER

#![warn(missing_docs)]

mod base_list;
mod builder;
mod context;
mod definition;
mod error;
mod handle;
mod link;
mod naming;
mod output;
mod permission;
mod posture;
mod tool;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use base_list::{BaseTools, Flags, all_base_tools, try_all_base_tools};
pub use builder::{BoxError, RuntimeToolError, ToolBuilder};
pub use context::ToolContext;
pub use definition::{Declaration, Origin, ToolSpec};
pub use error::{CatalogError, Claim, Collision, DefinitionError, NameError, NameRole, ToolError};
pub use handle::{PreparedCall, ToolHandle};
pub use naming::{MAX_NAME_LEN, validate_name};
pub use output::{IntoToolOutput, Json, ToolOutput, Truncation};
pub use permission::PermissionDecision;
pub use posture::{Loading, Posture, PostureKind, ResultCap, Setting, Source};
pub use registry_macros::tool;
pub use tool::{Tool, ToolInput};

/// The text of a panic payload, for error messages.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "<non-string panic payload>".to_owned())
}
