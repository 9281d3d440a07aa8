# skillreel: `make demo` shows the whole product, `make check` is the quick developer loop (static
# checks and the fast tests, under a minute), `make test` runs `make check` and then every other test.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PYTEST := $(PY) -m pytest -q -p no:cacheprovider
# The fast tests: no browser, nothing that takes more than a few seconds. `make test` runs the rest.
FAST := not slow and not browser

.PHONY: setup demo check lint test bench realworld realworld-subset clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)
	bash scripts/ensure-chromium.sh $(PY)

demo: setup
	$(VENV)/bin/skillreel demo

# Static checks: lint, formatting, types (src and tests), and the syntax of every .js file.
lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench
	$(VENV)/bin/mypy
	$(PY) scripts/check_js.py

check: lint
	$(PYTEST) -m "$(FAST)"

test: check setup realworld-subset
	bash scripts/ensure-xvfb.sh
	$(PYTEST) -m "not ($(FAST))"

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
