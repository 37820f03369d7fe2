//! Not public API. Everything generated code needs, under one absolute
//! path (`::registry_core::__private`), so a downstream crate depends on
//! `registry-core` alone.

#[doc(hidden)]
pub use inventory;
#[doc(hidden)]
pub use schemars;
#[doc(hidden)]
pub use serde;
#[doc(hidden)]
pub use serde_json;

pub use crate::catalog::base_list::{LinkedCrate, Registration};
pub use crate::catalog::gate::CfgPredicate;
pub use crate::declare::definition::{Declaration, ErasedAccess, ErasedPosture, Origin};
pub use crate::declare::posture::{DeclaredAccess, Loading, Posture, ResultCap};
pub use crate::declare::{Callers, Exposure};

pub use crate::access::Access;
pub use crate::declare::declared::{Sealed, ToolDeclaration};

/// Not public API. A posture fixed by the author (`read_only = true`).
pub const fn fixed(value: bool) -> ErasedPosture {
    ErasedPosture::fixed(value)
}

/// Not public API. Wraps a posture expression, already coerced to
/// `fn(&Input) -> bool` by the macro (where a mistake is reported on the
/// expression itself), with its text for display. A function pointer
/// rather than a closure type, so nothing here is generic but the input.
pub fn per_input<I: 'static>(eval: fn(&I) -> bool, expr: &'static str) -> ErasedPosture {
    ErasedPosture::per_input(eval, expr.to_owned())
}

/// Not public API. Wraps an access expression, already coerced to
/// `fn(&Input) -> Access` by the macro, with its text for display.
pub fn access<I: 'static>(eval: fn(&I) -> Access, expr: &'static str) -> ErasedAccess {
    ErasedAccess::new(eval, expr.to_owned())
}

/// Not public API. A result cap the macro has already checked is non-zero.
pub const fn cap(chars: usize) -> ResultCap {
    match std::num::NonZeroUsize::new(chars) {
        Some(n) => ResultCap::Chars(n),
        None => ResultCap::DEFAULT,
    }
}

/// Not public API. The enforcement interface between a call's rules and
/// the process that runs it, for `registry-sandbox`: what a program start
/// and a path are judged by. Changes with the sandbox, in lockstep.
pub mod enforce {
    pub use crate::permission::enforce::{
        CallRules, GuardError, Lineage, PathAccess, PathGuard, PathRule, ProgramRules,
        ProgramStart, ProgramVerdict, Scope,
    };
    pub use crate::permission::pattern::ContentPattern;
}
