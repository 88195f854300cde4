#!/usr/bin/env bash
# tickreel's example Minestom server (offline mode, flat world, parkour course, recording on).
#
#   examples/minestom-server/run.sh --port P --data DIR [--host H] [--report-after SECONDS]
#
# Builds what it needs on first use (Maven with a Java 25 JDK: io.tickreel:tickreel-minestom from
# tickreel-minestom/, then this server; io.tickreel:tickreel from java-bindings/ if the local Maven
# repository lacks it), all build output on standard error. Then runs the server: recordings and
# reports under DIR, the catalog at sqlite:DIR/catalog.sqlite; prints exactly `ready <port>` on
# standard output once it accepts connections; on SIGTERM finishes every recording and exits 0.
# JAVA_HOME: a JDK 25 or later (default: /usr/lib/jvm/temurin-25-jdk-amd64 when the current java is older).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

java_major() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'; }
if [ -z "${JAVA_HOME:-}" ] || [ ! -x "$JAVA_HOME/bin/java" ] || [ "$(java_major "$JAVA_HOME")" -lt 25 ] 2>/dev/null; then
  JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
if [ ! -x "$JAVA_HOME/bin/java" ] || [ "$(java_major "$JAVA_HOME")" -lt 25 ]; then
  echo "run.sh: Minestom needs Java 25; set JAVA_HOME to a JDK 25" >&2
  exit 1
fi
export JAVA_HOME

# Build on first use, or when a source (or the installed io.tickreel:tickreel) changed since the
# last build; one build at a time.
stamp="$here/target/.built"
lock="$here/target/.build.lock"
m2="${TICKREEL_M2_REPOSITORY:-$HOME/.m2/repository}"
tickreel_jar="$m2/io/tickreel/tickreel/0.1.0/tickreel-0.1.0.jar"
mkdir -p "$here/target"
exec 9>"$lock"
flock 9
if [ ! -f "$stamp" ] || [ -n "$(find "$root/tickreel-minestom/pom.xml" "$root/tickreel-minestom/src" \
      "$here/pom.xml" "$here/src" "$tickreel_jar" -newer "$stamp" -print -quit 2>/dev/null)" ]; then
  if [ ! -f "$tickreel_jar" ]; then
    echo "== io.tickreel:tickreel: mvn -f java-bindings/pom.xml -pl tickreel -am install (builds the native library) ==" >&2
    mvn -q -B -f "$root/java-bindings/pom.xml" -pl tickreel -am install -DskipTests >&2
  fi
  echo "== mvn install tickreel-minestom, package examples/minestom-server ==" >&2
  mvn -q -B -f "$root/tickreel-minestom/pom.xml" install >&2
  mvn -q -B -f "$here/pom.xml" package >&2
  touch "$stamp"
fi
flock -u 9
exec 9>&-

exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xmx1g \
  -cp "$here/target/classes:$here/target/lib/*" io.tickreel.examples.minestom.ExampleServer "$@"
