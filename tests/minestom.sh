#!/usr/bin/env bash
# End-to-end test of tickreel-minestom with real Minecraft clients (mineflayer).
#
# 1. examples/minestom-server is started on 127.0.0.1 with a fresh data folder; five bots
#    (tests/minestom/bots.js) join, walk, sprint, jump, sneak, dig and place blocks, chat, hit one
#    another, /report one another and run the time trial (Hal twice, the second time against a ghost;
#    Carol once; Hal a third time against Carol's run, chosen with /race rank 2; Carol again against
#    her personal best, /race pb); Carol watches the
#    pig and the lamp the server changes;
#    the server is stopped with SIGTERM (it must exit 0) and tests/minestom/Check.java compares the recording and the catalog, read with the io.tickreel
#    API, with what the bots logged.
# 2. A crash: the server is started again on the same folder; Eve walks and leaves (her leave
#    flushes the recording), Fay walks, and the server is killed with SIGKILL while she does. Started
#    once more, the server finishes the live recording it left; stopped with SIGTERM (exit 0);
#    Check.java --walkers checks that Eve's whole walk and leave are in it, and in what
#    `tickreel recover` and `tickreel compact` make of a copy of the live recording.
# 3. An unwritable folder: that server records Gus walking while its live directory is immutable for
#    10 s (chattr +i); it must keep running, report the failed writes, write again afterwards and
#    finish a recording with Gus's whole walk (Check.java --walkers).
#
# Installs what it needs (Node 22 from the npm package `node`, mineflayer 4.39, pinned by
# tests/minestom/package-lock.json) into tests/minestom/node_modules; fails, never skips. Needs a
# JDK 25 (JAVA_HOME, or /usr/lib/jvm/temurin-25-jdk-amd64) and Maven (run.sh builds on first use).
# KEEP_MINESTOM_DATA=1 keeps the data folder.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
bots="$here/minestom"
start_s=$SECONDS

echo "== tests/minestom.sh: npm ci (mineflayer, node 22) =="
if [ ! -x "$bots/node_modules/.bin/node" ] || [ ! -d "$bots/node_modules/mineflayer" ] \
    || [ "$bots/package-lock.json" -nt "$bots/node_modules/.package-lock.json" ]; then
  command -v npm >/dev/null || { echo "tests/minestom.sh: npm is missing (apt-get install npm)" >&2; exit 1; }
  (cd "$bots" && npm ci --no-audit --no-fund --loglevel=error)
fi
node="$bots/node_modules/.bin/node"
"$node" --version | grep -q '^v22\.' || { echo "tests/minestom.sh: $node is not Node 22" >&2; exit 1; }

java_home="${JAVA_HOME:-}"
if [ -z "$java_home" ] || [ ! -x "$java_home/bin/java" ] \
    || [ "$("$java_home/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')" -lt 25 ] 2>/dev/null; then
  java_home=/usr/lib/jvm/temurin-25-jdk-amd64
fi

data="$(mktemp -d "${TMPDIR:-/tmp}/tickreel-minestom.XXXXXX")"
server_pid=""
bg_pids=()
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -KILL "$server_pid" 2>/dev/null || true
  fi
  for p in "${bg_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  if [ -n "${immutable:-}" ]; then chattr -R -i "$immutable" 2>/dev/null || true; fi
  if [ -n "${KEEP_MINESTOM_DATA:-}" ]; then echo "data kept in $data"; else rm -rf "$data"; fi
}
trap cleanup EXIT
fail=0

# start_server NAME: run.sh on a free port with $data; waits for `ready <port>` (first use builds
# with Maven: up to 10 minutes). Sets server_pid and port; logs in $data/NAME.err.
start_server() {
  local name="$1" line ready=""
  port="$("$node" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  echo "== $name: examples/minestom-server/run.sh --port $port --data $data =="
  mkfifo "$data/$name.out"
  "$root/examples/minestom-server/run.sh" --port "$port" --data "$data" >"$data/$name.out" 2>"$data/$name.err" &
  server_pid=$!
  exec 8<"$data/$name.out"
  while IFS= read -r -t 600 -u 8 line; do
    echo "server: $line"
    if [ "$line" = "ready $port" ]; then ready=1; break; fi
  done
  if [ -z "$ready" ]; then
    echo "FAIL: the server did not print 'ready $port'" >&2
    tail -n 40 "$data/$name.err" >&2
    exit 1
  fi
  # Keep draining standard output (nothing more is expected) so the server never blocks on it.
  cat <&8 >"$data/$name.stdout-rest" &
  exec 8<&-
}

