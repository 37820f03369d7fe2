//! Compile-time gates: the `#[cfg]` predicate a tool was declared under,
//! kept as data so a tool that is compiled out still leaves a record.
//!
//! The record lets the catalog check names across every feature
//! combination, lets one catalog lock serve every feature set, and lets a
//! runtime explain a missing tool ("tool `web_fetch` is compiled out of this
//! build: `cfg(feature = "web")` does not hold").
//! This module only describes and compares predicates; it never decides
//! whether a tool is in the list (the compiler already did).

use std::fmt;

/// A `#[cfg]` predicate as written on a tool, in the shape `#[tool]` emits
/// it as a constant.
///
/// Several gates on one struct are combined with [`All`](Self::All); a
/// `#[cfg_attr(c, cfg(p))]` gate becomes `any(not(c), p)`.
///
/// ```
/// use registry_core::catalog::CfgPredicate;
///
/// const WEB: CfgPredicate = CfgPredicate::KeyValue("feature", "web");
/// const UNIX_WEB: CfgPredicate = CfgPredicate::All(&[CfgPredicate::Name("unix"), WEB]);
/// assert_eq!(UNIX_WEB.to_string(), r#"all(unix, feature = "web")"#);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CfgPredicate {
    /// A bare name: `unix`, `test`, `debug_assertions`.
    Name(&'static str),
    /// `key = "value"`: `feature = "web"`, `target_os = "linux"`.
    KeyValue(&'static str, &'static str),
    /// `all(...)`; `all()` is always true.
    All(&'static [CfgPredicate]),
    /// `any(...)`; `any()` is always false.
    Any(&'static [CfgPredicate]),
    /// `not(...)`.
    Not(&'static CfgPredicate),
}

impl fmt::Display for CfgPredicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, head: &str, items: &[CfgPredicate]| {
            f.write_str(head)?;
            f.write_str("(")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{item}")?;
            }
            f.write_str(")")
        };
        match self {
            CfgPredicate::Name(name) => f.write_str(name),
            CfgPredicate::KeyValue(key, value) => write!(f, "{key} = {value:?}"),
            CfgPredicate::All(items) => list(f, "all", items),
            CfgPredicate::Any(items) => list(f, "any", items),
            CfgPredicate::Not(inner) => write!(f, "not({inner})"),
        }
    }
}

/// The most distinct conditions two predicates may mention before
/// [`may_coexist`] stops enumerating and assumes they can (the safe answer
/// for a duplicate check).
const MAX_ATOMS: usize = 16;

/// Configuration keys that take exactly one value per compilation, so two
/// different values of one key never hold together.
const SINGLE_VALUED: &[&str] = &[
    "target_arch",
    "target_os",
    "target_env",
    "target_abi",
    "target_vendor",
    "target_endian",
    "target_pointer_width",
    "panic",
];

/// Target families no target belongs to at once (`target_family` itself is
/// multi-valued: emscripten is both `unix` and `wasm`).
const EXCLUSIVE_FAMILIES: &[&str] = &["unix", "windows"];

/// A gate as the duplicate check sees it: the predicate and the crate it
/// was written in.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Gated<'a> {
    /// The crate whose `#[tool]` carries the gate.
    pub(crate) crate_name: &'a str,
    /// The gate; `None`: always compiled.
    pub(crate) gate: Option<&'a CfgPredicate>,
}

/// Whether some build of one binary can compile both gated definitions.
///
/// Target conditions (`target_*` keys, `unix`, `windows`, `panic`) are the
/// same for every crate of a build, and Rust fixes some of them as
/// exclusive (single-valued keys, the `unix`/`windows` families). Every
/// other condition (features, `test`, `debug_assertions`, a build
/// script's cfgs) belongs to its crate: `feature = "x"` in one crate and
/// `not(feature = "x")` in another can hold together. Unsure means yes, so
/// a duplicate check errs towards reporting.
pub(crate) fn may_coexist(a: Gated<'_>, b: Gated<'_>) -> bool {
    let (Some(gate_a), Some(gate_b)) = (a.gate, b.gate) else {
        return true;
    };
    let mut atoms = Vec::new();
    collect_atoms(gate_a, a.crate_name, &mut atoms);
    collect_atoms(gate_b, b.crate_name, &mut atoms);
    if atoms.len() > MAX_ATOMS {
        return true;
    }
    (0u32..1 << atoms.len()).any(|bits| {
        let holds = |atom: Atom<'_>| {
            atoms
                .iter()
                .position(|known| *known == atom)
                .is_some_and(|i| bits & (1 << i) != 0)
        };
        consistent(&atoms, bits)
            && eval(gate_a, a.crate_name, &holds)
            && eval(gate_b, b.crate_name, &holds)
    })
}

