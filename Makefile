# Two entry points (see README):
#   make lab    set up a virtual environment and open the course in JupyterLab
#   make test   set up the same environment and run the whole test suite
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.dlbook-installed

.PHONY: lab test lint format test-oldest-numpy notebooks bench fuzz clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[notebooks,dev,dist]'
	touch $(STAMP)

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/

# The notebooks run in fast mode.  nbval compares every cell's output with
# the stored one, except training cells (tag nbval-ignore-output), whose
# numbers depend on the BLAS build: the nbval_bands plugin checks those
# against the fast-mode ranges in the cell's metadata instead.  One BLAS
# thread keeps the remaining printed numbers independent of the core count.
NBVAL = DLBOOK_FAST=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 $(BIN)/python -m pytest -q -p no:cacheprovider \
	-p tests.notebooks.nbval_bands \
	--nbval --nbval-current-env --nbval-cell-timeout=600 \
	--nbval-sanitize-with notebooks/nbval_sanitize.cfg

# The oldest NumPy that pyproject.toml admits, in a second environment
# that holds only dlbook's own dependencies and the test tools.
OLDEST_NUMPY = numpy==1.23.5
OLD_VENV     = .venv-oldest
OLD_STAMP    = $(OLD_VENV)/.dlbook-installed

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m compileall -q dlbook tests benchmarks examples >/dev/null
	$(BIN)/python -m pytest -q tests
	DLBOOK_FAKE_GPUS=2 $(BIN)/python -m pytest -q -p no:cacheprovider -k gpu0 \
	    tests/ops tests/gluon tests/symbol tests/test_*.py
	if ls notebooks/*.ipynb >/dev/null 2>&1; then $(NBVAL) notebooks/; fi
	$(MAKE) test-oldest-numpy

$(OLD_STAMP): pyproject.toml
	$(PYTHON) -m venv $(OLD_VENV)
	$(OLD_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(OLD_VENV)/bin/python -m pip install --quiet '$(OLDEST_NUMPY)' scipy threadpoolctl \
	    pytest pytest-timeout hypothesis
	$(OLD_VENV)/bin/python -m pip install --quiet --no-deps -e .
	touch $(OLD_STAMP)

# the core suite (no notebooks, plotting helpers, widgets or browser) on
# the oldest NumPy
test-oldest-numpy: $(OLD_STAMP)
	$(OLD_VENV)/bin/python -c 'import numpy; print("NumPy", numpy.__version__)'
	$(OLD_VENV)/bin/python -m pytest -q -p no:cacheprovider tests \
	    --ignore=tests/browser --ignore=tests/widgets --ignore=tests/book \
	    --ignore=tests/notebooks

# run every chapter in full mode and store its outputs (what students read);
# a chapter whose numbers leave the ranges its text states is not stored
notebooks: $(STAMP)
	$(BIN)/python -m tests.notebooks.regenerate

# pyflakes rules, syntax errors, import order and formatting
# (pyproject.toml [tool.ruff]); `make format` rewrites the files.
# compileall: this Python must accept every file (ruff parses the newest
# syntax, e.g. line breaks inside an f-string's braces)
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m compileall -q dlbook tests benchmarks examples >/dev/null

format: $(STAMP)
	$(BIN)/ruff check --select I --fix .
	$(BIN)/ruff format .

# a longer run of the file-reader fuzzing than the test suite's
fuzz: $(STAMP)
	DLBOOK_FUZZ_EXAMPLES=5000 $(BIN)/python -m pytest -q -p no:cacheprovider \
	    tests/misuse/test_files_fuzz.py

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) $(OLD_VENV) .pytest_cache
