#!/usr/bin/env bash
# Fuzz smoke run: every cargo fuzz target over its committed seeds and kept regression inputs only
# (no mutation: each input runs once, under the campaign's sanitizer and memory limits), in
# seconds once the targets are built (the first build takes a few minutes). Skips, exiting 0,
# where nightly or cargo-fuzz is missing. Usage: fuzz/smoke.sh
# FUZZ_SMOKE_RUNS=N adds N mutated inputs per target (default 0). See fuzz/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "fuzz smoke run skipped: no nightly toolchain (rustup toolchain install nightly)"
  exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "fuzz smoke run skipped: cargo-fuzz is not installed (cargo install cargo-fuzz --locked)"
  exit 0
fi

runs="${FUZZ_SMOKE_RUNS:-0}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cargo +nightly fuzz build
for target in $(cargo +nightly fuzz list); do
  # A copy, so that libFuzzer writes nothing into the committed directories.
  mkdir -p "$work/$target"
  for d in "fuzz/seeds/$target" "fuzz/regressions/$target"; do
    if [ -d "$d" ]; then cp "$d"/* "$work/$target"/ 2>/dev/null || true; fi
  done
  echo "== fuzz smoke: $target ($(ls "$work/$target" | wc -l) inputs, $runs mutations)"
  if ! cargo +nightly fuzz run "$target" "$work/$target" -- \
    -runs="$runs" -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=30 \
    -artifact_prefix="$work/" >"$work/$target.log" 2>&1; then
    tail -n 60 "$work/$target.log"
    echo "fuzz smoke: $target failed (the input is in the log above)"
    exit 1
  fi
  grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)' "$work/$target.log" || true
done
echo "fuzz smoke: all targets passed"
