//! Integration tests of running children: exit codes, standard input, merged and separate
//! output, caps, deadlines that kill whole process groups.

#![expect(clippy::unwrap_used, reason = "tests fail loudly")]

mod children;
mod sandbox;
