//! The object-storage crate's integration tests: one test binary, a module per subject (`cargo test
//! -p tickreel-object --test it`). Each test starts its own S3 server (`testing::S3Server`, on a
//! free loopback port).

mod finish_upload;
mod live_ship;
mod s3;
