//! The classification table: every attack class of issue 6 with the
//! issue's example and at least one case the issue did not list.

use super::*;
use crate::reading::{MAX_COMMAND_BYTES, MAX_NESTING};

/// (command, read_only, destructive)
const BASICS: &[(&str, bool, bool)] = &[
    // Empty: nothing to vouch for, nothing to fear.
    ("", false, false),
    ("   ", false, false),
    ("\n\n", false, false),
    ("# just a comment", false, false),
    // A syntax error is not understood.
    (";", false, true),
    // Plain readers.
    ("ls", true, false),
    ("ls -la src", true, false),
    ("pwd", true, false),
    ("cat notes.txt", true, false),
    ("head -n 5 a.txt", true, false),
    ("head -5 a.txt", true, false),
    ("tail -f log.txt", true, false),
    ("wc -l a b c", true, false),
    ("grep -rn TODO src", true, false),
    ("grep -e -o notes.txt", true, false),
    ("echo hello world", true, false),
    ("stat a.txt", true, false),
    ("du -sh .", true, false),
    ("sort names.txt", true, false),
    ("sort -n -r names.txt", true, false),
    ("sort -t, -k2 names.txt", true, false),
    ("uniq names.txt", true, false),
    ("uniq -c", true, false),
    ("find . -name '*.rs'", true, false),
    ("find . -name '*.rs' -type f -print", true, false),
    ("git status", true, false),
    ("git log --oneline -5", true, false),
    ("git diff HEAD~1", true, false),
    ("git show HEAD", true, false),
    ("cat < input.txt", true, false),
    ("ls 2>/dev/null", true, false),
    ("ls 2>&1 | wc -l", true, false),
    ("ls # ; rm -rf x", true, false),
    ("! grep -q x notes.txt", true, false),
    // Composed readers.
    ("cat a | grep b | wc -l", true, false),
    ("ls && pwd || echo no", true, false),
    ("ls; pwd;", true, false),
    ("ls\npwd", true, false),
    ("ls &&\n pwd", true, false),
    // A reader and a writer.
    ("ls; rm -rf x", false, true),
    ("ls && rm x", false, true),
    ("ls || rm x", false, true),
    ("ls | xargs rm", false, true),
    ("ls\nrm x", false, true),
    ("ls & rm x", false, true),
    // Redirections.
    ("cat a > b", false, true),
    ("cat a >b", false, true),
    ("echo x 1> out", false, true),
    ("ls >| out", false, true),
    ("ls >&out", false, true),
    ("echo a >> log", false, false),
    ("ls 2>&1", true, false),
    ("ls >&-", true, false),
    ("ls 2> /dev/null", true, false),
    ("ls > /dev/null; cat a > b", false, true),
    // `<>` lets the command overwrite the file in place.
    ("cat <> file", false, true),
    ("cat < /dev/tcp/example.com/80", false, false),
    ("cat /dev/tty", false, false),
    ("head -c 10 ../../dev/zero", false, false),
    ("grep x /dev/null", true, false),
    ("ls >", false, true),
    // Substitutions, subshells, compound commands: read, never read-only.
    ("echo $(rm x)", false, true),
    ("echo `rm x`", false, true),
    ("echo $(date)", false, false),
    ("ls <(rm x)", false, true),
    ("tee >(rm x)", false, true),
    ("(rm x)", false, true),
    ("{ rm x; }", false, true),
    ("if true; then rm x; fi", false, true),
    ("for f in a; do echo $f; done", false, false),
    ("for PATH in .; do ls; done", false, true),
    ("cat <<EOF\nx\nEOF", false, false),
    ("cat <<EOF\n$(rm x)\nEOF", false, true),
    ("echo $((1 + 2))", false, false),
    ("echo $((x))", false, true),
    ("echo 'unterminated", false, true),
    ("ls &> out", false, true),
    // Background jobs are not read-only.
    ("ls &", false, false),
    ("sleep 1 &", false, false),
    // Not on the allow-list.
    ("touch new.txt", false, false),
    ("mkdir d", false, false),
    ("cargo build", false, false),
    // Inline code can start any program: not checkable, so destructive.
    ("python -c 'print(1)'", false, true),
    ("python x.py", false, false),
    // Reading devices can block or act.
    ("grep -r -D read x /dev", false, false),
    ("sort --files0-from=list", false, false),
    ("FOO=1 ls", false, false),
    ("/bin/ls", false, false),
    ("file a.bin", false, false),
    ("df -h", false, false),
    // Quotes and backslashes are removed as the shell would.
    ("\"ls\"", true, false),
    ("l\\s", true, false),
    ("grep 'a b' notes.txt", true, false),
    ("echo 'a > b; rm x'", true, false),
    // What the shell alone can spell is never read-only.
    ("find . '-delete'", false, true),
    ("find . -delet\\e", false, true),
    ("ls *.rs", false, false),
    ("cat {a,b}.txt", false, false),
    ("echo \"$HOME\"", false, false),
    ("cat ~/notes", false, false),
    ("find . -delet*", false, true),
    ("find . $ACTION", false, true),
    ("$CMD -rf x", false, true),
    // Destroyers.
    ("rm notes.txt", false, true),
    ("rmdir d", false, true),
    ("unlink f", false, true),
    ("mv a b", false, true),
    ("cp a b", false, true),
    ("dd if=/dev/zero of=disk", false, true),
    ("truncate -s 0 f", false, true),
    ("shred -u f", false, true),
    ("chmod +x run.sh", false, true),
    ("chown me f", false, true),
    ("/bin/rm x", false, true),
    ("\\rm -rf x", false, true),
    ("'rm' -rf x", false, true),
    ("echo x | tee f", false, true),
    ("sed -i s/a/b/ f", false, true),
    ("sed -n 1p f", false, false),
    ("sed 's/a/b/w out' f", false, true),
    ("git rm -r .", false, true),
    ("git checkout .", false, true),
    ("git checkout main", false, false),
    ("git restore src", false, true),
    ("git stash drop", false, true),
    ("git reset --hard HEAD~1", false, true),
    ("git reset HEAD", false, false),
    ("git clean -fdx", false, true),
    ("git checkout -- src/lib.rs", false, true),
    ("git push --force", false, true),
    ("git push origin +main", false, true),
    ("git commit -m x", false, false),
    // Mentioning a destroyer is not running it.
    ("echo rm", true, false),
    ("grep rm notes.txt", true, false),
    ("cat rm.txt", true, false),
];

