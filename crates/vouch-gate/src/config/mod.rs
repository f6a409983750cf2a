//! The pipeline configuration: its model, its YAML loader, and its errors.

mod error;
mod load;
mod model;
mod node;

pub use error::{ConfigError, ConfigErrors};
pub use load::{load, parse};
pub use model::{
    CommandPatterns, DEFAULT_ASSERTION_PATTERNS, Hooks, PipelineConfig, Route, Termination,
    TerminationKind, TestSelector, Validation, ValidatorRef,
};
pub use node::Location;
