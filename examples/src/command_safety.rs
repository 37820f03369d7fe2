//! Classifying a shell command before it runs: the per-input posture of
//! `run_command`.
//!
//! Both functions read the command text only; they never run anything and
//! never touch the filesystem, so they are cheap enough to call for every
//! dispatch decision.
//!
//! # Read-only: an allowlist that fails closed
//!
//! [`is_read_only_command`] answers `true` only when it can see that the
//! command only reads. A wrong `true` lets a writing command run in a
//! concurrent batch or skip a confirmation; a wrong `false` only costs
//! parallelism. So anything it does not fully understand is `false`:
//! quoting, variables assigned in front of a program, programs named by
//! path, subshells, and every program not on the list.
//!
//! # Destructive: a tripwire for the usual ways to lose data
//!
//! [`is_destructive_command`] looks for the common ways a command destroys
//! data: deleting, moving over, truncating or shredding files, changing
//! ownership or modes, discarding git work, and truncating redirections.
//! It searches everywhere in the command, including inside `$(...)`,
//! backticks, subshells and after wrappers such as `sudo` or `xargs`. It is a
//! list of patterns, not a proof: a command that destroys data in a way not
//! listed (a script, `python -c ...`) is not flagged, which is why an unknown
//! command is also never read-only and never concurrency-safe.
//!
//! `>` counts as destructive because it truncates its target before the
//! command writes. `>>` appends: the command writes (so it is not
//! read-only) but nothing that was there is lost, so it is not destructive.
//! The same goes for `2>&1`-style descriptor duplication and for a target of
//! `/dev/null`.
//!
//! Words are read the way the shell will hand them to the program: quotes
//! and backslashes are removed first, so `'rm'`, `\rm` and `-delet\e` are
//! seen as `rm` and `-delete`. Anything whose final text only the shell
//! knows (a `$` expansion, an unquoted glob or brace, an unterminated
//! quote) makes a command not read-only. Long options are matched by any
//! prefix, as getopt does (`sort --out=x` is `--output`). Separators and
//! `>` are still found in the raw text, so a quoted `>` or `;`
//! (`echo "a > b"`) counts as the real thing: the command is then not
//! read-only and may be flagged destructive, which errs on the safe side.
//!
//! # A caveat about git
//!
//! `git status`, `log`, `diff` and `show` are treated as read-only, which
//! assumes the repository's configuration is trusted: a hostile
//! `.git/config` can make them run programs (`core.fsmonitor`,
//! `diff.external`). Explicit `--output` and `--ext-diff` are refused.

/// Programs that only read, whatever their arguments (apart from the
/// per-program exceptions in [`is_read_only_invocation`]).
const READ_ONLY_PROGRAMS: &[&str] = &[
    "ls", "cat", "head", "tail", "wc", "grep", "echo", "pwd", "find", "sort", "uniq", "stat",
    "file", "du", "df", "git",
];

/// The git subcommands that only read.
const READ_ONLY_GIT: &[&str] = &["status", "log", "diff", "show"];

/// `find` actions that run programs or write files.
const FIND_WRITING_ACTIONS: &[&str] = &[
    "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls",
];

/// `find` actions that run a program given by the next words.
const FIND_EXEC_ACTIONS: &[&str] = &["-exec", "-execdir", "-ok", "-okdir"];

/// Programs that destroy or irreversibly change files (`cp` and `tee`
/// overwrite their targets).
const DESTRUCTIVE_PROGRAMS: &[&str] = &[
    "rm", "rmdir", "unlink", "mv", "dd", "truncate", "shred", "chmod", "chown", "cp", "tee",
];

/// `find` actions that truncate the file they name.
const FIND_TRUNCATING_ACTIONS: &[&str] = &["-fprint", "-fprint0", "-fprintf", "-fls"];

/// Programs that run the program named in their arguments.
const WRAPPERS: &[&str] = &[
    "sudo", "doas", "env", "nohup", "nice", "time", "timeout", "command", "exec", "xargs",
    "builtin", "stdbuf",
];

/// Shell words that may come before a command's program.
const SHELL_KEYWORDS: &[&str] = &[
    "!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until",
];

