//! The `prepare` target: see `registry_fuzz_bodies::prepare`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| registry_fuzz_bodies::prepare::run(data));
