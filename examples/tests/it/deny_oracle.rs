//! The deny oracle: spellings of one denied program, by class, each run
//! through the executor with the real `run_command` in every permission
//! mode, under the real `sh` (dash) and `bash`, in a fresh directory
//! holding `victim.txt`. With the rule `run_command(rm:*)` the victim must
//! survive every one of them in every mode; in `bypass` each must be
//! refused by the deny rule itself.
//!
//! So that the table tests something, each case is also run once with no
//! rule at all in `bypass`, under both shells: it must delete the victim
//! under at least one of them (a spelling no shell runs as `rm` proves
//! nothing).
//!
//! A property test then composes spellings from the same classes
//! (program spellings, wrappers, leading redirections and assignments,
//! containers, separators) and asserts the same of each.

use std::path::Path;
use std::sync::Arc;

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};
use registry_core::permission::RuleOfTwo;
use registry_core::{
    Flags, PermissionContext, PermissionMode, ToolCall, ToolRegistry,
    catalog::BaseTools,
    permission::{RuleBehavior, RuleSource},
};
use registry_examples::Sandbox;
use registry_examples::tools::run_command::Shell;
use serde_json::json;

/// (class, command): every command deletes `victim.txt` when a shell runs
/// it as written.
const CASES: &[(&str, &str)] = &[
    // Quoting and escapes: quote removal gives `rm`.
    ("quoting", "'rm' -f victim.txt"),
    ("quoting", "\"rm\" -f victim.txt"),
    ("quoting", "r''m -f victim.txt"),
    ("quoting", "\\rm -f victim.txt"),
    ("quoting", "r\\m -f victim.txt"),
    ("quoting", "r\"m\" -f victim.txt"),
    ("quoting", "r\\\nm -f victim.txt"),
    ("quoting", "rm \\\n-f victim.txt"),
    ("quoting", "$'rm' -f victim.txt"),
    // A program named by its path.
    ("program path", "/bin/rm -f victim.txt"),
    ("program path", "/usr/bin/rm -f victim.txt"),
    ("program path", "/usr/bin/../bin/rm -f victim.txt"),
    ("program path", "//bin//rm -f victim.txt"),
    ("program path", "'/bin/rm' -f victim.txt"),
    // Wrappers that run the program named in their arguments.
    ("wrapper", "nice rm -f victim.txt"),
    ("wrapper", "nice -n 5 rm -f victim.txt"),
    ("wrapper", "nohup rm -f victim.txt"),
    ("wrapper", "timeout 5 rm -f victim.txt"),
    ("wrapper", "timeout -s KILL 5 rm -f victim.txt"),
    ("wrapper", "env rm -f victim.txt"),
    ("wrapper", "env -i FOO=1 rm -f victim.txt"),
    ("wrapper", "env -S 'rm -f victim.txt'"),
    ("wrapper", "command rm -f victim.txt"),
    ("wrapper", "command -p rm -f victim.txt"),
    ("wrapper", "exec rm -f victim.txt"),
    ("wrapper", "stdbuf -oL rm -f victim.txt"),
    ("wrapper", "setsid -w rm -f victim.txt"),
    ("wrapper", "nice nohup env timeout 9 rm -f victim.txt"),
    ("wrapper", "echo victim.txt | xargs rm -f"),
    ("wrapper", "xargs -I{} rm -f {} <<< victim.txt"),
    ("wrapper", "find . -name victim.txt -exec rm -f {} +"),
    (
        "wrapper",
        "find . -name victim.txt -exec sh -c 'rm -f \"$1\"' _ {} \\;",
    ),
    ("wrapper", "coproc rm -f victim.txt; wait"),
    // Redirections and assignments before the program.
    ("leading redirection", "2>/dev/null rm -f victim.txt"),
    ("leading redirection", ">/dev/null rm -f victim.txt"),
    ("leading redirection", "</dev/null rm -f victim.txt"),
    ("leading redirection", "rm>/dev/null -f victim.txt"),
    ("leading redirection", "X=1 rm -f victim.txt"),
    ("leading redirection", "2>&1 X=1 rm -f victim.txt"),
    // A program chosen through a variable or a substitution.
    ("indirection", "c=rm; $c -f victim.txt"),
    ("indirection", "c=rm; \"$c\" -f victim.txt"),
    ("indirection", "${c:-rm} -f victim.txt"),
    ("indirection", "c=r; ${c}m -f victim.txt"),
    ("indirection", "set -- rm; \"$@\" -f victim.txt"),
    ("indirection", "a=rm b=-f; $a $b victim.txt"),
    ("indirection", "$(echo rm) -f victim.txt"),
    ("indirection", "`echo rm` -f victim.txt"),
    ("indirection", "/bin/r? -f victim.txt"),
    ("indirection", "/bin/r[m] -f victim.txt"),
    ("indirection", "/*/rm -f victim.txt"),
    // A command run to expand a word.
    ("substitution", "echo $(rm -f victim.txt)"),
    ("substitution", "x=$(rm -f victim.txt)"),
    ("substitution", ": \"`rm -f victim.txt`\""),
    ("substitution", "cat <<E\n$(rm -f victim.txt)\nE"),
    ("substitution", "echo ${x:-$(rm -f victim.txt)}"),
    ("substitution", "cat <(rm -f victim.txt)"),
    // Text fed to a shell or an evaluator.
    ("shell input", "echo rm -f victim.txt | sh"),
    ("shell input", "echo 'rm -f victim.txt' | bash"),
    ("shell input", "sh -c 'rm -f victim.txt'"),
    ("shell input", "bash -c \"rm -f victim.txt\""),
    ("shell input", "sh -c 'sh -c \"rm -f victim.txt\"'"),
    ("shell input", "sh <<< 'rm -f victim.txt'"),
    ("shell input", "eval 'rm -f victim.txt'"),
    ("shell input", "eval \"r\"\"m -f victim.txt\""),
    ("shell input", "x='rm -f victim.txt'; eval \"$x\""),
    ("shell input", "x='rm -f victim.txt'; sh -c \"$x\""),
    ("shell input", "echo 'rm -f victim.txt' > s.sh; sh s.sh"),
    ("shell input", "echo 'rm -f victim.txt' > s.sh; . ./s.sh"),
    ("shell input", "trap 'rm -f victim.txt' EXIT"),
    ("shell input", "git -c alias.x='!rm -f victim.txt' x"),
    // Function and alias bodies.
    ("function", "f() { rm -f victim.txt; }; f"),
    ("function", "f() (rm -f victim.txt); f"),
    ("function", "function f { rm -f victim.txt; }; f"),
    ("function", "ls() { rm -f victim.txt; }; ls"),
    ("function", "alias ls='rm -f victim.txt'\nls"),
    ("function", "x='a[$(rm -f victim.txt)]'; echo $((x))"),
    ("function", "x='a[$(rm -f victim.txt)]'; [[ $x -eq 1 ]]"),
    // Compound commands.
    ("compound", "if true; then rm -f victim.txt; fi"),
    ("compound", "{ rm -f victim.txt; }"),
    ("compound", "(rm -f victim.txt)"),
    ("compound", "while :; do rm -f victim.txt; break; done"),
    ("compound", "for x in 1; do rm -f victim.txt; done"),
    ("compound", "case a in a) rm -f victim.txt;; esac"),
    ("compound", "! rm -f victim.txt"),
    // Separators, pipes and newlines.
    ("separator", "ls\nrm -f victim.txt"),
    ("separator", "ls;rm -f victim.txt"),
    ("separator", "true&&rm -f victim.txt"),
    ("separator", "false||rm -f victim.txt"),
    ("separator", "ls|rm -f victim.txt"),
    ("separator", "rm -f victim.txt & wait"),
    ("separator", "ls # comment\nrm -f victim.txt"),
    ("separator", "ls\r\nrm -f victim.txt"),
    // Where sh and bash read the text differently (found by red-teaming
    // the first reader).
    ("shells disagree", "echo x &>/dev/null rm -f victim.txt"),
    ("shells disagree", "[[ a | rm -f victim.txt ]]"),
    ("shells disagree", "[[ a || rm -f victim.txt ]]"),
    ("shells disagree", "echo ${x:-{}; rm -f victim.txt; echo }"),
    ("shells disagree", "echo $'\\'\nrm -f victim.txt\necho '"),
    (
        "shells disagree",
        "echo ${x:-$'\\'}'}\nrm -f victim.txt\necho '",
    ),
    ("shells disagree", "cat <<$x\n$(rm -f victim.txt)\n$x"),
    ("shells disagree", "cat <<E$\n$(rm -f victim.txt)\nE$"),
    ("shells disagree", "cat <<$'E'\n$E\nrm -f victim.txt\nE"),
    (
        "shells disagree",
        "cat <<EOF\nEO\\\nF\nrm -f victim.txt\nEOF",
    ),
    (
        "shells disagree",
        "echo $(cat <<E\nE)\nrm -f victim.txt\nE\n)",
    ),
    ("shells disagree", "time ! rm -f victim.txt"),
    ("shells disagree", "! time -p ! rm -f victim.txt"),
    // Wrappers read wrongly.
    ("wrapper", "eval -- 'rm -f victim.txt'"),
    ("wrapper", "trap -- '-:; rm -f victim.txt' EXIT"),
    ("wrapper", "x='5 rm'; timeout -- $x victim.txt"),
    ("wrapper", "timeout -- {5,rm} victim.txt"),
    ("wrapper", "echo rm -f victim.txt | xargs env"),
    ("wrapper", "echo rm -f victim.txt | xargs nice"),
    ("wrapper", "echo rm -f victim.txt | xargs timeout 5"),
    ("wrapper", "echo rm | xargs -I% env % -f victim.txt"),
    ("wrapper", "find /usr/bin/rm -exec '{}' -f victim.txt ';'"),
    (
        "wrapper",
        "find /usr/bin/rm -exec nice '{}' -f victim.txt ';'",
    ),
    // Variables and start-up files that run commands.
    (
        "start-up",
        "echo 'rm -f victim.txt' > e; BASH_ENV=e bash -c :",
    ),
    (
        "start-up",
        "echo 'rm -f victim.txt' > e; export BASH_ENV=e; bash -c :",
    ),
    (
        "start-up",
        "env 'BASH_FUNC_ls%%=() { rm -f victim.txt; }' bash -c ls",
    ),
    (
        "start-up",
        "echo 'rm -f victim.txt' > e; bash --rcfile e -ic :",
    ),
    ("start-up", "echo 'rm -f victim.txt' > e; ENV=e sh -ic :"),
    ("start-up", "PS4='$(rm -f victim.txt)'; set -x; :"),
    // bash evaluating text as code.
    ("evaluation", "printf -v 'a[$(rm -f victim.txt)]' x"),
    ("evaluation", "declare 'a[$(rm -f victim.txt)]=1'"),
    ("evaluation", "test -v 'a[$(rm -f victim.txt)]'"),
    ("evaluation", "read 'a[$(rm -f victim.txt)]' <<< x"),
    ("evaluation", "x='a[$(rm -f victim.txt)]'; let x"),
    ("evaluation", "x='a[$(rm -f victim.txt)]'; echo $[x]"),
    ("evaluation", "x='a[$(rm -f victim.txt)]'; [[ x -eq 1 ]]"),
    ("evaluation", "declare -i n; n='a[$(rm -f victim.txt)]'"),
    ("evaluation", "mapfile -C 'rm -f victim.txt #' -c 1 <<< x"),
    ("evaluation", "compgen -C 'rm -f victim.txt' x"),
    ("evaluation", "jobs -x rm -f victim.txt"),
    (
        "evaluation",
        "declare 'BASH_CMDS[ls]=/bin/rm'; ls -f victim.txt",
    ),
    (
        "evaluation",
        "shopt -s expand_aliases\nprintf -v 'BASH_ALIASES[x]' 'rm -f victim.txt'\nx",
    ),
    // Programs that run the command in their arguments or options.
    ("runner", "setarch x86_64 rm -f victim.txt"),
    (
        "runner",
        "/lib64/ld-linux-x86-64.so.2 /bin/rm -f victim.txt",
    ),
    ("runner", "script -qc 'rm -f victim.txt' /dev/null"),
    ("runner", "rbash -c 'rm -f victim.txt'"),
    ("runner", "ssh-agent rm -f victim.txt"),
    ("runner", "logsave log rm -f victim.txt"),
    ("runner", "choom -n 0 -- rm -f victim.txt"),
    ("runner", "echo x | split --filter='rm -f victim.txt'"),
    (
        "runner",
        "tar cf x.tar --checkpoint=1 --checkpoint-action=exec='rm -f victim.txt' victim.txt",
    ),
    ("runner", "echo x | sed 'e rm -f victim.txt'"),
    (
        "runner",
        "make --eval='$(shell rm -f victim.txt)' -f /dev/null",
    ),
    // git running what a command line configures or writes.
    (
        "git",
        "git init -q; git config core.fsmonitor 'rm -f victim.txt'; git status",
    ),
    (
        "git",
        "git init -q && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m x && git rebase -q -x 'rm -f victim.txt' --root",
    ),
    ("git", "git init -q; git grep --no-index -O'rm -f' v"),
    ("git", "git ls-remote --upload-pack='rm -f victim.txt;' ."),
    (
        "git",
        "touch a; git difftool -y --no-index -x 'rm -f' a victim.txt",
    ),
    (
        "git",
        "git init -q; printf '#!/bin/sh\\nrm -f victim.txt\\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; git -c user.name=a -c user.email=a@b commit -q --allow-empty -m x",
    ),
    // rm under another name: a file nobody read.
    ("other name", "echo 'rm -f victim.txt' > s; chmod +x s; ./s"),
    ("other name", "cp /bin/rm x; ./x -f victim.txt"),
    ("other name", "ln -s /bin/rm del; ./del -f victim.txt"),
    (
        "other name",
        "cp /bin/rm /tmp/deny-oracle-x-$$; /tmp/deny-oracle-x-$$ -f victim.txt",
    ),
];

