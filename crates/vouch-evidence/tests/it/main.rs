//! Integration tests of vouch-evidence.

mod concurrency;
