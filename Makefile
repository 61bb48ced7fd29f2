# Two commands do everything: `make demo` and `make test` (see README.md).
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DB ?= data/tractor.duckdb
# Where `make demo` serves: this machine only by default; `make demo HOST=0.0.0.0 PORT=8600`
# opens it to the network on another port. (.streamlit/config.toml holds the other settings.)
HOST ?= 127.0.0.1
PORT ?= 8501

.PHONY: demo test lint bench sample venv clean core compiled chromium

$(STAMP): pyproject.toml
	@command -v $(PY) >/dev/null 2>&1 || { echo "need $(PY) on PATH"; exit 1; }
	@echo "==> creating $(VENV) and installing the project and its libraries (first run: a minute or two)"
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install -e '.[test]'
	touch $(STAMP)
	@echo "==> installed; the command line is $(BIN)/shengji (or '. $(BIN)/activate', then shengji)"

venv: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

# The browser test needs Debian's chromium and chromium-driver: installed when missing.
chromium:
	@sh .ci/chromium

test: lint chromium core
	$(BIN)/pytest -n 2

# The dashboard comes first: the sample is loaded with whichever core is current, then the compiled
# core is built in the background while the dashboard serves (picked up by the next process).
demo: $(STAMP)
	@echo "==> loading the bundled sample and the other engines' logs (data/engines) into $(DB)"
	$(BIN)/shengji ingest data/sample data/faulty/faulty.jsonl.gz data/engines --db $(DB)
	@$(BIN)/python -m bench.compiled background
	@echo "==> Dashboard: http://$(HOST):$(PORT)  (Ctrl+C stops it; the command line is $(BIN)/shengji)"
	SHENGJI_DB=$(DB) $(BIN)/streamlit run dashboard/serve.py --server.address $(HOST) --server.port $(PORT)

# The bundled sample and the faulty file of the audit page (its truth file beside it).
sample: $(STAMP)
	$(BIN)/python -m shengji simulate --matches 140 --hands 80 --seed 2026 --jobs 2 -o data/sample/hands.jsonl.gz
	$(BIN)/python -m shengji simulate --matches 5 --hands 40 --seed 7 --faults 0.4 --source faulty-server -o data/faulty/faulty.jsonl.gz

# The rules core compiled with mypyc into build/compiled, checked against the pure modules'
# digests; `shengji` uses it while it matches the sources (SHENGJI_PURE=1 turns it off). `core`
# builds only when it is missing or stale and, where there is no C compiler or no Python headers,
# says so and goes on with the pure core (same results). `compiled` rebuilds. `pip install .`
# builds a wheel with the same compiled modules (hatch_build.py).
core: $(STAMP)
	@$(BIN)/python -m bench.compiled ensure

compiled: $(STAMP)
	$(BIN)/python -m bench.compiled build

# The peers' libraries (bench/peers.py) are installed for the benchmark only.
bench: core chromium
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache build/compiled
