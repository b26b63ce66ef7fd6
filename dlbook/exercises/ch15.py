"""Chapter 15 (MXNet's NumPy mode): np-mode losses, counting, masks, files.

Every checker runs the student's function in NumPy mode (``npx.set_np()``)
and restores the mode the notebook was in afterwards, so the exercises can
be checked wherever the notebook stands.
"""

import contextlib
import os
import tempfile

import numpy as np

from .. import nd
from .. import numpy as mxnp
from .._np_state import (
    is_np_array,
    is_np_shape,
    reset_np,
    set_np,
    set_np_shape,
)
from ..ndarray.ndarray import NDArray
from .compare import call, describe_inputs, expect_close, matches, rng
from .registry import exercise
from .result import Failure


@contextlib.contextmanager
def np_mode():
    """Run a block in NumPy mode, then restore both switches."""
    shape, array = is_np_shape(), is_np_array()
    set_np()
    try:
        yield
    finally:
        if not array:
            reset_np()
            if shape:
                set_np_shape(True)


def _np_array(value, what, shape=None):
    """The student's result as a NumPy array; it must be an np.ndarray."""
    if value is None:
        raise Failure(
            f'{what} is None.', hint='did you forget the `return` statement?'
        )
    if isinstance(value, NDArray) and not isinstance(value, mxnp.ndarray):
        raise Failure(
            f'{what} is a legacy NDArray; in np mode it should '
            f'be an np.ndarray.',
            hint='use np functions (np.log, np.exp, indexing), '
            'or convert with x.as_np_ndarray().',
        )
    if not isinstance(value, mxnp.ndarray):
        raise Failure(
            f'{what} is a {type(value).__name__}, expected an np.ndarray.'
        )
    got = value.asnumpy()
    if shape is not None and got.shape != shape:
        raise Failure(f'{what} has shape {got.shape}, expected {shape}.')
    return got


# -- cross-entropy (worked example) ------------------------------------------


@exercise(
    'ch15.cross_entropy',
    hint='-np.log(y_hat[range(len(y_hat)), y]): integer-array '
    'indexing picks y_hat[i, y[i]] for every row i.',
)
def _cross_entropy(student):
    """cross_entropy(y_hat, y): -log of each row's true-class probability."""
    r = rng(1500)
    cases = [(np.array([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]]), np.array([0, 2]))]
    for n, k in ((4, 5), (3, 10)):
        p = r.uniform(0.05, 1, (n, k))
        cases.append((p / p.sum(axis=1, keepdims=True), r.randint(0, k, n)))
    with np_mode():
        for probs, labels in cases:
            y_hat = mxnp.array(probs, dtype='float32')
            y = mxnp.array(labels, dtype='int32')
            inputs = {'y_hat': probs, 'y': labels}
            got = call(student, y_hat, y, inputs=inputs)
            value = _np_array(got, 'the result')
            expected = -np.log(probs[np.arange(len(labels)), labels])

            def diagnose(v, probs=probs, labels=labels):
                if matches(v, np.log(probs[np.arange(len(labels)), labels])):
                    return 'the sign: the loss is MINUS the log.'
                if v.shape == probs.shape:
                    return (
                        'that is one value per class; pick the true '
                        "class's probability of each row first."
                    )
                return None

            expect_close(
                value, expected, inputs, 'the loss', diagnose=diagnose
            )
    return (
        'correct: one loss per example, as an np.ndarray, for '
        f'{len(cases)} batches.'
    )


# -- counting correct predictions --------------------------------------------


@exercise(
    'ch15.accuracy',
    hint="y_hat.argmax(axis=1).astype(y.dtype) == y is a bool array; "
    "float(cmp.astype(y.dtype).sum()) counts its True values.",
)
def _accuracy(student):
    """accuracy(y_hat, y): the number of correct predictions, a float."""
    r = rng(1501)
    cases = [(np.array([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]]), np.array([0, 2]))]
    for n, k in ((8, 4), (10, 3)):
        cases.append((r.normal(size=(n, k)), r.randint(0, k, n)))
    with np_mode():
        for scores, labels in cases:
            inputs = {'y_hat': scores, 'y': labels}
            got = call(
                student,
                mxnp.array(scores, dtype='float32'),
                mxnp.array(labels, dtype='int32'),
                inputs=inputs,
            )
            expected = float((scores.argmax(axis=1) == labels).sum())
            if isinstance(got, mxnp.ndarray):
                raise Failure(
                    f'the result is an np.ndarray of shape '
                    f'{got.shape}; expected a Python float.',
                    hint='float(...) turns a 0-d array into a number.',
                )
            if isinstance(got, (bool, np.bool_)) or not isinstance(
                got, (int, float, np.integer, np.floating)
            ):
                raise Failure(
                    f'the result is {got!r:.60}, expected a '
                    f'number such as {expected}.'
                )
            if float(got) != expected:
                hint = None
                if abs(float(got) - expected / len(labels)) < 1e-6:
                    hint = (
                        'that is the fraction; return the number of '
                        'correct predictions (the sum, not the mean).'
                    )
                raise Failure(
                    f'for {describe_inputs(**inputs)} the count '
                    f'is {expected:g}, got {got!r}.',
                    hint,
                )
    return 'correct: the count of correct predictions, as a Python number.'


