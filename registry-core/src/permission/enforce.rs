//! The rules of one call, in the form the code that runs it enforces them
//! with: what a tool that starts processes hands to the operating system.
//!
//! The pipeline decides a call *before* it runs, on its reading (a
//! command's programs as the shell will start them, a path as the OS will
//! open it). A reading predicts; it cannot be complete (bash evaluates
//! code in subscripts and start-up files, every interpreter runs code the
//! reading never sees). So a tool that starts processes also enforces the
//! same rules *while* the command runs, where the kernel decides. The
//! executor attaches a [`CallRules`] to every call's
//! [`ToolContext`] (read back with [`CallRules::of`]); it answers two
//! questions:
//!
//! - **May this program start?** ([`ProgramRules::judge`]) For every
//!   program any process of the command starts, with its real program
//!   file and argument vector: a deny rule of the tool (`run_command(rm:*)`)
//!   stops it wherever it is started; a program started by the command's
//!   own shell (subshells and substitutions included) must be one the
//!   reading predicted (the call was decided on those) or one an allow
//!   rule covers, and one an ask rule covers must have been predicted (it
//!   was asked about); what an allowed program starts is under that
//!   program's rule and every deny rule. In `bypass` only deny rules stop
//!   a program.
//! - **Which paths are guarded?** ([`CallRules::path_guards`]) A path rule
//!   is written once, for the tool it names, and reaches every command
//!   through the filesystem: a deny (or, outside `bypass`, ask) rule on a
//!   tool that only reads (`read_file(**/.env)`, `grep(secrets/**)`) hides
//!   the paths it covers from every process of the command; one on a tool
//!   that writes (`edit_file(victim.txt)`, `write_file(config/**)`) makes
//!   them read-only (no write, truncation, rename or unlink). A rule whose
//!   content names nothing on disk guards nothing.
//!
//! Owns: turning the current context's rules into these two answers.
//! Never does: start a process or touch the filesystem other than to list
//! what a path rule covers (the sandbox crate does the rest), or loosen a
//! decision the pipeline took.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::context::{PermissionContext, RuleBehavior, RuleSource};
use super::pattern::ContentPattern;
use super::pipeline::AllowedBy;
use super::rule::PermissionRule;
use crate::declare::content::ContentKind;
use crate::declare::context::ToolContext;
use crate::permission::PermissionMode;

/// What a rule on another tool means for a command: the tool reads, or it
/// writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PathAccess {
    /// The rule is on a tool that only reads: the paths are hidden.
    Read,
    /// The rule is on a tool that writes: the paths are read-only.
    Write,
}

/// The permission rules of one call, as the executor attaches them to the
/// call's [`ToolContext`](crate::ToolContext).
#[derive(Debug, Clone)]
pub struct CallRules {
    rules: Arc<PermissionContext>,
    tool: Arc<str>,
    aliases: Arc<[String]>,
    mode: PermissionMode,
    workspace: Option<PathBuf>,
    /// Each pooled tool's name and whether it only reads.
    path_tools: Arc<[(String, PathAccess)]>,
    allowed_by: Option<AllowedBy>,
}

impl CallRules {
    /// The rules the executor attached to this call: `None` outside the
    /// executor (a tool called directly), where a tool that starts
    /// processes must assume the strictest rules.
    pub fn of(cx: &ToolContext) -> Option<&CallRules> {
        cx.call_rules_erased()?.downcast_ref()
    }

    /// The rules of a call of `tool` (its primary name and aliases) under
    /// `rules` and `mode`. `path_tools` says, for each tool a path rule may
    /// name, whether it reads or writes; `workspace` is what relative path
    /// rules are written against when the call has no working directory.
    pub fn new(
        rules: Arc<PermissionContext>,
        tool: impl Into<Arc<str>>,
        aliases: impl Into<Arc<[String]>>,
        mode: PermissionMode,
    ) -> Self {
        CallRules {
            rules,
            tool: tool.into(),
            aliases: aliases.into(),
            mode,
            workspace: None,
            path_tools: Arc::from(Vec::new()),
            allowed_by: None,
        }
    }

