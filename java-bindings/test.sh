#!/usr/bin/env bash
# Every Java test: `mvn verify` over java-bindings/pom.xml (the JUnit tests under Surefire, the
# jars' integration tests under Failsafe: size, stripped library, loader cases, 100 plugin
# reloads, the network jar against S3), with the S3 test server started on loopback and described
# to the tests in system properties (they fail, never skip, without it), then
# examples/java/CourseServer.java against the jar as it ships. Installs Maven if missing.
# Usage: java-bindings/test.sh [extra mvn arguments...]   (run by ./test.sh through tests/java.sh)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"

if ! command -v mvn >/dev/null; then
  echo "== installing maven (Debian) =="
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y -q maven || { $sudo apt-get update -q && $sudo apt-get install -y -q maven; }
fi

echo "== S3 test server (moto on loopback, for the object-storage tests) =="
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

echo "== mvn verify (java-bindings/pom.xml) =="
set +e
# The network jar's library in the dev profile (see tickreel.network.cargo.profile in pom.xml).
mvn -B -ntp -f "$here/pom.xml" "${s3_props[@]}" -Dtickreel.network.cargo.profile=dev verify "$@"
rc=$?
set -e
exec {S3[1]}>&-  # the S3 test server stops when its stdin closes
wait "$S3_PID" 2>/dev/null || true
[ "$rc" -eq 0 ] || exit "$rc"

echo "== mvn install io.tickreel:tickreel (the tested jar, for the builds that depend on it by coordinates) =="
mvn -B -ntp -q -f "$here/pom.xml" -pl tickreel -am -DskipTests install

# The jar as it ships, on the default Java (17) and on Java 25 (Minestom's; the machines have a
# Temurin 25 JDK beside the default one): its Java 17 classes and its library run on both.
jar="$(ls "$here"/tickreel/target/tickreel-[0-9]*.jar | grep -Ev -- '-(sources|javadoc)\.jar$')"
java25="${TICKREEL_JAVA25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
[ -x "$java25" ] || { echo "no Java 25 at $java25 (set TICKREEL_JAVA25_HOME)" >&2; exit 1; }
for java in java "$java25"; do
  echo "== examples/java/CourseServer.java (the jar as it ships, $("$java" -version 2>&1 | head -1)) =="
  example_out="$here/tickreel/target/example-out"
  log="$here/tickreel/target/example.log"
  rm -rf "$example_out"
  "$java" -cp "$jar" "$root/examples/java/CourseServer.java" "$example_out" > "$log" 2>&1 \
    || { cat "$log"; echo "the Java example failed" >&2; exit 1; }
  grep -q "new best" "$log" && grep -q "verified: VerifyReport" "$log" \
    || { cat "$log"; echo "the Java example did not finish its runs and review" >&2; exit 1; }
  tail -4 "$log"
done
