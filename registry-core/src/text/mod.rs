//! Text every stage writes the same way: canonical JSON (what makes a
//! render byte-stable) and capped quotations (what keeps an error message
//! small whatever the model sent).
//!
//! Owns: [`to_canonical_string`] and [`to_canonical_pretty`], the
//! [`cap_error_text`] engine with its limits, and the one reading of a
//! panic payload. Never does: know about tools. It is the first stage, so
//! it imports no other module of this crate.

mod canonical;
mod capped;

pub use canonical::{to_canonical_pretty, to_canonical_string};
pub(crate) use canonical::{write_canonical, write_string};
#[cfg(test)]
pub(crate) use capped::MAX_ERROR_TEXT_CHARS;
pub use capped::{MAX_ERROR_MESSAGE_CHARS, cap_error_text};
pub(crate) use capped::{capped, capped_message};

/// The text of a panic payload, for error messages.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "<non-string panic payload>".to_owned())
}
