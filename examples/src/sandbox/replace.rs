//! Replacing the contents of an existing file so that a failure leaves the
//! old contents in place.
//!
//! Truncating a file and writing the new text into it loses the old text
//! whenever the write fails halfway (a full disk, an I/O error, a quota):
//! the file is left empty or cut short. [`replace_contents`] instead writes
//! a temporary file in the same directory, flushes it to disk, and renames
//! it over the target. A rename within one directory is atomic, so the
//! target holds either the old contents or the new ones, never a mix.
//!
//! The temporary file must not become a way in:
//!
//! - it is created with `O_CREAT | O_EXCL` under a random name (the
//!   `tempfile` crate), so a file or symlink planted at a guessed name makes
//!   creation retry under another name rather than write through it;
//! - it starts owner-only (`0600`) and gets the target's permission bits
//!   only once it is complete, so nobody reads a half-written copy that the
//!   target would not have let them read;
//! - it is removed on every failure (the `NamedTempFile` guard), so a
//!   failed call leaves nothing behind.
//!
//! The caller has already opened the target through
//! [`open_regular`](super::open_regular) with write access: every refusal
//! (special files, symlinks in the last component, files the process may
//! not write) applies to the target before anything is created, and the
//! temporary file lives in the target's directory, which passed the same
//! sandbox and git-internals checks.
//!
//! What changes compared with writing in place, by design: the file is a
//! new inode, so hard links to the old one keep the old contents, and the
//! owner is the process's user; writing needs permission to create files
//! in the directory, not only to write the file.

use std::fs::{File, Permissions};
use std::io::{self, Write};
use std::path::Path;

/// Replaces the contents of the regular file `target`, already opened as
/// `original` (whose permissions the new contents keep), with what `write`
/// puts into a fresh file. On any error the target is unchanged and no
/// temporary file remains.
pub(crate) fn replace_contents(
    target: &Path,
    original: &File,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    let permissions: Permissions = original.metadata()?.permissions();
    let dir = target
        .parent()
        .ok_or_else(|| io::Error::other("the path has no parent directory"))?;
    // A short fixed prefix: the temporary name must fit in NAME_MAX even
    // when the target's own name is as long as it can be.
    let mut temp = tempfile::Builder::new()
        .prefix(".edit-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    write(temp.as_file_mut())?;
    temp.as_file_mut().flush()?;
    temp.as_file().set_permissions(permissions)?;
    // On disk before the rename makes it visible: otherwise a crash right
    // after the rename could leave an empty file under the target's name.
    temp.as_file().sync_all()?;
    temp.persist(target).map_err(|err| err.error)?;
    // The rename itself is durable once the directory is flushed. Best
    // effort: not every platform can open a directory for syncing, and the
    // contents are already in place.
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What is in `dir`, sorted, so a leftover temporary file shows.
    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn the_new_contents_replace_the_old() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a.txt");
        std::fs::write(&target, "old contents\n").unwrap();
        let original = File::open(&target).unwrap();
        replace_contents(&target, &original, |f| f.write_all(b"new\n")).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new\n");
        assert_eq!(names(dir.path()), ["a.txt"]);
    }

    /// A write that fails halfway (as a full disk does) leaves the target
    /// as it was and removes the partial copy.
    #[test]
    fn a_failed_write_leaves_the_target_and_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a.txt");
        std::fs::write(&target, "precious\n").unwrap();
        let original = File::open(&target).unwrap();
        let err = replace_contents(&target, &original, |f| {
            f.write_all(b"half of the new")?;
            Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"))
        })
        .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::StorageFull);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious\n");
        assert_eq!(names(dir.path()), ["a.txt"]);
    }

    /// The rename fails when the target became a directory; the temporary
    /// file is still cleaned up.
    #[test]
    fn a_failed_rename_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a.txt");
        std::fs::write(&target, "x").unwrap();
        let original = File::open(&target).unwrap();
        std::fs::remove_file(&target).unwrap();
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("inside"), "y").unwrap();
        assert!(replace_contents(&target, &original, |f| f.write_all(b"new")).is_err());
        assert_eq!(names(dir.path()), ["a.txt"]);
        assert_eq!(std::fs::read_to_string(target.join("inside")).unwrap(), "y");
    }

    #[cfg(unix)]
    #[test]
    fn permissions_are_kept_and_hard_links_keep_the_old_contents() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("run.sh");
        std::fs::write(&target, "old").unwrap();
        std::fs::set_permissions(&target, Permissions::from_mode(0o751)).unwrap();
        std::fs::hard_link(&target, dir.path().join("other-name")).unwrap();
        let original = File::open(&target).unwrap();
        replace_contents(&target, &original, |f| f.write_all(b"new")).unwrap();
        let mode = std::fs::metadata(&target).unwrap().permissions().mode();
        assert_eq!(mode & 0o7777, 0o751);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("other-name")).unwrap(),
            "old"
        );
    }
}
