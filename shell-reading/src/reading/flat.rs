//! Flattening a syntax tree into [`Run`]s: every simple command that may
//! run, in lists, compound commands, function bodies, substitutions,
//! here-document bodies and the command strings found on the way, each in
//! its [`Context`].
//!
//! The walk owns the work list and the hazards noted; what one command's
//! words start is [`peel`](super::peel)'s to find.

use super::{Context, Hazard, MAX_HAZARDS, Run};
use crate::environment::names_what_runs;
use crate::syntax::{Command, Compound, Redirect, Script, SimpleCommand, Word, parse};

/// Work still to flatten: nested scripts found in words, command strings.
pub(super) enum Work {
    Script(Script, Context),
    Text(String, Context),
    Words(Vec<Word>, Context),
}

#[derive(Default)]
pub(super) struct Flat {
    pub(super) runs: Vec<Run>,
    pub(super) hazards: Vec<Hazard>,
    pub(super) work: Vec<Work>,
}

impl Flat {
    /// Notes a hazard. One is enough to make a reading uncheckable; the
    /// first few are kept for the reasons a user reads, so the cost stays
    /// linear however many there are.
    pub(super) fn hazard(&mut self, hazard: Hazard) {
        if self.hazards.len() < MAX_HAZARDS && !self.hazards.contains(&hazard) {
            self.hazards.push(hazard);
        }
    }

    pub(super) fn drain(&mut self) {
        while let Some(work) = self.work.pop() {
            match work {
                Work::Script(script, cx) => self.script(&script, cx),
                Work::Text(text, cx) => match parse(&text) {
                    Ok(script) => self.script(&script, cx),
                    Err(why) => self.hazard(Hazard::Unreadable(why)),
                },
                Work::Words(words, cx) => {
                    let layers = self.peel(&words, cx, true);
                    self.runs.push(Run {
                        assignments: Vec::new(),
                        redirects: Vec::new(),
                        layers,
                        context: cx,
                    });
                }
            }
        }
    }

    /// Queues the substitutions of a word, and notes what it evaluates.
    fn word(&mut self, word: &Word, cx: Context) {
        if word.evaluates {
            self.hazard(Hazard::Evaluates);
        }
        for script in &word.substitutions {
            let inner = Context {
                in_substitution: true,
                ..cx
            };
            self.work.push(Work::Script(script.clone(), inner));
        }
    }

    fn redirects(&mut self, redirects: &[Redirect], cx: Context) {
        for redirect in redirects {
            self.word(&redirect.target, cx);
        }
    }

    pub(super) fn script(&mut self, script: &Script, cx: Context) {
        for body in &script.heredocs {
            self.word(body, cx);
        }
        for item in &script.items {
            let cx = Context {
                background: cx.background || item.background,
                ..cx
            };
            for pipeline in item.and_or.pipelines() {
                for command in &pipeline.commands {
                    self.command(command, cx);
                }
            }
        }
    }

    fn command(&mut self, command: &Command, cx: Context) {
        match command {
            Command::Simple(simple) => self.simple(simple, cx),
            Command::Function { name, body } => {
                self.hazard(Hazard::FunctionDefinition(name.text.clone()));
                self.command(
                    body,
                    Context {
                        in_function: true,
                        ..cx
                    },
                );
            }
            Command::Compound(compound, redirects) => {
                self.redirects(redirects, cx);
                self.compound(compound, cx);
            }
        }
    }

    fn compound(&mut self, compound: &Compound, cx: Context) {
        match compound {
            Compound::Group(s) | Compound::Subshell(s) => self.script(s, cx),
            Compound::Arithmetic(s) => {
                self.hazard(Hazard::Evaluates);
                self.script(s, cx);
            }
            Compound::If(parts) => {
                for part in parts {
                    self.script(part, cx);
                }
            }
            Compound::Loop { condition, body } => {
                self.script(condition, cx);
                self.script(body, cx);
            }
            Compound::For { name, words, body } => {
                for word in words.iter().flatten() {
                    self.word(word, cx);
                }
                // The loop assigns its variable before every pass.
                if names_what_runs(&name.text) {
                    self.hazard(Hazard::ChangesWhatRuns(name.text.clone()));
                }
                self.runs.push(Run {
                    assignments: vec![Word {
                        text: format!("{}=", name.text),
                        assignment: true,
                        dynamic: true,
                        ..Word::default()
                    }],
                    redirects: Vec::new(),
                    layers: Vec::new(),
                    context: cx,
                });
                self.script(body, cx);
            }
            Compound::Case { word, arms } => {
                self.word(word, cx);
                for (patterns, list) in arms {
                    for pattern in patterns {
                        self.word(pattern, cx);
                    }
                    self.script(list, cx);
                }
            }
            Compound::Conditional(words) => {
                for word in words {
                    self.word(word, cx);
                }
            }
        }
    }

    fn simple(&mut self, simple: &SimpleCommand, cx: Context) {
        for word in simple.assignments.iter().chain(&simple.words) {
            self.word(word, cx);
        }
        self.redirects(&simple.redirects, cx);
        for assignment in &simple.assignments {
            self.assignment(assignment);
        }
        let layers = self.peel(&simple.words, cx, false);
        self.git_internals(simple, &layers);
        self.runs.push(Run {
            assignments: simple.assignments.clone(),
            redirects: simple.redirects.clone(),
            layers,
            context: cx,
        });
    }
}
