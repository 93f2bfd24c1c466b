#!/usr/bin/env bash
# Many sessions in one process (issue 13): starts bench/load/load_server.cpp (a process of its
# own) with LATENCY_MS per answer, runs build/bench/ralph_load against it, and collects what it
# prints. Builds nothing: build the ralph_load and ralph_load_server targets first.
#
# Usage: bench/load.sh run LATENCY_MS [DRIVER ARGS...]   one driver run (see load_driver.cpp)
#        bench/load.sh sweep [OUT_DIR] [REPEAT]          every figure of docs/performance.md's
#            "Many sessions in one process": REPEAT (default 3) rounds, engine and thread per
#            session alternating; results in OUT_DIR (default /tmp/ralph-load-results) as
#            *.jsonl, the charts in docs/images/load_*.svg
# Environment: RALPH_BUILD (default build) is the build tree.
set -euo pipefail

build=${RALPH_BUILD:-build}
driver=$build/bench/ralph_load
server_bin=$build/bench/ralph_load_server
[[ -x $driver && -x $server_bin ]] ||
  { echo "load.sh: no $driver or $server_bin (build ralph_load and ralph_load_server)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ralph-load-sh.XXXXXX")
server=""
stop_server() {
  if [[ -n $server ]]; then
    exec 3>&-
    wait "$server" 2>/dev/null || true
    server=""
  fi
}
trap 'stop_server; rm -rf "$work"' EXIT

# Starts the server with latency $1 ms; it lives as long as our fd 3, a pipe to its stdin.
start_server() {
  stop_server
  rm -f "$work/in" "$work/url"
  mkfifo "$work/in"
  "$server_bin" "$1" <"$work/in" >"$work/url" &
  server=$!
  exec 3>"$work/in"
  until [[ -s $work/url ]]; do sleep 0.05; done
  url=$(head -n1 "$work/url")
}

command=${1:-}
case $command in
run)
  [[ $# -ge 2 ]] || { echo "usage: bench/load.sh run LATENCY_MS [DRIVER ARGS...]" >&2; exit 2; }
  start_server "$2"
  shift 2
  "$driver" --url "$url" "$@"
  ;;
sweep)
  out=${2:-/tmp/ralph-load-results}
  repeat=${3:-3}
  mkdir -p "$out" docs/images
  rm -f "$out"/*.jsonl
  hosts=("engine" "thread per session")
  for ((round = 1; round <= repeat; round++)); do
    start_server 0
    for host in "${hosts[@]}"; do
      flags=(--label "$host")
      [[ $host == engine ]] || flags+=(--thread-per-session)
      # Throughput against concurrency, 0 latency (JSON answers, read_file).
      for c in 1 4 16 64 256 1000; do
        "$driver" --url "$url" "${flags[@]}" --json --sessions $((c < 250 ? 1000 : 4 * c)) \
          --concurrency "$c" --json-out "$out/throughput.jsonl" >/dev/null
      done
      # CPU per turn: JSON, streaming, streaming with the store, shell tool (C = 16).
      for mode in "--json" "--stream" "--stream --store" "--stream --shell"; do
        # shellcheck disable=SC2086
        "$driver" --url "$url" "${flags[@]}" $mode --sessions 1000 --concurrency 16 \
          --json-out "$out/cpu.jsonl" >/dev/null
      done
    done
    # Cost per turn against conversation length: one session at a time, 200 turns.
    for mode in "--json" "--stream" "--stream --store"; do
      # shellcheck disable=SC2086
      "$driver" --url "$url" --label "engine ${mode//--/}" $mode --tool-turns 199 --sessions 3 \
        --concurrency 1 --curve --json-out "$out/curve.jsonl" >/dev/null
    done
    # 1000 sessions x 4 turns at 1 s latency.
    start_server 1000
    for host in "${hosts[@]}"; do
      flags=(--label "$host")
      [[ $host == engine ]] || flags+=(--thread-per-session)
      "$driver" --url "$url" "${flags[@]}" --stream --sessions 1000 --concurrency 1000 \
        --json-out "$out/latency.jsonl" >/dev/null || true
    done
  done
  stop_server
  "$driver" plot-throughput "$out/throughput.jsonl" docs/images/load_throughput.svg
  "$driver" plot-curve "$out/curve.jsonl" docs/images/load_cost_per_turn.svg
  echo "results in $out; charts in docs/images/load_throughput.svg, load_cost_per_turn.svg"
  ;;
*)
  echo "usage: bench/load.sh run LATENCY_MS [DRIVER ARGS...] | sweep [OUT_DIR] [REPEAT]" >&2
  exit 2
  ;;
esac
