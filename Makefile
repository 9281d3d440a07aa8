# skillreel: `make demo` shows the whole product, `make check` is the quick developer loop (static
# checks and the fast tests, under a minute), `make test` runs the static checks and every test.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
RUNTIME := $(VENV)/.runtime
STAMP := $(VENV)/.installed
# The tests run on two pytest-xdist workers more than there are cores: a worker waiting on a page or
# a step's deadline leaves its core to the others (on 2 cores, 3 workers: 543 s against 661 s with 2,
# the same CPU; 4 workers kept both cores busy where 3 left ~15% idle: docs/dev/CONTRACTS.md).
# --dist loadfile keeps a module's tests on one worker, so a module-scoped fixture is built once.
# `make test JOBS=0` runs them in one process.
JOBS ?= $(shell $(PYTHON) -c "import os; print(len(getattr(os, 'sched_getaffinity', lambda _: range(os.cpu_count() or 1))(0)) + 2)")
PYTEST := $(PY) -m pytest -q -p no:cacheprovider -n $(JOBS) --dist loadfile
# The fast tests: no browser, nothing that takes more than a few seconds. `make test` runs the rest.
FAST := not slow and not browser

.PHONY: setup system demo check lint test suite bytecode install-check bench realworld realworld-subset clean

# The runtime dependencies only (what `make demo` needs); the test tools come on top for the rest.
# Each step says what it does before it starts: pip is quiet and its install is the long wait.
$(RUNTIME): pyproject.toml
	@echo "set-up: creating $(VENV) with $$($(PYTHON) --version 2>&1)"
	$(PYTHON) -m venv $(VENV)
	@echo "set-up: upgrading pip in $(VENV)"
	$(PY) -m pip install --quiet --upgrade pip
	@echo "set-up: installing skillreel and its runtime dependencies into $(VENV) (pip; on a fresh machine the longest step)"
	$(PY) -m pip install --quiet -e .
	touch $(RUNTIME)

$(STAMP): $(RUNTIME)
	@echo "set-up: installing the test tools into $(VENV) (pip)"
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)
	bash scripts/ensure-chromium.sh $(PY)

demo: $(RUNTIME)
	@echo "set-up: checking for a Chromium (scripts/ensure-chromium.sh)"
	bash scripts/ensure-chromium.sh $(PY)
	@echo "set-up: done; running skillreel demo"
	$(VENV)/bin/skillreel demo

# Static checks: lint, formatting, types (src and tests), and the syntax of every .js file.
lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench
	$(VENV)/bin/mypy
	$(PY) scripts/check_js.py

check: lint bytecode
	$(PYTEST) -m "$(FAST)"

# First the system packages beside the venv's install and byte-compilation (apt-get and pip, each
# mostly waiting on its registry), then four independent jobs side by side: the static checks
# (~30 CPU-s, mostly mypy) fill the gaps the tests leave while they wait on pages and deadlines;
# the install check and the real-app venvs mostly wait on the package registry (a realworld test
# that needs a venv still being built waits for it: bench/realworld/envs.py locks each build).
# Any job failing fails `make test`.
test:
	$(MAKE) --no-print-directory -j2 -Oline system bytecode
	$(MAKE) --no-print-directory -j4 -Oline lint install-check realworld-subset suite

# The system packages (apt-get, where it can): Chromium, Xvfb for the headed tests, redis-server for
# the fleet's. `make test` runs this beside pip's install: on a fresh machine both take tens of seconds.
system:
	bash scripts/ensure-chromium.sh --system
	bash scripts/ensure-xvfb.sh
	bash scripts/ensure-redis.sh

# Every test, the fast ones included, in one pytest run (one collection; the fast tests fill the
# workers' gaps between browser tests).
suite: setup bytecode
	$(PYTEST)

# Byte-compile the package once: where PYTHONDONTWRITEBYTECODE is set (this machine's and CI's
# environment), each of the hundreds of `skillreel` subprocesses the tests start would otherwise
# compile the modules it imports again (a third of its start-up CPU).
bytecode: $(STAMP)
	$(PY) -m compileall -q src

# Install the checkout the way users do (pipx / uv tool / pip into a fresh venv, not editable) and
# check that the console script and every packaged file work (scripts/check-install.sh).
install-check:
	bash scripts/check-install.sh $(PYTHON)

bench: setup
	bash scripts/ensure-redis.sh
	$(PY) bench/run_all.py

# The real-app corpus (docs/realworld.md): builds every app version's venv from PyPI (cached), runs
# every task with skillreel and the codegen-style baseline, writes bench/REALWORLD.md.
realworld: setup
	$(PY) -m bench.realworld

# The venvs of the corpus subset that `make test` runs (tests/realworld/).
realworld-subset: setup
	$(PY) -m bench.realworld --install-only --app flask-admin --app streamlit

clean:
	rm -rf $(VENV) build dist src/*.egg-info
