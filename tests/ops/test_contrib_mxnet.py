"""``nd.contrib`` extras, ``moments``, ``cumsum``, index arithmetic,
``batch_take``, ``khatri_rao`` and ``histogram`` against values printed by
MXNet 1.9.1 (recorded here; MXNet is not imported), their error messages,
and their symbol forms run by an executor."""

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, nd
from dlbook.base import DLBookError

NAN, INF = float('nan'), float('inf')


def grads(f, *inputs):
    """Outputs and input gradients of ``f`` with head gradients 1, 2, ...
    per output (how the MXNet values below were recorded)."""
    for a in inputs:
        a.attach_grad()
    with autograd.record():
        y = f(*inputs)
    ys = list(y) if isinstance(y, (list, tuple)) else [y]
    heads = [
        nd.array(np.arange(1, o.size + 1).reshape(o.shape), dtype=o.dtype)
        for o in ys
    ]
    autograd.backward(ys, heads)
    return [o.asnumpy() for o in ys], [a.grad.asnumpy() for a in inputs]


def test_element_tests_keep_the_input_dtype():
    x = nd.array([[1, NAN, INF], [-INF, 0, 2]])
    assert nd.contrib.isnan(x).asnumpy().tolist() == [[0, 1, 0], [0, 0, 0]]
    assert nd.contrib.isinf(x).asnumpy().tolist() == [[0, 0, 1], [1, 0, 0]]
    assert nd.contrib.isfinite(x).asnumpy().tolist() == [[1, 0, 0], [0, 1, 1]]
    assert nd.contrib.isnan(x).dtype == np.float32
    assert nd.contrib.isinf(x.astype('float64')).dtype == np.float64
    ints = nd.array([1, 2], dtype='int32')
    assert nd.contrib.isnan(ints).dtype == np.int32
    assert nd.contrib.isnan(ints).asnumpy().tolist() == [0, 0]
    assert nd.contrib.isfinite(ints).asnumpy().tolist() == [1, 1]


def test_allclose():
    def close(a, b, *args, **kwargs):
        y = nd.contrib.allclose(nd.array(a), nd.array(b), *args, **kwargs)
        assert y.dtype == np.uint8 and y.shape == ()
        return int(y.asnumpy())

    # MXNet's docstring examples, in float32, both print 0
    assert close([1e10, 1e-7], [1.00001e10, 1e-8]) == 0
    assert close([1e10, 1e-8], [1.00001e10, 1e-9]) == 0
    assert close([NAN], [NAN]) == 1  # equal_nan defaults to True
    assert close([NAN], [NAN], equal_nan=False) == 0
    assert close([1, 2], [1.1, 2], 0.1, 0) == 1
    assert close([INF], [INF]) == 1
    # MXNet 1.9.1 says 1 (|inf - -inf| <= rtol * inf); dlbook follows NumPy
    assert close([INF], [-INF]) == 0
    with pytest.raises(DLBookError, match=r'allclose.*\(2,\).*\(3,\)'):
        close([1, 2], [1, 2, 3])
    with pytest.raises(DLBookError, match='float32.*float64'):
        nd.contrib.allclose(nd.array([1]), nd.array([1], dtype='float64'))


def test_index_copy_values_and_gradients():
    x = nd.zeros((5, 3))
    t = nd.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    y = nd.contrib.index_copy(x, nd.array([0, 4, 2]), t)
    assert y.asnumpy().tolist() == [
        [1, 2, 3], [0, 0, 0], [7, 8, 9], [0, 0, 0], [4, 5, 6]
    ]  # fmt: skip
    y = nd.contrib.index_copy(
        nd.zeros((5,)), nd.array([1, 3]), nd.array([7, 8])
    )
    assert y.asnumpy().tolist() == [0, 7, 0, 8, 0]
    # MXNet: old's copied rows get 0, new's rows get dy at their targets
    (y,), (d_old, d_new) = grads(
        lambda a, b: nd.contrib.index_copy(a, nd.array([0, 4, 2]), b),
        nd.arange(15).reshape((5, 3)),
        nd.ones((3, 3)),
    )
    assert d_old.tolist() == [
        [0, 0, 0], [4, 5, 6], [0, 0, 0], [10, 11, 12], [0, 0, 0]
    ]  # fmt: skip
    assert d_new.tolist() == [[1, 2, 3], [13, 14, 15], [7, 8, 9]]


