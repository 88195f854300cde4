#!/usr/bin/env bash
# Checks the documentation (tests/docs.py): every C, Java and Rust sample of README.md and docs/*.md
# is compiled and run (C under ASan/UBSan against include/tickreel.h and libtickreel.so; Java with
# javac against the jar; Rust with rustc against the workspace's libraries), every `tickreel`
# command in a sh block names an existing subcommand and options, and every relative link, anchor
# and repository path in the docs exists. Installs nothing beyond tests/c.sh (gcc, the sanitizer
# runtimes, the S3 test server). Run by ./test.sh; on its own: bash tests/docs.sh
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

if ! command -v gcc >/dev/null; then
  echo "tests/docs.sh: gcc is missing; installing it" >&2
  apt-get update -qq && apt-get install -y -qq gcc libc6-dev >/dev/null
fi
for lib in libasan.so libubsan.so; do
  if [ "$(gcc -print-file-name=$lib)" = "$lib" ]; then
    echo "tests/docs.sh: $lib is missing; installing libasan8 libubsan1" >&2
    apt-get update -qq && apt-get install -y -qq libasan8 libubsan1 >/dev/null
    break
  fi
done

target_dir="${CARGO_TARGET_DIR:-target}"
# The library C and Java samples use, the jar (classes + library) and the CLI whose help the sh
# blocks are checked against. The Java samples compile and run against the Maven build's test jar
# (java-bindings/native.sh test-plugin: the classes with the test build's library, every feature).
mvn -B -ntp -q -f java-bindings/pom.xml -pl tickreel process-test-resources >/dev/null
# `tickreel bench` is documented too: the binary with `bench`, as `cargo test` built it
# (scripts/test-build.sh; with `-p tickreel-cli --features bench` alone cargo compiles 10 crates again).
source scripts/test-build.sh
test_build -q --bin tickreel
libdir="$(cd "$target_dir/debug" && pwd)"
[ -f "$libdir/libtickreel.so" ] || { echo "tests/docs.sh: $libdir/libtickreel.so not built" >&2; exit 1; }

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
export TICKREEL_LIBDIR="$libdir" TICKREEL_BIN="$libdir/tickreel" TICKREEL_SCRATCH="$scratch"
export TICKREEL_JAR="$PWD/java-bindings/tickreel/target/test-plugin/tickreel-test.jar"
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# The object-storage samples read the S3 test server's address, key and bucket from the AWS_* and
# TICKREEL_S3_BUCKET variables, as tests/c.sh's examples do (moto_server on loopback; it stops when
# its stdin closes at exit).
source scripts/s3-test-server.sh
start_s3_test_server tests/docs.sh

status=0
python3 tests/docs.py || status=$?
echo "tests/docs.sh: $((SECONDS - started)) s in all"
exit $status