    /// Sets which tools path rules may name, and what each does.
    pub fn with_path_tools(mut self, tools: Arc<[(String, PathAccess)]>) -> Self {
        self.path_tools = tools;
        self
    }

    /// Sets the workspace relative path rules are written against.
    pub fn with_workspace(mut self, workspace: Option<PathBuf>) -> Self {
        self.workspace = workspace;
        self
    }

    /// Records what allowed the call (the executor does, once the pipeline
    /// has decided).
    pub fn with_allowed_by(mut self, by: AllowedBy) -> Self {
        self.allowed_by = Some(by);
        self
    }

    /// The permission mode the call was decided in.
    pub fn mode(&self) -> PermissionMode {
        self.mode
    }

    /// What allowed the call; `None` before the pipeline decided.
    pub fn allowed_by(&self) -> Option<&AllowedBy> {
        self.allowed_by.as_ref()
    }

    /// Whether a person approved this call (the approver, or an
    /// allow-always grant a person gave): then a guarantee this machine
    /// cannot give was named in the question they answered.
    pub fn approved_by_person(&self) -> bool {
        matches!(
            self.allowed_by,
            Some(AllowedBy::Approver | AllowedBy::SessionRule(_))
        )
    }

    /// The content rules of this call's tool, as an owned judge of
    /// program starts. `predicted` are the programs the call's reading
    /// names (what the call was decided on).
    pub fn program_rules(&self) -> ProgramRules {
        let mut rules = ProgramRules {
            deny: Vec::new(),
            ask: Vec::new(),
            allow: Vec::new(),
            scope: if self.mode == PermissionMode::Bypass {
                Scope::Unrestricted
            } else {
                Scope::Predicted
            },
        };
        for (behavior, list) in [
            (RuleBehavior::Deny, &mut rules.deny),
            (RuleBehavior::Ask, &mut rules.ask),
            (RuleBehavior::Allow, &mut rules.allow),
        ] {
            for (source, rule) in self.rules.rules_with(behavior) {
                if !rule.targets(&self.tool, &self.aliases) {
                    continue;
                }
                let Some(content) = rule.content() else {
                    // A whole-tool rule: deny never reaches here (the call
                    // would not run); allow covers every program.
                    if behavior == RuleBehavior::Allow {
                        list.push(ProgramEntry::new(source, behavior, rule, "*"));
                    }
                    continue;
                };
                list.push(ProgramEntry::new(source, behavior, rule, content));
            }
        }
        rules
    }

    /// Whether any content rule targets this call's tool: then the
    /// program guard is what makes the rules hold.
    pub fn has_program_rules(&self) -> bool {
        [RuleBehavior::Deny, RuleBehavior::Ask, RuleBehavior::Allow]
            .into_iter()
            .flat_map(|b| self.rules.rules_with(b))
            .any(|(_, rule)| rule.content().is_some() && rule.targets(&self.tool, &self.aliases))
    }

    /// The path rules that reach a command run in `root`, if any: the
    /// rules themselves, without listing the disk.
    pub fn path_rules(&self) -> Vec<PathRule> {
        let mut found = Vec::new();
        let behaviors: &[RuleBehavior] = if self.mode == PermissionMode::Bypass {
            &[RuleBehavior::Deny]
        } else {
            &[RuleBehavior::Deny, RuleBehavior::Ask]
        };
        for &behavior in behaviors {
            for (source, rule) in self.rules.rules_with(behavior) {
                let Some(content) = rule.content() else {
                    continue;
                };
                let Some(access) = self.path_tools.iter().find_map(|(name, access)| {
                    (rule.targets(name, &[]) && **name != *self.tool).then_some(*access)
                }) else {
                    continue;
                };
                found.push(PathRule {
                    access,
                    pattern: ContentPattern::parse(content),
                    rule: describe(source, behavior, rule),
                });
            }
        }
        found
    }

