//! `tickreel serve` with an object-storage root whose store goes away (issue 31): the answer
//! names the recording, with 502 Bad Gateway, never the store's endpoint or bucket (it handed the
//! internal S3 endpoint to browsers, with 500).

mod serve_support;

use std::process::Command;

use serve_support::*;

#[test]
fn an_unreachable_store_answers_502_naming_the_recording_not_the_endpoint() {
    let mut s3 = tickreel_object::testing::S3Server::start_lenient();
    let env: Vec<(String, String)> = s3
        .env()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let env_ref: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("run.reel");
    simulate(&local, 2, 100);
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

    let s = Server::start_env(&[&s3.url("course"), "--listen", "127.0.0.1:0"], &env_ref);
    assert_eq!(s.get("/api/recordings").0, 200);
    let endpoint = s3.endpoint();
    let port = endpoint
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches('/')
        .to_string();
    s3.stop();

    let (st, body) = s.text("/api/info?rec=run.reel");
    assert_eq!(st, 502, "{body}");
    assert!(body.contains("run.reel"), "names the recording: {body}");
    for internal in [
        endpoint.as_str(),
        &port,
        "127.0.0.1",
        "tickreel-test",
        "s3://",
    ] {
        assert!(
            !body.contains(internal),
            "{internal:?} in the answer: {body}"
        );
    }
    let (st, body) = s.text("/api/recordings");
    if st != 200 {
        // (a listing may be kept from before)
        assert_eq!(st, 502, "{body}");
        for internal in [
            endpoint.as_str(),
            &port,
            "127.0.0.1",
            "tickreel-test",
            "s3://",
        ] {
            assert!(
                !body.contains(internal),
                "{internal:?} in the answer: {body}"
            );
        }
    }
}
