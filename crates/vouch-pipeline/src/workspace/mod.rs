//! The run's working directory as the agents' tools see it: paths resolved inside it or
//! refused (`paths`), and files opened, written and removed through the directory the path
//! resolved to, so that nothing can be swapped in between the check and the act (`files`).

mod files;
mod paths;

pub use files::Opened;
pub use paths::{Access, Refused, Workspace};
