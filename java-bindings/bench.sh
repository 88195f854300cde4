#!/usr/bin/env bash
# The JNI figures, from the JMH benchmarks of java-bindings/benchmarks (io.tickreel:tickreel-benchmarks),
# printed as ONE JSON object on stdout (JMH's own report goes to stderr; its JSON results are left
# in java-bindings/benchmarks/target/jmh/):
# - paced (PacedBench): 200 players at a real 20 ticks/s, sleeping between ticks, the writer
#   running: fill + Recorder.submit (jni_paced_*) next to fill + the same bytes copied into the
#   batch's direct ByteBuffer (jni_paced_floor_*), JMH SampleTime, median and p99 per player-tick;
# - the Java heap bytes per Playhead.advance() without entities() (PlayheadBench:
#   playhead_advance_allocs; fails unless advance() + entities() measures well above zero);
# - back to back, writer held (JniBench): ns per player-tick from Java through Batch + one
#   Recorder.submit per tick, median of the measured rounds (jni_ns_per_player_tick), next to the
#   same workload through Recorder::submit_tick in Rust (`tickreel bench --only jni`,
#   native/bench/src/areas/jni.rs: rust_ns_per_player_tick); the measured rounds hold the writer
#   thread (a test hook);
# - ghost sampling from Java at 60 Hz and at random times (GhostBench: jni_ghost_sample_ns,
#   jni_ghost_random_sample_ns, jni_ghost_sample_allocs from -prof gc) and building a tick alone,
#   no submit (BatchBench: batch_fill_ns_per_player_tick).
# Builds what it needs: the release library with the test hooks (loaded by the benchmarks through
# -Dtickreel.library.path, not the one packed in the jar), the benchmarks jar (mvn, with the
# bindings of this checkout) and the CLI for the Rust side.
# Usage: java-bindings/bench.sh [--quick] [--paced-only]
#   --quick       short runs (a smoke test; the figures are not for BENCHMARKS.md)
#   --paced-only  only the paced figures and playhead_advance_allocs
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac
quick=""
paced_only=""
for arg in "$@"; do
  case "$arg" in
    --quick) quick="--quick" ;;
    --paced-only) paced_only=1 ;;
    *) echo "usage: $0 [--quick] [--paced-only]" >&2; exit 2 ;;
  esac
done

echo "== cargo: the release library with the test hooks ==" >&2
(cd "$root" && cargo build --release -p tickreel-bridge --lib --features test-hooks >&2)
library="$target_dir/release/libtickreel.so"
[ -f "$library" ] || { echo "no library at $library" >&2; exit 1; }
if [ -z "$paced_only" ]; then
  echo "== cargo: the CLI (tickreel bench --only jni) ==" >&2
  (cd "$root" && cargo build --release --features tickreel-cli/bench --bin tickreel >&2)
fi

echo "== mvn: the benchmarks jar ==" >&2
# The benchmarks jar and the bindings it runs, from this checkout (the reactor: no installed copy).
mvn -B -ntp -q -f "$here/pom.xml" -pl benchmarks -am -DskipTests package >&2
jar="$here/benchmarks/target/benchmarks.jar"
results="$here/benchmarks/target/jmh"
rm -rf "$results"
mkdir -p "$results"

# One JMH run: NAME REGEX [JMH options...]; JSON results in $results/NAME.json.
jmh() {
  local name="$1" regex="$2"
  shift 2
  echo "== JMH: $name ==" >&2
  java -jar "$jar" "$regex" -foe true -jvmArgsAppend "-Dtickreel.library.path=$library" \
    -rf json -rff "$results/$name.json" "$@" >&2
}

# --quick: 5 s paced instead of 30 s; fewer and shorter iterations elsewhere; the back-to-back
# rounds as the Rust twin's quick ones (600 ticks, 4 warm-up + 3 measured).
if [ -n "$quick" ]; then
  paced_opts=(-wi 1 -w 1s -i 1 -r 5s)
  micro_opts=(-wi 1 -w 1s -i 2 -r 1s)
  jni_opts=(-wi 4 -wbs 600 -i 3 -bs 600)
else
  paced_opts=()
  micro_opts=()
  jni_opts=()
fi
jmh paced '^io\.tickreel\.PacedBench\.' "${paced_opts[@]}"
if [ -n "$paced_only" ]; then
  jmh micro '^io\.tickreel\.PlayheadBench\.' -prof gc "${micro_opts[@]}"
else
  jmh micro '^io\.tickreel\.(PlayheadBench|GhostBench|BatchBench)\.' -prof gc "${micro_opts[@]}"
  jmh jni '^io\.tickreel\.JniBench\.' "${jni_opts[@]}"
  echo "== tickreel bench --only jni (Rust) ==" >&2
  "$target_dir/release/tickreel" bench --json --only jni $quick > "$results/rust.json"
