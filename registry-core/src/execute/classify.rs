//! The posture of one call, read from its parsed input.

use std::fmt;

use crate::handle::PreparedCall;

/// How one call may be dispatched, decided on its parsed input. A posture
/// expression that panicked answers the strict way (not concurrency-safe,
/// not read-only, destructive) and is counted in the tool's metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CallClass {
    /// May share a concurrent batch.
    pub concurrency_safe: bool,
    /// Only reads.
    pub read_only: bool,
    /// Can destroy data.
    pub destructive: bool,
}

impl CallClass {
    /// The strictest class: runs alone, writes, destroys.
    pub const STRICT: CallClass = CallClass {
        concurrency_safe: false,
        read_only: false,
        destructive: true,
    };
}

impl fmt::Display for CallClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let access = if self.read_only {
            "read-only"
        } else {
            "writes"
        };
        f.write_str(access)?;
        if self.destructive {
            f.write_str(", destructive")?;
        }
        Ok(())
    }
}

/// The class of `call`, and how many of its answers were strict fallbacks.
pub(crate) fn classify(call: &PreparedCall) -> (CallClass, u32) {
    let postures = call.postures();
    (
        CallClass {
            concurrency_safe: postures.concurrency_safe,
            read_only: postures.read_only,
            destructive: postures.destructive,
        },
        postures.fallbacks,
    )
}
