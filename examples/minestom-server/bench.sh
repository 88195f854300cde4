#!/usr/bin/env bash
# The example server's figures with real clients: tick time with recording on against off, and
# what the adapter allocates on the tick thread. For each bot count, the server runs twice (off:
# --no-record, then on), N mineflayer bots (bench/walkers.js) walk in circles, jump and chat for
# S seconds; Minestom's tick monitor gives each tick's duration. Prints one JSON object:
#   mspt_off_p50 / _p99, mspt_on_p50 / _p99 and mspt_recording_vs_off_p99_ratio per bot count,
#   tick_thread_alloc_bytes_per_tick (bytes the adapter's per-tick work allocated per tick, over
#   every instance tick without a terrain offer, ThreadMXBean.getCurrentThreadAllocatedBytes),
#   bytes_per_player_hour per bot count (the finished instance recordings' bytes over the time
#   players were in them, bench/PlayerHours.java) and report_ms per bot count (a bot's /report of
#   another, from the command to "Report #ID filed": the server's --report-after, 10 s, included).
# Usage: examples/minestom-server/bench.sh [--bots "10 20"] [--seconds 30]
# Installs what tests/minestom.sh installs (Node 22, mineflayer). Timing on a shared machine is
# noisy: compare runs made together.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bot_counts="10 20"
seconds=30
while [ $# -gt 0 ]; do
  case "$1" in
    --bots) bot_counts="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    *) echo "usage: bench.sh [--bots \"10 20\"] [--seconds S]" >&2; exit 2 ;;
  esac
done
bots_dir="$root/tests/minestom"
if [ ! -x "$bots_dir/node_modules/.bin/node" ] || [ ! -d "$bots_dir/node_modules/mineflayer" ]; then
  (cd "$bots_dir" && npm ci --no-audit --no-fund --loglevel=error) >&2
fi
node="$bots_dir/node_modules/.bin/node"
work="$(mktemp -d "${TMPDIR:-/tmp}/tickreel-minestom-bench.XXXXXX")"
server_pid=""
trap '[ -n "$server_pid" ] && kill -KILL "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT

run() { # run MODE BOTS -> $work/MODE-BOTS.times, .err
  local mode="$1" n="$2" port
  port="$("$node" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  local extra=()
  [ "$mode" = off ] && extra=(--no-record)
  mkfifo "$work/out-$mode-$n"
  "$here/run.sh" --port "$port" --data "$work/data-$mode-$n" --tick-times "$work/$mode-$n.times" "${extra[@]}" \
    >"$work/out-$mode-$n" 2>"$work/$mode-$n.err" &
  server_pid=$!
  exec 7<"$work/out-$mode-$n"
  local line ready=""
  while IFS= read -r -t 600 -u 7 line; do [ "$line" = "ready $port" ] && { ready=1; break; }; done
  [ -n "$ready" ] || { echo "bench.sh: the server did not start" >&2; tail "$work/$mode-$n.err" >&2; exit 1; }
  cat <&7 >/dev/null &
  exec 7<&-
  local report=()
  [ "$mode" = on ] && report=(--report)
  "$node" "$here/bench/walkers.js" --port "$port" --bots "$n" --seconds "$seconds" "${report[@]}" \
    | tee "$work/$mode-$n.walkers" >&2
  kill -TERM "$server_pid"
  wait "$server_pid" || { echo "bench.sh: the server exited $? after SIGTERM" >&2; exit 1; }
  server_pid=""
  grep -h '^tick path' "$work/$mode-$n.err" >&2 || true
  if [ "$mode" = on ]; then
    # The instance recordings the server finished at SIGTERM: their bytes per player-hour.
    "$java" -cp "$tickreel_jar" "$here/bench/PlayerHours.java" "$work/data-$mode-$n"/recordings/*.reel \
      | tee "$work/$mode-$n.hours" >&2
  fi
}

# The io.tickreel jar run.sh builds against (installed in the local Maven repository) and a Java.
version=$(sed -n 's:^ *<tickreel.version>\(.*\)</tickreel.version>.*:\1:p' "$root/tickreel-minestom/pom.xml" | head -1)
tickreel_jar="${TICKREEL_M2_REPOSITORY:-$HOME/.m2/repository}/io/tickreel/tickreel/$version/tickreel-$version.jar"
java=java

for n in $bot_counts; do
  echo "== $n bots: recording off ==" >&2
  run off "$n"
  echo "== $n bots: recording on ==" >&2
  run on "$n"
done

python3 - "$work" "$seconds" $bot_counts <<'PY'
import json, re, sys
work, seconds, counts = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]
out = {"seconds": seconds}
alloc_ticks = alloc_bytes = 0
for n in counts:
    for mode in ("off", "on"):
        t = [float(x) for x in open(f"{work}/{mode}-{n}.times").read().split()]
        # the walking window: the last `seconds` of ticks before the bots quit (the last 2 s)
        w = t[max(0, len(t) - 40 - seconds * 20):len(t) - 40]
        out[f"mspt_{mode}_p50_{n}bots"] = round(pct(w, 50), 3)
        out[f"mspt_{mode}_p99_{n}bots"] = round(pct(w, 99), 3)
    out[f"mspt_recording_vs_off_p99_ratio_{n}bots"] = round(out[f"mspt_on_p99_{n}bots"] / out[f"mspt_off_p99_{n}bots"], 3)
    m = re.search(r"tick path: (\d+) instance ticks, (\d+) allocated \((\d+) bytes.*?; (\d+) more offered terrain",
                  open(f"{work}/on-{n}.err").read())
    if m:
        alloc_ticks += int(m.group(1)); alloc_bytes += int(m.group(3))
    m = re.search(r"report_ms=(\d+)", open(f"{work}/on-{n}.walkers").read())
    out[f"report_ms_{n}bots"] = int(m.group(1)) if m else None
    m = re.search(r"bytes_per_player_hour=(\d+)", open(f"{work}/on-{n}.hours").read())
    out[f"bytes_per_player_hour_{n}bots"] = int(m.group(1)) if m else None
out["mspt_recording_vs_off_p99_ratio"] = max(out[f"mspt_recording_vs_off_p99_ratio_{n}bots"] for n in counts)
out["tick_thread_alloc_bytes_per_tick"] = round(alloc_bytes / alloc_ticks, 3) if alloc_ticks else None
print(json.dumps(out, indent=1))
PY
