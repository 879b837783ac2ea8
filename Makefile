# Two commands on a fresh machine: `make demo` and `make test`. Everything installs into .venv.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: setup demo test lint pytest bench dev clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip==26.3"
	$(BIN)/python -m pip install --quiet "torch==2.13.0"
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

setup: $(STAMP)

demo: setup
	$(BIN)/eval-pipeline demo

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

pytest: setup
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