/// One condition, with `unix`/`windows` folded into `target_family`.
/// `scope` is empty for target conditions and the crate name otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Atom<'a> {
    scope: &'a str,
    kind: AtomKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AtomKind {
    Name(&'static str),
    KeyValue(&'static str, &'static str),
}

/// Conditions the whole build shares, whichever crate tests them.
fn is_target_condition(kind: AtomKind) -> bool {
    match kind {
        AtomKind::KeyValue(key, _) => key.starts_with("target_") || key == "panic",
        AtomKind::Name(_) => false,
    }
}

fn atom_of<'a>(predicate: &CfgPredicate, crate_name: &'a str) -> Option<Atom<'a>> {
    let kind = match *predicate {
        CfgPredicate::Name(name) if EXCLUSIVE_FAMILIES.contains(&name) => {
            AtomKind::KeyValue("target_family", name)
        }
        CfgPredicate::Name(name) => AtomKind::Name(name),
        CfgPredicate::KeyValue(key, value) => AtomKind::KeyValue(key, value),
        _ => return None,
    };
    let scope = if is_target_condition(kind) {
        ""
    } else {
        crate_name
    };
    Some(Atom { scope, kind })
}

fn collect_atoms<'a>(predicate: &CfgPredicate, crate_name: &'a str, atoms: &mut Vec<Atom<'a>>) {
    // Iterative, so a deeply nested predicate cannot overflow the stack.
    let mut stack = vec![predicate];
    while let Some(next) = stack.pop() {
        match next {
            CfgPredicate::All(items) | CfgPredicate::Any(items) => stack.extend(items.iter()),
            CfgPredicate::Not(inner) => stack.push(inner),
            leaf => {
                if let Some(atom) = atom_of(leaf, crate_name)
                    && !atoms.contains(&atom)
                {
                    atoms.push(atom);
                }
            }
        }
    }
}

