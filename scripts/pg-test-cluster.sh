#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests and benchmarks, on 127.0.0.1 and a free port.
#
#   pg-test-cluster.sh start DIR    start it (or find it running); prints its URL
#   pg-test-cluster.sh halt DIR     stop the server, keeping its data (a restart in a test)
#   pg-test-cluster.sh resume DIR   start it again, on the same port
#   pg-test-cluster.sh stop DIR     stop it and delete its data
#
# DIR holds `url`, `port` and `data` (a link to the cluster's folder under /tmp, which the
# server's user must own). PostgreSQL refuses to run as root: as root the server runs as the
# `postgres` user (or `nobody`). When it cannot start, `start` writes the reason to DIR/skip and
# exits 0, so the tests can say why they skip; RALPH_REQUIRE_POSTGRES=1 makes it exit 1 instead.
# RALPH_PG_FSYNC=on keeps fsync on (benchmarks); tests run with it off.
set -euo pipefail

command=${1:-}
dir=${2:-}
if [ -z "$command" ] || [ -z "$dir" ]; then
  echo "usage: pg-test-cluster.sh start|halt|resume|stop DIR" >&2
  exit 2
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

# One caller at a time per DIR: test processes starting at once share one server.
exec 9>"$dir/.lock"
flock 9

bindir=${RALPH_PG_BIN:-}
if [ -z "$bindir" ]; then
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
fi

as_server_user=()
if [ "$(id -u)" -eq 0 ]; then
  user=postgres
  id "$user" >/dev/null 2>&1 || user=nobody
  as_server_user=(runuser -u "$user" --)
fi

skip() {
  echo "$1" >"$dir/skip"
  echo "pg-test-cluster: $1" >&2
  if [ "${RALPH_REQUIRE_POSTGRES:-}" = 1 ]; then
    exit 1
  fi
  exit 0
}

# The cluster's own folder: DIR itself may be closed to the server's user.
data() {
  readlink "$dir/data"
}

running() {
  [ -e "$dir/data" ] && "${as_server_user[@]}" "$bindir/pg_ctl" -D "$(data)" status >/dev/null 2>&1
}

launch() { # port
  local fsync=${RALPH_PG_FSYNC:-off}
  "${as_server_user[@]}" "$bindir/pg_ctl" -D "$(data)" -l "$(data)/server.log" -w -t 60 \
    -o "-p $1 -c listen_addresses=127.0.0.1 -k $(data) -c fsync=$fsync -c full_page_writes=$fsync -c max_connections=400" \
    start >/dev/null 9>&-
}

case "$command" in
start)
  if running; then
    cat "$dir/url"
    exit 0
  fi
  rm -f "$dir/skip" "$dir/url"
  if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
    skip "no PostgreSQL server programs in /usr/lib/postgresql/*/bin (Debian package postgresql)"
  fi
  if [ ! -e "$dir/data" ]; then
    data=$(mktemp -d /tmp/ralph-pg.XXXXXX)
    chmod 700 "$data"
    [ ${#as_server_user[@]} -eq 0 ] || chown "$user" "$data"
    if ! "${as_server_user[@]}" "$bindir/initdb" -D "$data" -U ralph --auth=trust -E UTF8 \
      --locale=C >"$dir/initdb.log" 2>&1; then
      skip "initdb failed: $(tail -n 1 "$dir/initdb.log")"
    fi
    ln -sfn "$data" "$dir/data"
  fi
  # A port nobody listens on: a few tries, since another program may take it in between.
  for _ in 1 2 3 4 5 6 7 8; do
    port=$((20000 + RANDOM % 40000))
    if launch "$port" 2>/dev/null; then
      echo "$port" >"$dir/port"
      echo "postgresql://ralph@127.0.0.1:$port/postgres" >"$dir/url"
      cat "$dir/url"
      exit 0
    fi
  done
  skip "the server did not start: $(tail -n 1 "$(data)/server.log" 2>/dev/null || echo 'no log')"
  ;;
halt)
  "${as_server_user[@]}" "$bindir/pg_ctl" -D "$(data)" -m fast -w stop >/dev/null
  ;;
resume)
  launch "$(cat "$dir/port")"
  ;;
stop)
  if running; then
    "${as_server_user[@]}" "$bindir/pg_ctl" -D "$(data)" -m immediate -w stop >/dev/null || true
  fi
  if [ -L "$dir/data" ]; then
    rm -rf "$(data)"
  fi
  rm -f "$dir/data" "$dir/url" "$dir/port" "$dir/skip"
  ;;
*)
  echo "pg-test-cluster: unknown command '$command'" >&2
  exit 2
  ;;
esac
