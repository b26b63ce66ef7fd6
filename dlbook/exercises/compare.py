"""Tools for writing checkers: call the student's code safely, make test
inputs, and compare answers with messages a student can act on.

Everything here raises ``Failure`` with a specific message; nothing lets
an exception from the student's code escape as a bare traceback.
"""

import linecache
import os
import traceback
import warnings

import numpy as np

from .. import nd
from ..ndarray.ndarray import NDArray
from .result import Failure

_LIBRARY_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rng(seed):
    """A private NumPy generator: test inputs never touch ``mx.random``."""
    return np.random.RandomState(seed)


def as_nd(array, dtype='float32'):
    """A fresh NDArray (a copy: the student may change it in place)."""
    return nd.array(np.array(array), dtype=dtype)


def describe(name, value):
    """``'X of shape (2, 5)'``, with the values when there are few."""
    if isinstance(value, NDArray):
        value = value.asnumpy()
    if isinstance(value, np.ndarray):
        text = f'{name} of shape {value.shape}'
        if value.size <= 6:
            shown = np.round(value.astype(np.float64), 3).tolist()
            if value.dtype.kind in 'iub':
                shown = value.tolist()
            text += f' = {shown}'
        return text
    return f'{name} = {value!r}'


def describe_inputs(**inputs):
    """``'X of shape (2, 5) and y = ...'`` for a message."""
    parts = [describe(name, value) for name, value in inputs.items()]
    if len(parts) <= 1:
        return ''.join(parts)
    return ', '.join(parts[:-1]) + ' and ' + parts[-1]


def _student_line(tb):
    """The last line of the traceback that is not dlbook's own code."""
    for frame in reversed(traceback.extract_tb(tb)):
        filename = os.path.abspath(frame.filename)
        if not filename.startswith(_LIBRARY_DIR):
            line = frame.line or linecache.getline(
                frame.filename, frame.lineno
            )
            return (line or '').strip()
    return ''


def call(student, *args, inputs=None, hint=None):
    """Call ``student(*args)``; turn any exception into a ``Failure``.

    Parameters
    ----------
    student : callable
    *args
        Passed to the student's function.
    inputs : dict, optional
        Names for the arguments, used in the message
        (``{'X': X}`` gives "when called with X of shape (2, 5)").
    hint : str or callable, optional
        Hint for a failure; a callable receives the exception.
    """
    if not callable(student):
        kind = type(student).__name__
        if isinstance(student, NDArray):
            kind += f' of shape {student.shape}'
        raise Failure(
            f'expected a function, got {kind}.',
            hint='pass the function itself, without calling it: '
            'check(id, my_function), not my_function()',
        )
    try:
        # Overflow in a student's exp() is reported by the comparison
        # (inf, nan), not as NumPy warnings.
        with warnings.catch_warnings(), np.errstate(all='ignore'):
            warnings.simplefilter('ignore', RuntimeWarning)
            return student(*args)
    except Exception as err:  # the student's mistake, explained
        where = describe_inputs(**inputs) if inputs else 'the test inputs'
        message = (
            f'your function raised {type(err).__name__} when called '
            f'with {where}:\n    {err}'
        )
        line = _student_line(err.__traceback__)
        if line:
            message += f'\n    (in your line: {line})'
        if callable(hint):
            hint = hint(err)
        raise Failure(message, hint) from None


def to_numpy(got, what='your function', scalar=False):
    """The student's result as NumPy data, or a ``Failure`` saying why not.

    Accepts NDArrays, NumPy arrays and Python numbers; a ``scalar``
    answer may also be a one-element array.
    """
    if got is None:
        raise Failure(
            f'{what} returned None.',
            hint='did you forget the `return` statement?',
        )
    if isinstance(got, NDArray):
        value = got.asnumpy()
    elif isinstance(got, (np.ndarray, np.generic, int, float)):
        value = np.asarray(got)
    else:
        raise Failure(
            f'{what} returned a {type(got).__name__}, expected '
            f'an NDArray' + (' or a number' if scalar else '') + '.'
        )
    if scalar:
        if value.size != 1:
            raise Failure(
                f'{what} returned an array of shape '
                f'{value.shape}, expected one number.'
            )
        return float(value.reshape(()))
    return value


def expect_close(
    got,
    expected,
    inputs,
    what='the result',
    rtol=1e-4,
    atol=1e-5,
    diagnose=None,
):
    """Compare an answer with the reference; ``Failure`` on a mismatch.

    Parameters
    ----------
    got : NDArray, NumPy array or number
        The student's answer.
    expected : numpy.ndarray
        The reference answer.
    inputs : dict
        The inputs, for the message (``{'X': X}``).
    what : str
        How to call the answer in the message.
    rtol, atol : float
        Tolerances, as in ``numpy.isclose``.
    diagnose : callable, optional
        ``diagnose(got_numpy) -> hint or None``: recognises typical
        mistakes from the wrong answer.
    """
    expected = np.asarray(expected, dtype=np.float64)
    value = to_numpy(
        got, scalar=expected.ndim == 0 and not isinstance(got, NDArray)
    )
    value = np.asarray(value, dtype=np.float64)
    where = describe_inputs(**inputs)

    def hint():
        return diagnose(value) if diagnose is not None else None

    if value.shape != expected.shape:
        raise Failure(
            f'{what} has shape {value.shape}, expected '
            f'{expected.shape} (for {where}).',
            hint(),
        )
    finite = np.isfinite(expected)
    broken = finite & ~np.isfinite(value)
    if broken.any():
        index = tuple(int(i) for i in np.argwhere(broken)[0])
        raise Failure(
            f'{what} contains {value[index]} at {list(index)} '
            f'where {expected[index]:.4g} was expected (for '
            f'{where}).',
            hint(),
        )
    close = np.isclose(value, expected, rtol=rtol, atol=atol)
    if not close.all():
        diff = np.where(finite, np.abs(value - expected), 0)
        index = np.unravel_index(int(np.argmax(diff)), diff.shape)
        at = f' at {[int(i) for i in index]}' if value.ndim else ''
        raise Failure(
            f'wrong values for {where}: largest difference '
            f'{diff[index]:.3g}{at} (expected {expected[index]:.4g}, got '
            f'{value[index]:.4g}); {int((~close).sum())} of {close.size} '
            f'values differ.',
            hint(),
        )
    return value


def matches(value, candidate, rtol=1e-4, atol=1e-5):
    """True if ``value`` equals ``candidate`` (same shape, close values).

    For diagnosis: compare a wrong answer with what a typical mistake
    would give.
    """
    candidate = np.asarray(candidate, dtype=np.float64)
    return np.shape(value) == candidate.shape and bool(
        np.allclose(value, candidate, rtol=rtol, atol=atol, equal_nan=True)
    )


def shapes(cases):
    """``'(2, 5), (3, 3) and (1, 4)'`` for a pass note."""
    names = [str(tuple(shape)) for shape in cases]
    if len(names) <= 1:
        return ''.join(names)
    return ', '.join(names[:-1]) + ' and ' + names[-1]
