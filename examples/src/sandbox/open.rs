//! Opening a file the model named, refusing anything that is not a regular
//! file, without a window between the check and the open.
//!
//! Opening a FIFO for reading blocks until a writer appears, and a device
//! can block, stream forever or act on being opened, so a path inside the
//! sandbox that names one would hang or misuse the tool. Each open here:
//!
//! 1. looks at the path without following it (`lstat`) and refuses special
//!    files before anything is opened, so a device is never opened at all
//!    in the ordinary case;
//! 2. opens with `O_NONBLOCK` (a FIFO swapped in after step 1 cannot block
//!    the open), `O_NOFOLLOW` (a symlink swapped in for the last component
//!    is not followed) and `O_NOCTTY` (a terminal never becomes the
//!    process's controlling terminal);
//! 3. asks the opened descriptor what it is (`fstat`) and refuses anything
//!    but a regular file. This is the check that counts: it describes the
//!    very file that will be read or written.
//!
//! `O_NONBLOCK` is left set on the regular file that is kept: Linux, the
//! BSDs and macOS ignore it for regular files, so reads and writes behave
//! as usual.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

use super::{SandboxError, shown};

/// What a path is when it is not a regular file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecialFile {
    /// A directory.
    Directory,
    /// A named pipe: reading it waits for a writer, possibly forever.
    Fifo,
    /// A Unix domain socket.
    Socket,
    /// A character device (a terminal, `/dev/zero`, `/dev/random`).
    CharDevice,
    /// A block device (a disk).
    BlockDevice,
    /// Anything else the platform has.
    Other,
}

impl SpecialFile {
    /// `None` for a regular file, otherwise what it is.
    fn of(file_type: std::fs::FileType) -> Option<SpecialFile> {
        if file_type.is_file() {
            return None;
        }
        if file_type.is_dir() {
            return Some(SpecialFile::Directory);
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if file_type.is_fifo() {
                return Some(SpecialFile::Fifo);
            }
            if file_type.is_socket() {
                return Some(SpecialFile::Socket);
            }
            if file_type.is_char_device() {
                return Some(SpecialFile::CharDevice);
            }
            if file_type.is_block_device() {
                return Some(SpecialFile::BlockDevice);
            }
        }
        Some(SpecialFile::Other)
    }
}

impl fmt::Display for SpecialFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SpecialFile::Directory => "a directory",
            SpecialFile::Fifo => "a FIFO (named pipe)",
            SpecialFile::Socket => "a socket",
            SpecialFile::CharDevice => "a character device",
            SpecialFile::BlockDevice => "a block device",
            SpecialFile::Other => "not a regular file",
        })
    }
}

/// Why [`open_regular`] did not return a file.
#[derive(Debug)]
pub(crate) enum OpenError {
    /// The path exists but is not a regular file.
    NotRegular(SpecialFile),
    /// The operating system refused (not found, permission denied, ...).
    Io(io::Error),
}

/// The error type of a file tool, as far as opening its file goes: how it
/// says "a directory", "nothing there" and "the system refused". The rest
/// of the mapping (special files become
/// [`SandboxError::NotARegularFile`], every path is capped) is the same for
/// every tool and lives in [`OpenError::into_tool_error`].
pub(crate) trait OpenFailure: From<SandboxError> {
    /// The path is a directory.
    fn is_a_directory(path: String) -> Self;
    /// Nothing exists at the path. By default an I/O error like any other,
    /// for tools that create what is missing.
    fn not_found(path: String, source: io::Error) -> Self
    where
        Self: Sized,
    {
        Self::io(path, source)
    }
    /// The operating system refused for another reason.
    fn io(path: String, source: io::Error) -> Self;
}

impl OpenError {
    /// The tool error for this failure to open `path` (the path as the
    /// model wrote it; it is capped here).
    pub(crate) fn into_tool_error<E: OpenFailure>(self, path: &str) -> E {
        match self {
            OpenError::NotRegular(SpecialFile::Directory) => E::is_a_directory(shown(path)),
            OpenError::NotRegular(kind) => E::from(SandboxError::NotARegularFile {
                path: shown(path),
                kind,
            }),
            OpenError::Io(source) if source.kind() == io::ErrorKind::NotFound => {
                E::not_found(shown(path), source)
            }
            OpenError::Io(source) => E::io(shown(path), source),
        }
    }
}