/// The attack classes of issue 6: its example first, then new ones.
const ATTACKS: &[(&str, &str, bool, bool)] = &[
    // Line continuations split or hide words.
    ("continuation", "find . \\\nls -delete", false, true),
    ("continuation", "find . -del\\\nete", false, true),
    ("continuation", "r\\\nm -rf x", false, true),
    ("continuation", "git reset --ha\\\nrd", false, true),
    ("continuation", "ls \\\n> out", false, true),
    ("continuation", "sort -\\\no out in", false, true),
    // A redirection glued to a word hides it.
    ("glued redirection", "find . -delete<a.txt", false, true),
    (
        "glued redirection",
        "find . -exec</dev/null touch x \\;",
        false,
        false,
    ),
    (
        "glued redirection",
        "find . -exec</dev/null rm x \\;",
        false,
        true,
    ),
    (
        "glued redirection",
        "find . -fprint</dev/null out",
        false,
        true,
    ),
    (
        "glued redirection",
        "git diff --output</dev/null patch",
        false,
        true,
    ),
    ("glued redirection", "ls>out", false, true),
    // Function definitions.
    ("function", "ls () (rm -f victim); ls", false, true),
    ("function", "ls() { rm -f victim; }; ls", false, true),
    ("function", "function ls { rm -f victim; }; ls", false, true),
    ("function", "cat()(:);cat x", false, true),
    // Leading or interleaved redirections.
    ("leading redirection", "2>/dev/null rm -f f", false, true),
    ("leading redirection", "rm>/dev/null -f f", false, true),
    (
        "leading redirection",
        "</dev/null >/dev/null git reset --hard",
        false,
        true,
    ),
    ("leading redirection", "2>&1 X=1 mv a b", false, true),
    ("leading redirection", ">/dev/null ls", true, false),
    // Global options before a git subcommand.
    ("git global option", "git -C . clean -fdx", false, true),
    ("git global option", "git -c k=v reset --hard", false, true),
    (
        "git global option",
        "git --git-dir=.git --work-tree=. checkout -- .",
        false,
        true,
    ),
    (
        "git global option",
        "git --no-pager -C sub branch -D old",
        false,
        true,
    ),
    (
        "git global option",
        "git -c core.fsmonitor=./evil status",
        false,
        true,
    ),
    (
        "git global option",
        "git -c alias.st='!rm -rf x' st",
        false,
        true,
    ),
    ("git global option", "git --exec-path=. status", false, true),
    ("git global option", "git -C . status", false, false),
    ("git global option", "git --no-pager log", true, false),
    // Option abbreviations and clusters.
    ("abbreviation", "git reset --har", false, true),
    ("abbreviation", "git checkout -qf", false, true),
    ("abbreviation", "git branch -qD old", false, true),
    ("abbreviation", "git reset --h HEAD", false, true),
    ("abbreviation", "git push --forc", false, true),
    ("abbreviation", "git tag -fa v1", false, true),
    ("abbreviation", "sort -ruo out in", false, true),
    ("abbreviation", "sort --outp=out in", false, true),
    ("abbreviation", "sed -ni p f", false, true),
    ("abbreviation", "sed --in-pl=.bak s/a/b/ f", false, true),
    ("abbreviation", "git diff --out=x", false, true),
    // Wrappers.
    ("wrapper", "eval rm -f f", false, true),
    ("wrapper", "env -S'rm -f f'", false, true),
    ("wrapper", "env -S'-i rm -f f'", false, true),
    ("wrapper", "env --split-string='rm -f f'", false, true),
    ("wrapper", "env -i FOO=1 rm f", false, true),
    ("wrapper", "nice -n 5 rm f", false, true),
    ("wrapper", "nice -5 rm f", false, true),
    ("wrapper", "timeout -s KILL 5 rm f", false, true),
    ("wrapper", "command -p rm f", false, true),
    ("wrapper", "builtin eval 'rm f'", false, true),
    ("wrapper", "exec rm f", false, true),
    ("wrapper", "xargs -0 rm < list", false, true),
    ("wrapper", "ls | xargs -n1 find", false, true),
    ("wrapper", "sudo -u root rm -rf /", false, true),
    ("wrapper", "sudo -e /etc/hosts", false, true),
    ("wrapper", "nohup rm f", false, true),
    ("wrapper", "stdbuf -oL rm f", false, true),
    ("wrapper", "time -p rm f", false, true),
    ("wrapper", "time -o out ls", false, true),
    ("wrapper", "ionice -c3 rm f", false, true),
    ("wrapper", "chrt -b 0 rm f", false, true),
    ("wrapper", "setsid -f rm f", false, true),
    ("wrapper", "busybox rm f", false, true),
    ("wrapper", "sh -c 'rm f'", false, true),
    ("wrapper", "bash -ec \"git reset --hard\"", false, true),
    ("wrapper", "sh -c 'sh -c \"eval rm f\"'", false, true),
    ("wrapper", "echo rm f | sh", false, true),
    ("wrapper", "watch -n1 rm f", false, true),
    ("wrapper", "flock /tmp/l rm f", false, true),
    ("wrapper", "flock -c 'rm f' /tmp/l", false, true),
    ("wrapper", "strace -f rm f", false, true),
    (
        "wrapper",
        "env nice timeout 5 command sudo rm f",
        false,
        true,
    ),
    (
        "wrapper",
        "find . -exec sh -c 'rm \"$1\"' _ {} \\;",
        false,
        true,
    ),
    ("wrapper", "taskset -c 0 rm f", false, true),
    ("wrapper", "flock -w 5 lock -c 'rm f'", false, true),
    ("wrapper", "watch 'ls > out'", false, true),
    ("wrapper", "watch '$(date)'", false, true),
    ("wrapper", "su -c 'rm f'", false, true),
    ("wrapper", "ssh host 'git clean -fdx'", false, true),
    ("wrapper", "docker exec c rm -rf /data", false, true),
    ("wrapper", "trap 'rm f' EXIT", false, true),
    ("wrapper", "echo 'rm f' | . /dev/stdin", false, true),
    ("wrapper", "echo 'rm f' | bash /dev/stdin", false, true),
    ("wrapper", "bash -O extglob -c 'rm f'", false, true),
    ("wrapper", "nohup -- rm f", false, true),
    ("wrapper", "env -S'rm\\_-f\\_f'", false, true),
    ("wrapper", "alias ls='rm -rf'\nls x", false, true),
    ("wrapper", "git submodule foreach 'rm -rf x'", false, true),
    ("wrapper", "git rebase -x 'rm f' HEAD~2", false, true),
    ("wrapper", "sh -c ls", false, false),
    ("wrapper", "env ls", false, false),
    // Output-file forms of read-only programs.
    ("output file", "sort --out</dev/null out in", false, true),
    ("output file", "uniq in out", false, true),
    ("output file", "git diff --output</dev/null f", false, true),
    ("output file", "sort -o out in", false, true),
    ("output file", "uniq -c -- in out", false, true),
    ("output file", "find . -fls out", false, true),
    ("output file", "find . -fprintf out %p", false, true),
    ("output file", "git log -p --output=x", false, true),
    ("output file", "ls | tee listing", false, true),
    ("output file", "shuf -o out in", false, true),
    (
        "output file",
        "iconv -f utf8 -t ascii -o out in",
        false,
        true,
    ),
    ("output file", "xxd -r dump out", false, true),
    ("output file", "gzip notes.txt", false, true),
    ("output file", "gzip -c notes.txt", false, false),
    ("output file", "gzip -dc notes.txt.gz", false, false),
    ("output file", "gzip -S.c notes.txt", false, true),
    ("output file", "unzip -l a.zip", false, false),
    ("output file", "unzip -o a.zip", false, true),
    ("output file", "tar xf a.tar", false, true),
    ("output file", "tar -tf a.tar", false, false),
    ("output file", "split -l 10 in", false, true),
    (
        "output file",
        "curl -o out https://example.invalid",
        false,
        true,
    ),
    ("output file", "awk '{print > \"out\"}' in", false, true),
    ("output file", "perl -pi -e s/a/b/ f", false, true),
    ("output file", "git archive -o out HEAD", false, true),
    ("output file", "git format-patch -1", false, true),
    ("output file", "time -o out ls", false, true),
    ("output file", "file -C -m magic", false, true),
    ("output file", "less -o log notes.txt", false, true),
    ("output file", "script -qc ls out", false, true),
    ("wrapper", "toybox rm f", false, true),
    ("wrapper", "echo 'rm f' | at now", false, true),
    // `--compress-program` runs the program it names.
    (
        "output file",
        "sort --compress-program=gzip in",
        false,
        true,
    ),
    ("output file", "sort -T . in", false, false),
    // An assignment that changes which program runs hides the program.
    ("program swap", "PATH=. ls", false, true),
    ("program swap", "ls; PATH=. ls", false, true),
    ("program swap", "env PATH=. ls", false, true),
    ("program swap", "sudo LD_PRELOAD=x.so ls", false, true),
    // sudo reads its operands after the shell removed the quotes (found
    // by the `shell` fuzz target: a quoted operand was read as the
    // program).
    ("program swap", "sudo 'LD_PRELOAD=x.so' ls", false, true),
    ("program swap", "sudo \"PATH=.\" ls", false, true),
    ("wrapper", "sudo 'A=1' rm -f x", false, true),
    (
        "program swap",
        "GIT_EXTERNAL_DIFF=./x git diff",
        false,
        true,
    ),
    ("program swap", "IFS=x ls", false, true),
    ("program swap", "BASH_ENV=x bash -c true", false, true),
    ("program swap", "FOO=1 ls", false, false),
    ("program swap", "env FOO=bar ls", false, false),
    // Variables that point a program at other configuration.
    ("config redirect", "HOME=. git diff", false, true),
    (
        "config redirect",
        "XDG_CONFIG_HOME=. git log -p",
        false,
        true,
    ),
    (
        "config redirect",
        "GIT_CONFIG_GLOBAL=x git status",
        false,
        true,
    ),
    ("config redirect", "env HOME=. git show", false, true),
    ("config redirect", "export HOME=.; git diff", false, true),
    ("config redirect", "read HOME < f; git diff", false, true),
    (
        "config redirect",
        "printf -v HOME %s .; git diff",
        false,
        true,
    ),
    ("config redirect", "LESSOPEN='|x %s' less f", false, true),
    ("config redirect", "HOME=.", false, true),
    ("config redirect", "printf '%s' HOME", false, false),
    // sed script commands that write or run.
    ("sed script", "sed 'w out' f", false, true),
    ("sed script", "sed -n '1w out' f", false, true),
    ("sed script", "sed 's/a/b/gw out' f", false, true),
    ("sed script", "sed 's/x/touch y/e' f", false, true),
    ("sed script", "sed e f", false, true),
    ("sed script", "sed -e p -e 'W out' f", false, true),
    ("sed script", "sed '/a/{p;w out\n}' f", false, true),
    ("sed script", "sed -n 's/w/e/p' f", false, false),
    ("sed script", "sed --sandbox 'w out' f", false, false),
    // Read-write redirections overwrite in place.
    ("read-write redirection", "echo x 1<>f", false, true),
    ("read-write redirection", "cat a 1<> f", false, true),
    ("read-write redirection", "ls <>f >&0", false, true),
    // git writers that look harmless.
    ("git writer", "git mv -f a b", false, true),
    ("git writer", "git mv --force a b", false, true),
    ("git writer", "git mv a b", false, false),
    ("git writer", "git bundle create out HEAD", false, true),
    ("git writer", "git merge-file a base b", false, true),
    ("git writer", "git merge-file -p a base b", false, false),
    ("git writer", "git apply p.diff", false, true),
    ("git writer", "git apply --check p.diff", false, false),
    ("git writer", "git sparse-checkout set x", false, true),
    // tar listing that runs a program or writes a file.
    (
        "tar",
        "tar -tf a.tar --checkpoint=1 --checkpoint-action=exec=touch\\ x",
        false,
        true,
    ),
    (
        "tar",
        "tar --use-compress-program=./x -tf a.tar",
        false,
        true,
    ),
    ("tar", "tar -I ./x -tf a.tar", false, true),
    ("tar", "tar tIf ./x a.tar", false, true),
    ("tar", "tar -tf a.tar --to-command=sh", false, true),
    ("tar", "tar -tf host:a.tar", false, true),
    ("tar", "tar -tf a.tar -F ./x", false, true),
    ("tar", "tar -tf a.tar --index-file=out", false, true),
    ("tar", "tar -tvf a.tar", false, false),
    // What is run inside compound commands and substitutions.
    ("compound", "if true; then rm x; fi", false, true),
    (
        "compound",
        "while false; do :; done; { mv a b; }",
        false,
        true,
    ),
    ("compound", "case a in a) dd if=a of=b;; esac", false, true),
    ("compound", "echo \"$(git clean -fdx)\"", false, true),
    ("compound", "[[ -f $(rm x) ]]", false, true),
    ("compound", "((x)); ls", false, true),
];