# stop_server NAME [ALLOWED]: SIGTERM, at most 60 s; the exit status must be 0 and the log free
# of errors (but those matching the regular expression ALLOWED).
stop_server() {
  local name="$1" allowed="${2:-^\$}" rc=""
  kill -TERM "$server_pid"
  for _ in $(seq 1 120); do
    if ! kill -0 "$server_pid" 2>/dev/null; then
      wait "$server_pid" && rc=0 || rc=$?
      break
    fi
    sleep 0.5
  done
  if [ -z "$rc" ]; then
    echo "FAIL: the server did not exit within 60 s of SIGTERM" >&2
    tail -n 40 "$data/$name.err" >&2
    exit 1
  fi
  server_pid=""
  grep -E '^(finished|stopping|tick path)|recovered' "$data/$name.err" || true
  if [ "$rc" -ne 0 ]; then echo "FAIL: $name: the server exited $rc after SIGTERM (want 0)" >&2; fail=1
  else echo "ok   $name: the server exited 0 after SIGTERM"; fi
  if grep -E 'ERROR' "$data/$name.err" | grep -Ev "$allowed" >/dev/null; then
    echo "FAIL: $name: the server logged errors" >&2
    grep -E -A8 'ERROR' "$data/$name.err" | head -n 60 >&2
    fail=1
  else
    echo "ok   $name: no error in the server's log"
  fi
}

check() { # check ARGS...: Check.java with the io.tickreel jar the example server runs with
  "$java_home/bin/java" --enable-native-access=ALL-UNNAMED -cp "$root/examples/minestom-server/target/lib/*" \
    "$bots/Check.java" "$@" || fail=1
}

# ---- 1. four bots ------------------------------------------------------------------------------
start_server server1
echo "== bots: node tests/minestom/bots.js --port $port =="
bots_rc=0
timeout 300 "$node" "$bots/bots.js" --port "$port" --log "$data/bots.jsonl" || bots_rc=$?
stop_server server1
if [ "$bots_rc" -ne 0 ]; then echo "FAIL: bots.js exited $bots_rc" >&2; fail=1; fi
# The adapter's per-tick work allocates only when something happens for the first time (a name
# registered, the batch grown, a leave flushed): at most 20 of the instance ticks in this run.
alloc_line="$(grep -E '^tick path: ' "$data/server1.err" || true)"
if [[ "$alloc_line" =~ ^tick\ path:\ ([0-9]+)\ instance\ ticks,\ ([0-9]+)\ allocated ]] \
    && [ "${BASH_REMATCH[1]}" -ge 200 ] && [ "${BASH_REMATCH[2]}" -le 20 ]; then
  echo "ok   ${BASH_REMATCH[2]} of ${BASH_REMATCH[1]} instance ticks allocated on the tick thread (at most 20)"
else
  echo "FAIL: the tick path's allocations: '${alloc_line:-no tick path line}' (want at most 20 of at least 200 ticks)" >&2
  fail=1
fi
echo "== Check.java: the recording and the catalog against the bots' log =="
if [ -s "$data/bots.jsonl" ]; then
  check "$data" "$data/bots.jsonl"
else
  echo "FAIL: the bots logged nothing" >&2
  fail=1
fi

# ---- 2. SIGKILL and recovery ---------------------------------------------------------------------
start_server server2
echo "== Eve walks and leaves; Fay walks; SIGKILL =="
timeout 120 "$node" "$bots/crash.js" --port "$port" --log "$data/crash.jsonl" --name Eve --seconds 4 --quit \
  || { echo "FAIL: Eve (crash.js) failed" >&2; fail=1; }
