//! Every permission rule writes out as text that reads back as the same
//! rule: what a settings file or a log holds is what was meant.

use crate::permission::PermissionRule;
use crate::permission::rule::RuleTarget;
use proptest::prelude::*;

/// Names a tool can have, and the MCP forms, with edge-case characters.
fn tool_name() -> impl Strategy<Value = String> {
    let part = "[a-zA-Z0-9_-]{1,10}";
    prop_oneof![
        part.prop_map(|p| p),
        (part, part).prop_map(|(s, t)| format!("mcp__{s}__{t}")),
        part.prop_map(|s| format!("mcp__{s}")),
        part.prop_map(|s| format!("mcp__{s}__*")),
        part.prop_map(|s| format!("mcp_{s}")),
        // Anything at all, to see the constructors refuse what cannot be
        // written as a rule.
        any::<String>(),
    ]
}

/// Contents heavy in what needs escaping.
fn content() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just('('),
            Just(')'),
            Just('\\'),
            Just('*'),
            Just(' '),
            Just('_'),
            any::<char>(),
        ],
        0..16,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

/// Rule-shaped text: names, parentheses, escapes and stray characters.
fn rule_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("mcp__".to_owned()),
            Just("__".to_owned()),
            Just("*".to_owned()),
            Just("(".to_owned()),
            Just(")".to_owned()),
            Just("\\".to_owned()),
            Just("\\(".to_owned()),
            Just("\\)".to_owned()),
            Just("\\\\".to_owned()),
            "[a-z_-]{1,4}",
            any::<char>().prop_map(String::from),
        ],
        0..12,
    )
    .prop_map(|parts| parts.concat())
}

fn round_trips(rule: &PermissionRule) -> Result<(), TestCaseError> {
    let text = rule.to_string();
    let parsed: PermissionRule = text
        .parse()
        .map_err(|err| TestCaseError::fail(format!("`{text}` does not parse: {err}")))?;
    prop_assert_eq!(&parsed, rule, "`{}` reads back differently", text);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn constructed_rules_round_trip(name in tool_name(), content in content()) {
        for rule in [
            PermissionRule::tool(name.clone()),
            PermissionRule::with_content(name.clone(), content.clone()),
            PermissionRule::mcp_server(name.clone()),
        ]
        .into_iter()
        .flatten()
        {
            round_trips(&rule)?;
        }
    }

    #[test]
    fn ordinary_names_are_always_accepted(
        name in "[a-zA-Z0-9_-]{1,20}".prop_filter("not an MCP name", |n| !n.starts_with("mcp__")),
        content in content(),
    ) {
        prop_assert!(PermissionRule::tool(name.clone()).is_ok());
        let rule = PermissionRule::with_content(name.clone(), content.clone());
        prop_assert!(rule.is_ok(), "{:?}", rule);
        let rule = rule.unwrap();
        prop_assert_eq!(rule.target(), &RuleTarget::Tool(name));
        let whole = content.is_empty() || content == "*";
        prop_assert_eq!(rule.content(), (!whole).then_some(content.as_str()));
    }

    #[test]
    fn parsed_rules_round_trip(text in rule_text()) {
        if let Ok(rule) = text.parse::<PermissionRule>() {
            round_trips(&rule)?;
        }
    }
}
