# callproof developer tasks. Only Python >= 3.11 and make are needed: `make test` builds .venv from nothing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
MYPY_SRC := $(VENV)/mypy-src/callproof
PACKAGES := harness mock_server reports scenarios schemas
PYTEST_ARGS ?=

# The `interop` extra, installed on top of the dev one (see `make interop` below).
INTEROP_STAMP := $(VENV)/.interop-installed
INTEROP_OUT   := out/interop

# The lock: the exact versions .venv gets (so `make test`, `make demo` and CI's .ci/run, and the GitHub Action's
# install), as pip's constraints file; `make lock` writes it from pyproject.toml, whose ranges stay open for users.
LOCK := constraints.txt
# What installs the lock into .venv: uv (pinned in the lock, installed there by pip first), a fresh .venv in 5 s where
# pip takes a minute (CI builds one every run). INSTALL='$(BIN)/python -m pip install' installs with pip instead, say
# where only pip's own configuration (pip.conf: a mirror, find-links) reaches an index.
INSTALL ?= $(BIN)/uv pip install --python $(BIN)/python

# Bytecode: where the environment says not to write it (PYTHONDONTWRITEBYTECODE=1, as some containers and CI images
# set), every process the suite starts (~850: gateways, clients, `callproof run`s, pytest workers) would compile
# callproof and its tests from source again, ~0.5 s of CPU each. make keeps the tree free of __pycache__ as asked, and
# writes the bytecode under .venv/pycache instead.
ifneq ($(PYTHONDONTWRITEBYTECODE),)
export PYTHONDONTWRITEBYTECODE :=
export PYTHONPYCACHEPREFIX ?= $(abspath $(VENV))/pycache
endif

.PHONY: venv test check test-under-load lint lint-static typecheck pytest demo matrix bench docs clean drift lock browser dist node

venv: $(STAMP)

$(STAMP): pyproject.toml $(LOCK)
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "callproof needs Python >= 3.11; run make PYTHON=python3.11")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -c $(LOCK) uv
	$(INSTALL) --quiet -c $(LOCK) pip -e '.[dev]'
	@# mypy cannot follow the editable-install import hook: give it the package layout as symlinks.
	@rm -rf $(MYPY_SRC) && mkdir -p $(MYPY_SRC)
	@for p in $(PACKAGES); do ln -s ../../../$$p $(MYPY_SRC)/$$p; done
	@touch $(STAMP)

lint: lint-static
	@# Public seams: no module imports another package's private module or its own package's __init__ (import-linter
	@# has no contract for private names; tests/test_imports.py's scan is the contract, run here and in pytest).
	$(BIN)/python -m pytest -q -p no:cacheprovider -p no:xdist tests/test_imports.py -k "seam or function_level"

lint-static: venv
	$(BIN)/ruff check .
	@# The floors' layering ([tool.importlinter] in pyproject.toml), read through the symlink view of the package.
	PYTHONPATH=$(VENV)/mypy-src $(BIN)/lint-imports --no-cache

typecheck: venv $(INTEROP_STAMP)
	$(BIN)/mypy -p callproof.harness -p callproof.mock_server -p callproof.reports
	$(BIN)/mypy tests bench examples interop

# pytest runs with the pinned `interop` extra (the client libraries of examples/ at the versions their baselines were
# recorded with), where `make browser` could get it, Chromium for tests/reports/test_html_browser.py, and where
# `make node` could get them, node and openai-node for tests/examples/test_adapter_template_js.py and
# tests/examples/test_js_example.py.
#
# Twice as many workers as CPUs (at most 8): half of the suite's wall time is spent waiting on launched gateways,
# sockets and subprocesses (-n 2 on 2 cores kept them 57% busy), so a second worker per CPU fills that time (3 workers
# on 2 cores: 8 min 21 s; 4: 7 min 56 s). `--dist worksteal`: each worker starts on an equal run of the tests, with a
# `long` module at its head (tests/conftest.py), and one that runs out takes half of the longest queue; under the
# default `load`, the 494 tests of test_mutations.py went to one worker in one batch and ran alone for the last minute.
PYTEST_WORKERS ?= $(shell $(PYTHON) -c 'import os; print(min(8, 2 * (os.cpu_count() or 1)))')
SUITE = $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist worksteal
pytest: venv $(INTEROP_STAMP) browser node
	$(SUITE) $(PYTEST_ARGS)

