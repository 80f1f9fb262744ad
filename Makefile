# 小E 审核台: `make run` starts the console and the student service, `make test` runs every test. Both set up .venv first.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PORT ?= 8501
SERVICE_PORT ?= 8502

.PHONY: run test test-fast lint bench demo clean screenshots model serve-model

$(STAMP): pyproject.toml requirements.txt requirements-dev.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

# The console and the student service together (tools/run.sh); Ctrl-C stops both.
run: $(STAMP)
	PY=$(PY) PORT=$(PORT) SERVICE_PORT=$(SERVICE_PORT) bash tools/run.sh

test: $(STAMP)
	$(PY) -m pytest

# The fast tier for developers: everything but the browser tests and the PostgreSQL copies of the store tests.
test-fast: $(STAMP)
	$(PY) -m pytest -m "not e2e" -k "not postgresql"

# ruff on the whole repository, then mypy on core/ (the files and the ratchet list are in pyproject.toml).
lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy

# The docs' pictures: the browser tests save them only when XIAOE_SCREENSHOTS names a folder.
screenshots: $(STAMP)
	XIAOE_SCREENSHOTS=docs/screenshots $(PY) -m pytest -q -m e2e tests/e2e

demo: $(STAMP)
	$(PY) -m core demo

# Every bench script with a __main__ (found, not listed, so a new one runs too), except those that need what a plain
# run cannot give them (docs/benchmarks.md): model_floor needs a real model and a set (`run SET --out DIR`),
# decision_snapshot writes a snapshot file for its own `--compare` instead of printing a table, and console_large is
# the child process console_speed starts for `--large N` / `--huge N`.
BENCH_SKIP := model_floor decision_snapshot console_large

bench: $(STAMP)
	for file in $$(grep -l '^if __name__ == "__main__":' bench/*.py | sort); do name=$$(basename $$file .py); \
		case " $(BENCH_SKIP) " in *" $$name "*) continue;; esac; \
		echo "== bench.$$name"; $(PY) -m bench.$$name || exit 1; done

# Optional local model (docs/models.md): never part of run, test or CI. XIAOE_MODEL_DIR picks the folder (.model).
model:
	bash tools/model.sh build

serve-model:
	bash tools/model.sh serve

clean:
	rm -rf $(VENV) .pytest_cache
