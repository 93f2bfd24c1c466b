#!/usr/bin/env bash
# Runs every fuzz target of BUILD_DIR (default build-asan) for SECONDS (default 20) each, two at
# a time, over its seed corpus in fuzz/corpus/<target>/ (read only: new inputs go to a scratch
# folder under BUILD_DIR). A crash or a broken property fails the run; its input is kept in
# BUILD_DIR/fuzz-artifacts/ and the log's tail is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-asan}
seconds=${2:-20}
parallel=${FUZZ_PARALLEL:-2}

artifacts="$build/fuzz-artifacts"
scratch="$build/fuzz-scratch"
mkdir -p "$artifacts" "$scratch"

run_one() {
  local binary=$1 name target log
  name=$(basename "$binary")
  target=${name%_fuzz}
  log="$scratch/$target.log"
  mkdir -p "$scratch/$target"
  local corpora=("fuzz/corpus/$target")
  if [ "$target" = sse_decoder ]; then
    # The stream readers' seeds are SSE streams too: read, not copied.
    corpora+=(fuzz/corpus/openai_stream fuzz/corpus/anthropic_stream fuzz/corpus/responses_stream)
  fi
  if "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$artifacts/$target-" \
    "$scratch/$target" "${corpora[@]}" >"$log" 2>&1; then
    echo "fuzz: $target: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" |
      grep -o '[0-9]*$') runs, no failure"
  else
    echo "fuzz: $target FAILED (input in $artifacts/); the log's tail:"
    tail -n 40 "$log"
    return 1
  fi
}
export -f run_one
export artifacts scratch seconds

ls "$build"/fuzz/*_fuzz >/dev/null
printf '%s\n' "$build"/fuzz/*_fuzz | xargs -P "$parallel" -I{} bash -c 'run_one "$@"' _ {}