# `make test-under-load`: the timing-sensitive tests (`pytest -m timing`: paced streams, holds, the GW-STREAM verdicts)
# once more beside 2 CPU-bound competitors, which tests/under_load.py stops whatever happens (a failure, its 5-minute
# bound, Ctrl-C): a timing test must hold on a busy machine, not only on an idle one.
test-under-load: venv $(INTEROP_STAMP)
	$(BIN)/python -m tests.under_load --hogs 2 --timeout 300 -n 2 -q -p no:cacheprovider

# `make test`: the whole suite once: the timing tests run beside the rest of it rather than after it (tests/under_load.py
# --beside: the suite's workers are their CPU-bound competitors, and 2 hogs if the suite ends first), which keeps them
# on a busy machine without keeping the machine busy twice. `make pytest` runs them in the suite. The 15 slowest
# tests are listed at the end, so CI's log shows where its time goes. ruff, lint-imports and mypy run beside the suite
# too (tests/together.py: their output held and printed after it, the exit status the first failure): one process
# each, they left a core idle for a minute before it (mypy without a cache, as on CI, takes 65 s).
test: venv $(INTEROP_STAMP) browser node
	$(BIN)/python -m tests.together "$(BIN)/python -m tests.under_load --hogs 2 --timeout 600 -n 2 -q \
		-p no:cacheprovider --beside \"$(SUITE) -m 'not timing' --durations=15 $(PYTEST_ARGS)\"" \
		"$(MAKE) --no-print-directory lint typecheck"

# `make check`: the inner loop, half a minute: ruff, the layering and the seams, mypy on the packages, the structure
# figures' ceilings (tests/test_structure.py: seconds of AST parsing, so not in `make lint`), and the tests of the core
# floors and the renderers (no mock servers, no launched gateways or browsers, no CLI runs, no real client libraries),
# the property tests at 25 examples (tests/conftest.py). `make test` is the whole suite; CI runs that. The tests run
# as two pytest processes side by side (tests/together.py), half of the folders each, not under pytest-xdist: over
# these 4,200 fast tests its workers cost 50 CPU-s where one process spends 30. Keep the halves about even (each
# prints its time).
CHECK_PYTEST := $(BIN)/python -m pytest -p no:xdist -q -p no:cacheprovider --hypothesis-profile check
CHECK_TESTS_1 := tests/schemas tests/harness/check tests/harness/scenario tests/harness/catalogue \
	tests/harness/capture tests/harness/outcome tests/harness/judge
CHECK_TESTS_2 := tests/harness/request tests/harness/report_model tests/reports tests/harness/test_types.py \
	tests/harness/test_exports.py tests/test_imports.py tests/test_structure.py

check: lint-static
	$(BIN)/mypy -p callproof.harness -p callproof.mock_server -p callproof.reports
	$(BIN)/python -m tests.together "$(CHECK_PYTEST) $(CHECK_TESTS_1)" \
		"$(CHECK_PYTEST) --ignore tests/reports/test_html_browser.py $(CHECK_TESTS_2)"

