"""MXNet's update operators of ``nd.contrib`` beyond those of
``tests/test_nd_updates.py``: ``group_adagrad_update``, and AdamW's step
skipped by a ``rescale_grad`` of 0.

Each operator is checked against its rule written out in NumPy
(float64), for the returned arrays, the states updated in place and the
arrays left alone; results of MXNet 1.9.1 itself (float32) are recorded
as expected values.
"""

import numpy as np
import pytest

from dlbook import nd
from dlbook.base import DLBookError

W, G = [1.0, -2.0, 3.0], [0.5, -1.0, 2.0]
M, V = [0.1, 0.2, -0.1], [0.01, 0.02, 0.03]
# a second weight, for the several-weight forms
W2, G2 = [[0.5, 0.25], [-1.0, 2.0]], [[0.1, -0.2], [0.3, 4.0]]
M2, V2 = [[0.1, 0.0], [-0.2, 0.3]], [[0.02, 0.01], [0.05, 0.5]]


def _clip(x, bound):
    return x if bound < 0 else np.clip(x, -bound, bound)


def _arrays(ctx, *values, dtype='float64'):
    return [nd.array(v, ctx=ctx, dtype=dtype) for v in values]


# -- nd.contrib's one-weight operators: Group AdaGrad, AdamW ------------------


def _group_adagrad(w, g, history, lr, scale, clip, eps):
    g = _clip(scale * g, clip)
    history = history + (g * g).mean(axis=1, keepdims=True)
    return w - lr * g / np.sqrt(history + eps), history


ROWS = [[1.0, -2.0], [3.0, 4.0], [5.0, 6.0]]
ROW_GRADS = [[0.0, 0.0], [1.0, 2.0], [0.5, -3.0]]
HISTORY = [[0.5], [0.25], [0.1]]


def test_group_adagrad_follows_its_rule(ctx):
    w, g, h = _arrays(ctx, ROWS, ROW_GRADS, HISTORY)
    result = nd.contrib.group_adagrad_update(w, g, h, 0.1, 2.0, 1.5, 1e-3)
    want, history = _group_adagrad(
        *map(np.array, (ROWS, ROW_GRADS, HISTORY)), 0.1, 2.0, 1.5, 1e-3
    )
    np.testing.assert_allclose(result.asnumpy(), want, rtol=1e-12)
    np.testing.assert_allclose(h.asnumpy(), history, rtol=1e-12)
    np.testing.assert_array_equal(w.asnumpy(), ROWS)
    # a history of shape (rows,) and a weight of three axes
    w3 = nd.array(np.arange(12.0).reshape(3, 2, 2), ctx=ctx)
    g3 = nd.array(np.linspace(-1, 1, 12).reshape(3, 2, 2), ctx=ctx)
    h1 = nd.array([0.1, 0.2, 0.3], ctx=ctx)
    result = nd.contrib.group_adagrad_update(w3, g3, h1, lr=0.1)
    rows = g3.asnumpy().reshape(3, 4)
    history = np.array([0.1, 0.2, 0.3]) + (rows * rows).mean(axis=1)
    want = w3.asnumpy() - 0.1 * g3.asnumpy() / np.sqrt(
        history.reshape(3, 1, 1) + 1e-5
    )
    np.testing.assert_allclose(result.asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(h1.asnumpy(), history, rtol=1e-6)


def test_group_adagrad_mxnet_values():
    """MXNet 1.9.1 takes row_sparse gradients only: the rows it holds
    change, the others (and their history) do not."""
    w, h = nd.array(ROWS), nd.array(HISTORY)
    g = nd.array(ROW_GRADS).tostype('row_sparse')
    out = nd.contrib.group_adagrad_update(w, g, h, 0.1, 2.0, 1.5, 1e-3, out=w)
    assert out is w
    np.testing.assert_allclose(
        w.asnumpy(), [[1, -2], [2.9051507, 3.9051507], [4.9238834, 6.1141748]]
    )
    np.testing.assert_allclose(h.asnumpy(), [[0.5], [2.5], [1.725]])
    w, h = nd.array(ROWS), nd.array(HISTORY)
    dense = np.zeros((3, 2))
    dense[1] = [1.0, 2.0]
    g = nd.array(dense).tostype('row_sparse')
    nd.contrib.group_adagrad_update(w, g, h, lr=0.1, out=w)
    np.testing.assert_allclose(
        w.asnumpy(), [[1, -2], [2.9396977, 3.8793957], [5, 6]]
    )
    np.testing.assert_allclose(h.asnumpy(), [[0.5], [2.75], [0.1]])


def test_adamw_update_skips_a_step_scaled_by_zero(ctx):
    """MXNet skips AdamW's step when ``rescale_grad`` is NaN, infinite or
    0 (its loss scaling marks an overflowed step so)."""
    w, g, m, v = _arrays(ctx, W, G, M, V)
    out = nd.contrib.adamw_update(w, g, m, v, 0.0, 0.1, 1.0, out=w)
    assert out is w
    np.testing.assert_array_equal(w.asnumpy(), W)
    np.testing.assert_array_equal(m.asnumpy(), M)
    np.testing.assert_array_equal(v.asnumpy(), V)


def test_group_adagrad_bad_input_is_named():
    w = nd.array(ROWS)
    with pytest.raises(DLBookError, match='lr is required'):
        nd.contrib.group_adagrad_update(w, w, nd.zeros((3, 1)))
    with pytest.raises(DLBookError, match=r'history has shape \(2, 1\)'):
        nd.contrib.group_adagrad_update(w, w, nd.zeros((2, 1)), lr=0.1)
    with pytest.raises(DLBookError, match='history is float64'):
        nd.contrib.group_adagrad_update(
            w, w, nd.zeros((3, 1), dtype='float64'), lr=0.1
        )
    with pytest.raises(DLBookError, match=r'grad has shape \(3,\)'):
        nd.contrib.group_adagrad_update(w, nd.ones(3), nd.zeros(3), lr=0.1)
