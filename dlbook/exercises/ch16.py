"""Chapter 16 (several machines): each worker's slice, bytes sent per step.

The checks need no MPI: they test the arithmetic of data parallelism that
a distributed job relies on.
"""

import numpy as np

from .. import init, nd
from ..gluon import nn
from .compare import call, rng
from .registry import exercise
from .result import Failure

WORD_VALUES = 16  # MXNet's 2-bit compression: 16 values per float32


# -- each worker's part of the global batch (worked example) ------------------


@exercise(
    'ch16.worker_slice',
    hint='n = X.shape[0] // num_workers; worker rank keeps '
    'X[rank * n:(rank + 1) * n].',
)
def _worker_slice(student):
    """worker_slice(X, num_workers, rank): this worker's consecutive part."""
    r = rng(1600)
    for batch, workers in ((8, 2), (12, 3), (6, 1)):
        X = r.normal(size=(batch, 3))
        n = batch // workers
        pieces = []
        for rank in range(workers):
            got = call(
                student,
                nd.array(X),
                workers,
                rank,
                inputs={
                    'X': f'a batch of shape {X.shape}',
                    'num_workers': workers,
                    'rank': rank,
                },
            )
            if not hasattr(got, 'asnumpy'):
                raise Failure(
                    f'for rank {rank} of {workers} the result is a '
                    f'{type(got).__name__}, expected an NDArray.'
                )
            piece = got.asnumpy()
            expected = X[rank * n : (rank + 1) * n]
            if piece.shape != expected.shape or not np.allclose(
                piece, expected, rtol=1e-6, atol=1e-6
            ):
                hint = None
                if piece.shape == X[rank::workers].shape and np.allclose(
                    piece, X[rank::workers], rtol=1e-6, atol=1e-6
                ):
                    hint = (
                        'that takes every num_workers-th example; take '
                        'consecutive examples, as split_and_load does.'
                    )
                raise Failure(
                    f'with a batch of {batch} and {workers} '
                    f'workers, rank {rank} should get rows '
                    f'{rank * n} to {(rank + 1) * n - 1} (shape '
                    f'{expected.shape}), got shape {piece.shape}'
                    f'{"" if piece.shape != expected.shape else " with other rows"}.',
                    hint,
                )
            pieces.append(piece)
        if not np.allclose(np.concatenate(pieces), X):
            raise Failure(
                f'the {workers} slices together do not give the '
                f'whole batch back.'
            )
    return (
        'correct: equal, consecutive parts that together are the whole '
        'batch, as gluon.utils.split_data(X, num_workers)[rank].'
    )


# -- bytes per step -------------------------------------------------------------


def _bytes(sizes, compression):
    if compression == '2bit':
        return sum(-(-size // WORD_VALUES) * 4 for size in sizes)
    return sum(size * 4 for size in sizes)


def _net(layers):
    net = nn.Sequential()
    for units, in_units in layers:
        net.add(nn.Dense(units, in_units=in_units))
    net.initialize(init.Normal(0.01))
    return net


@exercise(
    'ch16.bytes_per_step',
    hint='for each param in net.collect_params().values(): '
    'param.data().size values; 4 bytes each, or with 2bit '
    'ceil(size / 16) * 4 bytes per parameter.',
)
def _bytes_per_step(student):
    """bytes_per_step(net, compression=None): bytes of one gradient push."""
    cases = [
        ([(256, 784), (10, 256)], 'the MLP 784-256-10'),
        ([(3, 5)], 'Dense(3, in_units=5)'),
        ([(7, 3), (1, 7)], 'Dense(7) then Dense(1), 3 inputs'),
    ]
    for layers, what in cases:
        net = _net(layers)
        sizes = [p.data().size for p in net.collect_params().values()]
        for compression in (None, '2bit'):
            got = call(
                student,
                net,
                compression,
                inputs={'net': what, 'compression': compression},
            )
            expected = _bytes(sizes, compression)
            if isinstance(got, bool) or not isinstance(
                got, (int, float, np.integer, np.floating)
            ):
                raise Failure(
                    f'for {what} the result is {got!r:.60}, '
                    f'expected a number of bytes.'
                )
            if got != expected:
                hint = None
                total = sum(sizes)
                if compression == '2bit' and got in (
                    total * 4 / WORD_VALUES,
                    total / 4,
                    -(-total // WORD_VALUES) * 4,
                ):
                    hint = (
                        'round up per parameter array: each array is '
                        'packed on its own, so a bias of 10 values '
                        'takes a whole 4-byte word.'
                    )
                elif got == total:
                    hint = (
                        'that is the number of values; a float32 is 4 bytes.'
                    )
                elif compression is None and got == total * 32:
                    hint = 'that is bits; a float32 is 4 bytes.'
                raise Failure(
                    f'for {what} with compression={compression!r} '
                    f'the push sends {expected} bytes, got {got}.',
                    hint,
                )
    return (
        'correct: 4 bytes per value, or one 4-byte word per 16 values '
        'of each parameter with 2-bit compression (16 times less).'
    )


# -- ring all-reduce --------------------------------------------------------------


@exercise(
    'ch16.ring_allreduce_bytes',
    hint='2 * (num_workers - 1) / num_workers * size_bytes; one '
    'worker alone sends nothing.',
)
def _ring_allreduce_bytes(student):
    """ring_allreduce_bytes(size, n): bytes each worker sends in a ring."""
    for size, n in ((814120, 2), (1000, 4), (4096, 1), (800, 8)):
        got = call(
            student, size, n, inputs={'size_bytes': size, 'num_workers': n}
        )
        expected = 2 * (n - 1) / n * size
        if isinstance(got, bool) or not isinstance(
            got, (int, float, np.integer, np.floating)
        ):
            raise Failure(
                f'for {size} bytes and {n} workers the result is '
                f'{got!r:.60}, expected a number.'
            )
        if abs(float(got) - expected) > 1e-6 * max(1.0, expected):
            hint = None
            if n > 1 and abs(float(got) - (n - 1) / n * size) < 1e-6 * size:
                hint = (
                    'that is one of the two phases; the ring first '
                    'reduces (scatter-reduce), then shares the sums '
                    '(all-gather): each sends (n - 1)/n of the data twice.'
                )
            raise Failure(
                f'for {size} bytes and {n} workers each worker '
                f'sends {expected:g} bytes, got {got}.',
                hint,
            )
    return (
        'correct: 2(n-1)/n times the gradient size, which approaches '
        'twice the gradient however many workers join.'
    )
