#!/usr/bin/env bash
# Runs every test: formatting and lints, Rust tests (the fuzzers' seeds and regressions among
# them), the C examples under sanitizers, the documentation's samples, the Java tests. Installs what
# it needs (idempotently) on a fresh machine. Usage: ./test.sh
# TICKREEL_FUZZ_SMOKE=1 ./test.sh adds the fuzz smoke run (fuzz/smoke.sh: the same inputs under
# AddressSanitizer, about 7 minutes of build on a 2-core machine).
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
# `tickreel bench` (the CLI's feature `bench`: the crate tickreel-bench with its feature `run`)
# is a test build's: it links the core's test hooks.
cargo clippy --workspace --all-targets --features "$test_features" -- -D warnings

step "cargo test"
bash scripts/ensure-s3-server.sh   # the S3 server the object-storage tests start on loopback
bash scripts/ensure-postgres.sh  # the catalog's tests start a PostgreSQL cluster
bash scripts/ensure-chromium.sh  # the web viewer's browser test (native/cli/tests/it/viewer_browser.rs)
cargo test --workspace --all-targets --features "$test_features"

# Every fuzz target over its seeds and kept regressions under AddressSanitizer (seconds, after a
# build of about 7 minutes); skips without a nightly toolchain, installs cargo-fuzz if nightly has
# none. Opt-in: the Rust tests above already replay the same inputs through the same code, with the
# campaigns' per-allocation limit (native/core/tests/it/fuzz_regressions.rs).
if [ "${TICKREEL_FUZZ_SMOKE:-0}" = 1 ]; then
  step "fuzz/smoke.sh"
  bash fuzz/smoke.sh
fi

for extra in tests/*.sh; do
  [ -e "$extra" ] || continue
  step "$extra"
  bash "$extra"
done

step "all tests passed"
