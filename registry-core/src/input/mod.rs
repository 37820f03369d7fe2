//! Preparing one call: from a tool's definition and the model's JSON
//! arguments to a parsed, classified [`PreparedCall`], or a [`ToolError`]
//! naming the tool and the field.
//!
//! Owns, in the order a call is prepared: the type-erased [`ToolHandle`]
//! every list and pool holds (`handle`, with the runtime tool a
//! [`ToolBuilder`](crate::declare::ToolBuilder) finishes into, `runtime`,
//! and [`DefinitionImport::import`](crate::declare::imported::DefinitionImport::import),
//! which finishes an imported definition the same way, `imported`), the
//! schema questions asked of an input schema (`schema`: where a `$ref` points,
//! what admits `null`, the per-tool argument plan, the shape check),
//! dropping `null` sent for an optional field (`nulls`), the one parser
//! that locates a failure in the same pass (`located`), the input schema
//! as providers see it (`provider_input_schema`), the call's error
//! (`error`) and the permission vocabulary it carries (`refusal`: who
//! refused a call and why, and the permission modes; re-exported by
//! [`permission`](crate::permission)).
//!
//! Never does: decide whether a call may run (only the tool's own
//! `check_permissions` is asked here, on behalf of the
//! [`permission`](crate::permission) stage), know which tools exist, or
//! let author code panic across its API (a panicking posture expression
//! answers the strict way).

pub(crate) mod error;
pub(crate) mod handle;
mod imported;
pub(crate) mod located;
pub(crate) mod nulls;
mod provider_schema;
pub(crate) mod refusal;
pub(crate) mod runtime;
pub(crate) mod schema;

pub use error::ToolError;
pub use handle::{PreparedCall, ToolHandle};
pub(crate) use provider_schema::provider_input_schema;
