"""Seeding: ``mx.random.seed(s)`` makes NumPy and CuPy runs reproducible.

Every device has its own ``RandomState`` (see ``backend``); seeding resets
all of them.  Draws are not comparable across backends: the same seed gives
different numbers on NumPy and CuPy (and MXNet's own stream is different
again, so published numbers are tolerance bands, not exact values).

The sampling functions themselves are operators (``nd.random.normal``
...) defined in ``dlbook.ops.random``; as in MXNet, ``mx.random`` re-exports
them, so ``mx.random.uniform`` *is* ``mx.nd.random.uniform`` and draws from
the same generator.
"""

from . import backend as _backend
from .ndarray.random import (  # noqa: F401
    exponential,
    gamma,
    generalized_negative_binomial,
    multinomial,
    negative_binomial,
    normal,
    poisson,
    randint,
    randn,
    shuffle,
    uniform,
)

__all__ = [
    'seed',
    'numpy_rng',
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


def seed(seed_state, ctx='all'):
    """Seed the random number generators.

    Parameters
    ----------
    seed_state : int
        The seed.
    ctx : Context or 'all'
        Reseed only that device's backend, or every backend (default).
    """
    seed_state = int(seed_state)
    if ctx == 'all' or getattr(ctx, 'device_type', 'cpu') != 'gpu':
        _backend.get_backend('cpu').seed(seed_state)
    if ctx == 'all' or getattr(ctx, 'device_type', None) == 'gpu':
        if _backend.gpu_count():
            _backend.get_backend('gpu').seed(seed_state)


def numpy_rng():
    """The CPU device's NumPy ``RandomState`` (for shuffling, sampling in
    data pipelines), reproducible under :func:`seed`."""
    return _backend.get_backend('cpu').rng(0)
