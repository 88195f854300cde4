//! Issue-3 figures: server-thread cost of `submit_tick` next to a memcpy + queue-push floor, writer
//! capacity and its speed next to raw zstd, compaction throughput and size, a short run's size.

use std::time::{Duration, Instant};

use crossbeam_channel::bounded;
use tickreel::format::event::{Event, encode_batch};
use tickreel::record::{Backpressure, CompactOptions, FlushPolicy, compact};
use tickreel::sim::{SimConfig, Simulator};
use tickreel::storage::live::live_dir_for;
use tickreel::{Engine, EngineOptions, RecorderOptions};

use super::{Figures, put};

/// Batches of `ticks` ticks for a recording of `players` players (one movement event per player
/// per tick, plus the occasional flag change the simulator makes).
fn batches(players: u32, ticks: u32, seed: u64) -> Vec<Vec<u8>> {
    let mut sim = Simulator::new(SimConfig {
        players,
        seed,
        teleport_chance: 0.0,
        ..SimConfig::default()
    });
    sim.step(); // the add events
    (0..ticks)
        .map(|_| {
            let (_, events) = sim.step();
            let moves: Vec<Event> = events
                .into_iter()
                .filter(|e| matches!(e, Event::Pose { .. }))
                .collect();
            let mut b = Vec::new();
            encode_batch(&moves, &mut b).expect("batch");
            b
        })
        .collect()
}

fn big_engine() -> Engine {
    Engine::new(EngineOptions {
        queue_capacity: 1 << 20,
        max_inflight_bytes: 1 << 30,
        ..EngineOptions::default()
    })
    .expect("engine")
}

fn rec_options() -> RecorderOptions {
    RecorderOptions {
        backpressure: Backpressure::Block {
            deadline: Duration::from_secs(10),
        },
        flush: FlushPolicy {
            max_pending_bytes: 4 << 20,
            interval: Duration::from_secs(3600),
            on_player_leave: false,
        },
        ..RecorderOptions::default()
    }
}

/// Queue slots of the engine (and the floor's channel) in the submit measurements: more than one
/// round of submits.
const SUBMIT_QUEUE: usize = 8192;

/// ns per player-tick of `submit_tick` with `recs` recordings of `players` players each, and of
/// the floor (copy the same bytes into a pooled buffer + one bounded-queue push), each the median
/// over rounds of at most 4,000 submits. Measured with the writer held after a warm-up round has
/// filled the buffer pool, so that the figure is the server thread's own cost and not time shared
/// with the writer on this 2-core machine.
/// Ticks are submitted tick-major across recordings (as a server does), so loops index by tick.
#[allow(clippy::needless_range_loop)]
fn submit_cost(recs: u32, players: u32, ticks: u32) -> (f64, f64) {
    let dir = tempfile::tempdir().expect("tempdir");
    // Warm-up: every slot of the queue and the floor's channel used twice, as in a server that
    // has been running for a while (a first touch of each slot's page would otherwise be timed).
    let warm = (2 * SUBMIT_QUEUE as u32).div_ceil(recs);
    let data: Vec<Vec<Vec<u8>>> = (0..recs)
        .map(|r| batches(players, warm + ticks, u64::from(r)))
        .collect();
    let engine = Engine::new(EngineOptions {
        queue_capacity: SUBMIT_QUEUE,
        max_inflight_bytes: 1 << 30,
        ..EngineOptions::default()
    })
    .expect("engine");
    let recorders: Vec<_> = (0..recs)
        .map(|r| {
            engine
                .start_recording(dir.path().join(format!("s{r}.reel")), rec_options())
                .expect("start")
        })
        .collect();
    for t in 0..warm as usize {
        for (r, rec) in recorders.iter().enumerate() {
            rec.submit_tick(t as u32, &data[r][t]).expect("submit");
        }
    }
    let drain = || {
        while engine.stats().inflight_bytes > 0 {
            std::thread::sleep(Duration::from_micros(200));
        }
    };
    drain();
    // The floor's queue and pool, warmed as the engine's were.
    let (tx, rx) = bounded::<Vec<u8>>(SUBMIT_QUEUE);
    let (pool_tx, pool_rx) = bounded::<Vec<u8>>(4096);
    for _ in 0..2 * SUBMIT_QUEUE {
        tx.try_send(Vec::new()).expect("warm");
        rx.try_recv().expect("warm");
    }
    // Rounds no larger than the warmed pool; each submit round is followed by a floor round over
    // the same ticks, both with the writer held, so that both see the same machine.
    let mut submit = Vec::new();
    let mut floor = Vec::new();
    let mut t = warm as usize;
    while t < (warm + ticks) as usize {
        let end = (t + (4000 / recs as usize)).min((warm + ticks) as usize);
        engine.set_writers_stalled(true);
        let start = Instant::now();
        for tt in t..end {
            for (r, rec) in recorders.iter().enumerate() {
                rec.submit_tick(tt as u32, &data[r][tt]).expect("submit");
            }
        }
        submit.push(per_player_tick(
            start.elapsed(),
            (end - t) * data.len(),
            players,
        ));
        while let Ok(b) = rx.try_recv() {
            let _ = pool_tx.try_send(b);
        }
        for _ in pool_rx.len()..4000 {
            let _ = pool_tx.try_send(Vec::with_capacity(4096));
        }
        let start = Instant::now();
        for tt in t..end {
            for d in &data {
                let mut b = pool_rx.try_recv().unwrap_or_default();
                b.clear();
                b.extend_from_slice(&d[tt]);
                tx.try_send(b).expect("send");
            }
        }
        floor.push(per_player_tick(
            start.elapsed(),
            (end - t) * data.len(),
            players,
        ));
        engine.set_writers_stalled(false);
        drain();
        t = end;
    }
    for r in &recorders {
        r.abort().expect("abort");
    }
    engine.shutdown();
    (median(submit), median(floor))
}

