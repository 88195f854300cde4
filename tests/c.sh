#!/usr/bin/env bash
# Builds the cdylib, compiles the C examples against include/tickreel.h with gcc under
# AddressSanitizer + UndefinedBehaviorSanitizer (-Werror), and runs them with leak detection.
# Run by ./test.sh; on its own: bash tests/c.sh
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v gcc >/dev/null; then
  echo "tests/c.sh: gcc is missing; installing it" >&2
  apt-get update -qq && apt-get install -y -qq gcc libc6-dev >/dev/null
fi
# gcc -print-file-name prints the bare name when it cannot find the library.
for lib in libasan.so libubsan.so; do
  if [ "$(gcc -print-file-name=$lib)" = "$lib" ]; then
    echo "tests/c.sh: $lib is missing; installing libasan8 libubsan1" >&2
    apt-get update -qq && apt-get install -y -qq libasan8 libubsan1 >/dev/null
    break
  fi
done

cargo build -p tickreel-bridge --lib --quiet
target_dir="${CARGO_TARGET_DIR:-target}"
libdir="$(cd "$target_dir/debug" && pwd)"
[ -f "$libdir/libtickreel.so" ] || { echo "tests/c.sh: $libdir/libtickreel.so not built" >&2; exit 1; }

out=examples/c/build
mkdir -p "$out"
cflags=(-std=c11 -g -O1 -Wall -Wextra -Werror -fsanitize=address,undefined -fno-omit-frame-pointer
        -fno-sanitize-recover=all -Iinclude)
for prog in record_replay world_events world_state terrain bad_input io_errors dictionary object_storage catalog ghost_race; do
  gcc "${cflags[@]}" -o "$out/$prog" "examples/c/$prog.c" -L"$libdir" -ltickreel -lm
done

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# object_storage reads the S3 test server's address and key from the AWS_* variables: start it
# (moto_server on loopback, signatures checked; it stops when its stdin closes at exit). Failing
# to start it fails this script.
source scripts/s3-test-server.sh
start_s3_test_server tests/c.sh

status=0
for prog in record_replay world_events world_state terrain bad_input io_errors dictionary object_storage catalog ghost_race; do
  mkdir -p "$scratch/$prog"
  echo "-- $prog"
  # A sanitizer report fails the run (abort/halt on error); its output is kept in the log.
  if ! "$out/$prog" "$scratch/$prog" >"$scratch/$prog.log" 2>&1; then
    cat "$scratch/$prog.log"
    echo "tests/c.sh: $prog failed" >&2
    status=1
    continue
  fi
  if grep -qE 'Sanitizer|runtime error:' "$scratch/$prog.log"; then
    cat "$scratch/$prog.log"
    echo "tests/c.sh: $prog printed a sanitizer report" >&2
    status=1
    continue
  fi
  if [ "$prog" = bad_input ] || [ "$prog" = io_errors ]; then grep -E '^(FAIL|[0-9]+ passed)' "$scratch/$prog.log"; else cat "$scratch/$prog.log"; fi
done
# Reloading: dlopen, use every area from the main thread and two workers, dlclose while the
# workers live, then let them end and end main with pthread_exit, three times: the library must be
# unmapped each time and no thread's exit may call into it (a thread-exit callback registered on a
# caller's thread: a crash, as a JVM after a plugin reload). Without sanitizers: ASan keeps
# references to loaded libraries.
echo "-- reload"
gcc -std=c11 -g -O1 -Wall -Wextra -Werror -Iinclude -o "$out/reload" examples/c/reload.c -ldl -lpthread
mkdir -p "$scratch/reload"
if "$out/reload" "$libdir/libtickreel.so" "$scratch/reload" >"$scratch/reload.log" 2>&1; then
  grep -E '^(FAIL|[0-9]+ passed)' "$scratch/reload.log"
else
  cat "$scratch/reload.log"
  echo "tests/c.sh: reload failed" >&2
  status=1
fi
exit $status