impl From<io::Error> for OpenError {
    fn from(err: io::Error) -> Self {
        OpenError::Io(err)
    }
}

/// How a file is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// Read an existing file.
    Read,
    /// Write an existing file (read too, for a read-modify-write). Nothing
    /// is truncated or written through this descriptor by the tools: they
    /// replace the file whole (see `replace_contents`), and opening it for
    /// writing is how they check that the file is regular and theirs to
    /// change.
    ReadWrite,
    /// Create a new file; fails with `AlreadyExists` if anything is there,
    /// and never follows a symlink.
    CreateNew,
}

/// Opens `path` (an absolute path from [`Sandbox::resolve`](super::Sandbox::resolve))
/// if and only if it is a regular file; see the module documentation.
pub(crate) fn open_regular(path: &Path, access: Access) -> Result<File, OpenError> {
    if access != Access::CreateNew {
        // The early refusal: a special file is not even opened.
        let metadata = std::fs::symlink_metadata(path)?;
        if let Some(kind) = SpecialFile::of(metadata.file_type()) {
            // A symlink here means one was swapped in after `resolve`
            // (which returns a symlink-free path): refuse rather than follow.
            return Err(if metadata.file_type().is_symlink() {
                OpenError::Io(io::Error::other(
                    "the path became a symbolic link after it was checked",
                ))
            } else {
                OpenError::NotRegular(kind)
            });
        }
    }

    let mut options = OpenOptions::new();
    match access {
        Access::Read => options.read(true),
        Access::ReadWrite => options.read(true).write(true),
        Access::CreateNew => options.read(true).write(true).create_new(true),
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_NOCTTY);
    }
    let file = match options.open(path) {
        Ok(file) => file,
        Err(err) => return Err(explain_open_failure(path, err)),
    };
    // The check that closes the race: what was opened is what is used.
    if let Some(kind) = SpecialFile::of(file.metadata()?.file_type()) {
        return Err(OpenError::NotRegular(kind));
    }
    Ok(file)
}

/// A FIFO opened for writing with no reader fails with `ENXIO`, which reads
/// as "no such device or address"; say what the path really is instead.
fn explain_open_failure(path: &Path, err: io::Error) -> OpenError {
    match std::fs::symlink_metadata(path) {
        Ok(metadata) if !metadata.file_type().is_symlink() => {
            match SpecialFile::of(metadata.file_type()) {
                Some(kind) => OpenError::NotRegular(kind),
                None => OpenError::Io(err),
            }
        }
        _ => OpenError::Io(err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_open_and_directories_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "x").unwrap();
        assert!(open_regular(&file, Access::Read).is_ok());
        assert!(open_regular(&file, Access::ReadWrite).is_ok());
        assert!(matches!(
            open_regular(&file, Access::CreateNew),
            Err(OpenError::Io(err)) if err.kind() == io::ErrorKind::AlreadyExists
        ));
        assert!(matches!(
            open_regular(dir.path(), Access::Read),
            Err(OpenError::NotRegular(SpecialFile::Directory))
        ));
        assert!(matches!(
            open_regular(&dir.path().join("missing"), Access::Read),
            Err(OpenError::Io(err)) if err.kind() == io::ErrorKind::NotFound
        ));
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_refused_without_blocking() {
        for access in [Access::Read, Access::ReadWrite] {
            assert!(matches!(
                open_regular(Path::new("/dev/null"), access),
                Err(OpenError::NotRegular(SpecialFile::CharDevice))
            ));
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_in_the_last_component_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("real"), "x").unwrap();
        std::os::unix::fs::symlink("real", dir.path().join("link")).unwrap();
        assert!(matches!(
            open_regular(&dir.path().join("link"), Access::Read),
            Err(OpenError::Io(_))
        ));
        assert!(matches!(
            open_regular(&dir.path().join("link"), Access::CreateNew),
            Err(OpenError::Io(_))
        ));
    }
}
