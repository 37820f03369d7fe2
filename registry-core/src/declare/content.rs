//! What a call's content rules (`Tool(content)`) are matched against: the
//! text a tool names as its permission content, and what kind of text it
//! is.
//!
//! The kind decides how the text is read, never whether: a shell command
//! is read once, by [`shell_reading`], into every program the shell will
//! start (through quoting, paths, wrappers, substitutions, functions and
//! `sh -c` strings), and rules are matched against those programs; a path
//! is compared as written (lexically normalised, so `src/./secret` and
//! `src/x/../secret` cannot slip past a rule for `src/secret`) and as the
//! file the operating system will open ([`path::resolve`](crate::path::resolve)).
//!
//! This module owns the content; how a pattern reaches into it lives in
//! [`reach`](super::reach), the pattern forms in
//! [`pattern`](super::pattern).

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use shell_reading::CommandLine;

use crate::path::normalize_path;

/// How a content text is compared with rule patterns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ContentKind {
    /// Opaque text, compared as written (a URL, a query).
    Text,
    /// A shell command line, read by [`shell_reading`]: a deny or ask rule
    /// covers it when it covers any program the line may start (as named,
    /// or by the name the shell looks up: `/bin/rm` is `rm`), and an allow
    /// rule only when every program is covered by an allow rule, named as
    /// written, once wrappers are peeled. A line the reader cannot vouch
    /// for is uncheckable (see the [pipeline](crate::permission::PermissionPolicy)).
    Command,
    /// A file path, normalised lexically (see [`normalize_path`](crate::path::normalize_path)) and
    /// resolved as the OS will (see [`path`](crate::path)). `prefix:*` ends
    /// at a path-component boundary.
    Path,
}

/// A call's permission content: the text content rules are matched
/// against, with its kind. Tools produce it from their parsed input in
/// [`Tool::permission_content`](crate::declare::Tool::permission_content).
///
/// ```
/// use registry_core::PermissionContent;
///
/// let path = PermissionContent::path("./src/../secrets//key.pem");
/// assert_eq!(path.as_str(), "secrets/key.pem");
///
/// let command = PermissionContent::command("git status");
/// assert_eq!(command.as_str(), "git status");
/// assert!(command.command_line().unwrap().reading().is_checkable());
/// ```
///
/// Cloning is cheap (the text is shared, never copied): the pipeline hands
/// the content to an approver, and a content can be as long as the
/// arguments it was made from.
#[derive(Debug, Clone)]
pub struct PermissionContent {
    inner: Arc<Inner>,
}

#[derive(Debug)]
enum Inner {
    Text(String),
    Command(Arc<CommandLine>),
    Path(String),
}

impl PartialEq for PermissionContent {
    fn eq(&self, other: &Self) -> bool {
        self.kind() == other.kind() && self.as_str() == other.as_str()
    }
}

impl Eq for PermissionContent {}

impl Hash for PermissionContent {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.kind().hash(state);
        self.as_str().hash(state);
    }
}

impl PermissionContent {
    /// Opaque text, compared as written.
    pub fn text(text: impl Into<String>) -> Self {
        PermissionContent::of(Inner::Text(text.into()))
    }

    /// A shell command line, kept as written and read once (see
    /// `ContentKind::Command`).
    pub fn command(command: impl Into<String>) -> Self {
        Self::from_command_line(Arc::new(CommandLine::new(command)))
    }

    /// A command line already read: a tool that reads its command for its
    /// own decisions (posture, hardening) shares that one reading with the
    /// rules.
    pub fn from_command_line(line: Arc<CommandLine>) -> Self {
        PermissionContent::of(Inner::Command(line))
    }

    /// A file path, normalised lexically with `normalize_path` (a path
    /// longer than [`MAX_PATH_BYTES`](crate::path::MAX_PATH_BYTES) is kept
    /// as written: it cannot be resolved, so no rule can be checked
    /// against it).
    pub fn path(path: impl AsRef<str>) -> Self {
        let path = path.as_ref();
        let text = if path.len() > crate::path::MAX_PATH_BYTES {
            path.to_owned()
        } else {
            normalize_path(path)
        };
        PermissionContent::of(Inner::Path(text))
    }

    fn of(inner: Inner) -> Self {
        PermissionContent {
            inner: Arc::new(inner),
        }
    }

    /// How the text is compared.
    pub(crate) fn kind(&self) -> ContentKind {
        match *self.inner {
            Inner::Text(_) => ContentKind::Text,
            Inner::Command(_) => ContentKind::Command,
            Inner::Path(_) => ContentKind::Path,
        }
    }

    /// The text (for a path, the normalised path).
    pub fn as_str(&self) -> &str {
        match &*self.inner {
            Inner::Text(text) | Inner::Path(text) => text,
            Inner::Command(line) => line.text(),
        }
    }

    /// The command line and its reading, for command content.
    pub fn command_line(&self) -> Option<&CommandLine> {
        match &*self.inner {
            Inner::Command(line) => Some(line),
            _ => None,
        }
    }

    /// Consumes the content, returning its text (moved out when this is
    /// the only clone, else copied).
    pub fn into_string(self) -> String {
        match Arc::try_unwrap(self.inner) {
            Ok(Inner::Text(text) | Inner::Path(text)) => text,
            Ok(Inner::Command(line)) => line.text().to_owned(),
            Err(shared) => PermissionContent { inner: shared }.as_str().to_owned(),
        }
    }
}
