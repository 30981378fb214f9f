# callproof developer tasks. Only Python >= 3.11 and make are needed: `make test` builds .venv from nothing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
MYPY_SRC := $(VENV)/mypy-src/callproof
PACKAGES := harness mock_server scenarios schemas
PYTEST_ARGS ?=

.PHONY: venv test lint typecheck pytest demo bench docs clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "callproof needs Python >= 3.11; run make PYTHON=python3.11")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@# mypy cannot follow the editable-install import hook: give it the package layout as symlinks.
	@rm -rf $(MYPY_SRC) && mkdir -p $(MYPY_SRC)
	@for p in $(PACKAGES); do ln -s ../../../$$p $(MYPY_SRC)/$$p; done
	@touch $(STAMP)

lint: venv
	$(BIN)/ruff check .

typecheck: venv
	$(BIN)/mypy -p callproof.harness -p callproof.mock_server
	$(BIN)/mypy tests bench examples

pytest: venv
	$(BIN)/python -m pytest -n auto $(PYTEST_ARGS)

test: lint typecheck pytest

demo: venv
	@echo "make demo: the harness runner (callproof run) comes with the mock upstream and the gateway examples;"
	@echo "until then the demo checks the bundled example captures with 'callproof check'."
	@mkdir -p demo-out
	$(BIN)/callproof check examples/captures/responses/openai/ok/*.sse
	@echo
	@echo "A broken capture, for contrast (callproof must reject it, exit 1):"
	@$(BIN)/callproof check examples/captures/responses/openai/broken/RSP-ARGS-001--*.sse; \
		test $$? -eq 1 || { echo "make demo: expected exit 1 for a broken capture"; exit 1; }
	@for dir in examples/captures/*/*/ok; do \
		front=$$(basename $$(dirname $$(dirname $$dir))); profile=$$(basename $$(dirname $$dir)); \
		$(BIN)/callproof check --front $$front --profile $$profile --format json $$dir/* \
			> demo-out/check-$$front-$$profile.json || exit 1; \
	done
	@echo
	@echo "make demo: every correct capture passes; JSON reports written to demo-out/check-<front>-<profile>.json"

bench: venv
	$(BIN)/python -m bench.run

docs: venv
	$(BIN)/python -m callproof.harness._docs README.md

clean:
	rm -rf $(VENV) build dist *.egg-info demo-out .pytest_cache .mypy_cache .ruff_cache .hypothesis
