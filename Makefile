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

lint: $(STAMP)
	$(PY) -m ruff check .

# The docs' pictures: the browser tests save them only when XIAOE_SCREENSHOTS names a folder.
screenshots: $(STAMP)
	XIAOE_SCREENSHOTS=docs/screenshots $(PY) -m pytest -q -m e2e tests/e2e

demo: $(STAMP)
	$(PY) -m core demo

bench: $(STAMP)
	for name in retrieval_quality retrieval_speed console_speed queue_speed tuning_speed grounding_quality answerability \
		offline_answer_quality semantic_signal gaps memory_over_time security_checks; do \
		echo "== bench.$$name"; $(PY) -m bench.$$name || exit 1; done

# Optional local model (docs/models.md): never part of run, test or CI. XIAOE_MODEL_DIR picks the folder (.model).
model:
	bash tools/model.sh build

serve-model:
	bash tools/model.sh serve

clean:
	rm -rf $(VENV) .pytest_cache
