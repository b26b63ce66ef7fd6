"""``sym.random``: random sampling as graph nodes (MXNet's
``mx.sym.random``).

With numbers for the parameters a node draws ``shape`` samples from one
distribution (``sym.random.normal(0, 1, shape=(2, 3))``, the
``_random_normal`` operator); with Symbols it draws ``shape`` samples per
element of the parameter arrays (``sym.random.normal(mu, sigma,
shape=(2,))``, ``_sample_normal``), as ``nd.random`` does.  Each forward
of the bound graph draws anew from the device's generator.
"""

from ..base import DLBookError
from ..ops import REGISTRY
from .register import make_function
from .symbol import Symbol

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
    'uniform_like',
    'normal_like',
    'gamma_like',
    'exponential_like',
    'poisson_like',
    'negative_binomial_like',
    'generalized_negative_binomial_like',
]


def _node(op_name, *args, hint=None, **kwargs):
    """A node of operator ``op_name``, named after ``hint`` (default: the
    operator's name, as MXNet names ``_random_normal0``)."""
    function = make_function(REGISTRY[op_name], hint or op_name)
    return function(*args, **kwargs)


def _settings(shape, dtype):
    """``shape`` and ``dtype`` as node attributes, where given."""
    out = {}
    if shape is not None:
        out['shape'] = shape
    if dtype is not None:
        out['dtype'] = dtype
    return out


def _draw(dist, params, shape, dtype, kwargs):
    """MXNet's ``_random_helper``: one distribution (number parameters,
    ``_random_<dist>``) or one per element (Symbols, ``_sample_<dist>``)."""
    values = list(params.values())
    symbolic = [isinstance(v, Symbol) for v in values]
    if any(symbolic) and not all(symbolic):
        kinds = sorted({type(v).__name__ for v in values})
        raise DLBookError(
            'Distribution parameters must all have the same type, but got '
            f'both {kinds[0]} and {kinds[1]}.'
        )
    settings = {**_settings(shape, dtype), **kwargs}
    if all(symbolic):
        return _node(f'_sample_{dist}', *values, **settings)
    return _node(f'_random_{dist}', **params, **settings)


def uniform(low=0, high=1, shape=None, dtype=None, **kwargs):
    """U[low, high) samples."""
    return _draw('uniform', {'low': low, 'high': high}, shape, dtype, kwargs)


def normal(loc=0, scale=1, shape=None, dtype=None, **kwargs):
    """N(loc, scale**2) samples."""
    return _draw('normal', {'loc': loc, 'scale': scale}, shape, dtype, kwargs)


def randn(*shape, loc=0, scale=1, dtype=None, **kwargs):
    """Normal samples, the shape given as positional arguments."""
    return normal(loc, scale, shape, dtype, **kwargs)


def randint(low, high, shape=None, dtype=None, **kwargs):
    """Integers drawn uniformly from [low, high)."""
    settings = {**_settings(shape, dtype), **kwargs}
    return _node('_random_randint', low=low, high=high, **settings)


def exponential(scale=1, shape=None, dtype=None, **kwargs):
    """Exponential samples with mean ``scale`` (rate ``1 / scale``)."""
    return _draw('exponential', {'lam': 1.0 / scale}, shape, dtype, kwargs)


def poisson(lam=1, shape=None, dtype=None, **kwargs):
    """Poisson samples."""
    return _draw('poisson', {'lam': lam}, shape, dtype, kwargs)


def gamma(alpha=1, beta=1, shape=None, dtype=None, **kwargs):
    """Gamma samples with shape ``alpha`` and scale ``beta``."""
    return _draw('gamma', {'alpha': alpha, 'beta': beta}, shape, dtype, kwargs)


def negative_binomial(k=1, p=1, shape=None, dtype=None, **kwargs):
    """Failures before the ``k``-th success, success probability ``p``."""
    return _draw('negative_binomial', {'k': k, 'p': p}, shape, dtype, kwargs)


def generalized_negative_binomial(
    mu=1, alpha=1, shape=None, dtype=None, **kwargs
):
    """Negative binomial with mean ``mu`` and dispersion ``alpha``."""
    params = {'mu': mu, 'alpha': alpha}
    return _draw('generalized_negative_binomial', params, shape, dtype, kwargs)


def multinomial(data, shape=None, get_prob=False, dtype='int32', **kwargs):
    """Category indices drawn from the probabilities in ``data``'s last
    axis (and their log-probabilities with ``get_prob``)."""
    settings = {**_settings(shape, dtype), **kwargs}
    return _node('_sample_multinomial', data, get_prob=get_prob, **settings)


def shuffle(data, **kwargs):
    """``data`` with its first axis randomly permuted."""
    return _node('_shuffle', data, **kwargs)


def uniform_like(data=None, **kwargs):
    """``uniform`` samples with ``data``'s shape and dtype."""
    return _node('_random_uniform_like', data, hint='uniform_like', **kwargs)


def normal_like(data=None, **kwargs):
    """``normal`` samples with ``data``'s shape and dtype."""
    return _node('_random_normal_like', data, hint='normal_like', **kwargs)


def gamma_like(data=None, **kwargs):
    """``gamma`` samples with ``data``'s shape and dtype."""
    return _node('_random_gamma_like', data, hint='gamma_like', **kwargs)


def exponential_like(data=None, **kwargs):
    """``exponential`` samples with ``data``'s shape and dtype."""
    return _node(
        '_random_exponential_like', data, hint='exponential_like', **kwargs
    )


def poisson_like(data=None, **kwargs):
    """``poisson`` samples with ``data``'s shape and dtype."""
    return _node('_random_poisson_like', data, hint='poisson_like', **kwargs)


def negative_binomial_like(data=None, **kwargs):
    """``negative_binomial`` samples with ``data``'s shape and dtype."""
    return _node(
        '_random_negative_binomial_like',
        data,
        hint='negative_binomial_like',
        **kwargs,
    )


def generalized_negative_binomial_like(data=None, **kwargs):
    """``generalized_negative_binomial`` samples with ``data``'s shape and
    dtype."""
    return _node(
        '_random_generalized_negative_binomial_like',
        data,
        hint='generalized_negative_binomial_like',
        **kwargs,
    )