/// Does `command` only read? `true` only when every part of it (split on
/// `|`, `&&`, `||`, `;` and newlines) starts with an allowlisted program used
/// in a reading way, and the command has no output redirection (`>`), no
/// command or process substitution (`$(`, backtick, `<(`), no background `&`
/// and no control characters. Empty is `false`.
///
/// ```
/// use registry_examples::command_safety::is_read_only_command;
///
/// assert!(is_read_only_command("ls -la | grep rs && git status"));
/// assert!(!is_read_only_command("ls; rm -rf x"));
/// assert!(!is_read_only_command("cat a > b"));
/// assert!(!is_read_only_command(""));
/// ```
pub fn is_read_only_command(command: &str) -> bool {
    if has_unsafe_construct(command) {
        return false;
    }
    let mut parts = 0;
    for segment in read_only_segments(command) {
        let words = shell_words(segment);
        if words.dynamic {
            return false;
        }
        let words: Vec<&str> = words.words.iter().map(String::as_str).collect();
        let Some((program, args)) = words.split_first() else {
            continue;
        };
        if !is_read_only_invocation(program, args) {
            return false;
        }
        parts += 1;
    }
    parts > 0
}

/// Can `command` destroy data? `true` when any part of it, including
/// command substitutions, subshells and commands run through wrappers like
/// `sudo` or `xargs`, deletes, moves, truncates, shreds or re-permissions
/// files (`rm`, `rmdir`, `unlink`, `mv`, `dd`, `truncate`, `shred`,
/// `chmod`, `chown`, `find -delete`, `find -exec rm`), discards git work
/// (`git reset --hard`, `git clean`, `git checkout --`), or truncates a
/// file with `>` (`>>`, descriptor duplication and `/dev/null` do not
/// count).
///
/// ```
/// use registry_examples::command_safety::is_destructive_command;
///
/// assert!(is_destructive_command("ls; rm -rf x"));
/// assert!(is_destructive_command("echo $(rm x)"));
/// assert!(is_destructive_command("cat a > b"));
/// assert!(!is_destructive_command("echo a >> log"));
/// assert!(!is_destructive_command("grep rm notes.txt"));
/// ```
pub fn is_destructive_command(command: &str) -> bool {
    if has_truncating_redirection(command) {
        return true;
    }
    all_segments(command).any(|segment| {
        let words = shell_words(segment).words;
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        is_destructive_invocation(&words)
    })
}

/// Anything that makes the allowlist check unsound.
fn has_unsafe_construct(command: &str) -> bool {
    command.contains('>')
        || command.contains("$(")
        || command.contains('`')
        || command.contains("<(")
        || command.replace("&&", "").contains('&')
        || command
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t')
}

/// The parts of a command with no substitutions: split on `||`, `&&`, `|`,
/// `;` and newlines.
fn read_only_segments(command: &str) -> impl Iterator<Item = &str> {
    command.split(['|', '&', ';', '\n'])
}

/// Every place a program can start, including inside substitutions and
/// subshells. Over-splitting only adds candidates, which for a destructive
/// check errs on the safe side.
fn all_segments(command: &str) -> impl Iterator<Item = &str> {
    command.split(['|', '&', ';', '\n', '(', ')', '`'])
}

fn is_read_only_invocation(program: &str, args: &[&str]) -> bool {
    if !READ_ONLY_PROGRAMS.contains(&program) {
        return false;
    }
    match program {
        "find" => !args.iter().any(|a| FIND_WRITING_ACTIONS.contains(a)),
        // `sort -o FILE` writes FILE; `--compress-program` runs a program.
        "sort" => !args.iter().any(|a| {
            abbreviates(a, "--output")
                || abbreviates(a, "--compress-program")
                || (a.starts_with('-') && !a.starts_with("--") && a.contains('o'))
        }),
        // `uniq INPUT OUTPUT` writes OUTPUT.
        "uniq" => {
            args.iter()
                .filter(|a| !a.starts_with('-') || **a == "-")
                .count()
                <= 1
        }
        // `file -C` compiles a magic file, writing it.
        "file" => !args.iter().any(|a| {
            abbreviates(a, "--compile")
                || (a.starts_with('-') && !a.starts_with("--") && a.contains('C'))
        }),
        "git" => {
            args.first().is_some_and(|sub| READ_ONLY_GIT.contains(sub))
                && !args
                    .iter()
                    .any(|a| abbreviates(a, "--output") || abbreviates(a, "--ext-diff"))
        }
        _ => true,
    }
}

