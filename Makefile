# Two entry points (see README):
#   make lab    set up a virtual environment and open the course in JupyterLab
#   make test   set up the same environment and run the whole test suite
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.dlbook-installed

.PHONY: lab test notebooks bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[notebooks,dev]'
	touch $(STAMP)

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/

# One BLAS thread: floating-point sums then do not depend on the number of
# cores, so stored training outputs compare equal on every machine.
NBVAL = DLBOOK_FAST=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
	$(BIN)/python -m pytest -q -p no:cacheprovider \
	--nbval --nbval-current-env --nbval-cell-timeout=600 \
	--nbval-sanitize-with notebooks/nbval_sanitize.cfg

test: $(STAMP)
	$(BIN)/python -m pytest -q tests
	DLBOOK_FAKE_GPUS=2 $(BIN)/python -m pytest -q tests/test_context.py tests/test_ndarray.py tests/test_autograd.py
	if ls notebooks/*.ipynb >/dev/null 2>&1; then $(NBVAL) notebooks/; fi

# re-run the notebooks in fast mode and store their outputs (what CI compares)
notebooks: $(STAMP)
	for nb in notebooks/ch*.ipynb; do \
	  DLBOOK_FAST=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
	  $(BIN)/jupyter nbconvert --to notebook --execute \
	    --inplace --ExecutePreprocessor.timeout=600 "$$nb" || exit 1; \
	done

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache
