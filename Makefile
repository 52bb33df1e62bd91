# The commands of the README: `make demo`, `make test` (the fast suite) and `make test-all`
# (what CI runs: the lint, then the fast and the slow suites). Each creates (or reuses) .venv
# and installs what it needs.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
HASH   := $(shell cksum < pyproject.toml | cut -d' ' -f1)
CORE   := $(VENV)/.core-$(HASH)
DEV    := $(VENV)/.dev-$(HASH)
BENCH  := $(VENV)/.bench-$(HASH)
DOCKER := $(VENV)/.docker-tools

.PHONY: demo test test-slow test-long test-suites test-all test-pytest-range lint layout bench clean

# The suites run on pytest-xdist workers: most tests wait on sandboxed pytest runs, so four
# workers keep two cores busy. `make test XDIST=` runs them in one process.
XDIST ?= -n 4 --dist loadgroup

# $(call need,COMMAND,DEBIAN PACKAGE,what is lost without it): install the package when the
# command is missing and this is root with apt; otherwise say what is lost, and go on.
need = command -v $(1) >/dev/null || (command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ] \
	&& (apt-get install -y -qq --no-install-recommends $(2) >/dev/null 2>&1 \
	    || (apt-get update -qq >/dev/null 2>&1 \
	        && apt-get install -y -qq --no-install-recommends $(2) >/dev/null 2>&1))) \
	|| echo "note: $(2) not installed; $(3)"

$(CORE): pyproject.toml
	@# bubblewrap gives the local sandbox its private filesystem view; without it the
	@# sandbox falls back to weaker isolation (and says so), so a failure is not fatal.
	@$(call need,bwrap,bubblewrap,the sandbox uses weaker isolation)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -e .
	rm -f $(VENV)/.core-*; touch $@

# torch 2.13.0 first: it is the CPU build on local disk; the `train` extra's range admits it.
$(DEV): $(CORE)
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[dev]'
	rm -f $(VENV)/.dev-*; touch $@

# The Docker backend's tests need an engine, and debootstrap to build its image offline;
# the test session starts a private engine and stops it (tests/sandbox_support.py).
$(DOCKER): $(CORE)
	@$(call need,dockerd,docker.io,the Docker backend's tests are skipped)
	@$(call need,debootstrap,debootstrap,the Docker backend's tests are skipped)
	@touch $@

$(BENCH): $(CORE)
	$(PY) -m pip install -q -e '.[bench]'
	rm -f $(VENV)/.bench-*; touch $@

# A short bench on the mini suite: one scripted agent against swarms of 4 with each
# coordination strategy, three seeds; report.md, figures.json and plots in bench_out/.
demo: $(BENCH)
	$(VENV)/bin/swarm-envs bench --tasks mini --agent claim --agent none --agent leader \
		--sizes 1 4 --seeds 0 1 2 --workers 2 --out bench_out

# The fast suite: what a newcomer runs (the aim is at most 10 minutes on two cores; 10.5 when
# last measured). A test of more than about 10 s under its four workers belongs to test-slow.
test: $(DEV)
	$(PY) -m pytest -q -m "not slow and not long" $(XDIST)

# The slow suite (CI runs it with the fast one, `make test-suites`): the Docker backend's tests, the trainers
# learning, real projects end to end, the red-team catalogue on the fast scorer, a real and
# a generated task through every check.
test-slow: $(DEV) $(DOCKER)
	$(PY) -m pytest -q -m "slow and not long" $(XDIST)

# The long suite (hours; before a release, not in CI): every bundled task checked and
# solved, the whole red-team catalogue on both scorers.
test-long: $(DEV) $(DOCKER)
	$(PY) -m pytest -q -m long $(XDIST)

# Both suites in one session: the workers stay busy across the fast suite's end instead
# of waiting on its last tests, and what a session starts once (the Docker engine, Ray,
# the harness) starts once.
test-suites: $(DEV) $(DOCKER)
	$(PY) -m pytest -q -m "not long" $(XDIST)

# What CI runs (.ci/run): the architecture checked first, then both suites, then the
# scoring tests that meet pytest's internals at the other end of the pinned pytest range.
test-all: lint test-suites test-pytest-range

# The scoring tests that meet pytest's internals (the guard, the harness and its records,
# collection, the tamper suite, the canary) with the scorer's private pytest at the other
# end of the range the guard is tested with (swarm_envs.scoring.harness.PYTEST_RANGE):
# `make test` and `make test-slow` already run every scoring test on the default harness,
# the upper end (harness_env.DEFAULT_PYTEST, 9.2.0). The rest of tests/scoring (cache keys,
# the disk cache, the static analysis, the red team's representatives, which the tamper
# suite's attacks on the harness stand for here) does not depend on which pytest runs the
# tests. Each end's harness is pinned (harness_env.LOCKS), picked by
# SWARM_ENVS_HARNESS_PYTEST and built in the cache on first use; the suite itself runs on
# the dev environment's pytest. `make test-pytest-range PYTEST_ENDS="8.0.2 9.2.0"` runs
# both ends; `RANGE_TESTS=tests/scoring` all of the scoring tests.
PYTEST_ENDS ?= 8.0.2
RANGE_TESTS ?= $(addprefix tests/scoring/test_,$(addsuffix .py,guard_effects tamper \
	scorers fast private_harness dynamic_keys canary integrity collection subprocess \
	failure_texts protocol hypothesis_database harness_env))
test-pytest-range: $(DEV)
	@for v in $(PYTEST_ENDS); do \
	  echo "== the scorer's pytest $$v"; \
	  SWARM_ENVS_HARNESS_PYTEST=$$v $(PY) -m pytest -q -m "not slow and not long" $(XDIST) \
	    $(RANGE_TESTS) || exit 1; \
	done

lint: $(DEV) layout
	$(VENV)/bin/ruff check swarm_envs tasks sandboxes baselines benchmarks examples tests
	$(VENV)/bin/ruff format --check swarm_envs tasks sandboxes baselines benchmarks examples tests
	cd $(LAYOUT) && $(CURDIR)/$(VENV)/bin/mypy --config-file $(CURDIR)/pyproject.toml -p swarm_envs
	cd $(LAYOUT) && PYTHONPATH=. $(CURDIR)/$(VENV)/bin/lint-imports --config $(CURDIR)/pyproject.toml

# The package as it is installed (sandboxes and baselines inside swarm_envs), as a tree
# of links, for the tools that read source trees: mypy and lint-imports. Task projects
# are data, not part of the package's code.
LAYOUT := build/layout
layout:
	rm -rf $(LAYOUT) && mkdir -p $(LAYOUT)/swarm_envs/tasks
	cp -rs $(CURDIR)/swarm_envs/. $(LAYOUT)/swarm_envs
	cp -rs $(CURDIR)/sandboxes $(LAYOUT)/swarm_envs/sandboxes
	cp -rs $(CURDIR)/baselines $(LAYOUT)/swarm_envs/baselines
	for f in tasks/*.py; do ln -s $(CURDIR)/$$f $(LAYOUT)/swarm_envs/$$f; done
	find $(LAYOUT) -name __pycache__ -prune -exec rm -rf {} +

bench: $(DEV)
	$(PY) benchmarks/bench_env_overhead.py

clean:
	rm -rf $(VENV) build dist *.egg-info
