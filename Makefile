# skillreel: `make demo` shows the whole product, `make test` runs every test.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)
	bash scripts/ensure-chromium.sh $(PY)

demo: setup
	$(VENV)/bin/skillreel demo

test: setup
	bash scripts/ensure-xvfb.sh
	$(PY) -m pytest -q -p no:cacheprovider
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy

lint: setup
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy

bench: setup
	$(PY) bench/run_all.py

clean:
	rm -rf $(VENV) build dist src/*.egg-info
