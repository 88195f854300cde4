//! A synthetic game server: players walking, sprinting, sneaking, jumping and turning with
//! human-like noise at 20 ticks/s, with Minecraft's movement physics (ground friction 0.546,
//! air drag 0.91, gravity 0.08 with drag 0.98, jump impulse 0.42). The view turns by several
//! degrees a tick with occasional fast flicks, and speed changes constantly: it is no smoother
//! than real play. Deterministic for a given seed. See BENCHMARKS.md for the model.

pub mod blocks;
pub mod realistic;
pub mod terrain;
pub mod world;

use tickreel::format::{Event, flag};
use tickreel::format::{Pose, quantise_angle, quantise_pos};

/// One simulated player.
#[derive(Debug, Clone)]
struct Player {
    id: u32,
    x: f64,
    y: f64,
    z: f64,
    vx: f64,
    vy: f64,
    vz: f64,
    yaw: f64,
    yaw_rate: f64,
    pitch: f64,
    strafe: f64,
    mode: Mode,
    on_ground: bool,
    flags: u32,
    flick: u32,
    flick_rate: f64,
    present: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Idle,
    Walk,
    Sprint,
    Sneak,
}

/// Settings of the simulated server.
#[derive(Debug, Clone, Copy)]
pub struct SimConfig {
    pub players: u32,
    pub seed: u64,
    /// Chance per player per tick of a teleport (a discontinuity).
    pub teleport_chance: f64,
    /// Chance per player per tick of leaving (and a new player joining in its place).
    pub churn_chance: f64,
    /// Emit a custom "block change" event with this chance per player per tick.
    pub custom_event_chance: f64,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            players: 10,
            seed: 42,
            teleport_chance: 0.0005,
            churn_chance: 0.0,
            custom_event_chance: 0.0,
        }
    }
}

/// Generates ticks of events.
#[derive(Debug, Clone)]
pub struct Simulator {
    cfg: SimConfig,
    rng: fastrand::Rng,
    players: Vec<Player>,
    tick: u32,
    next_id: u32,
}

/// Ground height of the simulated world.
const GROUND: f64 = 64.0;

impl Simulator {
    pub fn new(cfg: SimConfig) -> Simulator {
        let mut s = Simulator {
            cfg,
            rng: fastrand::Rng::with_seed(cfg.seed),
            players: Vec::new(),
            tick: 0,
            next_id: 1,
        };
        for _ in 0..cfg.players {
            let p = s.spawn();
            s.players.push(p);
        }
        s
    }

    fn spawn(&mut self) -> Player {
        let id = self.next_id;
        self.next_id += 1;
        let r = &mut self.rng;
        Player {
            id,
            x: r.f64() * 2000.0 - 1000.0,
            y: GROUND,
            z: r.f64() * 2000.0 - 1000.0,
            vx: 0.0,
            vy: 0.0,
            vz: 0.0,
            yaw: r.f64() * 360.0 - 180.0,
            yaw_rate: 0.0,
            pitch: r.f64() * 30.0 - 10.0,
            strafe: 0.0,
            mode: Mode::Walk,
            on_ground: true,
            flags: flag::ON_GROUND,
            flick: 0,
            flick_rate: 0.0,
            present: false,
        }
    }

