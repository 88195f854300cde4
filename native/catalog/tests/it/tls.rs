//! PostgreSQL over TLS (`sslmode`, `sslrootcert`) against the TLS-only test cluster: what each
//! mode connects to, what it refuses, and that no error shows the password.

use tickreel_catalog::{Catalog, SCHEMA_VERSION};

use crate::common::pg::{Cluster, tls_cluster};

/// The URL of a fresh database on the TLS cluster, reached as `host` (at 127.0.0.1), with
/// `query` appended.
fn url(c: &Cluster, host: &str, query: &str) -> String {
    let db = c.create_database();
    format!(
        "postgres://{}:{}@{host}:{}/{db}?hostaddr=127.0.0.1&{query}",
        c.user, c.password, c.port
    )
}

fn ca(c: &Cluster, name: &str) -> String {
    c.dir.join(name).display().to_string()
}

/// The error of opening `url`, checked to hide the password.
fn refused(c: &Cluster, url: &str) -> String {
    let e = Catalog::open(url)
        .expect_err("the connection must be refused")
        .to_string();
    assert!(!e.contains(&c.password), "the password shows in: {e}");
    e
}

#[test]
fn verify_full_with_the_ca_connects() {
    let c = tls_cluster();
    let u = url(
        c,
        "localhost",
        &format!("sslmode=verify-full&sslrootcert={}", ca(c, "ca.crt")),
    );
    let cat = Catalog::open(&u).unwrap();
    assert_eq!(cat.schema_version().unwrap(), SCHEMA_VERSION);
    // the IP address the certificate names verifies too
    let u = url(
        c,
        "127.0.0.1",
        &format!("sslmode=verify-full&sslrootcert={}", ca(c, "ca.crt")),
    );
    Catalog::open(&u).unwrap();
}

#[test]
fn verify_full_without_the_ca_is_refused() {
    let c = tls_cluster();
    let e = refused(c, &url(c, "localhost", "sslmode=verify-full"));
    assert!(
        e.contains("UnknownIssuer") || e.contains("no CA certificates"),
        "{e}"
    );
    let other = format!("sslmode=verify-full&sslrootcert={}", ca(c, "other-ca.crt"));
    let e = refused(c, &url(c, "localhost", &other));
    assert!(
        e.contains("UnknownIssuer") && e.contains("sslrootcert"),
        "{e}"
    );
    // verify-ca checks the chain as well
    let other = format!("sslmode=verify-ca&sslrootcert={}", ca(c, "other-ca.crt"));
    let e = refused(c, &url(c, "localhost", &other));
    assert!(e.contains("UnknownIssuer"), "{e}");
}

#[test]
fn a_wrong_host_name_is_refused_by_verify_full_only() {
    let c = tls_cluster();
    let root = ca(c, "ca.crt");
    let e = refused(
        c,
        &url(
            c,
            "db.wrong.example",
            &format!("sslmode=verify-full&sslrootcert={root}"),
        ),
    );
    assert!(e.contains("not valid for name"), "{e}");
    // verify-ca checks the chain, not the name
    let u = url(
        c,
        "db.wrong.example",
        &format!("sslmode=verify-ca&sslrootcert={root}"),
    );
    Catalog::open(&u).unwrap();
}

#[test]
fn require_and_prefer_encrypt_without_verifying() {
    let c = tls_cluster();
    Catalog::open(&url(c, "db.wrong.example", "sslmode=require")).unwrap();
    // prefer (the default) takes the TLS the server offers
    Catalog::open(&url(c, "localhost", "sslmode=prefer")).unwrap();
    Catalog::open(&url(c, "localhost", "connect_timeout=10")).unwrap();
}

#[test]
fn disable_is_refused_by_a_server_that_demands_tls() {
    let c = tls_cluster();
    let e = refused(c, &url(c, "localhost", "sslmode=disable"));
    assert!(
        e.contains("no encryption") || e.contains("pg_hba.conf"),
        "{e}"
    );
}

#[test]
fn a_missing_or_invalid_ca_file_is_a_clear_error() {
    let c = tls_cluster();
    let missing = c.dir.join("no-such-ca.crt").display().to_string();
    let e = refused(
        c,
        &url(
            c,
            "localhost",
            &format!("sslmode=verify-full&sslrootcert={missing}"),
        ),
    );
    assert!(
        e.contains("sslrootcert") && e.contains("no-such-ca.crt"),
        "{e}"
    );
    // a file that holds no certificate (the server's key is PEM, but not a certificate)
    let e = refused(
        c,
        &url(
            c,
            "localhost",
            &format!("sslmode=verify-full&sslrootcert={}", ca(c, "server.ext")),
        ),
    );
    assert!(e.contains("holds no PEM certificate"), "{e}");
}
