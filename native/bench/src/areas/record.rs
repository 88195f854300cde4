//! Issue-3 figures: server-thread cost of `submit_tick` next to a memcpy + queue-push floor, writer
//! capacity and its speed next to raw zstd, compaction throughput and size, a short run's size.

use std::time::{Duration, Instant};

use crossbeam_channel::bounded;
use tickreel::format::{Event, encode_batch};
use tickreel::record::{CompactOptions, compact};
use tickreel::storage::live::live_dir_for;
use tickreel::{Engine, EngineOptions, RecorderOptions};
use tickreel_sim::{SimConfig, Simulator};

use super::shared::{big_engine, blocking_recorder_options, median};
use super::{Figures, put};

/// Batches of `ticks` ticks for a recording of `players` players (one movement event per player
/// per tick, plus the occasional flag change the simulator makes).
pub(super) fn batches(players: u32, ticks: u32, seed: u64) -> Vec<Vec<u8>> {
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

/// Queue slots of the engine (and the floor's channel) in the submit measurements: more than one
/// round of submits.
const SUBMIT_QUEUE: usize = 8192;

/// ns per player-tick of `submit_tick` with `recs` recordings of `players` players each, and of
/// the floor ([`FloorQueue`]: copy the same bytes into a pooled buffer + one bounded-queue push),
/// each the median over rounds of about 1,000 submits, and the median of the per-round ratios
/// (each submit round is paired with a floor round over the same ticks). Measured with the writer
/// held after a warm-up has filled the buffer pool, so that the figure is the server thread's own
/// cost and not time shared with the writer on this 2-core machine.
/// Ticks are submitted tick-major across recordings (as a server does), so loops index by tick.
#[allow(clippy::needless_range_loop)]
fn submit_cost(recs: u32, players: u32, ticks: u32) -> (f64, f64, f64) {
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
                .start_recording(
                    dir.path().join(format!("s{r}.reel")),
                    blocking_recorder_options(),
                )
                .expect("start")
        })
        .collect();
    let floor_q = FloorQueue::new();
    let round = (1000 / recs as usize).max(1);
    for t in (0..warm as usize).step_by(round) {
        let end = (t + round).min(warm as usize);
        for tt in t..end {
            for (r, rec) in recorders.iter().enumerate() {
                rec.submit_tick(tt as u32, &data[r][tt]).expect("submit");
                floor_q.push(&data[r][tt]);
            }
        }
        floor_q.drain();
    }
    let drain = || {
        while engine.stats().inflight_bytes > 0 || engine.stats().queue_depth > 0 {
            std::thread::sleep(Duration::from_micros(200));
        }
    };
    drain();
    // Submits and the floor are timed tick by tick, interleaved (the order alternating per tick),
    // so that both see the same machine at the same moment: the same CPU frequency, the same
    // cache state after the consumers last ran, the same interruptions. The round's tick batches
    // are read first, as a server has just built them, so neither pays for bringing the source
    // bytes into the cache. The cost of reading the clock is measured and taken off each span.
    let clock = clock_cost();
    let span = |start: Instant| start.elapsed().saturating_sub(clock);
    let mut submit = Vec::new();
    let mut floor = Vec::new();
    let mut t = warm as usize;
    while t < (warm + ticks) as usize {
        let end = (t + round).min((warm + ticks) as usize);
        let touched = data
            .iter()
            .flat_map(|d| &d[t..end])
            .fold(0u8, |a, b| a ^ b.iter().fold(0u8, |x, &y| x ^ y));
        std::hint::black_box(touched);
        engine.set_writers_stalled(true);
        let (mut s, mut f) = (Duration::ZERO, Duration::ZERO);
        for tt in t..end {
            let timed_submit = || {
                let start = Instant::now();
                for (r, rec) in recorders.iter().enumerate() {
                    rec.submit_tick(tt as u32, &data[r][tt]).expect("submit");
                }
                span(start)
            };
            let timed_floor = || {
                let start = Instant::now();
                for d in &data {
                    floor_q.push(&d[tt]);
                }
                span(start)
            };
            if tt % 2 == 0 {
                s += timed_submit();
                f += timed_floor();
            } else {
                f += timed_floor();
                s += timed_submit();
            }
        }
        submit.push(per_player_tick(s, (end - t) * data.len(), players));
        floor.push(per_player_tick(f, (end - t) * data.len(), players));
        engine.set_writers_stalled(false);
        floor_q.drain();
        drain();
        t = end;
    }
    for r in &recorders {
        r.abort().expect("abort");
    }
    engine.shutdown();
    let ratios = submit.iter().zip(&floor).map(|(s, f)| s / f).collect();
    (median(submit), median(floor), median(ratios))
}

