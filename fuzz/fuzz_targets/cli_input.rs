//! cargo-fuzz harness: see `targets::cli_input`.
#![no_main]

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    targets::cli_input(data);
});
