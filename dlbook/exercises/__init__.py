"""Exercises with friendly automatic feedback.

Students::

    from dlbook.exercises import check
    check('ch04.softmax', softmax)      # prints ✓ or ✗ with a hint

``check`` calls the student's function on several inputs, compares with a
reference, and explains a difference: which input, expected and actual
shape, or the largest difference and where, plus a hint about the likely
mistake. An exception raised by the student's code is caught and
explained, never shown as a bare traceback.

Teachers::

    python -m dlbook.exercises grade alice.ipynb bob.ipynb
    python -m dlbook.exercises list

Exercises are registered with ``@exercise('chNN.name', hint=...)`` in the
module ``dlbook/exercises/chNN.py`` of their chapter, found on first use:
a new chapter needs only its module.
"""

from .checker import check, run_check
from .grading import GradeReport, grade_notebook
from .registry import exercise, list_exercises
from .result import CheckResult, Failure

__all__ = [
    'CheckResult',
    'Failure',
    'GradeReport',
    'check',
    'exercise',
    'grade_notebook',
    'list_exercises',
    'run_check',
]
