#!/usr/bin/env bash
# Runs every test: formatting and lints, Rust tests, a fuzz smoke run (where nightly is installed),
# the C examples under sanitizers, the Java tests. Installs what it needs (idempotently) on a fresh
# machine. Usage: ./test.sh
set -euo pipefail
cd "$(dirname "$0")"
export CARGO_TERM_COLOR=never

# Each step prints the seconds since the run began and since the previous step (CI's 30-minute budget).
last=$SECONDS
step() { printf '\n== %s == (%ds in, previous step %ds)\n' "$*" "$SECONDS" "$((SECONDS - last))"; last=$SECONDS; }

source scripts/test-build.sh   # $test_features: the test build's features, shared with later steps

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy"
# `tickreel bench` (feature `bench`) is a test build's: it links the core's test hooks.
cargo clippy --workspace --all-targets --features "$test_features" -- -D warnings

step "cargo test"
bash scripts/ensure-s3-server.sh   # the S3 server the object-storage tests start on loopback
bash scripts/ensure-postgres.sh  # the catalog's tests start a PostgreSQL cluster
bash scripts/ensure-chromium.sh  # the web viewer's browser test (native/cli/tests/it/viewer_browser.rs)
cargo test --workspace --all-targets --features "$test_features"

# Every fuzz target over its seeds and kept regressions (seconds, after a build of a few minutes);
# skips without a nightly toolchain, installs cargo-fuzz if nightly has none.
step "fuzz/smoke.sh"
bash fuzz/smoke.sh

for extra in tests/*.sh; do
  [ -e "$extra" ] || continue
  step "$extra"
  bash "$extra"
done

step "all tests passed"
