#!/usr/bin/env bash
# End-to-end test of tickreel-minestom with real Minecraft clients: examples/minestom-server is
# started on 127.0.0.1 with a fresh data folder, four mineflayer bots (tests/minestom/bots.js)
# join, walk, sprint, jump, sneak, dig and place blocks, chat, hit each other and report one
# another; the server is stopped with SIGTERM (must exit 0), then tests/minestom/Check.java reads
# the recording and the catalog with the io.tickreel API and compares them with what the bots
# logged. Installs what it needs (Node 22 from the npm package `node`, mineflayer 4.39, pinned
# by tests/minestom/package-lock.json) into tests/minestom/node_modules; fails, never skips.
# Needs a JDK 25 (JAVA_HOME, or /usr/lib/jvm/temurin-25-jdk-amd64) and Maven.
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

data="$(mktemp -d "${TMPDIR:-/tmp}/tickreel-minestom.XXXXXX")"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -KILL "$server_pid" 2>/dev/null || true
  fi
  if [ -n "${KEEP_MINESTOM_DATA:-}" ]; then echo "data kept in $data"; else rm -rf "$data"; fi
}
trap cleanup EXIT

# A free port on 127.0.0.1.
port="$("$node" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"

echo "== examples/minestom-server/run.sh --port $port --data $data =="
mkfifo "$data/server.out"
"$root/examples/minestom-server/run.sh" --port "$port" --data "$data" >"$data/server.out" 2>"$data/server.err" &
server_pid=$!
exec 8<"$data/server.out"
ready=""
# First use builds the adapter and the server with Maven: up to 10 minutes.
while IFS= read -r -t 600 -u 8 line; do
  echo "server: $line"
  if [ "$line" = "ready $port" ]; then ready=1; break; fi
done
if [ -z "$ready" ]; then
  echo "FAIL: the server did not print 'ready $port'" >&2
  tail -n 40 "$data/server.err" >&2
  exit 1
fi
# Keep draining standard output (nothing more is expected) so the server never blocks on it.
cat <&8 >"$data/server.stdout-rest" &
exec 8<&-

echo "== bots: node tests/minestom/bots.js --port $port =="
bots_rc=0
timeout 300 "$node" "$bots/bots.js" --port "$port" --log "$data/bots.jsonl" || bots_rc=$?

echo "== SIGTERM the server =="
kill -TERM "$server_pid"
server_rc=""
for _ in $(seq 1 120); do
  if ! kill -0 "$server_pid" 2>/dev/null; then
    wait "$server_pid" && server_rc=0 || server_rc=$?
    break
  fi
  sleep 0.5
done
if [ -z "$server_rc" ]; then
  echo "FAIL: the server did not exit within 60 s of SIGTERM" >&2
  tail -n 40 "$data/server.err" >&2
  exit 1
fi
server_pid=""
grep -E '^(finished|stopping|tick path)' "$data/server.err" || true
if grep -E 'ERROR|Exception' "$data/server.err" >/dev/null; then
  echo "server errors:" >&2
  grep -E -A5 'ERROR|Exception' "$data/server.err" | head -n 60 >&2
fi
fail=0
# The adapter's per-tick work allocates only when something happens for the first time (a name
# registered, the batch grown, a leave flushed): at most 20 of the instance ticks in this run.
alloc_line="$(grep -E '^tick path: ' "$data/server.err" || true)"
if [[ "$alloc_line" =~ ^tick\ path:\ ([0-9]+)\ instance\ ticks,\ ([0-9]+)\ allocated ]] \
    && [ "${BASH_REMATCH[1]}" -ge 200 ] && [ "${BASH_REMATCH[2]}" -le 20 ]; then
  echo "ok   ${BASH_REMATCH[2]} of ${BASH_REMATCH[1]} instance ticks allocated on the tick thread (at most 20)"
else
  echo "FAIL: the tick path's allocations: '${alloc_line:-no tick path line}' (want at most 20 of at least 200 ticks)" >&2
  fail=1
fi
if [ "$bots_rc" -ne 0 ]; then echo "FAIL: bots.js exited $bots_rc" >&2; fail=1; fi
if [ "$server_rc" -ne 0 ]; then echo "FAIL: the server exited $server_rc after SIGTERM (want 0)" >&2; fail=1; else echo "ok   the server exited 0 after SIGTERM"; fi
if grep -E 'ERROR' "$data/server.err" >/dev/null; then echo "FAIL: the server logged errors" >&2; fail=1; else echo "ok   no error in the server's log"; fi

echo "== Check.java: the recording and the catalog against the bots' log =="
java_home="${JAVA_HOME:-}"
if [ -z "$java_home" ] || [ "$("$java_home/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')" -lt 25 ] 2>/dev/null; then
  java_home=/usr/lib/jvm/temurin-25-jdk-amd64
fi
if [ -s "$data/bots.jsonl" ]; then
  "$java_home/bin/java" --enable-native-access=ALL-UNNAMED -cp "$root/examples/minestom-server/target/lib/*" \
    "$bots/Check.java" "$data" "$data/bots.jsonl" || fail=1
else
  echo "FAIL: the bots logged nothing" >&2
  fail=1
fi
echo "tests/minestom.sh: $((SECONDS - start_s)) s"
if [ "$fail" -ne 0 ]; then
  tail -n 30 "$data/server.err" >&2
  echo "tests/minestom.sh: FAILED" >&2
  exit 1
fi
echo "tests/minestom.sh: passed"
