//! The one predicate for "this path component is `.git`", as the
//! filesystems that matter see it rather than as bytes compare.
//!
//! The rules are documented on [`is_dot_git`], where users of the crate
//! see them.

use std::ffi::OsStr;

/// Whether a filesystem on some platform may open the path component `name`
/// as `.git`.
///
/// A file tool that refuses to write into `.git` must refuse every name the
/// filesystem will open as `.git`, and a walk that skips `.git` must skip
/// all of them. Byte equality misses several, and git itself learned them
/// one CVE at a time (CVE-2014-9390: case, HFS+ and
/// short names; CVE-2019-1352: NTFS streams); the rules here follow
/// its `is_hfs_dotgit` and `is_ntfs_dotgit` (`path.c`), folded together:
///
/// - **Letter case**: case-insensitive filesystems (the macOS and Windows
///   defaults) open `.GIT` and `.Git` as `.git`. A non-ASCII letter whose
///   simple upper- or lowercase is an ASCII letter (the dotless `ı`, whose
///   uppercase is `I`) counts as that letter: Unicode-folding filesystems
///   may compare it so, and refusing one odd name costs nothing.
/// - **Ignorable code points** (HFS+): HFS+ drops the zero-width and
///   directional formatting characters U+200C–U+200F, U+202A–U+202E,
///   U+206A–U+206F and U+FEFF when comparing names, so `.g\u{200c}it` is
///   `.git` there. They are skipped wherever they appear.
/// - **Trailing dots and spaces** (NTFS, Win32): `.git.`, `.git ` and
///   `.git. .` all open `.git`.
/// - **Alternate data streams** (NTFS): `.git::$INDEX_ALLOCATION` names
///   the directory `.git` itself, so anything from a `:` on is ignored.
/// - **Backslashes** (Windows): a Unix name `.git\config` is the path
///   `.git\config` there, so a `\` ends the component as `/` does.
/// - **8.3 short names** (NTFS): `.git` also answers to `GIT~1`. Git checks
///   `~1` only; any `GIT~` followed by digits counts here, since which
///   number a short name gets depends on what else the directory holds.
///
/// What is not covered: hashed 8.3 names (`GI` + hex digits + `~1`, used
/// once a directory holds several names starting with `GIT`), which depend
/// on the volume; git does not recognise them either.
///
/// ```
/// use registry_examples::sandbox::is_dot_git;
///
/// for name in [".git", ".GIT", ".git.", ".git ", ".g\u{200c}it", "GIT~1", ".git::$INDEX_ALLOCATION"] {
///     assert!(is_dot_git(name.as_ref()), "{name:?}");
/// }
/// for name in ["git", ".gitignore", ".github", "x.git", "GIT~", "GIT~1a"] {
///     assert!(!is_dot_git(name.as_ref()), "{name:?}");
/// }
/// ```
pub fn is_dot_git(name: &OsStr) -> bool {
    let name = name.to_string_lossy();
    let mut chars = name
        .chars()
        .filter(|c| !hfs_ignorable(*c))
        .map(fold)
        .peekable();
    match chars.next() {
        Some('.') => {
            if !take(&mut chars, "git") {
                return false;
            }
        }
        // An 8.3 short name: `GIT~` and at least one digit.
        Some('g') => {
            if !take(&mut chars, "it~") || !chars.next().is_some_and(|c| c.is_ascii_digit()) {
                return false;
            }
            while chars.next_if(char::is_ascii_digit).is_some() {}
        }
        _ => return false,
    }
    ends_component(chars)
}

/// Whether the next characters of `chars` are `wanted` (consuming them).
fn take(chars: &mut impl Iterator<Item = char>, wanted: &str) -> bool {
    wanted.chars().all(|w| chars.next() == Some(w))
}

/// Whether what follows a matched `.git` leaves the name `.git` on NTFS:
/// only dots and spaces up to the end, a stream suffix (`:`) or a
/// Windows separator (`\`).
fn ends_component(rest: impl Iterator<Item = char>) -> bool {
    for c in rest {
        match c {
            ':' | '\\' | '/' => return true,
            '.' | ' ' => {}
            _ => return false,
        }
    }
    true
}

/// The code points HFS+ ignores when comparing names (git's
/// `next_hfs_char`).
fn hfs_ignorable(c: char) -> bool {
    matches!(
        c,
        '\u{200c}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{206a}'..='\u{206f}' | '\u{feff}'
    )
}

/// `c` lowercased when it is, or cases to, an ASCII letter; otherwise
/// unchanged.
fn fold(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    fn single_ascii_letter(mut cased: impl Iterator<Item = char>) -> Option<char> {
        match (cased.next(), cased.next()) {
            (Some(only), None) if only.is_ascii_alphabetic() => Some(only.to_ascii_lowercase()),
            _ => None,
        }
    }
    single_ascii_letter(c.to_lowercase())
        .or_else(|| single_ascii_letter(c.to_uppercase()))
        .unwrap_or(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dot_git(name: &str) -> bool {
        is_dot_git(OsStr::new(name))
    }

    #[test]
    fn every_spelling_a_filesystem_opens_as_dot_git() {
        for name in [
            ".git",
            ".GIT",
            ".gIt",
            ".git.",
            ".git..",
            ".git ",
            ".git . .",
            ".g\u{200c}it",
            "\u{feff}.git",
            ".git\u{200d}",
            ".g\u{202e}i\u{206a}t",
            ".G\u{200c}IT. ",
            ".g\u{131}t",
            "git~1",
            "GIT~1",
            "GIT~12",
            "GIT~1.",
            "G\u{200c}IT~1",
            ".git::$INDEX_ALLOCATION",
            ".git:stream",
            "git~1::$INDEX_ALLOCATION",
            ".git\\config",
            ".git.\\hooks",
        ] {
            assert!(dot_git(name), "{name:?}");
        }
    }

    #[test]
    fn names_that_only_look_alike_are_not_dot_git() {
        for name in [
            "",
            ".",
            "..",
            "git",
            ".gi",
            ".gitx",
            ".git-x",
            ".gitignore",
            ".gitmodules",
            ".github",
            "x.git",
            " .git",
            "..git",
            ".g it",
            ".g\u{301}it",
            "GIT~",
            "GIT~x",
            "GIT~1a",
            "GIT1",
            "GITX~1",
            ".git~1",
        ] {
            assert!(!dot_git(name), "{name:?}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn names_that_are_not_utf8_are_compared_lossily() {
        use std::os::unix::ffi::OsStrExt;
        assert!(!is_dot_git(OsStr::from_bytes(b".git\xff")));
        assert!(is_dot_git(OsStr::from_bytes(b".git.")));
    }
}