demo: venv
	@mkdir -p out/demo
	@echo "== the reference gateway (examples/gateway/: its Responses front over a Chat Completions upstream)"
	$(BIN)/callproof run --report out/demo/gateway.json --md out/demo/gateway.md \
		--html out/demo/gateway.html --junit out/demo/gateway.xml --badge out/demo/gateway.svg \
		--launch '$(BIN)/python -m examples.gateway --upstream {upstream} --port {port}'
	@echo
	@echo "== the same gateway's Chat Completions front over a Responses upstream (--front chat)"
	$(BIN)/callproof run --front chat --upstream-dialect responses --report out/demo/gateway-chat.json \
		--md out/demo/gateway-chat.md --html out/demo/gateway-chat.html --junit out/demo/gateway-chat.xml \
		--badge out/demo/gateway-chat.svg \
		--launch '$(BIN)/python -m examples.gateway --upstream {upstream} --port {port} --upstream-dialect responses'
	@echo
	@echo "== the same gateway's Responses WebSocket front over a Chat Completions upstream (--front-transport websocket)"
	$(BIN)/callproof run --front-transport websocket --report out/demo/gateway-ws.json \
		--md out/demo/gateway-ws.md --html out/demo/gateway-ws.html --junit out/demo/gateway-ws.xml \
		--badge out/demo/gateway-ws.svg \
		--launch '$(BIN)/python -m examples.gateway --upstream {upstream} --port {port}'
	@echo
	@echo "== the official openai SDK as a client (examples/client_openai.py), its known bugs in a baseline"
	$(BIN)/callproof run --report out/demo/client-openai.json --md out/demo/client-openai.md \
		--html out/demo/client-openai.html --junit out/demo/client-openai.xml \
		--badge out/demo/client-openai.svg \
		--client examples.client_openai:run --baseline examples/baselines/openai-sdk.txt
	$(BIN)/callproof report out/demo/gateway.json out/demo/gateway-chat.json out/demo/gateway-ws.json \
		out/demo/client-openai.json --format html -o out/demo/matrix.html
	@echo
	@echo "make demo: reports in out/demo/: JSON, Markdown, HTML (matrix.html side by side), JUnit, badges"

# `make matrix`: the reference gateway (examples/gateway/) through the whole corpus for each of the 9 front x upstream
# dialect pairs (`make test` runs the full corpus for the Responses front only, a subset for the others). Reports in
# out/matrix/ (one JSON and Markdown report per pair, matrix.html over all); exits non-zero when any pair fails.
MATRIX_OUT       := out/matrix
MATRIX_FRONTS    := responses chat anthropic
MATRIX_UPSTREAMS := chat anthropic responses

