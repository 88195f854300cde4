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

# The library with its test hook. In the dev profile, as `cargo test` built its dependencies
# (scripts/test-build.sh); `-p tickreel-bridge --features test-hooks` alone would compile the
# core, the object store and the catalog again with other features.
if [ "$profile" = dev ]; then
  TICKREEL_CARGO_TEST_BUILD=1 "$here/build.sh" "$profile"
else
  TICKREEL_CARGO_FEATURES=test-hooks "$here/build.sh" "$profile"
fi

echo "== javac tests =="
rm -rf "$build/test-classes"
mkdir -p "$build/test-classes"
find "$here/src/test/java" -name '*.java' > "$build/test-sources.txt"
javac --release 17 -Xlint:all -Werror -encoding UTF-8 \
  -cp "$build/tickreel.jar:$launcher" -d "$build/test-classes" @"$build/test-sources.txt"

echo "== S3 test server (moto_server on loopback, for ObjectStorageTest) =="
# Started here and described to the tests in system properties; the tests fail, never skip,
# without it. It runs until its stdin closes (when this script exits).
root="$(cd "$here/.." && pwd)"
"$root/scripts/ensure-s3-server.sh"
(cd "$root" && source scripts/test-build.sh && test_build -q)   # as `cargo test` built it
coproc S3 { "${CARGO_TARGET_DIR:-$root/target}/debug/examples/s3_test_server"; }
s3_props=()
while IFS= read -r line <&"${S3[0]}"; do
  case "$line" in
    READY) break ;;
    AWS_ENDPOINT_URL=*) s3_props+=("-Dtickreel.test.s3.endpoint=${line#*=}") ;;
    AWS_ACCESS_KEY_ID=*) s3_props+=("-Dtickreel.test.s3.accessKeyId=${line#*=}") ;;
    AWS_SECRET_ACCESS_KEY=*) s3_props+=("-Dtickreel.test.s3.secretAccessKey=${line#*=}") ;;
    TICKREEL_S3_BUCKET=*) s3_props+=("-Dtickreel.test.s3.bucket=${line#*=}") ;;
  esac
done
[ "${#s3_props[@]}" -eq 4 ] || { echo "the S3 test server did not start" >&2; exit 1; }

echo "== JUnit =="
log="$build/junit.log"
set +e
java \
  "${s3_props[@]}" \
  -Dtickreel.test.jar="$build/tickreel.jar" \
  -Dtickreel.test.sources="$here/src/main/java" \
  -Dtickreel.test.probe="$here/src/test/probe" \
  -Dtickreel.test.data="$root/native/core/tests/data" \
  -jar "$launcher" \
  --disable-banner --disable-ansi-colors --details=tree --fail-if-no-tests \
  --class-path "$build/tickreel.jar:$build/test-classes" \
  --scan-class-path "$build/test-classes" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e

echo "== plugin reload in a plain JVM whose main returns (src/test/reload/ReloadMain.java) =="
# The probe plugin is used on main and on worker threads, its loader collected until the library
# is unmapped, then the workers end and main returns: a thread-exit callback left by the library
# on any of those threads kills the JVM (SIGSEGV, an hs_err file) after the unload.
reload_dir="$build/reload"
rm -rf "$reload_dir"
mkdir -p "$reload_dir/probe-classes" "$reload_dir/classes" "$reload_dir/work"
javac --release 17 -Xlint:all,-try -Werror -encoding UTF-8 -cp "$build/tickreel.jar" -d "$reload_dir/probe-classes" \
  "$here/src/test/probe/probe/PluginProbe.java"
javac --release 17 -Xlint:all -Werror -encoding UTF-8 -d "$reload_dir/classes" "$here/src/test/reload/ReloadMain.java"
set +e
(cd "$reload_dir/work" && java "${s3_props[@]}" -XX:ErrorFile="$reload_dir/hs_err_%p.log" \
  -cp "$reload_dir/classes" ReloadMain "$build/tickreel.jar" "$reload_dir/probe-classes" "$reload_dir/work") \
  > "$reload_dir/log" 2>&1
reload_rc=$?
set -e
cat "$reload_dir/log"
crash_files=$(find "$reload_dir" -name 'hs_err*' | head -3)
if [ "$reload_rc" -ne 0 ] || [ -n "$crash_files" ] || ! grep -q "rounds passed; main returns" "$reload_dir/log"; then
  echo "plugin reload: the JVM exited with $reload_rc${crash_files:+ and wrote $crash_files}" >&2
  [ -z "$crash_files" ] || head -40 $crash_files >&2
  rc=1
fi
exec {S3[1]}>&-  # the S3 test server stops when its stdin closes
wait "$S3_PID" 2>/dev/null || true
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
