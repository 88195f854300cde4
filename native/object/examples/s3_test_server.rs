//! Starts the tests' S3 server (`testing::S3Server`: moto_server on loopback, signatures checked,
//! one IAM user, the bucket `tickreel-test`) for tests in other languages: prints the variables
//! that reach it (`AWS_ENDPOINT_URL=...`, one per line, then `READY`) and keeps it running until
//! its standard input closes. Used by `java-bindings/test.sh` and `tests/c.sh`:
//! `cargo run -p tickreel-object --features test-server --example s3_test_server`.

use std::io::{Read, Write};

fn main() {
    let server = tickreel_object::testing::S3Server::start();
    let mut out = std::io::stdout().lock();
    for (k, v) in server.env() {
        writeln!(out, "{k}={v}").expect("stdout");
    }
    writeln!(
        out,
        "TICKREEL_S3_BUCKET={}",
        tickreel_object::testing::BUCKET
    )
    .expect("stdout");
    writeln!(out, "READY").expect("stdout");
    out.flush().expect("stdout");
    drop(out);
    // Runs until the parent closes our stdin (or dies); then the server is killed on drop.
    let mut sink = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut sink);
    drop(server);
}
