"""The last ``mx.np`` names of MXNet 1.9.1: expected values are MXNet
1.9.1's own results (recorded with mxnet, which the tests never import)."""

import numpy as onp
import pytest

from dlbook import autograd, np
from dlbook.base import DLBookError


def same(a, expected, dtype=None):
    got = a.asnumpy()
    onp.testing.assert_allclose(
        got, onp.asarray(expected), rtol=1e-6, atol=1e-7
    )
    if dtype is not None:
        assert str(a.dtype) == dtype
    assert isinstance(a, np.ndarray)


HALVES = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.25, 1.245]


@pytest.mark.parametrize('name', ['around', 'round', 'round_'])
def test_around_rounds_half_to_even(name):
    f = getattr(np, name)
    same(f(np.array(HALVES)), [-2, -2, 0, 0, 2, 2, 0, 1], 'float32')


def test_around_decimals_and_integers():
    same(
        np.around(np.array([1.25, 1.35, -1.25, 12.5, 0.05]), 1),
        [1.2, 1.4, -1.2, 12.5, 0.0],
    )
    same(
        np.around(np.array([15.0, 25.0, -15.0, 123.0]), -1), [20, 20, -20, 120]
    )
    # MXNet's integer arithmetic truncates (15 -> 10, not 20)
    same(
        np.around(np.array([1, 2, 15], dtype='int32'), -1), [0, 0, 10], 'int32'
    )
    same(np.around(np.array([1, 2, 15], dtype='int32')), [1, 2, 15], 'int32')
    same(np.around(np.array([1.5, 2.5], dtype='float64')), [2, 2], 'float64')
    assert np.around(np.array(2.5)).shape == ()
    assert np.around(2.5) == 2.0
    with pytest.raises(TypeError):
        np.round([1.5])


def test_ndarray_round_method_is_around():
    same(np.array(HALVES).round(), [-2, -2, 0, 0, 2, 2, 0, 1])


def test_around_gradient_is_zero():
    a = np.array([1.5, 2.5, 3.2])
    a.attach_grad()
    with autograd.record():
        y = np.around(a)
    y.backward()
    same(a.grad, [0, 0, 0])


def test_bitwise():
    i = np.array([12, 10, 7], dtype='int32')
    j = np.array([10, 3, 5], dtype='int32')
    same(np.bitwise_and(i, j), [8, 2, 5], 'int32')
    same(np.bitwise_or(i, j), [14, 11, 7], 'int32')
    same(np.bitwise_xor(i, j), [6, 9, 2], 'int32')
    same(np.bitwise_not(i), [-13, -11, -8], 'int32')
    same(np.invert(i), [-13, -11, -8], 'int32')
    same(i & j, [8, 2, 5])
    same(i | j, [14, 11, 7])
    same(i ^ j, [6, 9, 2])
    same(~i, [-13, -11, -8])
    same(np.bitwise_and(i, 6), [4, 2, 6], 'int32')
    same(np.bitwise_and(6, i), [4, 2, 6], 'int32')
    assert np.bitwise_and(13, 17) == 1
    assert np.bitwise_not(5) == -6
    same(
        np.bitwise_or(
            np.array([[1], [2]], dtype='int32'),
            np.array([4, 8], dtype='int32'),
        ),
        [[5, 9], [6, 10]],
    )
    same(
        np.bitwise_xor(
            np.array([255, 1], dtype='uint8'), np.array([1, 1], dtype='uint8')
        ),
        [254, 0],
        'uint8',
    )
    same(np.bitwise_not(np.array([0, 1], dtype='uint8')), [255, 254], 'uint8')
    for bad in (np.array([1.0, 2.0]), np.array([True, False])):
        with pytest.raises(DLBookError):
            np.bitwise_not(bad)
        with pytest.raises(DLBookError):
            np.bitwise_and(bad, bad)


