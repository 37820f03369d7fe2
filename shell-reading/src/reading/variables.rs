//! Variables that change what runs: assignments in front of a command,
//! as `env` or `sudo` operands, or through a builtin that sets variables
//! (`export`, `read`, `declare`, `printf -v`); and the builtins that
//! evaluate a value as code (`let`, `declare -i`, a subscript) or run a
//! command from their options (`jobs -x`).
//!
//! Which names change what runs is for [`names_what_runs`] to say; this
//! finds where they are set.

use super::Hazard;
use super::flat::Flat;
use crate::environment::names_what_runs;
use crate::syntax::Word;

impl Flat {
    /// An assignment (in front of a command, an `env` or `sudo` operand, a
    /// builtin's argument, a `for` variable) that changes what runs.
    pub(super) fn assignment(&mut self, word: &Word) {
        if assignment_changes_what_runs(word) {
            let name = word.text.split('=').next().unwrap_or_default();
            self.hazard(Hazard::ChangesWhatRuns(name.to_owned()));
        }
    }

    /// bash builtins that set variables, evaluate values as code, or run
    /// command strings from their options.
    pub(super) fn builtin(&mut self, name: &str, args: &[Word]) {
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
                | "printf"
                | "test"
                | "["
                | "wait"
        );
        if !sets_variables {
            if name == "let" {
                self.hazard(Hazard::Evaluates);
            }
            if name == "jobs" && args.iter().any(|w| w.text.starts_with("-x")) {
                self.hazard(Hazard::OpaqueRunner("jobs -x".into()));
            }
            return;
        }
        for arg in args {
            // `a[$(cmd)]` as a variable name: bash evaluates the subscript.
            if arg.text.contains('[') && name != "test" && name != "[" || arg.evaluates {
                self.hazard(Hazard::Evaluates);
            }
            if (name == "test" || name == "[") && arg.text.contains('[') && arg.text.contains('$') {
                self.hazard(Hazard::Evaluates);
            }
            let is_option = arg.text.starts_with('-') && !arg.text.contains('=');
            if matches!(name, "declare" | "typeset" | "local")
                && is_option
                && (arg.text.contains('i') || arg.text.contains('n'))
            {
                // Integer and name-reference variables evaluate what is
                // assigned to them.
                self.hazard(Hazard::Evaluates);
            }
            if !is_option && !matches!(name, "printf" | "test" | "[" | "wait") {
                self.assignment(&Word {
                    text: if arg.text.contains('=') {
                        arg.text.clone()
                    } else {
                        format!("{}=", arg.text)
                    },
                    dynamic: arg.dynamic,
                    assignment: !arg.dynamic,
                    ..Word::default()
                });
            }
        }
        if name == "printf" {
            // `printf -v NAME ...`
            for pair in args.windows(2) {
                if pair[0].is("-v") {
                    self.assignment(&Word {
                        text: format!("{}=", pair[1].text),
                        dynamic: pair[1].dynamic,
                        assignment: !pair[1].dynamic,
                        ..Word::default()
                    });
                }
            }
        }
    }
}

/// Whether an assignment can change which program runs or how it reads
/// its configuration (see [`names_what_runs`]). A dynamic name counts.
pub fn assignment_changes_what_runs(word: &Word) -> bool {
    if word.dynamic && !word.assignment {
        return true;
    }
    let name = word.text.split('=').next().unwrap_or_default();
    names_what_runs(name)
}