def test_index_copy_repeated_rows_last_write_wins():
    old, new = nd.arange(15).reshape((5, 3)), nd.ones((3, 3))
    new[0] = 5
    (y,), (d_old, d_new) = grads(
        lambda a, b: nd.contrib.index_copy(a, nd.array([0, 0, 2]), b), old, new
    )
    assert y[0].tolist() == [1, 1, 1]  # as MXNet's CPU kernel
    # MXNet gives d_new[0] = [1, 2, 3] too, though row 0 of new was
    # overwritten; dlbook gives the true gradient, 0
    assert d_new.tolist() == [[0, 0, 0], [1, 2, 3], [7, 8, 9]]
    assert d_old[0].tolist() == [0, 0, 0]


@pytest.mark.parametrize(
    'old,index,new,match',
    [
        ((5, 3), (2,), (3, 3), r'index_vector \(2,\)'),
        ((5, 3), (3,), (3, 2), r'new_tensor \(3, 2\)'),
        ((5, 3), (1, 3), (3, 3), r'index_vector \(1, 3\)'),
        ((2, 3), (3,), (3, 3), r'old_tensor \(2, 3\)'),
        ((5, 3), (2,), (2, 1, 3), r'new_tensor \(2, 1, 3\)'),
    ],
)
def test_index_copy_shape_errors(old, index, new, match):
    with pytest.raises(DLBookError, match='_contrib_index_copy.*' + match):
        nd.contrib.index_copy(nd.zeros(old), nd.zeros(index), nd.zeros(new))


def test_index_copy_dtype_and_range_errors():
    with pytest.raises(DLBookError, match='float32.*float64'):
        nd.contrib.index_copy(
            nd.zeros((5, 3)),
            nd.array([0, 1, 2]),
            nd.ones((3, 3), dtype='float64'),
        )
    # MXNet silently skips rows out of range; dlbook refuses them
    with pytest.raises(DLBookError, match=r'\[0, 5\)'):
        nd.contrib.index_copy(
            nd.zeros((5, 3)), nd.array([0, 5]), nd.ones((2, 3))
        )


def test_index_array():
    y = nd.contrib.index_array(nd.ones((3, 2)))
    assert y.dtype == np.int64 and y.shape == (3, 2, 2)
    assert y.asnumpy().tolist() == [
        [[0, 0], [0, 1]], [[1, 0], [1, 1]], [[2, 0], [2, 1]]
    ]  # fmt: skip
    y = nd.contrib.index_array(nd.ones((3, 2, 2)), axes=(1, 0))
    assert y.asnumpy().tolist() == [
        [[[0, 0], [0, 0]], [[1, 0], [1, 0]]],
        [[[0, 1], [0, 1]], [[1, 1], [1, 1]]],
        [[[0, 2], [0, 2]], [[1, 2], [1, 2]]],
    ]
    y = nd.contrib.index_array(nd.ones((3, 2)), axes=(-1,))
    assert y.asnumpy().tolist() == [[[0], [1]], [[0], [1]], [[0], [1]]]
    y = nd.contrib.index_array(nd.ones((3, 2)), axes=(0, 0))
    assert y.asnumpy()[2].tolist() == [[2, 2], [2, 2]]
    assert nd.contrib.index_array(nd.ones((2, 2)), axes=()).shape == (2, 2, 0)
    # MXNet 1.9.1 wraps axes=(2,) around to axis 0; dlbook refuses it
    with pytest.raises(DLBookError, match=r'axes=2 is out of range.*\(3, 2\)'):
        nd.contrib.index_array(nd.ones((3, 2)), axes=(2,))


