#!/usr/bin/env bash
# Makes sure the S3-protocol test server the object-storage tests start is installed: moto_server
# from PyPI (`moto[server]`). Idempotent: does nothing when `moto_server` already runs. The tests
# (native/object/tests/it, native/cli/tests/it/cli_s3.rs) start it on a free loopback port and fail,
# never skip, when it cannot start.
set -euo pipefail

if moto_server --help >/dev/null 2>&1; then
  exit 0
fi
echo "installing moto[server] (the S3 test server) from PyPI"
if ! command -v python3 >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq python3 python3-pip python3-venv
fi
python3 -m pip install --quiet 'moto[server]>=5,<6' ||
  python3 -m pip install --quiet --break-system-packages 'moto[server]>=5,<6'
hash -r
if ! moto_server --help >/dev/null 2>&1; then
  echo "moto_server is still not on PATH after installing moto[server]" >&2
  exit 1
fi
