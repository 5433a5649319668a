VENV  := .venv
BIN   := $(VENV)/bin
STAMP := $(VENV)/.installed

# CI sets CI=true; the tests' conftest reads HYPOTHESIS_PROFILE.
ifdef CI
export HYPOTHESIS_PROFILE ?= ci
endif

.PHONY: verify test bench docs clean

# Sentinel: create the venv only if it is missing.
$(BIN)/python:
	python3 -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip

# Stamp: (re)install the project editable whenever pyproject.toml changes.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -e .
	touch $@

verify: $(STAMP)
	@set -e; \
	examples=; \
	for f in spec/examples/*.rules; do if [ -e "$$f" ]; then examples="$$examples $$f"; fi; done; \
	if [ -n "$$examples" ]; then \
		echo "$(BIN)/rulebook check$$examples"; \
		$(BIN)/rulebook check $$examples; \
	fi; \
	for spec in spec/*.rules spec/examples/*.rules; do \
		[ -e "$$spec" ] || continue; \
		echo "$(BIN)/rulebook compile $$spec -o /dev/null"; \
		$(BIN)/rulebook compile "$$spec" -o /dev/null; \
		echo "$(BIN)/rulebook play $$spec --games 200 --seed 1"; \
		$(BIN)/rulebook play "$$spec" --games 200 --seed 1; \
	done

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 tests

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

docs: $(STAMP)
	$(BIN)/mkdocs build --strict -d site

clean:
	rm -rf $(VENV) site build *.egg-info .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