def test_lcm():
    same(
        np.lcm(
            np.array([12, 20, 0, -4], dtype='int32'),
            np.array([20, 6, 5, 6], dtype='int32'),
        ),
        [60, 60, 0, 12],
        'int32',
    )
    same(np.lcm(np.array([12, 20], dtype='int64'), 8), [24, 40], 'int64')
    same(np.lcm(8, np.array([12, 20], dtype='int64')), [24, 40], 'int64')
    assert np.lcm(12, 20) == 60
    with pytest.raises(DLBookError):
        np.lcm(np.array([1.0]), np.array([3.0]))


def test_windows():
    same(
        np.blackman(5),
        [
            -1.4901161e-08,
            3.4000003e-01,
            9.9999994e-01,
            3.3999997e-01,
            -1.4901161e-08,
        ],
        'float32',
    )
    same(np.hamming(5), [0.08000001, 0.54, 1.0, 0.54, 0.08000001], 'float32')
    same(np.hanning(5), [0, 0.5, 1, 0.5, 0], 'float32')
    for f in (np.blackman, np.hamming, np.hanning):
        same(f(1), [1.0], 'float32')
        assert f(0).shape == (0,) and f(-2).shape == (0,)
        same(f(3, dtype='int32'), [0, 0, 0], 'int32')
    # MXNet computes the angle in float32 even for float64 windows: the
    # last end is 2.7e-15, not the float64 angle's -1.4e-17 (its cos may
    # differ by an ulp between NumPy versions, hence the tolerance)
    b = np.blackman(3, dtype='float64').asnumpy()
    assert b.dtype == onp.float64
    onp.testing.assert_allclose(
        b, [-1.38777878e-17, 1.0, 2.74780199e-15], atol=1e-16
    )
    assert b[2] > 1e-15
    h = np.hanning(3, dtype='float64').asnumpy()
    onp.testing.assert_allclose(h, [0.0, 1.0, 7.66053887e-15], atol=1e-20)
    onp.testing.assert_allclose(
        np.hamming(3, dtype='float64').asnumpy(), [0.08, 1, 0.08]
    )
    assert np.blackman(3, dtype='float16').asnumpy().tolist() == [
        -6.103515625e-05,
        1.0,
        -6.103515625e-05,
    ]
    assert np.hamming(3, dtype='float16').asnumpy().tolist() == [
        0.080078125,
        1.0,
        0.080078125,
    ]


def test_broadcast_arrays():
    a, b = np.broadcast_arrays(
        np.array([[1.0], [2.0]]), np.array([1, 2, 3], dtype='int32')
    )
    same(a, [[1, 1, 1], [2, 2, 2]], 'float32')
    same(b, [[1, 2, 3], [1, 2, 3]], 'int32')
    x = np.ones((2, 3))
    out = np.broadcast_arrays(x, x)
    assert isinstance(out, list) and out[0] is x
    with pytest.raises(ValueError):
        np.broadcast_arrays(np.ones(2), np.ones(3))
    v = np.array([1.0, 2.0])
    v.attach_grad()
    with autograd.record():
        y, _ = np.broadcast_arrays(v, np.ones((3, 2)))
    y.backward()
    same(v.grad, [3, 3])


def test_diag_indices_from():
    r = np.diag_indices_from(np.ones((3, 3)))
    assert isinstance(r, tuple) and len(r) == 2
    for part in r:
        same(part, [0, 1, 2], 'int64')
    assert len(np.diag_indices_from(np.ones((2, 2, 2)))) == 3
    with pytest.raises(DLBookError):
        np.diag_indices_from(np.ones((2, 3)))
    with pytest.raises(DLBookError):
        np.diag_indices_from(np.ones((2,)))


