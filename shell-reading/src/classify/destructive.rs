//! The destructive deny-list, applied to every run of a reading.
//!
//! Unlike the read-only allow-list this is a list of patterns, so it
//! over-approximates wherever it cannot see: a reading that is not
//! checkable, an argument only the shell knows given to a program whose
//! destructiveness depends on its arguments (`find . $x`): destructive.

use super::programs::program_destroys;
use crate::environment::names_what_runs;
use crate::reading::{Reading, Run, assignment_changes_what_runs};
use crate::syntax::{Redirect, RedirectKind};

/// Can the command read as `reading` destroy data?
pub(super) fn is_destructive(reading: &Reading) -> bool {
    !reading.is_checkable() || reading.runs().iter().any(run_destroys)
}

fn run_destroys(run: &Run) -> bool {
    run.redirects.iter().any(redirect_destroys)
        || run.assignments.iter().any(assignment_changes_what_runs)
        || run
            .layers
            .iter()
            .any(|layer| layer.writes || layer.assignments.iter().any(assignment_changes_what_runs))
        || run.core().is_some_and(|core| {
            assigns_what_runs(core.name(), &core.args)
                || program_destroys(core.name(), &core.args, core.unseen_args)
        })
}

/// `>` and `>|` truncate their target, `<>` lets the command overwrite it
/// in place, bash's `>&name` and `&>name` truncate. `>>` and `&>>` append,
/// so neither loses data.
pub(crate) fn redirect_destroys(redirect: &Redirect) -> bool {
    let target = &redirect.target;
    match redirect.kind {
        RedirectKind::Truncate | RedirectKind::OutputAndError { append: false } => {
            !target.is("/dev/null")
        }
        RedirectKind::ReadWrite => !target.is("/dev/null"),
        RedirectKind::Duplicate => {
            target.dynamic
                || !(target.text == "-"
                    || (!target.text.is_empty() && target.text.chars().all(|c| c.is_ascii_digit())))
        }
        RedirectKind::Read
        | RedirectKind::Append
        | RedirectKind::OutputAndError { append: true }
        | RedirectKind::HereDoc
        | RedirectKind::HereString => false,
    }
}

/// Builtins that set a variable for the commands after them (`export
/// PATH=.`, `read HOME < f`, `printf -v PATH ...`): one that names a
/// variable which changes what runs.
fn assigns_what_runs(name: &str, args: &[crate::syntax::Word]) -> bool {
    if name == "printf" {
        // `printf -v NAME FORMAT ...`
        return args
            .windows(2)
            .any(|pair| pair[0].is("-v") && (pair[1].dynamic || names_what_runs(&pair[1].text)));
    }
    let sets_variables = matches!(
        name,
        "export"
            | "declare"
            | "typeset"
            | "local"
            | "readonly"
            | "read"
            | "getopts"
            | "mapfile"
            | "readarray"
            | "unset"
    );
    sets_variables
        && args.iter().any(|arg| {
            arg.dynamic || names_what_runs(arg.text.split('=').next().unwrap_or_default())
        })
}
