//! The one authoritative list: every `#[tool]` from every linked crate,
//! gated by runtime flags, constructed when the list is built, sorted by
//! name, with every name and alias unique across the catalog.
//!
//! This is the only place tools are collected. Narrowing, pools and renderers
//! start from a [`BaseTools`]; nothing else iterates the inventory.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Mutex, PoisonError};

use crate::catalog::gate::{CfgPredicate, Gated, may_coexist};
use crate::declare::ObjectSchemaError;
use crate::declare::declared::ToolDeclaration;
use crate::declare::definition::Origin;
use crate::declare::tool::ToolInput;
use crate::input::handle::ToolHandle;
use crate::{
    catalog::{CatalogError, Claim, Collision},
    declare::NameRole,
};

/// One `#[tool]` as submitted to inventory: static facts plus a constructor
/// that runs only when a list is built.
///
/// A tool behind `#[cfg]` submits one of these either way: compiled in, with
/// its gate and constructor; compiled out, with its gate and no
/// constructor, so the catalog still knows its names.
///
/// Not public API. Used by generated code.
#[doc(hidden)]
pub struct Registration {
    name: &'static str,
    aliases: &'static [&'static str],
    flag: Option<&'static str>,
    origin: Origin,
    gate: Option<&'static CfgPredicate>,
    build: Option<fn() -> ToolHandle>,
    /// The input's schema, so a tool a runtime flag leaves out is checked
    /// for an object input too (`None` when compiled out).
    input_schema: Option<fn() -> serde_json::Value>,
}

impl Registration {
    /// Not public API. Used by generated code.
    pub const fn of<T: ToolDeclaration>() -> Self {
        Self::declared::<T>(None)
    }

    /// Not public API. A compiled-in tool and the `#[cfg]` gate it carries.
    pub const fn of_gated<T: ToolDeclaration>(gate: &'static CfgPredicate) -> Self {
        Self::declared::<T>(Some(gate))
    }

    const fn declared<T: ToolDeclaration>(gate: Option<&'static CfgPredicate>) -> Self {
        Registration {
            name: T::NAME,
            aliases: T::ALIASES,
            flag: T::FLAG,
            origin: T::ORIGIN,
            gate,
            build: Some(build::<T>),
            input_schema: Some(<T::Input as ToolInput>::__schema),
        }
    }

    /// Not public API. What a tool leaves when its `#[cfg]` gate removed it.
    pub const fn compiled_out(
        name: &'static str,
        aliases: &'static [&'static str],
        origin: Origin,
        gate: &'static CfgPredicate,
    ) -> Self {
        Registration {
            name,
            aliases,
            flag: None,
            origin,
            gate: Some(gate),
            build: None,
            input_schema: None,
        }
    }
}

fn build<T: ToolDeclaration>() -> ToolHandle {
    ToolHandle::new(T::construct())
}

inventory::collect!(Registration);

/// A crate named in [`link!`](crate::catalog::link), so the list can say when a
/// linked crate contributed nothing.
///
/// Not public API. Used by [`link!`](crate::catalog::link).
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
    all: bool,
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
            .map(|value| Self::parse(&value))
            .unwrap_or_default()
    }

    /// Parses a comma-separated list of flags; blanks around names and
    /// empty entries are ignored.
    pub fn parse(list: &str) -> Self {
        list.split(',')
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .collect()
    }

    /// Every flag set: the whole compiled-in catalog, for introspection and
    /// catalog locks. Not for serving a model.
    pub fn all() -> Self {
        Flags {
            set: BTreeSet::new(),
            all: true,
        }
    }

    /// Whether `flag` is set.
    pub fn is_set(&self, flag: &str) -> bool {
        self.all || self.set.contains(flag)
    }
}

impl<S: Into<String>> FromIterator<S> for Flags {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        Flags {
            set: iter.into_iter().map(Into::into).collect(),
            all: false,
        }
    }
}

/// The authoritative list of built-in tools, sorted by name.
#[derive(Debug, Clone)]
pub struct BaseTools {
    tools: Vec<ToolHandle>,
    /// Every name and alias, to the index of its tool.
    by_name: BTreeMap<String, (usize, NameRole)>,
    /// Crates that registered at least one tool, flagged off, compiled out
    /// or not: the proof a crate is linked, independent of flags and gates.
    linked: BTreeSet<&'static str>,
    /// The gate of every compiled-in tool that has one, by name.
    gates: BTreeMap<&'static str, &'static CfgPredicate>,
    /// Tools a `#[cfg]` gate removed from this build, sorted by name.
    compiled_out: Vec<CompiledOut>,
    /// Tools a runtime flag left out of this list, sorted by name.
    flagged_off: Vec<FlaggedOff>,
}