def test_histogram():
    h = np.array([1.0, 2.0, 2.0, 3.0, 5.0, 0.5])
    counts, edges = np.histogram(h, bins=4, range=(0, 6))
    same(counts, [2, 2, 1, 1], 'int64')
    same(edges, [0, 1.5, 3, 4.5, 6], 'float32')
    out = np.histogram(h, bins=np.array([0.0, 1.0, 2.0, 4.0, 6.0]))
    assert isinstance(out, list)
    same(out[0], [1, 1, 3, 1], 'int64')
    same(out[1], [0, 1, 2, 4, 6], 'float32')
    counts, edges = np.histogram(
        np.array([1, 2, 3], dtype='int32'), bins=3, range=(0, 3)
    )
    same(counts, [0, 1, 2], 'int64')
    same(edges, [0, 1, 2, 3], 'int32')
    with pytest.raises(NotImplementedError):
        np.histogram(h, bins=4)


def test_indices():
    same(
        np.indices((2, 3)),
        [[[0, 0, 0], [1, 1, 1]], [[0, 1, 2], [0, 1, 2]]],
        'int32',
    )
    same(np.indices((2,), dtype='float32'), [[0, 1]], 'float32')
    e = np.indices(())
    assert e.shape == (0,) and e.dtype == onp.int32
    with pytest.raises(ValueError):
        np.indices(3)


def test_product_sometrue():
    a = np.arange(6, dtype='float32').reshape(2, 3)
    same(np.product(a + 1), 720.0, 'float32')
    same(np.product(a + 1, axis=0), [4, 10, 18])
    same(np.product(np.array([1, 2, 3], dtype='int32')), 6, 'int32')
    same(np.sometrue(a), True, 'bool')
    same(np.sometrue(a > 3, axis=1), [False, True], 'bool')


def test_resize():
    a = np.arange(6, dtype='float32').reshape(2, 3)
    same(
        np.resize(a, (3, 4)),
        [[0, 1, 2, 3], [4, 5, 0, 1], [2, 3, 4, 5]],
        'float32',
    )
    same(np.resize(a, 4), [0, 1, 2, 3], 'float32')
    assert np.resize(a, (0,)).shape == (0,)
    same(np.resize(np.array([1, 2], dtype='int32'), (3,)), [1, 2, 1], 'int32')


def test_shares_memory():
    a = np.arange(6, dtype='float32').reshape(2, 3)
    assert np.shares_memory(a, a) is True
    assert np.shares_memory(a, a.copy()) is False
    assert np.shares_memory(a, a[0]) is True
    assert np.shares_memory(a[0], a[1]) is False
    assert np.shares_memory(a, a.reshape(6)) is False


def test_unravel_index():
    r = np.unravel_index(np.array([22, 41, 37], dtype='int32'), (7, 6))
    assert isinstance(r, tuple)
    same(r[0], [3, 6, 6], 'int32')
    same(r[1], [4, 5, 1], 'int32')
    r = np.unravel_index(np.array([22, 41, 37], dtype='int64'), (7, 6))
    same(r[0], [3, 6, 6], 'int64')
    assert np.unravel_index(22, (7, 6)) == (3, 4)
    with pytest.raises(NotImplementedError):
        np.unravel_index(np.array([1], dtype='int32'), (2, 3), order='F')
    with pytest.raises(DLBookError):  # MXNet: only int indices permitted
        np.unravel_index(np.array([22.0]), (7, 6))


A = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def test_pad_modes():
    a = np.array(A)
    w = ((1, 1), (2, 1))
    same(
        np.pad(a, w),
        [
            [0, 0, 0, 0, 0, 0],
            [0, 0, 1, 2, 3, 0],
            [0, 0, 4, 5, 6, 0],
            [0, 0, 0, 0, 0, 0],
        ],
        'float32',
    )
    same(
        np.pad(a, w, mode='edge'),
        [
            [1, 1, 1, 2, 3, 3],
            [1, 1, 1, 2, 3, 3],
            [4, 4, 4, 5, 6, 6],
            [4, 4, 4, 5, 6, 6],
        ],
    )
    same(
        np.pad(a, w, mode='reflect'),
        [
            [6, 5, 4, 5, 6, 5],
            [3, 2, 1, 2, 3, 2],
            [6, 5, 4, 5, 6, 5],
            [3, 2, 1, 2, 3, 2],
        ],
    )
    same(
        np.pad(a, w, mode='symmetric'),
        [
            [2, 1, 1, 2, 3, 3],
            [2, 1, 1, 2, 3, 3],
            [5, 4, 4, 5, 6, 6],
            [5, 4, 4, 5, 6, 6],
        ],
    )
    same(
        np.pad(a, w, mode='maximum'),
        [
            [6, 6, 4, 5, 6, 6],
            [3, 3, 1, 2, 3, 3],
            [6, 6, 4, 5, 6, 6],
            [6, 6, 4, 5, 6, 6],
        ],
    )
    same(
        np.pad(a, w, mode='minimum'),
        [
            [1, 1, 1, 2, 3, 1],
            [1, 1, 1, 2, 3, 1],
            [4, 4, 4, 5, 6, 4],
            [1, 1, 1, 2, 3, 1],
        ],
    )
    big = np.pad(a, ((2, 2), (3, 3)), mode='reflect').asnumpy()
    assert big[0].tolist() == [2, 3, 2, 1, 2, 3, 2, 1, 2]
    big = np.pad(a, ((2, 2), (3, 3)), mode='symmetric').asnumpy()
    assert big[0].tolist() == [6, 5, 4, 4, 5, 6, 6, 5, 4]
    same(
        np.pad(np.ones((1, 1, 2)), ((1, 0), (0, 1), (1, 1))),
        [[[0, 0, 0, 0], [0, 0, 0, 0]], [[0, 1, 1, 0], [0, 0, 0, 0]]],
    )
    same(
        np.pad(np.array([[1, 2]], dtype='int32'), ((1, 1), (1, 1))),
        [[0, 0, 0, 0], [0, 1, 2, 0], [0, 0, 0, 0]],
        'int32',
    )


def test_pad_constant_values_and_1d():
    # MXNet 1.9.1 ignores constant_values (always 0) and fails on 1-d
    # arrays: dlbook gives NumPy's results there.
    same(np.pad(np.array(A), ((1, 1), (1, 1)), constant_values=9)[0], [9] * 5)
    same(np.pad(np.array([1.0, 2.0]), ((1, 2),), mode='edge'), [1, 1, 2, 2, 2])


def test_pad_errors():
    v = np.array(A)
    with pytest.raises(TypeError):
        np.pad(v, 2)
    with pytest.raises(TypeError):
        np.pad(v, [[1, 1], [1, 1]])
    with pytest.raises(TypeError):
        np.pad(v, ((1.0, 1.0),))
    for mode in ('wrap', 'mean', 'median', 'linear_ramp', 'empty'):
        with pytest.raises(ValueError, match='not supported'):
            np.pad(v, ((1, 1), (1, 1)), mode=mode)
    with pytest.raises(ValueError, match='reflect_type'):
        np.pad(v, ((1, 1), (1, 1)), mode='reflect', reflect_type='odd')
    with pytest.raises(ValueError, match='stat_length'):
        np.pad(v, ((1, 1), (1, 1)), mode='maximum', stat_length=2)
    with pytest.raises(ValueError, match='constant_values keyword'):
        np.pad(v, ((1, 1), (1, 1)), mode='edge', constant_values=2)


def test_pad_gradient_constant_only():
    a = np.array(A)
    a.attach_grad()
    with autograd.record():
        y = np.pad(a, ((1, 1), (2, 1)))
    y.backward()
    same(a.grad, [[1, 1, 1], [1, 1, 1]])
    with autograd.record():
        y = np.pad(a, ((1, 1), (2, 1)), mode='edge')
    with pytest.raises(DLBookError, match='constant'):
        y.backward()


