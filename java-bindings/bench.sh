#!/usr/bin/env bash
# Prints one JSON object: ns per player-tick from Java through TickWriter + one Recorder.submit per
# tick (JIT warmed, median of several runs), next to the same workload through Recorder::submit_tick
# in Rust in the same run (`tickreel bench --only jni`, native/cli/src/bench/jni.rs). Both figures are
# the server thread's cost: the measured rounds hold the writer thread (a test hook).
# Usage: java-bindings/bench.sh [--quick]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
build="$here/build"
quick=""
[ "${1:-}" = "--quick" ] && quick="--quick"

TICKREEL_CARGO_FEATURES=test-hooks "$here/build.sh" release >&2
(cd "$root" && cargo build --release --bin tickreel >&2)
rm -rf "$build/bench-classes"
mkdir -p "$build/bench-classes"
javac --release 17 -cp "$build/tickreel.jar" -d "$build/bench-classes" \
  "$here/src/bench/java/io/tickreel/JniBench.java" >&2

jni_line=$(java -cp "$build/tickreel.jar:$build/bench-classes" io.tickreel.JniBench $quick)
jni=${jni_line#jni_ns_per_player_tick=}
rust_json=$("${CARGO_TARGET_DIR:-$root/target}/release/tickreel" bench --json --only jni $quick)
rust=$(printf '%s' "$rust_json" | grep -o '"rust_ns_per_player_tick":[0-9.eE+-]*' | cut -d: -f2)
[ -n "$rust" ] || { echo "tickreel bench printed no rust_ns_per_player_tick" >&2; exit 1; }
printf '{"jni_ns_per_player_tick":%.1f,"rust_ns_per_player_tick":%s,"players":100,"quick":%s,"path":"encode + Recorder.submit / Recorder::submit_tick, writer held during measured rounds"}\n' \
  "$jni" "$rust" "$([ -n "$quick" ] && echo true || echo false)"
