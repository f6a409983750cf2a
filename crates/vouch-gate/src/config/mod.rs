//! The pipeline configuration: its model, its YAML loader, and its errors.

mod error;
pub(crate) mod load;
mod model;
mod node;
mod reader;

pub(crate) use error::did_you_mean;
pub use error::{ConfigError, ConfigErrors};
pub(crate) use load::parse_partial;
pub use load::{load, parse};
pub use model::{
    CommandPatterns, Contract, ContractRef, DeclaredAgent, Hooks, MachineState, PipelineConfig,
    PredicateRef, Route, StateLink, Termination, TerminationKind, TestSelector, Validation,
    ValidatorRef,
};
pub use node::{Location, Node};
pub use reader::{Map, Reader, parse_yaml};