def test_arange_like():
    x = nd.ones((3, 4))
    al = nd.contrib.arange_like
    assert al(x, start=1, step=0.5).asnumpy()[2].tolist() == [5, 5.5, 6, 6.5]
    assert al(x, axis=-1).asnumpy().tolist() == [0, 1, 2, 3]
    assert al(x, repeat=3).asnumpy().tolist() == [
        [0, 0, 0, 1], [1, 1, 2, 2], [2, 3, 3, 3]
    ]  # fmt: skip
    assert al(x, repeat=2, axis=1).asnumpy().tolist() == [0, 0, 1, 1]
    assert al(x, 2, 3).asnumpy()[2].tolist() == [26, 29, 32, 35]
    assert al(x.astype('float64')).dtype == np.float64
    # integer data: start and step are truncated first, as in MXNet
    y = al(nd.ones((5,), dtype='int32'), start=1.7, step=2.7)
    assert y.dtype == np.int32 and y.asnumpy().tolist() == [1, 3, 5, 7, 9]
    y = al(nd.ones((3, 4), dtype='int32'), start=0.5, step=0.5)
    assert not y.asnumpy().any()
    with pytest.raises(DLBookError, match=r'axis=2 is out of range.*\(3, 4\)'):
        al(x, axis=2)
    with pytest.raises(DLBookError, match='repeat=0'):
        al(x, repeat=0)


def test_boolean_mask():
    data = nd.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    bm = nd.contrib.boolean_mask
    assert bm(data, nd.array([0, 1, 0])).asnumpy().tolist() == [[4, 5, 6]]
    assert bm(data, nd.array([0, 0, 0])).shape == (0, 3)
    assert bm(data, nd.array([0, 2, -1])).asnumpy().tolist() == [
        [4, 5, 6], [7, 8, 9]
    ]  # fmt: skip
    assert bm(data, nd.array([0, 0.5, 1])).shape == (2, 3)
    assert bm(nd.array([1, 2, 3]), nd.array([0, 1, 1])).asnumpy().tolist() == [
        2,
        3,
    ]
    y = bm(data.astype('float64'), nd.array([1, 0, 0], dtype='int32'))
    assert y.dtype == np.float64
    # MXNet 1.9.1 supports axis=0 only ("Not supported yet")
    assert bm(data, nd.array([0, 1, 1]), axis=1).asnumpy().tolist() == [
        [2, 3], [5, 6], [8, 9]
    ]  # fmt: skip
    (y,), (dx, di) = grads(
        lambda a, i: bm(a, i),
        nd.arange(6).reshape((3, 2)),
        nd.array([1, 0, 1]),
    )
    assert y.tolist() == [[0, 1], [4, 5]]
    assert dx.tolist() == [[1, 2], [0, 0], [3, 4]] and not di.any()
    with pytest.raises(DLBookError, match=r'boolean_mask.*\(2,\).*\(3, 3\)'):
        bm(data, nd.array([0, 1]))
    with pytest.raises(DLBookError, match=r'\(1, 3\)'):
        bm(data, nd.array([[0, 1, 1]]))