fn check(cases: impl IntoIterator<Item = (String, bool, bool)>) {
    let mut failures = Vec::new();
    for (command, read_only, destructive) in cases {
        let got = classify(&command);
        if (got.read_only, got.destructive) != (read_only, destructive) {
            failures.push(format!(
                "{command:?}: expected read_only={read_only} destructive={destructive}, got {got:?}"
            ));
        }
        // The shorthands agree with `classify`.
        assert_eq!(is_read_only_command(&command), got.read_only);
        assert_eq!(is_destructive_command(&command), got.destructive);
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn classification_table() {
    check(BASICS.iter().map(|&(c, r, d)| (c.to_owned(), r, d)));
}

#[test]
fn attack_classes() {
    check(ATTACKS.iter().map(|&(_, c, r, d)| (c.to_owned(), r, d)));
}

#[test]
fn read_only_never_comes_with_destructive() {
    for command in BASICS
        .iter()
        .map(|c| c.0)
        .chain(ATTACKS.iter().map(|c| c.1))
    {
        let c = classify(command);
        assert!(!(c.read_only && c.destructive), "{command:?}: {c:?}");
    }
}

#[test]
fn exponential_and_unbounded_inputs_return() {
    // Each of these used to hang or overflow the stack.
    let nice = format!("{}ls", "nice ".repeat(40));
    assert!(!classify(&nice).destructive);
    let nice_rm = format!("{}rm x", "nice ".repeat(40));
    assert!(classify(&nice_rm).destructive);
    let env = format!("{}ls", "env ".repeat(100_000));
    assert_eq!(classify(&env), Classification::STRICT);
    // Just under the cap: read, and still linear; a wrapper chain past
    // the bound is strict.
    let env = format!("{}rm x", "env ".repeat(MAX_COMMAND_BYTES / 4 - 2));
    assert!(env.len() <= MAX_COMMAND_BYTES);
    assert_eq!(classify(&env), Classification::STRICT);
    let env = format!("{}ls", "env ".repeat(crate::MAX_LAYERS - 1));
    assert!(!classify(&env).destructive);
    let env = format!("{}rm x", "env ".repeat(crate::MAX_LAYERS - 1));
    let c = classify(&env);
    assert!(c.understood && c.destructive, "{c:?}");
    // Words `xargs` appends come after the program, so a chain of them
    // still runs `ls`.
    let xargs = format!("{}ls", "xargs ".repeat(crate::MAX_LAYERS - 1));
    assert!(!classify(&xargs).destructive);
    let xargs = format!("{}rm", "xargs ".repeat(crate::MAX_LAYERS - 1));
    assert!(classify(&xargs).destructive);
    let xargs = format!("{}ls", "xargs ".repeat(MAX_COMMAND_BYTES / 6 - 1));
    assert_eq!(classify(&xargs), Classification::STRICT);
    let splices = format!("{}ls", "env -S env ".repeat(MAX_COMMAND_BYTES / 11 - 1));
    assert!(classify(&splices).destructive);
    // A long run of descriptor digits after a compound command, and tens
    // of thousands of distinct hazards: once quadratic.
    let digits = format!("(:) {}", "1".repeat(MAX_COMMAND_BYTES - 10));
    assert_eq!(classify(&digits), Classification::STRICT);
    let hazards: String = (0..MAX_COMMAND_BYTES / 8)
        .map(|i| format!("$a{i};"))
        .collect();
    let hazards = &hazards[..hazards.len().min(MAX_COMMAND_BYTES)];
    assert!(classify(hazards.trim_end_matches(|c| c != ';')).destructive);
    let pipes = "ls | ".repeat(MAX_COMMAND_BYTES / 5 - 1) + "ls";
    assert!(classify(&pipes).read_only);
    let quotes = format!("echo {}", "'a'".repeat(MAX_COMMAND_BYTES / 3 - 2));
    assert!(classify(&quotes).read_only);
}

#[test]
fn the_size_cap_is_exact() {
    let at_cap = format!("ls {}", "a".repeat(MAX_COMMAND_BYTES - 3));
    assert_eq!(at_cap.len(), MAX_COMMAND_BYTES);
    assert!(classify(&at_cap).read_only);
    let over = format!("{at_cap}a");
    assert_eq!(classify(&over), Classification::STRICT);
    // The cap counts bytes, not characters.
    let wide = format!("ls {}", "é".repeat(MAX_COMMAND_BYTES / 2));
    assert_eq!(classify(&wide), Classification::STRICT);
}

#[test]
fn nesting_is_bounded() {
    // `sh -c` strings nested past the bound are destructive unseen.
    let mut command = "ls".to_owned();
    for _ in 0..=MAX_NESTING {
        command = format!("sh -c {}", quote(&command));
    }
    assert!(classify(&command).destructive);
    let mut shallow = "ls".to_owned();
    for _ in 0..MAX_NESTING - 1 {
        shallow = format!("sh -c {}", quote(&shallow));
    }
    assert!(!classify(&shallow).destructive, "{shallow}");
}

fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

#[test]
fn a_quoted_sudo_operand_is_an_assignment_as_sudo_reads_it() {
    for line in [
        "sudo A=1 rm -f x",
        "sudo 'A=1' rm -f x",
        "sudo \"A\"=1 rm -f x",
    ] {
        let reading = crate::read(line);
        let core = reading.runs()[0].core().expect("a program");
        assert_eq!(core.name(), "rm", "{line}");
        assert!(reading.is_checkable(), "{line}: {:?}", reading.hazards());
    }
}
