"""``nd.random``: sampling functions with MXNet's signatures.

Each runs a sampling operator (``dlbook.ops.random``) on the requested
device with that device's generator; ``mx.random.seed`` resets them.
NDArray parameters draw per element (``dlbook.ops.distributions``).
The ``*_like`` samplers are here but not in ``__all__``, as in MXNet
1.9.1 (``mx.random.normal_like`` does not exist there).
"""

from ..base import DLBookError, dtype_name
from ..ops import distributions as dist
from ..ops import random as ops
from .invoke import invoke
from .ndarray import NDArray

__all__ = [
    'uniform',
    'normal',
    'randn',
    'randint',
    'exponential',
    'poisson',
    'gamma',
    'negative_binomial',
    'generalized_negative_binomial',
    'multinomial',
    'shuffle',
]


def _sample(op_cls, ctx, out, shape, dtype, **attrs):
    """Draw from the scalar sampler ``op_cls``; when the parameters are
    NDArrays, from its per-element counterpart (``sample_<dist>``), as
    MXNet's ``_random_helper`` does."""
    params = list(attrs.values())
    if isinstance(params[0], NDArray):
        return _sample_per_element(op_cls, params, out, shape, dtype)
    for p in params[1:]:
        if isinstance(p, NDArray):
            raise DLBookError(
                f'Distribution parameters must all have the same type, but '
                f'got both {type(params[0])} and {type(p)}.'
            )
    if out is not None:
        shape, ctx = out.shape, out.context
        dtype = dtype or out.dtype
    op = op_cls(
        shape=shape if shape is not None else (),
        dtype=dtype_name(dtype) or op_cls.defaults['dtype'],
        **attrs,
    )
    return invoke(op, [], out=out, ctx=ctx)


#: the per-element sampler for each scalar one
_PER_ELEMENT = {
    ops.RandomUniform: dist.SampleUniform,
    ops.RandomNormal: dist.SampleNormal,
    ops.RandomExponential: dist.SampleExponential,
    ops.RandomPoisson: dist.SamplePoisson,
    ops.RandomGamma: dist.SampleGamma,
    ops.RandomNegativeBinomial: dist.SampleNegativeBinomial,
    ops.RandomGeneralizedNegativeBinomial: (
        dist.SampleGeneralizedNegativeBinomial
    ),
}


def _sample_per_element(op_cls, params, out, shape, dtype):
    """``shape`` draws per element of the NDArray ``params`` (output
    ``params[0].shape + shape``, on their context; ``ctx`` is ignored, as
    in MXNet)."""
    for p in params[1:]:
        if not isinstance(p, NDArray):
            raise DLBookError(
                f'Distribution parameters must all have the same type, but '
                f'got both {type(params[0])} and {type(p)}.'
            )
    sampler = _PER_ELEMENT.get(op_cls)
    if sampler is None:
        raise DLBookError(
            f'{op_cls.name}: parameters must be numbers, not NDArrays'
        )
    if out is not None:
        dtype = dtype or out.dtype
        if shape is None:
            shape = out.shape[params[0].ndim :]
    op = sampler(
        shape=shape if shape is not None else (),
        dtype=dtype_name(dtype) or 'float32',
    )
    return invoke(op, params, out=out)


def uniform(
    low=0, high=1, shape=None, dtype=None, ctx=None, out=None, **kwargs
):
    """Samples from U[low, high); with NDArray ``low`` and ``high``,
    ``shape`` samples per pair (output ``low.shape + shape``)."""
    return _sample(
        ops.RandomUniform, ctx, out, shape, dtype, low=low, high=high
    )


def normal(
    loc=0, scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs
):
    """Samples from a normal distribution N(loc, scale**2); with NDArray
    ``loc`` and ``scale``, ``shape`` samples per pair (output
    ``loc.shape + shape``)."""
    return _sample(
        ops.RandomNormal, ctx, out, shape, dtype, loc=loc, scale=scale
    )


def randn(*shape, loc=0, scale=1, dtype=None, ctx=None, out=None, **kwargs):
    """Standard normal samples, shape given as positional arguments."""
    return normal(loc, scale, shape, dtype, ctx, out)