fi

python3 - "$results" "$([ -n "$quick" ] && echo true || echo false)" "$([ -n "$paced_only" ] && echo true || echo false)" <<'EOF'
import json, os, sys

results, quick, paced_only = sys.argv[1], sys.argv[2] == "true", sys.argv[3] == "true"
PACED_PLAYERS = 200  # PacedBench.PLAYERS
JNI_PLAYERS = 100    # JniBench.PLAYERS
JNI_TICKS = 2000     # JniBench.TICKS: the batch size its @OperationsPerInvocation assumes

def die(msg):
    print("bench.sh: " + msg, file=sys.stderr)
    sys.exit(1)

runs = {}
for name in ("paced", "micro", "jni"):
    path = os.path.join(results, name + ".json")
    if os.path.exists(path):
        with open(path) as f:
            for r in json.load(f):
                runs[r["benchmark"].removeprefix("io.tickreel.")] = r

def run(name):
    if name not in runs:
        die("JMH reported no " + name)
    return runs[name]

def pct(name, p):
    return run(name)["primaryMetric"]["scorePercentiles"][p]

def aux(name, key):
    # A counter's values over the measured iterations.
    return sum(sum(fork) for fork in run(name)["secondaryMetrics"][key]["rawData"])

def per_call_bytes(name):
    calls = aux(name, "moved") + aux(name, "stalled")
    if calls <= 0:
        die(name + " made no calls")
    return aux(name, "allocatedBytes") / calls, calls

out = {}
for key, bench in (("jni_paced", "PacedBench.submit"), ("jni_paced_floor", "PacedBench.floor")):
    for p, suffix in (("50.0", "median"), ("99.0", "p99")):
        out[f"{key}_ns_per_player_tick_{suffix}"] = round(pct(bench, p) / PACED_PLAYERS, 1)
    hist = run(bench)["primaryMetric"].get("rawDataHistogram", [])
    ticks = sum(n for fork in hist for it in fork for _, n in it)
    print(f"{bench}: {ticks} paced ticks measured", file=sys.stderr)

advance, calls = per_call_bytes("PlayheadBench.advance")
entities, _ = per_call_bytes("PlayheadBench.advanceAndEntities")
print(f"PlayheadBench: {advance} bytes per advance() over {calls:.0f} calls"
      f" (moved {aux('PlayheadBench.advance', 'moved'):.0f}, stalled {aux('PlayheadBench.advance', 'stalled'):.0f});"
      f" the meter's check, advance() + entities() of 200 entities: {entities:.0f} bytes per call", file=sys.stderr)
if entities < 1000:
    die(f"the allocation meter does not count: advance() + entities() measured {entities} bytes per call")
out["playhead_advance_allocs"] = round(advance, 1)
out["paced_players"] = PACED_PLAYERS
out["paced_ticks_per_s"] = 20

if not paced_only:
    r = run("JniBench.submit")
    out["jni_ns_per_player_tick"] = round(pct("JniBench.submit", "50.0") * JNI_TICKS / r["measurementBatchSize"], 1)
    with open(os.path.join(results, "rust.json")) as f:
        text = f.read()
    try:
        rust = json.JSONDecoder().raw_decode(text[text.index("{"):])[0]
    except ValueError:
        die("tickreel bench printed no JSON object: " + text[:200])
    if "rust_ns_per_player_tick" not in rust:
        die("tickreel bench printed no rust_ns_per_player_tick")
    out["rust_ns_per_player_tick"] = rust["rust_ns_per_player_tick"]
    out["players"] = JNI_PLAYERS
    out["jni_ghost_sample_ns"] = round(run("GhostBench.forward")["primaryMetric"]["score"], 1)
    out["jni_ghost_random_sample_ns"] = round(run("GhostBench.random")["primaryMetric"]["score"], 1)
    norms = [run(b)["secondaryMetrics"]["gc.alloc.rate.norm"]["score"] for b in ("GhostBench.forward", "GhostBench.random")]
    out["jni_ghost_sample_allocs"] = round(max(norms), 1)
    out["batch_fill_ns_per_player_tick"] = round(run("BatchBench.fill")["primaryMetric"]["score"], 1)

out["quick"] = quick
out["path"] = ("JMH (java-bindings/benchmarks); back to back: encode + Recorder.submit / Recorder::submit_tick,"
               " writer held during measured rounds; paced: 20 ticks/s, writer running")
print(json.dumps(out, separators=(",", ":")))
EOF
