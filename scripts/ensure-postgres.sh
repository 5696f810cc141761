#!/usr/bin/env bash
# Makes sure a PostgreSQL server runs on this machine for the PostgreSQL-mode tests, and prints
# the URL they use. Used by ./scripts/test (and so by .ci/run): one install, one cluster.
#
#   eval "$(scripts/ensure-postgres.sh)"    # exports WEIR_TEST_PG_URL
#
# WEIR_TEST_PG_URL already set: nothing is installed or started, that server is used. Otherwise,
# as root with apt-get: Debian's `postgresql` is installed when missing, its cluster started, and
# the `postgres` role given a password for TCP logins on 127.0.0.1. Anywhere else it prints the
# commands to run and exits 1.
set -euo pipefail

if [[ -n "${WEIR_TEST_PG_URL:-}" ]]; then
  echo "export WEIR_TEST_PG_URL='${WEIR_TEST_PG_URL}'"
  exit 0
fi

password="weir-tests"
url="postgres://postgres:${password}@127.0.0.1:5432/postgres"

if [[ "$(id -u)" -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-postgres: set WEIR_TEST_PG_URL to a PostgreSQL server the tests may create databases on, or run as root: sudo apt-get install -y postgresql" >&2
  exit 1
fi

if ! command -v pg_lsclusters >/dev/null 2>&1 || [[ -z "$(pg_lsclusters -h 2>/dev/null)" ]]; then
  echo "ensure-postgres: installing postgresql with apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends postgresql >/dev/null
fi

read -r version cluster _ < <(pg_lsclusters -h | head -n 1)
if ! pg_lsclusters -h | head -n 1 | grep -q online; then
  echo "ensure-postgres: starting cluster ${version}/${cluster}" >&2
  pg_ctlcluster "$version" "$cluster" start >&2
fi
for _ in $(seq 1 50); do
  pg_isready -q -h 127.0.0.1 -p 5432 && break
  sleep 0.2
done
# The tests create a database each and run several nodes at once: room for their connections.
su postgres -c "psql -qAt -c \"ALTER USER postgres PASSWORD '${password}'\"" >/dev/null
current=$(su postgres -c "psql -qAt -c 'SHOW max_connections'")
if [[ "$current" -lt 300 ]]; then
  su postgres -c "psql -qAt -c 'ALTER SYSTEM SET max_connections = 300'" >/dev/null
  pg_ctlcluster "$version" "$cluster" restart >&2
  for _ in $(seq 1 50); do
    pg_isready -q -h 127.0.0.1 -p 5432 && break
    sleep 0.2
  done
fi
echo "export WEIR_TEST_PG_URL='${url}'"
