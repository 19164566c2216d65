PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test docs clean

$(BIN)/python:
	$(PY) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e ".[test]"
	touch $@ $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/python -m glassgrad.demo

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -q

docs: $(VENV)/.installed
	$(BIN)/python -m glassgrad.ops.table > docs/ops.md

clean:
	rm -rf $(VENV)
