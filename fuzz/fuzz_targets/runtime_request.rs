//! cargo-fuzz harness: see `targets::runtime_request`.
#![no_main]

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    targets::runtime_request(data);
});
