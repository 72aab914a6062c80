# Solitaire Arena: `make run` starts the race server, `make test` runs every check.
# Each target first creates .venv and installs the project into it (editable) when needed,
# so either one alone works on a fresh clone; the install is redone when pyproject.toml,
# setup.py or the C sources change. PYTHON must be Python 3.11 or newer.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The install also compiles the C extensions, so it is redone when they change.
BUILD_INPUTS := pyproject.toml setup.py $(wildcard engine/native/*.[ch] engine/solver/native/*.[ch])

# The page's browser tests (tests/server/test_web_*.py) drive Debian's chromium through
# Playwright; it is installed when missing (CI runs as root on Debian).
CHROMIUM := /usr/bin/chromium
# The page's rules (server/web/rules.js) are held to the engine under Debian's node
# (tests/server/test_web_rules.py).
NODE := /usr/bin/node

# The suite runs on this many pytest workers (pytest-xdist). Most of a test's time is spent
# waiting on a server, PostgreSQL or the browser, not computing, so more workers than cores
# pay; each worker has its own template database and test copies (tests/conftest.py).
TEST_WORKERS ?= 4

# The tests of several hosts (tests/server/test_proxy_hosts.py, test_host_loss.py) run
# Debian's HAProxy with deploy/haproxy.cfg; it is installed when missing, the same way.
HAPROXY := /usr/sbin/haproxy

# The page inside Discord (an Activity) loads Discord's embedded app SDK, bundled into one
# served file. The bundle is committed (server/web/discord-sdk.js), so `make run`, `make
# test` and an installed package need neither npm nor the registry; `make activity-sdk`
# rebuilds it from activity/package-lock.json (npm ci, then esbuild) after a version change.
ACTIVITY_SDK := server/web/discord-sdk.js

.PHONY: run test activity-sdk

run: $(VENV)/.installed
	@echo "make run: starting the race server: $(BIN)/solitaire serve"
	@echo "make run: (an embedded PostgreSQL in .embedded-pg/ unless SOLITAIRE_DATABASE_URL is set)"
	$(BIN)/solitaire serve

test: $(VENV)/.installed-dev $(CHROMIUM) $(NODE) $(HAPROXY)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/pytest -n $(TEST_WORKERS) --dist worksteal

activity-sdk: $(NODE)
	cd activity && npm ci --no-audit --no-fund && node build.mjs

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
		|| { echo "make: Solitaire Arena needs Python 3.11 or newer; set PYTHON=..." >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: $(BUILD_INPUTS) | $(BIN)/python
	$(BIN)/python -m pip install --quiet --editable .
	touch $@

$(VENV)/.installed-dev: $(BUILD_INPUTS) | $(BIN)/python
	$(BIN)/python -m pip install --quiet --editable '.[dev]'
	touch $@

$(CHROMIUM):
	@echo "make: installing Debian's chromium for the browser tests"
	if [ "$$(id -u)" = 0 ]; then apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
	else sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; fi

$(NODE):
	@echo "make: installing Debian's nodejs for the page's rules test"
	if [ "$$(id -u)" = 0 ]; then apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y nodejs; \
	else sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y nodejs; fi

$(HAPROXY):
	@echo "make: installing Debian's haproxy for the tests of several hosts"
	if [ "$$(id -u)" = 0 ]; then apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y haproxy; \
	else sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y haproxy; fi
