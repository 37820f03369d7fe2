//! The posture and the resource access of one call, read from its parsed
//! input.

use std::fmt;
use std::path::Path;

use crate::access::Access;
use crate::input::handle::PreparedCall;

/// How one call may be dispatched, decided on its parsed input. A posture
/// expression that panicked answers the strict way (not concurrency-safe,
/// not read-only, destructive) and is counted in the tool's metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct CallClass {
    /// May share a concurrent batch.
    pub(crate) concurrency_safe: bool,
    /// Only reads.
    pub(crate) read_only: bool,
    /// Can destroy data.
    pub(crate) destructive: bool,
}

impl CallClass {
    /// The strictest class: runs alone, writes, destroys.
    pub(crate) const STRICT: CallClass = CallClass {
        concurrency_safe: false,
        read_only: false,
        destructive: true,
    };

    /// The access a call of this class has when its tool declares none:
    /// the boolean rule in access terms. A concurrency-safe call reads
    /// everything (it shares a batch with readers, never with a writer);
    /// any other call writes everything (it runs alone).
    pub(crate) fn undeclared_access(self) -> Access {
        if self.concurrency_safe {
            Access::read_everything()
        } else {
            Access::everything()
        }
    }
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

/// What the planner and the metrics need of one call.
pub(crate) struct Classified {
    pub(crate) class: CallClass,
    /// Declared (anchored at the root, canonicalised) or derived from
    /// `class`.
    pub(crate) access: Access,
    /// How many answers were strict fallbacks of a panicking expression.
    pub(crate) fallbacks: u32,
}

/// Classifies `call`: its postures, and its access with relative paths
/// anchored at `root` (with none, a relative path covers every path).
///
/// A declared access governs batching whatever `concurrency_safe` says:
/// declaring it is the author's statement of everything the call touches,
/// and is what lets two edits of two files run together. What stays
/// strict: a tool without a declaration keeps the boolean rule, and an
/// access expression that panics writes everything.
pub(crate) fn classify(call: &PreparedCall, root: Option<&Path>) -> Classified {
    let postures = call.postures();
    let class = CallClass {
        concurrency_safe: postures.concurrency_safe,
        read_only: postures.read_only,
        destructive: postures.destructive,
    };
    let (declared, access_fallback) = call.access_tracked();
    let access = match declared {
        Some(access) => access.resolve(root),
        None => class.undeclared_access(),
    };
    Classified {
        class,
        access,
        fallbacks: postures.fallbacks + u32::from(access_fallback),
    }
}
