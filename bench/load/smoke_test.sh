#!/usr/bin/env bash
# ctest LoadDriverSmoke: bench/load.sh end to end, small. Four sessions (4 model turns each) at 0
# latency, JSON and streamed with the store, then both charts drawn from what they wrote. Checks
# the report's fields and counts, never its timings.
# Usage: bench/load/smoke_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
export RALPH_BUILD=$1
cd "$2"
out=$(mktemp -d "${TMPDIR:-/tmp}/ralph-load-smoke.XXXXXX")
trap 'rm -rf "$out"' EXIT

fail() { echo "LoadDriverSmoke: $*" >&2; exit 1; }
check_report() { # $1: the JSON line
  for field in turns_per_s cpu_per_turn_us p50_turn_ms p99_turn_ms peak_rss_mb wall_s; do
    [[ $1 == *"\"$field\":"* ]] || fail "no $field in: $1"
  done
  [[ $1 == *'"turns":16,'* ]] || fail "not 16 turns in: $1"
  [[ $1 == *'"failed":0,'* ]] || fail "sessions failed in: $1"
}

bench/load.sh run 0 --sessions 4 --concurrency 2 --json --json-out "$out/runs.jsonl" >"$out/a"
check_report "$(tail -n1 "$out/a")"
grep -q 'turns/s' "$out/a" || fail "no table in: $(cat "$out/a")"
bench/load.sh run 0 --sessions 4 --stream --store --shell --thread-per-session \
  --json-out "$out/runs.jsonl" >"$out/b"
check_report "$(tail -n1 "$out/b")"
[[ $(wc -l <"$out/runs.jsonl") -eq 2 ]] || fail "--json-out did not collect both runs"

bench/load.sh run 0 --sessions 2 --concurrency 1 --tool-turns 9 --curve --json-out "$out/curve.jsonl" >"$out/c"
[[ $(tail -n1 "$out/c") == *'"turns":20,'* ]] || fail "not 20 turns in: $(tail -n1 "$out/c")"
"$RALPH_BUILD/bench/ralph_load" plot-throughput "$out/runs.jsonl" "$out/t.svg"
"$RALPH_BUILD/bench/ralph_load" plot-curve "$out/curve.jsonl" "$out/c.svg"
for svg in "$out/t.svg" "$out/c.svg"; do
  grep -q '<polyline' "$svg" || fail "no line drawn in $svg"
done
# turn_cpu_us holds one figure per turn of the 10-turn sessions.
[[ $(grep -o '"turn_cpu_us":\[[^]]*\]' "$out/c" | tr ',' '\n' | wc -l) -eq 10 ]] ||
  fail "turn_cpu_us is not 10 figures: $(tail -n1 "$out/c")"
echo "LoadDriverSmoke: ok"