fn is_destructive_invocation(words: &[&str]) -> bool {
    let start = words
        .iter()
        .position(|w| !SHELL_KEYWORDS.contains(w) && !is_assignment(w));
    let Some(start) = start else {
        return false;
    };
    let program = basename(words[start]);
    let args = &words[start + 1..];
    if WRAPPERS.contains(&program) {
        // Options of the wrapper come first; any later word may be the
        // program it runs.
        return (0..args.len()).any(|i| is_destructive_invocation(&args[i..]));
    }
    if DESTRUCTIVE_PROGRAMS.contains(&program) {
        return true;
    }
    match program {
        "git" => {
            let has = |word: &str| args.contains(&word);
            let sub = args.iter().find(|a| !a.starts_with('-')).copied();
            match sub {
                Some("reset") => has("--hard"),
                Some("clean" | "rm" | "restore") => true,
                Some("checkout") => has("--") || has(".") || has("-f") || has("--force"),
                Some("stash") => has("drop") || has("clear"),
                Some("branch") => has("-D") || has("-d") || has("--delete"),
                _ => false,
            }
        }
        "sed" => args.iter().any(|a| {
            abbreviates(a, "--in-place")
                || (a.starts_with("-i")
                    || (a.starts_with('-') && !a.starts_with("--") && a.contains('i')))
        }),
        "find" => args.iter().enumerate().any(|(i, arg)| {
            *arg == "-delete"
                || FIND_TRUNCATING_ACTIONS.contains(arg)
                || (FIND_EXEC_ACTIONS.contains(arg) && is_destructive_invocation(&args[i + 1..]))
        }),
        _ => false,
    }
}

/// `NAME=value` in front of a program.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// `--out=x` abbreviates `--output`, as getopt accepts any unambiguous
/// prefix; at least `--` and one letter.
fn abbreviates(arg: &str, long: &str) -> bool {
    let name = arg.split('=').next().unwrap_or(arg);
    name.len() > 2 && name.starts_with("--") && long.starts_with(name)
}

/// The words of one segment as the program will receive them, and whether
/// their final text depends on the shell (`$`, unquoted globs or braces,
/// an unterminated quote).
struct ShellWords {
    words: Vec<String>,
    dynamic: bool,
}

fn shell_words(segment: &str) -> ShellWords {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut dynamic = false;
    let mut chars = segment.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\\' => {
                in_word = true;
                if let Some(next) = chars.next() {
                    word.push(next);
                }
            }
            '\'' => {
                in_word = true;
                let mut closed = false;
                for q in chars.by_ref() {
                    if q == '\'' {
                        closed = true;
                        break;
                    }
                    word.push(q);
                }
                dynamic |= !closed;
            }
            '"' => {
                in_word = true;
                let mut closed = false;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => {
                            closed = true;
                            break;
                        }
                        '\\' => {
                            if let Some(next) = chars.next() {
                                if !matches!(next, '$' | '`' | '"' | '\\' | '\n') {
                                    word.push('\\');
                                }
                                word.push(next);
                            }
                        }
                        '$' | '`' => {
                            dynamic = true;
                            word.push(q);
                        }
                        q => word.push(q),
                    }
                }
                dynamic |= !closed;
            }
            '$' | '`' | '*' | '?' | '[' | '{' | '}' => {
                in_word = true;
                dynamic = true;
                word.push(c);
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    ShellWords { words, dynamic }
}

