#!/usr/bin/env bash
# Fuzz smoke run: every cargo fuzz target over its committed seeds and kept regression inputs only
# (no mutation: each input runs once, under the campaign's sanitizer and memory limits), in
# seconds once the targets are built (the first build, with AddressSanitizer, takes a few
# minutes). Run by ./test.sh after the Rust tests; on its own: fuzz/smoke.sh. See fuzz/README.md.
#
# Without a nightly toolchain it skips (exit 0, saying so). With nightly but without cargo-fuzz it
# installs cargo-fuzz first (`cargo install cargo-fuzz --locked`; a failed install fails the run).
# Every step has a time limit, so that it cannot hang: a build, an install or a target that runs
# past its limit fails the run, as does any crash, sanitizer report, leak or input past the memory
# limits. The inputs a failed target left are copied to fuzz/artifacts/<target>/.
#
# Environment: FUZZ_SMOKE_RUNS=N adds N mutated inputs per target (default 0);
# FUZZ_SMOKE_BUILD_TIMEOUT (seconds, default 1800) limits the install and the build;
# FUZZ_SMOKE_TARGET_TIMEOUT (seconds, default 300) limits each target's run.
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${FUZZ_SMOKE_RUNS:-0}"
build_timeout="${FUZZ_SMOKE_BUILD_TIMEOUT:-1800}"
target_timeout="${FUZZ_SMOKE_TARGET_TIMEOUT:-300}"

# `timeout` sends TERM at the limit and KILL 30 s later; its status is 124 when the limit struck.
limited() {
  local seconds="$1"
  shift
  timeout --kill-after=30 "$seconds" "$@"
}

if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "fuzz smoke run skipped: no nightly toolchain (rustup toolchain install nightly)"
  exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "fuzz smoke: cargo-fuzz is missing; installing it (cargo install cargo-fuzz --locked)"
  if ! limited "$build_timeout" cargo install cargo-fuzz --locked; then
    echo "fuzz smoke: installing cargo-fuzz failed (or took over ${build_timeout} s)" >&2
    exit 1
  fi
fi

# A target's log: whole, or its first 200 and last 100 lines when it is longer than 400.
show_log() {
  local n
  n="$(wc -l <"$1")"
  if [ "$n" -le 400 ]; then
    cat "$1"
  else
    head -n 200 "$1"
    echo "... ($((n - 300)) lines left out) ..."
    tail -n 100 "$1"
  fi
}

# The `http_api` target links the catalog's bundled SQLite, which the sanitizer build instruments
# too; AddressSanitizer then reports two function-local static arrays of the same name in
# sqlite3.c as a one-definition-rule violation at start-up (a C++ rule; Rust and C have none to
# break here), so that check is off. Every other AddressSanitizer check stays on.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_odr_violation=0"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The smoke run's build: cargo-fuzz's dev mode, the profile `dev` of fuzz/Cargo.toml (opt-level 1,
# one optimisation pass over many codegen units instead of cargo-fuzz's release default of
# opt-level 3 in one codegen unit per crate), with the same AddressSanitizer, coverage
# instrumentation, debug assertions and overflow checks as a campaign's build. The smoke run runs
# each input once, so the build is most of its time; campaigns keep the release build (fuzz/README.md).
build_flags=(--dev)

cd fuzz
if ! limited "$build_timeout" cargo +nightly fuzz build "${build_flags[@]}"; then
  echo "fuzz smoke: building the fuzz targets failed (or took over ${build_timeout} s)" >&2
  exit 1
fi
targets="$(cargo +nightly fuzz list)"
[ -n "$targets" ] || { echo "fuzz smoke: cargo fuzz list found no targets" >&2; exit 1; }
for target in $targets; do
  # A copy (each file named after where it comes from), so that libFuzzer writes nothing into
  # the committed directories.
  mkdir -p "$work/$target" "$work/$target.out"
  for kind in seeds regressions; do
    [ -d "$kind/$target" ] || continue
    for f in "$kind/$target"/*; do
      if [ -f "$f" ]; then cp "$f" "$work/$target/$kind-$(basename "$f")"; fi
    done
  done
  inputs="$(find "$work/$target" -type f | wc -l)"
  if [ "$inputs" -eq 0 ]; then
    echo "fuzz smoke: $target has no seeds (fuzz/seeds/$target/)" >&2
    exit 1
  fi
  echo "== fuzz smoke: $target ($inputs inputs, $runs mutations)"
  status=0
  limited "$target_timeout" cargo +nightly fuzz run "${build_flags[@]}" "$target" "$work/$target" -- \
    -runs="$runs" -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=30 \
    -max_total_time="$target_timeout" -artifact_prefix="$work/$target.out/" \
    >"$work/$target.log" 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then
    show_log "$work/$target.log"
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
      echo "fuzz smoke: $target ran past ${target_timeout} s and was stopped" >&2
    fi
    # libFuzzer names what it saves after the input's SHA-1 (crash-<sha1>, leak-..., oom-...).
    for a in "$work/$target.out"/*; do
      [ -f "$a" ] || continue
      mkdir -p "artifacts/$target"
      cp "$a" "artifacts/$target/"
      sum="$(sha1sum <"$a" | cut -d' ' -f1)"
      from="$(cd "$work/$target" && sha1sum -- * | awk -v s="$sum" '$1 == s { print $2 }' | head -n 1)"
      echo "fuzz smoke: failing input saved as fuzz/artifacts/$target/$(basename "$a")${from:+ (${from%%-*}/$target/${from#*-})}" >&2
    done
    echo "fuzz smoke: $target failed (exit status $status; its log is above)" >&2
    exit 1
  fi
  grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)' "$work/$target.log" || true
done
echo "fuzz smoke: all targets passed"
