#!/usr/bin/env bash
# End-to-end process measurements of the ralph binary: start-up and total time of a scripted run
# (median of N), `ralph --version`, peak RSS, CPU per run (perf stat, when present) and a
# callgrind instruction count (when valgrind is present; repeatable regardless of machine load).
#
# Usage: bench/e2e.sh [RALPH_BINARY] [RUNS]     (defaults: build/ralph, 30)
set -euo pipefail

ralph=$(realpath "${1:-build/ralph}")
runs=${2:-30}
[[ -x $ralph ]] || { echo "e2e.sh: no executable at $ralph (build first)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ralph-e2e.XXXXXX")
trap 'rm -rf "$work"' EXIT
# No user configuration may leak in.
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config
mkdir -p "$HOME" "$work/ws/src"
printf '# demo\nA tiny project.\n' >"$work/ws/README.md"
for i in 1 2 3; do
  printf 'int f%s(int x) { return x + %s; }\n' "$i" "$i" >"$work/ws/src/f$i.cpp"
done
# Three model turns: list a directory, read a file, answer. No subprocess.
cat >"$work/script.json" <<'EOF'
{"model": "bench", "turns": [
  {"text": "Let me look around.", "tool_calls": [{"name": "list_dir", "arguments": {"path": "src"}}]},
  {"text": "Reading the README.", "tool_calls": [{"name": "read_file", "arguments": {"path": "README.md"}}]},
  {"text": "The project has three small source files and a README."}
]}
EOF
run_cmd=("$ralph" run --quiet --model "scripted/$work/script.json" --workspace "$work/ws"
  "Describe the project")

# Median wall time in ms of N runs of "$@" (bash's EPOCHREALTIME: microsecond resolution; the
# fork and exec of the child are included, as for any process start).
median_ms() {
  local times=() start end
  for ((i = 0; i < runs; i++)); do
    start=$EPOCHREALTIME
    "$@" >/dev/null 2>&1
    end=$EPOCHREALTIME
    times+=("$((${end/[.,]/} - ${start/[.,]/}))")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END {
    m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
    printf "%.2f ms (min %.2f, max %.2f, n=%d)\n", m / 1000, a[1] / 1000, a[NR] / 1000, NR }'
}

# Peak resident set size in kB of one run of "$@".
peak_rss_kb() {
  if [[ -x /usr/bin/time ]]; then
    /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F': ' '/Maximum resident set size/ { print $2 }'
    return
  fi
  # Fallback: poll VmHWM while the process lives (may miss the last milliseconds of a short run).
  "$@" >/dev/null 2>&1 &
  local pid=$! hwm=0 value
  while value=$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status" 2>/dev/null) && [[ -n $value ]]; do
    hwm=$value
  done
  wait "$pid" || true
  echo "$hwm (polled)"
}

"${run_cmd[@]}" >/dev/null || { echo "e2e.sh: the scripted run failed" >&2; exit 1; }

echo "machine: $(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"
echo "binary:  $ralph ($(du -k "$ralph" | cut -f1) KB)"
echo
echo "baseline /bin/true:         $(median_ms /bin/true)"
echo "ralph --version:            $(median_ms "$ralph" --version)"
echo "ralph run (3-turn script):  $(median_ms "${run_cmd[@]}")"
echo
echo "peak RSS /bin/true:         $(peak_rss_kb /bin/true) kB"
echo "peak RSS ralph --version:   $(peak_rss_kb "$ralph" --version) kB"
echo "peak RSS ralph run:         $(peak_rss_kb "${run_cmd[@]}") kB"

if command -v perf >/dev/null && perf stat -e task-clock true >/dev/null 2>&1; then
  echo
  for label in version run; do
    if [[ $label == version ]]; then cmd=("$ralph" --version); else cmd=("${run_cmd[@]}"); fi
    perf stat -x, -e task-clock -r "$runs" "${cmd[@]}" 2>&1 >/dev/null |
      awk -F, -v l="$label" '/task-clock/ { printf "CPU (task-clock) ralph %-8s %.2f ms (+-%s)\n", l, $1, $4 }'
  done
fi

# Self instructions per object file, from a callgrind output file ("ob=" sets the object of the
# costs that follow; the cost line after "calls=" is a callee's inclusive cost: skipped).
callgrind_by_object() {
  awk '
    function name_of(spec,    id, rest) {
      id = spec; sub(/\).*/, "", id); sub(/^\(/, "", id)
      rest = spec; sub(/^\([0-9]+\) ?/, "", rest)
      if (rest != "") names[id] = rest
      return names[id]
    }
    /^ob=/ { object = name_of(substr($0, 4)); next }
    /^cob=/ { name_of(substr($0, 5)); next }
    /^calls=/ { skip = 1; next }
    /^[0-9+*-]/ { if (skip) { skip = 0; next } cost[object] += $2; total += $2 }
    END {
      for (o in cost) {
        n = o; sub(/.*\//, "", n)
        printf "  %12d %5.1f%%  %s\n", cost[o], 100 * cost[o] / total, n
      }
    }' "$1" | sort -rn | head -8
}

if command -v valgrind >/dev/null; then
  echo
  for label in version run; do
    if [[ $label == version ]]; then cmd=("$ralph" --version); else cmd=("${run_cmd[@]}"); fi
    out=$work/callgrind.$label
    valgrind --tool=callgrind --callgrind-out-file="$out" "${cmd[@]}" >/dev/null 2>&1
    echo "callgrind, ralph $label: $(callgrind_annotate --auto=no "$out" |
      awk '/PROGRAM TOTALS/ { print $1; exit }') instructions; by object file:"
    callgrind_by_object "$out"
  done
fi
