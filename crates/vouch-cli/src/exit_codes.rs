//! The exit codes of every vouch command, in one place.

/// Everything checked passed.
pub(crate) const PASS: u8 = 0;
/// A check failed: a gate blocked, a test failed, a task document is invalid.
pub(crate) const CHECK_FAILED: u8 = 1;
/// Bad usage, a bad configuration, or input that could not be read (bad log lines included).
pub(crate) const INPUT_ERROR: u8 = 2;
/// A gate blocked the same agent past its threshold: the agent is stuck.
pub(crate) const STUCK: u8 = 3;
/// A run was interrupted by the user (Ctrl-C): 128 plus SIGINT, as shells report it.
pub(crate) const INTERRUPTED: u8 = 130;