/// A tool whose `#[cfg]` gate removed it from this build: it cannot run,
/// but its names are still checked and it can be explained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledOut {
    /// The tool's primary name.
    pub name: &'static str,
    /// Its aliases.
    pub aliases: &'static [&'static str],
    /// Where it is declared.
    pub origin: Origin,
    /// The gate that does not hold in this build.
    pub gate: CfgPredicate,
}

/// A compiled-in tool whose runtime flag is not set for this list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlaggedOff {
    /// The tool's primary name.
    pub name: &'static str,
    /// Its aliases.
    pub aliases: &'static [&'static str],
    /// The flag that would bring it in.
    pub flag: &'static str,
}

/// Why a name is not in a [`BaseTools`] list although some linked crate
/// declares it: the answer [`BaseTools::explain_missing`] gives.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Missing {
    /// A `#[cfg]` gate removed the tool at compile time.
    #[error("tool `{tool}` is compiled out of this build: `cfg({gate})` does not hold")]
    CompiledOut {
        /// The tool's primary name (the asked name may be an alias).
        tool: &'static str,
        /// The gate.
        gate: CfgPredicate,
    },
    /// A runtime flag was not set when the list was built.
    #[error("tool `{tool}` is behind the runtime flag `{flag}`, which is not set")]
    FlaggedOff {
        /// The tool's primary name (the asked name may be an alias).
        tool: &'static str,
        /// The flag.
        flag: &'static str,
    },
}

impl BaseTools {
    /// Builds the authoritative list: every linked `#[tool]` whose runtime flag
    /// (if any) is set in `flags`, constructed now, sorted by name.
    ///
    /// Names and aliases are checked across every linked tool, flagged off or
    /// not, so a clash cannot hide until someone flips a flag. Tools a `#[cfg]`
    /// gate compiled out are not in the list, but their names are checked too
    /// (a clash that needs a feature turned on fails every build) and
    /// [`BaseTools::explain_missing`] can name their gate.
    ///
    /// ```standalone_crate
    /// let tools = registry_core::catalog::BaseTools::linked(&registry_core::Flags::new()).unwrap();
    /// let names: Vec<_> = tools.iter().map(|t| t.name().to_owned()).collect();
    /// let mut sorted = names.clone();
    /// sorted.sort();
    /// assert_eq!(names, sorted);
    /// ```
    pub fn linked(flags: &Flags) -> Result<BaseTools, CatalogError> {
        warn_about_empty_links();
        build_list(inventory::iter::<Registration>().collect(), flags)
    }

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

    /// The crates linked into this binary that declare tools, whether or
    /// not a runtime flag left their tools out of this list; sorted.
    pub fn crates(&self) -> &BTreeSet<&'static str> {
        &self.linked
    }

    /// Tools whose `#[cfg]` gate removed them from this build, sorted by
    /// name: they cannot run, but their names were checked for clashes.
    pub fn compiled_out(&self) -> &[CompiledOut] {
        &self.compiled_out
    }

    /// The `#[cfg]` gate of a compiled-in tool, by primary name.
    pub fn gate_of(&self, name: &str) -> Option<&CfgPredicate> {
        self.gates.get(name).copied()
    }

    /// Why `name` (a primary name or an alias) is not in this list although
    /// a linked crate declares it; `None` when it is in the list or nothing
    /// declares it. Narrowing layers above the list (deny rules, modes,
    /// `enabled`) are explained by the pool, not here.
    pub fn explain_missing(&self, name: &str) -> Option<Missing> {
        if self.by_name.contains_key(name) {
            return None;
        }
        let claims = |tool: &str, aliases: &[&str]| tool == name || aliases.contains(&name);
        if let Some(tool) = self.flagged_off.iter().find(|t| claims(t.name, t.aliases)) {
            return Some(Missing::FlaggedOff {
                tool: tool.name,
                flag: tool.flag,
            });
        }
        self.compiled_out
            .iter()
            .find(|t| claims(t.name, t.aliases))
            .map(|t| Missing::CompiledOut {
                tool: t.name,
                gate: t.gate,
            })
    }

    /// Fails naming the first crate in `crates` that declares no tool in
    /// this binary: the guard against a tool crate that is a dependency but
    /// was never linked (see [`link!`](crate::link)). Runtime flags do not
    /// matter here: a crate whose tools are all flagged off is still linked.
    /// Package names (`my-tools`) and crate names (`my_tools`) both work.
    pub fn require_crates(&self, crates: &[&str]) -> Result<(), CatalogError> {
        for name in crates {
            let crate_name = name.replace('-', "_");
            if !self.linked.contains(crate_name.as_str()) {
                return Err(CatalogError::CrateNotLinked { crate_name });
            }
        }
        Ok(())
    }
}

