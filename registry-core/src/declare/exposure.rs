//! What a tool contributes to the Rule of Two: the three properties of an
//! agent session of which, by Meta's "Agents Rule of Two" (and Simon
//! Willison's "lethal trifecta" before it), a session should hold at most
//! two without a person's say-so.
//!
//! A tool declares the properties its calls bring (`#[tool(rule_of_two =
//! [...])]`, [`ToolBuilder::rule_of_two`](crate::declare::ToolBuilder::rule_of_two));
//! unsaid, the strictest reading its other postures allow (see
//! [`SafetyPosture`](crate::declare::SafetyPosture)). The permission
//! pipeline enforces the rule (see [`RuleOfTwo`](crate::permission::RuleOfTwo)).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One property of the Rule of Two.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Exposure {
    /// \[A\] The call's output can carry instructions from someone other
    /// than the user: web pages, issues, mail, another agent's text.
    UntrustedInput,
    /// \[B\] The call's output is sensitive: files outside an allow list,
    /// secrets, personal data, a sensitive system.
    PrivateData,
    /// \[C\] The call changes state or communicates beyond the
    /// conversation (a write, a message, a request whose URL the model
    /// shapes).
    ExternalEffect,
}

impl Exposure {
    /// The three, in the policy's order (A, B, C).
    pub const ALL: [Exposure; 3] = [
        Exposure::UntrustedInput,
        Exposure::PrivateData,
        Exposure::ExternalEffect,
    ];

    /// The key as `#[tool(rule_of_two = [...])]` and records spell it.
    pub fn key(self) -> &'static str {
        match self {
            Exposure::UntrustedInput => "untrusted_input",
            Exposure::PrivateData => "private_data",
            Exposure::ExternalEffect => "external_effect",
        }
    }

    /// How an explanation names it ("processed untrusted input").
    pub(crate) fn acquired_as(self) -> &'static str {
        match self {
            Exposure::UntrustedInput => "processed untrusted input",
            Exposure::PrivateData => "accessed private data",
            Exposure::ExternalEffect => "had an external effect",
        }
    }

    /// How an explanation says a call would bring it ("would bring
    /// untrusted input").
    pub(crate) fn brought_as(self) -> &'static str {
        match self {
            Exposure::UntrustedInput => "would bring untrusted input",
            Exposure::PrivateData => "would access private data",
            Exposure::ExternalEffect => "would have an external effect",
        }
    }

    const fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for Exposure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

impl FromStr for Exposure {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Exposure::ALL
            .into_iter()
            .find(|exposure| exposure.key() == s)
            .ok_or_else(|| {
                format!(
                    "`{s}` is not a Rule of Two property; expected `untrusted_input`, `private_data` or `external_effect`"
                )
            })
    }
}

/// A set of [`Exposure`]s. Serialised as a list of keys, in the policy's
/// order.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Exposures(u8);

impl Exposures {
    /// No property.
    pub const NONE: Exposures = Exposures(0);
    /// All three: what the Rule of Two forbids without a person.
    pub const ALL: Exposures = Exposures(0b111);

    /// Whether `exposure` is in the set.
    pub fn contains(self, exposure: Exposure) -> bool {
        self.0 & exposure.bit() != 0
    }

    /// The set with `exposure` added.
    #[must_use]
    pub fn with(self, exposure: Exposure) -> Self {
        Exposures(self.0 | exposure.bit())
    }

    /// Both sets together.
    #[must_use]
    pub fn union(self, other: Exposures) -> Self {
        Exposures(self.0 | other.0)
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether all three are in the set.
    pub fn is_all(self) -> bool {
        self == Exposures::ALL
    }

    /// How many properties the set holds.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The members, in the policy's order.
    pub fn iter(self) -> impl Iterator<Item = Exposure> {
        Exposure::ALL
            .into_iter()
            .filter(move |exposure| self.contains(*exposure))
    }
}

impl FromIterator<Exposure> for Exposures {
    fn from_iter<T: IntoIterator<Item = Exposure>>(iter: T) -> Self {
        iter.into_iter().fold(Exposures::NONE, Exposures::with)
    }
}

impl fmt::Debug for Exposures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl fmt::Display for Exposures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, exposure) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(exposure.key())?;
        }
        f.write_str("]")
    }
}

impl Serialize for Exposures {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Exposures {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Vec::<Exposure>::deserialize(deserializer)?
            .into_iter()
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_round_trip_in_the_policy_order() {
        let set: Exposures = [Exposure::ExternalEffect, Exposure::UntrustedInput]
            .into_iter()
            .collect();
        assert_eq!(set.len(), 2);
        assert_eq!(set.to_string(), "[untrusted_input, external_effect]");
        let json = serde_json::to_string(&set).unwrap();
        assert_eq!(json, r#"["untrusted_input","external_effect"]"#);
        assert_eq!(serde_json::from_str::<Exposures>(&json).unwrap(), set);
        assert!(set.with(Exposure::PrivateData).is_all());
        assert!(serde_json::from_str::<Exposures>(r#"["secret"]"#).is_err());
        assert_eq!(
            "private_data".parse::<Exposure>(),
            Ok(Exposure::PrivateData)
        );
        assert!(
            "private"
                .parse::<Exposure>()
                .unwrap_err()
                .contains("`private`")
        );
    }
}
