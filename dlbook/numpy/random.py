"""``mx.np.random``: NumPy's sampling signatures over dlbook's samplers.

``size=None`` gives one 0-d sample; ``dtype`` defaults to float32
(int64 for ``randint`` and ``multinomial``); ``ctx=`` picks the device.
The draws come from the same per-device generators as ``nd.random``,
reset by ``np.random.seed`` / ``mx.random.seed``.
"""

import numbers

from ..base import DLBookError, dtype_name
from ..ndarray.invoke import invoke
from ..ops import random as ops
from ._core import call, shaped, to_np

__all__ = [
    'seed',
    'uniform',
    'normal',
    'randn',
    'rand',
    'randint',
    'multinomial',
    'shuffle',
    'choice',
]


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
                f'them instead, e.g. loc + scale * np.random.normal(size=...)'
            )


def _sample(op_cls, size, dtype, ctx, **attrs):
    shape = _size(size)
    op = op_cls(
        shape=shape or (1,), dtype=dtype_name(dtype) or 'float32', **attrs
    )
    return shaped(to_np(invoke(op, [], ctx=ctx)), shape)


def _is_array(v):
    from ..ndarray.ndarray import NDArray

    return (
        isinstance(v, NDArray)
        or hasattr(v, '__array__')
        or isinstance(v, (list, tuple))
    )


def _shifted(standard, size, dtype, ctx, offset, scale):
    """``offset + scale * sample`` with array-valued parameters (one of
    them an array): the shape is ``size``, or the parameters' broadcast
    shape; gradients reach array parameters (reparameterization, as
    MXNet's ``_npi_normal``/``_npi_uniform``)."""
    from . import functions as F
    from .creation import as_array

    arrays = [as_array(v) for v in (offset, scale) if _is_array(v)]
    like = arrays[0]
    shape = (
        _size(size)
        if size is not None
        else tuple(
            __import__('numpy').broadcast_shapes(*[a.shape for a in arrays])
        )
    )
    base = standard(
        size=shape, dtype=dtype or like.dtype.name, ctx=ctx or like.context
    )
    return F.add(F.multiply(base, scale), offset)


def uniform(low=0.0, high=1.0, size=None, dtype=None, ctx=None, out=None):
    """Samples from U[low, high); ``low``/``high`` may be arrays
    (broadcast against each other and ``size``)."""
    if _is_array(low) or _is_array(high):
        from . import functions as F
        from .creation import as_array

        low_a = as_array(low) if _is_array(low) else low
        high_a = as_array(high) if _is_array(high) else high
        y = _shifted(
            lambda **kw: uniform(0.0, 1.0, **kw),
            size,
            dtype,
            ctx,
            low_a,
            F.subtract(high_a, low_a),
        )
        return _fill(y, out)
    _scalars(low=low, high=high)
    y = _sample(ops.RandomUniform, size, dtype, ctx, low=low, high=high)
    return _fill(y, out)


def normal(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, out=None):
    """Samples from N(loc, scale**2); ``loc``/``scale`` may be arrays
    (``np.random.normal(np.zeros((2, 3)), np.ones(3))`` has shape (2, 3))
    and then receive gradients."""
    if _is_array(loc) or _is_array(scale):
        from .creation import as_array

        loc = as_array(loc) if _is_array(loc) else loc
        scale = as_array(scale) if _is_array(scale) else scale
        y = _shifted(
            lambda **kw: normal(0.0, 1.0, **kw), size, dtype, ctx, loc, scale
        )
        return _fill(y, out)
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
    y = _sample(
        ops.RandomRandint, size, dtype or 'int64', ctx, low=low, high=high
    )
    return _fill(y, out)


def multinomial(n, pvals, size=None):
    """Counts per category of ``n`` draws with probabilities ``pvals``,
    shape ``size + (len(pvals),)``, int64 (NumPy's ``multinomial``)."""
    pvals = tuple(
        float(p)
        for p in (pvals.tolist() if hasattr(pvals, 'tolist') else pvals)
    )
    return call('_npi_multinomial', n=int(n), pvals=pvals, size=size)


def shuffle(x):
    """Shuffle ``x`` along its first axis, in place."""
    x[...] = call('_shuffle', x)


def choice(a, size=None, replace=True, p=None, ctx=None, out=None):
    """Random elements of ``np.arange(a)`` (an int ``a``) or of a 1-d
    array ``a``: uniformly or with probabilities ``p``, with or without
    replacement (int64 indices, as MXNet).  Draws come from the device's
    generator, so ``np.random.seed`` repeats them."""
    from ..context import current_context
    from ..numpy.creation import array
    from .creation import as_array

    ctx = ctx or (a.context if hasattr(a, 'context') else current_context())
    n = a if isinstance(a, numbers.Integral) else as_array(a).shape[0]
    shape = _size(size)
    count = 1
    for d in shape:
        count *= d
    if not replace and count > n:
        raise DLBookError(
            f'np.random.choice: cannot take a larger sample '
            f'({count}) than the population ({n}) when '
            f"'replace=False'"
        )
    if p is not None:
        p = (
            p.asnumpy()
            if hasattr(p, 'asnumpy')
            else __import__('numpy').asarray(p, dtype='float64')
        )
        if p.shape != (n,):
            raise DLBookError(
                f'np.random.choice: p must have shape ({n},), got {p.shape}'
            )
    rng = ctx.backend.rng(ctx.device_id)
    import numpy as host

    draw = host.random.default_rng(int(rng.randint(0, 2**31 - 1)))
    index = draw.choice(
        n,
        size=shape or None,
        replace=replace,
        p=None if p is None else p / p.sum(),
    )
    index = array(host.asarray(index, dtype='int64'), ctx=ctx)
    if isinstance(a, numbers.Integral):
        return _fill(index, out)
    from .functions import take

    return _fill(take(as_array(a), index), out)


def _fill(y, out):
    if out is None:
        return y
    out[...] = y
    return out
