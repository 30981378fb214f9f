# callproof developer tasks. Only Python >= 3.11 and make are needed: `make test` builds .venv from nothing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
MYPY_SRC := $(VENV)/mypy-src/callproof
PACKAGES := harness schemas
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
	$(BIN)/mypy -p callproof.harness
	$(BIN)/mypy tests bench examples

pytest: venv
	$(BIN)/python -m pytest -n auto $(PYTEST_ARGS)

test: lint typecheck pytest

demo: venv
	@echo "make demo: the harness runner (callproof run) lands with the gateway examples; until then the demo"
	@echo "checks the bundled example captures with 'callproof check' and writes demo-out/check.json."
	@mkdir -p demo-out
	$(BIN)/callproof check examples/captures/responses/openai/ok/*.sse
	@echo
	@echo "A broken capture, for contrast (this one must fail):"
	@if $(BIN)/callproof check examples/captures/responses/openai/broken/RSP-ARGS-001--*.sse; then \
		echo "expected a failure"; exit 1; fi
	$(BIN)/callproof check --format json examples/captures/*/*/ok/* > demo-out/check.json
	@echo "make demo: report written to demo-out/check.json"

bench: venv
	$(BIN)/python -m bench.run

docs: venv
	$(BIN)/python -m callproof.harness._docs README.md

clean:
	rm -rf $(VENV) build dist *.egg-info demo-out .pytest_cache .mypy_cache .ruff_cache .hypothesis
