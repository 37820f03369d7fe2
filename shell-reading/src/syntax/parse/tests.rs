use super::*;
use crate::syntax::ast::Command;

fn programs(text: &str) -> Vec<String> {
    let script = parse(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    let mut out = Vec::new();
    for item in &script.items {
        for pipeline in item.and_or.pipelines() {
            for command in &pipeline.commands {
                if let Command::Simple(simple) = command {
                    out.push(
                        simple
                            .words
                            .first()
                            .map(|w| w.text.clone())
                            .unwrap_or_default(),
                    );
                }
            }
        }
    }
    out
}

#[test]
fn commands_split_on_every_operator() {
    assert_eq!(
        programs("a | b && c || d; e & f\ng"),
        ["a", "b", "c", "d", "e", "f", "g"]
    );
    assert_eq!(programs("a &&\n\n b"), ["a", "b"]);
    assert_eq!(programs("\n a;\n"), ["a"]);
}

#[test]
fn quotes_and_escapes_are_removed() {
    let script = parse(r#"'rm' \rm r"m" "a b"c r''m"#).unwrap();
    let Command::Simple(simple) = &script.items[0].and_or.first.commands[0] else {
        panic!()
    };
    let words: Vec<&str> = simple.words.iter().map(|w| w.text.as_str()).collect();
    assert_eq!(words, ["rm", "rm", "rm", "a bc", "rm"]);
    assert!(simple.words.iter().all(|w| !w.dynamic));
}

#[test]
fn leading_redirections_and_assignments_are_not_the_program() {
    let script = parse("2>/dev/null X=1 rm>x -f f").unwrap();
    let Command::Simple(simple) = &script.items[0].and_or.first.commands[0] else {
        panic!()
    };
    assert_eq!(simple.assignments.len(), 1);
    let words: Vec<&str> = simple.words.iter().map(|w| w.text.as_str()).collect();
    assert_eq!(words, ["rm", "-f", "f"]);
    assert_eq!(simple.redirects.len(), 2);
    assert_eq!(simple.redirects[0].fd, Some(2));
}

#[test]
fn compound_commands_hold_their_commands() {
    for text in [
        "if true; then rm x; fi",
        "{ rm x; }",
        "(rm x)",
        "for f in a b; do rm $f; done",
        "while :; do rm x; done",
        "until false\ndo rm x\ndone",
        "case x in x) rm x;; *) ls;; esac",
        "case x in (x|y) rm x;; esac",
        "f() { rm x; }",
        "function f { rm x; }",
        "[[ -f $(rm x) ]]",
        "((rm x))",
        "echo $(rm x)",
        "echo `rm x`",
        "echo \"$(rm x)\"",
        "echo ${y:-$(rm x)}",
        "echo $((1 + $(rm x)))",
        "cat <(rm x)",
        "cat <<E\n$(rm x)\nE",
        "cat <<-E\n\t`rm x`\n\tE",
        "echo \"`rm x`\"",
        "if a; then b; elif c; then rm x; else d; fi",
    ] {
        let found = format!(
            "{:?}",
            parse(text).unwrap_or_else(|e| panic!("{text:?}: {e}"))
        );
        assert!(found.contains("text: \"rm\""), "{text:?}: {found}");
    }
}

#[test]
fn quoted_heredocs_are_not_expanded() {
    let script = parse("cat <<'E'\n$(rm x)\nE\nls").unwrap();
    assert_eq!(script.heredocs.len(), 1);
    assert!(script.heredocs[0].substitutions.is_empty());
    assert_eq!(script.heredocs[0].text, "$(rm x)\n");
    assert_eq!(programs("cat <<'E'\n$(rm x)\nE\nls"), ["cat", "ls"]);
}

#[test]
fn evaluation_is_noticed() {
    let evaluates = |text: &str| format!("{:?}", parse(text).unwrap()).contains("evaluates: true");
    for text in [
        "echo $((x))",
        "echo $((1 + $y))",
        "echo ${s:x}",
        "echo ${a[i]}",
        "echo ${x@P}",
        "echo ${!x}",
        "[[ $x -eq 1 ]]",
    ] {
        assert!(evaluates(text), "{text}");
    }
    for text in [
        "echo $((1 + 2))",
        "echo ${x:-y}",
        "echo ${#x}",
        "[[ $x == y ]]",
    ] {
        assert!(!evaluates(text), "{text}");
    }
}

#[test]
fn errors_and_readings_that_differ_are_unreadable() {
    for text in [
        "; ls",
        "ls ;; rm",
        "ls &&",
        "ls |",
        "| ls",
        "ls && && rm",
        "'open",
        "\"open",
        "ls \\",
        "echo $(ls",
        "echo `ls",
        "cat <<EOF\nno end",
        "if true; then ls",
        "{ ls; ",
        "( ls",
        "ls )",
        "fi",
        "X+=1 ls",
        "a[0]=1 ls",
        "{fd}>x ls",
        "for ((i=0;;)); do ls; done",
        "ls ( x )",
        "()",
        "{ }",
        "echo $((1)",
    ] {
        assert!(parse(text).is_err(), "{text:?} parsed");
    }
    // A reserved word is only reserved where a command starts.
    assert_eq!(programs("echo if then"), ["echo"]);
    assert_eq!(programs("'if' x"), ["if"]);
    assert_eq!(programs("X=1 ls"), ["ls"]);
}

#[test]
fn nesting_is_bounded_without_overflow() {
    for open in ["(", "$(", "{ ", "if a; then "] {
        let deep = open.repeat(100_000);
        assert!(parse(&deep).is_err());
    }
    let deep = format!(
        "{}ls{}",
        "(".repeat(MAX_DEPTH / 2),
        ")".repeat(MAX_DEPTH / 2)
    );
    assert!(parse(&deep).is_ok());
    let too_deep = format!(
        "{}ls{}",
        "(".repeat(MAX_DEPTH + 1),
        ")".repeat(MAX_DEPTH + 1)
    );
    assert!(parse(&too_deep).is_err());
}

/// The parser against the real shells: for generated text that parses
/// into one simple command of static words, `sh` and `bash` must split it
/// into the same words (quote removal, escapes, line continuations,
/// comments, glued operators). Each case is appended to `printf '%s\0'`,
/// a builtin, so nothing but printing runs.
#[test]
fn words_match_the_shells() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};

    const PIECES: &[&str] = &[
        "a", "b", "rm", "-", "--x", "=", "A=", "'", "\"", "\\", "\\\n", " ", " ", " ", "\t", "#",
        "$", "~", "'a b'", "\"a b\"", "\"\\$\"", "\"\\\\\"", "\"\\a\"", "\\ ", "\\'", "\\\"", "\r",
        ";", "|", "&&", "2", ">", "<", "!", "{", "}", "é",
    ];
    let text = prop::collection::vec(prop::sample::select(PIECES), 1..12)
        .prop_map(|pieces| pieces.concat());
    let compared = std::cell::Cell::new(0);
    let mut runner = TestRunner::new(Config {
        cases: 2000,
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        ..Config::default()
    });
    runner
        .run(&text, |text| {
            let Ok(script) = parse(&format!("printf '%s\\0' {text}")) else {
                return Ok(());
            };
            let [item] = script.items.as_slice() else {
                return Ok(());
            };
            if item.background || !item.and_or.rest.is_empty() {
                return Ok(());
            }
            let [Command::Simple(simple)] = item.and_or.first.commands.as_slice() else {
                return Ok(());
            };
            if !simple.redirects.is_empty() || simple.words.iter().any(|w| w.dynamic) {
                return Ok(());
            }
            let ours: Vec<&str> = simple.words[2..].iter().map(|w| w.text.as_str()).collect();
            for shell in ["sh", "bash"] {
                let output = std::process::Command::new(shell)
                    .arg("-c")
                    .arg(format!("printf '%s\\0' {text}"))
                    .stdin(std::process::Stdio::null())
                    .output()
                    .expect("the shell runs");
                prop_assert!(output.status.success(), "{text:?}: {shell} failed");
                let stdout = output.stdout.strip_suffix(&[0]).unwrap_or(&output.stdout);
                let theirs: Vec<String> = stdout
                    .split(|b| *b == 0)
                    .map(|w| String::from_utf8_lossy(w).into_owned())
                    .collect();
                let theirs: Vec<&str> = theirs.iter().map(String::as_str).collect();
                if ours.is_empty() {
                    // `printf` with no arguments prints one empty word.
                    prop_assert_eq!(&theirs[..], &[""][..], "{} {:?}", shell, text);
                } else {
                    prop_assert_eq!(&ours[..], &theirs[..], "{} {:?}", shell, text);
                }
            }
            compared.set(compared.get() + 1);
            Ok(())
        })
        .unwrap_or_else(|err| panic!("{err}"));
    assert!(
        compared.get() >= 200,
        "only {} cases compared",
        compared.get()
    );
}
