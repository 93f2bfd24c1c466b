#!/usr/bin/env bash
# docs/reference/configuration.md must be what the config_reference program prints from the
# settings table (include/ralph/core/setting_names.h); `make docs` writes it again.
# Usage: check-config-reference.sh PROGRAM
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
printed=$(mktemp)
trap 'rm -f "$printed"' EXIT
"$1" >"$printed"
if ! diff -u "$root/docs/reference/configuration.md" "$printed"; then
  echo "docs/reference/configuration.md is not what the settings table prints: run 'make docs'" >&2
  exit 1
fi
