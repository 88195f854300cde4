//! `tickreel serve` with an object-storage root whose store goes away (issue 31): the answer
//! names the recording, with 502 Bad Gateway, never the store's endpoint or bucket (it handed the
//! internal S3 endpoint to browsers, with 500).

use crate::serve_support::*;

#[test]
fn an_unreachable_store_answers_502_naming_the_recording_not_the_endpoint() {
    let mut s3 = tickreel_object::testing::S3Server::start_lenient();
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("run.reel");
    simulate(&local, 2, 100);
    let s = serve_uploaded(&s3, &local);
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
