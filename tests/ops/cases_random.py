"""Rows for the sampling operators: statistical checks, no reference."""

import math

import numpy as np

from tests.ops.cases import Case


def _stats(mean, std, shape, dtype='float32', tol=0.1):
    def check(outs, _):
        x = outs[0]
        assert x.shape == shape and x.dtype == np.dtype(dtype)
        assert abs(x.mean() - mean) < tol * max(1, abs(mean))
        assert abs(x.std() - std) < tol * max(1, std)

    return check


def _multinomial(outs, inputs):
    (p,) = inputs
    samples = outs[0]
    assert samples.shape == (2, 4000) and samples.dtype == np.int32
    for row, probs in zip(samples, p):
        freq = np.bincount(row, minlength=3) / row.size
        np.testing.assert_allclose(freq, probs, atol=0.04)


def _permutation(outs, inputs):
    np.testing.assert_array_equal(
        np.sort(outs[0], axis=0), np.sort(inputs[0], axis=0)
    )


CASES = {
    '_random_uniform': Case(
        [],
        attrs={'low': 2, 'high': 4, 'shape': (20000,)},
        check=_stats(3, 2 / 12**0.5, (20000,)),
    ),
    '_random_normal': Case(
        [],
        attrs={'loc': 1, 'scale': 2, 'shape': (100, 200)},
        check=_stats(1, 2, (100, 200)),
    ),
    '_random_randint': Case(
        [],
        attrs={'low': 0, 'high': 10, 'shape': (20000,)},
        check=_stats(4.5, (99 / 12) ** 0.5, (20000,), dtype='int32'),
    ),
    '_random_exponential': Case(
        [],
        attrs={'lam': 2, 'shape': (20000,)},
        check=_stats(0.5, 0.5, (20000,)),
    ),
    '_random_poisson': Case(
        [], attrs={'lam': 4, 'shape': (20000,)}, check=_stats(4, 2, (20000,))
    ),
    '_random_gamma': Case(
        [],
        attrs={'alpha': 4, 'beta': 0.5, 'shape': (20000,)},
        check=_stats(2, 1, (20000,)),
    ),
    # MXNet 1.9.1: negative_binomial(2, 0.2) over 1e5 draws has mean 7.97
    # and variance 39.5 (k(1-p)/p = 8, k(1-p)/p^2 = 40)
    '_random_negative_binomial': Case(
        [],
        attrs={'k': 2, 'p': 0.2, 'shape': (40000,)},
        check=_stats(8, 40**0.5, (40000,)),
    ),
    # MXNet 1.9.1: generalized_negative_binomial(3, 0.5) has mean 3.01 and
    # variance 7.60 (mu + alpha mu^2 = 7.5); alpha=0 is Poisson(3)
    '_random_generalized_negative_binomial': Case(
        [],
        attrs={'mu': 3, 'alpha': 0.5, 'shape': (40000,)},
        check=_stats(3, 7.5**0.5, (40000,)),
    ),
    '_sample_multinomial': Case(
        [],
        attrs={'shape': (4000,)},
        dtypes=('float32',),
        make_inputs=lambda rng, dtype: [
            np.array([[0.2, 0.5, 0.3], [0.7, 0.0, 0.3]], dtype)
        ],
        check=_multinomial,
    ),
    '_shuffle': Case([(50, 3)], check=_permutation),
}


# -- per-element samplers, *_like samplers, densities (ops/distributions.py)


def _param_stats(means, variances, draws, tol=0.06):
    """Output ``P + (draws,)`` of float32 whose sample mean and variance
    per parameter element match ``means``, ``variances`` (relative)."""

    def check(outs, _):
        x = outs[0]
        assert x.shape == np.shape(means) + (draws,)
        assert x.dtype == np.float32
        np.testing.assert_allclose(x.mean(-1), means, rtol=tol, atol=tol)
        np.testing.assert_allclose(x.var(-1), variances, rtol=3 * tol)

    return check


def _params(*values):
    return lambda rng, dtype: [np.array(v, dtype) for v in values]


