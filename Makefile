# Quick start: `make demo` and `make test` work on a fresh machine with Python 3.11+.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck bench clean

$(STAMP): pyproject.toml
	@[ -x $(PY) ] || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install -qq --upgrade pip
	@$(PY) -m pip install -qq -e '.[test]'
	@touch $(STAMP)

demo: $(STAMP)
	@$(VENV)/bin/referee fight examples/angthar_and_the_goblins.yaml --seed 7

test: $(STAMP)
	@$(VENV)/bin/ruff check src tests benchmarks
	@$(VENV)/bin/ruff format --check --quiet src tests benchmarks
	@$(VENV)/bin/mypy
	@$(PY) -m pytest -n 2 -p no:cacheprovider $(PYTEST_ARGS)

lint: $(STAMP)
	@$(VENV)/bin/ruff check src tests benchmarks
	@$(VENV)/bin/ruff format --check src tests benchmarks

typecheck: $(STAMP)
	@$(VENV)/bin/mypy

bench: $(STAMP)
	@$(PY) benchmarks/run.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