/// ns per player-tick of one timed round of `batches` submits of `players` players each.
fn per_player_tick(d: Duration, batches: usize, players: u32) -> f64 {
    d.as_nanos() as f64 / (batches as f64 * f64::from(players))
}

/// Median of per-round figures: a round hit by one of this machine's stalls (see BENCHMARKS.md,
/// Machine) does not decide the figure.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The writer's encoding work alone (batch decode, chunking, prediction coding, zstd) next to raw
/// zstd level 3 of the same batch bytes per 100-tick chunk, interleaved, median of 5 rounds.
fn encode_vs_zstd(batches: &[Vec<u8>]) -> f64 {
    use tickreel::format::event::decode_batch_into;
    use tickreel::record::{ChunkPolicy, Chunker};
    let mut ratios = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        let mut ch = Chunker::new(ChunkPolicy::default(), None).expect("chunker");
        let mut events = Vec::new();
        for (t, b) in batches.iter().enumerate() {
            decode_batch_into(b, &mut events).expect("batch");
            ch.push_tick(t as u32, &events).expect("tick");
        }
        ch.finish_chunk().expect("chunk");
        let ours = start.elapsed().as_secs_f64();
        let start = Instant::now();
        for c in batches.chunks(100) {
            zstd::bulk::compress(&c.concat(), 3).expect("zstd");
        }
        ratios.push(start.elapsed().as_secs_f64() / ours);
    }
    ratios.sort_by(f64::total_cmp);
    ratios[2]
}

/// One writer round: every batch of `data` (per recording, per tick) queued while the writer is
/// held, then the writer released and timed until every tick is decoded, chunked and compressed
/// (before the final fsyncs, which measure the disk rather than the writer). Returns the seconds
/// and the segment bytes written.
fn writer_round(dir: &std::path::Path, data: &[Vec<Vec<u8>>]) -> (f64, u64) {
    std::fs::create_dir_all(dir).expect("dir");
    let engine = big_engine();
    let recorders: Vec<_> = (0..data.len())
        .map(|r| {
            engine
                .start_recording(dir.join(format!("w{r}.reel")), rec_options())
                .expect("start")
        })
        .collect();
    engine.set_writers_stalled(true);
    #[allow(clippy::needless_range_loop)]
    for t in 0..data[0].len() {
        for (r, rec) in recorders.iter().enumerate() {
            rec.submit_tick(t as u32, &data[r][t]).expect("submit");
        }
    }
    let start = Instant::now();
    engine.set_writers_stalled(false);
    while engine.stats().inflight_bytes > 0 {
        std::thread::sleep(Duration::from_micros(200));
    }
    let writer = start.elapsed().as_secs_f64();
    for r in &recorders {
        r.flush().expect("flush");
    }
    let bytes = recorders.iter().map(|r| r.stats().bytes_written).sum();
    for r in &recorders {
        r.abort().expect("abort");
    }
    drop(recorders);
    engine.shutdown();
    (writer, bytes)
}

