#!/usr/bin/env bash
# Fault survival of the ralph binary: RUNS runs of a three-turn agent task (write a file, run it,
# answer) against the fake provider failing RATE of its answers at random (429, 500, 529,
# malformed body, dropped stream; bench/faults/fault_server.cpp). Prints how many runs completed.
#
# Usage: bench/faults.sh [RALPH_BINARY] [RATE] [RUNS] [SEED]
#        (defaults: build/ralph, 0.1, 50, 1; RALPH_HTTP_MAX_RETRIES in the environment applies;
#        FAULT_SERVER names the server when the binary is not in a build tree with it)
set -euo pipefail

ralph=$(realpath "${1:-build/ralph}")
rate=${2:-0.1}
runs=${3:-50}
seed=${4:-1}
server_bin=${FAULT_SERVER:-$(dirname "$ralph")/bench/ralph_fault_server}
[[ -x $ralph ]] || { echo "faults.sh: no executable at $ralph (build first)" >&2; exit 2; }
[[ -x $server_bin ]] || { echo "faults.sh: no $server_bin (build ralph_fault_server)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ralph-faults.XXXXXX")
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config
mkdir -p "$HOME"
# The server lives as long as its stdin, a pipe this script holds open.
mkfifo "$work/in"
"$server_bin" "$rate" "$seed" <"$work/in" >"$work/url" &
server=$!
exec 3>"$work/in"
trap 'exec 3>&-; wait "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
until [[ -s $work/url ]]; do sleep 0.05; done
url=$(head -n1 "$work/url")

ok=0
for ((i = 1; i <= runs; i++)); do
  rm -rf "$work/ws" && mkdir -p "$work/ws"
  if "$ralph" run --quiet --no-store --model openai-compat/bench --base-url "$url/v1" \
    --workspace "$work/ws" "Write hello.sh and run it" >"$work/out" 2>"$work/err"; then
    ok=$((ok + 1))
  else
    echo "run $i failed: $(tail -n1 "$work/err")" >&2
  fi
done
echo "rate=$rate runs=$runs seed=$seed retries=${RALPH_HTTP_MAX_RETRIES:-default}: $ok of $runs completed"
