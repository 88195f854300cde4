/*
 * tickreel.h: the C API of tickreel, a replay library for game servers.
 *
 * Result codes. Every function returns a TickreelResult (a uint32_t; the values never change and
 * are never reused) or, where documented, a plain value. After a code other than
 * TICKREEL_RESULT_OK, tickreel_last_error() copies a message for the calling thread into your
 * buffer (tickreel_last_error_message() returns it as a pointer, tickreel_last_error_code() the
 * code). Successful calls leave the last error as it was, as errno does.
 *
 * Panics. Every function catches internal panics (bugs) at the boundary and returns
 * TICKREEL_RESULT_PANIC; nothing unwinds into C.
 *
 * Handles. TickreelBatch*, TickreelReelWriter*, TickreelReader*, TickreelEngine*,
 * TickreelRecorder*, TickreelShadowBuffer*, TickreelGhost*, TickreelGhostCursor*, TickreelLiveDelta*,
 * TickreelPlayhead*, TickreelObjectOptions*, TickreelCatalog*, TickreelPending* and the others are
 * opaque handles: tokens (generation | type tag | slot) disguised as pointers,
 * never addresses; do not dereference them. Create them with tickreel_*_new / _create / _open /
 * _start / _load (a TickreelPending* comes from every call whose work runs in the background: a
 * finish, a report, an upload, a ghost load, a catalog call; poll it, wait on it, take its result by
 * kind, free it; tickreel_shadow_buffer_start gives a TickreelRecorder* and a TickreelShadowBuffer*) and release each with
 * its tickreel_*_free; freeing NULL is a no-op. An engine owns background threads:
 * tickreel_engine_free stops and joins them, so call it before the program exits. Guaranteed on every call: a freed handle (double free included) and a
 * handle of another type return TICKREEL_RESULT_INVALID_HANDLE, for ever (a slot whose generation
 * would wrap is retired, not reused). A value tickreel never returned is rejected unless its bits
 * happen to equal a live handle's. Freeing a handle while another thread is inside a call on it
 * is safe: that call finishes on the object; later calls get TICKREEL_RESULT_INVALID_HANDLE.
 * tickreel_handle_count() tells how many handles are live (to check a program frees everything).
 *
 * Pointers. A NULL pointer where one is required returns TICKREEL_RESULT_NULL_ARGUMENT; a
 * (pointer, length) pair may have a NULL pointer only where documented and only with length 0.
 * Pointers that are not NULL must be valid as each function's "Safety" section says; that
 * tickreel cannot check. Output arrays use count/capacity: the count is always reported, and a
 * capacity too small returns TICKREEL_RESULT_BUFFER_TOO_SMALL without writing the array.
 *
 * Threads. Each function states its thread-safety. Handles may be passed between threads.
 *
 * Units. Positions are in blocks (stored to 1/4096 block), angles in degrees (stored to 1/65536
 * turn; yaw unbounded), velocities in blocks per tick (1/8000), ticks are uint32_t. Ghost times
 * are fractional ticks (double) from the start of the run; seconds = ticks / tick rate.
 */

/*
 * Index (line numbers in this file).
 *   Constants and result codes first; then each area, the error channel first: its
 *   handles and structs, then its functions:
 *   Errors and the library: line 642
 *      tickreel_handle_count, tickreel_last_error, tickreel_last_error_message,
 *      tickreel_last_error_code, tickreel_result_name, tickreel_version, tickreel_features
 *   Results later (TickreelPending): line 719
 *      tickreel_pending_take_rows, tickreel_pending_take_ghost_set, tickreel_pending_take_ghost,
 *      tickreel_pending_take_upload, tickreel_pending_poll, tickreel_pending_wait,
 *      tickreel_pending_take_path, tickreel_pending_free
 *   Tick batches (TickreelBatch): line 887
 *      tickreel_batch_new, tickreel_batch_free, tickreel_batch_clear, tickreel_batch_event_count,
 *      tickreel_batch_bytes, tickreel_batch_entity_add, tickreel_batch_entity_remove,
 *      tickreel_batch_pose, tickreel_batch_position, tickreel_batch_rotation,
 *      tickreel_batch_teleport, tickreel_batch_flags, tickreel_batch_checkpoint,
 *      tickreel_batch_velocity, tickreel_batch_player_leave, tickreel_batch_custom,
 *      tickreel_batch_block_change, tickreel_batch_block_changes, tickreel_batch_swing,
 *      tickreel_batch_attack, tickreel_batch_use, tickreel_batch_use_on_entity,
 *      tickreel_batch_use_on_block, tickreel_batch_damage, tickreel_batch_health,
 *      tickreel_batch_equipment, tickreel_batch_chat, tickreel_batch_custom_at
 *   Live recording (TickreelEngine, TickreelRecorder): line 1299
 *      tickreel_engine_new, tickreel_engine_free, tickreel_engine_stats, tickreel_recorder_start,
 *      tickreel_recorder_start_on, tickreel_recorder_free, tickreel_recorder_submit_tick,
 *      tickreel_recorder_submit_batch, tickreel_recorder_player_left,
 *      tickreel_recorder_offer_snapshot, tickreel_recorder_offer_terrain,
 *      tickreel_recorder_register_entity, tickreel_recorder_register_event_type,
 *      tickreel_recorder_register_name, tickreel_recorder_set_user_metadata,
 *      tickreel_recorder_flush, tickreel_recorder_stats, tickreel_recorder_wait_resumed,
 *      tickreel_recorder_status, tickreel_recorder_finish, tickreel_recorder_abort,
 *      tickreel_engine_options_new, tickreel_engine_options_free,
 *      tickreel_engine_options_set_writer_threads, tickreel_engine_options_set_queue_capacity,
 *      tickreel_engine_options_set_max_inflight_bytes, tickreel_engine_options_set_pool_buffers,
 *      tickreel_engine_options_set_shadow_budget_bytes, tickreel_recorder_finish_upload,
 *      tickreel_recorder_ship_live, tickreel_recorder_options_new, tickreel_recorder_options_free,
 *      tickreel_recorder_options_set_tick_rate_millihz,
 *      tickreel_recorder_options_set_game_data_version, tickreel_recorder_options_set_timestamp_ms,
 *      tickreel_recorder_options_set_world_id, tickreel_recorder_options_set_world_version,
 *      tickreel_recorder_options_set_dictionary_id, tickreel_recorder_options_set_chunk_ticks,
 *      tickreel_recorder_options_set_chunk_bytes, tickreel_recorder_options_set_snapshot_interval,
 *      tickreel_recorder_options_set_zstd_level, tickreel_recorder_options_set_flush_interval,
 *      tickreel_recorder_options_set_flush_max_pending_bytes,
 *      tickreel_recorder_options_set_flush_on_player_leave,
 *      tickreel_recorder_options_set_backpressure, tickreel_recorder_options_set_block_deadline,
 *      tickreel_recorder_options_set_compaction_zstd_level,
 *      tickreel_recorder_options_set_compaction_chunk_ticks,
 *      tickreel_recorder_options_set_compaction_verify,
 *      tickreel_recorder_options_set_max_batch_bytes, tickreel_recorder_options_set_overwrite,
 *      tickreel_recorder_options_set_on_existing
 *   Ghosts (TickreelGhost, TickreelGhostCursor, TickreelLiveDelta, TickreelGhostSet, TickreelGoldSplits): line 2218
 *      tickreel_ghost_load, tickreel_ghost_load_from_reader, tickreel_ghost_free,
 *      tickreel_ghost_info, tickreel_ghost_splits, tickreel_ghost_cursor_new,
 *      tickreel_ghost_cursor_free, tickreel_ghost_cursor_sample,
 *      tickreel_ghost_cursor_set_time_shift, tickreel_live_delta_new, tickreel_live_delta_free,
 *      tickreel_live_delta_update, tickreel_live_delta_set_time_shift, tickreel_live_delta_reset,
 *      tickreel_ghost_load_async, tickreel_ghost_set_new, tickreel_ghost_set_free,
 *      tickreel_ghost_set_push, tickreel_ghost_set_len, tickreel_ghost_set_duration,
 *      tickreel_ghost_set_set_time_shift, tickreel_ghost_set_sample, tickreel_gold_splits_new,
 *      tickreel_gold_splits_free, tickreel_gold_splits_checkpoint, tickreel_gold_splits_finish,
 *      tickreel_gold_splits_best_possible, tickreel_gold_splits_sum_of_best,
 *      tickreel_gold_splits_gold, tickreel_gold_splits_reset, tickreel_ghost_load_async_url
 *   Playback (TickreelPlayhead): line 2847
 *      tickreel_playhead_open_url, tickreel_playhead_follow_url, tickreel_playhead_open,
 *      tickreel_playhead_follow, tickreel_playhead_free, tickreel_playhead_current,
 *      tickreel_playhead_advance, tickreel_playhead_prepare, tickreel_playhead_seek,
 *      tickreel_playhead_step_forward, tickreel_playhead_step_back, tickreel_playhead_play,
 *      tickreel_playhead_pause, tickreel_playhead_set_speed, tickreel_playhead_set_reverse,
 *      tickreel_playhead_position, tickreel_playhead_entities, tickreel_playhead_ticks,
 *      tickreel_playhead_removed, tickreel_playhead_added, tickreel_playhead_rebuild,
 *      tickreel_playhead_rebuild_snapshot, tickreel_playhead_rebuild_events,
 *      tickreel_playhead_world_state, tickreel_playhead_world_changes
 *   Reading recordings (TickreelReader): line 3408
 *      tickreel_reader_open_url, tickreel_reader_open, tickreel_reader_free,
 *      tickreel_reader_tick_count, tickreel_reader_first_tick, tickreel_reader_last_tick,
 *      tickreel_reader_chunk_count, tickreel_reader_tick_rate, tickreel_reader_metadata,
 *      tickreel_reader_seek, tickreel_reader_ticks, tickreel_reader_verify,
 *      tickreel_reader_palette_name, tickreel_reader_world_at
 *   Decoded events (TickreelEvents): line 3661
 *      tickreel_events_decode, tickreel_events_free, tickreel_events_count, tickreel_events_get
 *   The world at a tick (TickreelWorldState): line 3869
 *      tickreel_world_state_free, tickreel_world_state_info, tickreel_world_state_blocks,
 *      tickreel_world_state_block, tickreel_world_state_block_entities,
 *      tickreel_world_state_entities, tickreel_world_state_equipment,
 *      tickreel_world_state_terrain_sections
 *   Shadow play (TickreelShadowBuffer): line 4143
 *      tickreel_shadow_buffer_report_upload, tickreel_report_options_new,
 *      tickreel_report_options_free, tickreel_report_options_set_before,
 *      tickreel_report_options_set_after, tickreel_report_options_set_radius,
 *      tickreel_report_options_set_every_entity, tickreel_report_options_set_overwrite,
 *      tickreel_report_options_set_zstd_level, tickreel_report_options_set_keep_all_blocks,
 *      tickreel_report_options_set_chat, tickreel_shadow_buffer_start,
 *      tickreel_shadow_buffer_start_on, tickreel_shadow_buffer_report,
 *      tickreel_shadow_buffer_report_uuid, tickreel_shadow_buffer_stats,
 *      tickreel_shadow_buffer_attached, tickreel_shadow_buffer_free, tickreel_shadow_options_new,
 *      tickreel_shadow_options_free, tickreel_shadow_options_set_window,
 *      tickreel_shadow_options_set_grace, tickreel_shadow_options_set_max_bytes,
 *      tickreel_shadow_options_set_block_ticks
 *   Writing recordings (TickreelReelWriter): line 4585
 *      tickreel_reel_options_new, tickreel_reel_options_free,
 *      tickreel_reel_options_set_tick_rate_millihz, tickreel_reel_options_set_game_data_version,
 *      tickreel_reel_options_set_timestamp_ms, tickreel_reel_options_set_world_id,
 *      tickreel_reel_options_set_world_version, tickreel_reel_options_set_dictionary_id,
 *      tickreel_reel_options_set_chunk_ticks, tickreel_reel_options_set_chunk_bytes,
 *      tickreel_reel_options_set_snapshot_interval, tickreel_reel_options_set_zstd_level,
 *      tickreel_reel_writer_create, tickreel_reel_writer_free, tickreel_reel_writer_write_tick,
 *      tickreel_reel_writer_write_batch, tickreel_reel_writer_offer_snapshot,
 *      tickreel_reel_writer_offer_terrain, tickreel_reel_writer_register_entity,
 *      tickreel_reel_writer_register_event_type, tickreel_reel_writer_register_name,
 *      tickreel_reel_writer_set_user_metadata, tickreel_reel_writer_finish
 *   Compression dictionaries: line 4896
 *      tickreel_dictionary_register, tickreel_dictionary_is_registered
 *   Object storage (TickreelObjectOptions, TickreelLiveShipper; Cargo feature "object"): line 4927
 *      tickreel_object_options_new, tickreel_object_options_free,
 *      tickreel_object_options_set_endpoint, tickreel_object_options_set_region,
 *      tickreel_object_options_set_credentials, tickreel_object_options_set_allow_http,
 *      tickreel_object_options_set_timeouts, tickreel_object_options_set_retries,
 *      tickreel_live_shipper_stats, tickreel_live_shipper_ship_now, tickreel_live_shipper_finish,
 *      tickreel_live_shipper_free
 *   Catalog (TickreelCatalog; Cargo feature "catalog"): line 5121
 *      tickreel_catalog_open, tickreel_catalog_free, tickreel_catalog_register,
 *      tickreel_catalog_top, tickreel_catalog_personal_best, tickreel_catalog_around,
 *      tickreel_catalog_recent, tickreel_catalog_sum_of_best, tickreel_catalog_load_ghost,
 *      tickreel_catalog_prune, tickreel_catalog_load_ghosts, tickreel_catalog_add_report,
 *      tickreel_catalog_reports, tickreel_catalog_set_report_open, tickreel_catalog_set_run_valid,
 *      tickreel_catalog_check_run, tickreel_catalog_run_check, tickreel_catalog_clear_run,
 *      tickreel_catalog_set_course_limits, tickreel_catalog_set_retention,
 *      tickreel_catalog_clear_retention, tickreel_catalog_retention,
 *      tickreel_catalog_register_finished, tickreel_catalog_top_on,
 *      tickreel_catalog_personal_best_on, tickreel_catalog_at_rank_on,
 *      tickreel_catalog_load_ghost_on, tickreel_catalog_reports_of,
 *      tickreel_catalog_open_recording, tickreel_catalog_register_at,
 *      tickreel_catalog_register_upload
 */

#ifndef TICKREEL_H
#define TICKREEL_H

/* Generated by cbindgen from native/bridge/ffi/ and the operations of native/bridge/api/ (see build.rs and cbindgen.toml). Do not edit: change the Rust source. */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/**
 * Flag bit (of `tickreel_batch_flags` and `TickreelEntityState.flags`): the entity stands on
 * the ground. The `TICKREEL_FLAG_*` bits are those tickreel understands; the rest are the game's.
 */
#define TICKREEL_FLAG_ON_GROUND 1

/**
 * The entity is sneaking.
 */
#define TICKREEL_FLAG_SNEAKING (1 << 1)

/**
 * The entity is sprinting.
 */
#define TICKREEL_FLAG_SPRINTING (1 << 2)

/**
 * The entity is swimming.
 */
#define TICKREEL_FLAG_SWIMMING (1 << 3)

/**
 * The entity is gliding (elytra).
 */
#define TICKREEL_FLAG_GLIDING (1 << 4)

/**
 * A bound of `TickreelGhostRange`: the entity's first pose (as a start) or last pose (as an
 * end); the bound's `value` is ignored.
 */
#define TICKREEL_GHOST_BOUND_EDGE 0

/**
 * A bound of `TickreelGhostRange`: an absolute tick of the recording (`value`).
 */
#define TICKREEL_GHOST_BOUND_TICK 1

/**
 * A bound of `TickreelGhostRange`: a checkpoint marker (`value` is its index, as given to
 * `tickreel_batch_checkpoint`). As a start, the last crossing before the run's end counts (after
 * restarts); as an end, the first crossing after the start (strictly after it for a lap).
 */
#define TICKREEL_GHOST_BOUND_CHECKPOINT 2

/**
 * `TickreelGhostSample.state`: before the run's start; the ghost waits at its first pose.
 */
#define TICKREEL_GHOST_NOT_STARTED 0

/**
 * `TickreelGhostSample.state`: running.
 */
#define TICKREEL_GHOST_RUNNING 1

/**
 * `TickreelGhostSample.state`: at or after the finish; the ghost stays at its last pose.
 */
#define TICKREEL_GHOST_FINISHED 2

/**
 * Numbers `tickreel_ghost_set_sample` writes per ghost: `t, x, y, z, yaw, pitch, flags, state`.
 */
#define TICKREEL_GHOST_SAMPLE_VALUES 8

/**
 * `tickreel_recorder_options_set_backpressure`: when the writer falls behind, wait up to the
 * block deadline for room (default 1 ms), then drop the tick (counted, recorded as a gap) and
 * return `TICKREEL_RESULT_BACKPRESSURE`. The default.
 */
#define TICKREEL_BACKPRESSURE_BLOCK 0

/**
 * `tickreel_recorder_options_set_backpressure`: when the writer falls behind, drop the tick at
 * once (counted, recorded as a gap); `tickreel_recorder_submit_tick` returns `TICKREEL_RESULT_OK`
 * and sets `*out_dropped` to true.
 */
#define TICKREEL_BACKPRESSURE_DROP 1

/**
 * `tickreel_recorder_options_set_on_existing`: continue a live recording of the path (a stopped
 * or crashed server's) after its last tick; a tick at or before it is refused.
 */
#define TICKREEL_ON_EXISTING_RESUME 0

/**
 * `tickreel_recorder_options_set_on_existing`: keep a live recording of the path aside (its live
 * directory renamed to that of `STEM.previous-N.EXT`, never deleted; `tickreel recover` finishes
 * it) and start a new one, whose ticks may start again at 0. The default.
 */
#define TICKREEL_ON_EXISTING_START_FRESH 1

/**
 * `tickreel_recorder_options_set_on_existing`: refuse to start where a live recording of the path
 * exists (`TICKREEL_RESULT_IO`, "already exists", naming the live directory).
 */
#define TICKREEL_ON_EXISTING_REFUSE 2

/**
 * `tickreel_report_options_set_chat`: the reported player's lines (any channel) and the public
 * lines of players within the radius at the tick they sent them (the default).
 */
#define TICKREEL_REPORT_CHAT_NEAR 0

/**
 * `tickreel_report_options_set_chat`: also every public and system line of the server, wherever
 * its sender stood; still no private or team line of others.
 */
#define TICKREEL_REPORT_CHAT_PUBLIC 1

/**
 * `tickreel_report_options_set_chat`: every chat line of the window, private and team chat of
 * others too (for a server whose rules let staff read them).
 */
#define TICKREEL_REPORT_CHAT_ALL 2

/**
 * `TickreelUpdate::motion`: the position did not change (paused, a slow speed between two
 * recorded ticks, the edge of the recording, or a stall).
 */
#define TICKREEL_MOTION_STILL 0

/**
 * `TickreelUpdate::motion`: forward play over `ticks_covered` recorded ticks.
 */
#define TICKREEL_MOTION_FORWARD 1

/**
 * `TickreelUpdate::motion`: any other move (reverse play, seek, step back, a jump over an
 * unreadable chunk): set every entity's state from `tickreel_playhead_entities`.
 */
#define TICKREEL_MOTION_JUMP 2

/**
 * `tickreel_features()` bit: this build carries object storage (`tickreel_object_*`).
 */
#define TICKREEL_FEATURE_OBJECT 1

/**
 * `tickreel_features()` bit: this build carries the catalog (`tickreel_catalog_*`).
 */
#define TICKREEL_FEATURE_CATALOG 2

/**
 * `tickreel_features()` bit: this build's catalog opens `postgres://` URLs besides `sqlite:` ones.
 */
#define TICKREEL_FEATURE_POSTGRES 4

/**
 * Palette kind (`tickreel_recorder_register_name`, `tickreel_reader_palette_name`): block states.
 */
#define TICKREEL_PALETTE_BLOCK 0

/**
 * Palette kind: items.
 */
#define TICKREEL_PALETTE_ITEM 1

/**
 * Palette kind: damage causes.
 */
#define TICKREEL_PALETTE_DAMAGE_CAUSE 2

/**
 * `TickreelWorldChange::kind`: a block's state (or its block entity) changed: `x`, `y`, `z`;
 * `before`/`after` are block states.
 */
#define TICKREEL_WORLD_CHANGE_BLOCK 0

/**
 * `TickreelWorldChange::kind`: an entity's health changed: `entity`; `before`/`after` are
 * hundredths of a health point.
 */
#define TICKREEL_WORLD_CHANGE_HEALTH 1

/**
 * `TickreelWorldChange::kind`: what an entity has in a slot changed: `entity`, `slot`;
 * `before`/`after` are items with `before_count`/`after_count`.
 */
#define TICKREEL_WORLD_CHANGE_EQUIPMENT 2

/**
 * `TickreelEvent.kind` (the kind byte of the format):
 * An entity appeared.
 */
#define TICKREEL_EVENT_ENTITY_ADD 1

/**
 * An entity disappeared.
 */
#define TICKREEL_EVENT_ENTITY_REMOVE 2

/**
 * An entity's absolute pose.
 */
#define TICKREEL_EVENT_POSE 3

/**
 * An entity's position (as written; readers see poses).
 */
#define TICKREEL_EVENT_POSITION 4

/**
 * An entity's rotation (as written; readers see poses).
 */
#define TICKREEL_EVENT_ROTATION 5

/**
 * A teleport.
 */
#define TICKREEL_EVENT_TELEPORT 6

/**
 * An entity's flags.
 */
#define TICKREEL_EVENT_FLAGS 7

/**
 * A checkpoint reached.
 */
#define TICKREEL_EVENT_CHECKPOINT 8

/**
 * An entity's velocity.
 */
#define TICKREEL_EVENT_VELOCITY 9

/**
 * A player left.
 */
#define TICKREEL_EVENT_PLAYER_LEAVE 10

/**
 * A custom event.
 */
#define TICKREEL_EVENT_CUSTOM 128

/**
 * `TickreelEvent.kind` of a world event:
 * A block changed.
 */
#define TICKREEL_EVENT_BLOCK_CHANGE 64

/**
 * Many blocks changed at once.
 */
#define TICKREEL_EVENT_BLOCK_CHANGES 65

/**
 * An entity swung a hand.
 */
#define TICKREEL_EVENT_SWING 66

/**
 * An entity attacked another.
 */
#define TICKREEL_EVENT_ATTACK 67

/**
 * An entity used an item.
 */
#define TICKREEL_EVENT_USE 68

/**
 * An entity took damage.
 */
#define TICKREEL_EVENT_DAMAGE 69

/**
 * An entity's health.
 */
#define TICKREEL_EVENT_HEALTH 70

/**
 * An entity's equipment in a slot.
 */
#define TICKREEL_EVENT_EQUIPMENT 71

/**
 * A chat line.
 */
#define TICKREEL_EVENT_CHAT 72

/**
 * A custom event placed at an entity and/or a position.
 */
#define TICKREEL_EVENT_CUSTOM_AT 73

/**
 * `TickreelEvent.hand`:
 * The main hand.
 */
#define TICKREEL_HAND_MAIN 0

/**
 * The off hand.
 */
#define TICKREEL_HAND_OFF 1

/**
 * Equipment slot (values above `TICKREEL_SLOT_BODY` up to 255 are the game's own):
 * Main hand.
 */
#define TICKREEL_SLOT_MAIN_HAND 0

/**
 * Off hand.
 */
#define TICKREEL_SLOT_OFF_HAND 1

/**
 * Feet.
 */
#define TICKREEL_SLOT_FEET 2

/**
 * Legs.
 */
#define TICKREEL_SLOT_LEGS 3

/**
 * Chest.
 */
#define TICKREEL_SLOT_CHEST 4

/**
 * Head.
 */
#define TICKREEL_SLOT_HEAD 5

/**
 * Body (a horse's armour).
 */
#define TICKREEL_SLOT_BODY 6

/**
 * Chat channel (values above `TICKREEL_CHANNEL_SYSTEM` are the game's own, treated as private):
 * Public chat everyone on the server sees.
 */
#define TICKREEL_CHANNEL_PUBLIC 0

/**
 * A message to one player or a few (whispers, party chat).
 */
#define TICKREEL_CHANNEL_PRIVATE 1

/**
 * A team's chat.
 */
#define TICKREEL_CHANNEL_TEAM 2

/**
 * A message of the server (deaths, joins, broadcasts).
 */
#define TICKREEL_CHANNEL_SYSTEM 3

/**
 * The result of every tickreel C function.
 *
 * The numeric values are part of the ABI: they never change and are never reused. Codes 1 to 99
 * are the library's own error kinds, numbered once for every language: the same error has the
 * same number and name here and in Java (`TickreelException.Kind`, whose `code()` returns it;
 * `TICKREEL_RESULT_LOCKED` is `Kind.LOCKED`, 8). Codes from 100 are raised by the bindings
 * themselves (`TICKREEL_RESULT_PANIC` is Java's `Kind.INTERNAL`). After any code other than
 * `TICKREEL_RESULT_OK`, `tickreel_last_error` gives a message for the calling thread.
 */
enum TickreelResult
#if defined(__cplusplus) || __STDC_VERSION__ >= 202311L
  : uint32_t
#endif // defined(__cplusplus) || __STDC_VERSION__ >= 202311L
 {
    /**
     * Success.
     */
    TICKREEL_RESULT_OK = 0,
    /**
     * An operating-system I/O error (file missing, disk full, permission denied).
     */
    TICKREEL_RESULT_IO = 1,
    /**
     * The bytes are not a valid tickreel structure (bad magic, bad checksum, inconsistent lengths).
     */
    TICKREEL_RESULT_CORRUPT = 2,
    /**
     * The bytes end before the structure does (for example a truncated file).
     */
    TICKREEL_RESULT_TRUNCATED = 3,
    /**
     * A length exceeds a configured limit (protects against decompression bombs), or too many
     * events or handles.
     */
    TICKREEL_RESULT_LIMIT_EXCEEDED = 4,
    /**
     * The file uses a format or data version this build does not understand.
     */
    TICKREEL_RESULT_UNSUPPORTED = 5,
    /**
     * An argument is invalid: a malformed tick batch, a tick going backwards, a non-finite
     * coordinate, a misaligned pointer, a string that is not UTF-8.
     */
    TICKREEL_RESULT_INVALID_ARGUMENT = 6,
    /**
     * The object is in a state that does not allow the call (already finished, no ticks).
     */
    TICKREEL_RESULT_INVALID_STATE = 7,
    /**
     * Another writer holds the recording's lock file.
     */
    TICKREEL_RESULT_LOCKED = 8,
    /**
     * The writer could not keep up and the backpressure policy refused the tick.
     */
    TICKREEL_RESULT_BACKPRESSURE = 9,
    /**
     * Data is not available yet (a non-blocking call would have had to wait).
     */
    TICKREEL_RESULT_NOT_READY = 10,
    /**
     * Metadata (NBT) could not be encoded or decoded.
     */
    TICKREEL_RESULT_METADATA = 11,
    /**
     * The catalog's database failed (the message never carries credentials).
     */
    TICKREEL_RESULT_DATABASE = 12,
    /**
     * A pointer argument that must not be NULL was NULL.
     */
    TICKREEL_RESULT_NULL_ARGUMENT = 100,
    /**
     * The handle is not a live handle of the expected type: already freed, of another type,
     * or never returned by tickreel.
     */
    TICKREEL_RESULT_INVALID_HANDLE = 101,
    /**
     * tickreel panicked (an internal bug). The panic was caught at the C boundary; the object
     * involved may refuse further calls with this code and should be freed.
     */
    TICKREEL_RESULT_PANIC = 102,
    /**
     * The caller's buffer is too small; the function reported the size it needs.
     */
    TICKREEL_RESULT_BUFFER_TOO_SMALL = 103,
};
#ifndef __cplusplus
#if __STDC_VERSION__ >= 202311L
typedef enum TickreelResult TickreelResult;
#else
typedef uint32_t TickreelResult;
#endif // __STDC_VERSION__ >= 202311L
#endif // __cplusplus

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

