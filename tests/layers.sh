#!/usr/bin/env bash
# The files of every crate import each other in one direction (run by ./test.sh), and the
# write path's files never import the read path:
# `scripts/import-cycles.py` reads the imports between the files of `native/core/src/record/`
# and fails on a circle among them or among its folders (its floors), or on an import of the
# read path (`crate::play`): what
# both need (the `Reader` compaction and resume read recordings with) lives below both.
# First it checks itself on a made-up tree with a circle, so that it cannot pass by reading
# nothing. Usage: bash tests/layers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "tests/layers.sh: $*" >&2; exit 1; }

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/src/m/b"
echo 'mod a; mod b;' > "$scratch/src/m/mod.rs"
echo 'use crate::m::b::{B, c::C};' > "$scratch/src/m/a.rs"
echo 'mod c; pub struct B;' > "$scratch/src/m/b.rs"
printf 'use super::super::{a::A};\npub fn f() -> crate::play::Reader { todo!() }\n' > "$scratch/src/m/b/c.rs"
out="$(python3 scripts/import-cycles.py "$scratch/src/m" --forbid play)" && fail "no circle found in a tree with one"
grep -q '^circle: a.rs, b/c.rs$' <<< "$out" || fail "the circle of the made-up tree was not named: $out"
grep -q '^forbidden: .*b/c.rs uses crate::play::Reader$' <<< "$out" || fail "the import of crate::play was not found: $out"

# Folders: two folders that import each other through different files (no circle of files) fail
# with --folders, and pass without it.
mkdir -p "$scratch/f/src/m/low" "$scratch/f/src/m/high"
echo 'mod low; mod high;' > "$scratch/f/src/m/mod.rs"
echo 'mod a; mod b;' > "$scratch/f/src/m/low/mod.rs"
echo 'mod c; mod d;' > "$scratch/f/src/m/high/mod.rs"
echo 'pub struct A;' > "$scratch/f/src/m/low/a.rs"
echo 'use crate::m::high::d::D;' > "$scratch/f/src/m/low/b.rs"
echo 'use crate::m::low::a::A;' > "$scratch/f/src/m/high/c.rs"
echo 'pub struct D;' > "$scratch/f/src/m/high/d.rs"
python3 scripts/import-cycles.py "$scratch/f/src/m" --quiet > /dev/null || fail "a tree without a circle of files failed"
out="$(python3 scripts/import-cycles.py "$scratch/f/src/m" --folders --quiet)" && fail "no circle found between two folders"
grep -q '^folder circle: high, low$' <<< "$out" || fail "the folders' circle was not named: $out"

# A crate's src/ (lib.rs): `crate::x` paths and a `use` in a string (named nothing) or with
# unbalanced braces (it crashed the script on native/catalog/src).
mkdir -p "$scratch/crate/src"
echo 'pub mod x; pub mod y;' > "$scratch/crate/src/lib.rs"
printf 'use crate::y::Y;\npub struct X;\nconst SQL: &str = "use {a;";\n' > "$scratch/crate/src/x.rs"
printf 'pub struct Y(crate::x::X);\n' > "$scratch/crate/src/y.rs"
out="$(python3 scripts/import-cycles.py "$scratch/crate/src")" && fail "no circle found in a crate with one"
grep -q '^circle: x.rs, y.rs$' <<< "$out" || fail "the crate's circle was not named: $out"
# Every crate: no circle of imports between its files (a concept lives in one place).
for d in native/*/src native/bridge native/bridge/macros fuzz/src; do
  [ -f "$d/lib.rs" ] || [ -f "$d/main.rs" ] || fail "$d is not a crate's root any more: update this list"
  python3 scripts/import-cycles.py "$d" --quiet > "$scratch/out" \
    || fail "$d has a circle of imports, or the script failed on it: $(cat "$scratch/out")"
done

# record/'s folders are its floors (encode, file, options, shared, worker, writer, then the
# handles): no circle between them either.
python3 scripts/import-cycles.py native/core/src/record --forbid play --folders --quiet \
  || fail "native/core/src/record has a circle of imports (of files or folders) or imports crate::play (above)"
# The bridge: the neutral layer (api/) below both bindings (it imports neither), no circle.
python3 scripts/import-cycles.py native/bridge/api --forbid ffi --forbid jni --quiet \
  || fail "native/bridge/api imports a binding (crate::ffi or crate::jni) or has a circle (above)"
python3 scripts/import-cycles.py native/bridge --quiet || fail "native/bridge has a circle of imports (above)"
echo "tests/layers.sh: passed"
