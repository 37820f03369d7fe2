//! Classifying a shell command before it runs: the per-input posture of
//! `run_command`, as an adapter over [`shell_reading`].
//!
//! Every decision about a command reads one [`Reading`] of it: the
//! read-only and destructive answers ([`shell_reading::classify()`], whose
//! docs list exactly what is allowed), the resource access `run_command`
//! declares ([`reading_access`]), the git hardening of read-only commands,
//! and registry-core's permission rules (`run_command(rm:*)`), which read
//! the same structure through
//! [`PermissionContent::from_command_line`](registry_core::PermissionContent::from_command_line).
//! `run_command` reads each call's command once and shares that reading
//! among all of them.

pub use shell_reading::{
    Classification, MAX_COMMAND_BYTES, MAX_NESTING, ReadPaths, Reading, classify, classify_reading,
    is_destructive_command, is_read_only_command, read, read_paths,
};

use registry_core::access::{Access, AccessKey};

/// The resources `command` touches, as far as its words tell: see
/// [`reading_access`].
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
    reading_access(&read(command))
}

/// The resources a command read as `reading` touches.
///
/// - A read-only command whose every program names what it reads: those
///   paths, relative to the directory the command runs in.
/// - A read-only command whose words do not say (`git`, symlink-following
///   options): it reads everything.
/// - Anything else: it [writes everything](Access::everything), so it runs
///   alone, as an undeclared unsafe call would.
pub fn reading_access(reading: &Reading) -> Access {
    match read_paths(reading) {
        ReadPaths::Paths(paths) => Access::read_all(paths.into_iter().map(AccessKey::path)),
        ReadPaths::Everything => Access::read_everything(),
        ReadPaths::NotReadOnly => Access::everything(),
    }
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
