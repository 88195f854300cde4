#!/usr/bin/env bash
# Builds the Java bindings: the native library (cargo), the classes (javac --release 17) and a jar
# with the library inside (META-INF/native/<os>-<arch>/). Everything goes under java-bindings/build/.
# Usage: java-bindings/build.sh [cargo profile, default release]
# TICKREEL_CARGO_FEATURES=test-hooks builds a library that also binds the test hooks (tests, bench).
# TICKREEL_CARGO_TEST_BUILD=1 builds it as ./test.sh's Rust build does (scripts/test-build.sh: the
# workspace's test features, the test hooks among them), which `cargo test` has mostly built.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
profile="${1:-${TICKREEL_CARGO_PROFILE:-release}}"
build="$here/build"

case "$(uname -s)" in
  Linux) os=linux; lib=libtickreel.so ;;
  Darwin) os=macos; lib=libtickreel.dylib ;;
  MINGW*|MSYS*|CYGWIN*) os=windows; lib=tickreel.dll ;;
  *) echo "unsupported OS $(uname -s)" >&2; exit 1 ;;
esac
case "$(uname -m)" in
  x86_64|amd64) arch=x86_64 ;;
  aarch64|arm64) arch=aarch64 ;;
  *) arch="$(uname -m)" ;;
esac

features="${TICKREEL_CARGO_FEATURES:-}"
if [ -n "${TICKREEL_CARGO_TEST_BUILD:-}" ]; then
  echo "== cargo build --workspace --lib --profile $profile (the test build, scripts/test-build.sh) =="
  (cd "$root" && source scripts/test-build.sh && test_build --lib --profile "$profile")
else
  echo "== cargo build -p tickreel-bridge --profile $profile ${features:+--features $features} (cdylib) =="
  (cd "$root" && cargo build -p tickreel-bridge --lib --profile "$profile" ${features:+--features "$features"})
fi
target_dir="${CARGO_TARGET_DIR:-$root/target}"
[ "$profile" = dev ] && out_dir=debug || out_dir="$profile"
native="$target_dir/$out_dir/$lib"
[ -f "$native" ] || { echo "no native library at $native" >&2; exit 1; }

echo "== javac --release 17 =="
rm -rf "$build/classes"
mkdir -p "$build/classes/META-INF/native/$os-$arch"
find "$here/src/main/java" -name '*.java' > "$build/main-sources.txt"
javac --release 17 -Xlint:all -Xdoclint:all,-missing -Werror -encoding UTF-8 -d "$build/classes" @"$build/main-sources.txt"
cp "$native" "$build/classes/META-INF/native/$os-$arch/$lib"

echo "== jar =="
rm -f "$build/tickreel.jar"
jar --create --file "$build/tickreel.jar" -C "$build/classes" .
echo "built $build/tickreel.jar (native: $os-$arch/$lib from $native)"
