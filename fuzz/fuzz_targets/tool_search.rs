//! The `tool_search` target: see `registry_fuzz_bodies::tool_search`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| registry_fuzz_bodies::tool_search::run(data));
