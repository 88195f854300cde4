//! A real S3-protocol server on loopback for tests (feature `test-server`): `moto_server` (PyPI
//! `moto[server]`, installed by `scripts/ensure-s3-server.sh`) with request signing checked, one
//! IAM user whose key signs every request, and one bucket. Starting it fails the test (a panic
//! that says what to install), never skips it.
//!
//! moto (5.x) checks a signature against the query string of werkzeug's `request.url`, which
//! decodes `%2F` back to `/`; clients sign the query as SigV4 says (`prefix=runs%2Fa.reel.live%2F`),
//! so every listing under a folder failed with `SignatureDoesNotMatch` (getmoto/moto#5948, the
//! fix #5949 never merged; boto3 fails the same way). The server is started through
//! [`MOTO_WITH_RAW_QUERY`], which checks signatures against the raw query string instead: the
//! same check real S3 makes.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::{Credentials, ObjectOptions, ObjectStorage};

/// The bucket every test server has.
pub const BUCKET: &str = "tickreel-test";

/// A running `moto_server`, killed when dropped.
pub struct S3Server {
    child: Option<Child>,
    port: u16,
    credentials: Credentials,
}

impl std::fmt::Debug for S3Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Server")
            .field("port", &self.port)
            .finish()
    }
}

/// `python3 -c` this with moto_server's arguments: moto's server, its signature check given the
/// request's raw query string (see the module's documentation). Without moto importable by
/// `python3`, runs `moto_server` as it is.
pub const MOTO_WITH_RAW_QUERY: &str = r#"
import os, sys
try:
    from urllib.parse import urlsplit, urlunsplit
    from moto.core.authorization import ActionAuthenticatorMixin as M
    from moto.server import main
except Exception as e:
    print("moto not importable by python3 (%s): running moto_server unpatched" % e, file=sys.stderr)
    os.execvp("moto_server", ["moto_server"] + sys.argv[1:])
check = M._authenticate_and_authorize_action
def with_raw_query(self, *args, **kwargs):
    environ = getattr(getattr(self, "request", None), "environ", None) or {}
    raw, uri = environ.get("QUERY_STRING"), getattr(self, "uri", None)
    if raw is None or uri is None:
        return check(self, *args, **kwargs)
    self.uri = urlunsplit(urlsplit(uri)._replace(query=raw))
    try:
        return check(self, *args, **kwargs)
    finally:
        self.uri = uri
M._authenticate_and_authorize_action = with_raw_query
sys.argv[0] = "moto_server"
sys.exit(main(sys.argv[1:]))
"#;

/// Actions moto serves before it checks signatures: creating the user, its key, its policy and
/// the bucket.
const SETUP_ACTIONS: u32 = 4;

impl S3Server {
    /// Starts a server on a free loopback port with signature checks on, creates an IAM user with
    /// an access key allowed everything, and the bucket [`BUCKET`]. Panics if it cannot.
    pub fn start() -> S3Server {
        S3Server::start_with(true)
    }

    /// [`S3Server::start`] without signature checks (any key is accepted).
    pub fn start_lenient() -> S3Server {
        S3Server::start_with(false)
    }