    /// Every existing path a path rule covers for a command run in
    /// `root`, each once, with what may not be done to it. A directory
    /// every possible descendant of which is covered (`secrets/**`,
    /// `secrets:*`) is guarded whole, so files created in it are covered
    /// too. Listing stops with an error past `MAX_LISTED` entries: a
    /// guard that cannot be listed cannot be enforced.
    pub fn path_guards(&self, root: &Path) -> Result<Vec<PathGuard>, GuardError> {
        let rules = self.path_rules();
        if rules.is_empty() {
            return Ok(Vec::new());
        }
        let base = match &self.workspace {
            Some(workspace) if root.starts_with(workspace) => workspace.clone(),
            _ => root.to_path_buf(),
        };
        let mut guards: Vec<PathGuard> = Vec::new();
        let mut listed = 0usize;
        for rule in &rules {
            let start = literal_start(rule.pattern.as_str(), &base);
            collect(&base, &start, rule, &mut guards, &mut listed)?;
        }
        // A path covered by a read rule and a write rule is hidden (the
        // stronger guard); each path once.
        guards.sort_by(|a, b| a.path.cmp(&b.path).then(a.access.cmp(&b.access)));
        guards.dedup_by(|later, kept| later.path == kept.path);
        Ok(guards)
    }
}

/// How many directory entries listing path rules may visit for one call.
pub const MAX_LISTED: usize = 200_000;

/// A path rule that reaches commands.
#[derive(Debug, Clone)]
pub struct PathRule {
    /// What the rule's tool does.
    pub access: PathAccess,
    /// The rule's pattern.
    pub pattern: ContentPattern,
    /// The rule as quoted in a refusal (`the project deny rule
    /// `read_file(**/.env)``).
    pub rule: String,
}

/// One path guarded for a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathGuard {
    /// The path, absolute, as it exists now.
    pub path: PathBuf,
    /// Hidden (`Read`) or read-only (`Write`).
    pub access: PathAccess,
    /// Whether it is a directory (guarded with all it will hold).
    pub is_dir: bool,
    /// The rule that guards it.
    pub rule: String,
}

/// A path rule that cannot be turned into guards.
#[derive(Debug, thiserror::Error)]
pub enum GuardError {
    /// Listing what the rules cover visited too many entries.
    #[error(
        "the path rules cover more than {MAX_LISTED} entries to list under `{}`; narrow the rule or the working directory",
        root.display()
    )]
    TooMany {
        /// Where the listing started.
        root: PathBuf,
    },
    /// A covered file has more than one name: its other names cannot be
    /// guarded.
    #[error(
        "`{}` is covered by {rule} but has {links} names (hard links); its other names cannot be guarded",
        path.display()
    )]
    HardLinked {
        /// The path.
        path: PathBuf,
        /// How many names it has.
        links: u64,
        /// The rule.
        rule: String,
    },
}

fn describe(source: RuleSource, behavior: RuleBehavior, rule: &PermissionRule) -> String {
    let kind = match behavior {
        RuleBehavior::Deny => "deny",
        RuleBehavior::Ask => "ask",
        RuleBehavior::Allow => "allow",
    };
    format!("the {} {kind} rule `{rule}`", source.name())
}

/// The directory a pattern's matches all lie under: its components up to
/// the first with a wildcard, resolved against `base`.
fn literal_start(pattern: &str, base: &Path) -> PathBuf {
    let text = pattern.strip_suffix(":*").unwrap_or(pattern);
    let mut start = if text.starts_with('/') {
        PathBuf::from("/")
    } else {
        base.to_path_buf()
    };
    let parts: Vec<&str> = text.split('/').filter(|p| !p.is_empty()).collect();
    let literal = parts
        .iter()
        .take_while(|part| !part.contains('*') && **part != "..")
        .count();
    // The last literal component is a candidate itself (a directory a
    // rule covers whole is guarded whole): list from its parent.
    for part in &parts[..literal.saturating_sub(1)] {
        if *part != "." {
            start.push(part);
        }
    }
    start
}

/// Whether `rel` (relative to the listing base, or absolute) is covered,
/// as the pipeline matches path content.
fn covers(pattern: &ContentPattern, rel: &str) -> bool {
    pattern.matches_text(rel, ContentKind::Path)
}

/// Whether every possible entry under the directory `rel` is covered: two
/// names nothing real uses, one and two levels down, stand for all.
fn covers_all_below(pattern: &ContentPattern, rel: &str) -> bool {
    let probe = "\u{1}registry-probe";
    covers(pattern, &format!("{rel}/{probe}")) && covers(pattern, &format!("{rel}/{probe}/{probe}"))
}