def _grad(f, x, head):
    x = x.copy()
    x.attach_grad()
    with autograd.record():
        y = f(x)
    y.backward(head)
    return x.grad


def test_roll():
    v = np.arange(1, 5, dtype='float32')
    a = np.array(A)
    same(np.roll(v, 1), [4, 1, 2, 3], 'float32')
    same(np.roll(a, 1), [[6, 1, 2], [3, 4, 5]])
    same(np.roll(a, -1, axis=1), [[2, 3, 1], [5, 6, 4]])
    same(np.roll(a, (1, 2), axis=(0, 1)), [[5, 6, 4], [2, 3, 1]])
    same(np.roll(a, 1, axis=(0, 1)), [[6, 4, 5], [3, 1, 2]])
    same(np.roll(np.array([1, 2, 3], dtype='int32'), 1), [3, 1, 2], 'int32')
    head = np.arange(6, dtype='float32').reshape(2, 3)
    same(
        _grad(lambda x: np.roll(x, 1, axis=1), a, head), [[1, 2, 0], [4, 5, 3]]
    )
    same(_grad(lambda x: np.roll(x, 2), a, head), [[2, 3, 4], [5, 0, 1]])
    with pytest.raises(DLBookError):
        np.roll(a, (1, 2))


def test_rot90():
    a = np.array(A)
    same(np.rot90(a), [[3, 6], [2, 5], [1, 4]], 'float32')
    same(np.rot90(a, 2), [[6, 5, 4], [3, 2, 1]])
    same(np.rot90(a, -1), [[4, 1], [5, 2], [6, 3]])
    same(np.rot90(a, 5), [[3, 6], [2, 5], [1, 4]])
    same(np.rot90(a, 1, axes=(1, 0)), [[4, 1], [5, 2], [6, 3]])
    same(
        np.rot90(np.arange(8).reshape(2, 2, 2), 1, (1, 2)),
        [[[1, 3], [0, 2]], [[5, 7], [4, 6]]],
    )
    with pytest.raises(DLBookError):
        np.rot90(np.ones(3))
    with pytest.raises(DLBookError):
        np.rot90(a, 1, (0, 0))


def test_rot90_gradient_is_the_inverse_rotation():
    # MXNet 1.9.1 rotates the output gradient the same way as the input
    # ([[1, 3, 5], [0, 2, 4]] here), which is wrong except for k=2;
    # dlbook gives the true gradient.
    head = np.arange(6, dtype='float32').reshape(3, 2)
    same(_grad(np.rot90, np.array(A), head), [[4, 2, 0], [5, 3, 1]])


def test_tril():
    a = np.array(A)
    same(np.tril(a), [[1, 0, 0], [4, 5, 0]], 'float32')
    same(np.tril(a, 1), [[1, 2, 0], [4, 5, 6]])
    same(np.tril(a, -1), [[0, 0, 0], [4, 0, 0]])
    same(
        np.tril(np.arange(1, 5, dtype='float32')),
        [[1, 0, 0, 0], [1, 2, 0, 0], [1, 2, 3, 0], [1, 2, 3, 4]],
    )
    same(np.tril(np.ones((2, 2, 3))), [[[1, 0, 0], [1, 1, 0]]] * 2)
    same(
        np.tril(np.array([[1, 2], [3, 4]], dtype='int32')),
        [[1, 0], [3, 4]],
        'int32',
    )
    same(_grad(np.tril, a, np.ones((2, 3))), [[1, 0, 0], [1, 1, 0]])
    same(
        _grad(np.tril, np.arange(3, dtype='float32'), np.ones((3, 3))),
        [3, 2, 1],
    )


Q = [[10.0, 7.0, 4.0], [3.0, 2.0, 1.0]]


