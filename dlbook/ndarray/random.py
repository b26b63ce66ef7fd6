"""``nd.random``: sampling functions with MXNet's signatures.

Each runs a sampling operator (``dlbook.ops.random``) on the requested
device with that device's generator; ``mx.random.seed`` resets them.
"""

from ..base import dtype_name
from ..ops import random as ops
from .invoke import invoke

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
    if out is not None:
        shape, ctx = out.shape, out.context
        dtype = dtype or out.dtype
    op = op_cls(
        shape=shape if shape is not None else (),
        dtype=dtype_name(dtype) or op_cls.defaults['dtype'],
        **attrs,
    )
    return invoke(op, [], out=out, ctx=ctx)


def uniform(
    low=0, high=1, shape=None, dtype=None, ctx=None, out=None, **kwargs
):
    """Samples from U[low, high)."""
    return _sample(
        ops.RandomUniform, ctx, out, shape, dtype, low=low, high=high
    )


def normal(
    loc=0, scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs
):
    """Samples from a normal distribution N(loc, scale**2)."""
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
    """Samples from an exponential distribution with mean ``scale``."""
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
