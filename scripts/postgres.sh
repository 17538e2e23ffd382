#!/usr/bin/env bash
# A throw-away local PostgreSQL for the collector's tests and benchmarks.
#   bash scripts/postgres.sh start   prints "URL DIR": a server on a free loopback port,
#                                    trust authentication, data in the temp dir DIR
#   bash scripts/postgres.sh stop DIR   stops it and removes DIR
#   bash scripts/postgres.sh down DIR   stops it (fast shutdown), keeping its data
#   bash scripts/postgres.sh up DIR     starts it again on its port; returns once it accepts
#                                       connections (the collector's fault-injection tests)
# Needs Debian's postgresql package (scripts/setup.sh installs it). As root, the server
# runs as the package's `postgres` user (initdb refuses root).
set -euo pipefail
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] || { echo "postgres.sh: no PostgreSQL server; run scripts/setup.sh" >&2; exit 1; }
as_server() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
# Starts the server of DIR on the port recorded in DIR/port.
up() {
  as_server "$bin/pg_ctl" -D "$1/data" -l "$1/server.log" -w -t 60 \
    -o "-p $(cat "$1/port") -k $1 -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null ||
    { cat "$1/server.log" >&2; exit 1; }
}
case "${1:-}" in
  start)
    dir=$(mktemp -d /tmp/privlift-pg.XXXXXX)
    [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_server "$bin/initdb" -D "$dir/data" -U privlift --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; exit 1; }
    echo "$port" >"$dir/port"
    up "$dir"
    echo "postgres://privlift@127.0.0.1:$port/postgres $dir"
    ;;
  down)
    dir=${2:?usage: postgres.sh down DIR}
    as_server "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
  up)
    up "${2:?usage: postgres.sh up DIR}"
    ;;
  stop)
    dir=${2:?usage: postgres.sh stop DIR}
    as_server "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
  *) echo "usage: postgres.sh start | stop DIR | down DIR | up DIR" >&2; exit 2 ;;
esac
