#!/usr/bin/env bash
# Prints one JSON object:
# - back to back, writer held: ns per player-tick from Java through Batch + one Recorder.submit
#   per tick (JIT warmed, median of several runs), next to the same workload through
#   Recorder::submit_tick in Rust in the same run (`tickreel bench --only jni`,
#   native/cli/src/bench/jni.rs); the measured rounds hold the writer thread (a test hook);
# - paced (PacedBench.java): 200 players at a real 20 ticks/s, sleeping between ticks, the writer
#   running: fill + Recorder.submit (jni_paced_*) next to fill + the same bytes copied into a direct
#   ByteBuffer (jni_paced_floor_*), median and p99 per player-tick; and the Java heap bytes per
#   Playhead.advance() without entities() (playhead_advance_allocs).
# Usage: java-bindings/bench.sh [--quick] [--paced-only]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
build="$here/build"
quick=""
paced_only=""
for arg in "$@"; do
  case "$arg" in
    --quick) quick="--quick" ;;
    --paced-only) paced_only=1 ;;
    *) echo "usage: $0 [--quick] [--paced-only]" >&2; exit 2 ;;
  esac
done

TICKREEL_CARGO_FEATURES=test-hooks "$here/build.sh" release >&2
rm -rf "$build/bench-classes"
mkdir -p "$build/bench-classes"
javac --release 17 -cp "$build/tickreel.jar" -d "$build/bench-classes" \
  "$here"/src/bench/java/io/tickreel/*.java >&2
cp="$build/tickreel.jar:$build/bench-classes"

# key=value lines to "key":value (the figures are numbers).
figure() { printf '%s\n' "$1" | sed -n "s/^$2=\([0-9.eE+-]*\).*/\1/p"; }

paced=$(java -cp "$cp" io.tickreel.PacedBench $quick)
printf '%s\n' "$paced" >&2
json=""
for key in jni_paced_ns_per_player_tick_median jni_paced_ns_per_player_tick_p99 \
           jni_paced_floor_ns_per_player_tick_median jni_paced_floor_ns_per_player_tick_p99 \
           playhead_advance_allocs; do
  v=$(figure "$paced" "$key")
  [ -n "$v" ] || { echo "PacedBench printed no $key" >&2; exit 1; }
  json="$json\"$key\":$(printf '%.1f' "$v"),"
done
json="$json\"paced_players\":200,\"paced_ticks_per_s\":20,"

if [ -z "$paced_only" ]; then
  (cd "$root" && cargo build --release --features tickreel-cli/bench --bin tickreel >&2)
  jni_line=$(java -cp "$cp" io.tickreel.JniBench $quick)
  jni=${jni_line#jni_ns_per_player_tick=}
  rust_json=$("${CARGO_TARGET_DIR:-$root/target}/release/tickreel" bench --json --only jni $quick)
  rust=$(printf '%s' "$rust_json" | grep -o '"rust_ns_per_player_tick":[0-9.eE+-]*' | cut -d: -f2)
  [ -n "$rust" ] || { echo "tickreel bench printed no rust_ns_per_player_tick" >&2; exit 1; }
  json="$json$(printf '"jni_ns_per_player_tick":%.1f,"rust_ns_per_player_tick":%s,"players":100,' "$jni" "$rust")"
fi
printf '{%s"quick":%s,"path":"back to back: encode + Recorder.submit / Recorder::submit_tick, writer held during measured rounds; paced: 20 ticks/s, writer running"}\n' \
  "$json" "$([ -n "$quick" ] && echo true || echo false)"
