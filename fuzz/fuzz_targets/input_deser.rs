//! The `input_deser` target: see `registry_fuzz_bodies::input_deser`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| registry_fuzz_bodies::input_deser::run(data));
