//! A contract: a name and the predicates it requires, all of which must hold.

use crate::predicate::{GateContext, Predicate, Verdict, evaluate_all};

/// A named list of predicates, evaluated in order; the first that blocks blocks the contract.
#[derive(Debug)]
pub struct Contract {
    name: String,
    requires: Vec<Box<dyn Predicate>>,
}

impl Contract {
    /// Returns the contract `name` requiring `requires`.
    pub fn new(name: impl Into<String>, requires: Vec<Box<dyn Predicate>>) -> Contract {
        Contract {
            name: name.into(),
            requires,
        }
    }
}

impl Predicate for Contract {
    fn name(&self) -> &str {
        &self.name
    }

    fn evaluate(&self, cx: &GateContext<'_, '_>) -> Verdict {
        match evaluate_all(self.requires.iter().map(AsRef::as_ref), cx) {
            Verdict::Pass => Verdict::Pass,
            Verdict::Block(b) => {
                Verdict::block(format!("{}/{}", self.name, b.validator), b.message)
            }
        }
    }

    fn turns_needed(&self) -> Option<usize> {
        self.requires
            .iter()
            .map(|p| p.turns_needed())
            .try_fold(1, |acc, n| n.map(|n| acc.max(n)))
    }
}