matrix: venv
	@mkdir -p $(MATRIX_OUT)
	@status=0; \
	for front in $(MATRIX_FRONTS); do for upstream in $(MATRIX_UPSTREAMS); do \
		echo "== make matrix: $$front front, $$upstream upstream"; \
		$(BIN)/callproof run -n 2 --front $$front --upstream-dialect $$upstream \
			--launch "$(BIN)/python -m examples.gateway --upstream {upstream} --port {port} --upstream-dialect $$upstream" \
			--report $(MATRIX_OUT)/$$front-$$upstream.json --md $(MATRIX_OUT)/$$front-$$upstream.md || status=1; \
	done; done; \
	$(BIN)/callproof report $(MATRIX_OUT)/*.json --format html -o $(MATRIX_OUT)/matrix.html || status=1; \
	if [ $$status -ne 0 ]; then echo "make matrix: a front x upstream pair failed (reports in $(MATRIX_OUT)/)"; fi; \
	exit $$status

# `make bench`: every benchmark beside its reference (bench/README.md). The load generator of the requests/s rows is
# wrk; without it they fall back to a Python client (and say so). Debian's wrk is installed with apt only when
# allowed: CALLPROOF_INSTALL_WRK=1, or CI=true as root. aimock (the peer row) is installed by bench/bench_peer.py with
# npm into a cache under the temp dir when node >= 20.15 is present; without it the row says why.
CALLPROOF_INSTALL_WRK ?=

bench: venv
	@command -v wrk >/dev/null || { \
		if [ "$(CALLPROOF_INSTALL_WRK)" = 1 ] || { [ "$${CI:-}" = true ] && [ "$$(id -u)" = 0 ]; }; then \
			sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); echo "make bench: installing Debian's wrk with apt-get"; \
			$$sudo apt-get update -qq && \
			DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends wrk >/dev/null; \
		else echo "make bench: no wrk; requests/s rows use a Python client (CALLPROOF_INSTALL_WRK=1 installs wrk)"; fi; }
	$(BIN)/python -m bench.run

docs: venv
	$(BIN)/python -m callproof.harness.cli._docs .

# `make browser`: Debian's chromium for the browser tests (tests/reports/test_html_browser.py), installed with apt only
# when allowed: CALLPROOF_INSTALL_BROWSER=1, or CI=true as root (.ci/run). Otherwise those tests skip and say why.
CALLPROOF_INSTALL_BROWSER ?=
CHROMIUM := $(shell command -v chromium || command -v chromium-browser || command -v google-chrome)

browser:
ifeq ($(CHROMIUM),)
	@if [ "$(CALLPROOF_INSTALL_BROWSER)" = 1 ] || { [ "$${CI:-}" = true ] && [ "$$(id -u)" = 0 ]; }; then \
		sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		echo "make browser: installing Debian's chromium with apt-get"; \
		$$sudo apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null; \
	else \
		echo "make browser: no Chromium; the browser tests skip (CALLPROOF_INSTALL_BROWSER=1 installs Debian's chromium)"; \
	fi
else
	@$(CHROMIUM) --version 2>/dev/null || true
endif

# `make node`: node (>= 18) and openai-node (examples/package.json, npm ci into examples/node_modules) for the
# JavaScript adapter template's test (tests/examples/test_adapter_template_js.py) and the JavaScript example's
# (examples/js, tests/examples/test_js_example.py). Debian's nodejs and npm are
# installed with apt only when allowed: CALLPROOF_INSTALL_NODE=1, or CI=true as root (.ci/run). Otherwise, without
# node, that test skips and says why (and fails under CI=true).
CALLPROOF_INSTALL_NODE ?=
NODE := $(shell command -v node)

node:
ifeq ($(NODE),)
	@if [ "$(CALLPROOF_INSTALL_NODE)" = 1 ] || { [ "$${CI:-}" = true ] && [ "$$(id -u)" = 0 ]; }; then \
		sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		echo "make node: installing Debian's nodejs and npm with apt-get"; \
		$$sudo apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null && \
		npm ci --prefix examples --no-audit --no-fund --loglevel=error; \
	else \
		echo "make node: no node; the JavaScript adapter test skips (CALLPROOF_INSTALL_NODE=1 installs Debian's nodejs)"; \
	fi
else
	@test -f examples/node_modules/openai/package.json || npm ci --prefix examples --no-audit --no-fund --loglevel=error
	@echo "make node: $$(node --version), openai-node $$(node -p 'require("./examples/node_modules/openai/package.json").version')"
endif

# `make dist`: the sdist and the wheel in out/dist/, for installing callproof where there is no package index that has
# it (`pip install out/dist/callproof-*.whl`). Built in process by setuptools' own PEP 517 hooks: no `build` package.
DIST := out/dist

dist: venv
	@rm -rf $(DIST) && mkdir -p $(DIST)
	@for hook in build_sdist build_wheel; do \
		$(BIN)/python -c 'import sys; from setuptools import build_meta; getattr(build_meta, sys.argv[1])(sys.argv[2])' \
			$$hook $(abspath $(DIST)) >$(DIST)/.log 2>&1 || { cat $(DIST)/.log; exit 1; }; \
	done
	@rm -f $(DIST)/.log
	@ls -1 $(DIST)/*
	@rm -rf build callproof.egg-info

# `make lock`: constraints.txt anew from pyproject.toml's ranges (the base dependencies, the dev and the interop
# extras) by pip-compile (pip-tools, at the lock's own pin, in a venv of its own: out/lock-venv), for Python 3.11, with
# no index, find-links or path of this machine in it. By default every package moves to its newest release within the
# ranges; LOCK_ARGS='--upgrade-package NAME' moves one, LOCK_ARGS= only re-resolves after a pyproject.toml change.
# Run `make drift` first: it shows what the newest releases change. tests/test_lock.py holds the lock to pyproject.toml.
LOCK_VENV := out/lock-venv
LOCK_ARGS ?= --upgrade

lock:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else "make lock resolves for Python 3.11; run make lock PYTHON=python3.11")'
	@test -x $(LOCK_VENV)/bin/python || $(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install --quiet --upgrade $$(test -f $(LOCK) && echo -c $(LOCK)) pip pip-tools
	$(LOCK_VENV)/bin/pip-compile --quiet --no-header --extra dev --extra interop --strip-extras --allow-unsafe \
		--no-emit-index-url --no-emit-find-links --no-emit-trusted-host $(LOCK_ARGS) --output-file $(LOCK) pyproject.toml
	@{ printf '%s\n' \
		'# The lock: the versions this repository installs and tests (make venv, so make test, make demo and CI; the' \
		'# GitHub Action), as a pip constraints file (pip install -c constraints.txt ...). Written by make lock:' \
		'# pip-compile (pip-tools) for Python 3.11 from the ranges of pyproject.toml, the base dependencies and the dev' \
		'# and interop extras; those ranges stay open for users. Do not edit it: to bump, run make drift (the newest' \
		'# releases, the suite, what moved), then make lock (every package to its newest release within the ranges).' \
		'#'; cat $(LOCK); } > $(LOCK).new && mv $(LOCK).new $(LOCK)
	@echo "make lock: $(LOCK) written ($$(grep -c '==' $(LOCK)) pins); make venv installs them"

# `make drift`: the newest release of every runtime and test dependency (pyproject.toml's base, dev and interop
# requirements, by name, with no constraint) in a fresh scratch venv, out/drift-venv, then what `make test` checks
# there (ruff, lint-imports, mypy, the whole pytest suite with -n auto), then a table of what moved against the lock
# (package, locked, newest), which newest release could not be installed and why, and what failed; a held-back
# WebSocket library also runs the WebSocket tests at its newest release alone (python -m tests.drift --help).
# Separate from `make test`, whose versions are the lock's: this notices an upstream release the day it ships. Exits
# 1 when a check failed; when only versions moved, bump them on purpose with `make lock`.
DRIFT_VENV := out/drift-venv
DRIFT_ARGS ?=

drift: venv
	$(BIN)/python -m tests.drift --venv $(DRIFT_VENV) --python $(PYTHON) $(DRIFT_ARGS)

clean:
	rm -rf $(VENV) examples/node_modules build dist *.egg-info demo-out out reports/demo reports/interop .pytest_cache .mypy_cache .ruff_cache .hypothesis

# `make interop-gateways`: real gateways (interop/gateways.json: the LiteLLM proxy, ...) at their pinned releases,
# each installed into a venv of its own under out/interop-gateways/venvs/ (never .venv), run under callproof in every
# front x upstream mode it serves against its baseline (examples/baselines/gateways/<name>-<mode>.txt), offline
# (dummy keys, no telemetry, local model maps); reports and logs in out/interop-gateways/, the results table in
# docs/interop.md. Heavy (a whole suite per mode), so not part of `make test`; its runner is tested there
# (tests/interop/). Every mode runs even when one fails; exits 1 if any failed outside its baseline.
# INTEROP_GATEWAYS_ARGS='--only litellm --mode responses-chat' narrows it (python -m interop.gateways --help).
INTEROP_GATEWAYS_ARGS ?=

.PHONY: interop-gateways

interop-gateways: venv
	$(BIN)/python -m interop.gateways $(INTEROP_GATEWAYS_ARGS)

# `make interop`: the real client libraries of examples/ (the `interop` extra) under callproof, each against its
# baseline of known library bugs (docs/interop.md), then one HTML matrix of libraries x scenarios. Every adapter runs
# even when one fails; the target fails at the end if any failed outside its baseline. LangChain runs as a program
# (--client-cmd): its large_arguments case burns ~15 min of CPU, and an in-process function that times out keeps
# running in its thread.
.PHONY: interop

$(INTEROP_STAMP): $(STAMP) pyproject.toml $(LOCK)
	$(INSTALL) --quiet -c $(LOCK) -e '.[dev,interop]'
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
	run openai-chat --client-dialect chat --client examples.client_openai_chat:run; \
	run anthropic-sdk --client-dialect anthropic --client examples.client_anthropic:run; \
	run openai-sdk-ws --client-transport websocket --client examples.client_openai_ws:run; \
	run openai-agents-ws --client-transport websocket --client examples.clients.openai_agents_ws:run; \
	$(BIN)/callproof report $(INTEROP_OUT)/*.json --format html -o $(INTEROP_OUT)/matrix.html || failed="$$failed report"; \
	if [ -n "$$failed" ]; then echo "make interop: failed outside the baselines:$$failed"; exit 1; fi; \
	echo "make interop: every library within its baseline; matrix in $(INTEROP_OUT)/matrix.html"