const MODES: [PermissionMode; 6] = PermissionMode::ALL;

const SHELLS: [Shell; 2] = [Shell::Sh, Shell::Bash];

fn registry() -> Arc<ToolRegistry> {
    Arc::new(ToolRegistry::new(
        BaseTools::linked(&Flags::new()).expect("catalog"),
    ))
}

fn deny_rm() -> PermissionContext {
    let mut cx = PermissionContext::new();
    cx.add_rule(RuleSource::Project, RuleBehavior::Deny, "run_command(rm:*)")
        .expect("rule");
    cx
}

/// Runs `command` as one `run_command` call in a fresh directory; whether
/// the victim survived, and the call's result text.
async fn run(
    registry: &Arc<ToolRegistry>,
    rules: &PermissionContext,
    mode: PermissionMode,
    shell: Shell,
    command: &str,
) -> (bool, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("victim.txt"), "v").expect("victim");
    let _pool = registry.assemble_tool_pool(rules);
    let mut context = Sandbox::new(dir.path())
        .expect("sandbox")
        .context()
        .with(shell);
    // Without a rule this is the baseline that shows the spelling really
    // deletes: no guard may stand in its way (the guards have their own
    // oracle, `enforcement_oracle.rs`).
    if rules.rules_with(RuleBehavior::Deny).next().is_none() {
        context = context.with(registry_sandbox::GuardsOff);
    }
    let executor = Arc::clone(registry)
        .executor()
        .permissions(rules.clone())
        .mode(mode)
        // A runtime that runs a shell in bypass mode names it unattended.
        .rule_of_two(RuleOfTwo::new().allow_unattended("run_command"))
        .context(context)
        .build();
    let call = ToolCall::new(
        "call-1",
        "run_command",
        json!({ "command": command, "timeout_secs": 5 }),
    );
    let results = executor.run_turn(vec![call]).await;
    let text = results[0].content().to_owned();
    (victim(dir.path()), text)
}