    fn start_with(signed: bool) -> S3Server {
        // `TICKREEL_MOTO_SERVER`: a moto_server to run as it is (listings under a folder then
        // fail its signature check).
        let given = std::env::var("TICKREEL_MOTO_SERVER").ok();
        let program = given.clone().unwrap_or_else(|| "python3".into());
        let mut last = String::new();
        for _ in 0..3 {
            let port = free_port();
            let mut command = Command::new(&program);
            if given.is_none() {
                command.args(["-c", MOTO_WITH_RAW_QUERY]);
            }
            command.args(["-H", "127.0.0.1", "-p", &port.to_string()]);
            if signed {
                command.env("INITIAL_NO_AUTH_ACTION_COUNT", SETUP_ACTIONS.to_string());
            } else {
                command.env_remove("INITIAL_NO_AUTH_ACTION_COUNT");
            }
            let child = command
                .env("MOTO_ALLOW_NONEXISTENT_REGION", "true")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn();
            let mut child = match child {
                Ok(c) => c,
                Err(e) => panic!(
                    "cannot start {program:?} ({e}): run scripts/ensure-s3-server.sh \
                     (pip install 'moto[server]')"
                ),
            };
            // A server that just started listening has now and then reset the first connection: its
            // setup then fails, and a fresh server (a fresh count of unsigned actions) is tried.
            let ready = wait_listening(&mut child, port).and_then(|()| {
                let credentials = if signed {
                    setup_user(port)?
                } else {
                    Credentials::new("AKIALENIENTTESTKEY", "lenient-test-secret-value")
                };
                create_bucket(port)?;
                Ok(credentials)
            });
            match ready {
                Ok(credentials) => {
                    return S3Server {
                        child: Some(child),
                        port,
                        credentials,
                    };
                }
                Err(e) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    last = e;
                }
            }
        }
        panic!("{program} did not start on loopback: {last}");
    }

    pub fn port(&self) -> u16 {
        self.port
    }
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
    /// The IAM user's key (signs every request).
    pub fn credentials(&self) -> &Credentials {
        &self.credentials
    }

    /// Options that reach this server, with short timeouts and few retries.
    pub fn options(&self) -> ObjectOptions {
        ObjectOptions {
            endpoint: Some(self.endpoint()),
            region: Some("us-east-1".into()),
            credentials: Some(self.credentials.clone()),
            allow_http: true,
            connect_timeout: Duration::from_secs(2),
            request_timeout: Duration::from_secs(10),
            retries: 2,
            backoff_initial: Duration::from_millis(50),
            backoff_max: Duration::from_millis(200),
            deadline: Duration::from_secs(20),
            ..ObjectOptions::default()
        }
    }

    /// The variables the CLI reads to reach this server.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ENDPOINT_URL", self.endpoint()),
            ("AWS_REGION", "us-east-1".into()),
            ("AWS_ACCESS_KEY_ID", self.credentials.access_key_id.clone()),
            (
                "AWS_SECRET_ACCESS_KEY",
                self.credentials.secret_access_key.clone(),
            ),
            ("AWS_ALLOW_HTTP", "true".into()),
        ]
    }

    /// A client of [`BUCKET`].
    pub fn storage(&self) -> ObjectStorage {
        ObjectStorage::new(BUCKET, self.options()).expect("client of the test server")
    }

    /// `s3://tickreel-test/key`.
    pub fn url(&self, key: &str) -> String {
        format!("s3://{BUCKET}/{key}")
    }

    /// Kills the server (what a store that goes away mid-playback looks like).
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        self.stop();
    }
}

fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("a free loopback port");
    l.local_addr().expect("its address").port()
}

fn wait_listening(child: &mut Child, port: u16) -> Result<(), String> {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(60) {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("it exited ({status})"));
        }
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err("not listening after 60 s".into())
}

/// The unauthenticated setup actions: a user, its key, a policy allowing everything.
fn setup_user(port: u16) -> Result<Credentials, String> {
    let iam = "AWS4-HMAC-SHA256 Credential=AKIASETUP/20260101/us-east-1/iam/aws4_request, \
               SignedHeaders=host, Signature=0";
    let form = |body: &str| {
        let (status, text) = try_http(
            port,
            "POST",
            "/",
            &[
                ("Authorization", iam),
                ("Content-Type", "application/x-www-form-urlencoded"),
            ],
            body,
        )
        .map_err(|e| format!("IAM setup on the test server: {e}"))?;
        match status {
            200 => Ok(text),
            _ => Err(format!("IAM setup on the test server: {status} {text}")),
        }
    };
    form("Action=CreateUser&UserName=tickreel&Version=2010-05-08")?;
    let key = form("Action=CreateAccessKey&UserName=tickreel&Version=2010-05-08")?;
    let policy =
        r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}"#;
    form(&format!(
        "Action=PutUserPolicy&UserName=tickreel&PolicyName=all&Version=2010-05-08&PolicyDocument={}",
        percent(policy)
    ))?;
    Ok(Credentials::new(
        element(&key, "AccessKeyId"),
        element(&key, "SecretAccessKey"),
    ))
}

/// The last setup action: the bucket.
fn create_bucket(port: u16) -> Result<(), String> {
    let s3 = "AWS4-HMAC-SHA256 Credential=AKIASETUP/20260101/us-east-1/s3/aws4_request, \
              SignedHeaders=host, Signature=0";
    let (status, text) = try_http(
        port,
        "PUT",
        &format!("/{BUCKET}"),
        &[("Authorization", s3)],
        "",
    )
    .map_err(|e| format!("creating the test bucket: {e}"))?;
    match status {
        200 => Ok(()),
        _ => Err(format!("creating the test bucket: {status} {text}")),
    }
}

fn element(xml: &str, name: &str) -> String {
    let open = format!("<{name}>");
    let start = xml.find(&open).map(|i| i + open.len());
    let end = xml.find(&format!("</{name}>"));
    match (start, end) {
        (Some(s), Some(e)) if s <= e => xml[s..e].to_string(),
        _ => panic!("no <{name}> in {xml}"),
    }
}

fn percent(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// One HTTP/1.1 request on its own connection: the status and the body.
fn try_http(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> std::io::Result<(u16, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(30))).ok();
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes())?;
    let _ = s.shutdown(Shutdown::Write);
    let mut out = String::new();
    s.read_to_string(&mut out)?;
    let status = out
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = out
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_string();
    Ok((status, body))
}
