#!/usr/bin/env bash
# Live event streams of `ralph serve` under load (issue 22): the built `ralph serve --port 0` in a
# new temporary workspace for each run, its model the load server of bench/load.sh
# (ralph_load_server, a process of its own) answering after LATENCY_MS, and
# build/bench/ralph_serve_bench (bench/serve/serve_watchers.cpp) opening N SSE streams
# (topic `sessions`, each its own connection, as N browser tabs would), then starting SESSIONS
# sessions through POST /api/v1/sessions and following them to their end. It prints, per run,
# the streams held, the latency from an event's publication to its arrival at each watcher
# (p50/p99/max), events published and delivered, the server's CPU and peak RSS. Builds nothing:
# build ralph_exe, ralph_load_server and ralph_serve_bench first.
#
# Usage: bench/serve.sh run WATCHERS [DRIVER ARGS...]   one run (see serve_watchers.cpp)
#        bench/serve.sh sweep [OUT_DIR] [REPEAT]        1 (the baseline), 100, 250 and 500
#            watchers, REPEAT (default 3) rounds; results in OUT_DIR (default
#            /tmp/ralph-serve-results)/runs.jsonl, then a table of the medians per watcher count
# Environment: RALPH_BUILD (default build) is the build tree; RALPH (default RALPH_BUILD/ralph) the
#   binary served, for a comparison with another build; LATENCY_MS (default 10000: every session
#   outlives the time it takes to start 1000) the model's answer time; SESSIONS (default 1000);
#   TURNS (default 3 tool turns, then the answer: 4 model calls a session); MAX_STREAMS (default
#   512) is ralph serve's --max-streams in every run.
set -euo pipefail

build=$(realpath "${RALPH_BUILD:-build}")
ralph=$(realpath "${RALPH:-$build/ralph}")
server_bin=$build/bench/ralph_load_server
driver=$build/bench/ralph_serve_bench
[[ -x $ralph && -x $server_bin && -x $driver ]] || {
  echo "serve.sh: no $ralph, $server_bin or $driver (build ralph_exe, ralph_load_server and ralph_serve_bench)" >&2
  exit 2
}
latency=${LATENCY_MS:-10000}
sessions=${SESSIONS:-1000}
turns=${TURNS:-3}
max_streams=${MAX_STREAMS:-512}

work=$(mktemp -d "${TMPDIR:-/tmp}/ralph-serve-sh.XXXXXX")
model=""
serve=""
stop_serve() {
  if [[ -n $serve ]]; then
    kill -INT "$serve" 2>/dev/null || true
    wait "$serve" 2>/dev/null || true
    serve=""
  fi
}
cleanup() {
  stop_serve
  if [[ -n $model ]]; then
    exec 3>&-
    wait "$model" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# The model server lives as long as our fd 3, a pipe to its stdin.
mkfifo "$work/in"
"$server_bin" "$latency" <"$work/in" >"$work/model-url" &
model=$!
exec 3>"$work/in"
until [[ -s $work/model-url ]]; do sleep 0.05; done
model_url=$(head -n1 "$work/model-url")

# One run in a new workspace and a new server: WATCHERS [DRIVER ARGS...].
run_one() {
  local watchers=$1 ws
  shift
  ws=$(mktemp -d "$work/ws.XXXXXX")
  echo "The notes: nothing to do." >"$ws/notes.txt"
  (cd "$ws" && exec "$ralph" serve --port 0 --max-streams "$max_streams" \
    --model openai-compat/bench --base-url "$model_url") >"$ws/serve.out" 2>"$ws/serve.err" &
  serve=$!
  until [[ -s $ws/serve.out ]]; do
    kill -0 "$serve" 2>/dev/null || { echo "serve.sh: ralph serve did not start: $(cat "$ws/serve.err")" >&2; exit 1; }
    sleep 0.05
  done
  local url status=0
  url=$(head -n1 "$ws/serve.out")
  url=${url%%login\?*}
  "$driver" --url "$url" --token-file "$ws/.ralph/serve/token" --pid "$serve" \
    --watchers "$watchers" --sessions "$sessions" --turns "$turns" "$@" || status=$?
  stop_serve
  rm -rf "$ws"
  return "$status"
}

command=${1:-}
case $command in
run)
  [[ $# -ge 2 ]] || { echo "usage: bench/serve.sh run WATCHERS [DRIVER ARGS...]" >&2; exit 2; }
  shift
  run_one "$@"
  ;;
sweep)
  out=${2:-/tmp/ralph-serve-results}
  repeat=${3:-3}
  mkdir -p "$out"
  rm -f "$out/runs.jsonl"
  for ((round = 1; round <= repeat; round++)); do
    for watchers in 1 100 250 500; do
      label="$watchers watchers"
      [[ $watchers != 1 ]] || label="1 watcher"
      echo "round $round: $label" >&2
      run_one "$watchers" --label "$label" --json-out "$out/runs.jsonl" || true
    done
  done
  "$driver" summary "$out/runs.jsonl"
  ;;
*)
  echo "usage: bench/serve.sh run WATCHERS [DRIVER ARGS...] | sweep [OUT_DIR] [REPEAT]" >&2
  exit 2
  ;;
esac
