#!/usr/bin/env bash
# Checks that an installed ralph can be used: installs BUILD_DIR (already built; it is not
# rebuilt) into a fresh temporary prefix, builds examples/ against it with find_package(ralph),
# builds a program with nothing but `pkg-config --cflags --libs --static ralph`, runs them all,
# and removes everything it made.
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
build=$(realpath "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ralph-check-install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

echo "check-install: installing $build into a temporary prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null

echo "check-install: building examples/ with find_package(ralph)"
cmake -S "$root/examples" -B "$tmp/examples" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/examples"
ctest --test-dir "$tmp/examples" --output-on-failure

echo "check-install: building examples/run_goal.cpp with pkg-config --static ralph"
pc_dir=$(dirname "$(find "$prefix" -name ralph.pc)")
export PKG_CONFIG_PATH=$pc_dir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
if pkg-config --static --libs ralph | grep -q -- '-ledit'; then
  echo "check-install: ralph.pc pulls in libedit, the terminal's line editor" >&2
  exit 1
fi
read -ra flags <<<"$(pkg-config --cflags --libs --static ralph)"
c++ -std=c++20 "$root/examples/run_goal.cpp" -o "$tmp/run_goal" "${flags[@]}"
cmake -DPROGRAM="$tmp/run_goal" -DSCRIPTS="$root/examples/scripted" -DWORK="$tmp/workspace" \
  -P "$root/examples/run_goal_test.cmake" >/dev/null
if [ -e "$prefix/include/ralph/cli" ] || find "$prefix" -name 'libralph_cli*' | grep -q .; then
  echo "check-install: the front door (cli/) was installed" >&2
  exit 1
fi
echo "check-install: ok (ralph $(pkg-config --modversion ralph))"
