"""The numbers a chapter notebook promises, and how to check them.

Training results depend on the order of floating-point sums, which
changes with the NumPy release, the BLAS build and the number of cores.
So the notebooks are not checked number for number.  Instead each code
cell that trains something carries its expected ranges in its metadata::

    "metadata": {
      "tags": ["nbval-ignore-output"],
      "dlbook": {"expect": [
        {"label": "test accuracy", "pattern": "test_acc=([0-9.]+)",
         "full": [0.82, 0.86], "fast": [0.3, 0.8]}
      ]}
    }

``pattern`` is a regular expression with one group; the value checked is
its *last* match in the cell's text output (so a per-epoch print checks
the final epoch).  ``full`` is the range the chapter's text states for a
normal run (the stored outputs come from one), ``fast`` the range for the
short ``DLBOOK_FAST=1`` run that CI executes.  The tag keeps nbval from
comparing the cell's output byte for byte; every other cell still is.
"""

import math
import os
import re

FAST_ENV = 'DLBOOK_FAST'


def current_mode():
    """``'fast'`` under ``DLBOOK_FAST=1`` (as ``dlbook.book`` decides),
    else ``'full'``."""
    from dlbook.book.data import fast_mode
    return 'fast' if fast_mode() else 'full'


def cell_expectations(cell):
    """The list of expectation dicts of a notebook cell (maybe empty)."""
    return cell.get('metadata', {}).get('dlbook', {}).get('expect', [])


def output_text(outputs):
    """All text a cell printed or displayed (stdout, stderr, text/plain),
    joined in order."""
    parts = []
    for out in outputs:
        if out.get('output_type') == 'stream':
            text = out.get('text', '')
        else:
            text = out.get('data', {}).get('text/plain', '')
        parts.append(text if isinstance(text, str) else ''.join(text))
    return '\n'.join(parts)


def band_text(band):
    """How a range is written in the chapters' text: ``0.82–0.86``."""
    low, high = band
    return f'{low:g}–{high:g}'


def check_outputs(cell, outputs, mode):
    """Problems (strings) with a cell's ``outputs`` for ``mode``; empty
    when every expected number is found and inside its range."""
    text = output_text(outputs)
    problems = []
    for expect in cell_expectations(cell):
        low, high = expect[mode]
        found = re.findall(expect['pattern'], text)
        if not found:
            problems.append(f'{expect["label"]}: no output matches '
                            f'{expect["pattern"]!r}')
            continue
        value = float(found[-1])
        if not (math.isfinite(value) and low <= value <= high):
            problems.append(f'{expect["label"]} is {value:g}, outside the '
                            f'{mode}-mode range {band_text((low, high))}')
    return problems


def is_training_cell(cell):
    """True for a cell whose numbers are checked as ranges."""
    return bool(cell_expectations(cell))


def notebook_dir():
    return os.path.join(os.path.dirname(__file__), '..', '..', 'notebooks')
