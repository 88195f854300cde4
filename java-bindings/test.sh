#!/usr/bin/env bash
# Builds the jar (java-bindings/build.sh), compiles the JUnit 5 tests and runs them with the JUnit
# console launcher from Debian's junit5 package (installed here if missing). Exits non-zero on failure.
# Usage: java-bindings/test.sh [cargo profile, default dev: the library `cargo test` already built]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$here/build"
profile="${1:-${TICKREEL_CARGO_PROFILE:-dev}}"

launcher=/usr/share/java/junit-platform-console-standalone.jar
if [ ! -f "$launcher" ]; then
  echo "== installing junit5 (Debian) =="
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  if ! $sudo apt-get install -y -q junit5; then
    $sudo apt-get update -q
    $sudo apt-get install -y -q junit5
  fi
fi
[ -f "$launcher" ] || { echo "JUnit console launcher not found at $launcher" >&2; exit 1; }

TICKREEL_CARGO_FEATURES=test-hooks "$here/build.sh" "$profile"

echo "== javac tests =="
rm -rf "$build/test-classes"
mkdir -p "$build/test-classes"
find "$here/src/test/java" -name '*.java' > "$build/test-sources.txt"
javac --release 17 -Xlint:all -Werror -encoding UTF-8 \
  -cp "$build/tickreel.jar:$launcher" -d "$build/test-classes" @"$build/test-sources.txt"

echo "== JUnit =="
log="$build/junit.log"
set +e
java \
  -Dtickreel.test.jar="$build/tickreel.jar" \
  -Dtickreel.test.sources="$here/src/main/java" \
  -Dtickreel.test.probe="$here/src/test/probe" \
  -jar "$launcher" \
  --disable-banner --disable-ansi-colors --details=tree --fail-if-no-tests \
  --class-path "$build/tickreel.jar:$build/test-classes" \
  --scan-class-path "$build/test-classes" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
passed=$(sed -n 's/^\[ *\([0-9]*\) tests successful.*/\1/p' "$log" | tail -1)
failed=$(sed -n 's/^\[ *\([0-9]*\) tests failed.*/\1/p' "$log" | tail -1)
echo "java: ${passed:-0} passed, ${failed:-0} failed"
[ "$rc" -eq 0 ] || exit "$rc"

echo "== examples/java/CourseServer.java =="
example_out="$build/example-out"
rm -rf "$example_out"
java -cp "$build/tickreel.jar" "$here/../examples/java/CourseServer.java" "$example_out" > "$build/example.log" 2>&1 \
  || { cat "$build/example.log"; echo "the Java example failed" >&2; exit 1; }
grep -q "new best" "$build/example.log" && grep -q "verified: VerifyReport" "$build/example.log" \
  || { cat "$build/example.log"; echo "the Java example did not finish its runs and review" >&2; exit 1; }
tail -12 "$build/example.log"
