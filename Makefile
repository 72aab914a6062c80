# Solitaire Arena: `make run` starts the race server, `make test` runs every check.
# Each target first creates .venv and installs the project into it (editable) when needed,
# so either one alone works on a fresh clone; the install is redone when pyproject.toml
# changes. PYTHON must be Python 3.11 or newer.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test

run: $(VENV)/.installed
	@echo "make run: starting the race server: $(BIN)/solitaire serve"
	@echo "make run: (an embedded PostgreSQL in .embedded-pg/ unless SOLITAIRE_DATABASE_URL is set)"
	$(BIN)/solitaire serve

test: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/pytest

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
		|| { echo "make: Solitaire Arena needs Python 3.11 or newer; set PYTHON=..." >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --editable .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --editable '.[dev]'
	touch $@
