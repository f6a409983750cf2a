//! A tiny JSON reader.

pub mod parser;
