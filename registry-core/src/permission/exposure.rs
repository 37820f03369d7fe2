//! Which Rule of Two properties a conversation has acquired, and from
//! which calls: what the permission pipeline weighs a call against (see
//! [`RuleOfTwo`](crate::permission::RuleOfTwo)). The
//! [`Session`](crate::session::Session) owns it, as it owns its grants;
//! each call's context carries it to the pipeline ([`CallExposure`]).
//!
//! Only calls that were allowed to run add to it, and nothing leaves it: a
//! conversation that has read a web page has read it for good. It travels
//! in the session's record, so every replica that restores the
//! conversation weighs its calls against the same history (restores and
//! merges take the union).

use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use crate::declare::{Exposure, Exposures};

/// How many calls are named per property: enough to explain, bounded so a
/// long conversation's record does not grow with every call.
const NAMED_PER_EXPOSURE: usize = 3;

/// One call that brought a Rule of Two property to a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExposedBy {
    /// The property.
    pub exposure: Exposure,
    /// The tool called (its primary name).
    pub tool: String,
    /// The call's id.
    pub call_id: String,
}

/// The conversation's acquired properties, in each call's context (the
/// executor puts its session's there): crate-private, so no runtime can
/// put another in its place.
pub(crate) struct CallExposure(pub(crate) Arc<Acquired>);

/// A conversation's acquired properties: the first calls that brought
/// each, in the order they ran.
#[derive(Debug, Default)]
pub(crate) struct Acquired {
    by: Mutex<Vec<ExposedBy>>,
}

/// Why a call was not admitted: it would complete the three, after these
/// calls brought the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WouldComplete {
    pub(crate) earlier: Vec<ExposedBy>,
}

impl Acquired {
    /// The properties acquired so far.
    pub(crate) fn exposures(&self) -> Exposures {
        self.lock().iter().map(|by| by.exposure).collect()
    }

    /// The calls that brought them (at most a few per property), in the
    /// order they ran.
    pub(crate) fn calls(&self) -> Vec<ExposedBy> {
        self.lock().clone()
    }

    /// Whether a call bringing `brings` would complete the three: it
    /// brings something, and with what is acquired, that is all three.
    /// `Err` names the calls that brought the others.
    pub(crate) fn check(&self, brings: Exposures) -> Result<(), WouldComplete> {
        check(&self.lock(), brings)
    }

    /// Records a call that runs, unless (with `unless_completing`) it
    /// would complete the three: one step under one lock, so two calls of
    /// one turn deciding at once cannot each pass on the other's behalf.
    pub(crate) fn admit(
        &self,
        brings: Exposures,
        tool: &str,
        call_id: &str,
        unless_completing: bool,
    ) -> Result<(), WouldComplete> {
        let mut by = self.lock();
        if unless_completing {
            check(&by, brings)?;
        }
        for exposure in brings.iter() {
            add(
                &mut by,
                ExposedBy {
                    exposure,
                    tool: tool.to_owned(),
                    call_id: call_id.to_owned(),
                },
            );
        }
        Ok(())
    }

    /// Takes in a stored list (a record restored or merged): the union.
    pub(crate) fn restore(&self, stored: Vec<ExposedBy>) {
        let mut by = self.lock();
        for entry in stored {
            add(&mut by, entry);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<ExposedBy>> {
        self.by.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn check(by: &[ExposedBy], brings: Exposures) -> Result<(), WouldComplete> {
    let acquired: Exposures = by.iter().map(|by| by.exposure).collect();
    if brings.is_empty() || !acquired.union(brings).is_all() {
        return Ok(());
    }
    Err(WouldComplete {
        earlier: by.to_vec(),
    })
}

/// Adds `entry` unless it is already there or its property names enough
/// calls.
fn add(by: &mut Vec<ExposedBy>, entry: ExposedBy) {
    let named = by.iter().filter(|e| e.exposure == entry.exposure).count();
    if named < NAMED_PER_EXPOSURE && !by.contains(&entry) {
        by.push(entry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(exposures: &[Exposure]) -> Exposures {
        exposures.iter().copied().collect()
    }

    #[test]
    fn the_third_property_is_refused_and_names_the_calls_that_brought_the_others() {
        let acquired = Acquired::default();
        acquired
            .admit(set(&[Exposure::UntrustedInput]), "web_fetch", "c1", true)
            .unwrap();
        acquired
            .admit(set(&[Exposure::PrivateData]), "read_file", "c2", true)
            .unwrap();
        // A call that brings nothing never completes anything.
        acquired.check(Exposures::NONE).unwrap();
        // Bringing what is already there is fine.
        acquired.check(set(&[Exposure::PrivateData])).unwrap();
        let refused = acquired
            .admit(set(&[Exposure::ExternalEffect]), "send", "c3", true)
            .unwrap_err();
        assert_eq!(refused.earlier.len(), 2);
        assert_eq!(refused.earlier[0].tool, "web_fetch");
        assert_eq!(acquired.exposures().len(), 2, "a refused call adds nothing");
        // Admitted with a person's say-so, it is recorded.
        acquired
            .admit(set(&[Exposure::ExternalEffect]), "send", "c3", false)
            .unwrap();
        assert!(acquired.exposures().is_all());
    }

    #[test]
    fn restores_take_the_union_and_stay_bounded() {
        let acquired = Acquired::default();
        for i in 0..10 {
            acquired
                .admit(
                    set(&[Exposure::PrivateData]),
                    "read_file",
                    &format!("c{i}"),
                    true,
                )
                .unwrap();
        }
        assert_eq!(acquired.calls().len(), NAMED_PER_EXPOSURE);
        acquired.restore(vec![ExposedBy {
            exposure: Exposure::UntrustedInput,
            tool: "web_fetch".into(),
            call_id: "r1".into(),
        }]);
        acquired.restore(acquired.calls());
        assert_eq!(acquired.calls().len(), NAMED_PER_EXPOSURE + 1);
        assert_eq!(
            acquired.exposures(),
            set(&[Exposure::UntrustedInput, Exposure::PrivateData])
        );
    }
}
