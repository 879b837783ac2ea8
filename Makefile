# Two commands on a fresh machine: `make demo` and `make test`. Everything installs into .venv.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
# The trace server of the tests (Arize Phoenix) lives in a virtualenv of its own: its
# dependencies clash with Dagster's, and the tests only talk to it over HTTP.
PHOENIX_VENV := .venv-phoenix
PHOENIX_STAMP := $(PHOENIX_VENV)/.installed-stamp
PHOENIX_REQUIREMENTS := eval_pipeline_tests/phoenix-requirements.txt

.PHONY: setup setup-phoenix demo test lint pytest bench dev clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip==26.3"
	$(BIN)/python -m pip install --quiet "torch==2.13.0"
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

# The project is installed editable, so nothing compiles its modules as a wheel install would:
# compile them here, or a shell with PYTHONDONTWRITEBYTECODE set compiles about 140 modules in
# each of a run's three processes every time (0.15 s of a one-case run).
setup: $(STAMP)
	$(BIN)/python -m compileall -q eval_pipeline > /dev/null

$(PHOENIX_STAMP): $(PHOENIX_REQUIREMENTS)
	test -x $(PHOENIX_VENV)/bin/python || $(PYTHON) -m venv $(PHOENIX_VENV)
	$(PHOENIX_VENV)/bin/python -m pip install --quiet --upgrade "pip==26.3"
	$(PHOENIX_VENV)/bin/python -m pip install --quiet -r $(PHOENIX_REQUIREMENTS)
	touch $(PHOENIX_STAMP)

setup-phoenix: $(PHOENIX_STAMP)

demo: setup
	$(BIN)/eval-pipeline demo

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

pytest: setup setup-phoenix
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

test: lint pytest

bench: setup
	$(BIN)/python bench/startup.py
	$(BIN)/python bench/throughput.py
	$(BIN)/python bench/scale.py
	$(BIN)/python bench/rerun.py

# EVAL_HOME, DAGSTER_HOME and DEV_PORT may be given (make dev EVAL_HOME=/tmp/x DEV_PORT=3001).
# exec: Ctrl-C reaches dagster dev itself, which stops its webserver, daemon and code servers.
EVAL_HOME ?= $(CURDIR)/.eval_home
DAGSTER_HOME ?= $(EVAL_HOME)/dagster
DEV_PORT ?= 3000
dev: setup
	mkdir -p $(DAGSTER_HOME) && cp -n dagster.yaml $(DAGSTER_HOME)/dagster.yaml || true
	exec env EVAL_HOME=$(EVAL_HOME) DAGSTER_HOME=$(DAGSTER_HOME) $(BIN)/dagster dev -w workspace.yaml -p $(DEV_PORT)

clean:
	rm -rf .eval_home
