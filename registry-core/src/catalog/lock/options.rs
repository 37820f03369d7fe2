//! The one entry point of the catalog lock, [`check`], and its options.

use std::path::Path;

use super::check::{update, verify};
use super::{CatalogLock, LockError, LockReport};
use crate::catalog::base_list::{BaseTools, Flags};
use crate::input::handle::ToolHandle;

/// The environment variable that turns a check into an update:
/// `REGISTRY_UPDATE_LOCK`.
pub(crate) const UPDATE_LOCK_VAR: &str = "REGISTRY_UPDATE_LOCK";

/// Whether [`check`] compares, writes, or lets the environment decide.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LockMode {
    /// Write the lock when [`update_requested`] says so, compare otherwise.
    /// What a test suite wants: the same test checks in CI and updates on a
    /// developer's request.
    #[default]
    FromEnv,
    /// Compare; never write, whatever the environment says.
    Verify,
    /// Write, whatever the environment says, reporting what the update
    /// accepted relative to the previous file.
    Update,
}

/// Which tools a check covers.
#[derive(Debug, Clone)]
enum Catalog {
    /// Every linked `#[tool]`, with these runtime flags.
    Linked(Flags),
    /// Exactly these tools.
    Tools(Vec<ToolHandle>),
}

/// What [`check`] locks and how: by default the whole linked catalog with
/// every runtime flag set, in [`LockMode::FromEnv`].
///
/// ```
/// use registry_core::catalog::lock::{LockMode, LockOptions};
/// use registry_core::Flags;
///
/// let options = LockOptions::new()
///     .flags(Flags::new().with("web"))
///     .mode(LockMode::Verify);
/// # let _ = options;
/// ```
#[derive(Debug, Clone)]
pub struct LockOptions {
    catalog: Catalog,
    mode: LockMode,
}

impl Default for LockOptions {
    fn default() -> Self {
        LockOptions {
            catalog: Catalog::Linked(Flags::all()),
            mode: LockMode::FromEnv,
        }
    }
}

impl LockOptions {
    /// The whole linked catalog, every runtime flag set, mode
    /// [`LockMode::FromEnv`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Locks the linked catalog as built with `flags` (instead of
    /// [`Flags::all`]). Replaces an earlier [`tools`](Self::tools).
    pub fn flags(mut self, flags: Flags) -> Self {
        self.catalog = Catalog::Linked(flags);
        self
    }

    /// Locks exactly `tools` (a [`BaseTools`](crate::catalog::BaseTools), a slice or
    /// vector of handles) instead of the linked catalog. Replaces an
    /// earlier [`flags`](Self::flags).
    pub fn tools<'a>(mut self, tools: impl IntoIterator<Item = &'a ToolHandle>) -> Self {
        self.catalog = Catalog::Tools(tools.into_iter().cloned().collect());
        self
    }

    /// Whether to compare, write, or ask the environment.
    pub fn mode(mut self, mode: LockMode) -> Self {
        self.mode = mode;
        self
    }
}

/// Whether `UPDATE_LOCK_VAR` asks for an update: set, not empty, not `0`,
/// and not under CI (`CI` set to anything but empty or `false`). On CI an
/// update would make the check pass by rewriting the lock it guards, so
/// there the check always checks.
pub fn update_requested() -> bool {
    let set =
        |var: &str, off: &str| std::env::var_os(var).is_some_and(|v| !v.is_empty() && v != off);
    set(UPDATE_LOCK_VAR, "0") && !set("CI", "false")
}

/// Checks the catalog against the lock file at `path`, or writes the lock,
/// as `options` say. Prints nothing: the [`LockReport`] (notes, what an
/// update accepted) and the [`LockError`] (every problem, and what to do)
/// both display as the full message.
///
/// In a test, `lock::check(path, &LockOptions::new()).unwrap_or_else(|err| panic!("{err}"))`
/// shows the message as written; `unwrap()` would show its `Debug` form.
pub fn check(path: impl AsRef<Path>, options: &LockOptions) -> Result<LockReport, LockError> {
    let path = path.as_ref();
    let current = match &options.catalog {
        Catalog::Linked(flags) => CatalogLock::from_base(&BaseTools::linked(flags)?)?,
        Catalog::Tools(tools) => CatalogLock::from_tools(tools)?,
    };
    let write = match options.mode {
        LockMode::FromEnv => update_requested(),
        LockMode::Verify => false,
        LockMode::Update => true,
    };
    if write {
        update(path, &current)
    } else {
        verify(path, &current)
    }
}