# -- a boolean mask ----------------------------------------------------------


@exercise(
    'ch15.masked_mean',
    hint='x[mask] keeps the elements where mask is True (a 1-d '
    'array); its .mean() is a 0-d array.',
)
def _masked_mean(student):
    """masked_mean(x, mask): the mean of x where mask is True, 0-d."""
    r = rng(1502)
    x1 = np.arange(6, dtype=np.float64).reshape(2, 3)
    cases = [(x1, x1 > 2)]
    x2 = r.normal(size=(3, 4))
    cases.append((x2, x2 > 0))
    x3 = r.normal(size=(5,))
    cases.append((x3, np.array([True, False, False, True, False])))
    with np_mode():
        for x, mask in cases:
            inputs = {'x': x, 'mask': mask}
            got = call(
                student,
                mxnp.array(x, dtype='float32'),
                mxnp.array(mask),
                inputs=inputs,
            )
            value = _np_array(got, 'the result')
            expected = x[mask].mean()

            def diagnose(v, x=x, mask=mask):
                if matches(v, (x * mask).mean()):
                    return (
                        'that is the mean over ALL elements, the '
                        'masked ones counted as 0; index with x[mask] '
                        'instead.'
                    )
                return None

            if value.shape != ():
                raise Failure(
                    f'the result has shape {value.shape}, '
                    f'expected a 0-d array, shape ().',
                    hint=diagnose(value)
                    or 'x[mask].mean() reduces to shape ().',
                )
            expect_close(
                value, expected, inputs, 'the mean', diagnose=diagnose
            )
    return 'correct: a 0-d mean over the selected elements.'


# -- reading a legacy file in np mode ----------------------------------------


@exercise(
    'ch15.load_legacy',
    hint='with mx.util.np_array(False): with mx.util.np_shape(False): '
    'loaded = nd.load(fname); then return {k: v.as_np_ndarray() '
    'for k, v in loaded.items()}.',
)
def _load_legacy(student):
    """load_legacy(fname): a legacy nd.save file as a dict of np.ndarray."""
    r = rng(1503)
    arrays = {
        'weight': r.normal(size=(3, 4)),
        'bias': r.normal(size=(4,)),
        'step': np.array([7.0]),
    }
    with tempfile.TemporaryDirectory() as folder:
        fname = os.path.join(folder, 'legacy.params')
        shape, array = is_np_shape(), is_np_array()
        reset_np()
        try:
            nd.save(fname, {k: nd.array(v) for k, v in arrays.items()})
        finally:
            if array:
                set_np()
            elif shape:
                set_np_shape(True)
        with np_mode():
            got = call(
                student, fname, inputs={'fname': 'a file saved by nd.save'}
            )
            if not isinstance(got, dict):
                raise Failure(
                    f'the result is a {type(got).__name__}, '
                    f'expected a dict (the file holds named '
                    f'arrays).'
                )
            if sorted(got) != sorted(arrays):
                raise Failure(
                    f'the keys are {sorted(got)}, expected {sorted(arrays)}.'
                )
            for name, expected in arrays.items():
                value = _np_array(
                    got[name], f'the array {name!r}', expected.shape
                )
                if not np.allclose(value, expected, rtol=1e-6, atol=1e-6):
                    raise Failure(
                        f'the values of {name!r} differ from the saved ones.'
                    )
            if not is_np_array() or not is_np_shape():
                raise Failure(
                    'np mode is off after your function: leave '
                    'the mode switched as it was (use the `with` '
                    'scopes, not reset_np()).'
                )
    return 'correct: every array, as an np.ndarray, with np mode intact.'
