"""Per-element sampling, ``*_like`` sampling and densities (MXNet 1.9.1's
``sample_*``, ``random.*_like`` and ``random_pdf_*`` operators).

Samplers
    ``_sample_<dist>(*params, shape=S, dtype='float32')`` draws ``S``
    samples for every element of the parameter arrays (which share one
    shape ``P``): the output has shape ``P + S``.  They read ``self.rng``
    (the device's ``RandomState``, reset by ``mx.random.seed``) as the
    scalar samplers of :mod:`dlbook.ops.random` do, and have no gradient.
``_random_<dist>_like(data, <scalar params>)``
    The scalar samplers of :mod:`dlbook.ops.random`, drawn with ``data``'s
    shape and dtype.
Densities
    ``_random_pdf_<dist>(sample, *params, is_log=False)``: the parameters
    (shape ``P``) must be the leading sub-shape of ``sample`` (shape
    ``P + S``); the density at ``sample[i, ...]`` uses the parameters at
    ``i``.  The output has ``sample``'s shape (Dirichlet: without its last
    axis, the ``K`` categories, which ``alpha`` also has: ``P + (K,)``).
    ``is_log=True`` gives the log-density.  Computed in float64 from the
    log-density ``L``; the gradients are ``dy * dL/dv`` (log) or ``dy *
    pdf * dL/dv`` for every input ``v``, a parameter's summed over the
    samples that share it.  As in MXNet, the discrete distributions
    (Poisson, negative binomials) and the uniform one give the sample a
    zero gradient, and no density checks its support (``random_pdf_uniform``
    is ``1/(high-low)`` everywhere, ``random_pdf_exponential`` is
    ``lam exp(-lam x)`` for negative ``x`` too).
"""

import math
from math import prod

from ..base import DLBookError, dtype_name
from . import random as scalar
from .op import Op, register
from .special import _rounded, digamma, gammaln

__all__ = []

#: Samples drawn per call of the generator (see ``random.CHUNK``).
CHUNK = scalar.CHUNK
_FLOATS = ('float16', 'float32', 'float64')
_HALF_LOG_TWO_PI = 0.5 * math.log(2 * math.pi)


def _as_shape(shape):
    if shape is None:
        return ()
    return (int(shape),) if isinstance(shape, int) else tuple(shape)


def _float_dtype(name, dtype):
    dtype = dtype_name(dtype) or 'float32'
    if dtype not in _FLOATS:
        raise DLBookError(
            f'{name}: dtype must be one of {_FLOATS} (floating-point '
            f'samples, as in MXNet), got {dtype!r}'
        )
    return dtype


# -- samplers with per-element parameters ------------------------------------