fn relative_text(base: &Path, path: &Path) -> String {
    match path.strip_prefix(base) {
        Ok(rel) => {
            let parts: Vec<_> = rel
                .components()
                .filter_map(|c| match c {
                    Component::Normal(p) => Some(p.to_string_lossy()),
                    _ => None,
                })
                .collect();
            if parts.is_empty() {
                ".".to_owned()
            } else {
                parts.join("/")
            }
        }
        Err(_) => path.to_string_lossy().into_owned(),
    }
}

fn collect(
    base: &Path,
    start: &Path,
    rule: &PathRule,
    guards: &mut Vec<PathGuard>,
    listed: &mut usize,
) -> Result<(), GuardError> {
    let mut pending = vec![start.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            *listed += 1;
            if *listed > MAX_LISTED {
                return Err(GuardError::TooMany {
                    root: base.to_path_buf(),
                });
            }
            let path = entry.path();
            // Never followed: a link is guarded as the link (its target is
            // reached, and guarded, by its own path if a rule covers it).
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            let rel = relative_text(base, &path);
            let is_dir = meta.is_dir();
            let abs = path.to_string_lossy();
            let hit = covers(&rule.pattern, &rel) || (rel != abs && covers(&rule.pattern, &abs));
            if is_dir && (hit || covers_all_below(&rule.pattern, &rel)) {
                guards.push(PathGuard {
                    path,
                    access: rule.access,
                    is_dir: true,
                    rule: rule.rule.clone(),
                });
                continue;
            }
            if hit {
                #[cfg(unix)]
                {
                    use std::os::unix::fs::MetadataExt;
                    if meta.is_file() && meta.nlink() > 1 {
                        return Err(GuardError::HardLinked {
                            path,
                            links: meta.nlink(),
                            rule: rule.rule.clone(),
                        });
                    }
                }
                guards.push(PathGuard {
                    path,
                    access: rule.access,
                    is_dir: false,
                    rule: rule.rule.clone(),
                });
                continue;
            }
            if is_dir {
                pending.push(path);
            }
        }
    }
    Ok(())
}

/// Whether a program start is judged as the command's own (started by
/// its shell, a subshell or substitution of it, or a wrapper the reading
/// peeled) or as something an allowed program started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lineage {
    /// Started by the command's shell (or a shell or wrapper it started).
    Shell,
    /// Started, directly or not, by a program the shell started and the
    /// rules let run: under that program's rule.
    Program,
}

/// Which programs the command's shell may start besides those the rules
/// allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `bypass`: anything no deny rule covers.
    Unrestricted,
    /// The programs the reading predicted, and those allow rules cover.
    Predicted,
}

#[derive(Debug, Clone)]
struct ProgramEntry {
    pattern: ContentPattern,
    /// The program the pattern names (its first word), when it names one
    /// without a wildcard: the runner resolves it to a file.
    program: Option<String>,
    rule: String,
}

impl ProgramEntry {
    fn new(
        source: RuleSource,
        behavior: RuleBehavior,
        rule: &PermissionRule,
        content: &str,
    ) -> Self {
        let pattern = ContentPattern::parse(content);
        let first = content
            .strip_suffix(":*")
            .unwrap_or(content)
            .split(' ')
            .next()
            .unwrap_or("");
        let program = (!first.is_empty() && !first.contains('*')).then(|| first.to_owned());
        ProgramEntry {
            pattern,
            program,
            rule: describe(source, behavior, rule),
        }
    }

    fn matches(&self, names: &[&str], args: &[String]) -> bool {
        names.iter().any(|name| {
            let mut text =
                String::with_capacity(name.len() + args.iter().map(|a| a.len() + 1).sum::<usize>());
            text.push_str(name);
            for arg in args {
                text.push(' ');
                text.push_str(arg);
            }
            self.pattern.matches_text(&text, ContentKind::Command)
        })
    }
}

/// A call's program rules, owned, for the code that watches its
/// processes.
#[derive(Debug, Clone)]
pub struct ProgramRules {
    deny: Vec<ProgramEntry>,
    ask: Vec<ProgramEntry>,
    allow: Vec<ProgramEntry>,
    scope: Scope,
}

