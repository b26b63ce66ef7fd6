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


# -- more of NumPy's distributions ---------------------------------------------------
#
# Each draws standard samples with the device's generator (uniform,
# normal, exponential or gamma) and transforms them with recorded
# ``mx.np`` arithmetic, so array parameters receive the
# reparameterization gradient where MXNet 1.9.1 gives one (exponential,
# gumbel, logistic, lognormal, pareto, rayleigh, weibull) and none where
# it gives none (gamma, beta, chisquare, power, multivariate_normal).

__all__ += [
    'exponential',
    'gamma',
    'beta',
    'chisquare',
    'gumbel',
    'logistic',
    'lognormal',
    'pareto',
    'power',
    'rayleigh',
    'weibull',
    'multivariate_normal',
]


def _shape_of(size, *params):
    """``size``, or the broadcast shape of the array parameters."""
    if size is not None:
        return _size(size)
    import numpy as host

    return tuple(
        host.broadcast_shapes(
            *[
                host.shape(p) if not hasattr(p, 'shape') else p.shape
                for p in params
            ]
        )
    )


def _arrays_of(*params):
    from .creation import as_array

    return [as_array(p) if _is_array(p) else p for p in params]


def _standard_exponential(shape, dtype, ctx):
    return _sample(ops.RandomExponential, shape, dtype, ctx, lam=1.0)


def _context_of(ctx, params):
    if ctx is not None:
        return ctx
    for p in params:
        if hasattr(p, 'context'):
            return p.context
    return None


def exponential(scale=1.0, size=None, ctx=None, out=None):
    """Samples of the exponential distribution with mean ``scale``
    (density ``exp(-x / scale) / scale``), float32.  An array ``scale``
    receives a gradient (``scale * E`` with ``E`` a standard sample).

    >>> np.random.exponential(2., size=(2, 3)).shape
    (2, 3)
    """
    from . import functions as F

    if not _is_array(scale):
        _scalars(scale=scale)
        if scale < 0:
            raise DLBookError(
                f'np.random.exponential: scale must be >= 0, got {scale}'
            )
        return _fill(
            _standard_exponential(_size(size), None, ctx) * scale, out
        )
    (scale,) = _arrays_of(scale)
    base = _standard_exponential(
        _shape_of(size, scale), scale.dtype.name, _context_of(ctx, [scale])
    )
    return _fill(F.multiply(base, scale), out)


def gamma(shape=1.0, scale=1.0, size=None, dtype=None, ctx=None, out=None):
    """Samples of Gamma(``shape``, ``scale``): mean ``shape * scale``.
    Array parameters broadcast; no gradient (as MXNet 1.9.1)."""
    if not (_is_array(shape) or _is_array(scale)):
        _scalars(shape=shape, scale=scale)
        y = _sample(ops.RandomGamma, size, dtype, ctx, alpha=shape, beta=scale)
        return _fill(y, out)
    from . import functions as F

    alpha, beta_ = _arrays_of(shape, scale)
    ctx = _context_of(ctx, [alpha, beta_])
    out_shape = _shape_of(size, alpha, beta_)
    like = alpha if hasattr(alpha, 'shape') else beta_
    flat = []
    for p in (alpha, beta_):
        p = p.detach() if hasattr(p, 'detach') else p
        if not hasattr(p, 'shape'):
            from .creation import full_like

            p = full_like(like, p)
        flat.append(F.reshape(F.broadcast_to(p, out_shape), (-1,)))
    y = call('_sample_gamma', *flat, dtype=dtype_name(dtype) or 'float32')
    return _fill(F.reshape(y, out_shape), out)


def beta(a, b, size=None, dtype=None, ctx=None):
    """Samples of Beta(``a``, ``b``) on [0, 1], as ``X / (X + Y)`` with
    ``X ~ Gamma(a)``, ``Y ~ Gamma(b)``; mean ``a / (a + b)``.  No
    gradient."""
    x = gamma(a, 1.0, size=size, dtype=dtype, ctx=ctx)
    y = gamma(b, 1.0, size=size, dtype=dtype, ctx=ctx)
    return x / (x + y)


def chisquare(df, size=None, dtype=None, ctx=None):
    """Samples of the chi-square distribution with ``df`` degrees of
    freedom (``2 * Gamma(df / 2)``, mean ``df``).  No gradient."""
    from . import functions as F

    half = df / 2 if not _is_array(df) else F.true_divide(_arrays_of(df)[0], 2)
    return gamma(half, 2.0, size=size, dtype=dtype, ctx=ctx)


def _uniform_open(shape, dtype, ctx):
    """Uniform samples in the open interval (0, 1), so logs stay finite."""
    from . import functions as F

    return F.clip(
        uniform(0.0, 1.0, size=shape, dtype=dtype, ctx=ctx), 1e-7, 1 - 1e-7
    )


def _location_scale(standard, loc, scale, size, ctx, out):
    """``loc + scale * standard(shape)``, gradients to array ``loc`` and
    ``scale``."""
    from . import functions as F

    loc, scale = _arrays_of(loc, scale)
    arrays = [p for p in (loc, scale) if hasattr(p, 'shape')]
    if not arrays:
        _scalars(loc=loc, scale=scale)
    shape = _shape_of(size, *arrays) if arrays else _size(size)
    dtype = arrays[0].dtype.name if arrays else None
    base = standard(shape, dtype, _context_of(ctx, arrays))
    return _fill(F.add(F.multiply(base, scale), loc), out)


