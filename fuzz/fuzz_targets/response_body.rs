//! cargo-fuzz harness: see `targets::response_body`.
#![no_main]

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    targets::response_body(data);
});
