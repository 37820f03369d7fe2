//! What one program may spend.

use std::time::Duration;

/// The limits of one program. Each ends the program with its own
/// [`ProgramError`](crate::ProgramError), and that as the `code` call's
/// error result; the process and its other turns go on.
///
/// ```
/// use std::time::Duration;
/// use registry_code::Limits;
///
/// let mut limits = Limits::default();
/// limits.wall_time = Duration::from_secs(5);
/// limits.max_calls = 20;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// The program's whole life, from its start to its result, its tool
    /// calls included. Default 60 s.
    pub wall_time: Duration,
    /// How many interrupt checks the program may run through: QuickJS
    /// checks about every 10,000 operations, so this bounds the work an
    /// endless loop does whatever the clock says. Default 20,000 (about
    /// 200 million operations).
    pub steps: u64,
    /// The engine's heap, in bytes: every string, array and object the
    /// program makes. Default 64 MiB.
    pub memory_bytes: usize,
    /// The engine's stack, in bytes: how deep the program may recurse.
    /// Default 512 KiB.
    pub stack_bytes: usize,
    /// How many tool calls the program may make; each call past it is
    /// rejected without running (the program can catch it). Default 100.
    pub max_calls: usize,
    /// How much the program may print and return, in bytes; the rest is
    /// cut, and the result says so. The `code` tool's own result cap
    /// applies on top, as to any tool. Default 200,000.
    pub max_output_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            wall_time: Duration::from_secs(60),
            steps: 20_000,
            memory_bytes: 64 * 1024 * 1024,
            stack_bytes: 512 * 1024,
            max_calls: 100,
            max_output_bytes: 200_000,
        }
    }
}
