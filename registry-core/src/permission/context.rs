//! The permission context a runtime narrows the tool list with: the active
//! mode, and allow / deny / ask rules keyed by where they came from.

use std::collections::{BTreeMap, BTreeSet};

use super::rule::{PermissionRule, RuleError};
use crate::permission::ContextError;

/// Where a rule came from. Policy rules are set by an administrator and
/// cannot be changed through the context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuleSource {
    /// Managed policy: read-only.
    Policy,
    /// The user's own settings.
    User,
    /// The project's shared settings.
    Project,
    /// Granted during this session.
    Session,
    /// Given on the command line.
    Cli,
}

impl RuleSource {
    /// How the source is named in messages: `policy`, `user`, `project`,
    /// `session`, `command-line`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Policy => "policy",
            Self::User => "user",
            Self::Project => "project",
            Self::Session => "session",
            Self::Cli => "command-line",
        }
    }
}

/// What a rule does when it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuleBehavior {
    /// Run without asking.
    Allow,
    /// Never run; whole-tool deny rules also remove the tool from the pool.
    Deny,
    /// Ask a person first.
    Ask,
}

/// The rules of one source.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleSet {
    /// Allow rules.
    pub allow: Vec<PermissionRule>,
    /// Deny rules.
    pub deny: Vec<PermissionRule>,
    /// Ask rules.
    pub ask: Vec<PermissionRule>,
}

impl RuleSet {
    fn list_mut(&mut self, behavior: RuleBehavior) -> &mut Vec<PermissionRule> {
        match behavior {
            RuleBehavior::Allow => &mut self.allow,
            RuleBehavior::Deny => &mut self.deny,
            RuleBehavior::Ask => &mut self.ask,
        }
    }
}

/// How a mode narrows the pool. Modes remove tools; they do not hide them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PoolModeFilter {
    /// Every tool stays.
    KeepAll,
    /// Only these tools (by primary name) stay.
    KeepOnly(BTreeSet<String>),
    /// `replacement` stands in for the `replaced` tools, which leave the pool.
    Replace {
        /// The tool that does the others' work in this mode.
        replacement: String,
        /// The tools it replaces.
        replaced: BTreeSet<String>,
    },
}

/// A named operating mode of the pool ("minimal", "repl"): which tools it
/// keeps. Not the [`PermissionMode`](super::PermissionMode), which decides
/// whether a call runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolMode {
    name: String,
    filter: PoolModeFilter,
}

impl Default for PoolMode {
    fn default() -> Self {
        PoolMode {
            name: "default".to_owned(),
            filter: PoolModeFilter::KeepAll,
        }
    }
}

impl PoolMode {
    /// A mode with a name and a filter.
    pub fn new(name: impl Into<String>, filter: PoolModeFilter) -> Self {
        PoolMode {
            name: name.into(),
            filter,
        }
    }

    /// A minimal mode keeping only `tools`.
    pub fn keep_only<S: Into<String>>(
        name: impl Into<String>,
        tools: impl IntoIterator<Item = S>,
    ) -> Self {
        Self::new(
            name,
            PoolModeFilter::KeepOnly(tools.into_iter().map(Into::into).collect()),
        )
    }

    /// A mode where `replacement` takes over from `replaced`.
    pub fn replace<S: Into<String>>(
        name: impl Into<String>,
        replacement: impl Into<String>,
        replaced: impl IntoIterator<Item = S>,
    ) -> Self {
        Self::new(
            name,
            PoolModeFilter::Replace {
                replacement: replacement.into(),
                replaced: replaced.into_iter().map(Into::into).collect(),
            },
        )
    }

    /// The mode's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How the mode narrows the pool.
    pub fn filter(&self) -> &PoolModeFilter {
        &self.filter
    }

    /// Whether a tool with this primary name stays in the pool.
    pub fn keeps(&self, name: &str) -> bool {
        match &self.filter {
            PoolModeFilter::KeepAll => true,
            PoolModeFilter::KeepOnly(keep) => keep.contains(name),
            PoolModeFilter::Replace { replaced, .. } => !replaced.contains(name),
        }
    }
}

/// The mode and the rules, by source.
///
/// ```
/// use registry_core::{PermissionContext, permission::{RuleBehavior, RuleSource}};
///
/// let mut cx = PermissionContext::with_policy_rules(["mcp__untrusted"]).unwrap();
/// cx.add_rule(RuleSource::Project, RuleBehavior::Deny, "run_command").unwrap();
/// assert!(cx.add_rule(RuleSource::Policy, RuleBehavior::Allow, "x").is_err());
/// assert!(cx.denies_whole_tool("run_command", &[]));
/// assert!(cx.denies_whole_tool("mcp__untrusted__wipe", &[]));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PermissionContext {
    mode: PoolMode,
    rules: BTreeMap<RuleSource, RuleSet>,
}

impl PermissionContext {
    /// Default mode, no rules.
    pub fn new() -> Self {
        Self::default()
    }