fn victim(dir: &Path) -> bool {
    dir.join("victim.txt").exists()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

#[test]
fn every_spelling_of_a_denied_program_is_denied_in_every_mode() {
    let runtime = runtime();
    let registry = registry();
    let rules = deny_rm();
    let none = PermissionContext::new();
    let mut failures = Vec::new();
    let mut classes: std::collections::BTreeMap<&str, usize> = Default::default();
    for &(class, command) in CASES {
        *classes.entry(class).or_default() += 1;
        // The case is a spelling of `rm` for at least one shell.
        let effective: Vec<Shell> = SHELLS
            .into_iter()
            .filter(|&shell| {
                !runtime
                    .block_on(run(
                        &registry,
                        &none,
                        PermissionMode::Bypass,
                        shell,
                        command,
                    ))
                    .0
            })
            .collect();
        if effective.is_empty() {
            failures.push(format!(
                "[{class}] {command:?} deletes nothing in sh or bash: not a test"
            ));
        }
        for mode in MODES {
            for shell in SHELLS {
                let (alive, text) = runtime.block_on(run(&registry, &rules, mode, shell, command));
                if !alive {
                    failures.push(format!(
                        "[{class}] {command:?} ran in {mode} under {shell:?}: {text}"
                    ));
                } else if mode == PermissionMode::Bypass && !text.contains("deny rule") {
                    failures.push(format!(
                        "[{class}] {command:?} in bypass was not refused by the deny rule: {text}"
                    ));
                }
            }
        }
    }
    eprintln!("deny oracle, cases per class: {classes:?}");
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// How the program is spelt.
const PROGRAMS: &[&str] = &[
    "rm",
    "'rm'",
    "\"rm\"",
    "\\rm",
    "r''m",
    "r\\\nm",
    "/bin/rm",
    "/usr/bin/rm",
    "$c",
    "\"$c\"",
    "${c}",
    "$(echo rm)",
    "`echo rm`",
    "/bin/r?",
];

/// Wrappers in front of it (several may stack).
const WRAPPERS: &[&str] = &[
    "nice ",
    "nice -n 3 ",
    "nohup ",
    "timeout 5 ",
    "env ",
    "env -i ",
    "env A=1 ",
    "command ",
    "exec ",
    "stdbuf -o0 ",
    "xargs -a /dev/null -r ",
];

/// What comes before the program in its own command.
const PREFIXES: &[&str] = &["", "2>/dev/null ", "X=1 ", "</dev/null ", ">/dev/null "];

/// Where the command sits (`@` is the command).
const CONTAINERS: &[&str] = &[
    "@",
    "ls; @",
    "ls\n@",
    "true && @",
    "false || @",
    "ls | @",
    "{ @; }",
    "(@)",
    "if true; then @; fi",
    "f() { @; }; f",
    "echo $(@)",
    "sh -c '@'",
    "eval '@'",
    "echo '@' | sh",
    "case x in x) @;; esac",
];

fn spelling() -> impl Strategy<Value = String> {
    (
        prop::sample::select(CONTAINERS),
        prop::sample::select(PREFIXES),
        prop::collection::vec(prop::sample::select(WRAPPERS), 0..3),
        prop::sample::select(PROGRAMS),
    )
        .prop_map(|(container, prefix, wrappers, program)| {
            let command = format!("{prefix}{}{program} -f victim.txt", wrappers.concat());
            // Quotes inside a single-quoted container would end it: such a
            // spelling goes in as is.
            let body = if container.contains('\'') && command.contains('\'') {
                command
            } else {
                container.replace('@', &command)
            };
            format!("c=rm; {body}")
        })
}

#[test]
fn generated_spellings_never_run_in_any_mode() {
    let runtime = runtime();
    let registry = registry();
    let rules = deny_rm();
    let mut runner = TestRunner::new(Config {
        cases: 128,
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        ..Config::default()
    });
    let result = runner.run(&spelling(), |command| {
        for mode in MODES {
            for shell in SHELLS {
                let (alive, text) = runtime.block_on(run(&registry, &rules, mode, shell, &command));
                prop_assert!(alive, "{command:?} ran in {mode} under {shell:?}: {text}");
                if mode == PermissionMode::Bypass {
                    prop_assert!(text.contains("deny rule"), "{command:?} in bypass: {text}");
                }
            }
        }
        Ok(())
    });
    if let Err(err) = result {
        panic!("{err}");
    }
}
