#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tickreel_fuzz::harness::terrain(data));