/// `/bin/rm` is `rm`.
fn basename(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// A `>` that truncates a file: not `>>`, not `<>`, not `>&N` / `>&-`, not
/// `>(...)`, not into `/dev/null`. A `>` with no target is a syntax error
/// and counts as truncating (fail closed).
fn has_truncating_redirection(command: &str) -> bool {
    let chars: Vec<char> = command.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '>' {
            i += 1;
            continue;
        }
        if i > 0 && chars[i - 1] == '<' {
            // `<>` opens read-write without truncating.
            i += 1;
            continue;
        }
        let mut target_start = i + 1;
        match chars.get(i + 1) {
            Some('>') | Some('(') => {
                // `>>` appends; `>(...)` is a process substitution whose
                // command is checked as a segment.
                i += 2;
                continue;
            }
            Some('&') => {
                if chars
                    .get(i + 2)
                    .is_some_and(|c| c.is_ascii_digit() || *c == '-')
                {
                    // `>&2`, `>&-`: descriptor duplication or closing.
                    i += 2;
                    continue;
                }
                // `>&file` truncates `file`.
                target_start = i + 2;
            }
            Some('|') => target_start = i + 2,
            _ => {}
        }
        let target: String = chars[target_start..]
            .iter()
            .skip_while(|c| c.is_whitespace())
            .take_while(|c| !c.is_whitespace() && !"|&;<>()".contains(**c))
            .collect();
        if target != "/dev/null" {
            return true;
        }
        i = target_start;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (command, read_only, destructive)
    const CASES: &[(&str, bool, bool)] = &[
        // Empty and blank: nothing to vouch for.
        ("", false, false),
        ("   ", false, false),
        (";", false, false),
        // Plain readers.
        ("ls", true, false),
        ("ls -la src", true, false),
        ("pwd", true, false),
        ("cat notes.txt", true, false),
        ("head -n 5 a.txt", true, false),
        ("tail -f log.txt", true, false),
        ("wc -l a b c", true, false),
        ("grep -rn TODO src", true, false),
        ("echo hello world", true, false),
        ("stat a.txt", true, false),
        ("file a.bin", true, false),
        ("du -sh .", true, false),
        ("df -h", true, false),
        ("sort names.txt", true, false),
        ("sort -n -r names.txt", true, false),
        ("uniq names.txt", true, false),
        ("uniq -c", true, false),
        ("find . -name '*.rs'", true, false),
        ("git status", true, false),
        ("git log --oneline -5", true, false),
        ("git diff HEAD~1", true, false),
        ("git show HEAD", true, false),
        ("cat < input.txt", true, false),
        // Composed readers.
        ("cat a | grep b | wc -l", true, false),
        ("ls && pwd || echo no", true, false),
        ("ls; pwd;", true, false),
        ("ls\npwd", true, false),
        // Tricky: a reader followed by a writer.
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
        ("ls &> out", false, true),
        ("ls >&out", false, true),
        ("echo a >> log", false, false),
        ("ls &>> log", false, false),
        ("ls 2>&1", false, false),
        ("ls >&-", false, false),
        ("ls 2> /dev/null", false, false),
        ("ls > /dev/null; cat a > b", false, true),
        ("cat <> file", false, false),
        ("ls >", false, true),
        // Substitutions.
        ("echo $(rm x)", false, true),
        ("echo `rm x`", false, true),
        ("echo $(date)", false, false),
        ("ls <(rm x)", false, true),
        ("tee >(rm x)", false, true),
        // Subshells, groups, control flow.
        ("(rm x)", false, true),
        ("{ rm x; }", false, true),
        ("if true; then rm x; fi", false, true),
        ("! rm x", false, true),
        // Background.
        ("ls &", false, false),
        ("sleep 1 &", false, false),
        // Not on the allowlist.
        ("touch new.txt", false, false),
        ("mkdir d", false, false),
        ("cargo build", false, false),
        ("python -c 'print(1)'", false, false),
        ("sh -c ls", false, false),
        ("FOO=1 ls", false, false),
        ("/bin/ls", false, false),
        // Quotes and backslashes are removed as the shell would.
        ("\"ls\"", true, false),
        ("l\\s", true, false),
        ("grep 'a b' notes.txt", true, false),
        // What the shell alone can spell is never read-only.
        ("find . '-delete'", false, true),
        ("find . -delet\\e", false, true),
        ("find . ${_:--delete}", false, false),
        ("ls *.rs", false, false),
        ("cat {a,b}.txt", false, false),
        ("echo \"$HOME\"", false, false),
        ("echo 'unterminated", false, false),
        // Abbreviated long options are the options.
        ("sort '-o' out in", false, false),
        ("sort --out=x in", false, false),
        ("sort --comp=sh in", false, false),
        ("git diff '--output=x'", false, false),
        ("git diff --out=x", false, false),
        ("file --comp magic", false, false),
        // Quoted or escaped destroyers, and more ways to lose data.
        ("\\rm -rf x", false, true),
        ("'rm' -rf x", false, true),
        ("git rm -r .", false, true),
        ("git checkout .", false, true),
        ("git checkout main", false, false),
        ("git restore src", false, true),
        ("git stash drop", false, true),
        ("git branch -D old", false, true),
        ("echo x | tee f", false, true),
        ("sed -i s/a/b/ f", false, true),
        ("sed -n 1p f", false, false),
        ("cp a b", false, true),
        ("find . -fprintf out %p", false, true),
        ("X=1 rm f", false, true),
        ("ls\nrm f", false, true),
        ("ls\rrm", false, false),
        // Allowlisted programs used to write.
        ("find . -delete", false, true),
        ("find . -name x -exec rm {} ;", false, true),
        ("find . -exec cat {} +", false, false),
        ("find . -fprint out.txt", false, true),
        ("sort -o out.txt in.txt", false, false),
        ("sort -uo out.txt in.txt", false, false),
        ("sort --output=out.txt in.txt", false, false),
        ("sort --compress-program=sh in.txt", false, false),
        ("uniq in.txt out.txt", false, false),
        ("file -C -m magic", false, false),
        ("git diff --output=patch.txt", false, false),
        ("git diff --ext-diff", false, false),
        ("git commit -m x", false, false),
        ("git push", false, false),
        ("git -c core.pager=sh log", false, false),
        // Destroyers.
        ("rm notes.txt", false, true),
        ("rm -rf /", false, true),
        ("rmdir d", false, true),
        ("unlink f", false, true),
        ("mv a b", false, true),
        ("dd if=/dev/zero of=disk", false, true),
        ("truncate -s 0 f", false, true),
        ("shred -u f", false, true),
        ("chmod +x run.sh", false, true),
        ("chown me f", false, true),
        ("/bin/rm x", false, true),
        ("sudo rm -rf /", false, true),
        ("sudo -u root rm x", false, true),
        ("env FOO=1 rm x", false, true),
        ("FOO=1 rm x", false, true),
        ("nohup rm x", false, true),
        ("git reset --hard HEAD~1", false, true),
        ("git reset HEAD", false, false),
        ("git clean -fdx", false, true),
        ("git checkout -- src/lib.rs", false, true),
        ("git checkout main", false, false),
        // Mentioning a destroyer is not running it.
        ("echo rm", true, false),
        ("grep rm notes.txt", true, false),
        ("cat rm.txt", true, false),
    ];

    #[test]
    fn classification_table() {
        let mut failures = Vec::new();
        for &(command, read_only, destructive) in CASES {
            let got = (
                is_read_only_command(command),
                is_destructive_command(command),
            );
            if got != (read_only, destructive) {
                failures.push(format!(
                    "{command:?}: expected read_only={read_only} destructive={destructive}, got read_only={} destructive={}",
                    got.0, got.1
                ));
            }
        }
        assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    }

    #[test]
    fn read_only_never_comes_with_destructive() {
        for &(command, _, _) in CASES {
            assert!(
                !(is_read_only_command(command) && is_destructive_command(command)),
                "{command:?} is classified both read-only and destructive"
            );
        }
    }

    #[test]
    fn helpers() {
        assert!(is_assignment("FOO=1"));
        assert!(is_assignment("A_B2="));
        assert!(!is_assignment("--output=x"));
        assert!(!is_assignment("=x"));
        assert_eq!(basename("/usr/bin/rm"), "rm");
        assert_eq!(basename("rm"), "rm");
    }
}