/* ---- Errors and the library ---- */

/**
 * Number of live handles of every type (handles returned by `*_new`/`*_open`/`*_create` and
 * not yet freed). Useful to check, in tests, that a program frees everything it creates.
 *
 * Thread safety: any thread; the count may be outdated by the time it returns if other threads
 * create or free handles meanwhile.
 */
size_t tickreel_handle_count(void);

/**
 * Copies the calling thread's last error message into `buf` as a NUL-terminated string.
 *
 * Returns the length in bytes of the whole message, not counting the terminating NUL (as
 * `snprintf` does). If that is `>= len`, the message was truncated (at a UTF-8 character
 * boundary) to fit `len - 1` bytes plus the NUL; call again with a buffer of at least the
 * returned value + 1. With `len == 0`, nothing is written and `buf` may be NULL. If no call on
 * this thread has failed yet, the message is empty and 0 is returned. Messages are kept up to
 * 4095 bytes (a longer one is cut at a character boundary).
 *
 * The last error is replaced by every call on the same thread that returns a code other than
 * `TICKREEL_RESULT_OK`, and left unchanged by calls that succeed (like `errno`).
 *
 * # Safety
 * `buf` must point to at least `len` writable bytes (or `len` must be 0).
 *
 * Thread safety: any thread; each thread has its own last error.
 */
size_t tickreel_last_error(char *buf, size_t len);

/**
 * The calling thread's last error message as a NUL-terminated UTF-8 string (empty if no call
 * has failed on this thread yet). Never NULL.
 *
 * Lifetime: the string belongs to tickreel. It stays valid until the next tickreel call on the
 * same thread that returns a code other than `TICKREEL_RESULT_OK` (which replaces it), or until
 * the thread exits, whichever comes first. Copy it if you need it longer, or use
 * `tickreel_last_error`, which copies into your buffer.
 *
 * Thread safety: any thread; each thread has its own last error.
 */
const char *tickreel_last_error_message(void);

/**
 * The code of the calling thread's last failed call (`TICKREEL_RESULT_OK` if none has failed).
 *
 * Thread safety: any thread; each thread has its own last error.
 */
TickreelResult tickreel_last_error_code(void);

/**
 * The name of a result code as spelled in this header (e.g. `"TICKREEL_RESULT_CORRUPT"`), or
 * `"TICKREEL_RESULT_UNKNOWN"` for a value that is not a code. The string is static: never free it.
 *
 * Thread safety: any thread.
 */
const char *tickreel_result_name(uint32_t code);

/**
 * The library version (e.g. `"0.1.0"`). The string is static: never free it.
 *
 * Thread safety: any thread.
 */
const char *tickreel_version(void);

/**
 * What this build of the library carries: `TICKREEL_FEATURE_OBJECT`, `TICKREEL_FEATURE_CATALOG`
 * and `TICKREEL_FEATURE_POSTGRES` bits (the library's default build has all three; a build for
 * recording and playing only, Cargo's `--no-default-features`, has none, and its object storage
 * and catalog functions are not defined; `--no-default-features --features catalog` has the
 * catalog on SQLite only, and refuses `postgres://` URLs). Never fails.
 *
 * Thread safety: any thread.
 */
uint32_t tickreel_features(void);

/* ---- Results later (TickreelPending) ---- */

/**
 * A ghost track: one entity's run, decoded once into compact arrays. Opaque: create with
 * `tickreel_ghost_load` (or `_load_from_reader`, or `tickreel_pending_take_ghost`), release with
 * `tickreel_ghost_free`. Cursors and deltas made from it keep the data alive on their own.
 */
typedef struct TickreelGhost TickreelGhost;

/**
 * Several ghosts sampled together. Opaque: create with `tickreel_ghost_set_new` (or
 * `tickreel_pending_take_ghost_set`), release with `tickreel_ghost_set_free`.
 */
typedef struct TickreelGhostSet TickreelGhostSet;

/**
 * Work running on a background thread and its result, later: a recording's finish, a report, a
 * finish followed by its upload, a ghost load, a catalog call. Opaque: returned by those calls,
 * polled with `tickreel_pending_poll`, waited on with `tickreel_pending_wait`, its result read
 * with the take of its kind (`tickreel_pending_take_path`, `_take_upload`, `_take_rows`,
 * `_take_ghost`, `_take_ghost_set`), released with `tickreel_pending_free`.
 */
typedef struct TickreelPending TickreelPending;

/**
 * Copies a finished catalog call's bytes into `buf` (the encodings of `rows`), storing their
 * number in `*out_count`; calls without rows (a change) have none. Never blocks; may be asked
 * again (a `capacity` too small returns `TICKREEL_RESULT_BUFFER_TOO_SMALL` with the count).
 *
 * Returns `TICKREEL_RESULT_NOT_READY` while the call runs, the call's own failure code (every
 * time it is asked), `TICKREEL_RESULT_INVALID_STATE` (naming the kind it holds) for a pending of
 * another kind (a ghost lookup's is a ghost).
 *
 * Thread safety: any thread, concurrently with any other call on the handle.
 *
 * # Safety
 * `buf` must point to `capacity` writable `u8`s (or `capacity` must be 0); `out_count` must be NULL or point to a writable `size_t`.
 */
TickreelResult tickreel_pending_take_rows(struct TickreelPending *pending,
                                          uint8_t *buf,
                                          size_t capacity,
                                          size_t *out_count);

/**
 * Takes the ghost set a `tickreel_catalog_load_ghosts` lookup loaded: stores a new set's handle
 * in `*out_set` (free it with `tickreel_ghost_set_free`), its ghosts in the order they were
 * picked, each with its own cursor. Never blocks; may be asked again (each call gives a new set
 * of the same ghosts).
 *
 * Returns `TICKREEL_RESULT_NOT_READY` while the lookup or a load runs, the failure's code if one
 * failed, `TICKREEL_RESULT_INVALID_STATE` (naming the kind it holds) for a pending of another
 * kind. `*out_set` is NULL unless the call succeeded (when it can be written).
 *
 * Thread safety: any thread, concurrently with any other call on the handle.
 *
 * # Safety
 * `out_set` must be NULL or point to writable storage for one `TickreelGhostSet` pointer.
 */
TickreelResult tickreel_pending_take_ghost_set(struct TickreelPending *pending,
                                               struct TickreelGhostSet **out_set);

/**
 * Takes the loaded ghost: stores a new handle to it in `*out_ghost` (free it with
 * `tickreel_ghost_free`). Never blocks; may be asked again (each call gives a new handle to the
 * same ghost).
 *
 * Returns `TICKREEL_RESULT_NOT_READY` while the load runs, its failure's code if it failed (e.g.
 * `TICKREEL_RESULT_IO`, `_INVALID_ARGUMENT`), `TICKREEL_RESULT_INVALID_STATE` (naming the kind it
 * holds) for a pending of another kind. `*out_ghost` is NULL unless the call succeeded (when it
 * can be written).
 *
 * Thread safety: any thread, concurrently with any other call on the handle.
 *
 * # Safety
 * `out_ghost` must be NULL or point to writable storage for one `TickreelGhost` pointer.
 */
TickreelResult tickreel_pending_take_ghost(struct TickreelPending *pending,
                                           struct TickreelGhost **out_ghost);

/**
 * Copies the URL of the object an upload wrote into `url_buf` as a NUL-terminated string,
 * storing its length in bytes, without the NUL, in `*out_len`, and the object's size in bytes in
 * `*out_bytes` (both written even when the URL does not fit). With `capacity` 0 nothing is copied
 * (`url_buf` may then be NULL). `out_len` and `out_bytes` may be NULL. Never blocks; may be asked
 * again.
 *
 * Returns `TICKREEL_RESULT_NOT_READY` while the finish or upload runs, the failure's code if
 * either failed (e.g. `TICKREEL_RESULT_IO` for an existing object or a refused request),
 * `TICKREEL_RESULT_INVALID_STATE` (naming the kind it holds) for a pending of another kind,
 * `TICKREEL_RESULT_BUFFER_TOO_SMALL` if `capacity` is less than `*out_len + 1` (nothing is
 * copied).
 *
 * Thread safety: any thread, concurrently with any other call on the handle.
 *
 * # Safety
 * `out_bytes` must be NULL or point to writable storage for one `u64`.
 * `url_buf` must point to `capacity` writable bytes (or `capacity` must be 0); `out_len` must be NULL or point to a writable `size_t`.
 */
TickreelResult tickreel_pending_take_upload(struct TickreelPending *pending,
                                            char *url_buf,
                                            size_t capacity,
                                            size_t *out_len,
                                            uint64_t *out_bytes);

/**
 * Stores in `*out_ready` whether the work has ended. Never blocks: for the server thread, every
 * tick if need be.
 *
 * Returns `TICKREEL_RESULT_OK` while the work runs (`*out_ready` false) and once it succeeded
 * (`*out_ready` true); if it failed, `*out_ready` is true and the call returns the failure's code
 * (e.g. `TICKREEL_RESULT_IO`) with its message, every time it is asked.
 *
 * Thread safety: any thread, concurrently with any other call on the handle (a poll never waits
 * for a `tickreel_pending_wait` in another thread).
 *
 * # Safety
 * `out_ready` must be NULL or point to writable storage for one `bool`.
 */
TickreelResult tickreel_pending_poll(struct TickreelPending *pending, bool *out_ready);

/**
 * Waits until the work has ended or `timeout_ms` milliseconds have passed (negative: no limit),
 * then stores in `*out_ready` whether it ended, as `tickreel_pending_poll` does (the failure of
 * work that failed is the call's result). `out_ready` may be NULL: without a limit, the call's
 * result alone says how the work went. Blocks: not for the server thread.
 *
 * Thread safety: any thread, concurrently with any other call on the handle; several threads
 * may wait.
 *
 * # Safety
 * `out_ready` must be NULL or point to writable storage for one `bool`.
 */
TickreelResult tickreel_pending_wait(struct TickreelPending *pending,
                                     int64_t timeout_ms,
                                     bool *out_ready);

/**
 * Copies the path of the file a finish or report wrote into `path_buf` as a NUL-terminated
 * string (in the platform's encoding), storing its length in bytes, without the NUL, in
 * `*out_len`. With `capacity` 0 nothing is copied (`path_buf` may then be NULL): a length query.
 * `out_len` may be NULL. Never blocks; may be asked again.
 *
 * Returns `TICKREEL_RESULT_NOT_READY` while the work runs, its failure's code if it failed,
 * `TICKREEL_RESULT_INVALID_STATE` (naming the kind it holds) for a pending of another kind,
 * `TICKREEL_RESULT_BUFFER_TOO_SMALL` if `capacity` is less than `*out_len + 1` (nothing is
 * copied).
 *
 * Thread safety: any thread, concurrently with any other call on the handle.
 *
 * # Safety
 * `path_buf` must point to `capacity` writable bytes (or `capacity` must be 0); `out_len` must be NULL or point to a writable `size_t`.
 */
TickreelResult tickreel_pending_take_path(struct TickreelPending *pending,
                                          char *path_buf,
                                          size_t capacity,
                                          size_t *out_len);

/**
 * Frees a pending's handle. Work still running is not waited for: a ghost load is cancelled (its
 * thread ends on its own), a finish, report, upload or catalog call goes on and its result is
 * dropped. `tickreel_pending_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a freed or
 * invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
 *
 * Thread safety: any thread. A call on the same handle still running in another thread (a wait)
 * finishes normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
 */
TickreelResult tickreel_pending_free(struct TickreelPending *pending);

/* ---- Tick batches (TickreelBatch) ---- */

/**
 * A builder for one tick's event batch. Opaque: create with `tickreel_batch_new`, release with
 * `tickreel_batch_free`. The pointer is a handle, not an address: never dereference it.
 */
typedef struct TickreelBatch TickreelBatch;

/**
 * A block and its new state: one block of a multi-block change (`tickreel_batch_block_changes`,
 * `TickreelEvent.blocks`).
 */
typedef struct TickreelBlockState {
    /**
     * Block x.
     */
    int32_t x;
    /**
     * Block y.
     */
    int32_t y;
    /**
     * Block z.
     */
    int32_t z;
    /**
     * The new state: an id of the recording's block palette.
     */
    uint32_t state;
} TickreelBlockState;

/**
 * Creates an empty batch builder and stores its handle in `*out_batch`.
 *
 * Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `out_batch` is NULL. On failure `*out_batch` is set
 * to NULL (when it can be written).
 *
 * Thread safety: any thread. A batch may be used from any thread; calls on one batch are
 * serialised by an internal lock, but a batch is meant to be filled by one thread at a time
 * (the order of events is the order of the calls).
 *
 * # Safety
 * `out_batch` must be NULL or point to writable storage for one `TickreelBatch` pointer.
 */
TickreelResult tickreel_batch_new(struct TickreelBatch **out_batch);

/**
 * Frees a batch. `tickreel_batch_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a freed,
 * foreign or otherwise invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE` (a double free is
 * detected, not undefined behaviour).
 *
 * Thread safety: any thread. A call on the same batch still running in another thread finishes
 * normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
 */
TickreelResult tickreel_batch_free(struct TickreelBatch *batch);

/**
 * Removes every event from the batch, keeping its memory for reuse (call once per tick).
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 */
TickreelResult tickreel_batch_clear(struct TickreelBatch *batch);

/**
 * Stores the number of events in the batch in `*out_count`.
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 *
 * # Safety
 * `out_count` must be NULL or point to writable storage for one `usize`.
 */
TickreelResult tickreel_batch_event_count(struct TickreelBatch *batch, size_t *out_count);

/**
 * Copies the batch encoding of the events added so far into `buf` (the bytes that
 * `tickreel_reel_writer_write_tick` accepts), and stores its length in `*out_count`.
 *
 * The encoding is: a big-endian `u16` event count, then each event as a kind byte followed by
 * its fields as LEB128 varints (signed fields zigzag-coded); see FORMAT.md. An empty batch is
 * the two bytes `00 00`.
 *
 * `*out_count` is always set to the encoded length. If `capacity` is smaller, nothing is copied and
 * `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned: call again with a buffer of `*out_count` bytes.
 * `buf` may be NULL when `capacity` is 0, to query the length.
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 *
 * # Safety
 * `buf` must point to `capacity` writable `u8`s (or `capacity` must be 0); `out_count` must be NULL or point to a writable `size_t`.
 */
TickreelResult tickreel_batch_bytes(struct TickreelBatch *batch,
                                    uint8_t *buf,
                                    size_t capacity,
                                    size_t *out_count);

/**
 * Adds an entity (it appears with a game-defined `kind`, e.g. an entity type id, at the given
 * pose). Position in blocks, yaw and pitch in degrees (yaw unbounded).
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a non-finite or out-of-range value,
 * `TICKREEL_RESULT_LIMIT_EXCEEDED` if the batch already holds 65535 events.
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 */
TickreelResult tickreel_batch_entity_add(struct TickreelBatch *batch,
                                         uint32_t entity,
                                         uint32_t kind,
                                         double x,
                                         double y,
                                         double z,
                                         double yaw,
                                         double pitch);

/**
 * Removes an entity.
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 */
TickreelResult tickreel_batch_entity_remove(struct TickreelBatch *batch, uint32_t entity);

/**
 * Sets an entity's absolute pose: position in blocks, yaw and pitch in degrees (yaw unbounded:
 * pass what the client sends, without normalising).
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a non-finite or out-of-range value.
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 */
TickreelResult tickreel_batch_pose(struct TickreelBatch *batch,
                                   uint32_t entity,
                                   double x,
                                   double y,
                                   double z,
                                   double yaw,
                                   double pitch);

/**
 * Sets an entity's position (blocks), leaving its rotation unchanged.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a non-finite or out-of-range value.
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 */
TickreelResult tickreel_batch_position(struct TickreelBatch *batch,
                                       uint32_t entity,
                                       double x,
                                       double y,
                                       double z);

/**
 * Sets an entity's rotation (degrees; yaw unbounded), leaving its position unchanged.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a non-finite or out-of-range value.
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 */
TickreelResult tickreel_batch_rotation(struct TickreelBatch *batch,
                                       uint32_t entity,
                                       double yaw,
                                       double pitch);

/**
 * Teleports an entity: a discontinuity that playback and ghosts never interpolate across.
 * Position in blocks, yaw and pitch in degrees.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a non-finite or out-of-range value.
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 */
TickreelResult tickreel_batch_teleport(struct TickreelBatch *batch,
                                       uint32_t entity,
                                       double x,
                                       double y,
                                       double z,
                                       double yaw,
                                       double pitch);

/**
 * Sets an entity's state flags: the full new value (`TICKREEL_FLAG_*` bits, the rest are the
 * game's own), not a change mask.
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 */
TickreelResult tickreel_batch_flags(struct TickreelBatch *batch, uint32_t entity, uint32_t flags);

/**
 * Marks that an entity reached checkpoint `index` (a split for ghosts).
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 */
TickreelResult tickreel_batch_checkpoint(struct TickreelBatch *batch,
                                         uint32_t entity,
                                         uint32_t index);

/**
 * Sets an entity's velocity in blocks per tick (e.g. knockback); stored at 1/8000 block per tick.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a non-finite or out-of-range value.
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 */
TickreelResult tickreel_batch_velocity(struct TickreelBatch *batch,
                                       uint32_t entity,
                                       double vx,
                                       double vy,
                                       double vz);

/**
 * A player left: removes the entity (and, in a live recording, triggers a flush).
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 */
TickreelResult tickreel_batch_player_leave(struct TickreelBatch *batch, uint32_t entity);

/**
 * Adds a game-specific event: a registered `type_id` and `len` opaque bytes (copied).
 * `data` may be NULL when `len` is 0.
 *
 * Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `data` is NULL with `len > 0`,
 * `TICKREEL_RESULT_LIMIT_EXCEEDED` if `len` is over 1 MiB (1048576 bytes).
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 *
 * # Safety
 * `data` must point to `data_len` readable bytes (or `data_len` must be 0).
 */
TickreelResult tickreel_batch_custom(struct TickreelBatch *batch,
                                     uint32_t type_id,
                                     const uint8_t *data,
                                     size_t data_len);

/**
 * A block changed at (`x`, `y`, `z`) to `state` (an id of the block palette: register its name
 * with `tickreel_recorder_register_name`), changed by entity `cause` if `has_cause`, with the
 * block entity's NBT (a sign's text, a chest's contents) in `block_entity`, or none when
 * `block_entity_len` is 0 (`block_entity` may then be NULL).
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for block-entity data over 65536 bytes,
 * `TICKREEL_RESULT_NULL_ARGUMENT` if `block_entity` is NULL with a length,
 * `TICKREEL_RESULT_LIMIT_EXCEEDED` if the batch already holds 65535 events.
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 *
 * # Safety
 * `block_entity` must point to `block_entity_len` readable bytes (or `block_entity_len` must be 0).
 */
TickreelResult tickreel_batch_block_change(struct TickreelBatch *batch,
                                           int32_t x,
                                           int32_t y,
                                           int32_t z,
                                           uint32_t state,
                                           bool has_cause,
                                           uint32_t cause,
                                           const uint8_t *block_entity,
                                           size_t block_entity_len);

/**
 * Many blocks changed at once (a section update, a fill, an explosion): `blocks_count` blocks,
 * each a position and its new state, changed by entity `cause` if `has_cause`.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for no block or more than 32768,
 * `TICKREEL_RESULT_NULL_ARGUMENT` if `blocks` is NULL with a count.
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 *
 * # Safety
 * `blocks` must point to `blocks_count` readable `TickreelBlockState`s (or `blocks_count` must be 0).
 */
TickreelResult tickreel_batch_block_changes(struct TickreelBatch *batch,
                                            bool has_cause,
                                            uint32_t cause,
                                            const struct TickreelBlockState *blocks,
                                            size_t blocks_count);

/**
 * An entity swung a hand (`TICKREEL_HAND_MAIN` or `TICKREEL_HAND_OFF`).
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for another hand.
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 */
TickreelResult tickreel_batch_swing(struct TickreelBatch *batch, uint32_t entity, uint32_t hand);

/**
 * An entity attacked another (a hit, whether or not it did damage).
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 */
TickreelResult tickreel_batch_attack(struct TickreelBatch *batch,
                                     uint32_t attacker,
                                     uint32_t target);

/**
 * An entity used `item` (an id of the item palette, 0 for an empty hand) in `hand`, on nothing.
 * See `tickreel_batch_use_on_entity` and `tickreel_batch_use_on_block`.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a hand other than `TICKREEL_HAND_*`.
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 */
TickreelResult tickreel_batch_use(struct TickreelBatch *batch,
                                  uint32_t entity,
                                  uint32_t hand,
                                  uint32_t item);

/**
 * An entity used `item` in `hand` on entity `target` (interacting with a villager, a mount).
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a hand other than `TICKREEL_HAND_*`.
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 */
TickreelResult tickreel_batch_use_on_entity(struct TickreelBatch *batch,
                                            uint32_t entity,
                                            uint32_t hand,
                                            uint32_t item,
                                            uint32_t target);

/**
 * An entity used `item` in `hand` on the block at (`x`, `y`, `z`) (opening a door, placing
 * against a face).
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a hand other than `TICKREEL_HAND_*`.
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 */
TickreelResult tickreel_batch_use_on_block(struct TickreelBatch *batch,
                                           uint32_t entity,
                                           uint32_t hand,
                                           uint32_t item,
                                           int32_t x,
                                           int32_t y,
                                           int32_t z);

/**
 * An entity took `amount` hundredths of a health point of damage of `cause` (an id of the
 * damage-cause palette, 0 for unknown), dealt by entity `source` if `has_source`.
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 */
TickreelResult tickreel_batch_damage(struct TickreelBatch *batch,
                                     uint32_t entity,
                                     uint32_t amount,
                                     uint32_t cause,
                                     bool has_source,
                                     uint32_t source);

/**
 * An entity's health is now `health` hundredths of a health point (a Minecraft heart is 200).
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 */
TickreelResult tickreel_batch_health(struct TickreelBatch *batch, uint32_t entity, uint32_t health);

/**
 * An entity's equipment in `slot` (`TICKREEL_SLOT_*`, or the game's own up to 255) is now
 * `count` of `item` (an id of the item palette, 0 for nothing).
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a slot above 255.
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 */
TickreelResult tickreel_batch_equipment(struct TickreelBatch *batch,
                                        uint32_t entity,
                                        uint32_t slot,
                                        uint32_t item,
                                        uint32_t count);

/**
 * A chat line: its `text` (NUL-terminated UTF-8, at most 4096 bytes), its `channel`
 * (`TICKREEL_CHANNEL_*` or the game's own above them, treated as private) and its sender entity
 * if `has_sender`.
 *
 * Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `text` is NULL, `TICKREEL_RESULT_INVALID_ARGUMENT`
 * if it is not UTF-8 or longer than 4096 bytes.
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 *
 * # Safety
 * `text` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_batch_chat(struct TickreelBatch *batch,
                                   bool has_sender,
                                   uint32_t sender,
                                   uint32_t channel,
                                   const char *text);

/**
 * A game-specific event placed at entity `entity` (if `has_entity`) and/or at position (`x`,
 * `y`, `z`) in blocks (if `has_position`), so that a report's radius and a viewer can place it:
 * a registered `type_id` and `data_len` opaque bytes (copied; `data` may be NULL when
 * `data_len` is 0).
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a non-finite or out-of-range position or data
 * over 1 MiB, `TICKREEL_RESULT_NULL_ARGUMENT` if `data` is NULL with a length.
 *
 * Thread safety: as every batch function, see `tickreel_batch_new`.
 *
 * # Safety
 * `data` must point to `data_len` readable bytes (or `data_len` must be 0).
 */
TickreelResult tickreel_batch_custom_at(struct TickreelBatch *batch,
                                        uint32_t type_id,
                                        bool has_entity,
                                        uint32_t entity,
                                        bool has_position,
                                        double x,
                                        double y,
                                        double z,
                                        const uint8_t *data,
                                        size_t data_len);

/* ---- Live recording (TickreelEngine, TickreelRecorder) ---- */

/**
 * The recording runtime: writer thread(s) and a compaction worker, shared by every recording of
 * a server. Opaque: create with `tickreel_engine_new`, release with `tickreel_engine_free`
 * (which stops and joins its threads). The pointer is a handle, not an address.
 */
typedef struct TickreelEngine TickreelEngine;

/**
 * An engine's options being built. Opaque: create with `tickreel_engine_options_new`, change with
 * the `tickreel_engine_options_set_*` functions, pass to `tickreel_engine_new` (NULL there: the
 * defaults), release with `tickreel_engine_options_free`. The pointer is a handle, not an address.
 */
typedef struct TickreelEngineOptions TickreelEngineOptions;

/**
 * A recorder's live recording being shipped to object storage. Opaque: created by
 * `tickreel_recorder_ship_live`, finished with `tickreel_live_shipper_finish`, released with
 * `tickreel_live_shipper_free`.
 */
typedef struct TickreelLiveShipper TickreelLiveShipper;

/**
 * How to reach an object store: endpoint, region, credentials, timeouts, retries. Opaque:
 * create with `tickreel_object_options_new` (reads the `AWS_*` variables), change with
 * `tickreel_object_options_set_*`, release with `tickreel_object_options_free`.
 */
typedef struct TickreelObjectOptions TickreelObjectOptions;

/**
 * One recording being written by an engine. Opaque: create with `tickreel_recorder_start`,
 * release with `tickreel_recorder_free`. The pointer is a handle, not an address.
 */
typedef struct TickreelRecorder TickreelRecorder;

/**
 * A recording's options being built. Opaque: create with `tickreel_recorder_options_new`, change
 * with the `tickreel_recorder_options_set_*` functions, pass to `tickreel_recorder_start` (NULL
 * there: the defaults), release with `tickreel_recorder_options_free`. The pointer is a handle,
 * not an address.
 */
typedef struct TickreelRecorderOptions TickreelRecorderOptions;

/**
 * Engine-wide counters, as filled in by `tickreel_engine_stats`.
 */
typedef struct TickreelEngineStats {
    /**
     * Recordings open (started, not yet finished, aborted or freed).
     */
    size_t active_recordings;
    /**
     * Messages waiting in the writers' queues, and ticks staged in the recordings' rings.
     */
    size_t queue_depth;
    /**
     * Bytes of submitted ticks not yet processed by a writer.
     */
    size_t inflight_bytes;
    /**
     * Ticks dropped by backpressure, over all recordings.
     */
    uint64_t dropped_ticks;
    /**
     * Compressed bytes written to live directories.
     */
    uint64_t bytes_written;
    /**
     * Duration of the last flush, in microseconds.
     */
    uint64_t last_flush_latency_us;
    /**
     * Finished recordings waiting for, or in, compaction.
     */
    uint64_t compactions_pending;
    /**
     * Compactions completed successfully.
     */
    uint64_t compactions_done;
    /**
     * Compactions that failed.
     */
    uint64_t compactions_failed;
    /**
     * Heap bytes the engine's shadow buffers hold in all, against
     * `tickreel_engine_options_set_shadow_budget_bytes`.
     */
    size_t shadow_bytes;
    /**
     * Blocks the shadow buffers gave up for that budget.
     */
    uint64_t shadow_budget_dropped_blocks;
    /**
     * File-system syncs (`fsync`, `fdatasync`, `syncfs`) the engine's recordings made since it
     * started: flushes (one group commit, two syncs, for every recording flushed together),
     * compaction, publication, recovery.
     */
    uint64_t syncs;
} TickreelEngineStats;