impl BaseTools {
    /// Not public API: a list from explicit handles, for benchmarks and
    /// tests of narrowing at scale. Programs get the authoritative list from
    /// [`BaseTools::linked`]. Sorts by name and rejects collisions like it.
    #[doc(hidden)]
    pub fn __from_handles(mut tools: Vec<ToolHandle>) -> Result<BaseTools, CatalogError> {
        for tool in &tools {
            crate::declare::require_object_schema(tool.input_schema()).map_err(|source| {
                CatalogError::InputNotObject {
                    tool: tool.name().to_owned(),
                    origin: tool.spec().origin().clone(),
                    source,
                }
            })?;
        }
        tools.sort_by(|a, b| a.name().cmp(b.name()));
        let collisions = find_collisions(tools.iter().map(|t| {
            let spec = t.spec();
            Definition {
                name: spec.name(),
                aliases: spec.aliases().iter().map(String::as_str).collect(),
                origin: spec.origin(),
                gate: None,
                compiled_out: false,
            }
        }));
        if !collisions.is_empty() {
            return Err(CatalogError::Collisions(collisions));
        }
        let mut by_name = BTreeMap::new();
        for (index, tool) in tools.iter().enumerate() {
            let spec = tool.spec();
            index_names(
                &mut by_name,
                index,
                spec.name(),
                spec.aliases().iter().map(String::as_str),
            );
        }
        let linked = tools.iter().map(|t| t.spec().origin().crate_name).collect();
        Ok(BaseTools {
            tools,
            by_name,
            linked,
            gates: BTreeMap::new(),
            compiled_out: Vec::new(),
            flagged_off: Vec::new(),
        })
    }
}

impl<'a> IntoIterator for &'a BaseTools {
    type Item = &'a ToolHandle;
    type IntoIter = std::slice::Iter<'a, ToolHandle>;

    fn into_iter(self) -> Self::IntoIter {
        self.tools.iter()
    }
}

/// The list from an explicit set of registrations (inventory's, in
/// production).
fn build_list(
    mut registrations: Vec<&Registration>,
    flags: &Flags,
) -> Result<BaseTools, CatalogError> {
    // Inventory's order depends on link order; nothing downstream may see it.
    registrations.sort_by(|a, b| (a.name, &a.origin).cmp(&(b.name, &b.origin)));

    // Compiled-out tools take part: a clash that exists only with some
    // feature on is reported in every build, unless the two gates can
    // never hold together (`cfg(unix)` and `cfg(windows)` twins).
    let collisions = find_collisions(registrations.iter().map(|r| Definition {
        name: r.name,
        aliases: r.aliases.to_vec(),
        origin: &r.origin,
        gate: r.gate,
        compiled_out: r.build.is_none(),
    }));
    if !collisions.is_empty() {
        return Err(CatalogError::Collisions(collisions));
    }

    let mut list = BaseTools {
        tools: Vec::with_capacity(registrations.len()),
        by_name: BTreeMap::new(),
        linked: registrations.iter().map(|r| r.origin.crate_name).collect(),
        gates: BTreeMap::new(),
        compiled_out: Vec::new(),
        flagged_off: Vec::new(),
    };
    // Names are indexed from the same static data the collision check read,
    // so what resolves is exactly what was checked.
    for registration in registrations {
        let Some(build) = registration.build else {
            if let Some(gate) = registration.gate {
                list.compiled_out.push(CompiledOut {
                    name: registration.name,
                    aliases: registration.aliases,
                    origin: registration.origin.clone(),
                    gate: *gate,
                });
            }
            continue;
        };
        if let Some(flag) = registration.flag.filter(|flag| !flags.is_set(flag)) {
            // Not built, but held to the same input rule: flipping the flag
            // must not be what reveals a broken definition.
            if let Some(schema) = registration.input_schema {
                flagged_off_check(registration, schema).map_err(|source| {
                    CatalogError::InputNotObject {
                        tool: registration.name.to_owned(),
                        origin: registration.origin.clone(),
                        source,
                    }
                })?;
            }
            list.flagged_off.push(FlaggedOff {
                name: registration.name,
                aliases: registration.aliases,
                flag,
            });
            continue;
        }
        let handle = catch_unwind(AssertUnwindSafe(build)).map_err(|payload| {
            CatalogError::ConstructorPanicked {
                tool: registration.name.to_owned(),
                origin: registration.origin.clone(),
                message: crate::text::panic_message(payload.as_ref()),
            }
        })?;
        require_object_input(registration, handle.input_schema())?;
        handle.check_input_examples()?;
        index_names(
            &mut list.by_name,
            list.tools.len(),
            registration.name,
            registration.aliases.iter().copied(),
        );
        if let Some(gate) = registration.gate {
            list.gates.insert(registration.name, gate);
        }
        list.tools.push(handle);
    }
    Ok(list)
}

