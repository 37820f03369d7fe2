//! The `lock` target: see `registry_fuzz_bodies::lock`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| registry_fuzz_bodies::lock::run(data));
