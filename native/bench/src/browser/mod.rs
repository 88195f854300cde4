//! Headless Chromium driven over the Chrome DevTools Protocol (a WebSocket, `tungstenite`): what
//! the web viewer's browser test (`tests/it/viewer_browser.rs`) and its memory benchmark (`tickreel
//! bench --only viewer`) share. Chromium is Debian's `chromium` (installed by
//! `scripts/ensure-chromium.sh`), or the binary named by `TICKREEL_CHROMIUM`.
//!
//! Every failure is an error naming what failed (no Chromium, no DevTools address, a command
//! the browser refused, an exception in the page): the test and the bench fail loudly on it.

mod memory;

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};
use tickreel::{Error, Result};
use tungstenite::{Message, WebSocket};

pub use memory::{Memory, renderer_rss_bytes};

/// Headless Chromium with its DevTools connection; the browser is killed when dropped.
pub struct Browser {
    child: Child,
    ws: WebSocket<TcpStream>,
    next_id: u64,
    session: Option<String>,
    profile: tempfile::TempDir,
}

fn err(what: impl Into<String>) -> Error {
    Error::InvalidState(what.into())
}

/// The Chromium to start: `TICKREEL_CHROMIUM`, else the first of `chromium`, `chromium-browser`,
/// `google-chrome` that answers `--version`.
pub fn chromium_binary() -> Result<String> {
    if let Ok(b) = std::env::var("TICKREEL_CHROMIUM") {
        return Ok(b);
    }
    for b in ["chromium", "chromium-browser", "google-chrome"] {
        if Command::new(b)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
        {
            return Ok(b.to_string());
        }
    }
    Err(err(
        "no Chromium found (chromium, chromium-browser, google-chrome, or TICKREEL_CHROMIUM): \
         run scripts/ensure-chromium.sh",
    ))
}

impl Browser {
    /// Starts headless Chromium (a 1280x800 window, a fresh profile) and connects to its
    /// DevTools endpoint.
    pub fn start() -> Result<Browser> {
        let bin = chromium_binary()?;
        let profile = tempfile::tempdir()?;
        let mut child = Command::new(&bin)
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--window-size=1280,800",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| err(format!("{bin} does not start: {e}")))?;
        let stderr = child.stderr.take().expect("piped");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(|l| l.ok()) {
                if let Some(url) = line.strip_prefix("DevTools listening on ") {
                    let _ = tx.send(url.trim().to_string());
                }
            }
        });
        let Ok(url) = rx.recv_timeout(Duration::from_secs(30)) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(err(format!(
                "{bin} printed no DevTools address within 30 s (it exited, or did not start headless)"
            )));
        };
        let connect = || -> Result<WebSocket<TcpStream>> {
            let hostport = url
                .strip_prefix("ws://")
                .and_then(|r| r.split('/').next())
                .ok_or_else(|| err(format!("a DevTools address that is not ws://: {url}")))?;
            let stream = TcpStream::connect(hostport)?;
            stream.set_read_timeout(Some(Duration::from_secs(60)))?;
            let (ws, _) = tungstenite::client(url.as_str(), stream)
                .map_err(|e| err(format!("DevTools WebSocket {url}: {e}")))?;
            Ok(ws)
        };
        match connect() {
            Ok(ws) => Ok(Browser {
                child,
                ws,
                next_id: 1,
                session: None,
                profile,
            }),
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                Err(e)
            }
        }
    }

    /// The browser's profile directory (it names the browser's own processes).
    pub fn profile(&self) -> &Path {
        self.profile.path()
    }

    /// The process id of the browser (its renderers are its children).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends a DevTools command (to the attached page, if any) and waits for its answer.
    pub fn call(&mut self, method: &str, params: Value) -> Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = &self.session {
            msg["sessionId"] = json!(s);
        }
        self.ws
            .send(Message::Text(msg.to_string().into()))
            .map_err(|e| err(format!("DevTools {method}: {e}")))?;
        loop {
            let m = self
                .ws
                .read()
                .map_err(|e| err(format!("DevTools connection ({method}): {e}")))?;
            let Message::Text(t) = m else { continue };
            let v: Value = serde_json::from_str(t.as_str())
                .map_err(|e| err(format!("DevTools sent no JSON: {e}")))?;
            if v["id"] == id {
                if let Some(e) = v.get("error") {
                    return Err(err(format!("{method}: {e}")));
                }
                return Ok(v["result"].clone());
            }
        }
    }

    /// Opens `url` in a new page and attaches to it.
    pub fn open(&mut self, url: &str) -> Result<()> {
        let t = self.call("Target.createTarget", json!({"url": url}))?;
        let target = t["targetId"]
            .as_str()
            .ok_or_else(|| err(format!("Target.createTarget: {t}")))?
            .to_string();
        let a = self.call(
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
        )?;
        let session = a["sessionId"]
            .as_str()
            .ok_or_else(|| err(format!("Target.attachToTarget: {a}")))?;
        self.session = Some(session.to_string());
        self.call("Runtime.enable", json!({}))?;
        Ok(())
    }

    /// Evaluates `expr` in the page (awaiting a promise) and returns its value; an exception in
    /// the page is an error.
    pub fn try_eval(&mut self, expr: &str) -> Result<Value> {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": expr, "awaitPromise": true, "returnByValue": true}),
        )?;
        if let Some(e) = r.get("exceptionDetails") {
            return Err(err(format!("{expr}: {e}")));
        }
        Ok(r["result"]["value"].clone())
    }

    /// [`Browser::try_eval`] for tests: panics on an error.
    #[track_caller]
    pub fn eval(&mut self, expr: &str) -> Value {
        self.try_eval(expr).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Waits (up to `timeout`) until `expr` is true in the page; the error quotes `describe`
    /// evaluated then (the page's state, say).
    pub fn wait_until(&mut self, expr: &str, timeout: Duration, describe: &str) -> Result<()> {
        let start = Instant::now();
        while self.try_eval(expr)? != json!(true) {
            if start.elapsed() > timeout {
                let d = self
                    .try_eval(describe)
                    .unwrap_or_else(|e| json!(e.to_string()));
                return Err(err(format!(
                    "timed out after {timeout:?} waiting for {expr}; {d}"
                )));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(())
    }

    /// A PNG screenshot of the page.
    pub fn screenshot_png(&mut self) -> Result<Vec<u8>> {
        let r = self.call("Page.captureScreenshot", json!({"format": "png"}))?;
        let png = base64::engine::general_purpose::STANDARD
            .decode(r["data"].as_str().unwrap_or(""))
            .map_err(|e| err(format!("Page.captureScreenshot: {e}")))?;
        if !png.starts_with(b"\x89PNG\r\n\x1a\n") {
            return Err(err("Page.captureScreenshot: not a PNG"));
        }
        Ok(png)
    }

    /// Forces a full garbage collection in the page, then reads its memory figures.
    pub fn memory_after_gc(&mut self) -> Result<Memory> {
        memory::measure(self)
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
