#!/usr/bin/env bash
# An option field is declared once (native/bridge/jni/layout.rs): adding one there without
# updating the other languages must fail to build. Adds a field to the engine options' layout and
# checks that the Rust bridge does not build (its decoder and encoder name every field), then adds
# the same parameter to the Java factory and checks that the Java classes do not compile
# (`EngineOptions.toNative()` passes every field). The files are restored whatever happens.
# Run by ./test.sh; on its own: bash tests/declared_once.sh
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "tests/declared_once.sh: $*" >&2; exit 1; }

layout=native/bridge/jni/layout.rs
bridge=java-bindings/src/main/java/io/tickreel/NativeBridge.java
scratch="$(mktemp -d)"
cp "$layout" "$scratch/layout.rs"
cp "$bridge" "$scratch/NativeBridge.java"
restore() {
  cp "$scratch/layout.rs" "$layout"
  cp "$scratch/NativeBridge.java" "$bridge"
  rm -rf "$scratch"
}
trap restore EXIT

# Rust: a field in the layout that no decoder or encoder names.
grep -q '        shadow_budget_bytes: "shadowBudgetBytes",' "$layout" || fail "the engine layout moved"
sed -i 's|        shadow_budget_bytes: "shadowBudgetBytes",|&\n        flush_threads: "flushThreads",|' "$layout"
if cargo build -q -p tickreel-bridge --lib > "$scratch/rust.log" 2>&1; then
  fail "the bridge built with an engine option field that its decoder and encoder do not name"
fi
grep -q 'flush_threads' "$scratch/rust.log" || { cat "$scratch/rust.log" >&2; fail "the bridge failed for another reason"; }
cp "$scratch/layout.rs" "$layout"

# Java: the factory the layout generates takes one more parameter; toNative() does not pass it.
grep -q 'static long\[\] engineOptions(' "$bridge" || fail "NativeBridge.java has no engineOptions factory"
sed -i 's|static long\[\] engineOptions(long writerThreads|static long[] engineOptions(long flushThreads, long writerThreads|' "$bridge"
find java-bindings/src/main/java -name '*.java' > "$scratch/sources"
if javac --release 17 -encoding UTF-8 -d "$scratch/classes" @"$scratch/sources" > "$scratch/java.log" 2>&1; then
  fail "the Java classes compiled against an engine options factory with a parameter they do not pass"
fi
grep -q 'EngineOptions.java' "$scratch/java.log" || { cat "$scratch/java.log" >&2; fail "javac failed for another reason"; }
echo "tests/declared_once.sh: a field added to one language only fails to build in Rust and in Java"
