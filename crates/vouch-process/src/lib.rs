//! Running a child process the way every part of vouch needs it: in a process group of its
//! own, standard input written or closed, output captured (merged or separate, capped with its
//! head and tail kept), a timeout that kills the whole group, the exit status and elapsed time.
//!
//! # Overview
//!
//! - [`run`] with [`Options`]: a prepared [`std::process::Command`] run to its end or its
//!   deadline, answered as [`Finished`].
//! - [`shell`]: a script run by `sh -c` in a folder, output merged.
//! - [`EnvPolicy`]: the environment of a command an agent wrote, by allowlist.
//! - [`find_on_path`], [`shell_quote`] and the text clips [`clip::head`] and [`clip::tail`].
//!
//! ```
//! use std::time::Duration;
//!
//! let done = vouch_process::shell("echo hi; exit 3", ".".as_ref(), Duration::from_secs(10))?;
//! assert_eq!(done.exit_code, Some(3));
//! assert_eq!(done.stdout_text(), "hi\n");
//! assert!(!done.succeeded() && !done.timed_out);
//! # Ok::<(), std::io::Error>(())
//! ```

#![deny(missing_docs)]

mod agent_cli;
mod capture;
pub mod clip;
mod copy;
mod env;
mod escape;
mod group;
mod keeper;
mod path;
mod run;
mod sandbox;

pub use copy::copy_dir;
pub use env::{BASE as BASE_ENV, EnvPolicy, looks_secret};
pub use escape::{Escaped, TAG_ENV, kill_tagged};
pub use keeper::{Keeper, serve as serve_keeper};
pub use path::{find_on_path, find_on_process_path, shell_quote};
pub use run::{Finished, GroupEvent, OnGroup, Options, run, shell};
pub use sandbox::{SYSTEM_READ, Sandbox, SandboxError, Support, TOOLCHAINS, support};
