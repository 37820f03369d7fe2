//! The one authoritative list: every `#[tool]` from every linked crate,
//! gated by runtime flags, constructed when the list is built, sorted by
//! name, with every name and alias unique across the catalog.
//!
//! This is the only place tools are collected. Narrowing, pools and renderers
//! start from a [`BaseTools`]; nothing else iterates the inventory.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::__private::ToolDeclaration;
use crate::definition::Origin;
use crate::error::{CatalogError, Claim, Collision, NameRole};
use crate::handle::ToolHandle;

/// One `#[tool]` as submitted to inventory: static facts plus a constructor
/// that runs only when a list is built.
///
/// Not public API. Used by generated code.
#[doc(hidden)]
pub struct Registration {
    name: &'static str,
    aliases: &'static [&'static str],
    flag: Option<&'static str>,
    origin: Origin,
    build: fn() -> ToolHandle,
}

impl Registration {
    /// Not public API. Used by generated code.
    pub const fn of<T: ToolDeclaration>() -> Self {
        Registration {
            name: T::NAME,
            aliases: T::ALIASES,
            flag: T::FLAG,
            origin: T::ORIGIN,
            build: build::<T>,
        }
    }
}

fn build<T: ToolDeclaration>() -> ToolHandle {
    ToolHandle::new(T::construct())
}

inventory::collect!(Registration);

/// A crate named in [`link!`](crate::link), so the list can say when a
/// linked crate contributed nothing.
///
/// Not public API. Used by [`link!`](crate::link).
#[doc(hidden)]
pub struct LinkedCrate(pub &'static str);

inventory::collect!(LinkedCrate);

/// The runtime flags a list is built with. A tool declared with
/// `flag = "NAME"` is in the list only when `NAME` is set.
///
/// ```
/// use registry_core::Flags;
///
/// let flags = Flags::new().with("web").with("beta");
/// assert!(flags.is_set("web"));
/// assert!(!flags.is_set("experimental"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Flags {
    set: BTreeSet<String>,
}

impl Flags {
    /// No flags set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets a flag.
    pub fn with(mut self, flag: impl Into<String>) -> Self {
        self.set.insert(flag.into());
        self
    }

    /// Reads a comma-separated list of flags from an environment variable
    /// (unset or empty means none).
    pub fn from_env(var: &str) -> Self {
        std::env::var(var)
            .map(|value| {
                value
                    .split(',')
                    .map(str::trim)
                    .filter(|f| !f.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether `flag` is set.
    pub fn is_set(&self, flag: &str) -> bool {
        self.set.contains(flag)
    }
}

impl<S: Into<String>> FromIterator<S> for Flags {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        Flags {
            set: iter.into_iter().map(Into::into).collect(),
        }
    }
}

/// The authoritative list of built-in tools, sorted by name.
#[derive(Debug, Clone)]
pub struct BaseTools {
    tools: Vec<ToolHandle>,
    /// Every name and alias, to the index of its tool.
    by_name: BTreeMap<String, (usize, NameRole)>,
}

impl BaseTools {
    /// The tools, sorted by name (byte order).
    pub fn iter(&self) -> std::slice::Iter<'_, ToolHandle> {
        self.tools.iter()
    }

    /// How many tools are in the list.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tool whose primary name is `name`.
    pub fn get(&self, name: &str) -> Option<&ToolHandle> {
        match self.by_name.get(name) {
            Some(&(index, NameRole::Name)) => Some(&self.tools[index]),
            _ => None,
        }
    }

    /// The tool `name` refers to, by primary name or alias, and which of
    /// the two it matched.
    pub fn resolve(&self, name: &str) -> Option<(&ToolHandle, NameRole)> {
        self.by_name
            .get(name)
            .map(|&(index, role)| (&self.tools[index], role))
    }

    /// The crates that contributed tools, sorted.
    pub fn crates(&self) -> BTreeSet<&'static str> {
        self.tools
            .iter()
            .map(|t| t.spec().origin().crate_name)
            .collect()
    }

    /// Fails naming the first crate in `crates` that contributed no tool:
    /// the guard against a tool crate that is a dependency but was never
    /// linked (see [`link!`](crate::link)). Crate names are spelled as
    /// `CARGO_CRATE_NAME` does (`-` becomes `_`).
    pub fn require_crates(&self, crates: &[&str]) -> Result<(), CatalogError> {
        let present = self.crates();
        match crates.iter().find(|c| !present.contains(**c)) {
            Some(missing) => Err(CatalogError::CrateNotLinked {
                crate_name: (*missing).to_owned(),
            }),
            None => Ok(()),
        }
    }
}

impl<'a> IntoIterator for &'a BaseTools {
    type Item = &'a ToolHandle;
    type IntoIter = std::slice::Iter<'a, ToolHandle>;

