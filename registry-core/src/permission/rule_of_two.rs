//! The Rule of Two across a conversation: the policy's one setting and
//! the reason a person reads (documented on [`RuleOfTwo`]).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::exposure::ExposedBy;
use crate::declare::{Exposure, Exposures};

/// How the Rule of Two is applied: always on; these settings only let a
/// runtime say, tool by tool, that nobody needs to be asked in `bypass`
/// mode.
///
/// The Rule of Two across a conversation: no conversation holds all three
/// of untrusted input, private data and an external effect without a
/// person saying so.
///
/// The policy is Meta's "Agents Rule of Two" (Meta AI, October 2025: an
/// agent session should satisfy at most two of \[A\] processes
/// untrustworthy inputs, \[B\] has access to sensitive systems or private
/// data, \[C\] can change state or communicate externally), itself a
/// generalisation of Simon Willison's "lethal trifecta" (June 2025): an
/// agent that has read private data and has seen an attacker's text can be
/// told by that text to send the data out, with calls every rule allows
/// one at a time. A single call cannot show that; the conversation can.
///
/// # How it is enforced
///
/// Each call brings the [`Exposures`] its tool declares
/// (`#[tool(rule_of_two = [...])]`; unsaid, the strictest reading of its
/// postures, see [`SafetyPosture`](crate::declare::SafetyPosture); an MCP
/// tool's from its hints, believed only from a trusted server). The
/// conversation ([`Session`](crate::session::Session)) records what the
/// calls that were allowed to run brought
/// ([`Session::exposed_by`](crate::session::Session::exposed_by)),
/// in its record, so replicas and programs (code mode's calls are calls of
/// the same executor) weigh against one history.
///
/// A call that brings something and would make the three complete is
/// weighed after every deny (deny rules, the tool's own deny, plan mode)
/// and before every allow (ask rules, hooks, allow rules, grants, the
/// tool's own view, the mode):
///
/// | mode | a call completing the three |
/// |---|---|
/// | `default`, `accept_edits`, `auto`, `plan` (read-only calls) | asks a person, with the reason naming the calls that brought each property |
/// | `dont_ask` | denied (every ask is) |
/// | `bypass` | **denied** ([`RefusedBy::RuleOfTwo`](crate::permission::RefusedBy::RuleOfTwo)), unless the runtime allowed that tool by name ([`RuleOfTwo::allow_unattended`]) |
///
/// Once the three are complete (a person approved), every later call that
/// brings any of them asks again: the conversation still holds what made
/// the combination dangerous. A check and its record are one step under
/// the session's lock, so two calls of one turn cannot each pass on the
/// other's behalf. Without an executor's session (a bare
/// [`PermissionPolicy::authorize`](super::PermissionPolicy::authorize)),
/// only the call's own properties count.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleOfTwo {
    unattended: BTreeSet<String>,
}

impl RuleOfTwo {
    /// The rule with no exception.
    pub fn new() -> Self {
        Self::default()
    }

    /// Lets calls of `tool` (its primary name or an alias) that complete
    /// the three run in `bypass` mode instead of being denied. In every
    /// other mode they still ask: a person is there to say so.
    pub fn allow_unattended(mut self, tool: impl Into<String>) -> Self {
        self.unattended.insert(tool.into());
        self
    }

    /// Whether a runtime allowed `tool` (by any of its names) unattended.
    pub(crate) fn allows_unattended(&self, name: &str, aliases: &[String]) -> bool {
        self.unattended.contains(name) || aliases.iter().any(|a| self.unattended.contains(a))
    }
}

/// The reason a person (or the model, on a refusal) reads: which calls
/// brought which property, and what this call would add.
pub(crate) fn explain(tool: &str, brings: Exposures, earlier: &[ExposedBy]) -> String {
    let mut had = Vec::new();
    let mut adds = Vec::new();
    for exposure in Exposure::ALL {
        let by: Vec<&ExposedBy> = earlier.iter().filter(|e| e.exposure == exposure).collect();
        if by.is_empty() {
            if brings.contains(exposure) {
                adds.push(exposure);
            }
            continue;
        }
        // Grouped by tool, in the order the tools first ran.
        let mut tools: Vec<(&str, Vec<&str>)> = Vec::new();
        for call in by {
            match tools.iter_mut().find(|(tool, _)| *tool == call.tool) {
                Some((_, ids)) => ids.push(&call.call_id),
                None => tools.push((&call.tool, vec![&call.call_id])),
            }
        }
        let mut text = format!("{} (", exposure.acquired_as());
        for (i, (tool, ids)) in tools.iter().enumerate() {
            if i > 0 {
                text.push_str("; ");
            }
            let calls = if ids.len() == 1 { "call" } else { "calls" };
            let ids: Vec<String> = ids.iter().map(|id| format!("`{id}`")).collect();
            let _ = write!(text, "`{tool}` {calls} {}", ids.join(", "));
        }
        text.push(')');
        had.push(text);
    }
    let mut reason = format!(
        "this call of `{tool}` would complete the Rule of Two (untrusted input, private data and an external effect in one conversation let injected text send the data out, so a person must approve): "
    );
    if !had.is_empty() {
        let _ = write!(reason, "the conversation has {}, and ", and_list(&had));
    }
    let adds: Vec<String> = adds.iter().map(|e| e.brought_as().to_owned()).collect();
    let _ = write!(reason, "this call {}", and_list(&adds));
    reason
}

fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by(exposure: Exposure, tool: &str, id: &str) -> ExposedBy {
        ExposedBy {
            exposure,
            tool: tool.into(),
            call_id: id.into(),
        }
    }

    #[test]
    fn the_reason_names_every_call_that_brought_a_property() {
        let reason = explain(
            "send_mail",
            Exposures::NONE.with(Exposure::ExternalEffect),
            &[
                by(Exposure::UntrustedInput, "web_fetch", "c1"),
                by(Exposure::PrivateData, "read_file", "c2"),
                by(Exposure::PrivateData, "grep", "c3"),
                by(Exposure::PrivateData, "read_file", "c4"),
            ],
        );
        assert!(
            reason.starts_with("this call of `send_mail` would complete the Rule of Two ("),
            "{reason}"
        );
        assert!(reason.ends_with(
            "): the conversation has processed untrusted input (`web_fetch` call `c1`) and accessed private data (`read_file` calls `c2`, `c4`; `grep` call `c3`), and this call would have an external effect"
        ), "{reason}");
        let alone = explain("mcp__x__do", Exposures::ALL, &[]);
        assert!(alone.ends_with("): this call would bring untrusted input, would access private data and would have an external effect"), "{alone}");
    }

    #[test]
    fn unattended_tools_are_named_by_name_or_alias() {
        let rule = RuleOfTwo::new().allow_unattended("deploy");
        assert!(rule.allows_unattended("deploy", &[]));
        assert!(rule.allows_unattended("ship", &["deploy".into()]));
        assert!(!rule.allows_unattended("deploy_all", &[]));
    }
}
