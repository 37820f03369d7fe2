//! git runs what its configuration names: an alias, a program set with
//! `-c`, a hook. A command that may make a `git` run such a program, or
//! that writes where git reads them, cannot be checked.
//!
//! Which git subcommands and keys are known is for
//! [`git_invocation`](crate::git_invocation) to say; this only turns its
//! answer into hazards.

use super::flat::Flat;
use super::{Hazard, Invocation};
use crate::syntax::{SimpleCommand, Word};

impl Flat {
    /// Writing git's hooks or configuration makes a later `git` run what
    /// was written (`echo 'rm x' > .git/hooks/pre-commit; git commit`):
    /// a command that writes there, or names those files for a program
    /// that is not a plain reader, cannot be checked.
    pub(super) fn git_internals(&mut self, simple: &SimpleCommand, layers: &[Invocation]) {
        const INTERNALS: [&str; 4] = [".git/hooks", ".git/config", ".git/info", ".git/modules"];
        let names_internals = |text: &str| INTERNALS.iter().any(|p| text.contains(p));
        let writes = simple.redirects.iter().any(|r| {
            !matches!(
                r.kind,
                crate::syntax::RedirectKind::Read
                    | crate::syntax::RedirectKind::HereDoc
                    | crate::syntax::RedirectKind::HereString
            ) && r.target.text.contains(".git/")
        });
        let reader = layers.last().is_some_and(|core| {
            matches!(
                core.name(),
                "cat"
                    | "ls"
                    | "head"
                    | "tail"
                    | "grep"
                    | "wc"
                    | "stat"
                    | "du"
                    | "find"
                    | "less"
                    | "more"
                    | "file"
                    | "echo"
                    | "test"
                    | "["
            )
        });
        let named = !reader
            && layers
                .iter()
                .flat_map(|l| &l.args)
                .any(|w| names_internals(&w.text));
        if writes || named {
            self.hazard(Hazard::ConfiguredProgram(
                "writing git's hooks or configuration (which a later `git` runs)".into(),
            ));
        }
    }

    /// git runs what its configuration names: an alias (any subcommand git
    /// does not have) may be a shell command, and `-c` may set a key that
    /// names a program.
    pub(super) fn git(&mut self, args: &[Word]) {
        if let Some(what) = crate::classify::runs_commands_from_args("git", args) {
            self.hazard(Hazard::OpaqueRunner(what));
        }
        match crate::classify::git_invocation(args) {
            crate::classify::GitInvocation::Known => {}
            crate::classify::GitInvocation::ConfiguresProgram(key) => {
                self.hazard(Hazard::ConfiguredProgram(format!("`git -c {key}`")));
            }
            crate::classify::GitInvocation::Unknown(sub) => {
                self.hazard(Hazard::ConfiguredProgram(format!(
                    "`git {sub}` (not a git command, so maybe an alias)"
                )));
            }
            crate::classify::GitInvocation::Unreadable => {
                self.hazard(Hazard::UnknownWrapperOption("git".into()));
            }
        }
    }
}
