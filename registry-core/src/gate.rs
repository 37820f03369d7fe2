//! Compile-time gates: the `#[cfg]` predicate a tool was declared under,
//! kept as data so a tool that is compiled out still leaves a record.
//!
//! The record lets the catalog check names across every feature
//! combination, lets one catalog lock serve every feature set, and lets a
//! runtime explain a missing tool ("compiled out: `cfg(feature = "web")`").
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
/// use registry_core::CfgPredicate;
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

/// Whether some compilation can satisfy both gates (`None`: always
/// compiled). Conditions are treated as independent except where Rust fixes
/// them: single-valued target keys and the `unix`/`windows` families.
/// Unsure means yes, so a duplicate check errs towards reporting.
pub(crate) fn may_coexist(a: Option<&CfgPredicate>, b: Option<&CfgPredicate>) -> bool {
    let (Some(a), Some(b)) = (a, b) else {
        return true;
    };
    let mut atoms = Vec::new();
    collect_atoms(a, &mut atoms);
    collect_atoms(b, &mut atoms);
    if atoms.len() > MAX_ATOMS {
        return true;
    }
    (0u32..1 << atoms.len()).any(|bits| {
        let holds = |atom: Atom| {
            atoms
                .iter()
                .position(|known| *known == atom)
                .is_some_and(|i| bits & (1 << i) != 0)
        };
        consistent(&atoms, bits) && eval(a, &holds) && eval(b, &holds)
    })
}

/// One condition, with `unix`/`windows` folded into `target_family`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Atom {
    Name(&'static str),
    KeyValue(&'static str, &'static str),
}

fn atom_of(predicate: &CfgPredicate) -> Option<Atom> {
    match *predicate {
        CfgPredicate::Name(name) if EXCLUSIVE_FAMILIES.contains(&name) => {
            Some(Atom::KeyValue("target_family", name))
        }
        CfgPredicate::Name(name) => Some(Atom::Name(name)),
        CfgPredicate::KeyValue(key, value) => Some(Atom::KeyValue(key, value)),
        _ => None,
    }
}

fn collect_atoms(predicate: &CfgPredicate, atoms: &mut Vec<Atom>) {
    // Iterative, so a deeply nested predicate cannot overflow the stack.
    let mut stack = vec![predicate];
    while let Some(next) = stack.pop() {
        match next {
            CfgPredicate::All(items) | CfgPredicate::Any(items) => stack.extend(items.iter()),
            CfgPredicate::Not(inner) => stack.push(inner),
            leaf => {
                if let Some(atom) = atom_of(leaf)
                    && !atoms.contains(&atom)
                {
                    atoms.push(atom);
                }
            }
        }
    }
}

/// Whether an assignment respects the conditions Rust makes exclusive.
fn consistent(atoms: &[Atom], bits: u32) -> bool {
    let set: Vec<Atom> = atoms
        .iter()
        .enumerate()
        .filter(|(i, _)| bits & (1 << i) != 0)
        .map(|(_, atom)| *atom)
        .collect();
    set.iter().enumerate().all(|(i, a)| {
        set[i + 1..].iter().all(|b| match (a, b) {
            (Atom::KeyValue(ka, _), Atom::KeyValue(kb, _)) if ka == kb => {
                !(SINGLE_VALUED.contains(ka)
                    || (*ka == "target_family" && exclusive_families(a, b)))
            }
            _ => true,
        })
    })
}

fn exclusive_families(a: &Atom, b: &Atom) -> bool {
    matches!(
        (a, b),
        (Atom::KeyValue(_, x), Atom::KeyValue(_, y))
            if EXCLUSIVE_FAMILIES.contains(x) && EXCLUSIVE_FAMILIES.contains(y)
    )
}

fn eval(predicate: &CfgPredicate, holds: &impl Fn(Atom) -> bool) -> bool {
    match predicate {
        CfgPredicate::All(items) => items.iter().all(|p| eval(p, holds)),
        CfgPredicate::Any(items) => items.iter().any(|p| eval(p, holds)),
        CfgPredicate::Not(inner) => !eval(inner, holds),
        leaf => atom_of(leaf).is_some_and(holds),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(may_coexist(None, None));
        assert!(may_coexist(None, Some(&WEB)));
        assert!(may_coexist(Some(&CfgPredicate::Any(&[])), None));
    }

    #[test]
    fn a_gate_and_its_negation_never_coexist() {
        assert!(!may_coexist(Some(&WEB), Some(&NOT_WEB)));
        assert!(may_coexist(Some(&WEB), Some(&WEB)));
        assert!(may_coexist(
            Some(&WEB),
            Some(&CfgPredicate::KeyValue("feature", "extra"))
        ));
    }

    #[test]
    fn rust_exclusive_target_conditions_are_known() {
        assert!(!may_coexist(Some(&UNIX), Some(&WINDOWS)));
        assert!(!may_coexist(Some(&UNIX), Some(&WINDOWS_FAMILY)));
        assert!(!may_coexist(Some(&LINUX), Some(&MACOS)));
        assert!(may_coexist(Some(&UNIX), Some(&WASM)), "emscripten is both");
        assert!(may_coexist(Some(&UNIX), Some(&LINUX)));
    }

    #[test]
    fn an_unsatisfiable_gate_coexists_with_nothing() {
        const NEVER: CfgPredicate = CfgPredicate::Any(&[]);
        assert!(!may_coexist(Some(&NEVER), Some(&WEB)));
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
        assert!(may_coexist(Some(&MANY), Some(&OTHERS)));
    }
}
