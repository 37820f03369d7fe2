//! What a command reads, from its words: the access `run_command` declares.

use registry_core::{Access, Resource};

use super::lex::RedirectKind;
use super::parse::parse;
use super::read_only::read_targets;
use super::{MAX_COMMAND_BYTES, classify};

/// The resources `command` touches, as far as its words tell.
///
/// - A read-only command (see the module docs) whose every program names
///   what it reads: it reads those paths (operands, option arguments,
///   files redirected into it; `.` for `ls`, `du`, `find` and `grep -r`
///   without one), relative to the directory the command runs in.
/// - A read-only command whose words do not say (`git`, which finds its
///   repository from the working directory; an option that follows
///   symlinks): it reads everything.
/// - Anything else: it [writes everything](Access::everything), so it runs
///   alone, as an undeclared unsafe call would.
///
/// Over-approximating is safe (a pattern taken for a path only adds a key
/// that may conflict); under-approximating never happens for a command
/// this accepts, since only allow-listed programs with reviewed option
/// tables get past the first rule.
///
/// ```
/// use registry_examples::command_safety::command_access;
///
/// assert_eq!(command_access("cat a.txt | wc -l").to_string(), "reads path a.txt");
/// assert_eq!(command_access("ls").to_string(), "reads path .");
/// assert_eq!(command_access("git status").to_string(), "reads everything");
/// assert_eq!(command_access("rm a.txt").to_string(), "writes everything");
/// assert_eq!(command_access("grep -rn TODO src").to_string(), "reads path TODO, reads path src");
/// ```
pub fn command_access(command: &str) -> Access {
    if command.len() > MAX_COMMAND_BYTES || !classify(command).read_only {
        return Access::everything();
    }
    let Ok(script) = parse(command) else {
        return Access::everything();
    };
    let mut paths = Vec::new();
    for (simple, _) in &script.commands {
        let Some((program, args)) = simple.words.split_first() else {
            return Access::everything();
        };
        let Some(read) = read_targets(&program.text, args) else {
            return Access::read_everything();
        };
        paths.extend(read);
        paths.extend(
            simple
                .redirects
                .iter()
                .filter(|r| r.kind == RedirectKind::Read)
                .map(|r| r.target.text.clone()),
        );
    }
    Access::read_all(paths.into_iter().map(Resource::path))
}

#[cfg(test)]
mod tests {
    use super::command_access;

    #[test]
    fn the_words_of_a_read_only_command_name_what_it_reads() {
        let cases = [
            ("cat a.txt b.txt", "reads path a.txt, reads path b.txt"),
            (
                "head -n 5 src/lib.rs",
                "reads path 5, reads path src/lib.rs",
            ),
            ("wc -l < in.txt", "reads path in.txt"),
            ("cat a | sort | uniq", "reads path a"),
            ("ls -la src", "reads path src"),
            ("du -sh", "reads path ."),
            ("find . -name '*.rs'", "reads path ., reads path *.rs"),
            ("find -name x", "reads path ., reads path x"),
            ("grep needle", "reads path needle"),
            ("grep -r needle", "reads path ., reads path needle"),
            (
                "grep -f pats.txt a.rs",
                "reads path a.rs, reads path pats.txt",
            ),
            ("cat ../outside", "reads path ../outside"),
            ("echo hi", "touches nothing"),
            // The words do not say what is read.
            ("git log -p", "reads everything"),
            ("du -L src", "reads everything"),
            ("grep -R needle src", "reads everything"),
            ("find -L . -name x", "reads everything"),
            ("cat a && git status", "reads everything"),
            // Not read-only: runs alone.
            ("rm a.txt", "writes everything"),
            ("sort -o out.txt in.txt", "writes everything"),
            ("cat a > b", "writes everything"),
            ("cat $HOME/a", "writes everything"),
            ("cat a; rm b", "writes everything"),
            ("", "writes everything"),
            ("(cat a)", "writes everything"),
        ];
        for (command, expected) in cases {
            assert_eq!(command_access(command).to_string(), expected, "{command}");
        }
    }
}