    /// A context whose policy source holds these deny rules; policy rules
    /// can only be set here.
    pub fn with_policy_rules<S: AsRef<str>>(
        deny: impl IntoIterator<Item = S>,
    ) -> Result<Self, RuleError> {
        let deny = deny
            .into_iter()
            .map(|rule| rule.as_ref().parse())
            .collect::<Result<Vec<PermissionRule>, _>>()?;
        let mut cx = Self::new();
        cx.rules.entry(RuleSource::Policy).or_default().deny = deny;
        Ok(cx)
    }

    /// Sets the active mode.
    pub fn with_mode(mut self, mode: PoolMode) -> Self {
        self.mode = mode;
        self
    }

    /// The active mode.
    pub fn mode(&self) -> &PoolMode {
        &self.mode
    }

    /// Parses and adds a rule. Fails on a malformed rule or a policy source.
    pub fn add_rule(
        &mut self,
        source: RuleSource,
        behavior: RuleBehavior,
        rule: &str,
    ) -> Result<(), ContextError> {
        let rule = rule.parse()?;
        self.add_parsed_rule(source, behavior, rule)
    }

    /// Adds a parsed rule. Fails for the read-only policy source.
    pub fn add_parsed_rule(
        &mut self,
        source: RuleSource,
        behavior: RuleBehavior,
        rule: PermissionRule,
    ) -> Result<(), ContextError> {
        if source == RuleSource::Policy {
            return Err(ContextError::PolicyIsReadOnly {
                rule: rule.to_string(),
            });
        }
        self.rules
            .entry(source)
            .or_default()
            .list_mut(behavior)
            .push(rule);
        Ok(())
    }

    /// Removes every rule of a (non-policy) source.
    pub fn clear_source(&mut self, source: RuleSource) -> Result<(), ContextError> {
        if source == RuleSource::Policy {
            return Err(ContextError::PolicyIsReadOnly {
                rule: "<all policy rules>".to_owned(),
            });
        }
        self.rules.remove(&source);
        Ok(())
    }

    /// Every rule with this behavior, with its source, policy first.
    pub fn rules_with(
        &self,
        behavior: RuleBehavior,
    ) -> impl Iterator<Item = (RuleSource, &PermissionRule)> {
        self.rules.iter().flat_map(move |(source, set)| {
            let list = match behavior {
                RuleBehavior::Allow => &set.allow,
                RuleBehavior::Deny => &set.deny,
                RuleBehavior::Ask => &set.ask,
            };
            list.iter().map(move |rule| (*source, rule))
        })
    }

    /// Whether any source holds a rule: a context without one lets the
    /// permission pipeline skip every rule step of a call.
    pub(crate) fn has_rules(&self) -> bool {
        self.rules
            .values()
            .any(|set| !(set.allow.is_empty() && set.deny.is_empty() && set.ask.is_empty()))
    }

    /// The first whole-tool deny rule covering this tool, if any.
    pub fn whole_tool_deny(
        &self,
        name: &str,
        aliases: &[String],
    ) -> Option<(RuleSource, &PermissionRule)> {
        self.rules_with(RuleBehavior::Deny)
            .find(|(_, rule)| rule.is_whole_tool() && rule.targets(name, aliases))
    }

    /// Whether a whole-tool deny rule covers this tool (by name, alias or
    /// server).
    pub fn denies_whole_tool(&self, name: &str, aliases: &[String]) -> bool {
        self.whole_tool_deny(name, aliases).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_rules_are_read_only() {
        let mut cx = PermissionContext::with_policy_rules(["run_command"]).unwrap();
        let err = cx
            .add_rule(RuleSource::Policy, RuleBehavior::Deny, "read_file")
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "policy rules are read-only; `read_file` was not added"
        );
        assert!(cx.clear_source(RuleSource::Policy).is_err());
        assert!(cx.denies_whole_tool("run_command", &[]));
    }

    #[test]
    fn malformed_rules_are_errors_not_broader_rules() {
        let mut cx = PermissionContext::new();
        let err = cx
            .add_rule(RuleSource::User, RuleBehavior::Deny, "run_command(rm")
            .unwrap_err();
        assert!(
            err.to_string().contains("`run_command(rm` at byte 14"),
            "{err}"
        );
        assert!(!cx.denies_whole_tool("run_command", &[]));
    }

    #[test]
    fn content_rules_do_not_remove_whole_tools() {
        let mut cx = PermissionContext::new();
        cx.add_rule(
            RuleSource::Session,
            RuleBehavior::Deny,
            "run_command(rm -rf *)",
        )
        .unwrap();
        assert!(!cx.denies_whole_tool("run_command", &[]));
        cx.add_rule(RuleSource::Session, RuleBehavior::Deny, "cat")
            .unwrap();
        assert_eq!(
            cx.whole_tool_deny("read_file", &["cat".to_owned()])
                .map(|(s, r)| (s, r.to_string())),
            Some((RuleSource::Session, "cat".to_owned()))
        );
    }

    #[test]
    fn modes_remove_tools() {
        let minimal = PoolMode::keep_only("minimal", ["read_file"]);
        assert!(minimal.keeps("read_file") && !minimal.keeps("run_command"));
        let repl = PoolMode::replace("repl", "repl", ["read_file", "run_command"]);
        assert!(repl.keeps("repl") && repl.keeps("grep") && !repl.keeps("read_file"));
        assert!(PoolMode::default().keeps("anything"));
    }
}