/**
 * One chunk section: 16×16×16 blocks at section position (`cx`, `cy`, `cz`) (block
 * `x = 16·cx + lx`, likewise for y and z), exactly as the game keeps it (a Paper plugin reads
 * it from the section's `PalettedContainer`): a palette of block states (ids of the block
 * palette, `tickreel_reader_palette_name`) and, for each block, an index into it, `bits` per
 * index, packed into `uint64_t`s as Minecraft packs them (entries in y-z-x order, `64 / bits`
 * per long, the first in the lowest bits, none spanning two longs). A section of one block
 * state has a palette of one, `bits` 0 and no longs.
 */
typedef struct TickreelTerrainSection {
    /**
     * Section x (block x / 16, rounded down).
     */
    int32_t cx;
    /**
     * Section y (block y / 16, rounded down).
     */
    int32_t cy;
    /**
     * Section z (block z / 16, rounded down).
     */
    int32_t cz;
    /**
     * The palette: `palette_len` block states (1 to 4096).
     */
    const uint32_t *palette;
    /**
     * Entries at `palette`.
     */
    size_t palette_len;
    /**
     * Bits per index: 0 for a palette of one, else at least `max(4, ⌈log2(palette_len)⌉)`, at
     * most 16.
     */
    uint32_t bits;
    /**
     * The packed indices: `packed_len` longs (`⌈4096 / (64 / bits)⌉`; 0 when `bits` is 0).
     */
    const uint64_t *packed;
    /**
     * Longs at `packed`.
     */
    size_t packed_len;
} TickreelTerrainSection;

/**
 * Counters of one recording, as filled in by `tickreel_recorder_stats`.
 */
typedef struct TickreelRecorderStats {
    /**
     * Ticks queued by `tickreel_recorder_submit_tick` / `_submit_batch`.
     */
    uint64_t submitted_ticks;
    /**
     * Ticks dropped by backpressure (recorded as gaps).
     */
    uint64_t dropped_ticks;
    /**
     * Ticks the writer refused (a malformed batch); see `tickreel_recorder_status`.
     */
    uint64_t rejected_ticks;
    /**
     * Compressed bytes written to the live directory.
     */
    uint64_t bytes_written;
    /**
     * Flushes done.
     */
    uint64_t flushes;
    /**
     * Duration of the last flush, in microseconds.
     */
    uint64_t last_flush_latency_us;
    /**
     * Messages waiting in this recording's writer queue (shared with other recordings), and the
     * ticks it staged that the writer has not taken yet.
     */
    size_t queue_depth;
    /**
     * `flushed_tick` is set.
     */
    bool has_flushed_tick;
    /**
     * Every tick up to and including this one is durably on disk, if any tick is durable yet.
     */
    uint32_t flushed_tick;
} TickreelRecorderStats;

/**
 * Starts an engine: its writer thread(s) and compaction worker. `options` (from
 * `tickreel_engine_options_new`, read here and kept by the caller) may be NULL for the defaults.
 * Stores its handle in `*out_engine` (NULL on
 * failure, when it can be written).
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for an invalid option, `TICKREEL_RESULT_IO` if a
 * thread cannot be started.
 *
 * Thread safety: any thread. An engine may then be used from any thread.
 *
 * # Safety
 * `out_engine` must be NULL or point to writable storage for one `TickreelEngine` pointer.
 */
TickreelResult tickreel_engine_new(struct TickreelEngineOptions *options,
                                   struct TickreelEngine **out_engine);

/**
 * Shuts an engine down and frees it: open recordings are flushed and closed (they stay
 * resumable: starting a recorder on the same path later continues them), pending compactions
 * (recordings already finished) complete, then the threads are joined. Blocks until then.
 * Recorders of this engine that are still held afterwards refuse every call with
 * `TICKREEL_RESULT_INVALID_STATE` (free them); pendings stay valid.
 *
 * Call it before the program exits, after freeing or finishing its recorders: the engine's
 * threads are only stopped here. `tickreel_engine_free(NULL)` is a no-op returning
 * `TICKREEL_RESULT_OK`; a freed or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
 *
 * Thread safety: any thread. Calls on the same engine running in other threads finish
 * normally (a recorder started meanwhile is closed by the shutdown); calls that start after
 * this one get `TICKREEL_RESULT_INVALID_HANDLE`.
 */
TickreelResult tickreel_engine_free(struct TickreelEngine *engine);

/**
 * Stores the engine-wide counters in `*out_stats`.
 *
 * Thread safety: any thread, concurrently with any other call.
 *
 * # Safety
 * `out_stats` must be NULL or point to writable storage for one `TickreelEngineStats`.
 */
TickreelResult tickreel_engine_stats(struct TickreelEngine *engine,
                                     struct TickreelEngineStats *out_stats);

/**
 * Starts recording into the final file `path` (a NUL-terminated path in the platform's
 * encoding). While recording, the data lives in a directory next to `path` (metadata file +
 * append-only segments, durable at each flush); `tickreel_recorder_finish` compacts it into
 * `path`. If that directory exists (a recording closed by `tickreel_recorder_free`, an engine
 * shutdown or a crash), `on_existing` decides: by default (`TICKREEL_ON_EXISTING_START_FRESH`)
 * it is renamed aside to `STEM.previous-N.EXT.live` (one rename; never deleted, `tickreel
 * recover` finishes it) and a new recording starts, whose ticks may start again at 0; with
 * `TICKREEL_ON_EXISTING_RESUME` the recording is resumed (recovered on a thread of its own, the
 * call returns at once; `tickreel_recorder_wait_resumed` says where it ends): ticks must continue
 * after its last tick. A fresh recording costs a few `stat` calls and no file.
 * `options` (from `tickreel_recorder_options_new`, read here and kept by the caller) may be NULL
 * for the defaults. Stores the
 * recorder's handle in `*out_recorder` (NULL on failure, when it can be written).
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for an empty path or an invalid option,
 * `TICKREEL_RESULT_LOCKED` if `path` is already being recorded (in this process or another),
 * `TICKREEL_RESULT_INVALID_STATE` if the engine has shut down, `TICKREEL_RESULT_IO` if a finished
 * file exists at `path` and `overwrite` is 0, for a parent directory that is missing or not a
 * directory, a directory given as `path` or one that takes no new file (the message names the
 * path; Java's `TickreelException.path()` returns it), `TICKREEL_RESULT_IO` and the data errors
 * for a live directory that cannot be resumed, and `TICKREEL_RESULT_BACKPRESSURE` if the
 * writer's queue stayed full past
 * the recording's backpressure policy (at once with `TICKREEL_BACKPRESSURE_DROP`): nothing was
 * started, try again later.
 *
 * Thread safety: any thread. A recorder may then be used from any thread, but its ticks must be
 * submitted in increasing order, by one thread at a time.
 *
 * # Safety
 * `out_recorder` must be NULL or point to writable storage for one `TickreelRecorder` pointer.
 * `path` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_recorder_start(struct TickreelEngine *engine,
                                       const char *path,
                                       struct TickreelRecorderOptions *options,
                                       struct TickreelRecorder **out_recorder);

/**
 * Starts recording as `tickreel_recorder_start`, naming the game server that records it
 * (`server`: 1 to 64 bytes of UTF-8 without control characters; NULL for none). The recording
 * keeps it in its metadata (`server`), its shadow-play reports carry it, and the catalog stores
 * it on the recording's, runs' and reports' rows. A resumed recording is named again.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a server id out of those bounds, and what
 * `tickreel_recorder_start` returns.
 *
 * Thread safety: as `tickreel_recorder_start`.
 *
 * # Safety
 * `out_recorder` must be NULL or point to writable storage for one `TickreelRecorder` pointer.
 * `server` must be NULL or a NUL-terminated string.
 * `path` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_recorder_start_on(struct TickreelEngine *engine,
                                          const char *server,
                                          const char *path,
                                          struct TickreelRecorderOptions *options,
                                          struct TickreelRecorder **out_recorder);

/**
 * Frees a recorder. A recording still open is closed, not finished: queued ticks are written
 * and flushed by the writer thread, and the recording stays resumable (`tickreel_recorder_start`
 * on the same path with `TICKREEL_ON_EXISTING_RESUME` continues it; a later `_finish` produces
 * the file). A finished recording's
 * compaction goes on (its pending stays valid). `tickreel_recorder_free(NULL)` is a no-op
 * returning `TICKREEL_RESULT_OK`; a freed or invalid handle returns
 * `TICKREEL_RESULT_INVALID_HANDLE`. Never does I/O and never waits, not even for room in a full
 * writer queue: the close then takes effect after every tick queued before it.
 *
 * Thread safety: any thread. A call on the same recorder still running in another thread
 * finishes normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
 */
TickreelResult tickreel_recorder_free(struct TickreelRecorder *recorder);

/**
 * Queues one tick given as a batch-encoded buffer (see `tickreel_batch_bytes` for the
 * encoding; the bytes are copied). The server-thread path: O(1) checks, a copy into a pooled
 * buffer and a queue push; never I/O. The batch's events are decoded on the writer thread: a
 * malformed batch is refused there (counted in `rejected_ticks`, reported by
 * `tickreel_recorder_status`), not here. Ticks must be strictly increasing.
 *
 * When the writer falls behind, the backpressure policy applies. `TICKREEL_BACKPRESSURE_DROP`:
 * the tick is dropped (counted, recorded as a gap) and the call returns `TICKREEL_RESULT_OK`
 * with `*out_dropped` set to true. `TICKREEL_BACKPRESSURE_BLOCK`: the call waits up to the
 * deadline, then drops the tick the same way and returns `TICKREEL_RESULT_BACKPRESSURE`.
 * `*out_dropped` (if `out_dropped` is not NULL) is false when the tick was queued.
 *
 * Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `batch` is NULL, `TICKREEL_RESULT_INVALID_ARGUMENT`
 * for fewer than 2 bytes, more than `max_batch_bytes`, or a tick not after the previous one,
 * `TICKREEL_RESULT_INVALID_STATE` once the recording was finished or aborted or the engine has
 * shut down.
 *
 * Thread safety: any thread, but one thread at a time per recorder (ticks in order).
 *
 * # Safety
 * `out_dropped` must be NULL or point to writable storage for one `bool`.
 * `batch` must point to `batch_len` readable bytes (NULL is refused).
 */
TickreelResult tickreel_recorder_submit_tick(struct TickreelRecorder *recorder,
                                             uint32_t tick,
                                             const uint8_t *batch,
                                             size_t batch_len,
                                             bool *out_dropped);

/**
 * Queues one tick holding the events of a batch builder (the batch is left unchanged; clear it
 * before building the next tick). Same rules and results as `tickreel_recorder_submit_tick`.
 *
 * Thread safety: any thread, but one thread at a time per recorder (ticks in order). The batch
 * must not be modified by another thread during the call (its lock is held while it is copied).
 *
 * # Safety
 * `out_dropped` must be NULL or point to writable storage for one `bool`.
 */
TickreelResult tickreel_recorder_submit_batch(struct TickreelRecorder *recorder,
                                              uint32_t tick,
                                              struct TickreelBatch *batch,
                                              bool *out_dropped);

/**
 * A player left: asks the writer to flush (if the flush policy's `flush_on_player_leave` is
 * set) so that their part of the recording is durable, and starts the player's grace period in
 * a shadow buffer this recorder feeds (`tickreel_shadow_buffer_start`). Adds no event: record the leave
 * itself with `tickreel_batch_player_leave` in the tick's batch. Never does I/O; waits only
 * while the writer's queue is full.
 *
 * Returns `TICKREEL_RESULT_INVALID_STATE` once the recording was finished or aborted.
 *
 * Thread safety: any thread, concurrently with other recorder calls.
 */
TickreelResult tickreel_recorder_player_left(struct TickreelRecorder *recorder,
                                             uint32_t entity);

/**
 * Supplies snapshot bytes (the game's own world state, opaque to tickreel, copied); the next
 * tick starts a chunk carrying them. `bytes` may be NULL when `len` is 0. Never does I/O; waits
 * only while the writer's queue is full.
 *
 * Returns `TICKREEL_RESULT_INVALID_STATE` once the recording was finished or aborted.
 *
 * Thread safety: any thread, concurrently with other recorder calls.
 *
 * # Safety
 * `bytes` must point to `bytes_len` readable bytes (or `bytes_len` must be 0).
 */
TickreelResult tickreel_recorder_offer_snapshot(struct TickreelRecorder *recorder,
                                                const uint8_t *bytes,
                                                size_t bytes_len);

/**
 * Supplies terrain: the blocks of an area as `sections_count` chunk sections in Minecraft's
 * layout (`TickreelTerrainSection`; copied), at the recording's start or whenever the game
 * loads or changes an area. The next tick starts a chunk carrying it, stored once, compressed;
 * readers return it with the world from that tick on (`tickreel_world_state_block`,
 * `tickreel_world_state_terrain_sections`), a later offer's section replacing an earlier one at
 * the same position. Checks every section on the calling thread; never does I/O; waits only
 * while the writer's queue is full.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` (nothing queued) for an invalid section (a palette
 * of 0 or more than 4096 states, `bits` not matching it, `packed_len` not matching `bits`, an
 * index past the palette), a section position twice, or more than 16,384 sections;
 * `TICKREEL_RESULT_LIMIT_EXCEEDED` for terrain whose coded form would exceed 16 MiB;
 * `TICKREEL_RESULT_NULL_ARGUMENT` for a NULL array with a length;
 * `TICKREEL_RESULT_INVALID_STATE` once the recording was finished or aborted.
 *
 * Thread safety: any thread, concurrently with other recorder calls.
 *
 * # Safety
 * `sections` must point to `sections_count` readable `TickreelTerrainSection`s (or `sections_count` must be 0), each with `palette_len` readable `uint32_t`s at `palette` and `packed_len` readable `uint64_t`s at `packed` (or that length 0).
 */
TickreelResult tickreel_recorder_offer_terrain(struct TickreelRecorder *recorder,
                                               const struct TickreelTerrainSection *sections,
                                               size_t sections_count);

/**
 * Records who an entity is, in the recording's metadata: its game-defined `kind`, optionally a
 * 16-byte UUID (`uuid`, NULL for none) and a UTF-8 name (`name`, NULL for none). Registering an
 * id again replaces the earlier entry. Never does I/O; waits only while the writer's queue is
 * full.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `name` is not UTF-8,
 * `TICKREEL_RESULT_INVALID_STATE` once the recording was finished or aborted.
 *
 * Thread safety: any thread, concurrently with other recorder calls.
 *
 * # Safety
 * `uuid` must be NULL or point to 16 readable bytes.
 * `name` must be NULL or a NUL-terminated string.
 */
TickreelResult tickreel_recorder_register_entity(struct TickreelRecorder *recorder,
                                                 uint32_t entity,
                                                 uint32_t kind,
                                                 const uint8_t *uuid,
                                                 const char *name);

/**
 * Registers a custom event type in the recording's metadata: its id (as used by
 * `tickreel_batch_custom`), a UTF-8 name and the game's schema version of its payload. Never
 * does I/O; waits only while the writer's queue is full.
 *
 * Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `name` is NULL, `TICKREEL_RESULT_INVALID_ARGUMENT`
 * if it is not UTF-8, `TICKREEL_RESULT_INVALID_STATE` once the recording was finished or aborted.
 *
 * Thread safety: any thread, concurrently with other recorder calls.
 *
 * # Safety
 * `name` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_recorder_register_event_type(struct TickreelRecorder *recorder,
                                                     uint32_t type_id,
                                                     const char *name,
                                                     uint32_t version);

/**
 * Names id `id` of palette `kind` (`TICKREEL_PALETTE_BLOCK`, `_ITEM` or `_DAMAGE_CAUSE`) in the
 * recording's metadata, e.g. block state 1 as `"minecraft:stone"`, so that the recording
 * explains its world events across game versions. Naming an id again with the same name does
 * nothing. Never does I/O; waits only while the writer's queue is full.
 *
 * Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `name` is NULL, `TICKREEL_RESULT_INVALID_ARGUMENT`
 * for an unknown kind, a name that is not UTF-8, empty or over 256 bytes, or an id named
 * otherwise already; `TICKREEL_RESULT_LIMIT_EXCEEDED` beyond 131072 names of a kind or the
 * metadata budget; `TICKREEL_RESULT_INVALID_STATE` once the recording was finished or aborted.
 *
 * Thread safety: any thread, concurrently with other recorder calls.
 *
 * # Safety
 * `name` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_recorder_register_name(struct TickreelRecorder *recorder,
                                               uint32_t kind,
                                               uint32_t id,
                                               const char *name);

/**
 * Adds the keys of `nbt`, a big-endian NBT root compound (as Minecraft writes it), to the
 * recording's user metadata (a key given again replaces the earlier value). The key
 * `"tickreel"` is the library's own.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `nbt` is not an NBT compound, nests too deeply
 * or uses the reserved key.
 *
 * Thread safety: any thread.
 *
 * # Safety
 * `nbt` must point to `nbt_len` readable bytes (or `nbt_len` must be 0).
 */
TickreelResult tickreel_recorder_set_user_metadata(struct TickreelRecorder *recorder,
                                                   const uint8_t *nbt,
                                                   size_t nbt_len);

/**
 * Asks the writer to flush now and waits until every tick submitted before this call is durably
 * in the live directory (segments fsynced, metadata rewritten atomically). Blocks for the I/O:
 * not for the server thread.
 *
 * Returns `TICKREEL_RESULT_OK` once durable (a tick the writer refused is not an error here: see
 * `tickreel_recorder_status`), `TICKREEL_RESULT_IO` if the flush failed,
 * `TICKREEL_RESULT_INVALID_STATE` once the recording was finished or aborted.
 *
 * Thread safety: any thread, concurrently with other recorder calls.
 */
TickreelResult tickreel_recorder_flush(struct TickreelRecorder *recorder);

/**
 * Stores the recording's counters in `*out_stats`. Never blocks.
 *
 * Thread safety: any thread, concurrently with any other call; the counters are read one by one
 * and may be mutually a little out of date.
 *
 * # Safety
 * `out_stats` must be NULL or point to writable storage for one `TickreelRecorderStats`.
 */
TickreelResult tickreel_recorder_stats(struct TickreelRecorder *recorder,
                                       struct TickreelRecorderStats *out_stats);

/**
 * Waits up to `timeout_ms` for a resumed recording to be recovered (`tickreel_recorder_start`
 * on an existing live directory returns at once and recovers it on a thread of its own) and
 * stores its last recorded tick in `*out_tick` with `*out_has_tick` = true (false for a recording
 * without ticks, and at once for a fresh one). Ticks submitted must come after it.
 *
 * Returns `TICKREEL_RESULT_NOT_READY` if the recovery still runs at the timeout,
 * `TICKREEL_RESULT_INVALID_STATE` (with its error as the message) if it failed.
 *
 * Thread safety: any thread, concurrently with other recorder calls.
 *
 * # Safety
 * `out_has_tick` must be NULL or point to writable storage for one `bool`.
 * `out_tick` must be NULL or point to writable storage for one `u32`.
 */
TickreelResult tickreel_recorder_wait_resumed(struct TickreelRecorder *recorder,
                                              uint32_t timeout_ms,
                                              bool *out_has_tick,
                                              uint32_t *out_tick);

/**
 * The writer's health for this recording: `TICKREEL_RESULT_OK` if it has reported no error,
 * otherwise `TICKREEL_RESULT_INVALID_STATE` with the writer's last error as the calling
 * thread's last error message (e.g. `tick 12 refused: ...` for a malformed batch, or a failed
 * flush). The writer processes ticks asynchronously: call `tickreel_recorder_flush` first to be
 * sure every submitted tick has been looked at. An error stays reported; the recording goes on
 * (refused ticks are skipped). Never blocks.
 *
 * Thread safety: any thread, concurrently with other recorder calls.
 */
TickreelResult tickreel_recorder_status(struct TickreelRecorder *recorder);

/**
 * Ends the recording: the ticks still queued are written, then the engine's compaction worker
 * produces the final `.reel` file (atomically, verified if so configured) and removes the live
 * directory. Does not wait: stores in `*out_pending` a pending to poll (`tickreel_pending_poll`)
 * or wait on (`tickreel_pending_wait`), whose result is the final file's path
 * (`tickreel_pending_take_path`), to be freed with `tickreel_pending_free`. Afterwards the
 * recorder refuses every call with `TICKREEL_RESULT_INVALID_STATE` except `_stats`, `_status`
 * and `tickreel_recorder_free`, which must still be called.
 *
 * Never waits for room in a full writer queue: the finish then takes effect after every tick
 * queued before it.
 *
 * Returns `TICKREEL_RESULT_INVALID_STATE` if the recording was already finished or aborted (a
 * second finish), the engine has shut down, or the recorder feeds a stream without a file
 * (`tickreel_shadow_buffer_start` with a NULL path: end it with `tickreel_recorder_free` or `_abort`).
 * On failure `*out_pending` is set to NULL (when it can be written).
 *
 * Thread safety: any thread, concurrently with other recorder calls; only one finish or abort
 * succeeds.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 */
TickreelResult tickreel_recorder_finish(struct TickreelRecorder *recorder,
                                        struct TickreelPending **out_pending);

/**
 * Throws the recording away: queued ticks are discarded and its live directory is removed.
 * Blocks until the writer has done so. Afterwards the recorder behaves as after a finish.
 *
 * Returns `TICKREEL_RESULT_INVALID_STATE` if the recording was already finished or aborted or
 * the engine has shut down, `TICKREEL_RESULT_IO` if the directory could not be removed.
 *
 * Thread safety: any thread, concurrently with other recorder calls; only one finish or abort
 * succeeds.
 */
TickreelResult tickreel_recorder_abort(struct TickreelRecorder *recorder);

/**
 * Creates an engine's options with the defaults (1 writer thread, 65536 queued ticks, 64 MiB in
 * flight, 4096 pooled buffers, 256 MiB of shadow buffers), into `*out_options`. Change them with
 * the `tickreel_engine_options_set_*` functions, pass them to `tickreel_engine_new` (which reads
 * them) and free them with `tickreel_engine_options_free`.
 *
 * Thread safety: any thread; each setter is atomic, and a start on another thread reads them.
 *
 * # Safety
 * `out_options` must be NULL or point to writable storage for one `TickreelEngineOptions` pointer.
 */
TickreelResult tickreel_engine_options_new(struct TickreelEngineOptions **out_options);

/**
 * Frees engine options (an engine started with them keeps its copy). NULL is a no-op.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_engine_options_free(struct TickreelEngineOptions *options);

/**
 * Writer threads; recordings are spread over them (default 1). 1 to 64.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_engine_options_set_writer_threads(struct TickreelEngineOptions *options,
                                                          uint32_t writer_threads);

/**
 * Tick messages that may wait in each writer's queue (default 65536). Must be > 0.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_engine_options_set_queue_capacity(struct TickreelEngineOptions *options,
                                                          size_t queue_capacity);

/**
 * Bytes of submitted ticks that may be in flight, engine-wide (default 64 MiB). A single tick is
 * always accepted when nothing else is in flight.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_engine_options_set_max_inflight_bytes(struct TickreelEngineOptions *options,
                                                              size_t max_inflight_bytes);

/**
 * Reusable tick buffers kept in the engine's pool (default 4096).
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_engine_options_set_pool_buffers(struct TickreelEngineOptions *options,
                                                        size_t pool_buffers);

/**
 * Bytes the engine's shadow buffers (`tickreel_shadow_buffer_start`) may hold in all (default
 * 256 MiB); past it, the oldest blocks of any buffer are given up first.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_engine_options_set_shadow_budget_bytes(struct TickreelEngineOptions *options,
                                                               size_t shadow_budget_bytes);

/**
 * Finishes the recording (as `tickreel_recorder_finish`) and, once its `.reel` file is
 * compacted, uploads it to the object URL `url` (`s3://bucket/key`) on a background thread:
 * multipart for large files, never over an existing object unless `overwrite`, the uploaded
 * size checked, then the local file removed if `remove_local`. Stores the pending in
 * `*out_pending`: poll it with `tickreel_pending_poll`, read the object with
 * `tickreel_pending_take_upload`. A failed upload keeps the local
 * file (`tickreel upload FILE URL` retries it).
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a malformed URL (checked before the recording
 * is finished: it then goes on), and the codes of `tickreel_recorder_finish`. On failure
 * `*out_pending` is set to NULL (when it can be written).
 *
 * Thread safety: any thread, concurrently with other recorder calls; only one finish or abort
 * succeeds.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `url` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_recorder_finish_upload(struct TickreelRecorder *recorder,
                                               const char *url,
                                               struct TickreelObjectOptions *options,
                                               bool overwrite,
                                               bool remove_local,
                                               struct TickreelPending **out_pending);

/**
 * Starts shipping `recorder`'s live recording to the object URL `url` (`s3://bucket/key`, the
 * key the compacted recording will have; the live objects go under `<key>.live/`) every
 * `interval_ms` milliseconds on a background thread: the segment bytes flushed since the last
 * shipment as one object, then the manifest, so at most `2 × 60000 / interval_ms` requests a
 * minute (12 at 10000 ms). The recorder's flush interval becomes at most 1 s (a follower then
 * sees a tick within `interval_ms` plus 1 s and its poll); `tickreel_recorder_submit_tick` costs
 * the same. A follower elsewhere sees the shipped ticks (`tickreel_playhead_follow_url`). A
 * recording resumed after a restart resumes shipping to the same key. Blocks
 * on two requests, checking that nothing is at the key yet. Stores the shipper's handle in
 * `*out_shipper`; end it with `tickreel_live_shipper_finish` (freeing it stops the shipping and
 * leaves what is in the bucket: a follower reports the recording ended, `tickreel recover`
 * finishes it).
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a malformed URL or an interval of 0,
 * `TICKREEL_RESULT_INVALID_STATE` for a recorder without a file (a stream),
 * `TICKREEL_RESULT_IO` if a recording or another recording's live objects are at the key, or the store
 * refuses or cannot be reached. On failure `*out_shipper` is set to NULL (when it can be written).
 *
 * Thread safety: any thread, concurrently with other recorder calls.
 *
 * # Safety
 * `out_shipper` must be NULL or point to writable storage for one `TickreelLiveShipper` pointer.
 * `url` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_recorder_ship_live(struct TickreelRecorder *recorder,
                                           const char *url,
                                           struct TickreelObjectOptions *options,
                                           uint32_t interval_ms,
                                           struct TickreelLiveShipper **out_shipper);

/**
 * Creates a recording's options with the defaults (20 ticks/s, 100-tick live chunks at zstd
 * level 3, a snapshot every 600 ticks, flush every 5 s / 256 KiB / on player leave, block up to
 * 1 ms under backpressure, start fresh where a live recording exists, compaction at zstd level 9
 * with verification, batches up to 1 MiB, no overwrite), into `*out_options`. Change them with
 * the `tickreel_recorder_options_set_*` functions, pass them to `tickreel_recorder_start` (which
 * reads them: one options handle may start many recordings) and free them with
 * `tickreel_recorder_options_free`.
 *
 * Thread safety: any thread; options may be set from several threads (each setter is atomic)
 * and read by a start on another.
 *
 * # Safety
 * `out_options` must be NULL or point to writable storage for one `TickreelRecorderOptions` pointer.
 */
TickreelResult tickreel_recorder_options_new(struct TickreelRecorderOptions **out_options);

/**
 * Frees recorder options (recordings started with them keep their copy). NULL is a no-op.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_recorder_options_free(struct TickreelRecorderOptions *options);

/**
 * The game's tick rate in ticks per second times 1000 (default 20000: 20 ticks/s). Must be > 0.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_recorder_options_set_tick_rate_millihz(struct TickreelRecorderOptions *options,
                                                               uint32_t tick_rate_millihz);

/**
 * The game's own data version (e.g. a Minecraft data version), opaque to tickreel (default 0).
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_recorder_options_set_game_data_version(struct TickreelRecorderOptions *options,
                                                               uint32_t game_data_version);

/**
 * When the recording started, in Unix milliseconds (default 0).
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_recorder_options_set_timestamp_ms(struct TickreelRecorderOptions *options,
                                                          int64_t timestamp_ms);

/**
 * The world's identity, opaque to tickreel (e.g. a UUID): 16 bytes, NULL for all zero (the
 * default).
 *
 * Thread safety: any thread.
 *
 * # Safety
 * `world_id` must be NULL or point to 16 readable bytes.
 */
