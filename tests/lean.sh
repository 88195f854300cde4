#!/usr/bin/env bash
# The shared library carries what its build asks for, and never a test hook (run by ./test.sh):
# 1. a record-and-play build (`--no-default-features`: no `object`, no `catalog`) depends on no
#    async runtime, HTTP/TLS stack or SQL crate, links no C library but zstd, exports the core's
#    functions and none of object storage's or the catalog's, and says so in `tickreel_features()`;
#    the Java jar's build (`--features catalog`) has SQLite but no async runtime, TLS or PostgreSQL;
# 2. a build of the whole workspace (what `cargo build --workspace` gives a user) resolves no test
#    feature (`tickreel/test-hooks`, `tickreel/wire`, `tickreel-object/test-server`,
#    `tickreel-cli/bench`, `tickreel-bench/run`), and
#    `libtickreel.so` binds no test hook.
# Prints the figures the README quotes (crates, .so size). Usage: bash tests/lean.sh
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "tests/lean.sh: $*" >&2; exit 1; }

target_dir="${CARGO_TARGET_DIR:-target}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# --- 1. the record-and-play build -------------------------------------------------------------
cargo tree -p tickreel-bridge --no-default-features -e normal,build --prefix none \
  | sed 's/ (\*)//' | sort -u > "$scratch/lean-tree"
cargo tree -p tickreel-bridge -e normal,build --prefix none \
  | sed 's/ (\*)//' | sort -u > "$scratch/full-tree"
heavy='^(tokio|hyper|reqwest|h2|rustls|ring|aws-lc-sys|aws-lc-rs|openssl-sys|object_store|rusqlite|libsqlite3-sys|postgres|tokio-postgres|tickreel-object|tickreel-catalog) '
if grep -E "$heavy" "$scratch/lean-tree"; then
  fail "the record-and-play build depends on the crates above"
fi
# C libraries come in through *-sys crates; jni-sys and linux-raw-sys are declarations only.
c_libs="$(grep -E -- '-sys v' "$scratch/lean-tree" | grep -vE '^(jni-sys|linux-raw-sys) ' || true)"
[ "$(echo "$c_libs" | cut -d' ' -f1)" = "zstd-sys" ] || fail "C libraries other than zstd: $c_libs"

cargo build -q -p tickreel-bridge --lib --no-default-features
cp "$target_dir/debug/libtickreel.so" "$scratch/lean.so"
cargo build -q -p tickreel-bridge --lib   # the default library back in place for the other scripts
cp "$target_dir/debug/libtickreel.so" "$scratch/full.so"

exports() { nm -D --defined-only "$1" | awk '$2 == "T" && $3 ~ /^tickreel_/ { print $3 }' | sort; }
exports "$scratch/lean.so" > "$scratch/lean-exports"
exports "$scratch/full.so" > "$scratch/full-exports"
for f in tickreel_recorder_start tickreel_playhead_open tickreel_shadow_buffer_report \
         tickreel_ghost_load tickreel_reader_open tickreel_features tickreel_pending_poll \
         tickreel_pending_take_path tickreel_pending_take_ghost; do
  grep -qx "$f" "$scratch/lean-exports" || fail "the record-and-play build does not export $f"
done
if grep -E '^tickreel_(object_|catalog_|pending_take_(upload|rows|ghost_set)$)' "$scratch/lean-exports"; then
  fail "the record-and-play build exports the functions above"
fi
grep -qx tickreel_catalog_open "$scratch/full-exports" || fail "the default build lacks the catalog"
grep -qx tickreel_object_options_new "$scratch/full-exports" || fail "the default build lacks object storage"
features() { python3 -c 'import ctypes, sys; print(ctypes.CDLL(sys.argv[1]).tickreel_features())' "$1"; }
[ "$(features "$scratch/lean.so")" = 0 ] || fail "tickreel_features() of the lean build: $(features "$scratch/lean.so")"
[ "$(features "$scratch/full.so")" = 7 ] || fail "tickreel_features() of the default build: $(features "$scratch/full.so")"
# Nothing of the async runtime or SQLite linked in (symbols of crates the tree check cannot see).
if nm "$scratch/lean.so" 2>/dev/null | grep -qE 'tokio|sqlite3_|aws_lc'; then
  fail "the record-and-play library contains tokio, SQLite or aws-lc symbols"
fi

# --- 1b. the Java jar's build (`--features catalog`: the catalog on SQLite, java-bindings/tickreel)
# depends on no async runtime, HTTP/TLS stack or PostgreSQL client ---------------------------------
cargo tree -p tickreel-bridge --no-default-features --features catalog -e normal,build --prefix none \
  | sed 's/ (\*)//' | sort -u > "$scratch/jar-tree"
jar_heavy='^(tokio|hyper|reqwest|h2|rustls|ring|aws-lc-sys|aws-lc-rs|openssl-sys|object_store|postgres|tokio-postgres|tickreel-object) '
if grep -E "$jar_heavy" "$scratch/jar-tree"; then
  fail "the jar's build (--features catalog) depends on the crates above"
fi
grep -qE '^rusqlite ' "$scratch/jar-tree" || fail "the jar's build has no SQLite"

# --- 2. no test hook in a workspace build ----------------------------------------------------
cargo tree --workspace -e normal,build,features --prefix none > "$scratch/features"
if grep -E 'feature "(test-hooks|wire|test-server|bench|run)"' "$scratch/features"; then
  fail "a workspace build turns on the test features above"
fi
# The library as built for users (the same features as a release build) binds none either.
if grep -q 'SetWritersStalled' "$scratch/full.so"; then
  fail "libtickreel.so binds engineSetWritersStalled"
fi

size() { strip -o "$scratch/stripped" "$1" && stat -c %s "$scratch/stripped"; }
printf 'record-and-play build (--no-default-features): %d crates, %d exported functions, %d bytes stripped (dev profile)\n' \
  "$(wc -l < "$scratch/lean-tree")" "$(wc -l < "$scratch/lean-exports")" "$(size "$scratch/lean.so")"
printf 'default build (object, catalog):                %d crates, %d exported functions, %d bytes stripped (dev profile)\n' \
  "$(wc -l < "$scratch/full-tree")" "$(wc -l < "$scratch/full-exports")" "$(size "$scratch/full.so")"
echo "tests/lean.sh: passed"
