# Two commands do everything: `make demo` and `make test` (see README.md).
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DB ?= data/tractor.duckdb
PORT ?= 8501

.PHONY: demo test lint bench sample venv clean

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
	$(BIN)/shengji ingest data/sample --db $(DB)
	@echo "Dashboard: http://localhost:$(PORT)"
	SHENGJI_DB=$(DB) $(BIN)/streamlit run dashboard/app.py --server.port $(PORT) --server.headless true

sample: $(STAMP)
	$(BIN)/python -m ingest.sample

bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