def randint(low, high, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Integers drawn uniformly from [low, high) (int32 by default)."""
    return _sample(
        ops.RandomRandint, ctx, out, shape, dtype, low=low, high=high
    )


def exponential(scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from an exponential distribution with mean ``scale`` (an
    NDArray ``scale``: ``shape`` samples per element)."""
    return _sample(
        ops.RandomExponential, ctx, out, shape, dtype, lam=1.0 / scale
    )


def poisson(lam=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from a Poisson distribution."""
    return _sample(ops.RandomPoisson, ctx, out, shape, dtype, lam=lam)


def gamma(
    alpha=1, beta=1, shape=None, dtype=None, ctx=None, out=None, **kwargs
):
    """Samples from a gamma distribution (shape alpha, scale beta)."""
    return _sample(
        ops.RandomGamma, ctx, out, shape, dtype, alpha=alpha, beta=beta
    )


def negative_binomial(
    k=1, p=1, shape=None, dtype=None, ctx=None, out=None, **kwargs
):
    """Failures before the ``k``-th success, each trial succeeding with
    probability ``p`` (mean ``k(1-p)/p``); float samples."""
    return _sample(
        ops.RandomNegativeBinomial, ctx, out, shape, dtype, k=k, p=p
    )


def generalized_negative_binomial(
    mu=1, alpha=1, shape=None, dtype=None, ctx=None, out=None, **kwargs
):
    """Samples with mean ``mu`` and variance ``mu + alpha * mu**2`` (a
    Gamma-Poisson mixture; ``alpha=0`` is Poisson(mu)); float samples."""
    return _sample(
        ops.RandomGeneralizedNegativeBinomial,
        ctx,
        out,
        shape,
        dtype,
        mu=mu,
        alpha=alpha,
    )


def multinomial(
    data, shape=None, get_prob=False, out=None, dtype='int32', **kwargs
):
    """Category indices drawn from the distributions in ``data``'s last
    axis; with ``get_prob=True`` also their log-probabilities."""
    op = ops.SampleMultinomial(
        shape=shape or (), get_prob=get_prob, dtype=dtype_name(dtype)
    )
    return invoke(op, [data], out=out)


def shuffle(data, out=None, **kwargs):
    """A copy of ``data`` randomly permuted along the first axis."""
    return invoke(ops.Shuffle(), [data], out=out)


def uniform_like(data=None, low=0.0, high=1.0, out=None, **kwargs):
    """Samples of U[low, high) with ``data``'s shape, dtype and context."""
    return invoke(dist.RandomUniformLike(low=low, high=high), [data], out=out)


def normal_like(data=None, loc=0.0, scale=1.0, out=None, **kwargs):
    """Samples of N(loc, scale**2) with ``data``'s shape, dtype and
    context."""
    return invoke(dist.RandomNormalLike(loc=loc, scale=scale), [data], out=out)


def gamma_like(data=None, alpha=1.0, beta=1.0, out=None, **kwargs):
    """Samples of Gamma(alpha, beta) (``beta`` the scale) with ``data``'s
    shape, dtype and context."""
    return invoke(
        dist.RandomGammaLike(alpha=alpha, beta=beta), [data], out=out
    )


def exponential_like(data=None, lam=1.0, out=None, **kwargs):
    """Samples of Exp(lam) (``lam`` the rate: mean ``1/lam``) with
    ``data``'s shape, dtype and context."""
    return invoke(dist.RandomExponentialLike(lam=lam), [data], out=out)


def poisson_like(data=None, lam=1.0, out=None, **kwargs):
    """Samples of Poisson(lam) with ``data``'s shape, dtype and context."""
    return invoke(dist.RandomPoissonLike(lam=lam), [data], out=out)


def negative_binomial_like(data=None, k=1, p=1.0, out=None, **kwargs):
    """Samples of NB(k, p) (failures before the ``k``-th success) with
    ``data``'s shape, dtype and context."""
    return invoke(dist.RandomNegativeBinomialLike(k=k, p=p), [data], out=out)


def generalized_negative_binomial_like(
    data=None, mu=1.0, alpha=1.0, out=None, **kwargs
):
    """Samples with mean ``mu`` and variance ``mu + alpha * mu**2`` with
    ``data``'s shape, dtype and context."""
    return invoke(
        dist.RandomGeneralizedNegativeBinomialLike(mu=mu, alpha=alpha),
        [data],
        out=out,
    )
