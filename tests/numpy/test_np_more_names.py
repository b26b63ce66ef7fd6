"""``mx.np`` names added beyond the first set: values and reprs recorded
from MXNet 1.9.1, dtypes, gradients through ``autograd.record()`` and
errors (``dlbook/numpy/more.py``, ``fallback.py``, ``random.py``,
``linalg.py``)."""

import numpy as onp
import pytest

from dlbook import autograd, np, npx
from dlbook.base import DLBookError


@pytest.fixture(autouse=True)
def numpy_mode():
    """NumPy mode for each test, switched off after it (other test files
    in the same worker expect the legacy mode)."""
    npx.set_np()
    yield
    npx.reset_np()


def _grads(f, *values):
    xs = [np.array(v) for v in values]
    for x in xs:
        x.attach_grad()
    with autograd.record():
        y = f(*xs)
    y.backward()
    return [x.grad.asnumpy() for x in xs]


A = [1.0, -2.0, 3.0]
B = [2.0, 2.0, -1.0]


# -- element-wise ---------------------------------------------------------------


def test_arctan2_hypot_values_and_grads():
    y = np.arctan2(np.array(A), np.array(B))
    onp.testing.assert_allclose(
        y.asnumpy(), [0.4636476, -0.7853982, 1.8925469], rtol=1e-6
    )
    assert y.dtype == onp.float32
    onp.testing.assert_allclose(
        np.arctan2(2.0, np.array(A)).asnumpy(),
        [1.1071488, 2.3561945, 0.5880026],
        rtol=1e-6,
    )
    da, db = _grads(lambda a, b: np.arctan2(a, b), A, B)
    onp.testing.assert_allclose(da, [0.4, 0.25, -0.1], rtol=1e-6)
    onp.testing.assert_allclose(db, [-0.2, 0.25, -0.3], rtol=1e-6)
    assert repr(np.hypot(np.array([3.0]), 4.0)) == 'array([5.])'
    da, db = _grads(lambda a, b: np.hypot(a, b), A, B)
    onp.testing.assert_allclose(
        da, [0.4472136, -0.70710677, 0.94868326], rtol=1e-6
    )
    # integers: float32 here (MXNet 1.9.1 raises)
    assert np.hypot(np.array([3, 5], dtype='int32'), 4).dtype == onp.float32


def test_copysign_and_ldexp():
    assert repr(np.copysign(np.array(A), np.array(B))) == (
        'array([ 1.,  2., -3.])'
    )
    assert repr(np.copysign(np.array([1, 2, 3], dtype='int32'), -1)) == (
        'array([-1, -2, -3], dtype=int32)'
    )
    da, db = _grads(lambda a, b: np.copysign(a, b), A, B)
    assert da.tolist() == [1.0, -1.0, -1.0] and db.tolist() == [0, 0, 0]
    assert repr(np.ldexp(np.array(A), np.array(B))) == (
        'array([ 4. , -8. ,  1.5])'
    )
    ints = np.array([1, 2, 3], dtype='int32')
    assert repr(np.ldexp(ints, ints)) == 'array([ 2,  8, 24], dtype=int32)'
    da, db = _grads(lambda a, b: np.ldexp(a, b), A, B)
    onp.testing.assert_allclose(da, [4.0, 4.0, 0.5])
    onp.testing.assert_allclose(db, [2.7725887, -5.5451775, 1.0397208])


X = [1.0, onp.nan, onp.inf, -onp.inf, 0.0]


def test_float_tests():
    x = np.array(X)
    assert repr(np.isnan(x)) == 'array([False,  True, False, False, False])'
    assert repr(np.isinf(x)) == 'array([False, False,  True,  True, False])'
    assert repr(np.isfinite(x)) == 'array([ True, False, False, False,  True])'
    assert repr(np.isposinf(x)) == (
        'array([False, False,  True, False, False])'
    )
    assert repr(np.isneginf(x)) == (
        'array([False, False, False,  True, False])'
    )
    ints = np.array([1, 2, 3], dtype='int32')
    assert repr(np.isfinite(ints)) == 'array([ True,  True,  True])'
    assert np.isnan(onp.nan) is onp.True_  # a number: NumPy's bool_