def test_arithmetic_contrib_ops_and_their_gradients():
    y = nd.contrib.quadratic(nd.array([[1, 2], [3, 4]]), a=1, b=2, c=3)
    assert y.asnumpy().tolist() == [[6, 11], [18, 27]]
    assert nd.contrib.quadratic(
        nd.array([1, 2]), 1, 2, 3
    ).asnumpy().tolist() == [6, 11]
    assert not nd.contrib.quadratic(nd.array([1, 2])).asnumpy().any()
    y = nd.contrib.quadratic(nd.array([1, 2], dtype='int32'), 0.5, 1.5, 0.5)
    assert y.dtype == np.int32 and y.asnumpy().tolist() == [2, 5]
    (y,), (dx,) = grads(
        lambda a: nd.contrib.quadratic(a, 2, 3, 4), nd.arange(3)
    )
    assert y.tolist() == [4, 9, 18] and dx.tolist() == [3, 14, 33]

    assert (
        nd.contrib.div_sqrt_dim(nd.ones((2, 4))).asnumpy().tolist()
        == [[0.5] * 4] * 2
    )
    y = nd.contrib.div_sqrt_dim(nd.ones((4,), dtype='int32') * 5)
    assert y.dtype == np.int32 and y.asnumpy().tolist() == [2, 2, 2, 2]
    (y,), (dx,) = grads(nd.contrib.div_sqrt_dim, nd.arange(4))
    assert y.tolist() == [0, 0.5, 1, 1.5] and dx.tolist() == [0.5, 1, 1.5, 2]

    y = nd.contrib.gradientmultiplier(
        nd.array([1, 2], dtype='int32'), scalar=2.5
    )
    assert y.dtype == np.int32 and y.asnumpy().tolist() == [1, 2]
    (y,), (dx,) = grads(
        lambda a: nd.contrib.gradientmultiplier(a, scalar=-2.5), nd.arange(3)
    )
    assert y.tolist() == [0, 1, 2] and dx.tolist() == [-2.5, -5, -7.5]


def test_moments():
    x = nd.array([[1, 2, 3], [4, 5, 7]])
    mean, var = nd.moments(x, axes=(0,))
    assert mean.asnumpy().tolist() == [
        2.5,
        3.5,
        5,
    ] and var.asnumpy().tolist() == [2.25, 2.25, 4]
    mean, var = nd.moments(x, axes=0)
    assert mean.shape == (3,)
    mean, var = nd.moments(x, (1,), True)
    assert mean.shape == var.shape == (2, 1)
    np.testing.assert_allclose(
        var.asnumpy().ravel(), [0.6666667, 1.5555555], rtol=1e-6
    )
    mean, var = nd.moments(x, axes=(0, 1))  # legacy MXNet: shape (1,), not ()
    assert mean.shape == var.shape == (1,)
    np.testing.assert_allclose(
        [mean.asscalar(), var.asscalar()], [3.6666667, 3.888889], rtol=1e-6
    )
    assert nd.moments(x, axes=(0, 1), keepdims=True)[0].shape == (1, 1)
    mean, var = nd.moments(x.astype('int32'), axes=(1,))
    assert mean.dtype == np.int32 and mean.asnumpy().tolist() == [2, 5]
    assert var.asnumpy().tolist() == [0, 1]
    (m, v), (dx,) = grads(lambda a: nd.moments(a, axes=(1,)), x)
    np.testing.assert_allclose(
        dx,
        [[-0.33333334, 0.33333334, 1.0], [-1.1111114, 0.22222203, 2.8888888]],
        rtol=1e-5,
    )
    with pytest.raises(DLBookError, match=r'moments: axes.*axes=\(0, 1\)'):
        nd.moments(x)
    with pytest.raises(DLBookError, match=r'axes=\(2,\).*\(2, 3\)'):
        nd.moments(x, axes=(2,))
    with pytest.raises(DLBookError, match=r'axes=\(0, 0\) must be distinct'):
        nd.moments(x, axes=(0, 0))


def test_cumsum():
    x = nd.array([[1, 2, 3], [4, 5, 7]])
    assert nd.cumsum(x).asnumpy().tolist() == [1, 3, 6, 10, 15, 22]
    assert nd.cumsum(x, axis=0).asnumpy().tolist() == [[1, 2, 3], [5, 7, 10]]
    assert nd.cumsum(x, 1).asnumpy().tolist() == [[1, 3, 6], [4, 9, 16]]
    assert nd.cumsum(x, dtype='float64').dtype == np.float64
    assert (
        nd.cumsum(x.astype('int8')).dtype == np.int8
    )  # not the int64 of NumPy
    y = nd.cumsum(x, dtype='int32', axis=1)
    assert y.dtype == np.int32 and y.asnumpy().tolist() == [
        [1, 3, 6],
        [4, 9, 16],
    ]
    # MXNet 1.9.1's legacy cumsum rejects axis=-1; dlbook accepts it
    assert nd.cumsum(x, axis=-1).asnumpy().tolist() == [[1, 3, 6], [4, 9, 16]]
    (_,), (dx,) = grads(lambda a: nd.cumsum(a, axis=1), x)
    assert dx.tolist() == [[6, 5, 3], [15, 11, 6]]
    (_,), (dx,) = grads(nd.cumsum, x)
    assert dx.tolist() == [[21, 20, 18], [15, 11, 6]]
    with pytest.raises(DLBookError, match='axis 2 is out of range'):
        nd.cumsum(x, axis=2)


