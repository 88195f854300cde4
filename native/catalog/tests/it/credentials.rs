//! A catalog URL's password never appears in an error or in what the catalog shows of itself,
//! against the real PostgreSQL test cluster (password authentication).

use crate::common;

use tickreel_catalog::Catalog;

#[test]
fn a_wrong_password_fails_without_showing_it() {
    let c = common::pg::cluster();
    let secret = "Wr0ng-Secret-Pass";
    let url = format!(
        "postgres://{}:{secret}@127.0.0.1:{}/postgres",
        c.user, c.port
    );
    let e = Catalog::open(&url).unwrap_err();
    let shown = format!("{e} {e:?}");
    assert!(!shown.contains(secret), "{shown}");
    assert!(shown.contains("***"), "the URL is named, redacted: {shown}");
    assert!(
        shown.contains("password authentication failed") || shown.contains("authentication"),
        "{shown}"
    );
}

#[test]
fn an_open_catalog_never_shows_its_password() {
    let url = common::pg::fresh_database();
    let password = &common::pg::cluster().password;
    let cat = Catalog::open(&url).unwrap();
    assert!(!cat.describe().contains(password.as_str()));
    assert!(!format!("{cat:?}").contains(password.as_str()));
    // a failing statement names no secret either
    let e = cat.execute_raw("SELECT * FROM no_such_table").unwrap_err();
    assert!(!e.to_string().contains(password.as_str()), "{e}");
}

#[test]
fn an_unreachable_server_fails_without_showing_the_password() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://u:Unreachable-Secret@127.0.0.1:{port}/db?connect_timeout=2");
    let e = Catalog::open(&url).unwrap_err();
    assert!(!e.to_string().contains("Unreachable-Secret"), "{e}");
}