def test_nan_to_num():
    x = np.array(X)
    assert repr(np.nan_to_num(x)) == (
        'array([ 1.0000000e+00,  0.0000000e+00,  3.4028235e+38, '
        '-3.4028235e+38,\n        0.0000000e+00])'
    )
    y = np.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-3.0)
    assert repr(y) == 'array([ 1.,  1.,  2., -3.,  0.])'
    (g,) = _grads(lambda v: np.nan_to_num(v), [1.0, onp.nan, onp.inf])
    assert g.tolist() == [1.0, 0.0, 0.0]
    ints = np.array([1, 2, 3], dtype='int32')
    assert repr(np.nan_to_num(ints)) == 'array([1, 2, 3], dtype=int32)'
    z = np.array([onp.nan, 1.0])
    assert np.nan_to_num(z, copy=False) is z and z.asnumpy().tolist() == [
        0.0,
        1.0,
    ]


def test_fabs_fix_deg2rad():
    x = np.array(X)
    assert repr(np.fabs(x)) == 'array([ 1., nan, inf, inf,  0.])'
    assert repr(np.fabs(np.array([-1, 2], dtype='int32'))) == (
        'array([1, 2], dtype=int32)'
    )
    assert repr(np.fix(np.array([-1.5, 1.5, 2.7]))) == (
        'array([-1.,  1.,  2.])'
    )
    (g,) = _grads(lambda v: np.fix(v), [1.5, -2.5, 3.0])
    assert g.tolist() == [0.0, 0.0, 0.0]
    (g,) = _grads(lambda v: np.fabs(v), [1.5, -2.5, 3.0])
    assert g.tolist() == [1.0, -1.0, 1.0]
    onp.testing.assert_allclose(
        np.deg2rad(np.array([180.0])).asnumpy(), [onp.pi], rtol=1e-6
    )
    assert np.rad2deg(np.array([1], dtype='int32')).dtype == onp.float32


# -- differences and diagonals ---------------------------------------------------


def test_diff_and_ediff1d():
    v = np.array([1.0, 2.0, 4.0, 7.0])
    assert repr(np.diff(v)) == 'array([1., 2., 3.])'
    assert repr(np.diff(v, n=0)) == 'array([1., 2., 4., 7.])'
    assert repr(np.diff(np.array([1, 4, 9], dtype='int32'))) == (
        'array([3, 5], dtype=int32)'
    )
    m = np.arange(12).reshape(3, 4)
    assert np.diff(m, n=2, axis=1).shape == (3, 2)
    # NumPy's prepend (MXNet 1.9.1 ignores it and gives [1., 2., 3.])
    assert repr(np.diff(v, prepend=0.0)) == 'array([1., 1., 2., 3.])'
    (g,) = _grads(
        lambda x: np.diff(x) * np.array([1.0, 2.0, 3.0]), [1.0, 2, 4, 7]
    )
    assert g.tolist() == [-1.0, -1.0, -1.0, 3.0]
    assert repr(np.ediff1d(m)) == (
        'array([1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1.])'
    )
    assert repr(np.ediff1d(v, to_begin=-1.0, to_end=[8.0, 9.0])) == (
        'array([-1.,  1.,  2.,  3.,  8.,  9.])'
    )
    with pytest.raises(DLBookError, match='non-negative'):
        np.diff(v, n=-1)


def test_diag_family():
    v = np.array([1.0, 2.0])
    assert repr(np.diag(v, k=-1)) == (
        'array([[0., 0., 0.],\n       [1., 0., 0.],\n       [0., 2., 0.]])'
    )
    m = np.arange(12).reshape(3, 4)
    assert repr(np.diag(m, k=1)) == 'array([ 1.,  6., 11.])'
    t = np.arange(24).reshape(2, 3, 4)
    assert repr(np.diagonal(t, offset=1, axis1=1, axis2=2)) == (
        'array([[ 1.,  6., 11.],\n       [13., 18., 23.]])'
    )
    assert repr(np.diagflat(v, k=1)) == (
        'array([[0., 1., 0.],\n       [0., 0., 2.],\n       [0., 0., 0.]])'
    )
    (g,) = _grads(lambda x: np.diag(x) * np.arange(4).reshape(2, 2), [1, 2])
    assert g.tolist() == [0.0, 3.0]
    (g,) = _grads(
        lambda x: np.diagonal(x) * np.array([1.0, 2.0]), [[1, 2], [3, 4]]
    )
    assert g.tolist() == [[1.0, 0.0], [0.0, 2.0]]
    assert repr(np.trace(np.eye(3))) == 'array(3.)'
    with pytest.raises(DLBookError, match='1- or 2-d'):
        np.diag(t)