TickreelResult tickreel_recorder_options_set_world_id(struct TickreelRecorderOptions *options,
                                                      const uint8_t *world_id);

/**
 * The world's version, opaque to tickreel: 16 bytes, NULL for all zero (the default).
 *
 * Thread safety: any thread.
 *
 * # Safety
 * `world_version` must be NULL or point to 16 readable bytes.
 */
TickreelResult tickreel_recorder_options_set_world_version(struct TickreelRecorderOptions *options,
                                                           const uint8_t *world_version);

/**
 * The zstd dictionary (1 to 65535; 0 for none, the default) the live segments and the compacted
 * file are compressed with; it must have been registered (`tickreel_dictionary_register`).
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_recorder_options_set_dictionary_id(struct TickreelRecorderOptions *options,
                                                           uint32_t dictionary_id);

/**
 * Most ticks one live chunk spans (default 100). 1 to 1048576.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_recorder_options_set_chunk_ticks(struct TickreelRecorderOptions *options,
                                                         uint32_t chunk_ticks);

/**
 * Cut a live chunk once its uncompressed payload reaches about this many bytes (default 1 MiB).
 * Must be > 0.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_recorder_options_set_chunk_bytes(struct TickreelRecorderOptions *options,
                                                         size_t chunk_bytes);

/**
 * Ticks between snapshots (default 600). Must be > 0.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_recorder_options_set_snapshot_interval(struct TickreelRecorderOptions *options,
                                                               uint32_t snapshot_interval);

/**
 * Zstd level of the live segments, -7 to 22 (default 3: fast).
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_recorder_options_set_zstd_level(struct TickreelRecorderOptions *options,
                                                        int32_t zstd_level);

/**
 * Flush at least this often while ticks arrive, in milliseconds (default 5000). Must be > 0.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_recorder_options_set_flush_interval(struct TickreelRecorderOptions *options,
                                                            uint64_t flush_interval);

/**
 * Flush once this many compressed bytes are waiting (default 256 KiB). Must be > 0.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_recorder_options_set_flush_max_pending_bytes(struct TickreelRecorderOptions *options,
                                                                     size_t flush_max_pending_bytes);

/**
 * Flush when a player leaves (a `PlayerLeave` event or `tickreel_recorder_player_left`)
 * (default true).
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_recorder_options_set_flush_on_player_leave(struct TickreelRecorderOptions *options,
                                                                   bool flush_on_player_leave);

/**
 * `TICKREEL_BACKPRESSURE_BLOCK` (the default) or `TICKREEL_BACKPRESSURE_DROP`. When the writer
 * falls behind, the default holds the calling thread up to the block deadline (1 ms: 2% of a
 * 50 ms tick), then drops the tick: counted (`dropped_ticks` in the recorder's and the engine's
 * stats), recorded as a gap in the recording, and returned as `TICKREEL_RESULT_BACKPRESSURE`.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for another value.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_recorder_options_set_backpressure(struct TickreelRecorderOptions *options,
                                                          uint32_t backpressure);

/**
 * With `TICKREEL_BACKPRESSURE_BLOCK`: the longest `tickreel_recorder_submit_tick` waits for
 * room, in milliseconds (default 1; the call returns within about this + 1 ms). A whole tick (50)
 * or more lets a stalled writer stall the server.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_recorder_options_set_block_deadline(struct TickreelRecorderOptions *options,
                                                            uint64_t block_deadline);

/**
 * Zstd level of the final compacted file, -7 to 22 (default 9).
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_recorder_options_set_compaction_zstd_level(struct TickreelRecorderOptions *options,
                                                                   int32_t compaction_zstd_level);

/**
 * Most ticks a chunk of the final compacted file spans (default 12000; chunks are cut sooner at
 * 64 KiB of payload). 1 to 1048576.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_recorder_options_set_compaction_chunk_ticks(struct TickreelRecorderOptions *options,
                                                                    uint32_t compaction_chunk_ticks);

/**
 * Read the final file back and check it before reporting the finish done (default true).
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_recorder_options_set_compaction_verify(struct TickreelRecorderOptions *options,
                                                               bool compaction_verify);

/**
 * Largest accepted tick batch in bytes (default 1 MiB). At least 2 (an empty tick), at most the
 * format's limit for one tick.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_recorder_options_set_max_batch_bytes(struct TickreelRecorderOptions *options,
                                                             size_t max_batch_bytes);

/**
 * Replace an existing finished file at the path instead of refusing (default false). A live
 * recording of the path is `on_existing`'s (with `TICKREEL_ON_EXISTING_RESUME`, resumed, and its
 * finish replaces the file).
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_recorder_options_set_overwrite(struct TickreelRecorderOptions *options,
                                                       bool overwrite);

/**
 * What starting does with a live recording of the path (a stopped or crashed server's):
 * `TICKREEL_ON_EXISTING_START_FRESH` (the default: kept aside as `STEM.previous-N.EXT`, never
 * lost, and a new recording starts, so ticks may start again at 0), `TICKREEL_ON_EXISTING_RESUME`
 * (continue it after its last tick) or `TICKREEL_ON_EXISTING_REFUSE`.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for another value.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_recorder_options_set_on_existing(struct TickreelRecorderOptions *options,
                                                         uint32_t on_existing);

/* ---- Ghosts (TickreelGhost, TickreelGhostCursor, TickreelLiveDelta, TickreelGhostSet, TickreelGoldSplits) ---- */

/**
 * Samples a ghost track at fractional ticks. Opaque: create with `tickreel_ghost_cursor_new`,
 * release with `tickreel_ghost_cursor_free`.
 */
typedef struct TickreelGhostCursor TickreelGhostCursor;

/**
 * A live attempt's splits against the player's gold segments. Opaque: create with
 * `tickreel_gold_splits_new`, release with `tickreel_gold_splits_free`.
 */
typedef struct TickreelGoldSplits TickreelGoldSplits;

/**
 * The live time delta of a live player against a ghost. Opaque: create with
 * `tickreel_live_delta_new`, release with `tickreel_live_delta_free`.
 */
typedef struct TickreelLiveDelta TickreelLiveDelta;

/**
 * An open recording. Opaque: open with `tickreel_reader_open`, release with
 * `tickreel_reader_free`. The pointer is a handle, not an address: never dereference it.
 */
typedef struct TickreelReader TickreelReader;

/**
 * Which part of an entity's recorded life is the run. `{0, 0, 0, 0}` (or a NULL pointer) is
 * the whole presence of the entity.
 */
typedef struct TickreelGhostRange {
    /**
     * `TICKREEL_GHOST_BOUND_*`: where the run starts (its `t = 0`).
     */
    uint32_t start_kind;
    /**
     * The start tick or checkpoint index.
     */
    uint32_t start_value;
    /**
     * `TICKREEL_GHOST_BOUND_*`: where the run ends (the ghost's finish).
     */
    uint32_t end_kind;
    /**
     * The end tick or checkpoint index.
     */
    uint32_t end_value;
} TickreelGhostRange;

/**
 * What `tickreel_ghost_info` reports about a ghost track.
 */
typedef struct TickreelGhostInfo {
    /**
     * The entity whose run it is.
     */
    uint32_t entity;
    /**
     * Absolute tick of the recording at which the run starts (its `t = 0`).
     */
    uint32_t origin_tick;
    /**
     * The run's length in ticks (its last sample's tick offset).
     */
    uint32_t duration_ticks;
    /**
     * Number of pose samples.
     */
    size_t sample_count;
    /**
     * Number of splits (checkpoint markers in the run), for `tickreel_ghost_splits`.
     */
    size_t split_count;
    /**
     * Ticks per second of the source recording (seconds = ticks / tick_rate).
     */
    double tick_rate;
    /**
     * The run's length in seconds.
     */
    double duration_seconds;
} TickreelGhostInfo;

/**
 * One split of a ghost: a checkpoint marker and its tick offset from the run's start.
 */
typedef struct TickreelSplit {
    /**
     * The checkpoint index.
     */
    uint32_t checkpoint;
    /**
     * Ticks from the run's start.
     */
    uint32_t tick;
} TickreelSplit;

/**
 * The ghost at one moment, as filled in by `tickreel_ghost_cursor_sample`.
 */
typedef struct TickreelGhostSample {
    /**
     * The time sampled on the ghost's own clock (after its time shift), in ticks.
     */
    double t;
    /**
     * Position in blocks.
     */
    double x;
    /**
     * Height in blocks.
     */
    double y;
    /**
     * Position in blocks.
     */
    double z;
    /**
     * Yaw in degrees, unbounded (continuous with the recorded values).
     */
    double yaw;
    /**
     * Pitch in degrees.
     */
    double pitch;
    /**
     * State flags (`TICKREEL_FLAG_*` bits and the game's own) in effect.
     */
    uint32_t flags;
    /**
     * `TICKREEL_GHOST_NOT_STARTED`, `TICKREEL_GHOST_RUNNING` or `TICKREEL_GHOST_FINISHED`.
     */
    uint32_t state;
} TickreelGhostSample;

/**
 * A reading of gold splits, as filled in by `tickreel_gold_splits_checkpoint` and `_finish`.
 */
typedef struct TickreelGoldSplit {
    /**
     * A split was counted (the route's next checkpoint, or the finish after all of them); the
     * fields below up to `new_gold` are zero otherwise.
     */
    bool split;
    /**
     * The segment a split ended (0: from the start to the route's first checkpoint).
     */
    uint32_t segment;
    /**
     * The segment beat its gold (it is now the gold).
     */
    bool new_gold;
    /**
     * Ticks from the live run's start to the split.
     */
    double live_ticks;
    /**
     * Ticks the live run took for the segment.
     */
    double segment_ticks;
    /**
     * The segment's gold before this split, in ticks.
     */
    double gold_ticks;
    /**
     * `segment_ticks - gold_ticks`: negative when faster than the gold.
     */
    double delta_ticks;
    /**
     * `delta_ticks` in seconds.
     */
    double delta_seconds;
    /**
     * The best possible time: at a split, the time so far plus the remaining gold; otherwise
     * as `tickreel_gold_splits_best_possible`. In ticks.
     */
    double best_possible_ticks;
    /**
     * `best_possible_ticks` in seconds.
     */
    double best_possible_seconds;
} TickreelGoldSplit;

/**
 * Loads `entity`'s run in `range` (NULL: the entity's whole presence) from the finished `.reel`
 * file at `path` and stores the ghost's handle in `*out_ghost` (NULL on failure, when it can be
 * written). Reads only the chunks up to the run's end. Blocks for the I/O: on a server thread,
 * use `tickreel_ghost_load_async`.
 *
 * Returns the reader's errors for the file (`TICKREEL_RESULT_IO`, `_CORRUPT`, `_TRUNCATED`...),
 * `TICKREEL_RESULT_INVALID_ARGUMENT` for an invalid range, an entity with no pose in it, or a
 * checkpoint the entity never reached.
 *
 * Thread safety: any thread. A ghost may then be used from any thread, by any number of
 * threads at once (it is read only).
 *
 * # Safety
 * `out_ghost` must be NULL or point to writable storage for one `TickreelGhost` pointer.
 * `path` must be NULL or a NUL-terminated string (NULL is refused).
 * `range` must be NULL or point to a readable `TickreelGhostRange`.
 */
TickreelResult tickreel_ghost_load(const char *path,
                                   uint32_t entity,
                                   const struct TickreelGhostRange *range,
                                   struct TickreelGhost **out_ghost);

/**
 * Like `tickreel_ghost_load`, from a recording already open in `reader`.
 *
 * Thread safety: any thread, concurrently with any other call on the reader.
 *
 * # Safety
 * `out_ghost` must be NULL or point to writable storage for one `TickreelGhost` pointer.
 * `range` must be NULL or point to a readable `TickreelGhostRange`.
 */
TickreelResult tickreel_ghost_load_from_reader(struct TickreelReader *reader,
                                               uint32_t entity,
                                               const struct TickreelGhostRange *range,
                                               struct TickreelGhost **out_ghost);

/**
 * Frees a ghost. Cursors and deltas made from it stay usable (they share its data).
 * `tickreel_ghost_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a freed or invalid
 * handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
 *
 * Thread safety: any thread. Calls on the same ghost running in other threads finish normally;
 * calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
 */
TickreelResult tickreel_ghost_free(struct TickreelGhost *ghost);

/**
 * Stores what the ghost's run spans in `*out_info`: entity, origin tick, duration, sample and
 * split counts, tick rate.
 *
 * Thread safety: any thread, concurrently with any other call.
 *
 * # Safety
 * `out_info` must be NULL or point to writable storage for one `TickreelGhostInfo`.
 */
TickreelResult tickreel_ghost_info(struct TickreelGhost *ghost, struct TickreelGhostInfo *out_info);

/**
 * Copies the ghost's splits (checkpoint markers in recorded order, with their tick offsets from
 * the run's start) into `splits`, and stores their number in `*out_count`.
 *
 * `*out_count` is always set. If it exceeds `capacity`, nothing is copied and
 * `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `splits` may be NULL when `capacity` is 0, to
 * query the count.
 *
 * Thread safety: any thread, concurrently with any other call.
 *
 * # Safety
 * `splits` must point to `capacity` writable `TickreelSplit`s (or `capacity` must be 0); `out_count` must be NULL or point to a writable `size_t`.
 */
TickreelResult tickreel_ghost_splits(struct TickreelGhost *ghost,
                                     struct TickreelSplit *splits,
                                     size_t capacity,
                                     size_t *out_count);

/**
 * Creates a cursor over the ghost, at the start of its run with no time shift, and stores its
 * handle in `*out_cursor` (NULL on failure, when it can be written).
 *
 * Thread safety: any thread. A cursor keeps its position between calls: give each viewer (or
 * thread) its own; calls on one cursor are serialised by an internal lock.
 *
 * # Safety
 * `out_cursor` must be NULL or point to writable storage for one `TickreelGhostCursor` pointer.
 */
TickreelResult tickreel_ghost_cursor_new(struct TickreelGhost *ghost,
                                         struct TickreelGhostCursor **out_cursor);

/**
 * Frees a cursor. `tickreel_ghost_cursor_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a
 * freed or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
 *
 * Thread safety: any thread. A call on the same cursor still running in another thread
 * finishes normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
 */
TickreelResult tickreel_ghost_cursor_free(struct TickreelGhostCursor *cursor);

/**
 * Stores the ghost's pose at `t` ticks from the (shifted) start of its run in `*out_sample`.
 * `t` is fractional: sample at your frame rate (e.g. `t += 20.0 / 60.0` per frame for a 20
 * ticks/s recording shown at 60 Hz). Between samples the pose is a monotone cubic Hermite
 * interpolation, never across a teleport; at every recorded tick it is exactly the recorded
 * pose. Before the start (or for a NaN `t`) the ghost waits at its first pose
 * (`TICKREEL_GHOST_NOT_STARTED`); at or after the finish it stays at its last
 * (`TICKREEL_GHOST_FINISHED`). O(1) when `t` moves forward a little from the previous call;
 * never allocates.
 *
 * Thread safety: any thread; calls on one cursor are serialised.
 *
 * # Safety
 * `out_sample` must be NULL or point to writable storage for one `TickreelGhostSample`.
 */
TickreelResult tickreel_ghost_cursor_sample(struct TickreelGhostCursor *cursor,
                                            double t,
                                            struct TickreelGhostSample *out_sample);

/**
 * Delays the ghost by `ticks` (negative: it starts earlier): `tickreel_ghost_cursor_sample(c, t)`
 * then shows the run at `t - ticks`.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `ticks` is not finite.
 *
 * Thread safety: any thread; calls on one cursor are serialised.
 */
TickreelResult tickreel_ghost_cursor_set_time_shift(struct TickreelGhostCursor *cursor,
                                                    double ticks);

/**
 * Creates a live delta against the ghost (no time shift) and stores its handle in `*out_delta`
 * (NULL on failure, when it can be written).
 *
 * Thread safety: any thread. A delta follows one live run: give each live player their own;
 * calls on one delta are serialised by an internal lock.
 *
 * # Safety
 * `out_delta` must be NULL or point to writable storage for one `TickreelLiveDelta` pointer.
 */
TickreelResult tickreel_live_delta_new(struct TickreelGhost *ghost,
                                       struct TickreelLiveDelta **out_delta);

/**
 * Frees a delta. `tickreel_live_delta_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a freed
 * or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
 *
 * Thread safety: any thread. A call on the same delta still running in another thread finishes
 * normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
 */
TickreelResult tickreel_live_delta_free(struct TickreelLiveDelta *delta);

/**
 * The live player, `live_t` ticks after the start of their run, is at (`x`, `y`, `z`) blocks:
 * matches that position to the nearest point of the ghost's path and stores how far behind
 * (positive) or ahead (negative) of the ghost they are, in seconds, in `*out_seconds`. The
 * value shown is smoothed (a sign flips only past 0.1 s, the value moves in steps of 0.02 s) so
 * that it does not flicker. Costs O(a small window); never allocates.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if any argument is not finite.
 *
 * Thread safety: any thread; calls on one delta are serialised.
 *
 * # Safety
 * `out_seconds` must be NULL or point to writable storage for one `f64`.
 */
TickreelResult tickreel_live_delta_update(struct TickreelLiveDelta *delta,
                                          double live_t,
                                          double x,
                                          double y,
                                          double z,
                                          double *out_seconds);

/**
 * Delays the ghost by `ticks` for this delta (as `tickreel_ghost_cursor_set_time_shift`).
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `ticks` is not finite.
 *
 * Thread safety: any thread; calls on one delta are serialised.
 */
TickreelResult tickreel_live_delta_set_time_shift(struct TickreelLiveDelta *delta, double ticks);

/**
 * Forgets the previous match and the smoothed value: call when the live player starts a new
 * attempt.
 *
 * Thread safety: any thread; calls on one delta are serialised.
 */
TickreelResult tickreel_live_delta_reset(struct TickreelLiveDelta *delta);

/**
 * Starts loading `entity`'s run in `range` (NULL: its whole presence) from the `.reel` file at
 * `path` on a background thread, and stores the pending's handle in `*out_pending` (NULL on
 * failure, when it can be written). Never blocks: poll it with `tickreel_pending_poll` and take
 * the ghost with `tickreel_pending_take_ghost`, which reports the load's own errors (file,
 * range). Freeing the pending first cancels the load.
 *
 * Thread safety: any thread. The pending may then be used from any thread.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `path` must be NULL or a NUL-terminated string (NULL is refused).
 * `range` must be NULL or point to a readable `TickreelGhostRange`.
 */
TickreelResult tickreel_ghost_load_async(const char *path,
                                         uint32_t entity,
                                         const struct TickreelGhostRange *range,
                                         struct TickreelPending **out_pending);

/**
 * Creates an empty ghost set and stores its handle in `*out_set` (NULL on failure, when it can
 * be written). Add ghosts with `tickreel_ghost_set_push`, or get a course's from the catalog
 * with `tickreel_catalog_load_ghosts`.
 *
 * Thread safety: any thread. Calls on one set are serialised by an internal lock.
 *
 * # Safety
 * `out_set` must be NULL or point to writable storage for one `TickreelGhostSet` pointer.
 */
TickreelResult tickreel_ghost_set_new(struct TickreelGhostSet **out_set);

/**
 * Frees a ghost set (its ghosts stay usable through their own handles).
 * `tickreel_ghost_set_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a freed or invalid
 * handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
 *
 * Thread safety: any thread. A call on the same set still running in another thread finishes
 * normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
 */
TickreelResult tickreel_ghost_set_free(struct TickreelGhostSet *set);

/**
 * Adds `ghost` to the set with a cursor of its own (no time shift) and stores its index in
 * `*out_index` (0 for the first).
 *
 * Thread safety: any thread; calls on one set are serialised.
 *
 * # Safety
 * `out_index` must be NULL or point to writable storage for one `u32`.
 */
TickreelResult tickreel_ghost_set_push(struct TickreelGhostSet *set,
                                       struct TickreelGhost *ghost,
                                       uint32_t *out_index);

/**
 * Stores the number of ghosts in the set in `*out_count`.
 *
 * Thread safety: any thread; calls on one set are serialised.
 *
 * # Safety
 * `out_count` must be NULL or point to writable storage for one `u32`.
 */
TickreelResult tickreel_ghost_set_len(struct TickreelGhostSet *set, uint32_t *out_count);

/**
 * Stores ghost `index`'s run length in ticks in `*out_ticks`.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` when the set has no ghost `index`.
 *
 * Thread safety: any thread; calls on one set are serialised.
 *
 * # Safety
 * `out_ticks` must be NULL or point to writable storage for one `u32`.
 */
TickreelResult tickreel_ghost_set_duration(struct TickreelGhostSet *set,
                                           uint32_t index,
                                           uint32_t *out_ticks);

/**
 * Delays ghost `index` of the set by `ticks` (negative: it starts earlier), as
 * `tickreel_ghost_cursor_set_time_shift`.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `ticks` is not finite or the set has no ghost
 * `index`.
 *
 * Thread safety: any thread; calls on one set are serialised.
 */
TickreelResult tickreel_ghost_set_set_time_shift(struct TickreelGhostSet *set,
                                                 uint32_t index,
                                                 double ticks);

/**
 * Samples every ghost of the set at `t` ticks from the (shifted) start of its run, in one call:
 * ghost `i`'s pose is written at `out[8 * i ..]` as 8 numbers, `t, x, y, z, yaw, pitch, flags,
 * state` (`TickreelGhostSample`'s fields in order; state `TICKREEL_GHOST_NOT_STARTED`,
 * `_RUNNING` or `_FINISHED`). Stores the number of ghosts written in `*out_count`: the set's
 * size, or fewer when `out_len` holds fewer whole ghosts. Each ghost is sampled as
 * `tickreel_ghost_cursor_sample` samples it; never allocates.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `t` is not finite.
 *
 * Thread safety: any thread; calls on one set are serialised.
 *
 * # Safety
 * `out_count` must be NULL or point to writable storage for one `u32`.
 * `out` must point to `out_len` writable `f64`s (or `out_len` must be 0), not overlapping any other argument.
 */
TickreelResult tickreel_ghost_set_sample(struct TickreelGhostSet *set,
                                         double t,
                                         double *out,
                                         size_t out_len,
                                         uint32_t *out_count);

/**
 * Creates a live attempt's splits against the player's gold segments and stores its handle in
 * `*out_splits` (NULL on failure, when it can be written): `route` lists the `route_len`
 * checkpoints crossed in order between the start and the finish, `gold` the best time of each
 * segment in ticks (`route_len + 1` of them: start to the first checkpoint, ..., last checkpoint
 * to the finish; a catalog's sum of best gives them), at `tick_rate` ticks a second.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` when `gold_len` is not `route_len + 1` or the tick
 * rate is not a positive number.
 *
 * Thread safety: any thread. Give each live player their own; calls on one are serialised by an
 * internal lock.
 *
 * # Safety
 * `out_splits` must be NULL or point to writable storage for one `TickreelGoldSplits` pointer.
 * `route` must point to `route_len` readable `u32`s (or `route_len` must be 0).
 * `gold` must point to `gold_len` readable `u32`s (or `gold_len` must be 0).
 */
TickreelResult tickreel_gold_splits_new(const uint32_t *route,
                                        size_t route_len,
                                        const uint32_t *gold,
                                        size_t gold_len,
                                        double tick_rate,
                                        struct TickreelGoldSplits **out_splits);

/**
 * Frees gold splits. `tickreel_gold_splits_free(NULL)` is a no-op returning
 * `TICKREEL_RESULT_OK`; a freed or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
 *
 * Thread safety: any thread. A call on the same splits still running in another thread finishes
 * normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
 */
TickreelResult tickreel_gold_splits_free(struct TickreelGoldSplits *splits);

/**
 * The live player crossed `checkpoint` `live_ticks` after their start: stores the reading in
 * `*out_split`. When `checkpoint` is the route's next one, `split` is true and the reading holds
 * the segment's time against its gold (`delta_ticks` negative when faster), whether it is a new
 * gold (it then becomes the gold for the rest of this attempt and the next ones) and the best
 * possible time from this split (time so far plus the remaining gold). Any other crossing
 * (skipped, repeated, off the route) counts no split: `split` is false and only the best
 * possible time is set. Never allocates.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `live_ticks` is not finite.
 *
 * Thread safety: any thread; calls on one are serialised.
 *
 * # Safety
 * `out_split` must be NULL or point to writable storage for one `TickreelGoldSplit`.
 */
TickreelResult tickreel_gold_splits_checkpoint(struct TickreelGoldSplits *splits,
                                               uint32_t checkpoint,
                                               double live_ticks,
                                               struct TickreelGoldSplit *out_split);

/**
 * The live player finished `live_ticks` after their start: stores the last segment's reading in
 * `*out_split` (as `tickreel_gold_splits_checkpoint`; `split` is false when a checkpoint of the
 * route was missed, the run having taken another route).
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `live_ticks` is not finite.
 *
 * Thread safety: any thread; calls on one are serialised.
 *
 * # Safety
 * `out_split` must be NULL or point to writable storage for one `TickreelGoldSplit`.
 */
TickreelResult tickreel_gold_splits_finish(struct TickreelGoldSplits *splits,
                                           double live_ticks,
                                           struct TickreelGoldSplit *out_split);

/**
 * Stores the best possible time in ticks when the live player is `live_ticks` into the run in
 * `*out_ticks`: the last split's time, the current segment's elapsed time or its gold (the
 * larger), and the gold of the segments after it; the run's time once finished. Call every tick
 * for the live figure; O(1), never allocates.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `live_ticks` is not finite.
 *
 * Thread safety: any thread; calls on one are serialised.
 *
 * # Safety
 * `out_ticks` must be NULL or point to writable storage for one `f64`.
 */
TickreelResult tickreel_gold_splits_best_possible(struct TickreelGoldSplits *splits,
                                                  double live_ticks,
                                                  double *out_ticks);

/**
 * Stores the sum of the gold segments in ticks (the best possible time before the run starts,
 * new golds included) in `*out_ticks`.
 *
 * Thread safety: any thread; calls on one are serialised.
 *
 * # Safety
 * `out_ticks` must be NULL or point to writable storage for one `u64`.
 */
TickreelResult tickreel_gold_splits_sum_of_best(struct TickreelGoldSplits *splits,
                                                uint64_t *out_ticks);

/**
 * Copies the gold of each segment in ticks (new golds included) into `gold` and stores how many
 * were written in `*out_count` (the route's segments, or fewer when `gold_len` is shorter).
 *
 * Thread safety: any thread; calls on one are serialised.
 *
 * # Safety
 * `out_count` must be NULL or point to writable storage for one `u32`.
 * `gold` must point to `gold_len` writable `i64`s (or `gold_len` must be 0), not overlapping any other argument.
 */
TickreelResult tickreel_gold_splits_gold(struct TickreelGoldSplits *splits,
                                         int64_t *gold,
                                         size_t gold_len,
                                         uint32_t *out_count);

/**
 * Starts a new attempt (the gold, new golds included, is kept).
 *
 * Thread safety: any thread; calls on one are serialised.
 */
TickreelResult tickreel_gold_splits_reset(struct TickreelGoldSplits *splits);

