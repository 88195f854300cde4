//! The catalog's integration tests: one test binary, a module per subject (`cargo test -p
//! tickreel-catalog --test it`; one subject: `cargo test -p tickreel-catalog --test it --
//! retention::`). Its tests share one throwaway PostgreSQL cluster (`common::pg`), each on a new
//! database of its own.

// Test helpers (`on_both!` defines a test on SQLite and on PostgreSQL)
#[macro_use]
mod common;

// Tests
mod board;
mod checks;
mod concurrency;
mod credentials;
mod locations;
mod map_versions;
mod migrations;
mod network;
mod report_figures;
mod reports;
mod retention;
mod review;
mod tls;