# -- joining, splitting -----------------------------------------------------------


def test_append_insert_delete():
    v = np.array([1.0, 2.0, 4.0, 7.0])
    m = np.arange(12).reshape(3, 4)
    assert repr(np.append(v, np.array([9.0]))) == (
        'array([1., 2., 4., 7., 9.])'
    )
    assert np.append(m, m[:1], axis=0).shape == (4, 4)
    assert repr(np.append(m[:1], m[:1])) == (
        'array([0., 1., 2., 3., 0., 1., 2., 3.])'
    )
    assert repr(np.insert(v, 1, 5.0)) == 'array([1., 5., 2., 4., 7.])'
    assert repr(np.insert(v, 1, np.array([8.0, 9.0]))) == (
        'array([1., 8., 9., 2., 4., 7.])'
    )
    assert repr(np.insert(np.array([1, 2], dtype='int32'), 1, 5)) == (
        'array([1, 5, 2], dtype=int32)'
    )
    # NumPy's forms that MXNet 1.9.1 rejects: lists of positions, axes
    assert repr(np.insert(v, [1, 3], np.array([5.0, 6.0]))) == (
        'array([1., 5., 2., 4., 6., 7.])'
    )
    assert (
        np.insert(m, 1, 0, axis=1).asnumpy().tolist()
        == onp.insert(onp.arange(12.0).reshape(3, 4), 1, 0, axis=1).tolist()
    )
    assert repr(np.delete(v, 1)) == 'array([1., 4., 7.])'
    assert repr(np.delete(v, slice(1, 3))) == 'array([1., 7.])'
    assert repr(np.delete(v, -1)) == 'array([1., 2., 4.])'
    assert repr(np.delete(m, 1, axis=0)) == (
        'array([[ 0.,  1.,  2.,  3.],\n       [ 8.,  9., 10., 11.]])'
    )
    gx, gy = _grads(
        lambda x, y: np.insert(x, 1, y) * np.arange(4), [1, 2, 3], [5]
    )
    assert gx.tolist() == [0.0, 2.0, 3.0] and gy.tolist() == [1.0]
    (g,) = _grads(lambda x: np.delete(x, 1) * np.arange(2), [1, 2, 3])
    assert g.tolist() == [0.0, 0.0, 1.0]
    with pytest.raises(DLBookError, match='out of bounds'):
        np.delete(v, 10)


def test_atleast_and_stacks():
    v = np.array([1.0, 2.0])
    assert repr(np.atleast_1d(np.array(1.0))) == 'array([1.])'
    assert [a.shape for a in np.atleast_1d(np.array(1.0), v)] == [(1,), (2,)]
    assert np.atleast_2d(v).shape == (1, 2)
    assert np.atleast_3d(v).shape == (1, 2, 1)
    assert np.atleast_3d(np.ones((3, 4))).shape == (3, 4, 1)
    assert np.atleast_3d(np.array(1.0)).shape == (1, 1, 1)
    assert repr(np.column_stack((v, v))) == (
        'array([[1., 1.],\n       [2., 2.]])'
    )
    assert np.dstack((np.ones((3, 4)), np.ones((3, 4)))).shape == (3, 4, 2)
    (g,) = _grads(
        lambda x: np.column_stack((x, x)) * np.arange(4).reshape(2, 2),
        [1, 2],
    )
    assert g.tolist() == [1.0, 5.0]


