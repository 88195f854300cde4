//! Issue-20 figures: the web viewer's server (`tickreel serve`, started as its own process on
//! a loopback port, asked over plain HTTP/1.1, a new connection per request as a browser's first
//! request would be).
//!
//! Workload: a recording of the simulated server (100 players, default `SimConfig`) written by
//! `ReelWriter` with the default chunk policy; 1 hour (72,000 ticks), or 6 minutes with `--quick`.
//! - `serve_seek_p99_ms` (and `_p50_ms`): a random seek as the viewer does it, request to first
//!   frame: the viewer asks for the seek's one frame alone (`/api/frames?from=T&count=1`, 100
//!   entities) alongside the block around it, and shows it when it arrives; 200 random ticks
//!   (quick: 100) over a server started fresh, so its chunk cache is cold for almost every seek;
//!   `serve_seek_block_p99_ms` (and `_p50_ms`): the block of 128 frames the viewer asks for with
//!   it (`count=128`, the whole answer: JSON is not streamed);
//! - `serve_stream_fps`: frames of 100 entities one viewer receives per second playing forward
//!   (consecutive blocks of 128 frames, each asked when the previous one arrived), and
//!   `serve_stream_16x_headroom`: that rate over what 16x at 20 ticks/s needs (320 frames/s);
//!   `serve_frame_bytes`: the JSON bytes of one frame.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use tickreel::record::ReelOptions;

use super::shared::{percentile, simulated_reel};
use super::{Figures, Tool, put};

const PLAYERS: u32 = 100;
const BLOCK: u32 = 128;

pub fn run(quick: bool, out: &mut Figures, tool: &dyn Tool) {
    let ticks: u32 = if quick { 20 * 60 * 6 } else { 20 * 60 * 60 };
    let dir = std::env::temp_dir().join(format!("tickreel-bench-serve-{}", std::process::id()));
    let r = (|| -> tickreel::Result<()> {
        std::fs::create_dir_all(&dir)?;
        simulated_reel(
            &dir.join("bench.reel"),
            PLAYERS,
            20,
            ticks,
            ReelOptions::default(),
        )?;
        let mut server = Server::start(tool, &dir)?;
        let r = measure(&server.addr, ticks, quick, out);
        server.stop();
        r
    })();
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(e) = r {
        eprintln!("bench serve: {e}");
    }
}

/// `tickreel serve DIR` on a free loopback port (the tool's executable, a process of its own).
struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start(tool: &dyn Tool, dir: &PathBuf) -> tickreel::Result<Server> {
        let mut child = Command::new(tool.executable()?)
            .arg("serve")
            .arg(dir)
            .args(["--listen", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .spawn()?;
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped")).read_line(&mut line)?;
        let addr = line
            .trim()
            .strip_prefix("listening on http://")
            .map(|a| a.trim_end_matches('/').to_string());
        match addr {
            Some(addr) => Ok(Server { child, addr }),
            None => {
                let _ = child.kill();
                Err(tickreel::Error::InvalidState(format!(
                    "serve did not start: {line:?}"
                )))
            }
        }
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One GET on a new connection: the body, checked to be a 200 answer.
fn get(addr: &str, path: &str) -> tickreel::Result<Vec<u8>> {
    let mut s = TcpStream::connect(addr)?;
    s.set_nodelay(true)?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )?;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf)?;
    let head_end = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| tickreel::Error::corrupt("no HTTP header"))?;
    if !buf.starts_with(b"HTTP/1.1 200") {
        return Err(tickreel::Error::InvalidState(format!(
            "GET {path}: {}",
            String::from_utf8_lossy(&buf[..buf.len().min(300)])
        )));
    }
    let chunked = String::from_utf8_lossy(&buf[..head_end])
        .lines()
        .any(|l| l.eq_ignore_ascii_case("transfer-encoding: chunked"));
    let body = buf.split_off(head_end + 4);
    if chunked { dechunk(&body) } else { Ok(body) }
}

/// The body of a chunked answer (RFC 9112 §7.1: hexadecimal size, CRLF, the bytes, CRLF, until a
/// size of 0), as axum sends a streamed one.
fn dechunk(mut rest: &[u8]) -> tickreel::Result<Vec<u8>> {
    let bad = || tickreel::Error::corrupt("a chunked answer cut short");
    let mut body = Vec::new();
    loop {
        let line_end = rest.windows(2).position(|w| w == b"\r\n").ok_or_else(bad)?;
        let size_text = String::from_utf8_lossy(&rest[..line_end]);
        let size_hex = size_text.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_hex, 16).map_err(|_| bad())?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Ok(body);
        }
        if rest.len() < size + 2 {
            return Err(bad());
        }
        body.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
}

fn measure(addr: &str, ticks: u32, quick: bool, out: &mut Figures) -> tickreel::Result<()> {
    let mut rng = fastrand::Rng::with_seed(20);
    let n = if quick { 100 } else { 200 };
    for (count, key) in [(1, "serve_seek"), (BLOCK, "serve_seek_block")] {
        let mut ms = Vec::with_capacity(n);
        for _ in 0..n {
            let t = rng.u32(0..ticks);
            let start = Instant::now();
            let body = get(
                addr,
                &format!("/api/frames?rec=bench.reel&from={t}&count={count}"),
            )?;
            ms.push(start.elapsed().as_secs_f64() * 1e3);
            if !body.starts_with(b"{") {
                return Err(tickreel::Error::corrupt("frames: not JSON"));
            }
        }
        put(out, &format!("{key}_p99_ms"), percentile(&mut ms, 0.99));
        put(out, &format!("{key}_p50_ms"), percentile(&mut ms, 0.5));
    }
    // playing forward: consecutive blocks
    let blocks = if quick { 40 } else { 120 };
    let from = rng.u32(0..ticks - blocks * BLOCK);
    let start = Instant::now();
    let mut frames = 0u64;
    let mut bytes = 0u64;
    for b in 0..blocks {
        let t = from + b * BLOCK;
        let body = get(
            addr,
            &format!("/api/frames?rec=bench.reel&from={t}&count={BLOCK}"),
        )?;
        let v: serde_json::Value = serde_json::from_slice(&body)
            .map_err(|e| tickreel::Error::corrupt(format!("frames: {e}")))?;
        let f = v["frames"].as_array().map_or(0, Vec::len) as u64;
        if f != u64::from(BLOCK) || v["frames"][0]["e"].as_array().map_or(0, Vec::len) < 50 {
            return Err(tickreel::Error::corrupt("frames: a short block"));
        }
        frames += f;
        bytes += body.len() as u64;
    }
    let fps = frames as f64 / start.elapsed().as_secs_f64();
    put(out, "serve_stream_fps", fps);
    put(out, "serve_stream_16x_headroom", fps / (16.0 * 20.0));
    put(out, "serve_frame_bytes", bytes as f64 / frames as f64);
    Ok(())
}