/// The object-input check of a tool a runtime flag leaves out, computed
/// once per process and tool (lists are built often; schemas are not free).
fn flagged_off_check(
    registration: &Registration,
    schema: fn() -> serde_json::Value,
) -> Result<(), ObjectSchemaError> {
    type Key = (&'static str, &'static str, u32);
    static CHECKED: Mutex<BTreeMap<Key, Result<(), ObjectSchemaError>>> =
        Mutex::new(BTreeMap::new());
    let key = (
        registration.name,
        registration.origin.file,
        registration.origin.line,
    );
    let mut checked = CHECKED.lock().unwrap_or_else(PoisonError::into_inner);
    checked
        .entry(key)
        .or_insert_with(|| crate::declare::require_object_schema(&schema()))
        .clone()
}

fn require_object_input(
    registration: &Registration,
    schema: &serde_json::Value,
) -> Result<(), CatalogError> {
    crate::declare::require_object_schema(schema).map_err(|source| CatalogError::InputNotObject {
        tool: registration.name.to_owned(),
        origin: registration.origin.clone(),
        source,
    })
}

/// Points a tool's name and aliases at its index in the list.
fn index_names<'a>(
    by_name: &mut BTreeMap<String, (usize, NameRole)>,
    index: usize,
    name: &str,
    aliases: impl Iterator<Item = &'a str>,
) {
    by_name.insert(name.to_owned(), (index, NameRole::Name));
    for alias in aliases {
        by_name.insert(alias.to_owned(), (index, NameRole::Alias));
    }
}

/// What the collision check reads of one definition.
struct Definition<'a> {
    name: &'a str,
    aliases: Vec<&'a str>,
    origin: &'a Origin,
    gate: Option<&'static CfgPredicate>,
    compiled_out: bool,
}

