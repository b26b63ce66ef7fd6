"""Random sampling operators.

They read ``self.rng``, the ``RandomState`` of the device (NumPy's or
CuPy's), which the front end sets and ``mx.random.seed`` resets.  Samples
have no gradient.
"""

from math import prod

from .op import Op, register

#: Samples drawn per call of the generator.  NumPy's generator returns
#: float64 (or int64); drawing a large array in pieces keeps that
#: temporary small.  A VGG-16 initialisation draws 138 million numbers:
#: in one piece, fresh pages for its 1 GB temporary cost more than the
#: drawing itself.  The numbers are the same either way (the generator
#: continues its stream from one call to the next).
CHUNK = 1 << 20


class _Sampler(Op):
    arguments = ()
    differentiable = False
    needs_rng = True

    def _shape(self):
        shape = self.attrs['shape']
        if shape is None or shape == ():
            return (1,)
        return (shape,) if isinstance(shape, int) else tuple(shape)

    def _draw(self, xp, sample):
        """``sample(size)`` over the output shape, cast to ``dtype``,
        in pieces of at most ``CHUNK`` numbers."""
        shape, dtype = self._shape(), self.attrs['dtype']
        size = prod(shape)
        if size <= CHUNK:
            return sample(shape).astype(dtype)
        out = xp.empty(size, dtype=dtype)
        for start in range(0, size, CHUNK):
            stop = min(start + CHUNK, size)
            out[start:stop] = sample(stop - start)
        return out.reshape(shape)


@register('_random_uniform', 'random_uniform', 'uniform')
class RandomUniform(_Sampler):
    """x ~ U[low, high)."""

    defaults = {'low': 0.0, 'high': 1.0, 'shape': (), 'dtype': 'float32'}

    def forward(self, xp):
        a = self.attrs
        return self._draw(
            xp, lambda size: self.rng.uniform(a['low'], a['high'], size)
        )


@register('_random_normal', 'random_normal', 'normal')
class RandomNormal(_Sampler):
    """x ~ N(loc, scale^2)."""

    defaults = {'loc': 0.0, 'scale': 1.0, 'shape': (), 'dtype': 'float32'}

    def forward(self, xp):
        a = self.attrs
        return self._draw(
            xp, lambda size: self.rng.normal(a['loc'], a['scale'], size)
        )


@register('_random_randint', 'random_randint')
class RandomRandint(_Sampler):
    """x ~ uniform integers in [low, high)."""

    defaults = {'low': 0, 'high': 1, 'shape': (), 'dtype': 'int32'}

    def forward(self, xp):
        a = self.attrs
        return self._draw(
            xp,
            lambda size: self.rng.randint(int(a['low']), int(a['high']), size),
        )


@register('_random_exponential', 'random_exponential')
class RandomExponential(_Sampler):
    """x ~ Exp(lam), density lam * exp(-lam * x)."""

    defaults = {'lam': 1.0, 'shape': (), 'dtype': 'float32'}

    def forward(self, xp):
        a = self.attrs
        return self._draw(
            xp, lambda size: self.rng.exponential(1.0 / a['lam'], size)
        )


@register('_random_poisson', 'random_poisson')
class RandomPoisson(_Sampler):
    """x ~ Poisson(lam)."""

    defaults = {'lam': 1.0, 'shape': (), 'dtype': 'float32'}

    def forward(self, xp):
        a = self.attrs
        return self._draw(xp, lambda size: self.rng.poisson(a['lam'], size))


@register('_random_gamma', 'random_gamma')
class RandomGamma(_Sampler):
    """x ~ Gamma(alpha, beta) with shape alpha and scale beta."""

    defaults = {'alpha': 1.0, 'beta': 1.0, 'shape': (), 'dtype': 'float32'}

    def forward(self, xp):
        a = self.attrs
        return self._draw(
            xp, lambda size: self.rng.gamma(a['alpha'], a['beta'], size)
        )


@register('_random_negative_binomial', 'random_negative_binomial')
class RandomNegativeBinomial(_Sampler):
    """x ~ NB(k, p): failures before the k-th success when each trial
    succeeds with probability p (mean k(1-p)/p).  Drawn as MXNet does, a
    Poisson whose rate is Gamma(k, (1-p)/p); float samples."""

    defaults = {'k': 1, 'p': 1.0, 'shape': (), 'dtype': 'float32'}

    def forward(self, xp):
        a = self.attrs
        k, p = float(a['k']), float(a['p'])
        if p >= 1.0:
            return self._draw(xp, lambda size: xp.zeros(size))
        return self._draw(
            xp,
            lambda size: self.rng.poisson(
                self.rng.gamma(k, (1.0 - p) / p, size)
            ),
        )


@register(
    '_random_generalized_negative_binomial',
    'random_generalized_negative_binomial',
)
class RandomGeneralizedNegativeBinomial(_Sampler):
    """x ~ GNB(mu, alpha): a Poisson whose rate is Gamma(1/alpha,
    mu*alpha), so mean mu and variance mu + alpha*mu^2 (alpha = 0 is
    Poisson(mu)); float samples."""

    defaults = {'mu': 1.0, 'alpha': 1.0, 'shape': (), 'dtype': 'float32'}

    def forward(self, xp):
        a = self.attrs
        mu, alpha = float(a['mu']), float(a['alpha'])
        if alpha == 0.0:
            return self._draw(xp, lambda size: self.rng.poisson(mu, size))
        return self._draw(
            xp,
            lambda size: self.rng.poisson(
                self.rng.gamma(1.0 / alpha, mu * alpha, size)
            ),
        )


@register('_sample_multinomial', 'sample_multinomial')
class SampleMultinomial(Op):
    """Draw category indices from the distributions in the last axis of
    ``data`` (each row sums to 1); ``shape`` draws per distribution.
    With ``get_prob=True`` also return log p of each draw."""

    arguments = ('data',)
    defaults = {'shape': (), 'get_prob': False, 'dtype': 'int32'}
    differentiable = False
    needs_rng = True

    def __init__(self, **attrs):
        super().__init__(**attrs)
        self.num_outputs = 2 if self.attrs['get_prob'] else 1

    def forward(self, xp, p):
        shape = self.attrs['shape']
        shape = (shape,) if isinstance(shape, int) else tuple(shape or ())
        n = prod(shape)
        rows = p.reshape(-1, p.shape[-1])
        cdf = xp.cumsum(rows, axis=1)
        cdf = cdf / cdf[:, -1:]
        u = self.rng.uniform(0.0, 1.0, (rows.shape[0], n))
        # index of the first cdf entry above u, for every draw at once
        idx = (u[:, :, None] > cdf[:, None, :]).sum(axis=2)
        idx = xp.minimum(idx, p.shape[-1] - 1)
        out_shape = p.shape[:-1] + shape
        if not out_shape:
            out_shape = (1,)
        samples = idx.reshape(out_shape).astype(self.attrs['dtype'])
        if not self.attrs['get_prob']:
            return samples
        picked = xp.take_along_axis(rows, idx, axis=1).reshape(out_shape)
        return samples, xp.log(picked)


@register('_shuffle', 'shuffle')
class Shuffle(Op):
    """A random permutation of ``data`` along its first axis."""

    differentiable = False
    needs_rng = True

    def forward(self, xp, x):
        return x[self.rng.permutation(x.shape[0])]
