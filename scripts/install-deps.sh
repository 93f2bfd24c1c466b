#!/usr/bin/env bash
# Installs the Debian packages ralph needs to build and test. Idempotent: does nothing when
# every package is already present. Uses sudo when not run as root.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libcurl4-openssl-dev libssl-dev libcpp-httplib-dev nlohmann-json3-dev libcli11-dev
  libtomlplusplus-dev libfmt-dev libexpected-dev libsqlite3-dev libpq-dev liblua5.4-dev
  libre2-dev libedit-dev libgtest-dev libgmock-dev libbenchmark-dev
  json-schema-test-suite
  postgresql # the tests start a throwaway server (scripts/pg-test-cluster.sh)
  clang-format clang-tidy clang libclang-rt-14-dev
  go-md2man man-db # the man page ralph(1) from docs/manual/, and its render test
  bats perl ruby-rspec # test runners the end-to-end tests run behind --verify-cmd (prove is perl's)
  chromium # the web UI's browser tests drive it with playwright-core (make web-tests)
)

# Node and npm install the agent CLIs the tests drive (make agent-clis). Any node already on the
# PATH is kept: Debian's would be older than the one a machine may have from elsewhere.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  sudo=(sudo)
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
