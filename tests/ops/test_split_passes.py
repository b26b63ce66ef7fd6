"""Element-wise passes split over threads give the single-thread result.

``relu`` splits its forward and backward along the first axis when the
arrays are large (``blas_threads.split_passes``); forced here onto tiny
arrays, the results must equal the plain formulas exactly.
"""

import numpy as np
import pytest

from dlbook.backend import blas_threads
from dlbook.ops import REGISTRY

from .test_fastpath import force_thread_split


@pytest.mark.parametrize('threads', [1, 2, 3])
@pytest.mark.parametrize(
    'shape', [(), (1,), (5,), (2, 3), (7, 3, 4, 5)], ids=str
)
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_relu_split_matches_formula(monkeypatch, threads, shape, dtype):
    calls = force_thread_split(monkeypatch, blas_threads, threads)
    monkeypatch.setattr(blas_threads, 'PASS_COST', 10**9)
    rng = np.random.RandomState(0)
    x = np.round(rng.uniform(-2, 2, shape)).astype(dtype)  # zeros too
    dy = rng.uniform(-1, 1, shape).astype(dtype)
    op = REGISTRY['relu']()
    y = op.forward(np, x)
    dx = op.backward(np, dy)
    np.testing.assert_array_equal(y, np.maximum(x, 0))
    np.testing.assert_array_equal(dx, dy * (x > 0))
    assert y.dtype == dx.dtype == dtype and y.shape == dx.shape == shape
    if shape:  # 0-d arrays take the plain path
        assert calls and set(calls) == {threads}


@pytest.mark.parametrize('dtype', [np.bool_, np.int8, np.uint8])
def test_relu_of_non_float_arrays_keeps_the_plain_rule(monkeypatch, dtype):
    """Booleans and integers take ``_Unary``'s path, as before the split
    (``maximum(bool, 0)`` into a bool buffer would not cast)."""
    force_thread_split(monkeypatch, blas_threads, 2)
    x = np.array([[1, 0, 3], [0, 2, 1]]).astype(dtype)
    y = REGISTRY['relu']().forward(np, x)
    assert y.dtype == dtype
    np.testing.assert_array_equal(y, np.maximum(x, 0).astype(dtype))


def test_split_passes_keeps_small_work_on_one_thread(monkeypatch):
    calls = force_thread_split(monkeypatch, blas_threads, 2)
    monkeypatch.setattr(blas_threads, 'SMALL_GEMM', 1 << 24)
    seen = []
    blas_threads.split_passes(np, lambda a, b: seen.append((a, b)), 10, 100)
    assert seen == [(0, 10)] and calls == [1]
