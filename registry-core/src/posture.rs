//! Safety posture: the per-call answers a dispatcher asks of a tool
//! (may it run concurrently, does it only read, does it destroy), the result
//! cap, and whether each value was declared or is the fail-closed default.
//!
//! This module only describes postures; it never decides a default. The
//! defaults live in [`Declaration::new`](crate::Declaration::new) alone.

use std::fmt;
use std::num::NonZeroUsize;
use std::sync::Arc;

/// Whether a setting was written by the tool's author or left to the
/// fail-closed default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// Nothing was said; the strictest value applies.
    Default,
    /// The tool's declaration (or the runtime builder) said it.
    Declared,
}

/// A value together with where it came from.
///
/// Keeping the source lets tools such as the demo table, a catalog lock or a
/// reviewer tell "this tool is serial because someone decided so" apart from
/// "this tool is serial because nobody thought about it".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting<T> {
    value: T,
    source: Source,
}

impl<T> Setting<T> {
    pub(crate) const fn default_value(value: T) -> Self {
        Self {
            value,
            source: Source::Default,
        }
    }

    pub(crate) const fn declared(value: T) -> Self {
        Self {
            value,
            source: Source::Declared,
        }
    }

    /// The value in force.
    pub fn value(&self) -> &T {
        &self.value
    }

    /// Where the value came from.
    pub fn source(&self) -> Source {
        self.source
    }

    /// `true` when the tool's author wrote this value.
    pub fn is_declared(&self) -> bool {
        self.source == Source::Declared
    }
}

/// How a boolean posture (`concurrency_safe`, `read_only`, `destructive`) is
/// decided, as metadata that can be shown without an input at hand.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PostureKind {
    /// The same answer for every call.
    Fixed(bool),
    /// Decided per call on the parsed input; carries the expression as
    /// written, for display.
    PerInput(String),
}

impl fmt::Display for PostureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PostureKind::Fixed(v) => write!(f, "{v}"),
            PostureKind::PerInput(_) => f.write_str("per input"),
        }
    }
}

/// A typed posture evaluator: a fixed answer or a function of the parsed
/// input.
pub enum Posture<I> {
    /// The same answer for every call.
    Fixed(bool),
    /// Evaluated on each call's parsed input at dispatch time.
    PerInput {
        /// The evaluator.
        eval: Arc<dyn Fn(&I) -> bool + Send + Sync>,
        /// The expression as written, for display.
        expr: String,
    },
}

impl<I> Clone for Posture<I> {
    fn clone(&self) -> Self {
        match self {
            Posture::Fixed(v) => Posture::Fixed(*v),
            Posture::PerInput { eval, expr } => Posture::PerInput {
                eval: Arc::clone(eval),
                expr: expr.clone(),
            },
        }
    }
}

impl<I> fmt::Debug for Posture<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Posture").field(&self.kind()).finish()
    }
}

impl<I> Posture<I> {
    /// The displayable shape of this posture.
    pub fn kind(&self) -> PostureKind {
        match self {
            Posture::Fixed(v) => PostureKind::Fixed(*v),
            Posture::PerInput { expr, .. } => PostureKind::PerInput(expr.clone()),
        }
    }

    /// Answer for one parsed input. A panicking evaluator is the caller's
    /// concern: see [`PreparedCall`](crate::PreparedCall), which treats it as
    /// the strict answer.
    pub(crate) fn evaluate(&self, input: &I) -> bool {
        match self {
            Posture::Fixed(v) => *v,
            Posture::PerInput { eval, .. } => eval(input),
        }
    }
}

/// The most characters of output a tool's result may hand the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResultCap {
    /// Longer output is cut to this many characters and says so.
    Chars(NonZeroUsize),
    /// No cap. Only ever set by writing `max_result_chars = unbounded`.
    Unbounded,
}

impl ResultCap {
    /// The cap a tool gets when it says nothing: 50,000 characters.
    pub const DEFAULT: ResultCap = ResultCap::Chars(match NonZeroUsize::new(50_000) {
        Some(n) => n,
        None => unreachable!(),
    });

    /// The cap as a number, `None` when unbounded.
    pub fn limit(self) -> Option<usize> {
        match self {
            ResultCap::Chars(n) => Some(n.get()),
            ResultCap::Unbounded => None,
        }
    }
}

impl fmt::Display for ResultCap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResultCap::Chars(n) => write!(f, "{n}"),
            ResultCap::Unbounded => f.write_str("unbounded"),
        }
    }
}

/// How a tool is loaded into the model's context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Loading {
    /// Sent with its full schema every turn (the default).
    Eager,
    /// Sent without its schema; found through tool search before use.
    Deferred,
    /// Never deferred, even when a runtime defers tools wholesale.
    AlwaysLoad,
}

impl fmt::Display for Loading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Loading::Eager => "eager",
            Loading::Deferred => "deferred",
            Loading::AlwaysLoad => "always",
        })
    }
}
