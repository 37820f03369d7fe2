//! What a read-only command reads, from its words.

use super::read_only::read_targets;
use super::{classify_reading, flat_commands};
use crate::reading::Reading;
use crate::syntax::RedirectKind;

/// The paths a command reads, as far as its words tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadPaths {
    /// A read-only command whose every program names what it reads: these
    /// paths, relative to the directory the command runs in (operands,
    /// option arguments, files redirected into it; `.` for `ls`, `du`,
    /// `find` and `grep -r` without one).
    Paths(Vec<String>),
    /// A read-only command whose words do not say (`git`, which finds its
    /// repository from the working directory; an option that follows
    /// symlinks).
    Everything,
    /// Not a read-only command: it may write anything.
    NotReadOnly,
}

/// What the command read as `reading` reads. Over-approximating is safe
/// (a pattern taken for a path only adds a key that may conflict);
/// under-approximating never happens for a command this accepts, since
/// only allow-listed programs with reviewed option tables are read-only.
///
/// ```
/// use shell_reading::{ReadPaths, read, read_paths};
///
/// assert_eq!(read_paths(&read("cat a.txt | wc -l")), ReadPaths::Paths(vec!["a.txt".into()]));
/// assert_eq!(read_paths(&read("git status")), ReadPaths::Everything);
/// assert_eq!(read_paths(&read("rm a.txt")), ReadPaths::NotReadOnly);
/// ```
pub fn read_paths(reading: &Reading) -> ReadPaths {
    if !classify_reading(reading).read_only {
        return ReadPaths::NotReadOnly;
    }
    let Some(commands) = reading.script().and_then(flat_commands) else {
        return ReadPaths::NotReadOnly;
    };
    let mut paths = Vec::new();
    for simple in commands {
        let Some((program, args)) = simple.words.split_first() else {
            return ReadPaths::NotReadOnly;
        };
        let Some(read) = read_targets(&program.text, args) else {
            return ReadPaths::Everything;
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
    ReadPaths::Paths(paths)
}
