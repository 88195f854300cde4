#!/usr/bin/env bash
# The Java bindings' JUnit tests (run by ./test.sh).
set -euo pipefail
exec "$(dirname "$0")/../java-bindings/test.sh" "$@"
