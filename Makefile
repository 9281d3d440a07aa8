# skillreel: `make demo` shows the whole product, `make test` runs every test.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint bench realworld realworld-subset clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)
	bash scripts/ensure-chromium.sh $(PY)

demo: setup
	$(VENV)/bin/skillreel demo

test: setup realworld-subset
	bash scripts/ensure-xvfb.sh
	$(PY) -m pytest -q -p no:cacheprovider
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy

lint: setup
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy

bench: setup
	$(PY) bench/run_all.py

# The real-app corpus (docs/realworld.md): builds every app version's venv from PyPI (cached), runs
# every task with skillreel and the codegen-style baseline, writes bench/REALWORLD.md.
realworld: setup
	$(PY) -m bench.realworld

# The venvs of the corpus subset that `make test` runs (tests/realworld/).
realworld-subset: setup
	$(PY) -m bench.realworld --install-only --app flask-admin

clean:
	rm -rf $(VENV) build dist src/*.egg-info
