//! How the realistic world's entities move and when their pose is sent, as measured on real
//! survival-server recordings (issue 49; `super::movement_stats`, the figures in
//! `movement_stats::REAL_PLAYERS` and `REAL_ALL`):
//!
//! - **Players**: the client sends a pose every 2 ticks while moving (1 tick now and then, nothing
//!   while standing); they sprint and sprint-jump more than they walk, climb and drop with the
//!   ground, and now and then travel fast (elytra, boats on ice: 1.5-4.5 blocks a tick). The head
//!   is still in about 4 samples of 10 and turns in bursts, by a few degrees with a long tail of
//!   flicks (median about 8 degrees, 90th percentile about 50). Angles come at the client's full
//!   precision, and coordinates lie anywhere from spawn to millions of blocks out.
//! - **Mobs** are sent every 3 ticks while they walk (the server's tracking interval), dropped
//!   items and projectiles every tick while they fly, and every entity again 60 ticks after its
//!   last pose even if nothing changed (the server's periodic resynchronisation): a fifth of real
//!   samples carry nothing new.
//! - **Lifetimes** are short: a moving player loads and unloads chunks, items are picked up,
//!   arrows land (real median about 140 ticks).

use super::{Entity, RealisticSim, Role};

/// Per entity: what its movement needs besides [`Entity`].
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Motion {
    /// Vertical velocity (blocks a tick) while in the air.
    vy: f64,
    /// Height of the ground under it.
    ground: f64,
    /// Whether the head turns this stretch (players).
    turning: bool,
    /// Ticks of fast travel left (players).
    travel: u32,
    /// Horizontal velocity of a flying item or projectile.
    vx: f64,
    vz: f64,
    /// Ticks since its pose was last sent (the 60-tick resynchronisation).
    since_sent: u32,
    /// Ticks between the server's poses of a walking mob (1 for 4 in 10, else 3).
    interval: u32,
}

/// Ticks after which the server sends an entity's pose again, changed or not.
pub(super) const RESYNC_TICKS: u32 = 60;

/// A log-uniform draw in `[lo, hi)`.
fn log_uniform(r: &mut fastrand::Rng, lo: f64, hi: f64) -> f64 {
    (lo.ln() + r.f64() * (hi.ln() - lo.ln())).exp()
}

