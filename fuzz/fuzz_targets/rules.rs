//! The `rules` target: see `registry_fuzz_bodies::rules`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| registry_fuzz_bodies::rules::run(data));
