# Sourced by ./test.sh, scripts/s3-test-server.sh, tests/docs.sh and java-bindings/: the cargo
# features of ./test.sh's Rust build (clippy and `cargo test`) in one place, and `test_build`,
# which builds some of that build's targets as that build resolved them.
#
# cargo resolves features per command, from the packages and targets it is asked for: after
# `cargo test --workspace`, `cargo build -p tickreel-object --features test-server --example
# s3_test_server` resolves hyper, serde_json, tower, ... with other features (no axum asks for
# them) and compiles some 30 crates again, and `cargo build -p tickreel-cli --features bench`
# another 10. `test_build` asks for the same packages and features as `cargo test` (the example
# makes cargo resolve the dev-dependencies too, as for tests), so cargo finds them built.
#
# `tickreel-cli/bench`: `tickreel bench`, which runs the benchmarks of `tickreel-bench` (its
# feature `run`) and links the core's test hooks;
# `tickreel-bridge/test-hooks`: the shared library with its test hook, as the Java tests load it.
test_features=tickreel-cli/bench,tickreel-bridge/test-hooks

# test_build [cargo build arguments...]: builds the S3 test server example and the named targets.
test_build() {
  cargo build --workspace --features "$test_features" --example s3_test_server "$@"
}
