//! The reports inbox over HTTP: `GET /api/reports` lists the catalog's reports open first, and
//! `POST /api/reports/decide` — the server's one write, to the catalog — stores a decision with
//! who took it, only from the viewer's own page (a JSON body, the page's own origin), with a
//! name, and only to a known status.

use crate::serve_support::*;
use serde_json::{Value, json};

fn post(s: &Server, body: &str, headers: &[(&str, &str)]) -> (u16, Value) {
    let mut req = s.agent().post(format!("{}/api/reports/decide", s.base));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let mut resp = req.send(body).unwrap();
    let status = resp.status().as_u16();
    let text = resp.body_mut().read_to_string().unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

#[test]
fn reports_are_listed_open_first_and_decided_only_from_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite:{}", dir.path().join("catalog.db").display());
    for (name, reason) in [("Old", "x-ray"), ("New", "fly hack")] {
        ok(&[
            "catalog",
            "--db",
            &db,
            "report",
            "--reported",
            "6f1c1b5e-0c5a-4c41-9f57-5a4f1f1b2c3d",
            "--name",
            name,
            "--reporter",
            "11111111-2222-4333-8444-555555555555",
            "--reason",
            reason,
        ]);
    }
    let s = Server::start(&[
        dir.path().to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
        "--catalog",
        &db,
    ]);
    let list = s.json("/api/reports");
    assert_eq!(list["open"], 2, "{list}");
    let rows = list["reports"].as_array().unwrap();
    let old = rows.iter().find(|r| r["player_name"] == "Old").unwrap()["id"].clone();
    assert_eq!(rows[0]["status"], "open");

    let json_type = ("Content-Type", "application/json");
    let decide =
        |status: &str, by: &str| json!({"id": old, "status": status, "by": by}).to_string();
    // not JSON (what a plain form on another site could send): refused, nothing stored
    let (st, _) = post(
        &s,
        &decide("reviewed", "mod"),
        &[("Content-Type", "text/plain")],
    );
    assert_eq!(st, 415);
    // another site's page
    let (st, e) = post(
        &s,
        &decide("reviewed", "mod"),
        &[json_type, ("Origin", "http://evil.example")],
    );
    assert_eq!(st, 403, "{e}");
    let (st, e) = post(
        &s,
        &decide("reviewed", "mod"),
        &[json_type, ("Sec-Fetch-Site", "cross-site")],
    );
    assert_eq!(st, 403, "{e}");
    // no name, an unknown status, an unknown report, an unknown field
    let (st, e) = post(&s, &decide("reviewed", "  "), &[json_type]);
    assert_eq!(st, 400, "{e}");
    assert!(e["error"].as_str().unwrap().contains("name"), "{e}");
    let (st, e) = post(&s, &decide("deleted", "mod"), &[json_type]);
    assert_eq!(st, 400, "{e}");
    let (st, e) = post(
        &s,
        &json!({"id": 999, "status": "reviewed", "by": "mod"}).to_string(),
        &[json_type],
    );
    assert_eq!(st, 400, "{e}");
    assert!(
        e["error"].as_str().unwrap().contains("no report 999"),
        "{e}"
    );
    let (st, _) = post(
        &s,
        &json!({"id": old, "status": "reviewed", "by": "mod", "x": 1}).to_string(),
        &[json_type],
    );
    assert_eq!(st, 422);
    assert_eq!(s.json("/api/reports")["open"], 2, "nothing was stored");

    // from the page: stored with who took it; open reports stay first
    let base = s.base.clone();
    let origin = base.trim_end_matches('/');
    let (st, row) = post(
        &s,
        &decide("actioned", "mod Ada"),
        &[
            json_type,
            ("Origin", origin),
            ("Sec-Fetch-Site", "same-origin"),
        ],
    );
    assert_eq!(st, 200, "{row}");
    assert_eq!(
        (row["status"].as_str(), row["reviewed_by"].as_str()),
        (Some("actioned"), Some("mod Ada"))
    );
    let list = s.json("/api/reports");
    assert_eq!(list["open"], 1, "{list}");
    assert_eq!(
        list["reports"][0]["player_name"], "New",
        "open first: {list}"
    );
    assert_eq!(list["reports"][1]["status"], "actioned", "{list}");

    // without a catalog there is no inbox
    let plain = Server::start(&[dir.path().to_str().unwrap(), "--listen", "127.0.0.1:0"]);
    let (st, e) = plain.get("/api/reports");
    assert_eq!(st, 400, "{e}");
}