def _sample_row(params, means, variances, draws=20000):
    return Case(
        [],
        attrs={'shape': (draws,)},
        dtypes=('float32',),  # float32 samples whatever the parameters
        make_inputs=_params(*params),
        check=_param_stats(means, variances, draws),
    )


def _like_stats(mean, var, tol=0.06):
    def check(outs, inputs):
        x = outs[0]
        assert x.shape == inputs[0].shape and x.dtype == inputs[0].dtype
        assert abs(x.mean() - mean) < tol * max(1, abs(mean))
        assert abs(x.var() - var) < 3 * tol * max(1, var)

    return check


def _like_row(attrs, mean, var):
    return Case([(100, 200)], attrs=attrs, check=_like_stats(mean, var))


def _lgamma(x):
    return np.vectorize(math.lgamma, otypes=[np.float64])(x)


def _f64(f):
    """A reference computed in float64 from float64 copies."""
    return lambda *xs: f(*(np.asarray(x, np.float64) for x in xs))


def _pdf_ref(log_density, event=0, is_log=False):
    """Reference density: the parameters broadcast over the samples'
    trailing axes (``event``: axes of one draw, Dirichlet's 1)."""

    def ref(x, *params):
        x = np.asarray(x, np.float64)
        lead = params[0].ndim - event
        middle = x.ndim - params[0].ndim
        ps = [
            np.asarray(p, np.float64).reshape(
                p.shape[:lead] + (1,) * middle + p.shape[lead:]
            )
            for p in params
        ]
        log_pdf = log_density(x, *ps)
        return log_pdf if is_log else np.exp(log_pdf)

    return ref


def _nb_log(x, k, p):
    return (
        _lgamma(x + k)
        - _lgamma(x + 1)
        - _lgamma(k)
        + k * np.log(p)
        + x * np.log1p(-p)
    )


_LOG_DENSITIES = {
    '_random_pdf_normal': lambda x, mu, s: (
        -0.5 * ((x - mu) / s) ** 2 - np.log(s) - 0.5 * math.log(2 * math.pi)
    ),
    '_random_pdf_uniform': lambda x, lo, hi: -np.log(hi - lo) + 0 * x,
    '_random_pdf_gamma': lambda x, a, b: (
        a * np.log(b) + (a - 1) * np.log(x) - b * x - _lgamma(a)
    ),
    '_random_pdf_exponential': lambda x, lam: np.log(lam) - lam * x,
    '_random_pdf_poisson': lambda x, lam: (
        x * np.log(lam) - lam - _lgamma(x + 1)
    ),
    '_random_pdf_negative_binomial': _nb_log,
    '_random_pdf_generalized_negative_binomial': lambda x, mu, alpha: _nb_log(
        x, 1 / alpha, 1 / (1 + mu * alpha)
    ),
    '_random_pdf_dirichlet': lambda x, a: (
        ((a - 1) * np.log(x)).sum(-1) + _lgamma(a.sum(-1)) - _lgamma(a).sum(-1)
    ),
}


def _counts(rng, shape):
    return rng.randint(0, 6, size=shape).astype(np.float64)


def _pdf_inputs(name):
    """Inputs inside each density's domain: parameters (2, 3), samples
    (2, 3, 4) (Dirichlet: alpha (2, 3), sample (2, 4, 3) on the
    simplex)."""

    def make(rng, dtype):
        P, X = (2, 3), (2, 3, 4)
        u = lambda lo, hi, shape=P: rng.uniform(lo, hi, size=shape)  # noqa: E731
        if name == '_random_pdf_normal':
            arrays = [u(-2, 2, X), u(-1, 1), u(0.5, 2)]
        elif name == '_random_pdf_uniform':
            arrays = [u(-1, 1, X), u(-2, -1), u(1, 3)]
        elif name == '_random_pdf_gamma':
            arrays = [u(0.2, 3, X), u(0.5, 3), u(0.5, 2)]
        elif name == '_random_pdf_exponential':
            arrays = [u(0, 3, X), u(0.5, 2)]
        elif name == '_random_pdf_poisson':
            arrays = [_counts(rng, X), u(0.5, 4)]
        elif name == '_random_pdf_negative_binomial':
            arrays = [_counts(rng, X), u(0.5, 4), u(0.2, 0.8)]
        elif name == '_random_pdf_generalized_negative_binomial':
            arrays = [_counts(rng, X), u(0.5, 4), u(0.2, 1.5)]
        else:  # Dirichlet
            x = rng.uniform(0.1, 1, size=(2, 4, 3))
            arrays = [x / x.sum(-1, keepdims=True), u(0.5, 3)]
        return [a.astype(dtype) for a in arrays]

    return make