/// Whether an assignment respects the conditions Rust makes exclusive.
fn consistent(atoms: &[Atom<'_>], bits: u32) -> bool {
    let set: Vec<AtomKind> = atoms
        .iter()
        .enumerate()
        .filter(|(i, _)| bits & (1 << i) != 0)
        .map(|(_, atom)| atom.kind)
        .collect();
    set.iter().enumerate().all(|(i, a)| {
        set[i + 1..].iter().all(|b| match (a, b) {
            (AtomKind::KeyValue(ka, _), AtomKind::KeyValue(kb, _)) if ka == kb => {
                !(SINGLE_VALUED.contains(ka)
                    || (*ka == "target_family" && exclusive_families(a, b)))
            }
            _ => true,
        })
    })
}

fn exclusive_families(a: &AtomKind, b: &AtomKind) -> bool {
    matches!(
        (a, b),
        (AtomKind::KeyValue(_, x), AtomKind::KeyValue(_, y))
            if EXCLUSIVE_FAMILIES.contains(x) && EXCLUSIVE_FAMILIES.contains(y)
    )
}

fn eval<'a>(
    predicate: &CfgPredicate,
    crate_name: &'a str,
    holds: &impl Fn(Atom<'a>) -> bool,
) -> bool {
    match predicate {
        CfgPredicate::All(items) => items.iter().all(|p| eval(p, crate_name, holds)),
        CfgPredicate::Any(items) => items.iter().any(|p| eval(p, crate_name, holds)),
        CfgPredicate::Not(inner) => !eval(inner, crate_name, holds),
        leaf => atom_of(leaf, crate_name).is_some_and(holds),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both gates in one crate.
    fn same_crate(a: Option<&CfgPredicate>, b: Option<&CfgPredicate>) -> bool {
        may_coexist(
            Gated {
                crate_name: "c",
                gate: a,
            },
            Gated {
                crate_name: "c",
                gate: b,
            },
        )
    }

    const WEB: CfgPredicate = CfgPredicate::KeyValue("feature", "web");
    const NOT_WEB: CfgPredicate = CfgPredicate::Not(&WEB);
    const UNIX: CfgPredicate = CfgPredicate::Name("unix");
    const WINDOWS: CfgPredicate = CfgPredicate::Name("windows");
    const WINDOWS_FAMILY: CfgPredicate = CfgPredicate::KeyValue("target_family", "windows");
    const LINUX: CfgPredicate = CfgPredicate::KeyValue("target_os", "linux");
    const MACOS: CfgPredicate = CfgPredicate::KeyValue("target_os", "macos");
    const WASM: CfgPredicate = CfgPredicate::KeyValue("target_family", "wasm");

    #[test]
    fn predicates_display_as_rust_writes_them() {
        const GATE: CfgPredicate = CfgPredicate::All(&[
            WEB,
            CfgPredicate::Any(&[CfgPredicate::Name("debug_assertions"), NOT_WEB]),
        ]);
        assert_eq!(
            GATE.to_string(),
            r#"all(feature = "web", any(debug_assertions, not(feature = "web")))"#
        );
        assert_eq!(CfgPredicate::All(&[]).to_string(), "all()");
    }

    #[test]
    fn an_ungated_tool_coexists_with_everything() {
        assert!(same_crate(None, None));
        assert!(same_crate(None, Some(&WEB)));
        assert!(same_crate(Some(&CfgPredicate::Any(&[])), None));
    }

    #[test]
    fn a_gate_and_its_negation_never_coexist() {
        assert!(!same_crate(Some(&WEB), Some(&NOT_WEB)));
        assert!(same_crate(Some(&WEB), Some(&WEB)));
        assert!(same_crate(
            Some(&WEB),
            Some(&CfgPredicate::KeyValue("feature", "extra"))
        ));
    }

    #[test]
    fn rust_exclusive_target_conditions_are_known() {
        assert!(!same_crate(Some(&UNIX), Some(&WINDOWS)));
        assert!(!same_crate(Some(&UNIX), Some(&WINDOWS_FAMILY)));
        assert!(!same_crate(Some(&LINUX), Some(&MACOS)));
        assert!(same_crate(Some(&UNIX), Some(&WASM)), "emscripten is both");
        assert!(same_crate(Some(&UNIX), Some(&LINUX)));
    }

    #[test]
    fn an_unsatisfiable_gate_coexists_with_nothing() {
        const NEVER: CfgPredicate = CfgPredicate::Any(&[]);
        assert!(!same_crate(Some(&NEVER), Some(&WEB)));
    }

    #[test]
    fn too_many_conditions_err_towards_reporting() {
        const MANY: CfgPredicate = CfgPredicate::All(&[
            CfgPredicate::Name("a0"),
            CfgPredicate::Name("a1"),
            CfgPredicate::Name("a2"),
            CfgPredicate::Name("a3"),
            CfgPredicate::Name("a4"),
            CfgPredicate::Name("a5"),
            CfgPredicate::Name("a6"),
            CfgPredicate::Name("a7"),
            CfgPredicate::Name("a8"),
        ]);
        const OTHERS: CfgPredicate = CfgPredicate::All(&[
            CfgPredicate::Name("b0"),
            CfgPredicate::Name("b1"),
            CfgPredicate::Name("b2"),
            CfgPredicate::Name("b3"),
            CfgPredicate::Name("b4"),
            CfgPredicate::Name("b5"),
            CfgPredicate::Name("b6"),
            CfgPredicate::Name("b7"),
            CfgPredicate::Not(&CfgPredicate::Name("a0")),
        ]);
        // Exclusive in truth (a0 and not a0), but past the bound: reported.
        assert!(same_crate(Some(&MANY), Some(&OTHERS)));
    }

    #[test]
    fn features_and_other_crate_conditions_belong_to_their_crate() {
        let in_crate = |crate_name, gate| Gated {
            crate_name,
            gate: Some(gate),
        };
        // `x` on in crate a and off in crate b: both compiled at once.
        assert!(may_coexist(in_crate("a", &WEB), in_crate("b", &NOT_WEB)));
        const TEST: CfgPredicate = CfgPredicate::Name("test");
        const NOT_TEST: CfgPredicate = CfgPredicate::Not(&TEST);
        assert!(may_coexist(in_crate("a", &TEST), in_crate("b", &NOT_TEST)));
        assert!(!may_coexist(in_crate("a", &TEST), in_crate("a", &NOT_TEST)));
        // Target conditions are the build's, whichever crate tests them.
        assert!(!may_coexist(in_crate("a", &UNIX), in_crate("b", &WINDOWS)));
        assert!(!may_coexist(in_crate("a", &LINUX), in_crate("b", &MACOS)));
    }
}