def test_percentile():
    q = np.array(Q)
    r = np.percentile(q, 50)
    assert r.shape == ()
    same(r, 3.5, 'float32')
    same(np.percentile(q, 50, axis=0), [6.5, 4.5, 2.5])
    same(np.percentile(q, 50, axis=1, keepdims=True), [[7], [2]])
    same(np.percentile(q, np.array([25.0, 75.0])), [2.25, 6.25])
    same(
        np.percentile(q, np.array([25.0, 75.0]), axis=1),
        [[5.5, 1.5], [8.5, 2.5]],
    )
    same(np.percentile(q, 50, axis=-1), [7, 2])
    assert np.percentile(q, np.array(50.0)).shape == ()
    expected = {
        'linear': 3.25,
        'lower': 3,
        'higher': 4,
        'midpoint': 3.5,
        'nearest': 3,
    }
    for method, value in expected.items():
        same(np.percentile(q, 45, interpolation=method), value)
    five = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    qs = np.array([12.5, 37.5, 62.5, 87.5])
    # MXNet's 'nearest' rounds half positions up (NumPy: to even)
    same(np.percentile(five, qs, interpolation='nearest'), [2, 3, 4, 5])
    same(np.percentile(five, qs, interpolation='lower'), [1, 2, 3, 4])
    same(np.percentile(five, qs, interpolation='higher'), [2, 3, 4, 5])
    same(
        np.percentile(five, qs, interpolation='midpoint'), [1.5, 2.5, 3.5, 4.5]
    )
    same(
        np.percentile(np.array([1, 2, 3, 4], dtype='int32'), 50),
        2.5,
        'float32',
    )
    same(
        np.percentile(
            np.array([1, 2, 3, 4], dtype='int32'), 50, interpolation='lower'
        ),
        2,
        'float32',
    )
    same(
        np.percentile(np.array([1.0, 2.0], dtype='float16'), 50),
        1.5,
        'float32',
    )
    same(
        np.percentile(np.array([1, 2, 3, 4], dtype='float64'), 50),
        2.5,
        'float64',
    )
    same(np.percentile(np.ones((2, 3, 4)), 50, axis=(0, 2)), [1, 1, 1])
    with pytest.raises(DLBookError, match='valid range'):
        np.percentile(q, 150)
    with pytest.raises(DLBookError, match='Invalid Input'):
        np.percentile(q, 45, interpolation='foo')
    with pytest.raises(DLBookError):
        np.percentile(q, np.array([[50.0, 25.0]]))


def test_quantile_and_zero_gradient():
    q = np.array(Q)
    same(np.quantile(q, 0.5), 3.5)
    same(
        np.quantile(q, np.array([0.25, 0.75]), axis=0),
        [[4.75, 3.25, 1.75], [8.25, 5.75, 3.25]],
    )
    with pytest.raises(DLBookError, match='valid range'):
        np.quantile(q, 1.5)
    same(
        _grad(lambda x: np.percentile(x, 50), q, None), [[0, 0, 0], [0, 0, 0]]
    )


def test_polyval():
    same(
        np.polyval(np.array([3.0, 0.0, 1.0]), np.array([5.0, 1.0])),
        [76, 4],
        'float32',
    )
    same(
        np.polyval(
            np.array([3, 0, 1], dtype='int32'), np.array([5, 1], dtype='int32')
        ),
        [76, 4],
        'int32',
    )
    assert np.polyval([3, 0, 1], 5) == 76
    same(np.polyval(np.array([1.0, 2.0]), np.ones((2, 2))), [[3, 3], [3, 3]])
    with pytest.raises(TypeError):
        np.polyval(np.array([1.0, 2.0]), 3.0)
    p, x = np.array([3.0, 2.0, 1.0]), np.array([5.0, 1.0])
    p.attach_grad()
    x.attach_grad()
    with autograd.record():
        y = np.polyval(p, x)
    y.backward()
    same(p.grad, [26, 6, 2])
    same(x.grad, [32, 8])