#: densities whose sample gets no gradient in MXNet (discrete ones, and
#: the uniform density, constant in the sample)
_NO_SAMPLE_GRAD = {
    '_random_pdf_uniform',
    '_random_pdf_poisson',
    '_random_pdf_negative_binomial',
    '_random_pdf_generalized_negative_binomial',
}


def _pdf_rows(name):
    event = 1 if name == '_random_pdf_dirichlet' else 0
    n_params = 1 if name in _ONE_PARAM else 2
    grad = tuple(range(1, n_params + 1)) if name in _NO_SAMPLE_GRAD else None
    return [
        Case(
            [],
            attrs={'is_log': is_log},
            make_inputs=_pdf_inputs(name),
            ref=_f64(_pdf_ref(_LOG_DENSITIES[name], event, is_log)),
            grad=grad,
            rtol=1e-5,
            atol=1e-6,
        )
        for is_log in (False, True)
    ]


_ONE_PARAM = {
    '_random_pdf_exponential',
    '_random_pdf_poisson',
    '_random_pdf_dirichlet',
}

CASES.update(
    {
        # MXNet 1.9.1: sample_normal([0, 5], [1, 3], shape=(N,)) has
        # per-row means 0, 5 and variances 1, 9
        '_sample_normal': _sample_row(
            [[0.0, 5.0], [1.0, 3.0]], [0, 5], [1, 9]
        ),
        '_sample_uniform': _sample_row(
            [[0.0, -2.0], [1.0, 5.0]], [0.5, 1.5], [1 / 12, 49 / 12]
        ),
        # beta is the scale: mean alpha beta, variance alpha beta^2
        '_sample_gamma': _sample_row(
            [[4.0, 2.0], [0.5, 3.0]], [2, 6], [1, 18]
        ),
        # lam is the rate: mean 1/lam
        '_sample_exponential': _sample_row(
            [[4.0, 0.5]], [0.25, 2], [1 / 16, 4]
        ),
        '_sample_poisson': _sample_row([[0.5, 6.0]], [0.5, 6], [0.5, 6]),
        # mean k(1-p)/p, variance k(1-p)/p^2; p = 1 gives zeros
        '_sample_negative_binomial': _sample_row(
            [[2.0, 3.0], [0.2, 0.6]], [8, 2], [40, 10 / 3]
        ),
        # mean mu, variance mu + alpha mu^2; alpha = 0 is Poisson(mu)
        '_sample_generalized_negative_binomial': _sample_row(
            [[3.0, 2.0], [0.5, 0.0]], [3, 2], [7.5, 2]
        ),
        '_random_uniform_like': _like_row({'low': 2, 'high': 4}, 3, 1 / 3),
        '_random_normal_like': _like_row({'loc': 1, 'scale': 2}, 1, 4),
        '_random_gamma_like': _like_row({'alpha': 4, 'beta': 0.5}, 2, 1),
        '_random_exponential_like': _like_row({'lam': 4}, 0.25, 1 / 16),
        '_random_poisson_like': _like_row({'lam': 3}, 3, 3),
        '_random_negative_binomial_like': _like_row({'k': 2, 'p': 0.2}, 8, 40),
        '_random_generalized_negative_binomial_like': _like_row(
            {'mu': 3, 'alpha': 0.5}, 3, 7.5
        ),
        **{name: _pdf_rows(name) for name in _LOG_DENSITIES},
    }
)