class _ElementSampler(Op):
    """``shape`` draws for each element of the parameter arrays; the
    subclass's ``draw(xp, *params, size)`` gets the parameters as float64
    columns ``(m, 1)`` and draws ``size = (m, n)`` numbers."""

    defaults = {'shape': (), 'dtype': 'float32'}
    differentiable = False
    needs_rng = True
    same_dtype = True
    reads_train_mode = False

    def _check(self, shapes):
        known = [tuple(s) for s in shapes if s is not None]
        if any(s != known[0] for s in known):
            raise DLBookError(
                f'{self.name}: the parameters {self.arguments} must have '
                f'the same shape, got {", ".join(map(str, known))}'
            )
        return known[0] if known else None

    def infer_shape(self, *shapes):
        param = self._check(shapes)
        if param is None:
            return list(shapes), [None], []
        out = param + _as_shape(self.attrs['shape'])
        return [param] * len(shapes), [out], []

    def forward(self, xp, *params):
        param = self._check([p.shape for p in params])
        dtype = _float_dtype(self.name, self.attrs['dtype'])
        draws = _as_shape(self.attrs['shape'])
        n = prod(draws)
        m = prod(param)
        columns = [p.reshape(m, 1).astype('float64') for p in params]
        out = xp.empty((m, n), dtype=dtype)
        step = max(1, CHUNK // max(n, 1))
        for start in range(0, m, step):
            block = [c[start : start + step] for c in columns]
            size = (block[0].shape[0], n)
            out[start : start + step] = self.draw(xp, *block, size)
        return out.reshape(param + draws)


@register('_sample_uniform', 'sample_uniform')
class SampleUniform(_ElementSampler):
    """``x[i, ...] ~ U[low[i], high[i])``."""

    arguments = ('low', 'high')

    def draw(self, xp, low, high, size):
        return self.rng.uniform(low, high, size)


@register('_sample_normal', 'sample_normal')
class SampleNormal(_ElementSampler):
    """``x[i, ...] ~ N(mu[i], sigma[i]**2)``."""

    arguments = ('mu', 'sigma')

    def draw(self, xp, mu, sigma, size):
        return self.rng.normal(mu, sigma, size)


@register('_sample_gamma', 'sample_gamma')
class SampleGamma(_ElementSampler):
    """``x[i, ...] ~ Gamma(alpha[i], beta[i])``, shape ``alpha`` and
    *scale* ``beta`` (mean ``alpha * beta``)."""

    arguments = ('alpha', 'beta')

    def draw(self, xp, alpha, beta, size):
        return self.rng.gamma(alpha, 1.0, size) * beta


@register('_sample_exponential', 'sample_exponential')
class SampleExponential(_ElementSampler):
    """``x[i, ...] ~ Exp(lam[i])``, *rate* ``lam`` (mean ``1 / lam``)."""

    arguments = ('lam',)

    def draw(self, xp, lam, size):
        return self.rng.exponential(1.0, size) / lam


@register('_sample_poisson', 'sample_poisson')
class SamplePoisson(_ElementSampler):
    """``x[i, ...] ~ Poisson(lam[i])``; float samples."""

    arguments = ('lam',)

    def draw(self, xp, lam, size):
        return self.rng.poisson(lam, size)


@register('_sample_negative_binomial', 'sample_negative_binomial')
class SampleNegativeBinomial(_ElementSampler):
    """``x[i, ...] ~ NB(k[i], p[i])``: failures before the ``k``-th
    success (mean ``k (1-p) / p``), drawn as a Poisson whose rate is
    ``Gamma(k, (1-p)/p)``; float samples."""

    arguments = ('k', 'p')

    def draw(self, xp, k, p, size):
        rate = self.rng.gamma(k, 1.0, size) * ((1.0 - p) / p)
        return self.rng.poisson(rate)


@register(
    '_sample_generalized_negative_binomial',
    'sample_generalized_negative_binomial',
)
class SampleGeneralizedNegativeBinomial(_ElementSampler):
    """``x[i, ...] ~ GNB(mu[i], alpha[i])``: a Poisson whose rate is
    ``Gamma(1/alpha, mu*alpha)`` (mean ``mu``, variance ``mu + alpha
    mu**2``); ``alpha = 0`` is ``Poisson(mu)``.  Float samples."""

    arguments = ('mu', 'alpha')

    def draw(self, xp, mu, alpha, size):
        poisson = alpha == 0
        safe = xp.where(poisson, 1.0, alpha)
        rate = self.rng.gamma(1.0 / safe, 1.0, size) * (mu * safe)
        return self.rng.poisson(xp.where(poisson, mu, rate))


# -- samplers shaped like an array -------------------------------------------


class _LikeSampler(Op):
    """The scalar sampler ``sampler`` (:mod:`dlbook.ops.random`) drawn
    with ``data``'s shape and dtype; ``data``'s values are not read."""

    arguments = ('data',)
    differentiable = False
    needs_rng = True
    reads_train_mode = False
    sampler = None

    def infer_shape(self, data=None):
        return [data], [data], []

    def forward(self, xp, data):
        dtype = data.dtype.name
        if dtype not in _FLOATS:
            raise DLBookError(
                f'{self.name}: data must be floating-point (the samples '
                f'take its dtype), got {dtype}'
            )
        op = self.sampler(**self.attrs, shape=data.shape or (1,), dtype=dtype)
        op.rng = self.rng
        return op.forward(xp).reshape(data.shape)


def _like(sampler, *names):
    """Register ``_random_<dist>_like`` for the scalar ``sampler``."""

    def wrap(cls):
        cls.sampler = sampler
        cls.defaults = {
            k: v for k, v in sampler.defaults.items() if k in names
        }
        cls.attrs = cls.defaults
        return register(f'{sampler.name}_like')(cls)

    return wrap


@_like(scalar.RandomUniform, 'low', 'high')
class RandomUniformLike(_LikeSampler):
    """Samples of U[low, high) shaped like ``data``."""


@_like(scalar.RandomNormal, 'loc', 'scale')
class RandomNormalLike(_LikeSampler):
    """Samples of N(loc, scale**2) shaped like ``data``."""


@_like(scalar.RandomGamma, 'alpha', 'beta')
class RandomGammaLike(_LikeSampler):
    """Samples of Gamma(alpha, beta) (``beta`` the scale) shaped like
    ``data``."""


@_like(scalar.RandomExponential, 'lam')
class RandomExponentialLike(_LikeSampler):
    """Samples of Exp(lam) (``lam`` the rate) shaped like ``data``."""


@_like(scalar.RandomPoisson, 'lam')
class RandomPoissonLike(_LikeSampler):
    """Samples of Poisson(lam) shaped like ``data``."""


@_like(scalar.RandomNegativeBinomial, 'k', 'p')
class RandomNegativeBinomialLike(_LikeSampler):
    """Samples of NB(k, p) shaped like ``data``."""


@_like(scalar.RandomGeneralizedNegativeBinomial, 'mu', 'alpha')
class RandomGeneralizedNegativeBinomialLike(_LikeSampler):
    """Samples of GNB(mu, alpha) shaped like ``data``."""


# -- densities ---------------------------------------------------------------


class _Pdf(Op):
    """A density of ``sample`` under per-row parameters.

    The subclass's ``log_density(xp, x, *params)`` gets float64 arrays,
    the parameters reshaped to broadcast against ``x``, and returns the
    log-density ``L`` and ``dL/dv`` for the sample and each parameter
    (None for a zero gradient).
    """

    defaults = {'is_log': False}
    same_dtype = True
    reads_train_mode = False
    #: trailing axes of ``sample`` and of each parameter that belong to
    #: one draw (1 for Dirichlet's categories)
    event_dims = 0

    def _param_shape(self, sample, params):
        """The parameters' shape ``P``; checks that ``sample`` is ``P +
        S`` (Dirichlet: ``P + S + (K,)`` with ``alpha`` ``P + (K,)``)."""
        if any(p != params[0] for p in params):
            raise DLBookError(
                f'{self.name}: the parameters {self.arguments[1:]} must '
                f'have the same shape, got '
                f'{", ".join(map(str, params))}'
            )
        param = params[0]
        e = self.event_dims
        lead = param[: len(param) - e]
        if (
            len(param) < e
            or len(sample) < len(param)
            or sample[: len(lead)] != lead
            or sample[len(sample) - e :] != param[len(lead) :]
        ):
            layout = 'P + S + (K,) with alpha P + (K,)' if e else 'P + S'
            raise DLBookError(
                f'{self.name}: the parameters (shape {param}) must be the '
                f'leading sub-shape of sample (shape {sample}): {layout}'
            )
        return lead

    def infer_shape(self, sample=None, *params):
        if sample is None or any(p is None for p in params):
            out = None
            if sample is not None:
                out = tuple(sample[: len(sample) - self.event_dims])
            return [sample, *params], [out], []
        sample, params = tuple(sample), [tuple(p) for p in params]
        self._param_shape(sample, params)
        out = sample[: len(sample) - self.event_dims]
        return [sample, *params], [out], []

    def forward(self, xp, sample, *params):
        lead = self._param_shape(sample.shape, [p.shape for p in params])
        e = self.event_dims
        middle = sample.ndim - len(lead) - e  # the S axes
        x = sample.astype('float64')
        ps = [
            p.astype('float64').reshape(
                lead + (1,) * middle + p.shape[len(lead) :]
            )
            for p in params
        ]
        log_pdf, *partials = self.log_density(xp, x, *ps)
        value = log_pdf if self.attrs['is_log'] else xp.exp(log_pdf)
        shapes = [p.shape for p in ps]
        self.saved = (value, partials, middle, shapes, sample.shape)
        return _rounded(xp, value, sample.dtype)

    def backward(self, xp, dy):
        value, partials, middle, shapes, sample_shape = self.saved
        dtype = dy.dtype
        g = dy.astype('float64')
        if not self.attrs['is_log']:
            g = g * value
        if self.event_dims:
            g = g[..., None]
        grads = []
        for i, d in enumerate(partials):
            if d is None:  # only the sample's: discrete and uniform
                grads.append(xp.zeros(sample_shape, dtype=dtype))
                continue
            grad = g * d
            if i > 0:  # a parameter: sum over the samples it served
                start = len(shapes[i - 1]) - self.event_dims - middle
                axes = tuple(range(start, start + middle))
                if axes:
                    grad = grad.sum(axis=axes)
                if self.event_dims:
                    shape = shapes[i - 1]
                    grad = grad.reshape(
                        shape[:start] + shape[start + middle :]
                    )
                else:
                    grad = grad.reshape(shapes[i - 1][:start])
            grads.append(_rounded(xp, grad, dtype))
        return tuple(grads)


@register('_random_pdf_normal', 'random_pdf_normal')
class PdfNormal(_Pdf):
    """Normal density with mean ``mu`` and standard deviation ``sigma``.

    ``L = -(x-mu)^2 / (2 sigma^2) - log(sigma) - log(2 pi) / 2``;
    ``dL/dx = -(x-mu)/sigma^2``, ``dL/dmu = (x-mu)/sigma^2``,
    ``dL/dsigma = (x-mu)^2/sigma^3 - 1/sigma``.
    """

    arguments = ('sample', 'mu', 'sigma')

    def log_density(self, xp, x, mu, sigma):
        z = (x - mu) / sigma
        log_pdf = -0.5 * z * z - xp.log(sigma) - _HALF_LOG_TWO_PI
        dmu = z / sigma
        return log_pdf, -dmu, dmu, (z * z - 1) / sigma


@register('_random_pdf_uniform', 'random_pdf_uniform')
class PdfUniform(_Pdf):
    """Uniform density on ``[low, high)``: ``1 / (high - low)``, at every
    ``x`` (MXNet does not check the support).

    ``L = -log(high - low)``; ``dL/dx = 0``, ``dL/dlow = 1/(high-low)``,
    ``dL/dhigh = -1/(high-low)``.
    """

    arguments = ('sample', 'low', 'high')

    def log_density(self, xp, x, low, high):
        width = (high - low) + 0 * x
        return -xp.log(width), None, 1 / width, -1 / width


@register('_random_pdf_gamma', 'random_pdf_gamma')
class PdfGamma(_Pdf):
    """Gamma density with shape ``alpha`` and *rate* ``beta`` (the
    samplers' ``beta`` is a scale; MXNet's density takes the rate).

    ``L = alpha log(beta) + (alpha-1) log(x) - beta x - lgamma(alpha)``;
    ``dL/dx = (alpha-1)/x - beta``,
    ``dL/dalpha = log(beta) + log(x) - digamma(alpha)``,
    ``dL/dbeta = alpha/beta - x``.
    """

    arguments = ('sample', 'alpha', 'beta')

    def log_density(self, xp, x, alpha, beta):
        log_x, log_beta = xp.log(x), xp.log(beta)
        log_pdf = (
            alpha * log_beta + (alpha - 1) * log_x - beta * x
        ) - gammaln(xp, alpha)
        return (
            log_pdf,
            (alpha - 1) / x - beta,
            log_beta + log_x - digamma(xp, alpha),
            alpha / beta - x,
        )


@register('_random_pdf_exponential', 'random_pdf_exponential')
class PdfExponential(_Pdf):
    """Exponential density with rate ``lam``: ``lam exp(-lam x)`` (for
    every ``x``, as in MXNet).

    ``L = log(lam) - lam x``; ``dL/dx = -lam``, ``dL/dlam = 1/lam - x``.
    """

    arguments = ('sample', 'lam')

    def log_density(self, xp, x, lam):
        return xp.log(lam) - lam * x, -lam + 0 * x, 1 / lam - x


@register('_random_pdf_poisson', 'random_pdf_poisson')
class PdfPoisson(_Pdf):
    """Poisson probability ``lam^x exp(-lam) / x!`` (``x!`` as
    ``gamma(x+1)``, so non-integer ``x`` get a value too, as in MXNet).

    ``L = x log(lam) - lam - lgamma(x+1)``; ``dL/dx = 0`` (MXNet's
    choice), ``dL/dlam = x/lam - 1``.
    """

    arguments = ('sample', 'lam')

    def log_density(self, xp, x, lam):
        log_pdf = x * xp.log(lam) - lam - gammaln(xp, x + 1)
        return log_pdf, None, x / lam - 1


def _nb_log(xp, x, k, p):
    """Negative binomial ``L`` and ``dL/dk``, ``dL/dp``."""
    log_pdf = (
        gammaln(xp, x + k)
        - gammaln(xp, x + 1)
        - gammaln(xp, k)
        + k * xp.log(p)
        + x * xp.log1p(-p)
    )
    dk = digamma(xp, x + k) - digamma(xp, k) + xp.log(p)
    dp = k / p - x / (1 - p)
    return log_pdf, dk, dp


@register('_random_pdf_negative_binomial', 'random_pdf_negative_binomial')
class PdfNegativeBinomial(_Pdf):
    """Probability of ``x`` failures before the ``k``-th success, each
    trial succeeding with probability ``p`` (``k`` may be real):
    ``gamma(x+k) / (gamma(x+1) gamma(k)) p^k (1-p)^x``.

    ``L = lgamma(x+k) - lgamma(x+1) - lgamma(k) + k log(p) + x log(1-p)``;
    ``dL/dx = 0`` (MXNet's choice),
    ``dL/dk = digamma(x+k) - digamma(k) + log(p)``,
    ``dL/dp = k/p - x/(1-p)``.
    """

    arguments = ('sample', 'k', 'p')

    def log_density(self, xp, x, k, p):
        log_pdf, dk, dp = _nb_log(xp, x, k, p)
        return log_pdf, None, dk, dp


@register(
    '_random_pdf_generalized_negative_binomial',
    'random_pdf_generalized_negative_binomial',
)
class PdfGeneralizedNegativeBinomial(_Pdf):
    """The negative binomial with mean ``mu`` and dispersion ``alpha``:
    ``k = 1/alpha``, ``p = 1/(1 + mu alpha)``.

    ``L = NB(x; k, p)`` as in ``random_pdf_negative_binomial``;
    ``dL/dx = 0``, ``dL/dmu = (x - mu) / (mu (1 + mu alpha))``,
    ``dL/dalpha = -dL/dk / alpha^2 - mu p^2 dL/dp`` (chain rule through
    ``k`` and ``p``).
    """

    arguments = ('sample', 'mu', 'alpha')

    def log_density(self, xp, x, mu, alpha):
        k = 1 / alpha
        p = 1 / (1 + mu * alpha)
        log_pdf, dk, dp = _nb_log(xp, x, k, p)
        dmu = (x - mu) * p / mu
        dalpha = -dk * k * k - mu * p * p * dp
        return log_pdf, None, dmu, dalpha


@register('_random_pdf_dirichlet', 'random_pdf_dirichlet')
class PdfDirichlet(_Pdf):
    """Dirichlet density of the vectors in ``sample``'s last axis with
    concentrations ``alpha`` (shape ``P + (K,)``; ``sample`` ``P + S +
    (K,)``; output ``P + S``).  The sample is not checked to lie on the
    simplex (as in MXNet).

    ``L = sum_k (alpha_k - 1) log(x_k) + lgamma(sum_k alpha_k) -
    sum_k lgamma(alpha_k)``;
    ``dL/dx_k = (alpha_k - 1) / x_k``,
    ``dL/dalpha_k = log(x_k) + digamma(sum_j alpha_j) - digamma(alpha_k)``.
    """

    arguments = ('sample', 'alpha')
    event_dims = 1

    def log_density(self, xp, x, alpha):
        log_x = xp.log(x)
        total = alpha.sum(axis=-1, keepdims=True)
        log_pdf = ((alpha - 1) * log_x).sum(axis=-1) + (
            gammaln(xp, total) - gammaln(xp, alpha).sum(axis=-1, keepdims=True)
        )[..., 0]
        return (
            log_pdf,
            (alpha - 1) / x,
            log_x + digamma(xp, total) - digamma(xp, alpha),
        )
