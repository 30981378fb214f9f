# callproof developer tasks. Only Python >= 3.11 and make are needed: `make test` builds .venv from nothing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
MYPY_SRC := $(VENV)/mypy-src/callproof
PACKAGES := harness mock_server reports scenarios schemas
PYTEST_ARGS ?=

.PHONY: venv test lint typecheck pytest demo bench docs clean drift

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
	@# The floors' layering ([tool.importlinter] in pyproject.toml), read through the symlink view of the package.
	PYTHONPATH=$(VENV)/mypy-src $(BIN)/lint-imports --no-cache

typecheck: venv
	$(BIN)/mypy -p callproof.harness -p callproof.mock_server -p callproof.reports
	$(BIN)/mypy tests bench examples

pytest: venv
	$(BIN)/python -m pytest -n auto $(PYTEST_ARGS)

test: lint typecheck pytest

demo: venv
	@mkdir -p out/demo
	@echo "== the reference gateway (examples/gateway.py: Responses front over a Chat Completions upstream)"
	$(BIN)/callproof run -n 2 --report out/demo/gateway.json --md out/demo/gateway.md \
		--html out/demo/gateway.html --junit out/demo/gateway.xml --badge out/demo/gateway.svg \
		--launch '$(BIN)/python examples/gateway.py --upstream {upstream} --port {port}'
	@echo
	@echo "== the official openai SDK as a client (examples/client_openai.py), its known bugs in a baseline"
	$(BIN)/callproof run -n 2 --report out/demo/client-openai.json --md out/demo/client-openai.md \
		--html out/demo/client-openai.html --junit out/demo/client-openai.xml \
		--badge out/demo/client-openai.svg \
		--client examples.client_openai:run --baseline examples/baselines/openai-sdk.txt
	$(BIN)/callproof report out/demo/gateway.json out/demo/client-openai.json --format html \
		-o out/demo/matrix.html
	@echo
	@echo "make demo: reports in out/demo/: JSON, Markdown, HTML (matrix.html compares both), JUnit, badges"

bench: venv
	$(BIN)/python -m bench.run

docs: venv
	$(BIN)/python -m callproof.harness.cli._docs .

# `make drift`: the newest openai and anthropic SDKs in a scratch venv, the mock's events and bodies validated with their
# own pydantic types (tests/mock_server/dialects/test_sdk_types.py) and parsed by their stream helpers. Separate from
# `make test`, whose versions come from the dev extra: this target notices an SDK release the day it ships.
DRIFT_VENV := out/drift-venv

drift:
	@test -x $(DRIFT_VENV)/bin/python || $(PYTHON) -m venv $(DRIFT_VENV)
	$(DRIFT_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(DRIFT_VENV)/bin/python -m pip install --quiet -e '.[dev]'
	$(DRIFT_VENV)/bin/python -m pip install --quiet --upgrade --upgrade-strategy eager openai anthropic
	@$(DRIFT_VENV)/bin/python -c 'import openai, anthropic; print(f"make drift: openai {openai.__version__}, anthropic {anthropic.__version__}")'
	$(DRIFT_VENV)/bin/python -m pytest -n 2 -q -p no:cacheprovider tests/mock_server/dialects/test_sdk_types.py \
		tests/mock_server/test_sdk_clients.py

clean:
	rm -rf $(VENV) build dist *.egg-info demo-out out reports/demo reports/interop .pytest_cache .mypy_cache .ruff_cache .hypothesis

# `make interop`: the real client libraries of examples/ (the `interop` extra) under callproof, each against its
# baseline of known library bugs (docs/interop.md), then one HTML matrix of libraries x scenarios. Every adapter runs
# even when one fails; the target fails at the end if any failed outside its baseline. LangChain runs as a program
# (--client-cmd): its large_arguments case burns ~15 min of CPU, and an in-process function that times out keeps
# running in its thread.
INTEROP_STAMP := $(VENV)/.interop-installed
INTEROP_OUT   := out/interop

.PHONY: interop

$(INTEROP_STAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[dev,interop]'
	@touch $@

interop: venv $(INTEROP_STAMP)
	@mkdir -p $(INTEROP_OUT)
	@failed=""; \
	run() { name=$$1; shift; echo "== $$name"; \
		$(BIN)/callproof run -n 2 "$$@" --baseline examples/baselines/$$name.txt \
			--report $(INTEROP_OUT)/$$name.json || failed="$$failed $$name"; echo; }; \
	run openai-sdk --client examples.client_openai:run; \
	run openai-agents --client examples.clients.openai_agents:run; \
	run langchain-openai --client-cmd '$(BIN)/python examples/clients/langchain_openai.py'; \
	run litellm --client examples.clients.litellm_responses:run; \
	$(BIN)/callproof report $(INTEROP_OUT)/*.json --format html -o $(INTEROP_OUT)/matrix.html || failed="$$failed report"; \
	if [ -n "$$failed" ]; then echo "make interop: failed outside the baselines:$$failed"; exit 1; fi; \
	echo "make interop: every library within its baseline; matrix in $(INTEROP_OUT)/matrix.html"
