//! A refused change to a permission context.

use crate::text::capped;

/// A change to a [`PermissionContext`](crate::permission::PermissionContext) that was
/// refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContextError {
    /// The rule string is malformed.
    #[error(transparent)]
    Rule(#[from] crate::permission::RuleError),
    /// A rule failed one of its examples
    /// ([`PermissionContext::add_rule_with_examples`](crate::permission::PermissionContext::add_rule_with_examples)).
    #[error("{}", example_failure(.rule, .example, *.should_cover, .why.as_deref()))]
    Example {
        /// The rule.
        rule: String,
        /// The example's content.
        example: String,
        /// Whether the rule was written to cover it.
        should_cover: bool,
        /// Why the rule could not be checked against it, when it could
        /// not.
        why: Option<String>,
    },
    /// Policy rules are set by an administrator, not through the context.
    #[error("policy rules are read-only; `{}` was not added", capped(.rule))]
    PolicyIsReadOnly {
        /// The rule that was refused.
        rule: String,
    },
}

fn example_failure(rule: &str, example: &str, should_cover: bool, why: Option<&str>) -> String {
    let (rule, example) = (capped(rule), capped(example));
    match (should_cover, why) {
        (_, Some(why)) => format!(
            "the rule `{rule}` cannot be checked against its example `{example}`: the example {why}"
        ),
        (true, None) => format!("the rule `{rule}` should cover `{example}`, but does not"),
        (false, None) => format!("the rule `{rule}` should not cover `{example}`, but does"),
    }
}
