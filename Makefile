# Two entry points (see README):
#   make lab    set up a virtual environment and open the course in JupyterLab
#   make test   set up the same environment and run the whole test suite
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.dlbook-installed

.PHONY: lab test test-fast-gpu bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[notebooks,dev]'
	touch $(STAMP)

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/

test: $(STAMP)
	$(BIN)/python -m pytest -q tests
	DLBOOK_FAKE_GPUS=2 $(BIN)/python -m pytest -q tests/test_context.py tests/test_ndarray.py tests/test_autograd.py

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache
