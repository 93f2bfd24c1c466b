#!/usr/bin/env bash
# Goals per second through 1, 2 and 4 `ralph worker` processes on one PostgreSQL queue (issue
# 14): a throwaway server (scripts/pg-test-cluster.sh, fsync on), the model of bench/load.sh
# (ralph_load_server) answering each goal at once with its final answer ("[turns=0]"), no repo
# (each goal in an empty folder), the sessions in the queue's database (the workers' default). Each round
# enqueues GOALS goals as a batch of its own, starts the workers with --exit-when-empty and
# times from their start to the last one's exit. Builds nothing: build ralph_exe and
# ralph_load_server first.
#
# Usage: bench/workers.sh [GOALS] [REPEAT] [CONCURRENCY]   (defaults 500, 3, 16 per worker)
#   prints one line per run, then per worker count the median goals/s and its ratio to 1 worker
# Environment: RALPH_BUILD (default build) is the build tree.
set -euo pipefail

build=${RALPH_BUILD:-build}
ralph=$build/ralph
server_bin=$build/bench/ralph_load_server
[[ -x $ralph && -x $server_bin ]] ||
  { echo "workers.sh: no $ralph or $server_bin (build ralph_exe and ralph_load_server)" >&2; exit 2; }
goals=${1:-500}
repeat=${2:-3}
concurrency=${3:-16}

work=$(mktemp -d "${TMPDIR:-/tmp}/ralph-workers-sh.XXXXXX")
server=""
cleanup() {
  if [[ -n $server ]]; then
    exec 3>&-
    wait "$server" 2>/dev/null || true
  fi
  bash scripts/pg-test-cluster.sh stop "$work/pg" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

RALPH_PG_FSYNC=on RALPH_REQUIRE_POSTGRES=1 bash scripts/pg-test-cluster.sh start "$work/pg" >/dev/null
queue=$(cat "$work/pg/url")
mkfifo "$work/in"
"$server_bin" 0 <"$work/in" >"$work/url" &
server=$!
exec 3>"$work/in"
until [[ -s $work/url ]]; do sleep 0.05; done
model_url=$(head -n1 "$work/url")

for ((i = 0; i < goals; i++)); do
  printf '{"id": "g%d", "goal": "bench goal %d [turns=0]"}\n' "$i" "$i"
done >"$work/goals.jsonl"

# One run: enqueue a new batch, run $1 workers to the end; prints the goals/s.
run() {
  local workers=$1 name=$2 pids=() start end
  "$ralph" batch "$work/goals.jsonl" --queue "$queue" --name "$name" \
    --model openai-compat/bench --base-url "$model_url" --quiet >/dev/null
  start=$(date +%s.%N)
  for ((w = 0; w < workers; w++)); do
    "$ralph" worker --queue "$queue" --concurrency "$concurrency" --exit-when-empty --quiet \
      --workdir "$work/$name/w$w" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  end=$(date +%s.%N)
  local done_goals
  done_goals=$("$ralph" batch status --queue "$queue" --name "$name" --json |
    sed -nE 's/.*"done":([0-9]+).*/\1/p')
  [[ $done_goals == "$goals" ]] || { echo "workers.sh: $name: $done_goals of $goals done" >&2; exit 1; }
  echo "$goals / ($end - $start)" | bc -l
}

declare -A rates
for ((round = 1; round <= repeat; round++)); do
  for workers in 1 2 4; do
    rate=$(run "$workers" "r$round-w$workers")
    printf 'round %d, %d worker(s): %.1f goals/s\n' "$round" "$workers" "$rate"
    rates[$workers]+="$rate "
  done
done
median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
base=$(echo "${rates[1]}" | median)
for workers in 1 2 4; do
  m=$(echo "${rates[$workers]}" | median)
  printf 'median, %d worker(s): %.1f goals/s (%.2fx of 1 worker)\n' "$workers" "$m" "$(echo "$m / $base" | bc -l)"
done