def gumbel(loc=0.0, scale=1.0, size=None, ctx=None, out=None):
    """Samples of the Gumbel (extreme value) distribution,
    ``loc - scale * log(-log(U))``; mean ``loc + 0.5772 * scale``.
    Array ``loc`` and ``scale`` receive gradients."""
    from . import functions as F

    def standard(shape, dtype, ctx):
        u = _uniform_open(shape, dtype, ctx)
        return F.negative(F.log(F.negative(F.log(u))))

    return _location_scale(standard, loc, scale, size, ctx, out)


def logistic(loc=0.0, scale=1.0, size=None, ctx=None, out=None):
    """Samples of the logistic distribution, ``loc + scale * log(U / (1 -
    U))``; mean ``loc``.  Array ``loc`` and ``scale`` receive gradients."""
    from . import functions as F

    def standard(shape, dtype, ctx):
        u = _uniform_open(shape, dtype, ctx)
        return F.log(F.true_divide(u, F.subtract(1.0, u)))

    return _location_scale(standard, loc, scale, size, ctx, out)


def lognormal(mean=0.0, sigma=1.0, size=None, dtype=None, ctx=None, out=None):
    """Samples of ``exp(N(mean, sigma**2))`` (``mean`` and ``sigma`` are
    those of the underlying normal).  Array parameters receive
    gradients."""
    from . import functions as F

    return _fill(
        F.exp(normal(mean, sigma, size=size, dtype=dtype, ctx=ctx)), out
    )


def _shape_param(a, size, ctx, name):
    """The standard exponential samples and the (array) parameter ``a``."""
    (a,) = _arrays_of(a)
    if not hasattr(a, 'shape'):
        _scalars(**{name: a})
        return _standard_exponential(_size(size), None, ctx), a
    e = _standard_exponential(
        _shape_of(size, a), a.dtype.name, _context_of(ctx, [a])
    )
    return e, a


def pareto(a, size=None, ctx=None, out=None):
    """Samples of the Pareto II (Lomax) distribution with shape ``a``, as
    NumPy: ``exp(E / a) - 1`` (``E`` standard exponential).  An array
    ``a`` receives a gradient."""
    from . import functions as F

    e, a = _shape_param(a, size, ctx, 'a')
    return _fill(F.expm1(F.true_divide(e, a)), out)


def power(a, size=None, ctx=None, out=None):
    """Samples on [0, 1] with density ``a * x**(a - 1)``, as NumPy:
    ``(1 - exp(-E))**(1 / a)``.  No gradient (as MXNet 1.9.1)."""
    from . import functions as F

    e, a = _shape_param(a, size, ctx, 'a')
    a = a.detach() if hasattr(a, 'detach') else a
    u = F.negative(F.expm1(F.negative(e)))
    return _fill(F.power(u, F.true_divide(1.0, a)), out)


def rayleigh(scale=1.0, size=None, ctx=None, out=None):
    """Samples of the Rayleigh distribution, ``scale * sqrt(2 E)``; mean
    ``scale * sqrt(pi / 2)``.  An array ``scale`` receives a gradient."""
    from . import functions as F

    e, scale = _shape_param(scale, size, ctx, 'scale')
    return _fill(F.multiply(F.sqrt(F.multiply(e, 2.0)), scale), out)


def weibull(a, size=None, ctx=None, out=None):
    """Samples of the Weibull distribution with shape ``a`` (scale 1), as
    NumPy: ``E**(1 / a)``.  An array ``a`` receives a gradient."""
    from . import functions as F

    e, a = _shape_param(a, size, ctx, 'a')
    return _fill(F.power(e, F.true_divide(1.0, a)), out)


def multivariate_normal(mean, cov, size=None, check_valid=None, tol=None):
    """Samples of the multivariate normal N(``mean``, ``cov``), shape
    ``size + (len(mean),)``: ``mean + z @ A.T`` with standard normal
    ``z`` and ``A @ A.T == cov`` (``A`` from the SVD of ``cov``, so a
    singular ``cov`` is fine).  No gradient (MXNet 1.9.1 falls back to
    NumPy for it)."""
    import numpy as host

    from . import functions as F
    from .creation import array, as_array

    mean = as_array(mean).detach()
    c = cov.asnumpy() if hasattr(cov, 'asnumpy') else host.asarray(cov)
    k = mean.shape[-1]
    if mean.ndim != 1 or c.shape != (k, k):
        raise DLBookError(
            f'np.random.multivariate_normal: mean must be 1-d and cov '
            f'({k}, {k}), got shapes {mean.shape} and {c.shape}'
        )
    u, s, _ = host.linalg.svd(c.astype('float64'))
    factor = array(u * host.sqrt(s), dtype=mean.dtype, ctx=mean.context)
    z = normal(
        size=_size(size) + (k,), dtype=mean.dtype.name, ctx=mean.context
    )
    return F.add(F.matmul(z, F.transpose(factor)), mean)
