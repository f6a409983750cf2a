//! Stuck detection (decision G10): one counter per agent over every kind of correction,
//! reset by a clean turn; at the threshold the agent is stuck.

use serde::{Deserialize, Serialize};

/// The consecutive corrections of one agent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StuckCounter {
    /// Corrections in a row.
    pub consecutive: u32,
    /// The validator (or correction kind) of the latest one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validator: Option<String>,
    /// The message of the latest one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_message: Option<String>,
}

/// What one more correction makes of an agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Correction {
    /// Below the threshold: correct the agent; `consecutive` corrections so far, this one
    /// included.
    Correct {
        /// Corrections in a row, this one included.
        consecutive: u32,
    },
    /// At the threshold: the agent is stuck. The counter starts over.
    Stuck {
        /// Corrections in a row, this one included.
        failures: u32,
    },
}

impl StuckCounter {
    /// Counts one more correction by `validator` with `message`, against `threshold`.
    pub fn correct(&mut self, validator: &str, message: &str, threshold: u32) -> Correction {
        self.consecutive += 1;
        self.validator = Some(validator.to_owned());
        self.last_message = Some(message.to_owned());
        if self.consecutive >= threshold.max(1) {
            let failures = self.consecutive;
            self.consecutive = 0;
            Correction::Stuck { failures }
        } else {
            Correction::Correct {
                consecutive: self.consecutive,
            }
        }
    }

    /// Records a clean turn: the count starts over.
    pub fn reset(&mut self) {
        *self = StuckCounter::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_third_correction_in_a_row_is_stuck() {
        let mut c = StuckCounter::default();
        assert_eq!(
            c.correct("A", "m1", 3),
            Correction::Correct { consecutive: 1 }
        );
        assert_eq!(
            c.correct("B", "m2", 3),
            Correction::Correct { consecutive: 2 }
        );
        assert_eq!(c.correct("A", "m3", 3), Correction::Stuck { failures: 3 });
        assert_eq!(c.consecutive, 0);
        c.correct("A", "m4", 3);
        c.reset();
        assert_eq!(
            c.correct("A", "m5", 3),
            Correction::Correct { consecutive: 1 }
        );
    }
}
