//! The pipeline configuration: its model, its YAML loader, and its errors.

mod error;
pub(crate) mod load;
mod model;
mod node;
mod reader;
mod selection;

pub(crate) use error::did_you_mean;
pub use error::{ConfigError, ConfigErrors};
pub use load::parse_partial;
pub use load::{load, parse};
pub use model::{
    CommandPatterns, Condition, ConditionTest, Contract, ContractRef, DeclaredAgent, Hooks,
    MachineState, Magentic, PipelineConfig, PredicateRef, Route, Selection, SelectionKind,
    StateLink, Termination, TerminationKind, TestSelector, Validation, ValidatorRef, Verifier,
};
pub use node::{Location, Node};
pub use reader::{Map, Reader, parse_yaml};
