# Two commands do everything: `make demo` and `make test` (see README.md).
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DB ?= data/tractor.duckdb
PORT ?= 8501

.PHONY: demo test lint bench sample venv clean compiled

$(STAMP): pyproject.toml
	@command -v $(PY) >/dev/null 2>&1 || { echo "need $(PY) on PATH"; exit 1; }
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

test: lint
	$(BIN)/pytest -n 2

demo: $(STAMP)
	$(BIN)/shengji ingest data/sample data/faulty/faulty.jsonl.gz --db $(DB)
	@echo "Dashboard: http://localhost:$(PORT)"
	SHENGJI_DB=$(DB) $(BIN)/streamlit run dashboard/app.py --server.port $(PORT) --server.headless true

# The bundled sample and the faulty file of the audit page (its truth file beside it).
sample: $(STAMP)
	$(BIN)/python -m shengji simulate --matches 140 --hands 80 --seed 2026 --jobs 2 -o data/sample/hands.jsonl.gz
	$(BIN)/python -m shengji simulate --matches 5 --hands 40 --seed 7 --faults 0.4 --source faulty-server -o data/faulty/faulty.jsonl.gz

# The mypyc build of the pure core (build/compiled), checked against the pure modules' digests;
# the pure modules stay the default. `make bench` measures both side by side.
compiled: $(STAMP)
	$(BIN)/python -m bench.compiled build

bench: compiled
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache build/compiled
