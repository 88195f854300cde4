//! The core's integration tests: one test binary, a module per subject (`cargo test -p tickreel
//! --test it`; one subject: `cargo test -p tickreel --test it -- golden::`). One binary links once
//! where a binary per file linked 34 times.
//!
//! Shared by the modules: `common` (recordings and ticks; the CLI's tests include it too),
//! `crash_disk` (a disk that loses power), `heap` (the binary's counting allocator) and `alone`
//! (a test that measures the whole process runs again in a child process, by itself).

// Test helpers
mod alone;
mod analysis;
mod common;
mod crash_disk;
mod heap;

#[global_allocator]
static ALLOCATOR: heap::Counting = heap::Counting;

// Tests
mod backpressure_default;
mod compact;
mod compact_copy;
mod compact_world;
mod corruption;
mod crash_consistency;
mod damage_said;
mod decode_bounds;
mod ending_race;
mod expansion;
mod fence;
mod flush;
mod follow_writer;
mod full_queue;
mod fuzz_regressions;
mod fuzz_seeds;
mod ghost;
mod golden;
mod leftovers;
mod live;
mod live_members;
mod memory_bound;
mod open_files;
mod play;
mod proptest_roundtrip;
mod reader_memory;
mod recording_id;
mod recover_bounds;
mod restart;
mod resume_async;
mod resume_stats;
mod roundtrip;
mod server_id;
mod shadow;
mod shadow_memory;
mod short_runs;
mod sparse_chunks;
mod staging;
mod start_paths;
mod submit_alloc;
mod terrain;
mod world;
mod world_state;
mod writer_limits;
