#!/usr/bin/env bash
# Takes the pictures of the web UI in docs/images/serve-*.png (1280x800) from a real `ralph serve`
# and a scripted model (the workers page: a PostgreSQL store and a worker): the browser tests
# tests/web/screenshots.test.mjs and workers.test.mjs, run through their ctest
# driver with WEB_TEST_SCREENSHOTS set. Needs a build (BUILD_DIR, default build) and
# `make web-tests`.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
WEB_TEST_SCREENSHOTS="$PWD/docs/images" \
  "$build/tests/test_e2e" --gtest_filter='Pages/ServeUi.BrowserTestPasses/Screenshots:Pages/ServeUi.BrowserTestPasses/Workers'
ls -l docs/images/serve-*.png
