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

setup: $(STAMP)

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

dev: setup
	mkdir -p .eval_home/dagster && cp -n dagster.yaml .eval_home/dagster/dagster.yaml || true
	DAGSTER_HOME=$(CURDIR)/.eval_home/dagster $(BIN)/dagster dev -w workspace.yaml

clean:
	rm -rf .eval_home
