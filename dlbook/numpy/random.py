"""``mx.np.random``: NumPy's sampling signatures over dlbook's samplers.

``size=None`` gives one 0-d sample; ``dtype`` defaults to float32
(int64 for ``randint`` and ``multinomial``); ``ctx=`` picks the device.
The draws come from the same per-device generators as ``nd.random``,
reset by ``np.random.seed`` / ``mx.random.seed``.
"""

import numbers

from ..base import DLBookError, dtype_name
from ..ops import random as ops
from ..ndarray.invoke import invoke
from ._core import call, shaped, to_np

__all__ = ['seed', 'uniform', 'normal', 'randn', 'rand', 'randint',
           'multinomial', 'shuffle', 'choice']


def seed(seed, ctx='all'):  # noqa: A002
    """Seed the generators (of every device by default)."""
    from .. import random
    random.seed(seed, ctx=ctx)


def _size(size):
    if size is None:
        return ()
    return (size,) if isinstance(size, int) else tuple(size)


def _scalars(**values):
    for name, v in values.items():
        if not isinstance(v, numbers.Number):
            raise DLBookError(
                f'np.random: {name} must be a number in dlbook (got '
                f'{type(v).__name__}); draw standard samples and scale '
                f'them instead, e.g. loc + scale * np.random.normal(size=...)')


def _sample(op_cls, size, dtype, ctx, **attrs):
    shape = _size(size)
    op = op_cls(shape=shape or (1,), dtype=dtype_name(dtype) or 'float32',
                **attrs)
    return shaped(to_np(invoke(op, [], ctx=ctx)), shape)


def uniform(low=0.0, high=1.0, size=None, dtype=None, ctx=None, out=None):
    """Samples from U[low, high)."""
    _scalars(low=low, high=high)
    y = _sample(ops.RandomUniform, size, dtype, ctx, low=low, high=high)
    return _fill(y, out)


def normal(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, out=None):
    """Samples from N(loc, scale**2)."""
    _scalars(loc=loc, scale=scale)
    y = _sample(ops.RandomNormal, size, dtype, ctx, loc=loc, scale=scale)
    return _fill(y, out)


def randn(*size, **kwargs):
    """Standard normal samples, the shape given as arguments."""
    return normal(0.0, 1.0, size or None, **kwargs)


def rand(*size, **kwargs):
    """Samples from U[0, 1), the shape given as arguments."""
    return uniform(0.0, 1.0, size or None, **kwargs)


def randint(low, high=None, size=None, dtype=None, ctx=None, out=None):
    """Integers from [low, high) (from [0, low) without ``high``), int64."""
    if high is None:
        low, high = 0, low
    y = _sample(ops.RandomRandint, size, dtype or 'int64', ctx, low=low,
                high=high)
    return _fill(y, out)


def multinomial(n, pvals, size=None):
    """Counts per category of ``n`` draws with probabilities ``pvals``,
    shape ``size + (len(pvals),)``, int64 (NumPy's ``multinomial``)."""
    pvals = tuple(float(p) for p in (
        pvals.tolist() if hasattr(pvals, 'tolist') else pvals))
    return call('_npi_multinomial', n=int(n), pvals=pvals, size=size)


def shuffle(x):
    """Shuffle ``x`` along its first axis, in place."""
    x[...] = call('_shuffle', x)


def choice(a, size=None, replace=True, p=None, ctx=None):
    """Random elements of ``np.arange(a)`` (an int ``a``), uniformly
    (``p=None``, with replacement)."""
    if not isinstance(a, int) or not replace or p is not None:
        raise DLBookError('np.random.choice: only an int a, replace=True '
                          'and p=None are supported')
    return randint(0, a, size=size, ctx=ctx)


def _fill(y, out):
    if out is None:
        return y
    out[...] = y
    return out