def test_splits_and_flips():
    parts = np.array_split(np.arange(5), 3)
    assert [repr(p) for p in parts] == [
        'array([0., 1.])',
        'array([2., 3.])',
        'array([4.])',
    ]
    assert [repr(p) for p in np.array_split(np.arange(2), 3)] == [
        'array([0.])',
        'array([1.])',
        'array([])',
    ]
    m = np.arange(12).reshape(3, 4)
    assert [p.shape for p in np.hsplit(m, 2)] == [(3, 2), (3, 2)]
    assert [p.shape for p in np.vsplit(m, [1])] == [(1, 4), (2, 4)]
    assert [p.shape for p in np.dsplit(np.ones((2, 2, 2)), 2)] == [
        (2, 2, 1),
        (2, 2, 1),
    ]
    with pytest.raises(DLBookError, match='2 or more dimensions'):
        np.vsplit(np.ones(4), 2)
    (g,) = _grads(lambda x: np.array_split(x, 2)[0] * 2, [1, 2, 3])
    assert g.tolist() == [2.0, 2.0, 0.0]
    assert repr(np.flipud(np.array([1.0, 2.0, 4.0]))) == (
        'array([4., 2., 1.])'
    )
    assert np.fliplr(m)[0].asnumpy().tolist() == [3.0, 2.0, 1.0, 0.0]
    with pytest.raises(DLBookError, match='>= 2-d'):
        np.fliplr(np.ones(3))


# -- einsum, statistics, creation --------------------------------------------------


def test_einsum():
    m = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 1.0]])
    assert repr(np.einsum('ij,jk->ik', m, m.T)) == (
        'array([[ 5.,  2.],\n       [ 2., 10.]])'
    )
    assert repr(np.einsum('ij,jk', m, m.T)) == (
        'array([[ 5.,  2.],\n       [ 2., 10.]])'
    )
    assert repr(np.einsum('ii', np.eye(3))) == 'array(3.)'
    assert repr(np.einsum('ij->', m)) == 'array(7.)'
    ints = np.array([1, 2], dtype='int32')
    assert repr(np.einsum('i,i', ints, ints)) == 'array(5, dtype=int32)'
    assert np.einsum('...ij->...ji', m).shape == (3, 2)
    ga, gb = _grads(
        lambda x, y: np.einsum('ij,j->i', x, y) * np.array([1.0, 2.0]),
        [[1, 2], [3, 4]],
        [5, 6],
    )
    assert ga.tolist() == [[5.0, 6.0], [10.0, 12.0]]
    assert gb.tolist() == [7.0, 10.0]
    (g,) = _grads(lambda x: np.einsum('ii', x), [[1, 2], [3, 4]])
    assert g.tolist() == [[1.0, 0.0], [0.0, 1.0]]
    with pytest.raises(DLBookError, match='subscripts'):
        np.einsum(m, m)


def test_bincount_average_logspace():
    idx = np.array([0, 1, 1, 3], dtype='int64')
    assert repr(np.bincount(idx)) == 'array([1, 2, 0, 1], dtype=int64)'
    w = np.array([0.5, 1.0, 1.0, 2.0])
    assert repr(np.bincount(idx, weights=w)) == 'array([0.5, 2. , 0. , 2. ])'
    assert repr(np.bincount(np.array([0, 1], dtype='int64'), minlength=4)) == (
        'array([1, 1, 0, 0], dtype=int64)'
    )
    with pytest.raises(DLBookError, match='non-negative'):
        np.bincount(np.array([-1, 1], dtype='int64'))
    m = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 1.0]])
    assert repr(np.average(np.array([1.0, 2.0, 4.0, 7.0]))) == 'array(3.5)'
    assert repr(np.average(m, axis=1, weights=np.array([1.0, 2.0, 1.0]))) == (
        'array([0.75, 1.75])'
    )
    avg, count = np.average(m, axis=0, returned=True)
    assert repr(avg) == 'array([0.5, 1.5, 1.5])' and repr(count) == 'array(2.)'
    assert repr(np.average(np.array([1, 2], dtype='int32'))) == (
        'array(1, dtype=int32)'
    )
    gx, gw = _grads(lambda x, w: np.average(x, weights=w), [1, 2], [1, 3])
    onp.testing.assert_allclose(gx, [0.25, 0.75])
    onp.testing.assert_allclose(gw, [-0.1875, 0.0625])
    assert repr(np.logspace(0, 2, 3)) == 'array([  1.,  10., 100.])'
    assert repr(np.logspace(0, 2, 3, dtype='int32')) == (
        'array([  1,  10, 100], dtype=int32)'
    )
    onp.testing.assert_allclose(
        np.logspace(0, 3, 4, base=2.0, endpoint=False).asnumpy(),
        [1.0, 1.6817929, 2.828427, 4.7568283],
        rtol=1e-6,
    )


