//! Faults: opt-in misbehaviours of the dashboard's controls, for testing that a replay notices
//! when an action had no effect or not the effect it had when recorded. Each is a small
//! script the dashboard adds (see `dashboard_script`); the markup and pixels do not change.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

/// One way a dashboard control misbehaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Fault {
    /// "Save draft" (`#modal-save`) ignores clicks: the modal stays open and no row appears.
    SaveIgnoresClicks,
    /// The "Mark as sent" checkbox (`#modal-sent`) ignores clicks: it stays unchecked. Turns
    /// the checkbox on, since a fault on a control that is not there would test nothing.
    MarkSentIgnoresClicks,
    /// The amount field (`#modal-amount`) drops every `.` typed into it, on each `input`
    /// event: typing `120.00` leaves `12000`.
    AmountRewritten,
}

impl Fault {
    /// Every fault, in the order they are listed and displayed.
    pub const ALL: [Fault; 3] = [
        Fault::SaveIgnoresClicks,
        Fault::MarkSentIgnoresClicks,
        Fault::AmountRewritten,
    ];

    /// The name used in `?fault=` and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Fault::SaveIgnoresClicks => "save-ignores-clicks",
            Fault::MarkSentIgnoresClicks => "mark-sent-ignores-clicks",
            Fault::AmountRewritten => "amount-rewritten",
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set of faults, written as a comma-separated list (`save-ignores-clicks,amount-rewritten`;
/// `none` or the empty text is the empty set).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Faults(BTreeSet<Fault>);

impl Faults {
    /// No fault.
    pub fn none() -> Faults {
        Faults::default()
    }

    /// The set holding `faults`.
    pub fn of(faults: &[Fault]) -> Faults {
        Faults(faults.iter().copied().collect())
    }

    /// Whether `fault` is in the set.
    pub fn contains(&self, fault: Fault) -> bool {
        self.0.contains(&fault)
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The faults in their listed order.
    pub fn iter(&self) -> impl Iterator<Item = Fault> + '_ {
        self.0.iter().copied()
    }
}

/// A fault list naming an unknown fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown fault {name:?} in {value:?}; expected a comma-separated list of \
     `save-ignores-clicks`, `mark-sent-ignores-clicks`, `amount-rewritten` (or `none`)"
)]
pub struct FaultParseError {
    /// The whole list that was given.
    pub value: String,
    /// The name that is not a fault.
    pub name: String,
}

impl FromStr for Faults {
    type Err = FaultParseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut faults = BTreeSet::new();
        for name in text
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
        {
            if name.eq_ignore_ascii_case("none") {
                continue;
            }
            let fault = Fault::ALL
                .into_iter()
                .find(|fault| fault.as_str().eq_ignore_ascii_case(name))
                .ok_or_else(|| FaultParseError {
                    value: text.to_owned(),
                    name: name.to_owned(),
                })?;
            faults.insert(fault);
        }
        Ok(Faults(faults))
    }
}

impl fmt::Display for Faults {
    /// The comma-separated list; `none` for the empty set.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("none");
        }
        let names: Vec<&str> = self.iter().map(Fault::as_str).collect();
        f.write_str(&names.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_in_any_order_and_display_canonically() {
        let faults: Faults = " amount-rewritten, save-ignores-clicks ".parse().unwrap();
        assert!(faults.contains(Fault::AmountRewritten));
        assert!(faults.contains(Fault::SaveIgnoresClicks));
        assert!(!faults.contains(Fault::MarkSentIgnoresClicks));
        assert_eq!(faults.to_string(), "save-ignores-clicks,amount-rewritten");
        assert_eq!("".parse::<Faults>().unwrap(), Faults::none());
        assert_eq!("none".parse::<Faults>().unwrap(), Faults::none());
        assert_eq!(Faults::none().to_string(), "none");
        for fault in Fault::ALL {
            assert_eq!(
                fault.as_str().parse::<Faults>().unwrap(),
                Faults::of(&[fault])
            );
        }
    }

    #[test]
    fn an_unknown_fault_is_named_with_the_list() {
        let error = "save-ignores-clicks,slow".parse::<Faults>().unwrap_err();
        assert_eq!(error.name, "slow");
        let message = error.to_string();
        assert!(message.contains("\"slow\""), "{message}");
        assert!(
            message.contains("\"save-ignores-clicks,slow\""),
            "{message}"
        );
        assert!(message.contains("`amount-rewritten`"), "{message}");
    }
}
