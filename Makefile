VENV  := .venv
BIN   := $(VENV)/bin
STAMP := $(VENV)/.installed

# CI sets CI=true; the tests' conftest reads HYPOTHESIS_PROFILE.
ifdef CI
export HYPOTHESIS_PROFILE ?= ci
endif

.PHONY: verify test test-thorough bench docs clean browser

# Sentinel: create the venv only if it is missing.
$(BIN)/python:
	python3 -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip

# Stamp: (re)install the project editable whenever pyproject.toml changes.
# The ray extra: the tests run `simulate --ray` on a local Ray.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -e '.[ray]'
	touch $@

# The main job: every bundled spec is checked (types, examples), compiled, played, and
# verified (every invariant and built-in property, every player count, default options).
# It fails if any result contradicts what the spec expects (`rulebook verify` exit 1). A
# property the spec expects proved that came out `unknown` (exit 4) is listed in the table
# and in a closing warning, and fails the job only with STRICT=1. Counterexample games go
# to build/traces/. VERIFY_FLAGS tunes it, e.g. `make verify VERIFY_FLAGS="--budget 600"`.
# --budget 60 per player count (counts side by side on the cores, every search included): the
# searches that find a broken rule take seconds; the seed games' proofs need minutes per count
# today (docs/architecture.md), so a larger budget buys proofs, not violations. Results of an
# unchanged spec come from the cache (.rulebook-cache; `VERIFY_FLAGS="--budget 60 --no-cache"`).
SPECS = $(wildcard spec/*.rules spec/examples/*.rules)
VERIFY_FLAGS ?= --budget 60
STRICT ?=

verify: $(STAMP)
	$(BIN)/rulebook check $(SPECS)
	@set -e; for spec in $(SPECS); do \
		echo "$(BIN)/rulebook compile $$spec -o /dev/null"; \
		$(BIN)/rulebook compile "$$spec" -o /dev/null; \
		echo "$(BIN)/rulebook play $$spec --games 200 --seed 1"; \
		$(BIN)/rulebook play "$$spec" --games 200 --seed 1; \
	done
	@echo "$(BIN)/rulebook verify $(SPECS) $(VERIFY_FLAGS) --trace-dir build/traces --save-json build/verify.json"
	@status=0; $(BIN)/rulebook verify $(SPECS) $(VERIFY_FLAGS) --trace-dir build/traces \
		--save-json build/verify.json || status=$$?; \
	if [ $$status -eq 4 ]; then \
		echo "make verify: WARNING: no result contradicts the specs, but some properties they expect"; \
		echo "  proved are unknown (not proved): see the tables above. STRICT=1 makes this an error."; \
		if [ -n "$(STRICT)" ]; then exit 4; fi; \
	elif [ $$status -ne 0 ]; then exit $$status; fi

# The site's browser tests (tests/test_site_browser.py) drive Debian's Chromium through Playwright
# (Playwright's own browser download cannot work here). Installed when missing and possible (root,
# apt-get); otherwise those tests skip and say why.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "make: installing Debian's chromium for the browser tests"; \
			(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
				|| echo "make: WARNING: chromium could not be installed: the browser tests will skip"; \
		else echo "make: no chromium (apt-get install chromium as root): the browser tests will skip"; fi; }

test: $(STAMP) browser
	$(BIN)/python -m pytest -n 2 tests

# The same tests with 1000 hypothesis examples per property (CI uses 40, local runs 100).
test-thorough: $(STAMP) browser
	HYPOTHESIS_PROFILE=thorough $(BIN)/python -m pytest -n 2 tests

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

# The rules site: `rulebook docs` writes an mkdocs project (build/docs/mkdocs.yml, build/docs/docs/) for
# every bundled spec and the manual in docs/; mkdocs builds it into site/ with --strict. Proof status
# comes from build/verify.json (below).
# NO_MKDOCS_2_WARNING silences Material's end-of-life banner; `zensical build -f build/docs/mkdocs.yml`
# builds the same project.
DOCS_FLAGS ?=

# The guarantees pages read build/verify.json: the last `make verify` (its cache makes this
# instant after one), or a run made here when there is none.
# (Exit 1 and 4 are results — a contradiction, missing proofs — that the site shows.)
build/verify.json: | $(STAMP)
	@echo "$(BIN)/rulebook verify $(SPECS) $(VERIFY_FLAGS) --save-json build/verify.json"
	@status=0; $(BIN)/rulebook verify $(SPECS) $(VERIFY_FLAGS) --save-json build/verify.json --no-progress \
		> /dev/null || status=$$?; [ $$status -eq 0 ] || [ $$status -eq 1 ] || [ $$status -eq 4 ]

docs: $(STAMP) build/verify.json
	$(BIN)/rulebook docs $(SPECS) -o build/docs --manual docs $(DOCS_FLAGS)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet -f build/docs/mkdocs.yml -d $(CURDIR)/site

clean:
	rm -rf $(VENV) site build *.egg-info .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
