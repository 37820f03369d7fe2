//! The `mcp_frames` target: see `registry_fuzz_bodies::mcp_frames`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| registry_fuzz_bodies::mcp_frames::run(data));
