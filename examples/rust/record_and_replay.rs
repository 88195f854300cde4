//! Records a one-player run through the engine, then seeks in it and plays it back.
//! `cargo run --example record_and_replay`

use tickreel::format::{Event, encode_batch};
use tickreel::play::Reader;
use tickreel::{Engine, EngineOptions, Pose, RecorderOptions};

fn main() -> tickreel::Result<()> {
    let dir = std::env::temp_dir().join(format!("tickreel-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("run.reel");

    let engine = Engine::new(EngineOptions::default())?;
    let rec = engine.start_recording(&path, RecorderOptions::default())?;
    let mut batch = Vec::new();
    for tick in 0..60u32 {
        let pose = Pose::from_f64(10.0 + f64::from(tick) * 0.2, 64.0, 5.0, 90.0, 0.0);
        let events = if tick == 0 {
            vec![Event::EntityAdd {
                entity: 1,
                kind: 0,
                pose,
            }]
        } else {
            vec![Event::Pose { entity: 1, pose }]
        };
        batch.clear();
        encode_batch(&events, &mut batch)?;
        rec.submit_tick(tick, &batch)?;
    }
    let file = rec.finish()?.wait()?;
    println!(
        "recorded {} ({} bytes)",
        file.display(),
        std::fs::metadata(&file)?.len()
    );

    let r = Reader::open_any(&file)?;
    let state = r.seek(30)?;
    let p = state.entities.get(1).expect("entity 1").pose;
    println!(
        "tick 30: x={:.3} y={:.3} z={:.3}",
        p.x_f64(),
        p.y_f64(),
        p.z_f64()
    );
    let ticks = r.ticks(0, 59).count();
    println!("{ticks} ticks played back; verify: {:?}", r.verify()?);
    std::fs::remove_dir_all(&dir)?;
    engine.shutdown();
    Ok(())
}
