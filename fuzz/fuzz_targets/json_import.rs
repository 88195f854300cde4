#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tickreel_fuzz::json_import::json_import(data));
