"""``check(exercise_id, answer)``: run an exercise's checker and explain.

The feedback is printed (a ✓ or ✗ line, then a hint for a failure) and a
``CheckResult`` is returned. When the environment variable
``DLBOOK_CHECK_LOG`` names a file, each result is also appended to it as
one JSON line: that is how ``grade_notebook`` collects the results of a
notebook it runs, without changing what the student sees.
"""

import json
import os

from . import registry
from .result import CheckResult, Failure

LOG_ENV = 'DLBOOK_CHECK_LOG'


def _unknown(exercise_id, close):
    message = f'there is no exercise called {exercise_id!r}.'
    hint = None
    if close:
        hint = 'did you mean ' + ' or '.join(repr(c) for c in close) + '?'
    else:
        hint = 'dlbook.exercises.list_exercises() lists the exercise ids.'
    return CheckResult(str(exercise_id), False, message, hint)


def run_check(exercise_id, student_obj, **kw):
    """Run a checker and return its ``CheckResult`` without printing."""
    try:
        ex = registry.get(exercise_id)
    except KeyError as err:
        return _unknown(exercise_id, err.args[1])
    try:
        note = ex.checker(student_obj, **kw)
    except Failure as failure:
        return CheckResult(
            ex.id, False, failure.message, failure.hint or ex.hint
        )
    except Exception as err:  # a checker could not judge the answer
        return CheckResult(
            ex.id,
            False,
            f'the answer could not be checked ({type(err).__name__}: {err}).',
            ex.hint,
        )
    return CheckResult(ex.id, True, note or 'correct.')


def _log(result):
    path = os.environ.get(LOG_ENV)
    if not path:
        return
    with open(path, 'a', encoding='utf-8') as f:
        f.write(json.dumps(result.as_dict()) + '\n')


def check(exercise_id, student_obj, **kw):
    """Check a student's answer to an exercise and print feedback.

    Parameters
    ----------
    exercise_id : str
        For example ``'ch04.softmax'``; ``list_exercises()`` lists them.
    student_obj : object
        Usually the student's function (not called: ``check(id, f)``).
    **kw
        Options of that exercise (e.g. ``stable=True`` for
        ``'ch04.softmax'`` also requires large inputs to work).

    Returns
    -------
    CheckResult
        True when the answer passed. The feedback has been printed.

    Examples
    --------
    >>> def softmax(X):
    ...     X_exp = X.exp()
    ...     return X_exp / X_exp.sum(axis=1, keepdims=True)
    >>> check('ch04.softmax', softmax)                  # doctest: +SKIP
    ✓ ch04.softmax: correct on inputs of shape (2, 5), (3, 3) and (1, 4).
    CheckResult('ch04.softmax', passed=True)
    """
    result = run_check(exercise_id, student_obj, **kw)
    print(result.report(), flush=True)
    _log(result)
    return result