/// A standard normal draw (Box-Muller).
fn normal(r: &mut fastrand::Rng) -> f64 {
    let (u, v) = (r.f64().max(1e-12), r.f64());
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

impl RealisticSim {
    /// Lifetime of a new entity of `role` (ticks until it unloads, is picked up or lands).
    pub(super) fn lifetime(&mut self, role: Role) -> u32 {
        let r = &mut self.rng;
        match role {
            Role::Player => u32::MAX,
            Role::Mob => log_uniform(r, 30.0, 2000.0) as u32,
            Role::Idle { .. } => log_uniform(r, 200.0, 12_000.0) as u32,
            Role::Item { .. } => log_uniform(r, 20.0, 600.0) as u32,
            Role::Projectile => r.u32(8..60),
        }
    }

    /// Where a player starts: the first near spawn, the others far out (an old base, a trip:
    /// 1 to 5 million blocks), as on a real server.
    pub(super) fn start_position(&mut self, player: usize) -> (f64, f64) {
        let r = &mut self.rng;
        let (x, z) = (r.f64() * 600.0 - 300.0, r.f64() * 600.0 - 300.0);
        if player == 0 {
            return (x, z);
        }
        let d = 1_000_000.0 + r.f64() * 4_000_000.0;
        let a = r.f64() * std::f64::consts::TAU;
        (x + d * a.cos(), z + d * a.sin())
    }

    /// A player's tick: whether its client sends a pose.
    pub(super) fn move_player(&mut self, e: &mut Entity) -> bool {
        let m = self.motion.entry(e.id).or_insert(Motion {
            ground: e.y,
            ..Motion::default()
        });
        let r = &mut self.rng;
        if e.left == 0 {
            // long stretches of moving, shorter ones of standing
            e.moving = r.u32(0..100) < 85;
            e.left = if e.moving {
                r.u32(60..1200)
            } else {
                r.u32(20..400)
            };
            e.heading += normal(r) * 0.8;
            if e.moving && m.travel == 0 && r.u32(0..100) < 6 {
                m.travel = r.u32(100..500);
            }
        }
        // the head turns in bursts
        if r.u32(0..100) < 12 {
            m.turning = r.u32(0..100) < 55;
        }
        if !e.moving {
            // looking around while standing, now and then
            if r.u32(0..100) < 3 {
                e.yaw += normal(r) * 25.0;
                e.pitch = (e.pitch + normal(r) * 8.0).clamp(-90.0, 90.0);
                return true;
            }
            return false;
        }
        let speed = if m.travel > 0 {
            m.travel -= 1;
            // elytra, boats on ice
            1.5 + r.f64() * 3.0
        } else if r.u32(0..100) < 30 {
            0.2 + r.f64() * 0.03 // walking
        } else {
            0.26 + r.f64() * 0.12 // sprinting, sprint-jumping
        };
        e.heading += normal(r) * 0.04;
        e.x += e.heading.cos() * speed;
        e.z += e.heading.sin() * speed;
        // the ground rises and falls; sprinters jump
        if e.y <= m.ground {
            if r.u32(0..100) < 6 {
                m.ground += [-1.0, -0.5, 0.5, 1.0][r.usize(0..4)];
            }
            if speed > 0.26 && r.u32(0..100) < 10 {
                m.vy = 0.42;
            }
        }
        e.y += m.vy;
        m.vy = (m.vy - 0.08) * 0.98;
        if e.y <= m.ground {
            e.y = m.ground;
            m.vy = 0.0;
        }
        if m.turning {
            // mostly small, with a long tail of flicks
            let turn = (1.45 + 1.4 * normal(r)).exp().min(170.0);
            let share = r.f64() * 0.4;
            let sign = |r: &mut fastrand::Rng| if r.bool() { 1.0 } else { -1.0 };
            e.yaw += turn * (1.0 - share) * sign(r);
            e.pitch = (e.pitch + turn * share * sign(r)).clamp(-90.0, 90.0);
        }
        if e.next_send == 0 {
            e.next_send = match r.u32(0..100) {
                0..=10 => 1,
                11..=97 => 2,
                _ => r.u32(3..6),
            };
            return true;
        }
        false
    }

    /// A mob's tick: whether the server sends its pose (every tick or every 3 ticks while it
    /// walks, swims or is ridden, a head turn now and then while it stands).
    pub(super) fn move_mob(&mut self, e: &mut Entity) -> bool {
        let r = &mut self.rng;
        let m = self.motion.entry(e.id).or_insert_with(|| Motion {
            interval: if r.u32(0..100) < 40 { 1 } else { 3 },
            ..Motion::default()
        });
        if e.left == 0 {
            e.moving = r.u32(0..100) < 60;
            e.left = if e.moving {
                r.u32(20..200)
            } else {
                r.u32(40..300)
            };
            e.heading = r.f64() * std::f64::consts::TAU;
        }
        if e.moving {
            let speed = 0.15 + r.f64() * 0.45;
            if r.u32(0..100) < 15 {
                e.heading += normal(r) * 0.3;
            }
            e.x += e.heading.cos() * speed;
            e.z += e.heading.sin() * speed;
            // slopes, jumps, water
            if r.bool() {
                e.y += normal(r) * 0.2;
            }
            e.yaw = e.heading.to_degrees() - 90.0;
            if e.next_send == 0 {
                e.next_send = m.interval;
                return true;
            }
            return false;
        }
        if r.u32(0..1000) < 8 {
            // looks somewhere else
            e.yaw += (r.f64() - 0.5) * 240.0;
            return true;
        }
        false
    }

    /// A dropped item's or a projectile's tick: it flies (sent every tick) until it lands.
    pub(super) fn move_thrown(&mut self, e: &mut Entity) -> bool {
        let projectile = e.role == Role::Projectile;
        let r = &mut self.rng;
        let m = self.motion.entry(e.id).or_insert_with(|| {
            let (speed, up) = match e.role {
                Role::Item { falling } => (0.05 + r.f64() * 0.2, 0.025 * f64::from(falling)),
                _ => (1.0 + r.f64() * 2.0, 0.1 + r.f64() * 0.3),
            };
            let a = r.f64() * std::f64::consts::TAU;
            Motion {
                vx: a.cos() * speed,
                vz: a.sin() * speed,
                vy: up,
                ground: e.y - r.u32(0..4) as f64,
                ..Motion::default()
            }
        });
        if m.vx == 0.0 && m.vz == 0.0 && m.vy == 0.0 {
            return false; // landed
        }
        e.x += m.vx;
        e.z += m.vz;
        e.y += m.vy;
        m.vy = m.vy * 0.98 - if projectile { 0.05 } else { 0.04 };
        let drag = if projectile { 0.99 } else { 0.98 };
        m.vx *= drag;
        m.vz *= drag;
        if projectile {
            e.yaw = m.vz.atan2(m.vx).to_degrees() - 90.0;
            e.pitch = (-m.vy).atan2(m.vx.hypot(m.vz)).to_degrees();
        }
        if e.y <= m.ground {
            e.y = m.ground;
            (m.vx, m.vy, m.vz) = (0.0, 0.0, 0.0);
        }
        true
    }

    /// Counts a tick since the entity's last pose; whether the server resends it now
    /// ([`RESYNC_TICKS`], players excepted: their client sends).
    pub(super) fn resync(&mut self, e: &Entity, sent: bool) -> bool {
        let m = self.motion.entry(e.id).or_default();
        if sent {
            m.since_sent = 0;
            return false;
        }
        m.since_sent += 1;
        if e.role != Role::Player && m.since_sent >= RESYNC_TICKS {
            m.since_sent = 0;
            return true;
        }
        false
    }

    /// Forgets a removed entity's motion.
    pub(super) fn forget(&mut self, id: u32) {
        self.motion.remove(&id);
    }
}
