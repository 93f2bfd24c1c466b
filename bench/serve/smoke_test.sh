#!/usr/bin/env bash
# ctest ServeBenchSmoke: bench/serve.sh end to end, small. Five watchers of a real ralph serve
# running 20 sessions at 0 latency, and a run refused for want of streams; checks the report's
# fields and counts (every stream held, every session followed to its end, nothing lost), never
# its timings.
# Usage: bench/serve/smoke_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
export RALPH_BUILD=$1
cd "$2"
out=$(mktemp -d "${TMPDIR:-/tmp}/ralph-serve-smoke.XXXXXX")
trap 'rm -rf "$out"' EXIT

fail() { echo "ServeBenchSmoke: $*" >&2; exit 1; }

LATENCY_MS=0 SESSIONS=20 TURNS=1 bench/serve.sh run 5 --json-out "$out/runs.jsonl" >"$out/a" ||
  fail "the run failed: $(cat "$out/a")"
report=$(tail -n1 "$out/a")
for field in held published delivered lost p50_ms p99_ms max_ms peak_rss_mb server_cpu_s; do
  [[ $report == *"\"$field\":"* ]] || fail "no $field in: $report"
done
for fact in '"held":5,' '"lost":0,' '"started":20,' '"finished":20,' '"streams_ended":0,' \
  '"out_of_order":0,' '"complete":true,'; do
  [[ $report == *"$fact"* ]] || fail "not $fact in: $report"
done
grep -q 'p99 ms' "$out/a" || fail "no table in: $(cat "$out/a")"
"$RALPH_BUILD/bench/ralph_serve_bench" summary "$out/runs.jsonl" | grep -q '^| 5 watchers | 1 |' ||
  fail "no summary row: $("$RALPH_BUILD/bench/ralph_serve_bench" summary "$out/runs.jsonl")"

# Beyond --max-streams the server refuses a stream (503), and the report says so.
MAX_STREAMS=2 LATENCY_MS=0 SESSIONS=2 TURNS=0 bench/serve.sh run 3 >"$out/b" ||
  fail "the capped run failed: $(cat "$out/b")"
capped=$(tail -n1 "$out/b")
[[ $capped == *'"held":2,'* && $capped == *'"refused":1,'* ]] || fail "not 2 held and 1 refused: $capped"
echo "ServeBenchSmoke: ok"