timeout 120 "$node" "$bots/crash.js" --port "$port" --log "$data/crash.jsonl" --name Fay --seconds 60 &
fay=$!
bg_pids+=("$fay")
sleep 4
kill -KILL "$server_pid"
wait "$server_pid" 2>/dev/null || true
server_pid=""
fay_rc=0
wait "$fay" || fay_rc=$?
[ "$fay_rc" -eq 0 ] || { echo "FAIL: Fay (crash.js) exited $fay_rc" >&2; fail=1; }
live=("$data"/recordings/*.reel.live)
if [ -d "${live[0]}" ]; then echo "ok   the killed server left its live recording ${live[*]##*/}"
else echo "FAIL: no live recording after SIGKILL" >&2; fail=1; fi
# The operator's way, beside the adapter's own at the next start: `tickreel recover` on a copy of
# what the killed server left, then `tickreel compact` into a .reel, which must hold Eve's whole
# walk and leave (flushed by her leave before the kill) and only poses Fay sent.
if [ -d "${live[0]}" ]; then
  (cd "$root" && source scripts/test-build.sh && test_build -q --bin tickreel)
  cli="${CARGO_TARGET_DIR:-$root/target}/debug/tickreel"
  copy="$data/cli/recordings/${live[0]##*/}"
  mkdir -p "$data/cli/recordings"
  cp -r "${live[0]}" "$copy"
  if "$cli" recover "$copy" && "$cli" compact "$copy" "${copy%.live}"; then
    rm -rf "$copy"
    echo "ok   tickreel recover and compact finished the killed server's recording: ${copy##*/}"
    echo "== Check.java --walkers: the recording tickreel recover finished (Eve, Fay) =="
    check --walkers "$data/cli" "$data/crash.jsonl" Eve
  else
    echo "FAIL: tickreel recover / compact of ${live[0]##*/}" >&2; fail=1
  fi
fi

# ---- 3. an unwritable folder -------------------------------------------------------------------
# The server that finishes the killed one's recording goes on recording Gus; for 10 s (two flush
# intervals) its live directory is made immutable (chattr +i: root ignores permissions, not this);
# the server must keep running and report it, then write again and finish the recording whole.
command -v chattr >/dev/null || { echo "FAIL: chattr is missing (apt-get install e2fsprogs)" >&2; exit 1; }
start_server server3
timeout 150 "$node" "$bots/crash.js" --port "$port" --log "$data/crash.jsonl" --name Gus --seconds 24 --quit &
gus=$!
bg_pids+=("$gus")
sleep 6
live=()
for d in "$data"/recordings/*.reel.live; do [ -d "$d" ] && live+=("$d"); done
if [ "${#live[@]}" -ne 1 ]; then echo "FAIL: want one live recording while Gus walks, got ${live[*]:-none}" >&2; exit 1; fi
chattr -R +i "${live[0]}" || { echo "FAIL: chattr +i ${live[0]} (the file system must support it)" >&2; exit 1; }
immutable="${live[0]}"
echo "== ${live[0]##*/} made immutable for 10 s =="
sleep 10
if kill -0 "$server_pid" 2>/dev/null; then echo "ok   the server keeps running with its recording folder unwritable"
else echo "FAIL: the server died while its recording folder was unwritable" >&2; fail=1; fi
if grep -E 'ERROR.*tickreel:.*recording goes on in memory' "$data/server3.err" >/dev/null; then
  echo "ok   the adapter reported the failed writes: $(grep -E -o 'tickreel:.*recording goes on in memory' "$data/server3.err" | head -n 1 | cut -c1-200)"
else
  echo "FAIL: the adapter reported no failed write" >&2; fail=1
fi
chattr -R -i "$immutable"
immutable=""
gus_rc=0
wait "$gus" || gus_rc=$?
[ "$gus_rc" -eq 0 ] || { echo "FAIL: Gus (crash.js) exited $gus_rc" >&2; fail=1; }
sleep 2
if grep -E 'tickreel: recording .* is written again' "$data/server3.err" >/dev/null; then
  echo "ok   the recording is written again once the folder is writable"
else
  echo "FAIL: no 'written again' after the folder became writable" >&2; fail=1
fi
stop_server server3 'tickreel:.*recording goes on in memory'
echo "== Check.java --walkers: the recording the killed server left (Eve, Fay), the one written through the failure (Gus) =="
check --walkers "$data" "$data/crash.jsonl" Eve Gus

echo "tests/minestom.sh: $((SECONDS - start_s)) s"
if [ "$fail" -ne 0 ]; then
  echo "tests/minestom.sh: FAILED" >&2
  exit 1
fi
echo "tests/minestom.sh: passed"