def test_ravel_and_unravel():
    y = nd.unravel_index(nd.array([22, 41, 37]), shape=(7, 6))
    assert y.dtype == np.float32
    assert y.asnumpy().tolist() == [[3, 6, 6], [4, 5, 1]]
    assert nd.unravel_index(nd.array([22, 41, 37]), shape=(-1, 6)).asnumpy().tolist() == [
        [3, 6, 6], [4, 5, 1]
    ]  # fmt: skip
    y = nd.unravel_index(nd.array([22, 41, 37], dtype='int64'), shape=(7, 6))
    assert y.dtype == np.int64
    # the first coordinate is not reduced; negatives divide toward zero
    assert nd.unravel_index(nd.array([43]), (7, 6)).asnumpy().tolist() == [
        [7],
        [1],
    ]
    assert nd.unravel_index(nd.array([-1]), (2, 3)).asnumpy().tolist() == [
        [0],
        [-1],
    ]
    with pytest.raises(DLBookError, match=r'unravel_index: shape=\(\)'):
        nd.unravel_index(nd.array([5]))

    idx = nd.array([[3, 6, 6], [4, 5, 1]])
    assert nd.ravel_multi_index(idx, shape=(7, 6)).asnumpy().tolist() == [
        22,
        41,
        37,
    ]
    assert nd.ravel_multi_index(idx, shape=(-1, 6)).asnumpy().tolist() == [
        22,
        41,
        37,
    ]
    y = nd.ravel_multi_index(idx.astype('int32'), shape=(7, 6))
    assert y.dtype == np.int32
    assert nd.ravel_multi_index(nd.array([[3, 6, 6], [4, 5, 7]]), shape=(7, 6)).asnumpy().tolist() == [
        22, 41, 43
    ]  # fmt: skip
    assert nd.ravel_multi_index(
        nd.array([[3.7], [4.2]]), shape=(7, 6)
    ).asnumpy().tolist() == [22]
    with pytest.raises(DLBookError, match=r'\(2, 3\) must be 2-D with 3 rows'):
        nd.ravel_multi_index(idx, shape=(7, 6, 2))
    with pytest.raises(DLBookError, match=r'\(2,\) must be 2-D'):
        nd.ravel_multi_index(nd.array([3, 4]), shape=(7, 6))


