//! The CLI's integration tests: one test binary, a module per subject (`cargo test -p
//! tickreel-cli --test it`; one subject: `cargo test -p tickreel-cli --test it -- render::`). Most
//! run the real `tickreel` binary (`tool`), the `serve` tests a real server (`serve_support`).

// Test helpers
#[path = "../../../core/tests/it/common/mod.rs"]
mod common;
// The fuzz targets' shared code, as the fuzz crate has it (`crate::harness`), for
// `fuzz_regressions` (which includes the targets themselves).
#[path = "../../../../fuzz/src/harness.rs"]
mod harness;
mod serve_support;
mod svg;
mod tool;
mod trace;

// Tests
mod cli;
mod cli_catalog;
mod cli_hardening;
mod cli_live;
mod cli_read;
mod cli_s3;
mod cli_s3_live;
mod cli_shadow;
mod compact_world;
mod crash;
mod damage_said;
mod fuzz_regressions;
mod fuzz_seeds;
mod ghost_plot;
mod json_import;
mod live_members;
mod outputs_bounded;
mod play_live;
mod render;
mod serve_anon;
mod serve_api;
mod serve_bounds;
mod serve_frames_world;
mod serve_live_races;
mod serve_memory;
mod serve_object_errors;
// the hook that holds decoding requests in their places (feature `test-hooks`, on with `bench`)
#[cfg(feature = "test-hooks")]
mod serve_places;
mod serve_reports;
mod serve_requests;
mod serve_terrain;
mod simulate_network;
mod simulate_runs;
mod viewer_blocks;
mod viewer_browser;
mod viewer_desk;
mod viewer_moderator;
mod viewer_network;
mod viewer_party;
