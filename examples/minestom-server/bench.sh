#!/usr/bin/env bash
# The example server's figures with real clients: tick time with recording on against off, and
# what the adapter allocates on the tick thread. For each bot count, the server runs twice (off:
# --no-record, then on), N mineflayer bots (bench/walkers.js) walk in circles, jump and chat for
# S seconds; Minestom's tick monitor gives each tick's duration. Prints one JSON object:
#   mspt_off_p50 / _p99, mspt_on_p50 / _p99 and mspt_recording_vs_off_p99_ratio per bot count,
#   tick_thread_alloc_bytes_per_tick (bytes the adapter's per-tick work allocated per tick in steady
#   state: over the second half of the walking window, ticks that offered terrain set apart; the whole run's count,
#   first uses included, is tick_thread_alloc_bytes_per_tick_whole_run; what the adapter's event
#   listeners (chat, swings, edits, time trials, replays) allocated beside it, per tick of the same
#   window, is tick_thread_listener_alloc_bytes_per_tick;
#   ThreadMXBean.getCurrentThreadAllocatedBytes), adapter_tick_us_mean / _p50 / _p99 per bot count
#   (the per-tick work's time in the same steady window, ticks that offered terrain set apart),
#   bytes_per_player_hour per bot count (the finished instance recordings' bytes over the time
#   players were in them, bench/PlayerHours.java) and report_ms per bot count (a bot's /report of
#   another, from the command to "Report #ID filed": the server's --report-after, 10 s, included).
# Usage: examples/minestom-server/bench.sh [--bots "10 20"] [--seconds 30] [--rounds 1]
# With R rounds, off and on alternate R times per bot count; the tick times of the rounds are
# pooled, the allocation summed, report_ms and bytes_per_player_hour are the rounds' medians.
# Installs what tests/minestom.sh installs (Node 22, mineflayer). Timing on a shared machine is
# noisy: compare runs made together.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bot_counts="10 20"
seconds=30
rounds=1
while [ $# -gt 0 ]; do
  case "$1" in
    --bots) bot_counts="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    *) echo "usage: bench.sh [--bots \"10 20\"] [--seconds S] [--rounds R]" >&2; exit 2 ;;
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

run() { # run MODE BOTS ROUND -> $work/MODE-BOTS-ROUND.times, .err, .walkers, .hours
  local mode="$1" n="$2" t="$1-$2-$3" port
  port="$("$node" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  local extra=()
  [ "$mode" = off ] && extra=(--no-record)
  mkfifo "$work/out-$t"
  "$here/run.sh" --port "$port" --data "$work/data-$t" --tick-times "$work/$t.times" "${extra[@]}" \
    >"$work/out-$t" 2>"$work/$t.err" &
  server_pid=$!
  exec 7<"$work/out-$t"
  local line ready=""
  while IFS= read -r -t 600 -u 7 line; do [ "$line" = "ready $port" ] && { ready=1; break; }; done
  [ -n "$ready" ] || { echo "bench.sh: the server did not start" >&2; tail "$work/$t.err" >&2; exit 1; }
  cat <&7 >/dev/null &
  exec 7<&-
  local report=()
  [ "$mode" = on ] && report=(--report)
  "$node" "$here/bench/walkers.js" --port "$port" --bots "$n" --seconds "$seconds" "${report[@]}" \
    | tee "$work/$t.walkers" >&2
  kill -TERM "$server_pid"
  wait "$server_pid" || { echo "bench.sh: the server exited $? after SIGTERM" >&2; exit 1; }
  server_pid=""
  grep -h '^tick path' "$work/$t.err" >&2 || true
  if [ "$mode" = on ]; then
    # The instance recordings the server finished at SIGTERM: their bytes per player-hour.
    "$java" -cp "$tickreel_jar" "$here/bench/PlayerHours.java" "$work/data-$t"/recordings/*.reel \
      | tee "$work/$t.hours" >&2
  fi
}

# The io.tickreel jar run.sh builds against (installed in the local Maven repository) and a Java.
version=$(sed -n 's:^ *<tickreel.version>\(.*\)</tickreel.version>.*:\1:p' "$root/tickreel-minestom/pom.xml" | head -1)
tickreel_jar="${TICKREEL_M2_REPOSITORY:-$HOME/.m2/repository}/io/tickreel/tickreel/$version/tickreel-$version.jar"
java=java

for n in $bot_counts; do
  for r in $(seq 1 "$rounds"); do
    echo "== $n bots, round $r: recording off ==" >&2
    run off "$n" "$r"
    echo "== $n bots, round $r: recording on ==" >&2
    run on "$n" "$r"
  done
done

python3 - "$work" "$seconds" "$rounds" $bot_counts <<'PY'
import json, re, statistics, sys
work, seconds, rounds, counts = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]
out = {"seconds": seconds, "rounds": rounds}
alloc_ticks = alloc_bytes = whole_ticks = whole_bytes = listener_bytes = 0
for n in counts:
    work_nanos = work_ticks = 0
    work_each = []
    for mode in ("off", "on"):
        w = []
        for r in range(1, rounds + 1):
            t = f"{work}/{mode}-{n}-{r}"
            # per tick: duration (ms), then the adapter's figures so far: per-tick work's bytes,
            # ticks that offered terrain, their bytes, all its listeners' bytes (per-tick work
            # included), the per-tick work's nanoseconds (without terrain ticks)
            rows = [line.split() for line in open(f"{t}.times") if line.strip()]
            # the walking window: `seconds` minus 4 s of ticks, ending 4 s before the server
            # stopped (the bots quit 1 to 3 s before it): the same walk with recording off and on
            end = len(rows) - 80
            start = max(1, end - (seconds - 4) * 20)
            w += [float(row[0]) for row in rows[start:end]]
            if mode == "on":
                # steady state: what the adapter allocated over the second half of the window
                # (every bot has chatted, the lamp has toggled and the report was asked for: the
                # first uses are behind), ticks that offered terrain (sections copied) set apart
                half = (start + end) // 2
                d = [int(rows[end - 1][k]) - int(rows[half - 1][k]) for k in range(1, 6)]
                alloc_bytes += d[0]
                alloc_ticks += (end - half) - d[1]
                listener_bytes += d[3] - d[0] - d[2]
                work_nanos += d[4]
                work_ticks += (end - half) - d[1]
                # each tick's own work: the difference of the running sums (terrain ticks add 0)
                work_each += [(int(rows[i][5]) - int(rows[i - 1][5])) / 1000 for i in range(half, end)
                              if rows[i][2] == rows[i - 1][2]]
                m = re.search(r"tick path: (\d+) instance ticks, (\d+) allocated \((\d+) bytes.*?; (\d+) more offered terrain",
                              open(f"{t}.err").read())
                if m:
                    whole_ticks += int(m.group(1)) - int(m.group(4)); whole_bytes += int(m.group(3))
        out[f"mspt_{mode}_p50_{n}bots"] = round(pct(w, 50), 3)
        out[f"mspt_{mode}_p99_{n}bots"] = round(pct(w, 99), 3)
    # the adapter's per-tick work (InstanceRecording.endTick: poses, flags, health, equipment,
    # blocks, the JNI submit) in steady state, without terrain ticks, in microseconds a tick
    out[f"adapter_tick_us_mean_{n}bots"] = round(work_nanos / work_ticks / 1000, 1) if work_ticks else None
    out[f"adapter_tick_us_p50_{n}bots"] = round(pct(work_each, 50), 1) if work_each else None
    out[f"adapter_tick_us_p99_{n}bots"] = round(pct(work_each, 99), 1) if work_each else None
    out[f"mspt_recording_vs_off_p99_ratio_{n}bots"] = round(out[f"mspt_on_p99_{n}bots"] / out[f"mspt_off_p99_{n}bots"], 3)
    def median_of(pattern, suffix):
        v = []
        for r in range(1, rounds + 1):
            m = re.search(pattern, open(f"{work}/on-{n}-{r}.{suffix}").read())
            if m:
                v.append(int(m.group(1)))
        return int(statistics.median(v)) if v else None
    out[f"report_ms_{n}bots"] = median_of(r"report_ms=(\d+)", "walkers")
    out[f"bytes_per_player_hour_{n}bots"] = median_of(r"bytes_per_player_hour=(\d+)", "hours")
out["mspt_recording_vs_off_p99_ratio"] = max(out[f"mspt_recording_vs_off_p99_ratio_{n}bots"] for n in counts)
out["tick_thread_alloc_bytes_per_tick"] = round(alloc_bytes / alloc_ticks, 3) if alloc_ticks else None
out["tick_thread_listener_alloc_bytes_per_tick"] = round(listener_bytes / alloc_ticks, 3) if alloc_ticks else None
out["tick_thread_alloc_bytes_per_tick_whole_run"] = round(whole_bytes / whole_ticks, 3) if whole_ticks else None
print(json.dumps(out, indent=1))
PY