/**
 * Starts loading `entity`'s run in `range` (NULL: its whole presence) from the recording at
 * `location` (an object URL or a local path) on a background thread, and stores the load's
 * pending in `*out_pending`: poll it with `tickreel_pending_poll`, take the ghost with
 * `tickreel_pending_take_ghost` (which reports the load's own errors: a missing object, refused
 * credentials). Never blocks.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a malformed URL or options the store client
 * refuses. On failure `*out_pending` is set to NULL (when it can be written).
 *
 * Thread safety: any thread.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `location` must be NULL or a NUL-terminated string (NULL is refused).
 * `range` must be NULL or point to a readable `TickreelGhostRange`.
 */
TickreelResult tickreel_ghost_load_async_url(const char *location,
                                             struct TickreelObjectOptions *options,
                                             uint32_t entity,
                                             const struct TickreelGhostRange *range,
                                             struct TickreelPending **out_pending);

/* ---- Playback (TickreelPlayhead) ---- */

/**
 * A viewer's position in a recording. Opaque: open with `tickreel_playhead_open`, release with
 * `tickreel_playhead_free`. The pointer is a handle, not an address: never dereference it.
 */
typedef struct TickreelPlayhead TickreelPlayhead;

/**
 * The world at a tick (edited blocks, block entities, each entity's health and equipment).
 * Opaque: made by `tickreel_reader_world_at` or `tickreel_playhead_world_state`, released with
 * `tickreel_world_state_free`; never changes. The pointer is a handle, not an address: never
 * dereference it.
 */
typedef struct TickreelWorldState TickreelWorldState;

/**
 * What one playhead call did, as filled in by `tickreel_playhead_advance` and friends.
 */
typedef struct TickreelUpdate {
    /**
     * Position after the call (a tick of the recording).
     */
    uint32_t position;
    /**
     * How the position moved: `TICKREEL_MOTION_STILL`, `_FORWARD` or `_JUMP`.
     */
    uint32_t motion;
    /**
     * Forward motion: recorded ticks covered by the call (0 for other motions).
     */
    uint32_t ticks_covered;
    /**
     * The data for the next ticks was not decoded yet: the position moved less than asked
     * (maybe not at all); later calls catch up.
     */
    bool stalled;
    /**
     * The position is the first (playing backward) or last (forward) tick of the recording.
     */
    bool at_edge;
    /**
     * The recording has no tick yet: no position and no entity.
     */
    bool waiting;
    /**
     * Chunks that could not be read during this call (playback continues past them).
     */
    uint32_t fault_count;
    /**
     * Live entities at `position` (what `tickreel_playhead_entities` reports).
     */
    uint32_t entity_count;
} TickreelUpdate;

/**
 * One entity's state at a tick, as filled in by `tickreel_reader_seek`.
 */
typedef struct TickreelEntityState {
    /**
     * The entity id the game gave it.
     */
    uint32_t id;
    /**
     * Game-defined kind (e.g. an entity type id), as given when it was added.
     */
    uint32_t kind;
    /**
     * State flags (`TICKREEL_FLAG_*` bits and the game's own).
     */
    uint32_t flags;
    /**
     * Position in blocks (exact multiples of 1/4096).
     */
    double x;
    /**
     * Height in blocks.
     */
    double y;
    /**
     * Position in blocks.
     */
    double z;
    /**
     * Yaw in degrees, unbounded (as recorded).
     */
    double yaw;
    /**
     * Pitch in degrees.
     */
    double pitch;
} TickreelEntityState;

/**
 * What a playhead update does to the world, as filled in by `tickreel_playhead_rebuild`.
 */
typedef struct TickreelRebuild {
    /**
     * Rebuild the world: restore the snapshot (`tickreel_playhead_rebuild_snapshot`, if
     * `has_snapshot`), then re-apply the events of `tickreel_playhead_rebuild_events`. False: keep
     * the world as it is.
     */
    bool rebuild;
    /**
     * The recording has a snapshot at or before the position; without one, start from the world
     * as it was when recording started.
     */
    bool has_snapshot;
    /**
     * `snapshot_tick` is set.
     */
    bool has_snapshot_tick;
    /**
     * The tick whose events come after the snapshot (the snapshot is the world before them).
     */
    uint32_t snapshot_tick;
    /**
     * False if a chunk between the snapshot and the position could not be read: the events are
     * incomplete (see `fault_count`).
     */
    bool complete;
} TickreelRebuild;

/**
 * One change of the world the library keeps, as filled in by `tickreel_playhead_world_changes`:
 * what was before (so that reverse play restores it) and what is now. Fields the kind does not
 * use are 0 or false.
 */
typedef struct TickreelWorldChange {
    /**
     * `TICKREEL_WORLD_CHANGE_BLOCK` (0), `_HEALTH` (1) or `_EQUIPMENT` (2).
     */
    uint32_t kind;
    /**
     * Block x (a block change).
     */
    int32_t x;
    /**
     * Block y (a block change).
     */
    int32_t y;
    /**
     * Block z (a block change).
     */
    int32_t z;
    /**
     * The entity (a health or equipment change).
     */
    uint32_t entity;
    /**
     * The slot (an equipment change).
     */
    uint32_t slot;
    /**
     * `before` is set.
     */
    bool has_before;
    /**
     * The block state, health or item before. Not set: the block was not edited, the entity had
     * no health, the slot was empty.
     */
    uint32_t before;
    /**
     * The item count before (an equipment change).
     */
    uint32_t before_count;
    /**
     * `after` is set.
     */
    bool has_after;
    /**
     * The block state, health or item now. Not set: the block is no longer edited (restore the
     * world's own block), the entity has no health, the slot is empty.
     */
    uint32_t after;
    /**
     * The item count now (an equipment change).
     */
    uint32_t after_count;
} TickreelWorldChange;

/**
 * Opens the recording at `location`, an object URL or a local path (as
 * `tickreel_reader_open_url`), with a paused playhead at `start_tick` (clamped into the
 * recording), and stores its handle in `*out_playhead`. Chunks are fetched by range requests on
 * the playback prefetch threads, so `tickreel_playhead_advance` never waits on the network.
 *
 * Returns the codes of `tickreel_reader_open_url`. On failure `*out_playhead` is set to NULL
 * (when it can be written).
 *
 * Thread safety: any thread, as `tickreel_playhead_open`.
 *
 * # Safety
 * `out_playhead` must be NULL or point to writable storage for one `TickreelPlayhead` pointer.
 * `location` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_playhead_open_url(const char *location,
                                          struct TickreelObjectOptions *options,
                                          uint32_t start_tick,
                                          struct TickreelPlayhead **out_playhead);

/**
 * Like `tickreel_playhead_follow`, for a live recording shipped to object storage from any
 * machine: `location` is the compacted recording's URL (`s3://bucket/key`, as given to
 * `tickreel_recorder_ship_live`), read with `options`. A background thread polls the manifest
 * (every 500 ms), so new ticks appear within the shipper's interval plus a poll; when the
 * recording is finished it goes on from the uploaded `.reel`, and a recording whose shipper
 * stopped reporting is reported ended. `tickreel_playhead_free` stops the polling thread.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a malformed URL, `TICKREEL_RESULT_IO` if
 * neither the live objects nor the final object exist, or the store refuses or cannot be
 * reached. On failure `*out_playhead` is set to NULL (when it can be written).
 *
 * Thread safety: any thread, as `tickreel_playhead_open`.
 *
 * # Safety
 * `out_playhead` must be NULL or point to writable storage for one `TickreelPlayhead` pointer.
 * `location` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_playhead_follow_url(const char *location,
                                            struct TickreelObjectOptions *options,
                                            uint32_t start_tick,
                                            struct TickreelPlayhead **out_playhead);

/**
 * Opens the recording at `path` (a finished `.reel` file or a live recording directory; a
 * NUL-terminated path in the platform's encoding) and stores, in `*out_playhead`, a paused
 * playhead at `start_tick` (clamped into the recording), playing forward at speed 1. Blocks to
 * read and decode the chunk holding that tick. Chunks are shared with other playheads through
 * the process-wide cache.
 *
 * Its state before any call is a jump to the start: spawn everything from
 * `tickreel_playhead_entities`. A live recording without ticks yet gives a waiting playhead.
 *
 * Returns `TICKREEL_RESULT_IO`, `TICKREEL_RESULT_CORRUPT`, `TICKREEL_RESULT_TRUNCATED` or
 * `TICKREEL_RESULT_UNSUPPORTED` as `tickreel_reader_open` does. On failure `*out_playhead` is set
 * to NULL (when it can be written).
 *
 * Thread safety: any thread. A playhead may then be used from any thread; calls on one playhead
 * are serialised (one viewer: usually the server thread).
 *
 * # Safety
 * `out_playhead` must be NULL or point to writable storage for one `TickreelPlayhead` pointer.
 * `path` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_playhead_open(const char *path,
                                      uint32_t start_tick,
                                      struct TickreelPlayhead **out_playhead);

/**
 * Like `tickreel_playhead_open`, for a recording being written (by this process or another):
 * `path` is its final `.reel` path or its live directory. A background thread polls the live
 * directory (every 100 ms) so that new ticks appear to `tickreel_playhead_advance` within the
 * writer's flush interval plus one poll; `advance` still never does I/O. Before the first flush
 * the playhead is `waiting` and jumps to `start_tick` (clamped) once ticks arrive; at the live
 * edge it is `at_edge` and plays on as the recording grows. When the recording is finished and
 * compacted it goes on from the final file. `tickreel_playhead_free` stops the polling thread.
 *
 * Returns `TICKREEL_RESULT_IO` if neither the live directory nor the final file exists.
 *
 * Thread safety: any thread, as `tickreel_playhead_open`.
 *
 * # Safety
 * `out_playhead` must be NULL or point to writable storage for one `TickreelPlayhead` pointer.
 * `path` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_playhead_follow(const char *path,
                                        uint32_t start_tick,
                                        struct TickreelPlayhead **out_playhead);

/**
 * Frees a playhead. `tickreel_playhead_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a
 * freed or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
 *
 * Thread safety: any thread. A call on the same playhead still running in another thread
 * finishes normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
 */
TickreelResult tickreel_playhead_free(struct TickreelPlayhead *playhead);

/**
 * Stores the last update in `*out_info` (`out_info` may be NULL): right after
 * `tickreel_playhead_open`, the jump to the start tick.
 *
 * Thread safety: any thread; calls on one playhead are serialised.
 *
 * # Safety
 * `out_info` must be NULL or point to writable storage for one `TickreelUpdate`.
 */
TickreelResult tickreel_playhead_current(struct TickreelPlayhead *playhead,
                                         struct TickreelUpdate *out_info);

/**
 * Moves the playhead by one server tick's worth of playback (nothing while paused) and stores
 * what happened in `*out_info` (`out_info` may be NULL). Call once per server tick. Never blocks
 * on I/O: it uses chunks already decoded and asks background threads for the next ones; when
 * they are not ready the update is `stalled` and later calls catch up.
 *
 * Apply a `TICKREEL_MOTION_FORWARD` or `TICKREEL_MOTION_JUMP` update by setting every entity's
 * state from `tickreel_playhead_entities` (despawning ids no longer listed).
 *
 * Thread safety: any thread; calls on one playhead are serialised.
 *
 * # Safety
 * `out_info` must be NULL or point to writable storage for one `TickreelUpdate`.
 */
TickreelResult tickreel_playhead_advance(struct TickreelPlayhead *playhead,
                                         struct TickreelUpdate *out_info);

/**
 * Blocks until everything the next `tickreel_playhead_advance` needs is decoded, so that it
 * does not stall. For tools and tests that may wait; a server thread should not call it.
 *
 * Thread safety: any thread; calls on one playhead are serialised.
 */
TickreelResult tickreel_playhead_prepare(struct TickreelPlayhead *playhead);

/**
 * Moves to `tick` (clamped into the recording) and stores the jump in `*out_info` (`out_info`
 * may be NULL). Blocks until its chunk is decoded. Returns `TICKREEL_RESULT_CORRUPT` or
 * `TICKREEL_RESULT_TRUNCATED`, leaving the position unchanged, if that chunk cannot be read.
 *
 * Thread safety: any thread; calls on one playhead are serialised.
 *
 * # Safety
 * `out_info` must be NULL or point to writable storage for one `TickreelUpdate`.
 */
TickreelResult tickreel_playhead_seek(struct TickreelPlayhead *playhead,
                                      uint32_t tick,
                                      struct TickreelUpdate *out_info);

/**
 * Moves one recorded tick forward (playing or not; nothing at the last tick) and stores the
 * update in `*out_info` (`out_info` may be NULL). May block to decode the next chunk.
 *
 * Thread safety: any thread; calls on one playhead are serialised.
 *
 * # Safety
 * `out_info` must be NULL or point to writable storage for one `TickreelUpdate`.
 */
TickreelResult tickreel_playhead_step_forward(struct TickreelPlayhead *playhead,
                                              struct TickreelUpdate *out_info);

/**
 * Moves one recorded tick backward (playing or not; nothing at the first tick) and stores the
 * update (a jump) in `*out_info` (`out_info` may be NULL). May block to decode the chunk.
 *
 * Thread safety: any thread; calls on one playhead are serialised.
 *
 * # Safety
 * `out_info` must be NULL or point to writable storage for one `TickreelUpdate`.
 */
TickreelResult tickreel_playhead_step_back(struct TickreelPlayhead *playhead,
                                           struct TickreelUpdate *out_info);

/**
 * Starts playing, in the current direction at the current speed, from the next
 * `tickreel_playhead_advance`.
 *
 * Thread safety: any thread; calls on one playhead are serialised.
 */
TickreelResult tickreel_playhead_play(struct TickreelPlayhead *playhead);

/**
 * Stops playing: `tickreel_playhead_advance` then reports `TICKREEL_MOTION_STILL`.
 *
 * Thread safety: any thread; calls on one playhead are serialised.
 */
TickreelResult tickreel_playhead_pause(struct TickreelPlayhead *playhead);

/**
 * Sets the speed in recorded ticks per server tick, from 0.25 to 16 (fractions accumulate: at
 * 0.25 one recorded tick is played every fourth advance). Returns
 * `TICKREEL_RESULT_INVALID_ARGUMENT`, leaving the speed unchanged, outside that range or for NaN.
 *
 * Thread safety: any thread; calls on one playhead are serialised.
 */
TickreelResult tickreel_playhead_set_speed(struct TickreelPlayhead *playhead, double speed);

/**
 * Sets the direction of play: backward if `reverse`, forward otherwise. Reverse play reports
 * `TICKREEL_MOTION_JUMP` updates.
 *
 * Thread safety: any thread; calls on one playhead are serialised.
 */
TickreelResult tickreel_playhead_set_reverse(struct TickreelPlayhead *playhead, bool reverse);

/**
 * Stores the current position in `*out_tick` (while waiting for a live recording's first tick,
 * the tick asked for).
 *
 * Thread safety: any thread; calls on one playhead are serialised.
 *
 * # Safety
 * `out_tick` must be NULL or point to writable storage for one `u32`.
 */
TickreelResult tickreel_playhead_position(struct TickreelPlayhead *playhead, uint32_t *out_tick);

/**
 * Copies the state of every live entity at the current position into `states`, sorted by
 * entity id, exactly as `tickreel_reader_seek` would at that tick.
 *
 * `*out_count` is always set to the number of entities. If it exceeds `capacity`, nothing is
 * copied and `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned: call again with room for
 * `*out_count` states. `states` may be NULL when `capacity` is 0, to query the count.
 *
 * Thread safety: any thread; calls on one playhead are serialised.
 *
 * # Safety
 * `states` must point to `capacity` writable `TickreelEntityState`s (or `capacity` must be 0); `out_count` must be NULL or point to a writable `size_t`.
 */
TickreelResult tickreel_playhead_entities(struct TickreelPlayhead *playhead,
                                          struct TickreelEntityState *states,
                                          size_t capacity,
                                          size_t *out_count);

/**
 * The recorded ticks a `TICKREEL_MOTION_FORWARD` update covered, with their events, into `buf`:
 * per tick a big-endian `uint32_t` tick, a big-endian `uint32_t` length, then that many bytes of
 * its events in the tick batch encoding (the format `tickreel_batch_bytes` gives, FORMAT.md).
 * Empty for other motions. Apply them in order.
 *
 * `*out_count` is always set to the length in bytes. If it exceeds `capacity`, nothing is
 * copied and `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `buf` may be NULL when `capacity`
 * is 0, to query the length.
 *
 * Thread safety: any thread; calls on one playhead are serialised.
 *
 * # Safety
 * `buf` must point to `capacity` writable `u8`s (or `capacity` must be 0); `out_count` must be NULL or point to a writable `size_t`.
 */
TickreelResult tickreel_playhead_ticks(struct TickreelPlayhead *playhead,
                                       uint8_t *buf,
                                       size_t capacity,
                                       size_t *out_count);

/**
 * The entities the last update removed (a `TICKREEL_MOTION_JUMP`: despawn them), by id, into
 * `ids`.
 *
 * `*out_count` is always set to their number. If it exceeds `capacity`, nothing is copied and
 * `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `ids` may be NULL when `capacity` is 0.
 *
 * Thread safety: any thread; calls on one playhead are serialised.
 *
 * # Safety
 * `ids` must point to `capacity` writable `u32`s (or `capacity` must be 0); `out_count` must be NULL or point to a writable `size_t`.
 */
TickreelResult tickreel_playhead_removed(struct TickreelPlayhead *playhead,
                                         uint32_t *ids,
                                         size_t capacity,
                                         size_t *out_count);

/**
 * The entities the last update added (a `TICKREEL_MOTION_JUMP`: spawn them), sorted by id, into
 * `states`.
 *
 * `*out_count` is always set to their number. If it exceeds `capacity`, nothing is copied and
 * `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `states` may be NULL when `capacity` is 0.
 *
 * Thread safety: any thread; calls on one playhead are serialised.
 *
 * # Safety
 * `states` must point to `capacity` writable `TickreelEntityState`s (or `capacity` must be 0); `out_count` must be NULL or point to a writable `size_t`.
 */
TickreelResult tickreel_playhead_added(struct TickreelPlayhead *playhead,
                                       struct TickreelEntityState *states,
                                       size_t capacity,
                                       size_t *out_count);

/**
 * What the last update does to the world (the custom events: blocks, ...), in `*out_rebuild`: a
 * `TICKREEL_MOTION_JUMP` across custom events asks for a rebuild (restore the snapshot of
 * `tickreel_playhead_rebuild_snapshot`, then re-apply `tickreel_playhead_rebuild_events`); otherwise
 * keep the world.
 *
 * Thread safety: any thread; calls on one playhead are serialised.
 *
 * # Safety
 * `out_rebuild` must be NULL or point to writable storage for one `TickreelRebuild`.
 */
TickreelResult tickreel_playhead_rebuild(struct TickreelPlayhead *playhead,
                                         struct TickreelRebuild *out_rebuild);

/**
 * The snapshot bytes of a world rebuild (as the recorder was given them), into `buf`; empty
 * without a rebuild or a snapshot.
 *
 * `*out_count` is always set to the length in bytes. If it exceeds `capacity`, nothing is
 * copied and `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `buf` may be NULL when `capacity`
 * is 0.
 *
 * Thread safety: any thread; calls on one playhead are serialised.
 *
 * # Safety
 * `buf` must point to `capacity` writable `u8`s (or `capacity` must be 0); `out_count` must be NULL or point to a writable `size_t`.
 */
TickreelResult tickreel_playhead_rebuild_snapshot(struct TickreelPlayhead *playhead,
                                                  uint8_t *buf,
                                                  size_t capacity,
                                                  size_t *out_count);

/**
 * The world events of a rebuild (every custom event from the snapshot tick through the new
 * position), into `buf` in the format of `tickreel_playhead_ticks`; empty without a rebuild.
 * Re-apply them in order after restoring the snapshot.
 *
 * `*out_count` is always set to the length in bytes. If it exceeds `capacity`, nothing is
 * copied and `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `buf` may be NULL when `capacity`
 * is 0.
 *
 * Thread safety: any thread; calls on one playhead are serialised.
 *
 * # Safety
 * `buf` must point to `capacity` writable `u8`s (or `capacity` must be 0); `out_count` must be NULL or point to a writable `size_t`.
 */
TickreelResult tickreel_playhead_rebuild_events(struct TickreelPlayhead *playhead,
                                                uint8_t *buf,
                                                size_t capacity,
                                                size_t *out_count);

/**
 * Stores in `*out_world` a copy of the world at the playhead's position as the library keeps
 * it from world events (edited blocks, block entities, each entity's health and equipment;
 * `complete` false if the world before some chunk is unknown or a chunk on the way could not be
 * read). Read it with the `tickreel_world_state_*` functions, free it with
 * `tickreel_world_state_free`. The copy does not follow the playhead: to keep a world current,
 * take it once, then apply each update's `tickreel_playhead_world_changes`.
 *
 * On failure `*out_world` is set to NULL (when it can be written).
 *
 * Thread safety: any thread; calls on one playhead are serialised.
 *
 * # Safety
 * `out_world` must be NULL or point to writable storage for one `TickreelWorldState` pointer.
 */
TickreelResult tickreel_playhead_world_state(struct TickreelPlayhead *playhead,
                                             struct TickreelWorldState **out_world);

/**
 * Copies what the last update changed in the world the library keeps into `changes`: every
 * block, health and equipment slot that changed from the update's start to its position, each
 * with what was before (so that reverse play restores it) and what is now, whatever the motion
 * (forward play, reverse play, a seek). Applying them in order takes a world that was as at the
 * update's start to its position; a block whose `has_after` is false is no longer edited (restore
 * the world's own block there). In a `TICKREEL_MOTION_JUMP` each position, entity and slot
 * appears at most once.
 *
 * `*out_count` is always set to the number of changes. If it exceeds `capacity`, nothing is
 * copied and `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `changes` may be NULL when
 * `capacity` is 0, to query the count.
 *
 * Thread safety: any thread; calls on one playhead are serialised.
 *
 * # Safety
 * `changes` must point to `capacity` writable `TickreelWorldChange`s (or `capacity` must be 0); `out_count` must be NULL or point to a writable `size_t`.
 */
TickreelResult tickreel_playhead_world_changes(struct TickreelPlayhead *playhead,
                                               struct TickreelWorldChange *changes,
                                               size_t capacity,
                                               size_t *out_count);

/* ---- Reading recordings (TickreelReader) ---- */

/**
 * What `tickreel_reader_verify` checked.
 */
typedef struct TickreelVerifyReport {
    /**
     * Chunks read, checksummed and decoded.
     */
    uint64_t chunks;
    /**
     * Ticks spanned by those chunks.
     */
    uint64_t ticks;
    /**
     * Pose samples decoded.
     */
    uint64_t pose_samples;
    /**
     * Non-pose events decoded.
     */
    uint64_t events;
} TickreelVerifyReport;

/**
 * Opens the recording at `location`, an object URL (`s3://bucket/key`: one request for the
 * header, metadata and index when they fit in the first 256 KiB, then one per chunk needed) or a
 * local path (as `tickreel_reader_open`), with `options` (used for URLs only), and stores the
 * reader's handle in `*out_reader`.
 *
 * Returns `TICKREEL_RESULT_IO` for a missing object ("no such object"), a store that refuses
 * (wrong credentials) or cannot be reached, or a call past its deadline (the message says
 * which, never with a secret), `TICKREEL_RESULT_INVALID_ARGUMENT` for a malformed URL, and the codes of
 * `tickreel_reader_open`. On failure `*out_reader` is set to NULL (when it can be written).
 *
 * Thread safety: any thread. A reader may then be used from any number of threads at once.
 *
 * # Safety
 * `out_reader` must be NULL or point to writable storage for one `TickreelReader` pointer.
 * `location` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_reader_open_url(const char *location,
                                        struct TickreelObjectOptions *options,
                                        struct TickreelReader **out_reader);

/**
 * Opens the recording at `path` (a NUL-terminated path in the platform's encoding): a finished
 * `.reel` file, or a live recording's directory (`<name>.reel.live`: what was flushed when it is
 * opened) and stores the reader's handle in `*out_reader`. Reads and checks the header, metadata
 * and index; chunks are read when needed.
 *
 * Returns `TICKREEL_RESULT_IO` if the file cannot be opened, `TICKREEL_RESULT_CORRUPT` for a file
 * that is not a tickreel recording or is damaged, `TICKREEL_RESULT_TRUNCATED` for a file cut
 * short, `TICKREEL_RESULT_UNSUPPORTED` for a newer format. On failure `*out_reader` is set to
 * NULL (when it can be written).
 *
 * Thread safety: any thread. A reader may then be used from any number of threads at once.
 *
 * # Safety
 * `out_reader` must be NULL or point to writable storage for one `TickreelReader` pointer.
 * `path` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_reader_open(const char *path, struct TickreelReader **out_reader);

/**
 * Closes a reader. `tickreel_reader_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a
 * freed or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
 *
 * Thread safety: any thread. Calls on the same reader still running in other threads finish
 * normally (the file is closed after the last one); calls that start after this one get
 * `TICKREEL_RESULT_INVALID_HANDLE`.
 */
TickreelResult tickreel_reader_free(struct TickreelReader *reader);

/**
 * Stores the number of ticks the recording spans (last tick - first tick + 1; 0 when it is
 * empty) in `*out_ticks`.
 *
 * Thread safety: any thread, concurrently with any other reader call.
 *
 * # Safety
 * `out_ticks` must be NULL or point to writable storage for one `u32`.
 */
TickreelResult tickreel_reader_tick_count(struct TickreelReader *reader, uint32_t *out_ticks);

/**
 * Stores the first recorded tick in `*out_tick`. Returns `TICKREEL_RESULT_INVALID_STATE` if the
 * recording has no ticks.
 *
 * Thread safety: any thread, concurrently with any other reader call.
 *
 * # Safety
 * `out_tick` must be NULL or point to writable storage for one `u32`.
 */
TickreelResult tickreel_reader_first_tick(struct TickreelReader *reader, uint32_t *out_tick);

/**
 * Stores the last recorded tick in `*out_tick`. Returns `TICKREEL_RESULT_INVALID_STATE` if the
 * recording has no ticks.
 *
 * Thread safety: any thread, concurrently with any other reader call.
 *
 * # Safety
 * `out_tick` must be NULL or point to writable storage for one `u32`.
 */
TickreelResult tickreel_reader_last_tick(struct TickreelReader *reader, uint32_t *out_tick);

/**
 * Stores the number of chunks (independently decodable pieces of about 10 s) in `*out_chunks`.
 *
 * Thread safety: any thread, concurrently with any other reader call.
 *
 * # Safety
 * `out_chunks` must be NULL or point to writable storage for one `u32`.
 */
TickreelResult tickreel_reader_chunk_count(struct TickreelReader *reader, uint32_t *out_chunks);

/**
 * Stores the recording's tick rate in ticks per second (e.g. 20.0) in `*out_rate`.
 *
 * Thread safety: any thread, concurrently with any other reader call.
 *
 * # Safety
 * `out_rate` must be NULL or point to writable storage for one `f64`.
 */
TickreelResult tickreel_reader_tick_rate(struct TickreelReader *reader, double *out_rate);

/**
 * Copies the recording's metadata, the whole metadata section as an NBT root compound (the
 * user's keys plus the library's own `"tickreel"` compound, big-endian NBT as Minecraft writes
 * it), into `nbt`.
 *
 * `*out_count` is always set to its length in bytes. If it exceeds `capacity`, nothing is
 * copied and `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned: call again with room for
 * `*out_count` bytes. `nbt` may be NULL when `capacity` is 0, to query the length.
 *
 * Thread safety: any thread, concurrently with any other reader call.
 *
 * # Safety
 * `nbt` must point to `capacity` writable `u8`s (or `capacity` must be 0); `out_count` must be NULL or point to a writable `size_t`.
 */
TickreelResult tickreel_reader_metadata(struct TickreelReader *reader,
                                        uint8_t *nbt,
                                        size_t capacity,
                                        size_t *out_count);