/// Every name or alias claimed twice among the definitions, in a stable
/// order. Each later claim of a name is paired with the first earlier claim
/// whose gate can hold together with its own.
fn find_collisions<'a>(definitions: impl IntoIterator<Item = Definition<'a>>) -> Vec<Collision> {
    let mut claims: Vec<(&str, Claim)> = Vec::new();
    for definition in definitions {
        let claim = |role| Claim {
            tool: definition.name.to_owned(),
            role,
            origin: definition.origin.clone(),
            gate: definition.gate.copied(),
            compiled_out: definition.compiled_out,
        };
        claims.push((definition.name, claim(NameRole::Name)));
        for alias in &definition.aliases {
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
        for (later, (name, second)) in group.iter().enumerate().skip(1) {
            // Two definitions compiled into this build always clash;
            // otherwise only when some build can compile both.
            let earlier = group[..later].iter().find(|(_, first)| {
                (!first.compiled_out && !second.compiled_out)
                    || may_coexist(
                        Gated {
                            crate_name: first.origin.crate_name,
                            gate: first.gate.as_ref(),
                        },
                        Gated {
                            crate_name: second.origin.crate_name,
                            gate: second.gate.as_ref(),
                        },
                    )
            });
            if let Some((_, first)) = earlier {
                collisions.push(Collision {
                    name: (*name).to_owned(),
                    first: first.clone(),
                    second: second.clone(),
                });
            }
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

fn warn_about_empty_links() {
    for linked in inventory::iter::<LinkedCrate>() {
        let mut registrations =
            inventory::iter::<Registration>().filter(|r| r.origin.crate_name == linked.0);
        match registrations.next() {
            None => tracing::warn!(
                crate_name = linked.0,
                "crate named in registry_core::link! declares no tools"
            ),
            Some(first) if first.build.is_none() && registrations.all(|r| r.build.is_none()) => {
                tracing::warn!(
                    crate_name = linked.0,
                    "every tool of a crate named in registry_core::link! is compiled out by its #[cfg] gate"
                )
            }
            Some(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declare::ToolBuilder;
    use crate::declare::output::ToolOutput;

    const fn origin(crate_name: &'static str, line: u32) -> Origin {
        Origin {
            crate_name,
            module_path: crate_name,
            file: "src/lib.rs",
            line,
        }
    }

    fn runtime_tool(name: &str) -> ToolHandle {
        ToolBuilder::new(name, "A test tool.")
            .build(|_, _| async { Ok(ToolOutput::text("ok")) })
            .unwrap_or_else(|err| panic!("{err}"))
    }

    macro_rules! registration {
        ($name:literal, [$($alias:literal),*], $flag:expr, $origin:expr) => {
            registration!($name, [$($alias),*], $flag, $origin, None)
        };
        ($name:literal, [$($alias:literal),*], $flag:expr, $origin:expr, $gate:expr) => {
            Registration {
                name: $name,
                aliases: &[$($alias),*],
                flag: $flag,
                origin: $origin,
                gate: $gate,
                build: Some(|| runtime_tool($name)),
                input_schema: Some(|| serde_json::json!({ "type": "object" })),
                }
        };
    }

    static ZETA: Registration = registration!("zeta", ["z"], None, origin("crate_a", 10));
    static ALPHA: Registration =
        registration!("alpha", ["a", "first"], None, origin("crate_a", 20));
    static FLAGGED: Registration = registration!("beta", [], Some("beta"), origin("crate_b", 5));
    static STEALS_Z: Registration =
        registration!("omega", ["z"], Some("off"), origin("crate_b", 7));
    static SECOND_ALPHA: Registration = registration!("alpha", [], None, origin("crate_c", 3));
    static PANICS: Registration = Registration {
        name: "broken",
        aliases: &[],
        flag: None,
        origin: origin("crate_d", 1),
        gate: None,
        build: Some(|| panic!("no config file")),
        input_schema: None,
    };

    const EXTRA: CfgPredicate = CfgPredicate::KeyValue("feature", "extra");
    const UNIX: CfgPredicate = CfgPredicate::Name("unix");
    const NOT_UNIX: CfgPredicate = CfgPredicate::Not(&UNIX);

    /// Compiled out, and claims `z`, which `zeta` holds in every build.
    static EXTRA_OUT: Registration =
        Registration::compiled_out("extra", &["z"], origin("crate_e", 4), &EXTRA);
    /// `shell` twice, under gates that never hold together.
    static SHELL_UNIX: Registration =
        registration!("shell", ["sh"], None, origin("crate_f", 1), Some(&UNIX));
    static SHELL_OTHER: Registration =
        Registration::compiled_out("shell", &["sh"], origin("crate_f", 9), &NOT_UNIX);
    /// Compiled out, claims nothing anyone else claims.
    static WEB_OUT: Registration = Registration::compiled_out(
        "web_fetch",
        &["fetch"],
        origin("crate_g", 2),
        &CfgPredicate::KeyValue("feature", "web"),
    );

    /// Flagged off, with a string input no provider accepts.
    static FLAGGED_STRING_INPUT: Registration = Registration {
        name: "shout",
        aliases: &[],
        flag: Some("loud"),
        origin: origin("crate_h", 3),
        gate: None,
        build: Some(|| runtime_tool("shout")),
        input_schema: Some(|| serde_json::json!({ "type": "string" })),
    };

    const X: CfgPredicate = CfgPredicate::KeyValue("feature", "x");
    const NOT_X: CfgPredicate = CfgPredicate::Not(&X);
    /// `dup` in crate_i under `feature = "x"` and in crate_j under
    /// `not(feature = "x")`: one crate's feature says nothing of the other's.
    static DUP_X: Registration = registration!("dup", [], None, origin("crate_i", 1), Some(&X));
    static DUP_NOT_X: Registration =
        registration!("dup", [], None, origin("crate_j", 1), Some(&NOT_X));
    static DUP_NOT_X_OUT: Registration =
        Registration::compiled_out("dup", &[], origin("crate_j", 1), &NOT_X);

    fn names(tools: &BaseTools) -> Vec<&str> {
        tools.iter().map(ToolHandle::name).collect()
    }

    #[test]
    fn the_list_is_sorted_whatever_the_link_order() {
        let flags = Flags::new().with("beta");
        let forward = build_list(vec![&ZETA, &ALPHA, &FLAGGED], &flags).unwrap();
        let backward = build_list(vec![&FLAGGED, &ALPHA, &ZETA], &flags).unwrap();
        assert_eq!(names(&forward), ["alpha", "beta", "zeta"]);
        assert_eq!(names(&forward), names(&backward));
    }

    #[test]
    fn runtime_flags_gate_at_list_build() {
        let without = build_list(vec![&ZETA, &FLAGGED], &Flags::new()).unwrap();
        assert_eq!(names(&without), ["zeta"]);
        let with = build_list(vec![&ZETA, &FLAGGED], &Flags::new().with("beta")).unwrap();
        assert_eq!(names(&with), ["beta", "zeta"]);
    }

    #[test]
    fn names_and_aliases_resolve() {
        let tools = build_list(vec![&ZETA, &ALPHA], &Flags::new()).unwrap();
        assert_eq!(
            tools.resolve("first").map(|(t, r)| (t.name(), r)),
            Some(("alpha", NameRole::Alias))
        );
        assert_eq!(
            tools.resolve("alpha").map(|(t, r)| (t.name(), r)),
            Some(("alpha", NameRole::Name))
        );
        assert!(
            tools.get("first").is_none(),
            "get() only takes primary names"
        );
        assert!(tools.resolve("nothing").is_none());
    }

    #[test]
    fn an_alias_clash_with_a_flagged_off_tool_is_still_an_error() {
        let Err(CatalogError::Collisions(collisions)) =
            build_list(vec![&ZETA, &STEALS_Z], &Flags::new())
        else {
            panic!("expected a collision");
        };
        assert_eq!(collisions.len(), 1);
        assert_eq!(
            collisions[0].to_string(),
            "`z` is claimed twice: as an alias of tool `omega` (crate `crate_b`, module `crate_b`, src/lib.rs:7) \
             and as an alias of tool `zeta` (crate `crate_a`, module `crate_a`, src/lib.rs:10)"
        );
    }

    #[test]
    fn every_collision_is_reported_in_a_stable_order() {
        let run = |regs: Vec<&Registration>| match build_list(regs, &Flags::new()) {
            Err(err) => err.to_string(),
            Ok(_) => panic!("expected collisions"),
        };
        let one = run(vec![&SECOND_ALPHA, &ZETA, &ALPHA, &STEALS_Z]);
        let two = run(vec![&STEALS_Z, &ALPHA, &ZETA, &SECOND_ALPHA]);
        assert_eq!(one, two);
        assert!(
            one.starts_with("2 tool name collision(s) in the linked catalog:\n"),
            "{one}"
        );
        assert!(
            one.contains("`alpha` is claimed twice: as the name of tool `alpha` (crate `crate_a`"),
            "{one}"
        );
        assert!(
            one.contains(
                "and as the name of tool `alpha` (crate `crate_c`, module `crate_c`, src/lib.rs:3)"
            ),
            "{one}"
        );
    }

    #[test]
    fn a_panicking_constructor_is_an_error_naming_the_tool() {
        let err = build_list(vec![&ZETA, &PANICS], &Flags::new()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "constructing tool `broken` (crate `crate_d`, module `crate_d`, src/lib.rs:1) panicked: no config file"
        );
    }

    #[test]
    fn require_crates_names_the_missing_crate() {
        // crate_b's only tool here is flagged off: it is linked all the same.
        let tools = build_list(vec![&ZETA, &ALPHA, &FLAGGED], &Flags::new()).unwrap();
        assert_eq!(names(&tools), ["alpha", "zeta"]);
        assert!(tools.require_crates(&[]).is_ok());
        assert!(tools.require_crates(&["crate_a", "crate_b"]).is_ok());
        assert!(
            tools.require_crates(&["crate-a"]).is_ok(),
            "package spelling"
        );
        let err = tools.require_crates(&["crate-z"]).unwrap_err();
        assert!(
            err.to_string().contains("registry_core::link!(crate_z);"),
            "{err}"
        );
    }

    #[test]
    fn a_list_from_handles_is_sorted_and_checked_like_the_real_one() {
        let tools = BaseTools::__from_handles(vec![runtime_tool("b"), runtime_tool("a")]).unwrap();
        assert_eq!(names(&tools), ["a", "b"]);
        assert!(tools.resolve("a").is_some());
        let clash = BaseTools::__from_handles(vec![runtime_tool("a"), runtime_tool("a")]);
        assert!(matches!(clash, Err(CatalogError::Collisions(c)) if c.len() == 1));
    }

    #[test]
    fn flags_parse_from_a_comma_separated_list() {
        let flags = Flags::parse(" web, beta,,");
        assert_eq!(flags, Flags::new().with("beta").with("web"));
        assert!(flags.is_set("web") && flags.is_set("beta"));
        assert_eq!(Flags::parse(""), Flags::new());
        assert_eq!(
            Flags::from_env("REGISTRY_CORE_TEST_SURELY_UNSET_VAR"),
            Flags::new()
        );
        assert!(!flags.is_set(""));
        assert!(Flags::all().is_set("anything"));
    }

    #[test]
    fn a_clash_with_a_compiled_out_tool_fails_this_build_too() {
        let err = build_list(vec![&ZETA, &EXTRA_OUT], &Flags::new()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "1 tool name collision(s) in the linked catalog:\n  \
             - `z` is claimed twice: as an alias of tool `extra` (crate `crate_e`, module `crate_e`, src/lib.rs:4, \
             under `cfg(feature = \"extra\")`, compiled out of this build) \
             and as an alias of tool `zeta` (crate `crate_a`, module `crate_a`, src/lib.rs:10)"
        );
    }

    #[test]
    fn twins_under_exclusive_gates_do_not_clash() {
        let tools = build_list(vec![&SHELL_OTHER, &SHELL_UNIX, &ZETA], &Flags::new()).unwrap();
        assert_eq!(names(&tools), ["shell", "zeta"]);
        assert_eq!(tools.gate_of("shell"), Some(&UNIX));
        assert_eq!(tools.gate_of("zeta"), None);
        assert_eq!(tools.resolve("sh").map(|(t, _)| t.name()), Some("shell"));
        assert_eq!(tools.compiled_out().len(), 1);
        assert_eq!(tools.compiled_out()[0].gate, NOT_UNIX);
    }

    #[test]
    fn a_missing_tool_is_explained_by_its_gate_or_flag() {
        let tools = build_list(vec![&ZETA, &WEB_OUT, &FLAGGED], &Flags::new()).unwrap();
        assert_eq!(names(&tools), ["zeta"]);
        let compiled_out = tools.explain_missing("fetch").unwrap();
        assert_eq!(
            compiled_out,
            Missing::CompiledOut {
                tool: "web_fetch",
                gate: CfgPredicate::KeyValue("feature", "web"),
            }
        );
        assert_eq!(
            compiled_out.to_string(),
            "tool `web_fetch` is compiled out of this build: `cfg(feature = \"web\")` does not hold"
        );
        assert_eq!(
            tools.explain_missing("beta").unwrap().to_string(),
            "tool `beta` is behind the runtime flag `beta`, which is not set"
        );
        assert_eq!(tools.explain_missing("zeta"), None, "present");
        assert_eq!(tools.explain_missing("nothing"), None, "unknown");
        assert!(
            tools.require_crates(&["crate_g"]).is_ok(),
            "compiled out, still linked"
        );
    }

    #[test]
    fn a_flagged_off_tool_is_held_to_the_object_input_rule() {
        let err = build_list(vec![&ZETA, &FLAGGED_STRING_INPUT], &Flags::new()).unwrap_err();
        assert!(
            matches!(&err, CatalogError::InputNotObject { tool, .. } if tool == "shout"),
            "{err}"
        );
        assert!(err.to_string().contains("crate `crate_h`"), "{err}");
    }

    #[test]
    fn feature_gates_of_different_crates_do_not_exclude_each_other() {
        for pair in [vec![&DUP_X, &DUP_NOT_X], vec![&DUP_X, &DUP_NOT_X_OUT]] {
            let err = build_list(pair, &Flags::new()).unwrap_err();
            assert!(
                matches!(&err, CatalogError::Collisions(c) if c.len() == 1 && c[0].name == "dup"),
                "{err}"
            );
        }
    }
}