/// One program start, as the kernel reports it.
#[derive(Debug, Clone, Copy)]
pub struct ProgramStart<'a> {
    /// Every name the program goes by: the program file's name, the name
    /// it was started as, and each rule's program that names this very
    /// file. Deny and ask rules match any of them.
    pub names: &'a [&'a str],
    /// The names proven to be this file: a rule's program resolved (as
    /// the command's `PATH` resolves it) to the file that starts. Allow
    /// rules match only these.
    pub verified_names: &'a [&'a str],
    /// The arguments after the program name.
    pub args: &'a [String],
    /// Who started it.
    pub lineage: Lineage,
    /// Whether the call's reading named this program.
    pub predicted: bool,
}

/// Whether a program may start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProgramVerdict {
    /// It may; `transparent` is not decided here.
    Run {
        /// An allow rule covered it (so what it starts is under its rule).
        by_rule: bool,
    },
    /// It may not.
    Stop {
        /// Why, phrased to follow "stopped because".
        reason: String,
    },
}

impl ProgramRules {
    /// The programs the rules name, to be resolved to files before the
    /// command starts.
    pub fn named_programs(&self) -> impl Iterator<Item = &str> {
        self.deny
            .iter()
            .chain(&self.ask)
            .chain(&self.allow)
            .filter_map(|e| e.program.as_deref())
    }

    /// Whether the rules stop anything (a judge with no deny rule in
    /// `bypass` lets everything start).
    pub fn restricts(&self) -> bool {
        !self.deny.is_empty() || self.scope == Scope::Predicted
    }

