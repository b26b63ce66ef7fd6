"""Statistical checks of random generators (``mx.test_utils``).

``verify_generator`` repeats a chi-square goodness-of-fit test of
``generator(n)`` against bucket probabilities; ``gen_buckets_probs_with_ppf``
builds equal-probability buckets from a quantile function;
``mean_check``/``var_check`` are 3-sigma tests of the sample mean and
variance.  The chi-square p-value is computed here (the regularized upper
incomplete gamma function), so SciPy is not needed.
"""

import math

import numpy as np

__all__ = [
    'gen_buckets_probs_with_ppf',
    'chi_square_check',
    'verify_generator',
    'mean_check',
    'var_check',
    'chi2_sf',
]


def gen_buckets_probs_with_ppf(ppf, nbuckets):
    """``nbuckets`` buckets ``(ppf(i/n), ppf((i+1)/n))`` of probability
    ``1/n`` each, from a quantile function ``ppf``."""
    assert nbuckets > 0
    probs = [1.0 / nbuckets for _ in range(nbuckets)]
    buckets = [
        (ppf(i / float(nbuckets)), ppf((i + 1) / float(nbuckets)))
        for i in range(nbuckets)
    ]
    return buckets, probs


def _gamma_q(a, x):
    """Regularized upper incomplete gamma Q(a, x) (Numerical Recipes:
    series below a + 1, continued fraction above)."""
    if x <= 0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(10000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(log_front) * h


def chi2_sf(stat, dof):
    """P(X > stat) for X chi-square with ``dof`` degrees of freedom."""
    return _gamma_q(dof / 2.0, stat / 2.0)


def chi_square_check(generator, buckets, probs, nsamples=1000000):
    """Chi-square test of ``generator(nsamples)`` against ``probs``.

    ``buckets`` holds ``(low, high)`` ranges for a continuous generator or
    the possible values of a discrete one.  Returns ``(p, obs_freq,
    expected_freq)``; a large p means the samples fit.
    """
    assert isinstance(buckets, list)
    samples = np.asarray(generator(nsamples))
    assert len(probs) == len(buckets)
    continuous = isinstance(buckets[0], (list, tuple))
    expected = (nsamples * np.array(probs, dtype=np.float32)).astype(np.int32)
    if continuous:
        edges = np.zeros(len(buckets) * 2, dtype=np.float32)
        for i, (low, high) in enumerate(buckets):
            assert low <= high
            if i < len(buckets) - 1:
                assert high <= buckets[i + 1][0]
            edges[2 * i], edges[2 * i + 1] = low, high
        ids = np.searchsorted(edges, samples.ravel(), side='right') // 2
        observed = np.array([(ids == i).sum() for i in range(len(buckets))])
    else:
        observed = np.array([(samples == b).sum() for b in buckets])
    # scipy.stats.chisquare rescales f_exp to the observed total
    f_exp = expected * (observed.sum() / expected.sum())
    stat = float(((observed - f_exp) ** 2 / f_exp).sum())
    return chi2_sf(stat, len(buckets) - 1), observed, expected


def verify_generator(
    generator,
    buckets,
    probs,
    nsamples=1000000,
    nrepeat=5,
    success_rate=0.2,
    alpha=0.05,
):
    """Run :func:`chi_square_check` ``nrepeat`` times; raise
    AssertionError unless at least ``success_rate`` of the runs have
    p > ``alpha``.  Returns the p values."""
    ps, observed, expected = [], [], []
    for _ in range(nrepeat):
        p, obs, exp = chi_square_check(generator, buckets, probs, nsamples)
        ps.append(p)
        observed.append(obs)
        expected.append(exp)
    if (np.array(ps) > alpha).sum() < nrepeat * success_rate:
        raise AssertionError(
            f'Generator test fails, Chi-square p={ps}, obs_freq={observed}, '
            f'expected_freq={expected}.\nbuckets={buckets}, probs={probs}'
        )
    return ps


def mean_check(generator, mu, sigma, nsamples=1000000):
    """Whether the sample mean lies within 3 standard errors of ``mu``."""
    samples = np.array(generator(nsamples))
    mean = samples.mean()
    bound = 3 * sigma / np.sqrt(nsamples)
    return (mean > mu - bound) and (mean < mu + bound)


def var_check(generator, sigma, nsamples=1000000):
    """Whether the sample variance lies within 3 standard errors of
    ``sigma**2``."""
    samples = np.array(generator(nsamples))
    var = samples.var(ddof=1)
    bound = 3 * np.sqrt(2 * sigma**4 / (nsamples - 1))
    return (var > sigma**2 - bound) and (var < sigma**2 + bound)
