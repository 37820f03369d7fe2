//! The `shell` target: see `registry_fuzz_bodies::shell`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| registry_fuzz_bodies::shell::run(data));
