//! A throwaway PostgreSQL cluster for the tests: `initdb` into a temporary directory (as the
//! `postgres` user when the tests run as root: the server refuses to run as root), a server on a
//! free loopback port with password (SCRAM) authentication, one new database per test. A
//! watchdog process stops the server and removes the directory once the test process is gone.
//!
//! A second cluster, [`tls_cluster`], serves TLS only (`ssl=on`, `hostssl` in pg_hba.conf) with
//! a server certificate for `localhost` and `127.0.0.1` signed by a throwaway CA, both made with
//! `openssl` in its directory.
//!
//! It fails, never skips: a machine without PostgreSQL fails these tests (`./test.sh` installs
//! Debian's `postgresql` first, with `scripts/ensure-postgres.sh`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

pub struct Cluster {
    pub port: u16,
    pub user: String,
    pub password: String,
    /// Its directory (the Unix socket's, and the TLS cluster's certificates).
    pub dir: PathBuf,
}

static CLUSTER: OnceLock<Cluster> = OnceLock::new();
static TLS_CLUSTER: OnceLock<Cluster> = OnceLock::new();

/// The test cluster, started on first use.
pub fn cluster() -> &'static Cluster {
    CLUSTER.get_or_init(|| start(false))
}

/// The cluster that accepts TCP connections over TLS only, started on first use; its CA is
/// `dir/ca.crt`.
pub fn tls_cluster() -> &'static Cluster {
    TLS_CLUSTER.get_or_init(|| start(true))
}

/// A CA and a server certificate signed by it (for `localhost` and `127.0.0.1`) in `dir`, made
/// by `openssl` as the server user (its key must be the server's); also a second, unrelated CA.
fn make_certificates(dir: &Path, root: bool) {
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n\
         keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    let openssl = |args: &[&str], what: &str| {
        let mut c = as_server_user(Path::new("openssl"), root);
        c.current_dir(dir).args(args);
        run(c, what);
    };
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
    ];
    for (name, cn) in [("ca", "tickreel test CA"), ("other-ca", "another CA")] {
        let (key, crt, subj) = (
            format!("{name}.key"),
            format!("{name}.crt"),
            format!("/CN={cn}"),
        );
        let mut args = vec!["req", "-x509", "-days", "2", "-subj", &subj];
        args.extend(ec);
        args.extend(["-keyout", &key, "-out", &crt]);
        args.extend(["-addext", "basicConstraints=critical,CA:TRUE"]);
        args.extend(["-addext", "keyUsage=critical,keyCertSign,cRLSign"]);
        openssl(&args, "openssl: make a CA");
    }
    let mut args = vec!["req", "-subj", "/CN=localhost", "-keyout", "server.key"];
    args.extend(ec);
    args.extend(["-out", "server.csr"]);
    openssl(&args, "openssl: a server key");
    openssl(
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-extfile",
            "server.ext",
            "-out",
            "server.crt",
        ],
        "openssl: sign the server certificate",
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        dir.join("server.key"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
}

/// The directory of PostgreSQL's server programs: where `initdb` is on the PATH, else Debian's
/// `/usr/lib/postgresql/<version>/bin` (the newest).
fn bindir() -> PathBuf {
    if let Ok(out) = Command::new("sh")
        .args(["-c", "command -v initdb"])
        .output()
        && out.status.success()
    {
        let p = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if let Ok(real) = std::fs::canonicalize(&p)
            && let Some(dir) = real.parent()
        {
            return dir.to_path_buf();
        }
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v = e.file_name().to_string_lossy().parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((v, bin))
        })
        .collect();
    versions.sort();
    match versions.pop() {
        Some((_, bin)) => bin,
        None => panic!(
            "PostgreSQL's server programs (initdb, pg_ctl) are not installed: \
             run scripts/ensure-postgres.sh (Debian's postgresql package)"
        ),
    }
}