def test_fallbacks_behave_as_mxnet():
    m = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 1.0]])
    v = np.array([1.0, 2.0, 4.0, 7.0])
    assert np.allclose(v, v + 1e-9) is True
    assert np.array_equal(v, m) is False
    assert int(np.count_nonzero(m)) == 4
    assert repr(np.count_nonzero(m, axis=0)) == (
        'array([1, 1, 2], dtype=int64)'
    )
    assert repr(np.isclose(v, np.array([1.0, 2.1, 4.0, onp.nan]))) == (
        'array([ True, False,  True, False])'
    )
    assert repr(np.cov(m)) == (
        'array([[ 1.        , -1.        ],\n'
        '       [-1.        ,  2.33333333]], dtype=float64)'
    )
    assert repr(np.corrcoef(m)) == (
        'array([[ 1.        , -0.65465367],\n'
        '       [-0.65465367,  1.        ]], dtype=float64)'
    )
    assert repr(np.argwhere(m)) == (
        'array([[0, 0],\n       [0, 2],\n       [1, 1],\n       [1, 2]], '
        'dtype=int64)'
    )
    assert repr(np.flatnonzero(m)) == 'array([0, 2, 4, 5], dtype=int64)'
    assert int(np.nanargmax(np.array([1.0, onp.nan, 3.0]))) == 2
    assert (
        repr(
            np.interp(
                np.array([0.5, 1.5, 5.0]),
                np.array([0.0, 1.0, 2.0]),
                np.array([0.0, 10.0, 20.0]),
            )
        )
        == 'array([ 5., 15., 20.], dtype=float64)'
    )
    assert repr(np.heaviside(np.array([-1.0, 0.0, 2.0]), 0.5)) == (
        'array([0. , 0.5, 1. ])'
    )
    assert repr(np.float_power(v, 2)) == (
        'array([ 1.,  4., 16., 49.], dtype=float64)'
    )
    assert isinstance(np.cov(m), np.ndarray)


# -- random -------------------------------------------------------------------------


@pytest.mark.parametrize(
    'name, args, mean',
    [
        ('beta', (2.0, 3.0), 0.4),
        ('chisquare', (3.0,), 3.0),
        ('exponential', (2.0,), 2.0),
        ('gamma', (2.0, 3.0), 6.0),
        ('gumbel', (1.0, 2.0), 1.0 + 2.0 * 0.5772157),
        ('logistic', (1.0, 2.0), 1.0),
        ('lognormal', (0.0, 1.0), onp.exp(0.5)),
        ('pareto', (3.0,), 0.5),
        ('power', (3.0,), 0.75),
        ('rayleigh', (2.0,), 2.0 * onp.sqrt(onp.pi / 2)),
        ('weibull', (2.0,), 0.8862269),
    ],
)
def test_random_shapes_dtypes_means(name, args, mean):
    f = getattr(np.random, name)
    np.random.seed(0)
    one = f(*args)
    assert one.shape == () and one.dtype == onp.float32
    assert f(*args, size=(2, 3)).shape == (2, 3)
    big = f(*args, size=(20000,)).asnumpy()
    assert abs(big.mean() - mean) < 0.1 * max(1.0, mean)
    assert f(*[np.array([a, a]) for a in args]).shape == (2,)
    np.random.seed(1)
    first = f(*args, size=4).asnumpy()
    np.random.seed(1)
    assert (f(*args, size=4).asnumpy() == first).all()