def test_batch_take():
    x = nd.array([[1, 2], [3, 4], [5, 6]])
    y = nd.batch_take(x, nd.array([0, 1, 0], dtype='int32'))
    assert y.asnumpy().tolist() == [1, 4, 5]
    # out-of-range indices are clipped, as in MXNet
    assert nd.batch_take(
        x, nd.array([0, 5, -1], dtype='int32')
    ).asnumpy().tolist() == [1, 4, 5]
    y = nd.batch_take(
        nd.arange(6).reshape((2, 3)), nd.array([[0, 1]], dtype='int32')
    )
    assert y.shape == (1, 2) and y.asnumpy().tolist() == [[0, 4]]
    y = nd.batch_take(
        nd.arange(6).reshape((2, 3)).astype('float64'),
        nd.array([2, 1], dtype='int32'),
    )
    assert y.dtype == np.float64 and y.asnumpy().tolist() == [2, 4]
    # MXNet has no gradient for batch_take; dlbook scatters dy back
    (_,), (dx, _) = grads(nd.batch_take, x, nd.array([0, 1, 0], dtype='int32'))
    assert dx.tolist() == [[1, 0], [0, 2], [3, 0]]
    # float indices holding integers are read as MXNet's int32 would be
    # (symbolic shape inference runs float32 arrays through every op)
    assert nd.batch_take(x, nd.array([0, 1, 0])).asnumpy().tolist() == [
        1,
        4,
        5,
    ]
    with pytest.raises(DLBookError, match='indices must be numbers.*bool'):
        nd.batch_take(x, nd.array([0, 1, 0], dtype='bool'))
    with pytest.raises(DLBookError, match=r'\(3, 2\).*3 in all.*\(2,\)'):
        nd.batch_take(x, nd.array([0, 1], dtype='int32'))
    with pytest.raises(DLBookError, match=r'batch_take: a of shape \(6,\)'):
        nd.batch_take(nd.arange(6), nd.array([0, 1], dtype='int32'))


def test_khatri_rao():
    a = nd.array([[1, -1], [2, -3]])
    b = nd.array([[1, 4], [2, 5], [3, 6]])
    assert nd.khatri_rao(a, b).asnumpy().tolist() == [
        [1, -4], [2, -5], [3, -6], [2, -12], [4, -15], [6, -18]
    ]  # fmt: skip
    assert nd.khatri_rao(a).asnumpy().tolist() == [[1, -1], [2, -3]]
    y = nd.khatri_rao(
        nd.array([[1, 2]]), nd.array([[3, 4]]), nd.array([[1, 1], [2, 3]])
    )
    assert y.asnumpy().tolist() == [[3, 8], [6, 24]]
    (_,), (da, db) = grads(nd.khatri_rao, a, b)  # MXNet: no gradient
    heads = np.arange(1, 13).reshape(3 * 2, 2)
    want_a = np.einsum('ijk,jk->ik', heads.reshape(2, 3, 2), b.asnumpy())
    np.testing.assert_allclose(da, want_a)
    with pytest.raises(
        DLBookError, match=r'khatri_rao.*\[\(2, 2\), \(2, 3\)\]'
    ):
        nd.khatri_rao(a, nd.array([[1, 4, 5], [2, 5, 6]]))
    with pytest.raises(DLBookError, match=r'\[\(2,\), \(2,\)\]'):
        nd.khatri_rao(nd.array([1, 2]), nd.array([3, 4]))
    with pytest.raises(DLBookError, match="'float32', 'float64'"):
        nd.khatri_rao(nd.array([[1, 2]]), nd.array([[3, 4]], dtype='float64'))


def test_histogram():
    x = nd.array([[0, 1, 2], [2, 3, 9.5]])
    counts, edges = nd.histogram(x, bins=3, range=(0, 3))
    assert counts.dtype == np.int64 and edges.dtype == np.float32
    assert counts.asnumpy().tolist() == [1, 1, 3]
    assert edges.asnumpy().tolist() == [0, 1, 2, 3]
    counts, edges = nd.histogram(x, bins=nd.array([0, 1, 2.5, 10]))
    assert counts.asnumpy().tolist() == [1, 3, 2]
    assert edges.asnumpy().tolist() == [0, 1, 2.5, 10]
    counts, edges = nd.histogram(x, 4, (0, 8))
    assert counts.asnumpy().tolist() == [2, 3, 0, 0]
    # without range MXNet calls NumPy (and returns float32 counts)
    counts, edges = nd.histogram(x)
    assert counts.asnumpy().tolist() == [1, 1, 2, 1, 0, 0, 0, 0, 0, 1]
    np.testing.assert_allclose(edges.asnumpy()[:3], [0, 0.95, 1.9], rtol=1e-6)
    counts, edges = nd.histogram(nd.array([1, 1, 1]), bins=2)
    assert counts.asnumpy().tolist() == [0, 3]
    assert edges.asnumpy().tolist() == [0.5, 1, 1.5]
    counts, _ = nd.histogram(
        nd.array([-1, 0, NAN, 5, INF]), bins=2, range=(0, 5)
    )
    assert counts.asnumpy().tolist() == [1, 1]
    counts, edges = nd.histogram(x.astype('int32'), bins=2, range=(0, 10))
    assert counts.asnumpy().tolist() == [5, 1] and edges.dtype == np.int32
    with pytest.raises(
        DLBookError, match=r'range=\(3, 0\) must have left <= right'
    ):
        nd.histogram(x, bins=3, range=(3, 0))
    with pytest.raises(DLBookError, match='increasing'):
        nd.histogram(x, bins=nd.array([0, 5, 1]))
    with pytest.raises(
        DLBookError, match=r'bins of shape \(1, 3\) must be 1-D'
    ):
        nd.histogram(x, bins=nd.array([[0, 5, 10]]))
    with pytest.raises(DLBookError, match='bins=0'):
        nd.histogram(x, bins=0, range=(0, 1))


