"""Rows for the sampling operators: statistical checks, no reference."""

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
