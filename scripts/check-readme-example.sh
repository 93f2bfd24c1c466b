#!/usr/bin/env bash
# The program under README.md's "Using ralph as a library" must be examples/run_goal.cpp, which
# every build compiles: so the README never shows code that does not build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shown=$(awk '/^## Using ralph as a library/ { inside = 1 }
             inside && /^```cpp$/ { code = 1; next }
             code && /^```$/ { exit }
             code { print }' "$root/README.md")
if [ "$shown" != "$(cat "$root/examples/run_goal.cpp")" ]; then
  echo "README.md's library program differs from examples/run_goal.cpp:" >&2
  diff <(printf '%s\n' "$shown") "$root/examples/run_goal.cpp" >&2 || true
  exit 1
fi
