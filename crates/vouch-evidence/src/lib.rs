//! Evidence of an agent's work: what its orchestrator recorded and what it left on disk, joined
//! with its session so that validators can ask one place.
//!
//! # Overview
//!
//! - [`ChangeLog`]: `changes.json`, read case-insensitively and appended to with [`append`]
//!   under an exclusive lock and an atomic replace.
//! - [`Brief`], [`TestReport`], [`Review`]: the Planner's brief, the Tester's report and the
//!   Reviewer's judgement, parsed tolerantly (unknown fields ignored) but precisely (a wrong
//!   shape is reported with its JSON path).
//! - [`EvidenceView`]: a session joined with all of the above.
//!
//! ```
//! use vouch_evidence::{Review, same_file};
//!
//! let message = "All good.\n```json\n{\"review\": [{\"criterion\": \"adds\", \"verdict\": \"PASS\", \"evidence\": \"ran cargo test\"}]}\n```\nAPPROVED";
//! let review = Review::find(message).unwrap();
//! assert!(review.review[0].passed());
//! assert!(same_file("./src/Lib.rs", "/repo/src/lib.rs"));
//! ```

#![deny(missing_docs)]

mod brief;
mod changelog;
mod comments;
mod error;
mod own_entries;
mod ran_nothing;
mod receipt;
mod review;
mod script;
mod shapes;
mod store;
mod strict;
mod test_report;
mod view;

pub use brief::{Brief, Criterion, FileRef};
pub use changelog::{
    Appended, ChangeEntry, ChangeLog, CommandReceipt, CommandRun, NewCommand, NewTurn, OUTPUT_CAP,
    ToolCallRun, append, new_session_id,
};
pub use comments::strip_comments;
pub use error::Error;
pub use own_entries::{AppendedEntry, OwnEntries};
pub use ran_nothing::{RanNothing, ran_nothing};
pub use receipt::{Origin, Receipt};
pub use review::{Review, ReviewEntry};
pub use script::{Claim, Script};
pub use store::{update as update_locked, write_atomically};
pub use strict::{Rejection, Unbacked, backing, passing_programs, passing_run, sentinel_source};
pub use test_report::{TestReport, TestResultRow};
pub use view::{
    ArtifactPaths, Call, CallIndex, EvidenceView, StrictReceipts, Unreadable, same_file,
};
