//! Content patterns as rules carry them: the three forms, the rule
//! string's escapes, and generated checks that escaping is exact and the
//! wildcard matcher agrees with a naive one.

use proptest::prelude::*;

use crate::permission::pattern::ContentPattern;
use registry_core::{PermissionContent, permission::PermissionRule};

/// The content pattern of a rule string.
fn pattern_of(rule: &str) -> ContentPattern {
    let rule: PermissionRule = rule.parse().expect("rule parses");
    ContentPattern::parse(rule.content().expect("a content rule"))
}

fn command(text: &str) -> PermissionContent {
    PermissionContent::command(text)
}

#[test]
fn the_three_forms() {
    let exact = pattern_of("run_command(npm test)");
    assert!(exact.matches(&command("npm test")));
    assert!(!exact.matches(&command("npm test --watch")));
    // Rules read the words the shell hands the program: blanks and quotes
    // are not part of them.
    assert!(exact.matches(&command("npm  test")));
    assert!(exact.allows(&command("npm  test")));
    assert!(exact.allows(&command("'npm' \"test\"")));
    // A program of another name is not allowed by it...
    assert!(!exact.allows(&command("./npm test")));
    // ...but is denied by it, by the name the shell looks up.
    assert!(exact.matches(&command("/usr/bin/npm test")));

    let prefix = pattern_of("run_command(npm run:*)");
    assert!(prefix.matches(&command("npm run build")));
    assert!(prefix.matches(&command("npm run")));
    assert!(!prefix.matches(&command("npm running")));

    let glob = pattern_of("run_command(git * --force)");
    assert!(glob.matches(&command("git push origin --force")));
    assert!(!glob.matches(&command("git push origin")));

    // `:*` in the middle is not a prefix form: `*` there is a wildcard.
    let middle = pattern_of("web_fetch(https://*:*/x)");
    assert!(middle.matches(&PermissionContent::text("https://host:8080/x")));
}

#[test]
fn rule_escapes_reach_the_pattern() {
    // `\(` and `\)` are the rule string's; the pattern sees parentheses.
    let parens = pattern_of(r"run_command(echo \(hi\))");
    assert!(parens.matches(&command("echo '(hi)'")));
    // `\\*` in a rule string is `\*` in the pattern: a literal star.
    let star = pattern_of(r"run_command(rm \\*.tmp)");
    assert!(star.matches(&command("rm *.tmp")));
    assert!(!star.matches(&command("rm a.tmp")));
    // `\\\\` in a rule string is `\\` in the pattern: one backslash.
    let backslash = pattern_of(r"run_command(printf a\\\\nb)");
    assert!(backslash.matches(&command(r"printf a\nb")));
    // A backslash before anything else is itself.
    let other = pattern_of(r"run_command(printf a\\nb)");
    assert!(other.matches(&command(r"printf a\nb")));
}

#[test]
fn path_rules_match_however_the_path_is_spelt() {
    let env = pattern_of("write_file(.env)");
    for spelling in [".env", "./.env", "src/../.env", ".//.env"] {
        assert!(
            env.matches(&PermissionContent::path(spelling)),
            "{spelling}"
        );
    }
    assert!(!env.matches(&PermissionContent::path("src/.env")));
    let tests = pattern_of("edit_file(tests/*.rs)");
    assert!(tests.matches(&PermissionContent::path("tests/ui/a.rs")));
    assert!(!tests.matches(&PermissionContent::path("tests/a.txt")));
}

/// A naive, exponential wildcard matcher to check the real one against.
fn naive(pattern: &[char], text: &[char]) -> bool {
    match pattern.split_first() {
        None => text.is_empty(),
        Some(('*', rest)) => (0..=text.len()).any(|skip| naive(rest, &text[skip..])),
        Some((c, rest)) => text.first() == Some(c) && naive(rest, &text[1..]),
    }
}

proptest! {
    #[test]
    fn escaped_text_matches_exactly_itself(
        text in "[a-c*:\\\\() ]{0,12}",
        other in "[a-c*:\\\\() ]{0,12}",
    ) {
        let exact = ContentPattern::parse(&ContentPattern::escape(&text));
        prop_assert!(exact.matches(&PermissionContent::text(text.clone())));
        prop_assert!(exact.allows(&PermissionContent::command(text.clone())));
        prop_assert_eq!(exact.matches(&PermissionContent::text(other.clone())), other == text);
        // And as a rule written to settings and read back.
        let rule = PermissionRule::with_content("run", ContentPattern::escape(&text)).unwrap();
        let read_back: PermissionRule = rule.to_string().parse().unwrap();
        match read_back.content() {
            Some(content) => prop_assert!(
                ContentPattern::parse(content).matches(&PermissionContent::text(text.clone()))
            ),
            // `run()` is the whole tool.
            None => prop_assert!(text.is_empty()),
        }
    }

    #[test]
    fn wildcards_agree_with_a_naive_matcher(pattern in "[ab*]{0,8}", text in "[ab]{0,10}") {
        let chars: Vec<char> = pattern.chars().collect();
        let text_chars: Vec<char> = text.chars().collect();
        prop_assert_eq!(
            ContentPattern::parse(&pattern).matches(&PermissionContent::text(text.clone())),
            naive(&chars, &text_chars)
        );
    }
}
