//! Fuzzes the Cursor reader.
#![no_main]

mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| common::read_as(data, vouch_session::Format::Cursor));
