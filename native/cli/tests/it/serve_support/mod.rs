//! What the `tickreel serve` tests share: the real binary started on a free loopback port, a
//! small HTTP client (ureq), recordings made by the real `simulate` and `import` commands (run
//! through `tool`, the CLI tests' shared runner).
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::tool;

pub mod page;

pub use crate::tool::tickreel;

/// Runs `tickreel ARGS` and fails the test if it fails; its stdout.
#[track_caller]
pub fn ok(args: &[&str]) -> String {
    tool::succeeded(&tickreel(args))
}

/// `tickreel simulate` writing a live recording of `players` players, `ticks` ticks at `tps`
/// ticks/s, flushed every 100 ms in chunks of 20 ticks; returned once its first flush is on disk
/// (its further output is read and dropped).
pub fn live_writer(out: &Path, players: u32, ticks: u32, tps: u32) -> Child {
    let (players, ticks, tps) = (players.to_string(), ticks.to_string(), tps.to_string());
    let mut writer = Command::new(env!("CARGO_BIN_EXE_tickreel"))
        .args([
            "simulate",
            "--out",
            out.to_str().unwrap(),
            "--players",
            &players,
        ])
        .args([
            "--ticks",
            &ticks,
            "--tps",
            &tps,
            "--flush-ms",
            "100",
            "--chunk-ticks",
            "20",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(writer.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    assert!(first.starts_with("flushed "), "{first}");
    std::thread::spawn(move || for _ in lines {});
    writer
}

/// A finished recording of `players` simulated players over `ticks` ticks.
pub fn simulate(out: &Path, players: u32, ticks: u32) {
    ok(&[
        "simulate",
        "--out",
        out.to_str().unwrap(),
        "--players",
        &players.to_string(),
        "--ticks",
        &ticks.to_string(),
        "--chunk-ticks",
        "100",
    ]);
}

/// A small file (under 1 KiB) whose entity 1 spans 2^32 - 2 ticks: added at tick 0, moved at tick
/// 2^32 - 2, nothing between. What a file claims, not what it holds.
pub fn span_file(path: &Path) {
    use tickreel::Pose;
    use tickreel::format::Event;
    use tickreel::record::{ReelOptions, ReelWriter};
    let pose = |x: f64| Pose::from_f64(x, 64.0, 0.0, 0.0, 0.0);
    let mut w = ReelWriter::create(path, ReelOptions::default()).unwrap();
    let add = Event::EntityAdd {
        entity: 1,
        kind: 0,
        pose: pose(0.0),
    };
    w.write_tick(0, &[add]).unwrap();
    let far = Event::Pose {
        entity: 1,
        pose: pose(100.0),
    };
    w.write_tick(u32::MAX - 1, &[far]).unwrap();
    w.finish().unwrap();
}

/// `local` uploaded to `s3` as `course/run.reel` (by `tickreel upload`), and `tickreel serve` on
/// the prefix `course`, with the store's credentials in the environment of both.
pub fn serve_uploaded(s3: &tickreel_object::testing::S3Server, local: &Path) -> Server {
    let env: Vec<(String, String)> = s3
        .env()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let env_ref: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut up = Command::new(env!("CARGO_BIN_EXE_tickreel"));
    up.args([
        "upload",
        local.to_str().unwrap(),
        &s3.url("course/run.reel"),
    ]);
    for (k, v) in &env_ref {
        up.env(k, v);
    }
    let o = up.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    Server::start_env(&[&s3.url("course"), "--listen", "127.0.0.1:0"], &env_ref)
}

/// A running `tickreel serve`, stopped when dropped.
pub struct Server {
    child: Child,
    pub base: String,
    agent: ureq::Agent,
}

impl Server {
    /// Starts `tickreel serve ARGS` (add `--listen 127.0.0.1:0` for a free port) and waits for
    /// its `listening on` line.
    pub fn start(args: &[&str]) -> Server {
        Server::start_env(args, &[])
    }

    pub fn start_env(args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tickreel"));
        cmd.arg("serve").args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let first = lines
            .next()
            .expect("serve printed nothing")
            .expect("serve's stdout");
        let url = first
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line: {first}"))
            .trim_end_matches('/')
            .to_string();
        // keep reading (and dropping) what it prints, so that it never blocks on a full pipe
        std::thread::spawn(move || for _ in lines {});
        Server {
            child,
            base: url,
            agent: agent(Duration::from_secs(60)),
        }
    }

    /// The server's peak resident memory so far (`VmHWM`), in bytes.
    pub fn peak_rss(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let kib: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmHWM in /proc/PID/status");
        kib * 1024
    }

    /// GET `path` (with `token` as a bearer token if given): the status and the JSON body.
    pub fn get_with(&self, path: &str, token: Option<&str>) -> (u16, Value) {
        let mut req = self.agent.get(format!("{}{path}", self.base));
        if let Some(t) = token {
            req = req.header("Authorization", format!("Bearer {t}"));
        }
        let mut resp = req.call().unwrap_or_else(|e| panic!("GET {path}: {e}"));
        let status = resp.status().as_u16();
        let text = resp.body_mut().read_to_string().unwrap();
        let v = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("GET {path}: {status}, not JSON ({e}): {text}"));
        (status, v)
    }

    pub fn get(&self, path: &str) -> (u16, Value) {
        self.get_with(path, None)
    }

    /// GET `path`, expecting 200.
    pub fn json(&self, path: &str) -> Value {
        let (s, v) = self.get(path);
        assert_eq!(s, 200, "GET {path}: {v}");
        v
    }

    /// GET `path` as text (status, body).
    pub fn text(&self, path: &str) -> (u16, String) {
        let mut resp = self
            .agent
            .get(format!("{}{path}", self.base))
            .call()
            .unwrap();
        (
            resp.status().as_u16(),
            resp.body_mut().read_to_string().unwrap(),
        )
    }

    pub fn agent(&self) -> &ureq::Agent {
        &self.agent
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A client of a server started elsewhere.
pub struct Client {
    pub base: String,
    agent: ureq::Agent,
}

impl Client {
    pub fn at(base: &str) -> Client {
        Client {
            base: base.trim_end_matches('/').to_string(),
            agent: agent(Duration::from_secs(30)),
        }
    }

    /// GET `path` (with a bearer token if given): status and body text.
    pub fn raw(&self, path: &str, token: Option<&str>) -> (u16, String) {
        self.raw_auth(path, token.map(|t| format!("Bearer {t}")).as_deref())
    }

    /// GET `path` with the `Authorization` header `auth` if given: status and body text.
    pub fn raw_auth(&self, path: &str, auth: Option<&str>) -> (u16, String) {
        let mut req = self.agent.get(format!("{}{path}", self.base));
        if let Some(a) = auth {
            req = req.header("Authorization", a);
        }
        let mut resp = req.call().unwrap();
        (
            resp.status().as_u16(),
            resp.body_mut().read_to_string().unwrap(),
        )
    }

    /// GET `path` with the `Host` header `host` (as a page on another site would send after
    /// DNS rebinding), over a plain socket: status and the whole response.
    pub fn raw_host(&self, path: &str, token: Option<&str>, host: &str) -> (u16, String) {
        use std::io::{Read, Write};
        let addr = self.base.strip_prefix("http://").unwrap();
        let mut sock = std::net::TcpStream::connect(addr).unwrap();
        sock.set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
        write!(
            sock,
            "GET {path} HTTP/1.1\r\nHost: {host}\r\n{auth}Connection: close\r\n\r\n"
        )
        .unwrap();
        let mut text = String::new();
        sock.read_to_string(&mut text).unwrap();
        let status = text
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("not an HTTP response: {text}"));
        (status, text)
    }
}

/// A client that reports every status (errors are answers too) and gives up after `timeout`.
pub fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(timeout))
        .build()
        .into()
}

/// `s` with `%` escapes for a query value.
pub fn enc(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Every entity's `(id, x, y, z)` in blocks in a frame of the API (`[id, x, y, z, yaw]` entries
/// in `pos_scale` units), sorted by id.
pub fn api_positions(frame: &Value) -> Vec<(u32, f64, f64, f64)> {
    frame_positions(frame, 4096.0)
}

/// Every entity's `(id, x, y, z)` in a frame (`[id, x, y, z, yaw]` entries, positions in
/// `scale` units per block), sorted by id.
pub fn frame_positions(frame: &Value, scale: f64) -> Vec<(u32, f64, f64, f64)> {
    let mut v: Vec<_> = frame["e"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e[0].as_u64().unwrap() as u32,
                e[1].as_f64().unwrap() / scale,
                e[2].as_f64().unwrap() / scale,
                e[3].as_f64().unwrap() / scale,
            )
        })
        .collect();
    v.sort_by_key(|e| e.0);
    v
}

/// Every entity's `(id, x, y, z)` at `tick` by the core's `Reader::seek`, sorted by id.
pub fn reader_positions(path: &Path, tick: u32) -> Vec<(u32, f64, f64, f64)> {
    let r = tickreel::play::Reader::open_any(path).unwrap();
    let s = r.seek(tick).unwrap();
    let mut v: Vec<_> = s
        .entities
        .iter()
        .map(|e| (e.id, e.pose.x_f64(), e.pose.y_f64(), e.pose.z_f64()))
        .collect();
    v.sort_by_key(|e| e.0);
    v
}

pub fn names(list: &Value) -> Vec<(String, String)> {
    list["recordings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

pub fn assert_close(a: &[(u32, f64, f64, f64)], b: &[(u32, f64, f64, f64)], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: entity count");
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x.0, y.0, "{what}: ids");
        for (p, q) in [(x.1, y.1), (x.2, y.2), (x.3, y.3)] {
            assert!(
                (p - q).abs() < 1e-9,
                "{what}: entity {} at {p}, seek says {q}",
                x.0
            );
        }
    }
}