/// The floor: the least a hand-over to a writer thread costs. The caller copies the bytes into a
/// pooled buffer (a stack, most recently returned first, as the engine's pool) and pushes it onto
/// a bounded queue; a consumer thread, held while a round is
/// timed (as the engine's writer is), takes the buffers off, reads them and returns them to the
/// pool. So the queue slots and buffers travel between cores as the engine's do.
struct FloorQueue {
    tx: crossbeam_channel::Sender<Vec<u8>>,
    pool: std::sync::Arc<parking_lot::Mutex<Vec<Vec<u8>>>>,
    go: crossbeam_channel::Sender<()>,
    done: crossbeam_channel::Receiver<()>,
    consumer: Option<std::thread::JoinHandle<()>>,
}

impl FloorQueue {
    fn new() -> FloorQueue {
        let (tx, rx) = bounded::<Vec<u8>>(SUBMIT_QUEUE);
        let pool = std::sync::Arc::new(parking_lot::Mutex::new(Vec::with_capacity(4096)));
        let returned = pool.clone();
        let (go, go_rx) = bounded::<()>(0);
        let (done_tx, done) = bounded::<()>(0);
        let consumer = std::thread::spawn(move || {
            while go_rx.recv().is_ok() {
                while let Ok(b) = rx.try_recv() {
                    // read the bytes, as any consumer does
                    std::hint::black_box(b.iter().fold(0u8, |a, &x| a ^ x));
                    let mut p = returned.lock();
                    if p.len() < 4096 {
                        p.push(b);
                    }
                }
                let _ = done_tx.send(());
            }
        });
        FloorQueue {
            tx,
            pool,
            go,
            done,
            consumer: Some(consumer),
        }
    }

    #[inline]
    fn push(&self, bytes: &[u8]) {
        let mut b = self.pool.lock().pop().unwrap_or_default();
        b.clear();
        b.extend_from_slice(bytes);
        self.tx.try_send(b).expect("floor queue has room");
    }

    /// Lets the consumer empty the queue, and waits until it has.
    fn drain(&self) {
        self.go.send(()).expect("consumer");
        self.done.recv().expect("consumer");
    }
}

impl Drop for FloorQueue {
    fn drop(&mut self) {
        let (go, _) = bounded(0);
        drop(std::mem::replace(&mut self.go, go));
        if let Some(c) = self.consumer.take() {
            c.join().expect("consumer");
        }
    }
}

/// ns per player-tick of one timed round of `batches` submits of `players` players each.
fn per_player_tick(d: Duration, batches: usize, players: u32) -> f64 {
    d.as_nanos() as f64 / (batches as f64 * f64::from(players))
}

/// The median cost of reading the clock (`Instant::now` then `elapsed`).
fn clock_cost() -> Duration {
    let mut v: Vec<Duration> = (0..1001)
        .map(|_| {
            let start = Instant::now();
            start.elapsed()
        })
        .collect();
    v.sort();
    v[v.len() / 2]
}