@pytest.mark.parametrize(
    'name, args',
    [
        ('exponential', (2.0,)),
        ('gumbel', (1.0, 2.0)),
        ('logistic', (1.0, 2.0)),
        ('lognormal', (0.0, 1.0)),
        ('pareto', (3.0,)),
        ('rayleigh', (2.0,)),
        ('weibull', (2.0,)),
    ],
)
def test_random_reparameterized_gradients(name, args):
    """The gradient of a sample y(p) with respect to an array parameter p,
    checked against y's own value (the transforms are known)."""
    f = getattr(np.random, name)
    params = [np.array([a, a]) for a in args]
    for p in params:
        p.attach_grad()
    with autograd.record():
        y = f(*params)
    y.backward()
    y = y.asnumpy()
    g = [p.grad.asnumpy() for p in params]
    a = args[-1] if name not in ('pareto', 'weibull') else args[0]
    if name == 'exponential' or name == 'rayleigh':
        onp.testing.assert_allclose(g[0], y / a, rtol=1e-5)
    elif name in ('gumbel', 'logistic'):
        onp.testing.assert_allclose(g[0], [1.0, 1.0])
        onp.testing.assert_allclose(g[1], (y - args[0]) / a, rtol=1e-4)
    elif name == 'lognormal':
        onp.testing.assert_allclose(g[0], y, rtol=1e-5)
    elif name == 'pareto':  # y = exp(E / a) - 1
        e = onp.log1p(y) * a
        onp.testing.assert_allclose(
            g[0], -(y + 1) * e / a**2, rtol=1e-4, atol=1e-6
        )
    elif name == 'weibull':  # y = E ** (1 / a)
        onp.testing.assert_allclose(
            g[0], -y * onp.log(y) / a, rtol=1e-4, atol=1e-6
        )


def test_multivariate_normal_and_errors():
    np.random.seed(0)
    mean = np.array([0.0, 1.0])
    cov = np.array([[1.0, 0.5], [0.5, 4.0]])
    one = np.random.multivariate_normal(mean, cov)
    assert one.shape == (2,) and one.dtype == onp.float32
    s = np.random.multivariate_normal(mean, cov, size=(20000,)).asnumpy()
    onp.testing.assert_allclose(s.mean(axis=0), [0.0, 1.0], atol=0.05)
    onp.testing.assert_allclose(onp.cov(s.T), cov.asnumpy(), atol=0.1)
    with pytest.raises(DLBookError, match='scale must be >= 0'):
        np.random.exponential(-1.0)


# -- linalg -------------------------------------------------------------------------


def test_linalg_more():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    L = np.linalg
    assert repr(L.matrix_power(a, 2)) == (
        'array([[ 7., 10.],\n       [15., 22.]])'
    )
    assert repr(L.matrix_power(a, 0)) == 'array([[1., 0.],\n       [0., 1.]])'
    onp.testing.assert_allclose(
        L.matrix_power(a, -1).asnumpy(), [[-2.0, 1.0], [1.5, -0.5]], atol=1e-6
    )
    assert repr(L.multi_dot([a, a, np.array([1.0, 1.0])])) == (
        'array([17., 37.])'
    )
    onp.testing.assert_allclose(float(L.cond(a)), 14.933034, rtol=1e-6)
    assert float(L.cond(a, 1)) == 21.0
    assert int(L.matrix_rank(np.array([[1.0, 2.0], [2.0, 4.0]]))) == 1
    assert repr(L.matrix_rank(np.ones((2, 3, 3)))) == (
        'array([1, 1], dtype=int64)'
    )
    x, res, rank, sv = L.lstsq(
        np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]),
        np.array([1.0, 2.0, 2.0]),
        rcond=None,
    )
    assert repr(x) == 'array([1.1666666, 0.5      ])' and int(rank) == 2
    assert L.tensorinv(np.eye(4).reshape(4, 2, 2), ind=1).shape == (2, 2, 4)
    onp.testing.assert_allclose(
        L.tensorsolve(a, np.array([1.0, 2.0])).asnumpy(), [0.0, 0.5], atol=1e-6
    )
    (g,) = _grads(lambda x: L.tensorinv(x, ind=1).sum(), [[1, 2], [3, 4]])
    onp.testing.assert_allclose(g, [[-0.5, 0.5], [0.5, -0.5]], atol=1e-5)
    ga, gb = _grads(
        lambda x, y: L.tensorsolve(x, y).sum(), [[1, 2], [3, 4]], [1, 2]
    )
    onp.testing.assert_allclose(ga, [[0.0, 0.25], [0.0, -0.25]], atol=1e-5)
    onp.testing.assert_allclose(gb, [-0.5, 0.5], atol=1e-5)
    # a gradient MXNet 1.9.1 lacks (it falls back to NumPy)
    (g,) = _grads(lambda x: L.matrix_power(x, 2).sum(), [[1, 2], [3, 4]])
    assert g.tolist() == [[7.0, 11.0], [9.0, 13.0]]
