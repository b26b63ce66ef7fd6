"""pytest plugin: while nbval runs the notebooks, check each training
cell's fresh numbers against its ranges (see ``expectations.py``).

nbval compares the other cells' outputs byte for byte; training cells are
tagged ``nbval-ignore-output`` because their digits depend on the BLAS
build.  This plugin makes sure such a cell still trains to a sensible
result in the mode the run uses (``DLBOOK_FAST=1`` in CI).

Load it with ``pytest -p tests.notebooks.nbval_bands --nbval ...``.
"""

import pytest

from .expectations import check_outputs, current_mode


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    result = yield
    cell = getattr(item, 'cell', None)
    outputs = getattr(item, 'test_outputs', None)
    if cell is not None and outputs is not None:
        problems = check_outputs(cell, outputs, current_mode())
        if problems:
            raise AssertionError(
                f'cell {item.cell_num}: ' + '; '.join(problems))
    return result