/**
 * Computes the state of every live entity at `tick` (clamped into the recording) and copies it
 * into `states`, sorted by entity id. Decodes only the chunk holding the tick.
 *
 * `*out_count` is always set to the number of entities at that tick. If it exceeds `capacity`,
 * nothing is copied and `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned: call again with room
 * for `*out_count` states. `states` may be NULL when `capacity` is 0, to query the count.
 * `*out_tick` (if `out_tick` is not NULL) receives the tick actually used after clamping.
 *
 * Returns `TICKREEL_RESULT_INVALID_STATE` if the recording has no ticks,
 * `TICKREEL_RESULT_CORRUPT`/`TICKREEL_RESULT_TRUNCATED` if the chunk is damaged.
 *
 * Thread safety: any thread, concurrently with any other reader call.
 *
 * # Safety
 * `out_tick` must be NULL or point to writable storage for one `u32`.
 * `states` must point to `capacity` writable `TickreelEntityState`s (or `capacity` must be 0); `out_count` must be NULL or point to a writable `size_t`.
 */
TickreelResult tickreel_reader_seek(struct TickreelReader *reader,
                                    uint32_t tick,
                                    struct TickreelEntityState *states,
                                    size_t capacity,
                                    size_t *out_count,
                                    uint32_t *out_tick);

/**
 * Copies the recorded ticks in `from..=to` into `buf`, each as a big-endian `uint32_t` tick, a
 * big-endian `uint32_t` length, then that many bytes of its events in the tick batch encoding
 * (the format `tickreel_batch_bytes` gives, FORMAT.md); ticks without events are left out. Stops
 * after the tick that crosses about 4 MiB: continue from the tick after the last one returned.
 * Empty when no tick is in the range.
 *
 * `*out_count` is always set to the length in bytes. If it exceeds `capacity`, nothing is
 * copied and `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned: call again with room for
 * `*out_count` bytes. `buf` may be NULL when `capacity` is 0. Returns
 * `TICKREEL_RESULT_INVALID_ARGUMENT` if `to < from`, `TICKREEL_RESULT_CORRUPT` or
 * `_TRUNCATED` for a damaged chunk.
 *
 * Thread safety: any thread, concurrently with any other reader call.
 *
 * # Safety
 * `buf` must point to `capacity` writable `u8`s (or `capacity` must be 0); `out_count` must be NULL or point to a writable `size_t`.
 */
TickreelResult tickreel_reader_ticks(struct TickreelReader *reader,
                                     uint32_t from,
                                     uint32_t to,
                                     uint8_t *buf,
                                     size_t capacity,
                                     size_t *out_count);

/**
 * Reads and decodes every chunk, checking checksums and the consistency of header and index.
 * Stores what was checked in `*out_report` (`out_report` may be NULL).
 *
 * Returns `TICKREEL_RESULT_OK` if the file is sound, `TICKREEL_RESULT_CORRUPT` or
 * `TICKREEL_RESULT_TRUNCATED` (with the damaged chunk in the message) otherwise. Reads the
 * whole file: blocks for the I/O.
 *
 * Thread safety: any thread, concurrently with any other reader call.
 *
 * # Safety
 * `out_report` must be NULL or point to writable storage for one `TickreelVerifyReport`.
 */
TickreelResult tickreel_reader_verify(struct TickreelReader *reader,
                                      struct TickreelVerifyReport *out_report);

/**
 * Copies the name of id `id` of palette `kind` (`TICKREEL_PALETTE_BLOCK`, `_ITEM` or
 * `_DAMAGE_CAUSE`), e.g. `"minecraft:stone"`, into `name_buf` as a NUL-terminated string, and
 * its length (without the NUL) into `*out_len` (`out_len` may be NULL). An id the recording does
 * not name gives the empty string (a name is never empty).
 *
 * With `capacity` 0 nothing is copied (a length query); a buffer too small for the name and its
 * NUL returns `TICKREEL_RESULT_BUFFER_TOO_SMALL`. Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for
 * an unknown kind.
 *
 * Thread safety: any thread, concurrently with any other reader call.
 *
 * # Safety
 * `name_buf` must point to `capacity` writable bytes (or `capacity` must be 0); `out_len` must be NULL or point to a writable `size_t`.
 */
TickreelResult tickreel_reader_palette_name(struct TickreelReader *reader,
                                            uint32_t kind,
                                            uint32_t id,
                                            char *name_buf,
                                            size_t capacity,
                                            size_t *out_len);

/**
 * Rebuilds the world at `tick` (clamped into the recording) as the library keeps it from world
 * events: the world section of the nearest snapshot chunk at or before it, then every world event
 * from there through `tick` (decodes at most 256 chunks). Stores its handle in `*out_world`: read
 * it with the `tickreel_world_state_*` functions, free it with `tickreel_world_state_free`.
 *
 * Returns `TICKREEL_RESULT_INVALID_STATE` if the recording has no ticks,
 * `TICKREEL_RESULT_CORRUPT`/`TICKREEL_RESULT_TRUNCATED` if a chunk is damaged. On failure
 * `*out_world` is set to NULL (when it can be written).
 *
 * Thread safety: any thread, concurrently with any other reader call.
 *
 * # Safety
 * `out_world` must be NULL or point to writable storage for one `TickreelWorldState` pointer.
 */
TickreelResult tickreel_reader_world_at(struct TickreelReader *reader,
                                        uint32_t tick,
                                        struct TickreelWorldState **out_world);

/* ---- Decoded events (TickreelEvents) ---- */

/**
 * Decoded events. Opaque: create with `tickreel_events_decode`, release with
 * `tickreel_events_free`. The pointer is a handle, not an address: never dereference it.
 */
typedef struct TickreelEvents TickreelEvents;

/**
 * One event of a recorded tick, typed (`tickreel_events_get`): `kind` says which fields mean
 * something; the others are 0, false or NULL. Pointers point into the `TickreelEvents` it came
 * from and stay valid until that handle is freed.
 */
typedef struct TickreelEvent {
    /**
     * The tick it happened at.
     */
    uint32_t tick;
    /**
     * What it is: a `TICKREEL_EVENT_*` value (the kind byte of the format). A kind this build
     * does not understand (`0x4A..=0x7F`) carries its bytes in `data`.
     */
    uint32_t kind;
    /**
     * `entity` is set.
     */
    bool has_entity;
    /**
     * The entity the event belongs to: the moved, added or removed entity; the block change's
     * cause; who swung, attacked, used, was damaged; whose health or equipment; the chat's
     * sender; the entity a custom event is placed at.
     */
    uint32_t entity;
    /**
     * `other` is set.
     */
    bool has_other;
    /**
     * The other entity: the attack's target, the entity a use aimed at, the damage's source.
     */
    uint32_t other;
    /**
     * `x`, `y`, `z` are set: a position in blocks (entity add, pose, position, teleport, custom
     * event placed at a position), or a velocity in blocks per tick (velocity).
     */
    bool has_position;
    /**
     * X in blocks (or blocks per tick).
     */
    double x;
    /**
     * Y in blocks (or blocks per tick).
     */
    double y;
    /**
     * Z in blocks (or blocks per tick).
     */
    double z;
    /**
     * `yaw`, `pitch` are set (entity add, pose, rotation, teleport).
     */
    bool has_rotation;
    /**
     * Yaw in degrees, unbounded.
     */
    double yaw;
    /**
     * Pitch in degrees.
     */
    double pitch;
    /**
     * `block` is set: the changed block (block change), the block a use aimed at, the first
     * block of a multi-block change.
     */
    bool has_block;
    /**
     * The block's position and, for a block change, its new state.
     */
    struct TickreelBlockState block;
    /**
     * The entity's game-defined kind (entity add).
     */
    uint32_t entity_kind;
    /**
     * The flags value (flags).
     */
    uint32_t flags;
    /**
     * The checkpoint index (checkpoint).
     */
    uint32_t index;
    /**
     * The registered custom event type (custom, custom at).
     */
    uint32_t type_id;
    /**
     * The hand (`TICKREEL_HAND_*`: swing, use).
     */
    uint32_t hand;
    /**
     * The item: an id of the item palette, 0 for none (use, equipment).
     */
    uint32_t item;
    /**
     * The equipment slot (`TICKREEL_SLOT_*` or the game's own above them).
     */
    uint32_t slot;
    /**
     * How many items (equipment).
     */
    uint32_t count;
    /**
     * Damage in hundredths of a health point (damage).
     */
    uint32_t amount;
    /**
     * The damage's cause: an id of the damage-cause palette, 0 for unknown (damage).
     */
    uint32_t cause;
    /**
     * Health in hundredths of a health point (health).
     */
    uint32_t health;
    /**
     * The chat channel (`TICKREEL_CHANNEL_*` or the game's own above them).
     */
    uint32_t channel;
    /**
     * `data` is set (it may still be empty): the chat text (UTF-8, not NUL-terminated), the
     * block entity's NBT (a block change that has one), the custom payload, the bytes of a kind
     * this build does not understand.
     */
    bool has_data;
    /**
     * The bytes (NULL when `data_len` is 0).
     */
    const uint8_t *data;
    /**
     * Bytes at `data`.
     */
    size_t data_len;
    /**
     * The blocks of a multi-block change (NULL when `block_count` is 0).
     */
    const struct TickreelBlockState *blocks;
    /**
     * Their number.
     */
    size_t block_count;
} TickreelEvent;

/**
 * Decodes ticks in the format of `tickreel_playhead_ticks`, `tickreel_playhead_rebuild_events` and
 * `tickreel_reader_ticks` (per tick a big-endian `uint32_t` tick, a big-endian `uint32_t` length,
 * then its events in the tick batch encoding) into typed events, and stores their handle in
 * `*out_events`. Read them with `tickreel_events_count` and `tickreel_events_get`; the bytes are
 * not kept (`buf` may be reused at once). `buf` may be NULL when `len` is 0 (no event).
 *
 * Returns `TICKREEL_RESULT_CORRUPT` for bytes that are not in that format (an unknown kind, a
 * malformed event, a length past the end), `TICKREEL_RESULT_LIMIT_EXCEEDED` for more than
 * 1048576 events. On failure `*out_events` is set to NULL (when it can be written).
 *
 * Thread safety: any thread. The handle may be read from any number of threads at once.
 *
 * # Safety
 * `out_events` must be NULL or point to writable storage for one `TickreelEvents` pointer.
 * `buf` must point to `buf_len` readable bytes (or `buf_len` must be 0).
 */
TickreelResult tickreel_events_decode(const uint8_t *buf,
                                      size_t buf_len,
                                      struct TickreelEvents **out_events);

/**
 * Frees decoded events (the pointers of the `TickreelEvent`s read from them become invalid).
 * `tickreel_events_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a freed or invalid
 * handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
 *
 * Thread safety: any thread; a call on the same handle still running in another thread
 * finishes normally.
 */
TickreelResult tickreel_events_free(struct TickreelEvents *events);

/**
 * Stores the number of decoded events in `*out_count`.
 *
 * Thread safety: any thread.
 *
 * # Safety
 * `out_count` must be NULL or point to writable storage for one `usize`.
 */
TickreelResult tickreel_events_count(struct TickreelEvents *events, size_t *out_count);

/**
 * Stores event `index` (from 0, in the order recorded) in `*out_event`: its tick, its kind
 * (`TICKREEL_EVENT_*`) and its fields. Its pointers (`data`, `blocks`) point into `events` and
 * stay valid until `tickreel_events_free`.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `index` is not below the count.
 *
 * Thread safety: any thread.
 *
 * # Safety
 * `out_event` must be NULL or point to writable storage for one `TickreelEvent`.
 */
TickreelResult tickreel_events_get(struct TickreelEvents *events,
                                   size_t index,
                                   struct TickreelEvent *out_event);

/* ---- The world at a tick (TickreelWorldState) ---- */

/**
 * What a world state holds, as filled in by `tickreel_world_state_info`.
 */
typedef struct TickreelWorldStateInfo {
    /**
     * The tick it is the world at (after that tick's events; clamped into the recording).
     */
    uint32_t tick;
    /**
     * False if the world before some chunk is unknown (a recording without a snapshot near the
     * tick, a shadow-play report before its first snapshot, or a chunk that could not be read on
     * a playhead's way): it then holds only what the chunks read changed.
     */
    bool complete;
    /**
     * Edited blocks (`tickreel_world_state_blocks`).
     */
    size_t block_count;
    /**
     * Block entities (`tickreel_world_state_block_entities`).
     */
    size_t block_entity_count;
    /**
     * Entities with a health or equipment (`tickreel_world_state_entities`).
     */
    size_t entity_count;
    /**
     * Equipment slots in use, over all entities (`tickreel_world_state_equipment`).
     */
    size_t equipment_count;
    /**
     * Sections of the terrain in effect (`tickreel_world_state_terrain_sections`).
     */
    size_t terrain_section_count;
} TickreelWorldStateInfo;

/**
 * The block at one position, as filled in by `tickreel_world_state_block`.
 */
typedef struct TickreelBlockAt {
    /**
     * `state` is set: a world event edited the block, or a terrain section covers it. False:
     * the library does not know the block (the world there is as the game had it).
     */
    bool known;
    /**
     * A world event edited the block: `state` is the state it gave, which overrides the
     * terrain's. False: `state` is the terrain's, if `known`.
     */
    bool edited;
    /**
     * The block's state: an id of the block palette (`tickreel_reader_palette_name`); 0 if not
     * `known`.
     */
    uint32_t state;
    /**
     * The block entity NBT its last change gave (NULL if none), valid until
     * `tickreel_world_state_free`.
     */
    const uint8_t *block_entity;
    /**
     * Bytes at `block_entity` (0 if none).
     */
    size_t block_entity_len;
} TickreelBlockAt;

/**
 * A block entity, as filled in by `tickreel_world_state_block_entities`.
 */
typedef struct TickreelBlockEntity {
    /**
     * Block x.
     */
    int32_t x;
    /**
     * Block y.
     */
    int32_t y;
    /**
     * Block z.
     */
    int32_t z;
    /**
     * Its NBT (big-endian, as the block change gave it), valid until `tickreel_world_state_free`.
     */
    const uint8_t *data;
    /**
     * Bytes at `data`.
     */
    size_t data_len;
} TickreelBlockEntity;

/**
 * One entity's world state, as filled in by `tickreel_world_state_entities`.
 */
typedef struct TickreelEntityWorld {
    /**
     * The entity id.
     */
    uint32_t entity;
    /**
     * `health` is set.
     */
    bool has_health;
    /**
     * Its health, in hundredths of a health point, if a health event gave one.
     */
    uint32_t health;
    /**
     * Its equipment slots in use (the next `equipment_count` entries of
     * `tickreel_world_state_equipment`, in order of the entities).
     */
    uint32_t equipment_count;
} TickreelEntityWorld;

/**
 * What an entity has in one equipment slot, as filled in by `tickreel_world_state_equipment`.
 */
typedef struct TickreelEquipment {
    /**
     * The entity id.
     */
    uint32_t entity;
    /**
     * The slot: a `TICKREEL_SLOT_*` value or the game's own.
     */
    uint32_t slot;
    /**
     * An id of the item palette (never 0).
     */
    uint32_t item;
    /**
     * How many (at least 1).
     */
    uint32_t count;
} TickreelEquipment;

/**
 * Frees a world state (the pointers of the `TickreelBlockAt`s and `TickreelBlockEntity`s read
 * from it become invalid). `tickreel_world_state_free(NULL)` is a no-op returning
 * `TICKREEL_RESULT_OK`; a freed or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
 *
 * Thread safety: any thread; a call on the same handle still running in another thread
 * finishes normally.
 */
TickreelResult tickreel_world_state_free(struct TickreelWorldState *world);

/**
 * Stores in `*out_info` the tick the world state is at, whether it is complete, and how many
 * blocks, block entities, entities and equipment slots it holds.
 *
 * Thread safety: any thread; a world state never changes.
 *
 * # Safety
 * `out_info` must be NULL or point to writable storage for one `TickreelWorldStateInfo`.
 */
TickreelResult tickreel_world_state_info(struct TickreelWorldState *world,
                                         struct TickreelWorldStateInfo *out_info);

/**
 * Copies every edited block with its state (an id of the block palette,
 * `tickreel_reader_palette_name`) into `blocks`, sorted by position (x, then y, then z). A block
 * no world event touched is not listed: the world there is as the game had it.
 *
 * `*out_count` is always set to the number of blocks. If it exceeds `capacity`, nothing is
 * copied and `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned: call again with room for
 * `*out_count` blocks. `blocks` may be NULL when `capacity` is 0, to query the count.
 *
 * Thread safety: any thread; a world state never changes.
 *
 * # Safety
 * `blocks` must point to `capacity` writable `TickreelBlockState`s (or `capacity` must be 0); `out_count` must be NULL or point to a writable `size_t`.
 */
TickreelResult tickreel_world_state_blocks(struct TickreelWorldState *world,
                                           struct TickreelBlockState *blocks,
                                           size_t capacity,
                                           size_t *out_count);

/**
 * Stores in `*out_block` the block at `x`, `y`, `z`: its state (the one a world event gave it,
 * else the terrain's where a terrain section covers it, else unknown), whether an event edited
 * it, and its block entity NBT if its last change gave one (`block_entity` points into `world`
 * and stays valid until `tickreel_world_state_free`).
 *
 * Thread safety: any thread; a world state never changes.
 *
 * # Safety
 * `out_block` must be NULL or point to writable storage for one `TickreelBlockAt`.
 */
TickreelResult tickreel_world_state_block(struct TickreelWorldState *world,
                                          int32_t x,
                                          int32_t y,
                                          int32_t z,
                                          struct TickreelBlockAt *out_block);

/**
 * Copies every block entity (the position and a pointer to its NBT, valid until
 * `tickreel_world_state_free`) into `block_entities`, sorted by position.
 *
 * `*out_count` is always set to their number. If it exceeds `capacity`, nothing is copied and
 * `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `block_entities` may be NULL when `capacity`
 * is 0, to query the count.
 *
 * Thread safety: any thread; a world state never changes.
 *
 * # Safety
 * `block_entities` must point to `capacity` writable `TickreelBlockEntity`s (or `capacity` must be 0); `out_count` must be NULL or point to a writable `size_t`.
 */
TickreelResult tickreel_world_state_block_entities(struct TickreelWorldState *world,
                                                   struct TickreelBlockEntity *block_entities,
                                                   size_t capacity,
                                                   size_t *out_count);

/**
 * Copies every entity with a health or equipment (its id, its health if a health event gave one,
 * its number of equipment slots in use) into `entities`, sorted by id.
 *
 * `*out_count` is always set to their number. If it exceeds `capacity`, nothing is copied and
 * `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `entities` may be NULL when `capacity` is 0,
 * to query the count.
 *
 * Thread safety: any thread; a world state never changes.
 *
 * # Safety
 * `entities` must point to `capacity` writable `TickreelEntityWorld`s (or `capacity` must be 0); `out_count` must be NULL or point to a writable `size_t`.
 */
TickreelResult tickreel_world_state_entities(struct TickreelWorldState *world,
                                             struct TickreelEntityWorld *entities,
                                             size_t capacity,
                                             size_t *out_count);

/**
 * Copies every equipment slot in use (entity, slot, item, count) into `equipment`, sorted by
 * entity, then slot: the entities of `tickreel_world_state_entities` in order, each with its
 * `equipment_count` slots.
 *
 * `*out_count` is always set to their number. If it exceeds `capacity`, nothing is copied and
 * `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `equipment` may be NULL when `capacity` is 0,
 * to query the count.
 *
 * Thread safety: any thread; a world state never changes.
 *
 * # Safety
 * `equipment` must point to `capacity` writable `TickreelEquipment`s (or `capacity` must be 0); `out_count` must be NULL or point to a writable `size_t`.
 */
TickreelResult tickreel_world_state_equipment(struct TickreelWorldState *world,
                                              struct TickreelEquipment *equipment,
                                              size_t capacity,
                                              size_t *out_count);

/**
 * Copies the terrain in effect at the world state's tick (the chunk sections the game handed
 * over with `tickreel_recorder_offer_terrain`, a later offer's section replacing an earlier one)
 * into `sections`, sorted by x, then z, then y. `palette` and `packed` point into `world` and
 * stay valid until `tickreel_world_state_free`; `packed` is NULL for a section of one state.
 * The edited blocks (`tickreel_world_state_blocks`) override the terrain;
 * `tickreel_world_state_block` gives the block that results.
 *
 * `*out_count` is always set to their number. If it exceeds `capacity`, nothing is copied and
 * `TICKREEL_RESULT_BUFFER_TOO_SMALL` is returned. `sections` may be NULL when `capacity` is 0,
 * to query the count.
 *
 * Thread safety: any thread; a world state never changes.
 *
 * # Safety
 * `sections` must point to `capacity` writable `TickreelTerrainSection`s (or `capacity` must be 0); `out_count` must be NULL or point to a writable `size_t`.
 */
TickreelResult tickreel_world_state_terrain_sections(struct TickreelWorldState *world,
                                                     struct TickreelTerrainSection *sections,
                                                     size_t capacity,
                                                     size_t *out_count);

/* ---- Shadow play (TickreelShadowBuffer) ---- */

/**
 * A report's options being built (`tickreel_shadow_buffer_report`). Opaque: create with
 * `tickreel_report_options_new`, change with the `tickreel_report_options_set_*` functions, pass
 * to `tickreel_shadow_buffer_report` (NULL there: the defaults), release with
 * `tickreel_report_options_free`. The pointer is a handle, not an address.
 */
typedef struct TickreelReportOptions TickreelReportOptions;

/**
 * A shadow buffer: the last minutes of one stream of ticks (a world), kept in memory and turned
 * into a `.reel` file around a player by `tickreel_shadow_buffer_report`. Opaque: create with
 * `tickreel_shadow_buffer_start`, release with `tickreel_shadow_buffer_free`. The pointer is a handle, not an
 * address.
 */
typedef struct TickreelShadowBuffer TickreelShadowBuffer;

/**
 * A shadow buffer's options being built (`tickreel_shadow_buffer_start`). Opaque: create with
 * `tickreel_shadow_options_new`, change with the `tickreel_shadow_options_set_*` functions, pass
 * to `tickreel_shadow_buffer_start` (NULL there: the defaults), release with
 * `tickreel_shadow_options_free`. The pointer is a handle, not an address.
 */
typedef struct TickreelShadowOptions TickreelShadowOptions;

/**
 * Counters of a shadow buffer, as filled in by `tickreel_shadow_buffer_stats`. Bytes are the heap
 * allocations the buffer holds, measured as they are made.
 */
typedef struct TickreelShadowStats {
    /**
     * Heap bytes of the retained blocks.
     */
    size_t bytes;
    /**
     * Blocks retained.
     */
    size_t blocks;
    /**
     * Entities alive now.
     */
    size_t alive_entities;
    /**
     * Players who left within their grace period.
     */
    size_t departed_players;
    /**
     * Reports waiting for their capture to end.
     */
    size_t reports_capturing;
    /**
     * Blocks dropped because the window no longer needed them.
     */
    uint64_t expired_blocks;
    /**
     * Blocks given up for a memory budget (the buffer's `max_bytes` or the engine's
     * `shadow_budget_bytes`) while still inside the window.
     */
    uint64_t budget_dropped_blocks;
    /**
     * Ticks of those blocks.
     */
    uint64_t budget_dropped_ticks;
    /**
     * Reports handed to the engine's background worker.
     */
    uint64_t reports_started;
    /**
     * `first_tick` is set.
     */
    bool has_first_tick;
    /**
     * First tick retained in blocks, if a block is retained.
     */
    uint32_t first_tick;
    /**
     * `last_tick` is set.
     */
    bool has_last_tick;
    /**
     * Last tick retained in blocks (later ticks wait in the open block), if a block is retained.
     */
    uint32_t last_tick;
} TickreelShadowStats;

/**
 * Reports `player` as `tickreel_shadow_buffer_report` does (the report written to the local
 * `path`, with `options` and the `metadata_count` string pairs) and, once the report's file is
 * complete, uploads it to the object URL `url` (`s3://bucket/key`) on a background thread, as
 * `tickreel_recorder_finish_upload` does: never over an existing object unless
 * `upload_overwrite`, the uploaded size checked, then the local file removed if `remove_local`.
 * Stores the pending in `*out_pending`: poll it with `tickreel_pending_poll`. A failed upload
 * keeps the local file.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a malformed URL (checked before the report is
 * made: nothing is reported then), and the codes of `tickreel_shadow_buffer_report`. On failure
 * `*out_pending` is set to NULL (when it can be written).
 *
 * Thread safety: any thread, concurrently with any other call on the shadow and its recorder.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `path` must be NULL or a NUL-terminated string (NULL is refused).
 * `metadata_keys` and `metadata_values` must each point to `metadata_count` pointers to NUL-terminated strings (or `metadata_count` must be 0).
 * `url` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_shadow_buffer_report_upload(struct TickreelShadowBuffer *shadow,
                                                    uint32_t player,
                                                    const char *path,
                                                    struct TickreelReportOptions *options,
                                                    const char *const *metadata_keys,
                                                    const char *const *metadata_values,
                                                    size_t metadata_count,
                                                    const char *url,
                                                    struct TickreelObjectOptions *object_options,
                                                    bool upload_overwrite,
                                                    bool remove_local,
                                                    struct TickreelPending **out_pending);

/**
 * Creates a report's options with the defaults (all that is retained before the report, 30 s
 * captured after it, the entities within 48 blocks of the player, the chat lines near them, no
 * overwrite, zstd level 3), into `*out_options`. Change them with the
 * `tickreel_report_options_set_*` functions, pass them to `tickreel_shadow_buffer_report` (which
 * reads them: one options handle may serve many reports) and free them with
 * `tickreel_report_options_free`.
 *
 * Thread safety: any thread; each setter is atomic, and a report on another thread reads them.
 *
 * # Safety
 * `out_options` must be NULL or point to writable storage for one `TickreelReportOptions` pointer.
 */
TickreelResult tickreel_report_options_new(struct TickreelReportOptions **out_options);

/**
 * Frees a report's options (reports made with them keep their copy). NULL is a no-op.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_report_options_free(struct TickreelReportOptions *options);

/**
 * Game time before the report (for a player who left: before the leave) to include, in
 * milliseconds (default: all that is retained, up to the buffer's window). At most 86400000 (a
 * day).
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_report_options_set_before(struct TickreelReportOptions *options,
                                                  uint64_t before);

/**
 * Game time to keep capturing after the report, in milliseconds (default 30000; 0 writes the
 * report from what is there now). At most 86400000 (a day).
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_report_options_set_after(struct TickreelReportOptions *options,
                                                 uint64_t after);

/**
 * Entities that came within this many blocks of the reported player at any tick of the report
 * are included with their whole track (default 48); the same radius keeps block changes and
 * placed events. Must be finite and >= 0. Undoes `tickreel_report_options_set_every_entity`.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_report_options_set_radius(struct TickreelReportOptions *options,
                                                  double radius);

/**
 * With `every_entity` true: no context radius, every entity, block change and placed event of
 * the stream is included (default false: the radius applies).
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_report_options_set_every_entity(struct TickreelReportOptions *options,
                                                        bool every_entity);

/**
 * Replace a file at the report's path instead of failing (default false).
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_report_options_set_overwrite(struct TickreelReportOptions *options,
                                                     bool overwrite);

/**
 * Zstd level of the report file, -7 to 22 (default 3).
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_report_options_set_zstd_level(struct TickreelReportOptions *options,
                                                      int32_t zstd_level);

/**
 * Keep every block change and placed event of the window, wherever it happened (default false:
 * those within the radius of the reported player, and those of kept entities).
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_report_options_set_keep_all_blocks(struct TickreelReportOptions *options,
                                                           bool keep_all_blocks);

/**
 * Which chat lines the report keeps: `TICKREEL_REPORT_CHAT_NEAR` (the default: the reported
 * player's lines and the public lines of players within the radius),
 * `TICKREEL_REPORT_CHAT_PUBLIC` (also every public and system line of the server) or
 * `TICKREEL_REPORT_CHAT_ALL` (private and team chat of others too). Java: `ReportChat`'s
 * ordinal.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for another value.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_report_options_set_chat(struct TickreelReportOptions *options,
                                                uint32_t chat);

/**
 * Starts a shadowed stream: stores in `*out_recorder` the recorder to submit its ticks to (as
 * any recorder) and in `*out_shadow` the buffer that keeps them. With a `path` (a NUL-terminated
 * path in the platform's encoding) the stream is also the recording of that path, exactly as
 * `tickreel_recorder_start` (resumed if its live directory exists; the buffer's blocks are its
 * chunks). With `path` NULL it is written nowhere but the buffer (blocks of
 * `tickreel_shadow_options_set_block_ticks`): its recorder's `tickreel_recorder_finish` returns
 * `TICKREEL_RESULT_INVALID_STATE`; end it with `tickreel_recorder_free` or `_abort`. Either way
 * `tickreel_recorder_player_left` starts a player's grace period. `recorder_options` (from
 * `tickreel_recorder_options_new`) and `shadow_options` (from `tickreel_shadow_options_new`) may
 * be NULL for the defaults. On failure both outputs are set to NULL (when they can be written).
 *
 * The two handles are freed separately. Freeing the shadow does not end the stream: the recorder
 * keeps feeding its blocks until the stream ends; after the stream ends (recorder freed,
 * aborted or finished, or the engine shut down) the shadow still reports from what it retained.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for an empty path or an invalid option (a zero or
 * longer-than-a-day window, a grace period over a day, `block_ticks` out of range),
 * `TICKREEL_RESULT_INVALID_HANDLE` for a freed engine, and otherwise what
 * `tickreel_recorder_start` returns.
 *
 * Thread safety: any thread. The recorder is then used as any recorder; the shadow from any
 * thread.
 *
 * # Safety
 * `out_recorder` must be NULL or point to writable storage for one `*mut TickreelRecorder`.
 * `out_shadow` must be NULL or point to writable storage for one `*mut TickreelShadowBuffer`.
 * `path` must be NULL or a NUL-terminated string.
 */
TickreelResult tickreel_shadow_buffer_start(struct TickreelEngine *engine,
                                            const char *path,
                                            struct TickreelRecorderOptions *recorder_options,
                                            struct TickreelShadowOptions *shadow_options,
                                            struct TickreelRecorder **out_recorder,
                                            struct TickreelShadowBuffer **out_shadow);

/**
 * `tickreel_shadow_buffer_start` naming the game server that records the stream (`server`: 1 to
 * 64 bytes of UTF-8 without control characters; NULL for none), as `tickreel_recorder_start_on`
 * names a recording's: the recording's metadata (`server`) and every report of the buffer carry
 * it, and the catalog stores it on the report's row. Returns `TICKREEL_RESULT_INVALID_ARGUMENT`
 * for a server id out of those bounds, and what `tickreel_shadow_buffer_start` returns.
 *
 * Thread safety: as `tickreel_shadow_buffer_start`.
 *
 * # Safety
 * `out_recorder` must be NULL or point to writable storage for one `*mut TickreelRecorder`.
 * `out_shadow` must be NULL or point to writable storage for one `*mut TickreelShadowBuffer`.
 * `server` must be NULL or a NUL-terminated string.
 * `path` must be NULL or a NUL-terminated string.
 */
TickreelResult tickreel_shadow_buffer_start_on(struct TickreelEngine *engine,
                                               const char *server,
                                               const char *path,
                                               struct TickreelRecorderOptions *recorder_options,
                                               struct TickreelShadowOptions *shadow_options,
                                               struct TickreelRecorder **out_recorder,
                                               struct TickreelShadowBuffer **out_shadow);

/**
 * Reports `player` (an entity id): the buffer keeps capturing for the options' `after` of game
 * time, then the engine's background worker writes the window around the player (with the
 * entities that came within the options' `radius`) to `path`, a `.reel` file that appears only
 * complete. Does not wait: stores in `*out_pending` a pending to poll (`tickreel_pending_poll`) or
 * wait on (`tickreel_pending_wait`), whose result is the report's path
 * (`tickreel_pending_take_path`), to be freed with `tickreel_pending_free`. The report's reference is the newest tick the writer has taken in:
 * call `tickreel_recorder_flush` first to make it the last tick submitted.
 *
 * `metadata_keys` and `metadata_values` are `metadata_count` UTF-8 strings each, stored as
 * string pairs in the report compound of the file's user metadata, beside the library's keys
 * (which they may not use: `player`, `report_tick`, `first_tick`, ...; see FORMAT.md). Both may be NULL when
 * `metadata_count` is 0. `options` (from `tickreel_report_options_new`) may be NULL for the
 * defaults.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for an empty path, an invalid option (a negative
 * or non-finite radius, `before` or `after` over a day, a bad zstd level), a key that is
 * not UTF-8 or is the library's, or a player the buffer holds nothing of (never seen, or gone
 * longer than the grace period and the window); `TICKREEL_RESULT_INVALID_STATE` before the
 * stream's first tick and once the engine shut down. A report onto an existing file without
 * `overwrite` gets a pending that fails with `TICKREEL_RESULT_IO` ("already exists"), as does one
 * whose file cannot be written. On failure `*out_pending` is set to NULL
 * (when it can be written).
 *
 * Thread safety: any thread, concurrently with any other call on the shadow (reports of the same
 * or other players may be made at once) and on its recorder.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `path` must be NULL or a NUL-terminated string (NULL is refused).
 * `metadata_keys` and `metadata_values` must each point to `metadata_count` pointers to NUL-terminated strings (or `metadata_count` must be 0).
 */
TickreelResult tickreel_shadow_buffer_report(struct TickreelShadowBuffer *shadow,
                                             uint32_t player,
                                             const char *path,
                                             struct TickreelReportOptions *options,
                                             const char *const *metadata_keys,
                                             const char *const *metadata_values,
                                             size_t metadata_count,
                                             struct TickreelPending **out_pending);

/**
 * Reports the player with UUID `uuid` (16 bytes, most significant first, as
 * `tickreel_recorder_register_entity` takes it) as `tickreel_shadow_buffer_report` reports an
 * entity id: an entity id changes when a player relogs, the UUID does not. Reports the newest
 * entity of that UUID the buffer holds data of (the one after the last relog).
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `uuid` or when no entity registered with
 * that UUID has data in the buffer, and otherwise what `tickreel_shadow_buffer_report` returns.
 * On failure `*out_pending` is set to NULL (when it can be written).
 *
 * Thread safety: any thread, as `tickreel_shadow_buffer_report`.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `uuid` must be NULL or point to 16 readable bytes.
 * `path` must be NULL or a NUL-terminated string (NULL is refused).
 * `metadata_keys` and `metadata_values` must each point to `metadata_count` pointers to NUL-terminated strings (or `metadata_count` must be 0).
 */
TickreelResult tickreel_shadow_buffer_report_uuid(struct TickreelShadowBuffer *shadow,
                                                  const uint8_t *uuid,
                                                  const char *path,
                                                  struct TickreelReportOptions *options,
                                                  const char *const *metadata_keys,
                                                  const char *const *metadata_values,
                                                  size_t metadata_count,
                                                  struct TickreelPending **out_pending);

/**
 * Stores the buffer's counters in `*out_stats`. Never waits for the writer (it takes the
 * buffer's lock briefly).
 *
 * Thread safety: any thread, concurrently with any other call.
 *
 * # Safety
 * `out_stats` must be NULL or point to writable storage for one `TickreelShadowStats`.
 */
TickreelResult tickreel_shadow_buffer_stats(struct TickreelShadowBuffer *shadow,
                                            struct TickreelShadowStats *out_stats);

/**
 * Stores in `*out_attached` whether the stream still feeds the buffer (false once it ended: its
 * recorder freed, aborted or finished, or the engine shut down). Never blocks.
 *
 * Thread safety: any thread, concurrently with any other call.
 *
 * # Safety
 * `out_attached` must be NULL or point to writable storage for one `bool`.
 */
TickreelResult tickreel_shadow_buffer_attached(struct TickreelShadowBuffer *shadow,
                                               bool *out_attached);

/**
 * Frees a shadow handle. Reports already made go on (their finish handles stay valid); the
 * buffer's memory is released once its stream has ended too (see `tickreel_shadow_buffer_start`).
 * `tickreel_shadow_buffer_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a freed or invalid
 * handle returns `TICKREEL_RESULT_INVALID_HANDLE`. Never blocks.
 *
 * Thread safety: any thread. A call on the same shadow still running in another thread finishes
 * normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
 */
TickreelResult tickreel_shadow_buffer_free(struct TickreelShadowBuffer *shadow);

/**
 * Creates a shadow buffer's options with the defaults (a 5-minute window, a 2-minute grace
 * period after a player leaves, no byte limit of its own, 200-tick blocks), into
 * `*out_options`. Change them with the `tickreel_shadow_options_set_*` functions, pass them to
 * `tickreel_shadow_buffer_start` (which reads them) and free them with
 * `tickreel_shadow_options_free`. Durations are game time, converted to ticks at the
 * recording's tick rate (rounded up).
 *
 * Thread safety: any thread; each setter is atomic, and a start on another thread reads them.
 *
 * # Safety
 * `out_options` must be NULL or point to writable storage for one `TickreelShadowOptions` pointer.
 */
TickreelResult tickreel_shadow_options_new(struct TickreelShadowOptions **out_options);

/**
 * Frees a shadow buffer's options (buffers started with them keep their copy). NULL is a no-op.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_shadow_options_free(struct TickreelShadowOptions *options);

/**
 * Game time always retained, in milliseconds (default 300000: 5 minutes). 1 to 86400000 (a
 * day).
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_shadow_options_set_window(struct TickreelShadowOptions *options,
                                                  uint64_t window);

/**
 * How long a player who left (a `PlayerLeave` event or `tickreel_recorder_player_left`) keeps
 * the window before their leave, in milliseconds (default 120000: 2 minutes). At most 86400000
 * (a day).
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_shadow_options_set_grace(struct TickreelShadowOptions *options,
                                                 uint64_t grace);

/**
 * Bytes this buffer may hold (default: no limit of its own, only the engine-wide
 * `tickreel_engine_options_set_shadow_budget_bytes`). Past it, its oldest blocks are given up.
 * Must be > 0.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_shadow_options_set_max_bytes(struct TickreelShadowOptions *options,
                                                     size_t max_bytes);

/**
 * Ticks per block of a stream without a file (default 200: 10 s at 20 ticks/s). 1 to 1048576.
 * A shadowed recording's blocks are its own chunks
 * (`tickreel_recorder_options_set_chunk_ticks`).
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_shadow_options_set_block_ticks(struct TickreelShadowOptions *options,
                                                       uint32_t block_ticks);

/* ---- Writing recordings (TickreelReelWriter) ---- */

/**
 * A finished file's options being built (`tickreel_reel_writer_create`). Opaque: create with
 * `tickreel_reel_options_new`, change with the `tickreel_reel_options_set_*` functions, pass to
 * `tickreel_reel_writer_create` (NULL there: the defaults), release with
 * `tickreel_reel_options_free`. The pointer is a handle, not an address.
 */
typedef struct TickreelReelOptions TickreelReelOptions;

/**
 * A writer of one compacted `.reel` file. Opaque: create with `tickreel_reel_writer_create`, release
 * with `tickreel_reel_writer_free`. The pointer is a handle, not an address: never dereference it.
 */
typedef struct TickreelReelWriter TickreelReelWriter;

/**
 * Creates a finished file's options with the defaults (20 ticks/s, zstd level 9, chunks of up to
 * 12000 ticks cut at 64 KiB of payload, a snapshot every 600 ticks, started at 0), into
 * `*out_options`. Change them with the `tickreel_reel_options_set_*` functions, pass them to
 * `tickreel_reel_writer_create` (which reads them: one options handle may create many writers)
 * and free them with `tickreel_reel_options_free`.
 *
 * Thread safety: any thread; each setter is atomic, and a create on another thread reads them.
 *
 * # Safety
 * `out_options` must be NULL or point to writable storage for one `TickreelReelOptions` pointer.
 */
TickreelResult tickreel_reel_options_new(struct TickreelReelOptions **out_options);

/**
 * Frees a finished file's options (writers created with them keep their copy). NULL is a no-op.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_reel_options_free(struct TickreelReelOptions *options);

/**
 * The game's tick rate in ticks per second times 1000 (default 20000: 20 ticks/s). Must be > 0.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_reel_options_set_tick_rate_millihz(struct TickreelReelOptions *options,
                                                           uint32_t tick_rate_millihz);

/**
 * The game's own data version (e.g. a Minecraft data version), opaque to tickreel (default 0).
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_reel_options_set_game_data_version(struct TickreelReelOptions *options,
                                                           uint32_t game_data_version);

/**
 * When the recording started, in Unix milliseconds (default 0).
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_reel_options_set_timestamp_ms(struct TickreelReelOptions *options,
                                                      int64_t timestamp_ms);

/**
 * The world's identity, opaque to tickreel (e.g. a UUID): 16 bytes, NULL for all zero (the
 * default).
 *
 * Thread safety: any thread.
 *
 * # Safety
 * `world_id` must be NULL or point to 16 readable bytes.
 */
TickreelResult tickreel_reel_options_set_world_id(struct TickreelReelOptions *options,
                                                  const uint8_t *world_id);

/**
 * The world's version, opaque to tickreel: 16 bytes, NULL for all zero (the default).
 *
 * Thread safety: any thread.
 *
 * # Safety
 * `world_version` must be NULL or point to 16 readable bytes.
 */
TickreelResult tickreel_reel_options_set_world_version(struct TickreelReelOptions *options,
                                                       const uint8_t *world_version);

/**
 * The zstd dictionary (1 to 65535; 0 for none, the default) the file's chunks are compressed
 * with; it must have been registered (`tickreel_dictionary_register`).
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for an id over 65535.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_reel_options_set_dictionary_id(struct TickreelReelOptions *options,
                                                       uint32_t dictionary_id);

/**
 * Most ticks one chunk spans (default 12000). 1 to 1048576.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_reel_options_set_chunk_ticks(struct TickreelReelOptions *options,
                                                     uint32_t chunk_ticks);

/**
 * Cut a chunk once its uncompressed payload reaches about this many bytes (default 64 KiB).
 * Must be > 0.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_reel_options_set_chunk_bytes(struct TickreelReelOptions *options,
                                                     size_t chunk_bytes);

/**
 * Ticks between snapshots (default 600). Must be > 0.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_reel_options_set_snapshot_interval(struct TickreelReelOptions *options,
                                                           uint32_t snapshot_interval);

/**
 * Zstd level of the file, -7 to 22 (default 9).
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_reel_options_set_zstd_level(struct TickreelReelOptions *options,
                                                    int32_t zstd_level);

/**
 * Starts a compacted `.reel` file at `path` (a NUL-terminated path in the platform's encoding)
 * and stores the writer's handle in `*out_writer`. Nothing appears at `path` until
 * `tickreel_reel_writer_finish`, which writes the whole file atomically (temporary file + rename).
 * `options` (from `tickreel_reel_options_new`) may be NULL for the defaults.
 *
 * Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `path` or `out_writer` is NULL,
 * `TICKREEL_RESULT_INVALID_ARGUMENT` for an empty path or an invalid option. On failure
 * `*out_writer` is set to NULL (when it can be written).
 *
 * Thread safety: any thread. A writer may then be used from any thread; its calls are
 * serialised by an internal lock.
 *
 * # Safety
 * `out_writer` must be NULL or point to writable storage for one `TickreelReelWriter` pointer.
 * `path` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_reel_writer_create(const char *path,
                                           struct TickreelReelOptions *options,
                                           struct TickreelReelWriter **out_writer);

/**
 * Frees a writer. A writer that was not finished is discarded: no file is written and its
 * temporary files are removed. `tickreel_reel_writer_free(NULL)` is a no-op returning
 * `TICKREEL_RESULT_OK`; a freed or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
 *
 * Thread safety: any thread. A call on the same writer still running in another thread
 * finishes normally; calls that start after this one get `TICKREEL_RESULT_INVALID_HANDLE`.
 */
TickreelResult tickreel_reel_writer_free(struct TickreelReelWriter *writer);

/**
 * Appends one tick given as a batch-encoded buffer (see `tickreel_batch_bytes` for the
 * encoding). Ticks must be strictly increasing; ticks without events may be skipped.
 *
 * Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `batch` is NULL, `TICKREEL_RESULT_INVALID_ARGUMENT`
 * for a malformed batch (including `len` 0) or a tick not after the previous one,
 * `TICKREEL_RESULT_INVALID_STATE` after `tickreel_reel_writer_finish`. A malformed batch or an
 * out-of-order tick is refused before anything is written.
 *
 * Thread safety: any thread; calls on one writer are serialised.
 *
 * # Safety
 * `batch` must point to `batch_len` readable bytes (NULL is refused).
 */
TickreelResult tickreel_reel_writer_write_tick(struct TickreelReelWriter *writer,
                                               uint32_t tick,
                                               const uint8_t *batch,
                                               size_t batch_len);

/**
 * Appends one tick holding the events of a batch builder (the batch is left unchanged; clear it
 * before building the next tick). Same rules and results as `tickreel_reel_writer_write_tick`.
 *
 * Thread safety: any thread; calls on one writer are serialised. The batch must not be modified
 * by another thread during the call (its lock is held while it is read).
 */
TickreelResult tickreel_reel_writer_write_batch(struct TickreelReelWriter *writer,
                                                uint32_t tick,
                                                struct TickreelBatch *batch);

/**
 * Supplies snapshot bytes (the game's own world state: blocks, entities; opaque to tickreel,
 * copied). The next tick starts a chunk carrying them, so that a seek near it can restore the
 * world from them. `bytes` may be NULL when `len` is 0.
 *
 * Thread safety: any thread; calls on one writer are serialised.
 *
 * # Safety
 * `bytes` must point to `bytes_len` readable bytes (or `bytes_len` must be 0).
 */
TickreelResult tickreel_reel_writer_offer_snapshot(struct TickreelReelWriter *writer,
                                                   const uint8_t *bytes,
                                                   size_t bytes_len);

/**
 * Supplies terrain: the blocks of an area as `sections_count` chunk sections in Minecraft's
 * layout (`TickreelTerrainSection`; copied). The next tick starts a chunk carrying it, stored
 * once, compressed; readers return it with the world from that tick on, a later offer's section
 * replacing an earlier one at the same position.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` (nothing changed) for an invalid section, a section
 * position twice or more than 16,384 sections, `TICKREEL_RESULT_LIMIT_EXCEEDED` for terrain
 * whose coded form would exceed 16 MiB, `TICKREEL_RESULT_NULL_ARGUMENT` for a NULL array with
 * a length (see `tickreel_recorder_offer_terrain`).
 *
 * Thread safety: any thread; calls on one writer are serialised.
 *
 * # Safety
 * `sections` must point to `sections_count` readable `TickreelTerrainSection`s (or `sections_count` must be 0), each with `palette_len` readable `uint32_t`s at `palette` and `packed_len` readable `uint64_t`s at `packed` (or that length 0).
 */
TickreelResult tickreel_reel_writer_offer_terrain(struct TickreelReelWriter *writer,
                                                  const struct TickreelTerrainSection *sections,
                                                  size_t sections_count);

/**
 * Records who an entity is, in the file's metadata: its game-defined `kind`, optionally a
 * 16-byte UUID (`uuid`, NULL for none) and a UTF-8 name (`name`, NULL for none). Registering an
 * id again replaces the earlier entry.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `name` is not UTF-8.
 *
 * Thread safety: any thread; calls on one writer are serialised.
 *
 * # Safety
 * `uuid` must be NULL or point to 16 readable bytes.
 * `name` must be NULL or a NUL-terminated string.
 */
TickreelResult tickreel_reel_writer_register_entity(struct TickreelReelWriter *writer,
                                                    uint32_t entity,
                                                    uint32_t kind,
                                                    const uint8_t *uuid,
                                                    const char *name);

/**
 * Registers a custom event type in the file's metadata: its id (as used by
 * `tickreel_batch_custom`), a UTF-8 name and the game's schema version of its payload.
 *
 * Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `name` is NULL, `TICKREEL_RESULT_INVALID_ARGUMENT`
 * if it is not UTF-8.
 *
 * Thread safety: any thread; calls on one writer are serialised.
 *
 * # Safety
 * `name` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_reel_writer_register_event_type(struct TickreelReelWriter *writer,
                                                        uint32_t type_id,
                                                        const char *name,
                                                        uint32_t version);

/**
 * Names id `id` of palette `kind` (`TICKREEL_PALETTE_BLOCK`, `_ITEM` or `_DAMAGE_CAUSE`) in the
 * file's metadata, e.g. block state 1 as `"minecraft:stone"`. Naming an id again with the same
 * name does nothing.
 *
 * Returns `TICKREEL_RESULT_NULL_ARGUMENT` if `name` is NULL, `TICKREEL_RESULT_INVALID_ARGUMENT`
 * for an unknown kind, a name that is not UTF-8, empty or over 256 bytes, or an id named
 * otherwise already; `TICKREEL_RESULT_LIMIT_EXCEEDED` beyond 131072 names of a kind or the
 * metadata budget.
 *
 * Thread safety: any thread; calls on one writer are serialised.
 *
 * # Safety
 * `name` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_reel_writer_register_name(struct TickreelReelWriter *writer,
                                                  uint32_t kind,
                                                  uint32_t id,
                                                  const char *name);

/**
 * Adds the keys of `nbt`, a big-endian NBT root compound (as Minecraft writes it), to the
 * recording's user metadata (a key given again replaces the earlier value). The key
 * `"tickreel"` is the library's own.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `nbt` is not an NBT compound, nests too deeply
 * or uses the reserved key; `TICKREEL_RESULT_INVALID_STATE` after `tickreel_reel_writer_finish`.
 *
 * Thread safety: any thread; calls on one writer are serialised.
 *
 * # Safety
 * `nbt` must point to `nbt_len` readable bytes (or `nbt_len` must be 0).
 */
TickreelResult tickreel_reel_writer_set_user_metadata(struct TickreelReelWriter *writer,
                                                      const uint8_t *nbt,
                                                      size_t nbt_len);

/**
 * Writes the file: flushes the last chunk, writes header, metadata, index and chunks to a
 * temporary file next to `path`, fsyncs it and renames it into place. Stores the file's size in
 * bytes in `*out_size` (`out_size` may be NULL). Blocks for the I/O.
 *
 * Afterwards (whether it succeeded or not) the writer accepts no more calls
 * (`TICKREEL_RESULT_INVALID_STATE`) except `tickreel_reel_writer_free`, which must still be called.
 *
 * Thread safety: any thread; calls on one writer are serialised.
 *
 * # Safety
 * `out_size` must be NULL or point to writable storage for one `u64`.
 */
TickreelResult tickreel_reel_writer_finish(struct TickreelReelWriter *writer, uint64_t *out_size);

/* ---- Compression dictionaries ---- */

/**
 * Registers a zstd dictionary and stores its id (the one its zstd header names, 1..65535) in
 * `*out_id`. The bytes are checked and copied: not a zstd dictionary, an id outside 1..65535,
 * more than 1 MiB or damaged tables is `TICKREEL_RESULT_INVALID_ARGUMENT` (or
 * `TICKREEL_RESULT_LIMIT_EXCEEDED` for the size); other bytes under an id already registered is
 * `TICKREEL_RESULT_INVALID_STATE`; the same bytes again are harmless. Registered dictionaries
 * stay for the life of the process. A recording whose dictionary is not registered fails to
 * open with `TICKREEL_RESULT_UNSUPPORTED`, its message naming the id.
 *
 * Thread safety: any thread.
 *
 * # Safety
 * `out_id` must be NULL or point to writable storage for one `u32`.
 * `bytes` must point to `bytes_len` readable bytes (or `bytes_len` must be 0).
 */
TickreelResult tickreel_dictionary_register(const uint8_t *bytes,
                                            size_t bytes_len,
                                            uint32_t *out_id);

/**
 * Whether a dictionary is registered under `id` (0, no dictionary, never is).
 *
 * Thread safety: any thread.
 *
 * # Safety
 * `out_registered` must be NULL or point to writable storage for one `bool`.
 */
TickreelResult tickreel_dictionary_is_registered(uint32_t id, bool *out_registered);

/* ---- Object storage (TickreelObjectOptions, TickreelLiveShipper; Cargo feature "object") ---- */

/**
 * What a live shipper has done so far, as filled in by `tickreel_live_shipper_stats`.
 */
typedef struct TickreelShipStats {
    /**
     * Manifests written (one per shipment).
     */
    uint64_t shipments;
    /**
     * Batch objects written (segment bytes flushed since the shipment before).
     */
    uint64_t batches;
    /**
     * Requests sent (batches, manifests; failed ones too).
     */
    uint64_t requests;
    /**
     * Segment bytes shipped (what the local segments held at the last shipment).
     */
    uint64_t segment_bytes;
    /**
     * Bytes sent: batches plus manifests.
     */
    uint64_t shipped_bytes;
    /**
     * Shipments that failed (retried at the next interval).
     */
    uint64_t errors;
    /**
     * `last_tick` is set.
     */
    bool has_last_tick;
    /**
     * The last tick in the bucket, if any tick is in it yet.
     */
    uint32_t last_tick;
} TickreelShipStats;

/**
 * Creates object-storage options with the usual variables read now: `AWS_ACCESS_KEY_ID`,
 * `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION` (or `AWS_DEFAULT_REGION`),
 * `AWS_ENDPOINT_URL` (or `AWS_ENDPOINT`), `AWS_ALLOW_HTTP`; an `http://` endpoint allows plain
 * HTTP. Defaults otherwise: connect timeout 5 s, request timeout 30 s, 3 retries backing off
 * from 100 ms to 5 s, a 120 s deadline per call. Stores the handle in `*out_options`; free it
 * with `tickreel_object_options_free` (operations copy what they need).
 *
 * Thread safety: any thread.
 *
 * # Safety
 * `out_options` must be NULL or point to writable storage for one `TickreelObjectOptions` pointer.
 */
TickreelResult tickreel_object_options_new(struct TickreelObjectOptions **out_options);

/**
 * Frees object-storage options. `tickreel_object_options_free(NULL)` is a no-op returning
 * `TICKREEL_RESULT_OK`; a freed or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_object_options_free(struct TickreelObjectOptions *options);

/**
 * Sets the store's endpoint (`http://127.0.0.1:9000`, `https://<account>.r2.cloudflarestorage.com`;
 * NULL: AWS S3 itself). An `http://` endpoint also allows plain HTTP.
 *
 * Thread safety: any thread; calls on one options handle are serialised.
 *
 * # Safety
 * `endpoint` must be NULL or a NUL-terminated string.
 */
TickreelResult tickreel_object_options_set_endpoint(struct TickreelObjectOptions *options,
                                                    const char *endpoint);

/**
 * Sets the region (NULL: `us-east-1`).
 *
 * Thread safety: any thread; calls on one options handle are serialised.
 *
 * # Safety
 * `region` must be NULL or a NUL-terminated string.
 */
TickreelResult tickreel_object_options_set_region(struct TickreelObjectOptions *options,
                                                  const char *region);

/**
 * Sets static credentials (an access key id, its secret and an optional session token, NULL for
 * none), replacing those read from the environment. They are never shown in messages.
 *
 * Thread safety: any thread; calls on one options handle are serialised.
 *
 * # Safety
 * `access_key_id` must be NULL or a NUL-terminated string (NULL is refused).
 * `secret_access_key` must be NULL or a NUL-terminated string (NULL is refused).
 * `session_token` must be NULL or a NUL-terminated string.
 */
TickreelResult tickreel_object_options_set_credentials(struct TickreelObjectOptions *options,
                                                       const char *access_key_id,
                                                       const char *secret_access_key,
                                                       const char *session_token);

/**
 * Allows (or forbids) plain `http://` endpoints.
 *
 * Thread safety: any thread; calls on one options handle are serialised.
 */