    fn into_iter(self) -> Self::IntoIter {
        self.tools.iter()
    }
}

/// Builds the authoritative list: every linked `#[tool]` whose runtime flag
/// (if any) is set in `flags`, constructed now, sorted by name.
///
/// Names and aliases are checked across every linked tool, flagged off or
/// not, so a clash cannot hide until someone flips a flag. Compile-time
/// `#[cfg]` gates have already removed their tools.
///
/// ```standalone_crate
/// let tools = registry_core::try_all_base_tools(&registry_core::Flags::new()).unwrap();
/// let names: Vec<_> = tools.iter().map(|t| t.name().to_owned()).collect();
/// let mut sorted = names.clone();
/// sorted.sort();
/// assert_eq!(names, sorted);
/// ```
pub fn try_all_base_tools(flags: &Flags) -> Result<BaseTools, CatalogError> {
    let mut registrations: Vec<&Registration> = inventory::iter::<Registration>().collect();
    // Inventory's order depends on link order; nothing downstream may see it.
    registrations.sort_by(|a, b| (a.name, &a.origin).cmp(&(b.name, &b.origin)));

    let collisions = find_collisions(&registrations);
    if !collisions.is_empty() {
        return Err(CatalogError::Collisions(collisions));
    }
    warn_about_empty_links(&registrations);

    let mut tools = Vec::with_capacity(registrations.len());
    for registration in registrations {
        if registration.flag.is_some_and(|flag| !flags.is_set(flag)) {
            continue;
        }
        let handle = catch_unwind(AssertUnwindSafe(registration.build)).map_err(|payload| {
            CatalogError::ConstructorPanicked {
                tool: registration.name.to_owned(),
                origin: registration.origin.clone(),
                message: crate::panic_message(payload.as_ref()),
            }
        })?;
        tools.push(handle);
    }

    let mut by_name = BTreeMap::new();
    for (index, tool) in tools.iter().enumerate() {
        by_name.insert(tool.name().to_owned(), (index, NameRole::Name));
        for alias in tool.spec().aliases() {
            by_name.insert(alias.clone(), (index, NameRole::Alias));
        }
    }
    Ok(BaseTools { tools, by_name })
}

/// [`try_all_base_tools`] for programs that cannot run with a broken
/// catalog.
///
/// # Panics
///
/// When the catalog is inconsistent; the message names every collision with
/// both definitions' crate, module, file and line.
pub fn all_base_tools(flags: &Flags) -> BaseTools {
    match try_all_base_tools(flags) {
        Ok(tools) => tools,
        Err(err) => panic!("the tool catalog is inconsistent: {err}"),
    }
}

fn find_collisions(registrations: &[&Registration]) -> Vec<Collision> {
    let mut claims: Vec<(&str, Claim)> = Vec::new();
    for registration in registrations {
        let claim = |role| Claim {
            tool: registration.name.to_owned(),
            role,
            origin: registration.origin.clone(),
        };
        claims.push((registration.name, claim(NameRole::Name)));
        for alias in registration.aliases {
            claims.push((alias, claim(NameRole::Alias)));
        }
    }
    claims.sort_by(|(a, ca), (b, cb)| {
        (a, role_rank(ca.role), &ca.tool, &ca.origin).cmp(&(
            b,
            role_rank(cb.role),
            &cb.tool,
            &cb.origin,
        ))
    });

    let mut collisions = Vec::new();
    for group in claims.chunk_by(|(a, _), (b, _)| a == b) {
        let Some(((name, first), rest)) = group.split_first() else {
            continue;
        };
        for (_, second) in rest {
            collisions.push(Collision {
                name: (*name).to_owned(),
                first: first.clone(),
                second: second.clone(),
            });
        }
    }
    collisions
}

fn role_rank(role: NameRole) -> u8 {
    match role {
        NameRole::Name => 0,
        NameRole::Alias => 1,
    }
}

fn warn_about_empty_links(registrations: &[&Registration]) {
    for linked in inventory::iter::<LinkedCrate>() {
        if !registrations
            .iter()
            .any(|r| r.origin.crate_name == linked.0)
        {
            tracing::warn!(
                crate_name = linked.0,
                "crate named in registry_core::link! contributes no tools (are they all behind cfg gates?)"
            );
        }
    }
}