    /// Gaussian noise (Box-Muller).
    fn gauss(rng: &mut fastrand::Rng) -> f64 {
        let u1 = rng.f64().max(1e-12);
        let u2 = rng.f64();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// The tick number the next call to [`Simulator::step`] produces.
    pub fn tick(&self) -> u32 {
        self.tick
    }

    /// Advances one tick and returns its events.
    pub fn step(&mut self) -> (u32, Vec<Event>) {
        let mut events = Vec::with_capacity(self.players.len() * 2);
        let cfg = self.cfg;
        let mut replace = Vec::new();
        for i in 0..self.players.len() {
            let rng = &mut self.rng;
            let p = &mut self.players[i];
            if !p.present {
                p.present = true;
                events.push(Event::EntityAdd {
                    entity: p.id,
                    kind: 147,
                    pose: pose_of(p),
                });
                events.push(Event::Flags {
                    entity: p.id,
                    flags: p.flags,
                });
                continue;
            }
            if cfg.churn_chance > 0.0 && rng.f64() < cfg.churn_chance {
                events.push(Event::PlayerLeave { entity: p.id });
                replace.push(i);
                continue;
            }
            // Mode changes: constant small changes of intent.
            if rng.f64() < 0.015 {
                p.mode = match rng.u32(0..10) {
                    0 => Mode::Idle,
                    1 => Mode::Sneak,
                    2..=5 => Mode::Walk,
                    _ => Mode::Sprint,
                };
            }
            // View: a damped random turn rate of several degrees a tick, plus flicks.
            if p.flick == 0 && rng.f64() < 0.01 {
                p.flick = rng.u32(2..6);
                p.flick_rate = (rng.f64() * 30.0 + 10.0) * if rng.bool() { 1.0 } else { -1.0 };
            }
            let flick = if p.flick > 0 {
                p.flick -= 1;
                p.flick_rate
            } else {
                0.0
            };
            p.yaw_rate = p.yaw_rate * 0.7 + Self::gauss(rng) * 3.0;
            p.yaw += p.yaw_rate + flick;
            p.pitch = (p.pitch * 0.97 + 0.3 + Self::gauss(rng) * 1.5).clamp(-90.0, 90.0);
            p.strafe = (p.strafe * 0.9 + Self::gauss(rng) * 0.15).clamp(-1.0, 1.0);
            // Movement input along the view direction, with strafing.
            let speed = match p.mode {
                Mode::Idle => 0.0,
                Mode::Sneak => 0.3,
                Mode::Walk => 1.0,
                Mode::Sprint => 1.3,
            };
            let accel = if p.on_ground { 0.1 } else { 0.02 } * speed;
            let yaw_rad = p.yaw.to_radians();
            let (fx, fz) = (-yaw_rad.sin(), yaw_rad.cos());
            let (sx, sz) = (fz, -fx);
            p.vx += accel * (fx + sx * p.strafe * 0.5);
            p.vz += accel * (fz + sz * p.strafe * 0.5);
            // Jumps: often while sprinting, sometimes while walking.
            let jump_chance = match p.mode {
                Mode::Sprint => 0.06,
                Mode::Walk => 0.02,
                _ => 0.002,
            };
            if p.on_ground && rng.f64() < jump_chance {
                p.vy = 0.42;
                p.on_ground = false;
                if p.mode == Mode::Sprint {
                    p.vx += -yaw_rad.sin() * 0.2;
                    p.vz += yaw_rad.cos() * 0.2;
                }
            }
            p.x += p.vx;
            p.z += p.vz;
            if !p.on_ground {
                p.y += p.vy;
                p.vy = (p.vy - 0.08) * 0.98;
                if p.y <= GROUND {
                    p.y = GROUND;
                    p.vy = 0.0;
                    p.on_ground = true;
                }
            }
            let drag = if p.on_ground { 0.546 } else { 0.91 };
            p.vx *= drag;
            p.vz *= drag;
            let mut flags = 0;
            if p.on_ground {
                flags |= flag::ON_GROUND;
            }
            match p.mode {
                Mode::Sneak => flags |= flag::SNEAKING,
                Mode::Sprint => flags |= flag::SPRINTING,
                _ => {}
            }
            if cfg.teleport_chance > 0.0 && rng.f64() < cfg.teleport_chance {
                p.x += rng.f64() * 200.0 - 100.0;
                p.z += rng.f64() * 200.0 - 100.0;
                p.vx = 0.0;
                p.vz = 0.0;
                events.push(Event::Teleport {
                    entity: p.id,
                    pose: pose_of(p),
                });
            } else {
                events.push(Event::Pose {
                    entity: p.id,
                    pose: pose_of(p),
                });
            }
            if flags != p.flags {
                p.flags = flags;
                events.push(Event::Flags {
                    entity: p.id,
                    flags,
                });
            }
            if cfg.custom_event_chance > 0.0 && rng.f64() < cfg.custom_event_chance {
                let bx = p.x.floor() as i32;
                let bz = p.z.floor() as i32;
                let mut data = Vec::with_capacity(12);
                data.extend_from_slice(&bx.to_be_bytes());
                data.extend_from_slice(&(GROUND as i32 - 1).to_be_bytes());
                data.extend_from_slice(&bz.to_be_bytes());
                events.push(Event::Custom { type_id: 1, data });
            }
        }
        for i in replace {
            let p = self.spawn();
            self.players[i] = p;
        }
        let t = self.tick;
        self.tick += 1;
        (t, events)
    }
}

fn pose_of(p: &Player) -> Pose {
    Pose {
        x: quantise_pos(p.x),
        y: quantise_pos(p.y),
        z: quantise_pos(p.z),
        yaw: quantise_angle(p.yaw),
        pitch: quantise_angle(p.pitch),
    }
}