TickreelResult tickreel_object_options_set_allow_http(struct TickreelObjectOptions *options,
                                                      bool allow);

/**
 * Sets the timeouts in milliseconds: to connect, for one request, and the deadline of one call
 * with its retries (past it the call fails with `TICKREEL_RESULT_IO`, a timeout).
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a zero timeout.
 *
 * Thread safety: any thread; calls on one options handle are serialised.
 */
TickreelResult tickreel_object_options_set_timeouts(struct TickreelObjectOptions *options,
                                                    uint32_t connect_ms,
                                                    uint32_t request_ms,
                                                    uint32_t deadline_ms);

/**
 * Sets the retries of a failed request (connection errors, 5xx, timeouts) and their backoff in
 * milliseconds: the first wait, doubling up to the longest.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if the first wait is longer than the longest.
 *
 * Thread safety: any thread; calls on one options handle are serialised.
 */
TickreelResult tickreel_object_options_set_retries(struct TickreelObjectOptions *options,
                                                   uint32_t retries,
                                                   uint32_t backoff_initial_ms,
                                                   uint32_t backoff_max_ms);

/**
 * Stores the shipper's counters in `*out_stats` (after `tickreel_live_shipper_finish`: as they
 * were when shipping stopped). Never blocks on the network.
 *
 * Thread safety: any thread; waits while `tickreel_live_shipper_finish` takes the shipper.
 *
 * # Safety
 * `out_stats` must be NULL or point to writable storage for one `TickreelShipStats`.
 */
TickreelResult tickreel_live_shipper_stats(struct TickreelLiveShipper *shipper,
                                           struct TickreelShipStats *out_stats);

/**
 * Ships now, on the calling thread (blocks on up to two requests): what the next interval
 * would, e.g. after `tickreel_recorder_flush` so that a follower sees every tick flushed.
 *
 * Returns `TICKREEL_RESULT_IO` if a request failed (the next shipment retries it),
 * `TICKREEL_RESULT_INVALID_STATE` after `tickreel_live_shipper_finish`.
 *
 * Thread safety: any thread; not on a server thread (it waits on the network).
 */
TickreelResult tickreel_live_shipper_ship_now(struct TickreelLiveShipper *shipper);

/**
 * Ends `recorder`'s recording (as `tickreel_recorder_finish`) and the shipping: once the
 * recording is compacted, uploads its `.reel` to the shipper's key (never over an existing
 * object unless `overwrite`, the uploaded size checked, the local file removed if
 * `remove_local`), then removes the live objects, on a background thread. Stores the pending in
 * `*out_pending`: poll it with `tickreel_pending_poll`, read the object with
 * `tickreel_pending_take_upload`. A failed
 * compaction or upload leaves the live objects in the bucket (`tickreel recover` finishes them).
 * The shipper's handle must still be freed.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` if `recorder` is not the recording the shipper
 * ships, `TICKREEL_RESULT_INVALID_STATE` if the shipper was already finished, and the codes of
 * `tickreel_recorder_finish` (the shipping then goes on). On failure `*out_pending` is set to
 * NULL (when it can be written).
 *
 * Thread safety: any thread, concurrently with other calls on the shipper and the recorder.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 */
TickreelResult tickreel_live_shipper_finish(struct TickreelLiveShipper *shipper,
                                            struct TickreelRecorder *recorder,
                                            bool overwrite,
                                            bool remove_local,
                                            struct TickreelPending **out_pending);

/**
 * Frees a shipper's handle; a shipper not yet finished stops shipping (what is in the bucket
 * stays). `tickreel_live_shipper_free(NULL)` is a no-op returning `TICKREEL_RESULT_OK`; a freed
 * or invalid handle returns `TICKREEL_RESULT_INVALID_HANDLE`.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_live_shipper_free(struct TickreelLiveShipper *shipper);

/* ---- Catalog (TickreelCatalog; Cargo feature "catalog") ---- */

/**
 * An open catalog of runs and its worker thread. Opaque: open with `tickreel_catalog_open`,
 * release with `tickreel_catalog_free`.
 */
typedef struct TickreelCatalog TickreelCatalog;

/**
 * Opens the catalog at `url`: `sqlite:PATH` (created if missing) or `postgres://user@host/db`,
 * migrating its schema to the current version, and starts its worker thread. Stores the
 * handle in `*out_catalog`; free it with `tickreel_catalog_free`. Blocks while the database is
 * opened (the only call that does): open it at startup, not on the server thread.
 *
 * Returns `TICKREEL_RESULT_UNSUPPORTED` for a URL of another scheme,
 * `TICKREEL_RESULT_DATABASE` if the database cannot be opened or reached (the message never
 * shows a password). On failure `*out_catalog` is set to NULL (when it can be written).
 *
 * Thread safety: any thread. The catalog may then be used from any thread.
 *
 * # Safety
 * `out_catalog` must be NULL or point to writable storage for one `TickreelCatalog` pointer.
 * `url` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_catalog_open(const char *url, struct TickreelCatalog **out_catalog);

/**
 * Frees a catalog: the calls already queued run, then its worker thread is joined (blocks
 * until then). Its pendings stay valid. `tickreel_catalog_free(NULL)` is a no-op.
 *
 * Thread safety: any thread.
 */
TickreelResult tickreel_catalog_free(struct TickreelCatalog *catalog);

/**
 * Registers one run of the finished recording at `file` (after its finish completed): `course`,
 * the player's 16-byte UUID `player` and name, the `entity` in the recording and the `range` of
 * its run (NULL: its whole presence; checkpoint markers give the splits). Stores the call's
 * handle in `*out_pending`; the call's rows are the registered run (rank 0). A file that is not a
 * finished recording, or an entity or range not in it, fails the call and stores nothing.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `player`.
 *
 * Thread safety: any thread; never blocks (the call runs on the catalog's worker).
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `file` must be NULL or a NUL-terminated string (NULL is refused).
 * `course` must be NULL or a NUL-terminated string (NULL is refused).
 * `player` must be NULL or point to 16 readable bytes.
 * `player_name` must be NULL or a NUL-terminated string (NULL is refused).
 * `range` must be NULL or point to a readable `TickreelGhostRange`.
 */
TickreelResult tickreel_catalog_register(struct TickreelCatalog *catalog,
                                         const char *file,
                                         const char *course,
                                         const uint8_t *player,
                                         const char *player_name,
                                         uint32_t entity,
                                         const struct TickreelGhostRange *range,
                                         struct TickreelPending **out_pending);

/**
 * Starts a query of the best `n` players of `course` (each player's best valid run, fastest
 * first, ties to the earlier run). Stores the call's handle in `*out_pending`.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `course` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_catalog_top(struct TickreelCatalog *catalog,
                                    const char *course,
                                    uint32_t n,
                                    struct TickreelPending **out_pending);

/**
 * Starts a query of `player`'s best run of `course` and its rank: one row, or none if the
 * player has no valid run there. Stores the call's handle in `*out_pending`.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `player`.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `course` must be NULL or a NUL-terminated string (NULL is refused).
 * `player` must be NULL or point to 16 readable bytes.
 */
TickreelResult tickreel_catalog_personal_best(struct TickreelCatalog *catalog,
                                              const char *course,
                                              const uint8_t *player,
                                              struct TickreelPending **out_pending);

/**
 * Starts a query of the places from `rank - k` to `rank + k` of `course` (clamped to the
 * board). Stores the call's handle in `*out_pending`.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `course` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_catalog_around(struct TickreelCatalog *catalog,
                                       const char *course,
                                       uint32_t rank,
                                       uint32_t k,
                                       struct TickreelPending **out_pending);

/**
 * Starts a query of `player`'s `n` most recent runs (of `course`, or of every course when it is
 * NULL), newest first, valid or not; their rank fields are 0. Stores the call's handle in
 * `*out_pending`.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `player`.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `player` must be NULL or point to 16 readable bytes.
 * `course` must be NULL or a NUL-terminated string.
 */
TickreelResult tickreel_catalog_recent(struct TickreelCatalog *catalog,
                                       const uint8_t *player,
                                       const char *course,
                                       uint32_t n,
                                       struct TickreelPending **out_pending);

/**
 * Starts the sum of best segments of `course`: of `player`'s runs, or of the whole board when
 * `player` is NULL (segments between consecutive checkpoints). Stores the call's handle in
 * `*out_pending`; its bytes are empty when there is no run, else the encoding of `rows::sum_of_best`.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `course` must be NULL or a NUL-terminated string (NULL is refused).
 * `player` must be NULL or point to 16 readable bytes.
 */
TickreelResult tickreel_catalog_sum_of_best(struct TickreelCatalog *catalog,
                                            const char *course,
                                            const uint8_t *player,
                                            struct TickreelPending **out_pending);

/**
 * Starts looking up the ghost of `course`'s run at `rank` (1: the best) or, with `rank` 0, of
 * `player`'s best, and loading it (from a local path or an object URL, with the `AWS_*`
 * variables): the pending's result is the ghost (`tickreel_pending_take_ghost`).
 * The lookup fails with `TICKREEL_RESULT_INVALID_ARGUMENT` when the board has no such rank or
 * player. Stores the call's handle in `*out_pending`.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for rank 0 with a NULL `player`.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `course` must be NULL or a NUL-terminated string (NULL is refused).
 * `player` must be NULL or point to 16 readable bytes.
 */
TickreelResult tickreel_catalog_load_ghost(struct TickreelCatalog *catalog,
                                           const char *course,
                                           uint32_t rank,
                                           const uint8_t *player,
                                           struct TickreelPending **out_pending);

/**
 * Starts applying the retention policies (`tickreel catalog` sets them): recordings no policy
 * keeps are deleted (the file, then the rows), or with `dry_run` only listed. The call's rows
 * are the recordings pruned (or that would be), in the encoding of `rows::pruned`. Stores the
 * call's handle in `*out_pending`.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 */
TickreelResult tickreel_catalog_prune(struct TickreelCatalog *catalog,
                                      bool dry_run,
                                      struct TickreelPending **out_pending);

/**
 * Starts loading the ghosts of several places of `course` to race them together: the board's
 * first `top` places, then `player`'s best (NULL: none), then the run at `rank` (0: none), in that
 * order; a run picked twice (a player's best among the top) is loaded once. Held runs are on no
 * board, so never among them. The board is read on the catalog's worker (after the calls queued
 * before), the recordings load on background threads; the pending's result is a ghost set
 * (`tickreel_pending_take_ghost_set`). Stores the pending in `*out_pending`.
 *
 * The pending fails with `TICKREEL_RESULT_INVALID_ARGUMENT` when the board has no such player or
 * rank, and with the recordings' errors (`TICKREEL_RESULT_IO`, ...) if one cannot be loaded.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `course` must be NULL or a NUL-terminated string (NULL is refused).
 * `player` must be NULL or point to 16 readable bytes.
 */
TickreelResult tickreel_catalog_load_ghosts(struct TickreelCatalog *catalog,
                                            const char *course,
                                            uint32_t top,
                                            const uint8_t *player,
                                            uint32_t rank,
                                            struct TickreelPending **out_pending);

/**
 * Files an open shadow-play report: who was reported (`reported`, a 16-byte UUID, and their
 * name), by whom (`reporter`), why, and the finished recording shadow play wrote for it
 * (`recording`, a local path or an object URL read with the `AWS_*` variables, once its upload
 * succeeded; NULL for none: it is registered, or found if it already is; read from there, as
 * `tickreel_catalog_register_at` does). Stores the pending in `*out_pending`; the call's rows
 * are the filed report (the encoding of `rows::reports`).
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `reported` or `reporter`.
 *
 * Thread safety: any thread; never blocks (the call runs on the catalog's worker).
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `reported` must be NULL or point to 16 readable bytes.
 * `reported_name` must be NULL or a NUL-terminated string (NULL is refused).
 * `reporter` must be NULL or point to 16 readable bytes.
 * `reason` must be NULL or a NUL-terminated string (NULL is refused).
 * `recording` must be NULL or a NUL-terminated string.
 */
TickreelResult tickreel_catalog_add_report(struct TickreelCatalog *catalog,
                                           const uint8_t *reported,
                                           const char *reported_name,
                                           const uint8_t *reporter,
                                           const char *reason,
                                           const char *recording,
                                           struct TickreelPending **out_pending);

/**
 * Starts listing the shadow-play reports, newest first: the open ones (`which` 1), the closed
 * ones (2) or all (0). Stores the pending in `*out_pending`; its rows use the encoding of
 * `rows::reports`.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for another `which`.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 */
TickreelResult tickreel_catalog_reports(struct TickreelCatalog *catalog,
                                        uint32_t which,
                                        struct TickreelPending **out_pending);

/**
 * Starts opening (`open` true) or closing a report. The call fails with
 * `TICKREEL_RESULT_INVALID_ARGUMENT` when there is no report `report_id`; its rows are empty.
 * Stores the pending in `*out_pending`.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 */
TickreelResult tickreel_catalog_set_report_open(struct TickreelCatalog *catalog,
                                                int64_t report_id,
                                                bool open,
                                                struct TickreelPending **out_pending);

/**
 * Starts marking run `run_id` valid or invalid (anticheat, an operator's decision): an invalid
 * run leaves the boards, and its player's best is recomputed. The call fails with
 * `TICKREEL_RESULT_INVALID_ARGUMENT` when there is no such run; its rows are empty. Stores the
 * call's handle in `*out_pending`.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 */
TickreelResult tickreel_catalog_set_run_valid(struct TickreelCatalog *catalog,
                                              int64_t run_id,
                                              bool valid,
                                              struct TickreelPending **out_pending);

/**
 * Starts checking run `run_id` again (the run checks of registration: its recording's SHA-256
 * against the one taken then, speed, teleports, dropped ticks and checkpoint order against its
 * course's limits). A failing run is held: it leaves every board and serves as no ghost until a
 * moderator clears it (`tickreel_catalog_clear_run`). The call fails with
 * `TICKREEL_RESULT_INVALID_ARGUMENT` when there is no such run; its rows are the run's check
 * state after the check (the encoding of `rows::run_check`). Stores the pending in
 * `*out_pending`.
 *
 * Thread safety: any thread; never blocks (the check reads the recording on the catalog's
 * worker).
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 */
TickreelResult tickreel_catalog_check_run(struct TickreelCatalog *catalog,
                                          int64_t run_id,
                                          struct TickreelPending **out_pending);

/**
 * Starts reading run `run_id`'s check state as stored (whether it is held and why, who
 * cleared it), without checking it again. The call fails with `TICKREEL_RESULT_INVALID_ARGUMENT`
 * when there is no such run; its rows use the encoding of `rows::run_check`. Stores the call's
 * handle in `*out_pending`.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 */
TickreelResult tickreel_catalog_run_check(struct TickreelCatalog *catalog,
                                          int64_t run_id,
                                          struct TickreelPending **out_pending);

/**
 * Starts clearing held run `run_id` as moderator `by` (1 to 64 characters, no control
 * characters, recorded in the catalog's audit log with the reasons it was held for): it goes on
 * the boards and serves as a ghost. The call fails with `TICKREEL_RESULT_INVALID_ARGUMENT` when
 * there is no such run or `by` is not a name, `TICKREEL_RESULT_INVALID_STATE` when the run is
 * not held; its rows are the run's check state after it (the encoding of `rows::run_check`).
 * Stores the pending in `*out_pending`.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `by` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_catalog_clear_run(struct TickreelCatalog *catalog,
                                          int64_t run_id,
                                          const char *by,
                                          struct TickreelPending **out_pending);

/**
 * Starts setting the limits runs of `course` are checked against when they are registered
 * (replacing its limits; runs registered before keep their check): the preset `movement`
 * (`walking`, `sprinting` or `elytra`) with each speed given above 0 in its place (blocks a
 * tick horizontally, blocks in one second horizontally, up a tick, down a tick, up in one
 * second, down in one second), and the number of checkpoints a run reaches (0: only their
 * order is checked). A course without limits is checked with `sprinting`'s. Stores the call's
 * handle in `*out_pending`; its rows are empty.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for another movement or a speed that is not a
 * finite number at least 0.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `course` must be NULL or a NUL-terminated string (NULL is refused).
 * `movement` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_catalog_set_course_limits(struct TickreelCatalog *catalog,
                                                  const char *course,
                                                  const char *movement,
                                                  double horizontal_tick,
                                                  double horizontal_second,
                                                  double up_tick,
                                                  double down_tick,
                                                  double up_second,
                                                  double down_second,
                                                  uint32_t checkpoints,
                                                  struct TickreelPending **out_pending);

/**
 * Starts setting the retention policy of `scope` (`course:NAME`, `runs`: every course without
 * its own, `reports`: shadow-play reports, `other`: recordings with neither), which
 * `tickreel_catalog_prune` applies: keep the best `keep_top` players' runs (0: none kept for
 * rank), every player's best (`keep_personal_bests`), everything younger than `keep_days` days
 * (0: none kept for age), the recordings of open reports (`keep_open_reports`). Replaces the
 * scope's policy. Stores the pending in `*out_pending`; its rows are empty.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a malformed scope.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `scope` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_catalog_set_retention(struct TickreelCatalog *catalog,
                                              const char *scope,
                                              uint32_t keep_top,
                                              bool keep_personal_bests,
                                              uint32_t keep_days,
                                              bool keep_open_reports,
                                              struct TickreelPending **out_pending);

/**
 * Starts removing the retention policy of `scope` (the defaults apply again: personal bests
 * and open reports kept). Stores the pending in `*out_pending`; its rows are empty.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a malformed scope.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `scope` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_catalog_clear_retention(struct TickreelCatalog *catalog,
                                                const char *scope,
                                                struct TickreelPending **out_pending);

/**
 * Starts listing the retention policies set. Stores the pending in `*out_pending`; its rows
 * use the encoding of `rows::retention`.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 */
TickreelResult tickreel_catalog_retention(struct TickreelCatalog *catalog,
                                          struct TickreelPending **out_pending);

/**
 * Registers one run of a recording once its finish completes (`finish`, the pending of
 * `tickreel_recorder_finish` or a report; it stays the caller's to free): as
 * `tickreel_catalog_register`, with the file the finish wrote. A failed finish fails the call
 * and registers nothing. The catalog's worker waits for the finish: calls submitted after this
 * one run after it. Stores the pending in `*out_pending`; its rows are the registered run.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `player` or a `finish` whose result is
 * not a path.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `course` must be NULL or a NUL-terminated string (NULL is refused).
 * `player` must be NULL or point to 16 readable bytes.
 * `player_name` must be NULL or a NUL-terminated string (NULL is refused).
 * `range` must be NULL or point to a readable `TickreelGhostRange`.
 */
TickreelResult tickreel_catalog_register_finished(struct TickreelCatalog *catalog,
                                                  struct TickreelPending *finish,
                                                  const char *course,
                                                  const uint8_t *player,
                                                  const char *player_name,
                                                  uint32_t entity,
                                                  const struct TickreelGhostRange *range,
                                                  struct TickreelPending **out_pending);

/**
 * Starts a query of the best `n` players of `course` on a board: the server `server` (each
 * player's best valid run recorded there), or the whole network when `server` is NULL; of the
 * map version `world` + `world_version` (16-byte UUIDs, the recording's `world_id` and
 * `world_version`), or of any version when both are NULL (as `tickreel_catalog_top`). Stores the
 * call's handle in `*out_pending`; its rows use the encoding of `tickreel_catalog_top`.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` when only one of `world` and `world_version` is
 * given.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `server` must be NULL or a NUL-terminated string.
 * `world` must be NULL or point to 16 readable bytes.
 * `world_version` must be NULL or point to 16 readable bytes.
 * `course` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_catalog_top_on(struct TickreelCatalog *catalog,
                                       const char *server,
                                       const uint8_t *world,
                                       const uint8_t *world_version,
                                       const char *course,
                                       uint32_t n,
                                       struct TickreelPending **out_pending);

/**
 * Starts a query of `player`'s best run of `course` on a board (the server `server`, the
 * network's when NULL; the map version `world` + `world_version`, any when both are NULL; see
 * `tickreel_catalog_top_on`) and its rank there: one row, or none. Stores the pending in
 * `*out_pending`.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `player`, or when only one of `world`
 * and `world_version` is given.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `server` must be NULL or a NUL-terminated string.
 * `world` must be NULL or point to 16 readable bytes.
 * `world_version` must be NULL or point to 16 readable bytes.
 * `course` must be NULL or a NUL-terminated string (NULL is refused).
 * `player` must be NULL or point to 16 readable bytes.
 */
TickreelResult tickreel_catalog_personal_best_on(struct TickreelCatalog *catalog,
                                                 const char *server,
                                                 const uint8_t *world,
                                                 const uint8_t *world_version,
                                                 const char *course,
                                                 const uint8_t *player,
                                                 struct TickreelPending **out_pending);

/**
 * Starts a query of the place at `rank` (1: the best) of `course` on a board (the server
 * `server`, the network's when NULL; the map version `world` + `world_version`, any when both
 * are NULL; see `tickreel_catalog_top_on`): one row, or none when the board has fewer players.
 * Stores the pending in `*out_pending`; its rows use the encoding of `tickreel_catalog_top`.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for rank 0, or when only one of `world` and
 * `world_version` is given.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `server` must be NULL or a NUL-terminated string.
 * `world` must be NULL or point to 16 readable bytes.
 * `world_version` must be NULL or point to 16 readable bytes.
 * `course` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_catalog_at_rank_on(struct TickreelCatalog *catalog,
                                           const char *server,
                                           const uint8_t *world,
                                           const uint8_t *world_version,
                                           const char *course,
                                           uint32_t rank,
                                           struct TickreelPending **out_pending);

/**
 * Starts looking up, on a board (the server `server`, the network's when NULL; the map version
 * `world` + `world_version`, any when both are NULL; see `tickreel_catalog_top_on`), the ghost of
 * `course`'s run at `rank` (1: the best) or, with `rank` 0, of `player`'s best, and loading it
 * as `tickreel_catalog_load_ghost` does. With `playing_world` + `playing_version` (the map
 * version the ghost is to play on), a run recorded on another version (or on none) fails the
 * lookup with `TICKREEL_RESULT_INVALID_ARGUMENT` and a message naming both versions, unless
 * `allow_other_version`; with both NULL nothing is checked. Stores the pending in
 * `*out_pending`; its result is the ghost (`tickreel_pending_take_ghost`), or that failure.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for rank 0 with a NULL `player`, or when only one
 * UUID of a map version is given.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `server` must be NULL or a NUL-terminated string.
 * `world` must be NULL or point to 16 readable bytes.
 * `world_version` must be NULL or point to 16 readable bytes.
 * `course` must be NULL or a NUL-terminated string (NULL is refused).
 * `player` must be NULL or point to 16 readable bytes.
 * `playing_world` must be NULL or point to 16 readable bytes.
 * `playing_version` must be NULL or point to 16 readable bytes.
 */
TickreelResult tickreel_catalog_load_ghost_on(struct TickreelCatalog *catalog,
                                              const char *server,
                                              const uint8_t *world,
                                              const uint8_t *world_version,
                                              const char *course,
                                              uint32_t rank,
                                              const uint8_t *player,
                                              const uint8_t *playing_world,
                                              const uint8_t *playing_version,
                                              bool allow_other_version,
                                              struct TickreelPending **out_pending);

/**
 * Starts listing the reports of `player` (the reported player's UUID), newest first: filed on
 * the server `server`, or on any server of the network when `server` is NULL. Stores the
 * call's handle in `*out_pending`; its rows use the encoding of `tickreel_catalog_reports`.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `player`.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `player` must be NULL or point to 16 readable bytes.
 * `server` must be NULL or a NUL-terminated string.
 */
TickreelResult tickreel_catalog_reports_of(struct TickreelCatalog *catalog,
                                           const uint8_t *player,
                                           const char *server,
                                           struct TickreelPending **out_pending);

/**
 * Opens the recording at `location`, the location a run's or report's row gives (a path on
 * this machine, or an `s3://` URL read with the `AWS_*` variables), and stores the reader's
 * handle in `*out_reader` (free it with `tickreel_reader_free`). Blocks while the recording's
 * header, metadata and index are read: call it off the server thread.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for an empty location (a report without a
 * recording), `TICKREEL_RESULT_UNSUPPORTED` for an object URL in a library built without
 * object storage, and the reader's codes (`TICKREEL_RESULT_IO`, `TICKREEL_RESULT_CORRUPT`, ...)
 * for a recording that is gone or damaged. On failure `*out_reader` is set to NULL (when it can
 * be written).
 *
 * Thread safety: any thread.
 *
 * # Safety
 * `out_reader` must be NULL or point to writable storage for one `TickreelReader` pointer.
 * `location` must be NULL or a NUL-terminated string (NULL is refused).
 */
TickreelResult tickreel_catalog_open_recording(struct TickreelCatalog *catalog,
                                               const char *location,
                                               struct TickreelReader **out_reader);

/**
 * Registers one run of the finished recording at `location`: a path on this machine or an
 * object URL (`s3://bucket/key`, read with the `AWS_*` variables), as `tickreel_catalog_register`
 * does for a file; the run's row then gives that location. The recording is read from the
 * location itself, so nothing is stored for an object that is not in the bucket: register an
 * upload once it succeeded (`tickreel_catalog_register_upload` waits for it). Stores the call's
 * handle in `*out_pending`; the call's rows are the registered run (rank 0).
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `player`. The call fails with
 * `TICKREEL_RESULT_INVALID_ARGUMENT` for a location that is neither a path nor an `s3://` URL
 * with a bucket and a key (or longer than 4,096 bytes), `TICKREEL_RESULT_UNSUPPORTED` for an
 * object URL in a library built without object storage, and `TICKREEL_RESULT_IO` for a
 * recording that is not there.
 *
 * Thread safety: any thread; never blocks (the call runs on the catalog's worker).
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `location` must be NULL or a NUL-terminated string (NULL is refused).
 * `course` must be NULL or a NUL-terminated string (NULL is refused).
 * `player` must be NULL or point to 16 readable bytes.
 * `player_name` must be NULL or a NUL-terminated string (NULL is refused).
 * `range` must be NULL or point to a readable `TickreelGhostRange`.
 */
TickreelResult tickreel_catalog_register_at(struct TickreelCatalog *catalog,
                                            const char *location,
                                            const char *course,
                                            const uint8_t *player,
                                            const char *player_name,
                                            uint32_t entity,
                                            const struct TickreelGhostRange *range,
                                            struct TickreelPending **out_pending);

/**
 * Registers one run of a recording once its upload succeeded (`upload`, the pending of
 * `tickreel_recorder_finish_upload` or another upload; it stays the caller's to free): as
 * `tickreel_catalog_register_at` with the uploaded object's URL, read back with the upload's
 * object-storage options. A failed finish or upload fails the call and registers nothing (the
 * catalog never points at an object that is not in the bucket). The catalog's worker waits for
 * the upload: calls submitted after this one run after it. Stores the pending in
 * `*out_pending`; its rows are the registered run.
 *
 * Returns `TICKREEL_RESULT_INVALID_ARGUMENT` for a NULL `player` or an `upload` whose result is
 * not an upload.
 *
 * Thread safety: any thread; never blocks.
 *
 * # Safety
 * `out_pending` must be NULL or point to writable storage for one `TickreelPending` pointer.
 * `course` must be NULL or a NUL-terminated string (NULL is refused).
 * `player` must be NULL or point to 16 readable bytes.
 * `player_name` must be NULL or a NUL-terminated string (NULL is refused).
 * `range` must be NULL or point to a readable `TickreelGhostRange`.
 */
TickreelResult tickreel_catalog_register_upload(struct TickreelCatalog *catalog,
                                                struct TickreelPending *upload,
                                                const char *course,
                                                const uint8_t *player,
                                                const char *player_name,
                                                uint32_t entity,
                                                const struct TickreelGhostRange *range,
                                                struct TickreelPending **out_pending);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* TICKREEL_H */
