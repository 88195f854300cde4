#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tickreel_fuzz::csv_import::csv_import(data));