/// The writer's encoding work alone (batch decode, chunking, prediction coding, zstd) next to raw
/// zstd level 3 of the same batch bytes per 100-tick chunk, interleaved, median of 5 rounds.
fn encode_vs_zstd(batches: &[Vec<u8>]) -> f64 {
    use tickreel::format::decode_batch_into;
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

/// The writer serving 200 recordings of 100 players submitted in real time at 20 ticks/s, with
/// `RecorderOptions::default()` (flush every 5 s or 256 KiB, zstd 3). The recordings start one by
/// one over the first 5 s, so their time flushes are spread as on a running server; over the next
/// 5 s every recording flushes once, as in any 5 s of a steady state. Returns the share of those
/// 5 s the writer thread was busy (not waiting for work; fsyncs count as busy) and the players it
/// would serve at 100 % (20,000 / share).
fn writer_sustained(dir: &std::path::Path) -> (f64, f64) {
    const RECS: u32 = 200;
    const PLAYERS: u32 = 100;
    const FRAMES: u32 = 200; // 10 s of 50 ms ticks
    const RAMP: u32 = 100; // recording r starts at frame r / 2
    std::fs::create_dir_all(dir).expect("dir");
    // Ten distinct recordings' batches, each used by 20 recordings (chunks compress on their own).
    let data: Vec<Vec<Vec<u8>>> = (0..10u64)
        .map(|r| batches(PLAYERS, FRAMES, 500 + r))
        .collect();
    let engine = Engine::new(EngineOptions::default()).expect("engine");
    let mut recorders = Vec::new();
    let period = Duration::from_millis(50);
    let start = Instant::now();
    let mut window: Option<(Instant, u64)> = None;
    for f in 0..FRAMES {
        while recorders.len() < RECS as usize && recorders.len() as u32 <= f * RECS / RAMP {
            let r = recorders.len();
            let path = dir.join(format!("s{r}.reel"));
            let rec = engine
                .start_recording(path, RecorderOptions::default())
                .expect("start");
            recorders.push((rec, f));
        }
        if f == RAMP {
            window = Some((Instant::now(), engine.stats().writer_idle_us));
        }
        for (r, (rec, first)) in recorders.iter().enumerate() {
            let t = f - first;
            rec.submit_tick(t, &data[r % data.len()][t as usize])
                .expect("submit");
        }
        let next = start + period * (f + 1);
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    // The idle time is published every 20 ms: read it after one more publication.
    std::thread::sleep(Duration::from_millis(30));
    let (from, idle0) = window.expect("window");
    let wall = from.elapsed().as_secs_f64();
    let idle = (engine.stats().writer_idle_us - idle0) as f64 / 1e6;
    let busy = ((wall - idle) / wall).clamp(1e-6, 1.0);
    for (r, _) in &recorders {
        r.abort().expect("abort");
    }
    drop(recorders);
    engine.shutdown();
    (busy, f64::from(RECS * PLAYERS) / busy)
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
                .start_recording(dir.join(format!("w{r}.reel")), blocking_recorder_options())
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
    while engine.stats().inflight_bytes > 0 || engine.stats().queue_depth > 0 {
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
    // The submit figures take a few seconds: `--quick` measures them as the full run does. With
    // its 400 ticks the 10 x 10 figure was the median of four rounds, and three quick runs of the
    // same binary gave 0.9 to 4.4.
    let ticks = 2000;
    // Headline: 10 recordings of 10 players (a server of 100 players in 10 instances).
    let (submit, floor, ratio) = submit_cost(10, 10, ticks);
    put(out, "submit_ns_per_player_tick", submit);
    put(out, "submit_floor_ns_per_player_tick", floor);
    put(out, "submit_vs_floor_ratio", ratio);
    let (s1, f1, ratio1) = submit_cost(100, 1, ticks / 2);
    put(out, "submit_ns_per_player_tick_1_player_recordings", s1);
    put(
        out,
        "submit_floor_ns_per_player_tick_1_player_recordings",
        f1,
    );
    // As `submit_vs_floor_ratio`: the median of the per-round ratios.
    put(out, "submit_vs_floor_ratio_1_player_recordings", ratio1);
    let (s100, f100, _) = submit_cost(1, 100, ticks);
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
        (20, 100, 600, 9)
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
        f64::from(u8::from(tickreel::format::wire::avx512())),
    );
    put(
        out,
        "zstd_only_vs_writer_size_ratio",
        zsize as f64 / seg_bytes as f64,
    );

    // Sustained: 20,000 players in real time with the default flush policy, fsyncs included.
    let (busy, sustained) = writer_sustained(&dir.path().join("sustained"));
    put(out, "writer_busy_at_20000_players", busy);
    put(out, "writer_players_at_20tps_sustained", sustained);

    // Compaction of one live recording of 100 players (5 minutes; 1 in quick mode).
    let engine = big_engine();
    let cpath = dir.path().join("c.reel");
    let rec = engine
        .start_recording(&cpath, blocking_recorder_options())
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