pub fn run(quick: bool, out: &mut Figures) {
    let ticks = if quick { 400 } else { 2000 };
    // Headline: 10 recordings of 10 players (a server of 100 players in 10 instances).
    let (submit, floor) = submit_cost(10, 10, ticks);
    put(out, "submit_ns_per_player_tick", submit);
    put(out, "submit_floor_ns_per_player_tick", floor);
    put(out, "submit_vs_floor_ratio", submit / floor);
    let (s1, f1) = submit_cost(100, 1, ticks / 2);
    put(out, "submit_ns_per_player_tick_1_player_recordings", s1);
    put(
        out,
        "submit_floor_ns_per_player_tick_1_player_recordings",
        f1,
    );
    let (s100, f100) = submit_cost(1, 100, ticks);
    put(out, "submit_ns_per_player_tick_100_player_recording", s100);
    put(
        out,
        "submit_floor_ns_per_player_tick_100_player_recording",
        f100,
    );

    // Writer capacity: queue everything while the writer is held, then time the writer alone;
    // next to raw zstd of the same bytes timed right after, median over rounds.
    let dir = tempfile::tempdir().expect("tempdir");
    let (recs, players, wticks, rounds) = if quick {
        (10, 100, 200, 3)
    } else {
        (20, 100, 600, 5)
    };
    let data: Vec<Vec<Vec<u8>>> = (0..recs)
        .map(|r| batches(players, wticks, 100 + u64::from(r)))
        .collect();
    let input_bytes: usize = data.iter().flatten().map(Vec::len).sum();
    let player_ticks = f64::from(recs * players * wticks);
    let mut speeds = Vec::new();
    let mut ratios = Vec::new();
    let mut zsize = 0usize;
    let mut seg_bytes = 0u64;
    for round in 0..rounds {
        let (writer, bytes) = writer_round(&dir.path().join(format!("r{round}")), &data);
        seg_bytes = bytes;
        // Raw zstd (level 3, the live level) over the same uncompressed batch bytes, per 100-tick
        // chunk of each recording.
        let start = Instant::now();
        zsize = 0;
        for d in &data {
            for chunk in d.chunks(100) {
                let joined: Vec<u8> = chunk.concat();
                zsize += zstd::bulk::compress(&joined, 3).expect("zstd").len();
            }
        }
        let zstd_s = start.elapsed().as_secs_f64();
        speeds.push(player_ticks / writer);
        ratios.push((input_bytes as f64 / writer) / (input_bytes as f64 / zstd_s));
    }
    let speed = median(speeds);
    put(out, "writer_player_ticks_per_s", speed);
    put(out, "writer_players_at_20tps", speed / 20.0);
    put(out, "writer_vs_zstd_ratio", median(ratios));
    put(out, "writer_encode_vs_zstd_ratio", encode_vs_zstd(&data[0]));
    // 1 when the predictor costing ran its AVX-512 copy (0: portable loop, e.g. TICKREEL_PORTABLE=1)
    put(
        out,
        "writer_avx512",
        f64::from(u8::from(tickreel::format::movement::avx512())),
    );
    put(
        out,
        "zstd_only_vs_writer_size_ratio",
        zsize as f64 / seg_bytes as f64,
    );

    // Compaction of one live recording of 100 players (5 minutes; 1 in quick mode).
    let engine = big_engine();
    let cpath = dir.path().join("c.reel");
    let rec = engine
        .start_recording(&cpath, rec_options())
        .expect("start");
    let cticks = if quick { 1200 } else { 6000 };
    for (t, b) in batches(100, cticks, 7).iter().enumerate() {
        rec.submit_tick(t as u32, b).expect("submit");
    }
    rec.flush().expect("flush");
    let seg0 = rec.stats().bytes_written;
    drop(rec);
    engine.shutdown();
    let reader = tickreel::play::Reader::open_live(live_dir_for(&cpath)).expect("live");
    let start = Instant::now();
    let rep = compact(
        &reader,
        &dir.path().join("compacted.reel"),
        CompactOptions::default(),
        &mut |_, _| {},
    )
    .expect("compact");
    let secs = start.elapsed().as_secs_f64();
    put(out, "compaction_mb_per_s", seg0 as f64 / secs / 1e6);
    put(
        out,
        "compacted_vs_segments_ratio",
        rep.bytes_out as f64 / seg0 as f64,
    );

    // A 3-second one-player run through the engine.
    let engine = Engine::new(EngineOptions::default()).expect("engine");
    let path = dir.path().join("short.reel");
    let rec = engine
        .start_recording(&path, RecorderOptions::default())
        .expect("start");
    let mut sim = Simulator::new(SimConfig {
        players: 1,
        ..SimConfig::default()
    });
    for _ in 0..60 {
        let (t, e) = sim.step();
        let mut b = Vec::new();
        encode_batch(&e, &mut b).expect("batch");
        rec.submit_tick(t, &b).expect("submit");
    }
    let p = rec.finish().expect("finish").wait().expect("compacted");
    put(
        out,
        "short_run_bytes",
        std::fs::metadata(p).expect("size").len() as f64,
    );
    engine.shutdown();
}