fn is_root() -> bool {
    let out = Command::new("id").arg("-u").output().expect("run id -u");
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

/// `program args` as the `postgres` user when running as root.
fn as_server_user(program: &Path, root: bool) -> Command {
    if root {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

fn run(mut c: Command, what: &str) {
    let out = c
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn id_of(flag: &str) -> u32 {
    let out = Command::new("id")
        .args([flag, "postgres"])
        .output()
        .expect("run id");
    assert!(
        out.status.success(),
        "running as root, the tests need the postgres user (Debian's postgresql package creates it)"
    );
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("a numeric id")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

fn start(tls: bool) -> Cluster {
    let bin = bindir();
    let root = is_root();
    // in /tmp: the server user must reach it (a root's TMPDIR may be private), and its Unix
    // socket path must stay short
    let base = tempfile::Builder::new()
        .prefix("tickreel-pg-")
        .tempdir_in("/tmp")
        .expect("a temporary directory")
        .keep();
    let data = base.join("data");
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let password = format!("Pw{}x{nanos}", std::process::id());
    let pwfile = base.join("pwfile");
    std::fs::write(&pwfile, &password).unwrap();
    if root {
        let (uid, gid) = (id_of("-u"), id_of("-g"));
        for p in [&base, &pwfile] {
            std::os::unix::fs::chown(p, Some(uid), Some(gid)).expect("chown to postgres");
        }
    }
    let mut initdb = as_server_user(&bin.join("initdb"), root);
    initdb
        .arg("-D")
        .arg(&data)
        .args(["-U", "tickreel", "-E", "UTF8", "--no-sync"])
        .args(["--auth-local=trust", "--auth-host=scram-sha-256"])
        .arg(format!("--pwfile={}", pwfile.display()));
    run(initdb, "initdb");
    std::fs::remove_file(&pwfile).ok();
    let mut settings = String::new();
    if tls {
        make_certificates(&base, root);
        // TCP over TLS only; the Unix socket (the tests' own set-up) stays open
        std::fs::write(
            data.join("pg_hba.conf"),
            "local all all trust\nhostssl all all 127.0.0.1/32 scram-sha-256\n",
        )
        .unwrap();
        settings = format!(
            " -c ssl=on -c ssl_cert_file={0}/server.crt -c ssl_key_file={0}/server.key",
            base.display()
        );
    }
    let port = free_port();
    let mut pg_ctl = as_server_user(&bin.join("pg_ctl"), root);
    pg_ctl
        .arg("-D")
        .arg(&data)
        .arg("-l")
        .arg(base.join("server.log"))
        .args(["-w", "-t", "60", "-o"])
        .arg(format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off \
             -c synchronous_commit=off -c max_connections=200{settings}",
            base.display()
        ))
        .arg("start");
    run(pg_ctl, "pg_ctl start");
    // the watchdog: stops the server and removes its directory when this process is gone
    let stop = format!(
        "{}{} -D '{}' -m immediate stop",
        if root { "runuser -u postgres -- " } else { "" },
        bin.join("pg_ctl").display(),
        data.display()
    );
    let script = format!(
        "while kill -0 {pid} 2>/dev/null; do sleep 1; done; {stop} >/dev/null 2>&1; rm -rf '{}'",
        base.display(),
        pid = std::process::id()
    );
    // never waited for: it must outlive this process (init reaps it)
    #[allow(clippy::zombie_processes)]
    Command::new("sh")
        .args(["-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the cluster's watchdog");
    Cluster {
        port,
        user: "tickreel".into(),
        password,
        dir: base,
    }
}

impl Cluster {
    /// The URL of database `db`.
    pub fn url(&self, db: &str) -> String {
        format!(
            "postgres://{}:{}@127.0.0.1:{}/{db}",
            self.user, self.password, self.port
        )
    }
}

/// A new empty database on the cluster; its URL.
pub fn fresh_database() -> String {
    let c = cluster();
    c.url(&c.create_database())
}

impl Cluster {
    /// Creates a new empty database (through the Unix socket, trusted); its name.
    pub fn create_database(&self) -> String {
        static N: AtomicU32 = AtomicU32::new(0);
        let name = format!(
            "t{}_{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        );
        let mut admin = postgres::Config::new()
            .host_path(&self.dir)
            .port(self.port)
            .user(&self.user)
            .dbname("postgres")
            .connect(postgres::NoTls)
            .expect("connect to the test cluster");
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .expect("create a test database");
        name
    }
}
