#!/usr/bin/env bash
# Makes sure PostgreSQL's server programs are installed for the catalog's tests
# (native/catalog/tests/it start a throwaway cluster: initdb into a temporary directory, a server on
# a loopback port, stopped when the tests end; a second one serves TLS only, with a throwaway CA and
# server certificate the tests make with `openssl`). Idempotent: does nothing when initdb, pg_ctl,
# openssl and the system's CA certificates (/etc/ssl/certs) are found (on the PATH or in Debian's /usr/lib/postgresql/<version>/bin); otherwise installs
# Debian's `postgresql`, `openssl` and `ca-certificates` packages with apt-get (as root, or through sudo). The package's own
# cluster service is not needed by the tests. Called by ./test.sh before `cargo test`.
# Fails (exit 1) when PostgreSQL is missing and cannot be installed: the tests fail, not skip.
set -euo pipefail

have_server() {
  command -v openssl >/dev/null 2>&1 && [ -d /etc/ssl/certs ] || return 1
  command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1 && return 0
  local bin
  for bin in /usr/lib/postgresql/*/bin; do
    [ -x "$bin/initdb" ] && [ -x "$bin/pg_ctl" ] && return 0
  done
  return 1
}

if have_server; then
  echo "ensure-postgres: PostgreSQL server programs and openssl found"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-postgres: PostgreSQL is not installed and this is not a Debian-like system:" \
    "install PostgreSQL's server (initdb, pg_ctl) by hand" >&2
  exit 1
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    as_root=(sudo -n)
  else
    echo "ensure-postgres: installing PostgreSQL needs root (or sudo)" >&2
    exit 1
  fi
fi

echo "ensure-postgres: installing Debian's postgresql package"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq postgresql openssl ca-certificates >/dev/null

if ! have_server; then
  echo "ensure-postgres: postgresql installed but initdb/pg_ctl/openssl not found" >&2
  exit 1
fi
echo "ensure-postgres: PostgreSQL installed"