def _run(symbol, **arrays):
    exe = symbol.bind(mx.cpu(), {k: nd.array(v) for k, v in arrays.items()})
    return [o.asnumpy() for o in exe.forward()]


def test_symbol_forms_run_in_an_executor():
    x = mx.sym.var('x')
    (y,) = _run(mx.sym.contrib.quadratic(x, a=1, b=2, c=3), x=[[1, 2], [3, 4]])
    assert y.tolist() == [[6, 11], [18, 27]]
    mean, var = _run(mx.sym.moments(x, axes=(0,)), x=[[1, 2, 3], [4, 5, 7]])
    assert mean.tolist() == [2.5, 3.5, 5] and var.tolist() == [2.25, 2.25, 4]
    sym = mx.sym.moments(x, axes=(0, 1), name='mom')
    assert sym.list_outputs() == ['mom_output0', 'mom_output1']
    assert sym.infer_shape(x=(2, 3))[1] == [(1,), (1,)]
    (y,) = _run(mx.sym.cumsum(x, axis=1), x=[[1, 2, 3], [4, 5, 7]])
    assert y.tolist() == [[1, 3, 6], [4, 9, 16]]
    i = mx.sym.var('i')
    (y,) = _run(
        mx.sym.contrib.index_copy(x, i, mx.sym.var('t')),
        x=np.zeros((4, 2)),
        i=[3, 1],
        t=[[1, 2], [3, 4]],
    )
    assert y.tolist() == [[0, 0], [3, 4], [0, 0], [1, 2]]
    (y,) = _run(
        mx.sym.contrib.boolean_mask(x, i), x=[[1, 2], [3, 4]], i=[0, 1]
    )
    assert y.tolist() == [[3, 4]]
    (y,) = _run(mx.sym.khatri_rao(x, mx.sym.var('b')), x=[[1, -1]], b=[[2, 3]])
    assert y.tolist() == [[2, -3]]
    counts, _ = _run(
        mx.sym.histogram(x, bins=3, range=(0, 3)), x=[0, 1, 2, 2, 3]
    )
    assert counts.tolist() == [1, 1, 3]
    (y,) = _run(mx.sym.contrib.arange_like(x, repeat=2), x=np.ones((2, 2)))
    assert y.tolist() == [[0, 0], [1, 1]]
    (y,) = _run(mx.sym.unravel_index(x, shape=(7, 6)), x=[22, 41])
    assert y.tolist() == [[3, 6], [4, 5]]


def test_gradientmultiplier_in_a_symbol_graph():
    x = mx.sym.var('x')
    exe = mx.sym.contrib.gradientmultiplier(x, scalar=-2.0).bind(
        mx.cpu(), {'x': nd.array([1, 2])}, args_grad={'x': nd.zeros(2)}
    )
    exe.forward(is_train=True)
    exe.backward(nd.array([1, 3]))
    assert exe.grad_dict['x'].asnumpy().tolist() == [-2, -6]