    /// The scope of the command's own programs.
    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// Decides one program start. Deny before ask before allow, as the
    /// pipeline decides.
    pub fn judge(&self, start: &ProgramStart<'_>) -> ProgramVerdict {
        if let Some(entry) = self
            .deny
            .iter()
            .find(|e| e.matches(start.names, start.args))
        {
            return ProgramVerdict::Stop {
                reason: format!("{} denies it", entry.rule),
            };
        }
        if start.lineage == Lineage::Program || self.scope == Scope::Unrestricted {
            return ProgramVerdict::Run { by_rule: false };
        }
        if let Some(entry) = self.ask.iter().find(|e| e.matches(start.names, start.args))
            && !start.predicted
        {
            return ProgramVerdict::Stop {
                reason: format!(
                    "{} needs approval for it, and it is not in the command as read (so nobody was asked)",
                    entry.rule
                ),
            };
        }
        if self
            .allow
            .iter()
            .any(|e| e.pattern.as_str() == "*" || e.matches(start.verified_names, start.args))
        {
            return ProgramVerdict::Run { by_rule: true };
        }
        if start.predicted {
            return ProgramVerdict::Run { by_rule: false };
        }
        ProgramVerdict::Stop {
            reason: "it is not in the command as read, and no allow rule covers it (the call was decided on what the reading showed)".to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(lines: &[(RuleBehavior, &str)], mode: PermissionMode) -> CallRules {
        let mut cx = PermissionContext::new();
        for (behavior, rule) in lines {
            cx.add_rule(RuleSource::Project, *behavior, rule).unwrap();
        }
        let tools: Arc<[(String, PathAccess)]> = Arc::from(vec![
            ("read_file".to_owned(), PathAccess::Read),
            ("edit_file".to_owned(), PathAccess::Write),
            ("run_command".to_owned(), PathAccess::Write),
        ]);
        CallRules::new(Arc::new(cx), "run_command", Vec::new(), mode).with_path_tools(tools)
    }

    fn start<'a>(
        names: &'a [&'a str],
        args: &'a [String],
        lineage: Lineage,
        predicted: bool,
    ) -> ProgramStart<'a> {
        ProgramStart {
            names,
            verified_names: names,
            args,
            lineage,
            predicted,
        }
    }

    #[test]
    fn a_deny_rule_stops_a_program_wherever_it_starts() {
        let judge = rules(
            &[(RuleBehavior::Deny, "run_command(rm:*)")],
            PermissionMode::Bypass,
        )
        .program_rules();
        let args = vec!["-f".to_owned(), "victim.txt".to_owned()];
        for lineage in [Lineage::Shell, Lineage::Program] {
            let verdict = judge.judge(&start(&["rm"], &args, lineage, true));
            assert!(
                matches!(&verdict, ProgramVerdict::Stop { reason } if reason.contains("run_command(rm:*)")),
                "{verdict:?}"
            );
        }
        assert_eq!(
            judge.judge(&start(&["ls"], &args, Lineage::Shell, false)),
            ProgramVerdict::Run { by_rule: false }
        );
    }

    #[test]
    fn outside_bypass_the_shell_starts_only_what_was_read_or_allowed() {
        let judge = rules(
            &[(RuleBehavior::Allow, "run_command(ls:*)")],
            PermissionMode::Default,
        )
        .program_rules();
        let none: Vec<String> = Vec::new();
        assert_eq!(
            judge.judge(&start(&["ls"], &none, Lineage::Shell, false)),
            ProgramVerdict::Run { by_rule: true }
        );
        assert!(matches!(
            judge.judge(&start(&["rm"], &none, Lineage::Shell, false)),
            ProgramVerdict::Stop { .. }
        ));
        assert_eq!(
            judge.judge(&start(&["cc"], &none, Lineage::Program, false)),
            ProgramVerdict::Run { by_rule: false }
        );
        assert_eq!(
            judge.judge(&start(&["cargo"], &none, Lineage::Shell, true)),
            ProgramVerdict::Run { by_rule: false }
        );
    }

    #[test]
    fn an_ask_rule_stops_what_nobody_was_asked_about() {
        let judge = rules(
            &[(RuleBehavior::Ask, "run_command(git push:*)")],
            PermissionMode::Default,
        )
        .program_rules();
        let args = vec!["push".to_owned()];
        assert!(matches!(
            judge.judge(&start(&["git"], &args, Lineage::Shell, false)),
            ProgramVerdict::Stop { .. }
        ));
        assert_eq!(
            judge.judge(&start(&["git"], &args, Lineage::Shell, true)),
            ProgramVerdict::Run { by_rule: false }
        );
    }

    #[test]
    fn path_rules_reach_commands_through_their_tools() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("secrets/deep")).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("secrets/deep/key"), "k").unwrap();
        std::fs::write(root.join("src/.env"), "e").unwrap();
        std::fs::write(root.join(".env"), "e").unwrap();
        std::fs::write(root.join("victim.txt"), "v").unwrap();
        std::fs::write(root.join("other.txt"), "o").unwrap();
        let call = rules(
            &[
                (RuleBehavior::Deny, "read_file(**/.env)"),
                (RuleBehavior::Deny, "edit_file(victim.txt)"),
                (RuleBehavior::Ask, "edit_file(secrets/**)"),
                (RuleBehavior::Deny, "run_command(rm:*)"),
            ],
            PermissionMode::Default,
        );
        let guards = call.path_guards(root).unwrap();
        let got: Vec<(String, PathAccess, bool)> = guards
            .iter()
            .map(|g| (relative_text(root, &g.path), g.access, g.is_dir))
            .collect();
        assert_eq!(
            got,
            vec![
                (".env".to_owned(), PathAccess::Read, false),
                ("secrets".to_owned(), PathAccess::Write, true),
                ("src/.env".to_owned(), PathAccess::Read, false),
                ("victim.txt".to_owned(), PathAccess::Write, false),
            ]
        );
        // In bypass an ask rule is settled by the mode: it guards nothing.
        let bypass = rules(
            &[(RuleBehavior::Ask, "edit_file(secrets/**)")],
            PermissionMode::Bypass,
        );
        assert!(bypass.path_guards(root).unwrap().is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn a_guarded_file_with_a_second_name_cannot_be_guarded() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("victim.txt"), "v").unwrap();
        std::fs::hard_link(root.join("victim.txt"), root.join("alias")).unwrap();
        let call = rules(
            &[(RuleBehavior::Deny, "edit_file(victim.txt)")],
            PermissionMode::Bypass,
        );
        assert!(matches!(
            call.path_guards(root),
            Err(GuardError::HardLinked { links: 2, .. })
        ));
    }
}
