"""MXNet 1.x idioms that must keep working on every supported NumPy.

MXNet reductions return shape ``(1,)`` and scalar indexing of a 1-D array
returns shape ``(1,)``.  Books and scripts written for MXNet therefore
format, convert and assign one-element arrays freely.  NumPy 1.x allowed
all of it; NumPy 2.4 refuses a ``(1,)`` array where a scalar is needed.
These tests run on the newest NumPy and again, in CI, on the oldest one
``pyproject.toml`` declares.
"""

import numpy
import pytest

from dlbook import nd


@pytest.fixture
def loss(ctx):
    # mean of [1, 2, 3, 4] = 2.5: a reduction, so shape (1,) as in MXNet
    return nd.array([1.0, 2.0, 3.0, 4.0], ctx=ctx).mean()


def test_reduction_has_mxnet_shape(loss):
    assert loss.shape == (1,)
    assert loss.asnumpy().shape == (1,)


def test_percent_format_of_asnumpy(loss):
    assert (
        'epoch %d, loss %f' % (1, loss.asnumpy()) == 'epoch 1, loss 2.500000'
    )
    assert 'loss %.2f' % loss.asnumpy() == 'loss 2.50'
    assert '%d' % loss.asnumpy() == '2'


def test_python_scalar_conversions_of_asnumpy(loss):
    host = loss.asnumpy()
    assert float(host) == 2.5 and isinstance(float(host), float)
    assert int(host) == 2
    assert complex(host) == 2.5 + 0j
    # arithmetic on the host array keeps the rule
    assert float(host * 2 + 1) == 6.0


def test_conversions_of_ndarray_itself(loss):
    assert float(loss) == 2.5
    assert int(loss) == 2
    assert loss.asscalar() == 2.5
    assert isinstance(loss.asscalar(), numpy.float32)
    assert '%f' % loss.asscalar() == '2.500000'


def test_many_elements_still_refuse_scalar_conversion(ctx):
    host = nd.array([1.0, 2.0], ctx=ctx).asnumpy()
    with pytest.raises(TypeError, match='one element'):
        float(host)
    with pytest.raises(TypeError):
        int(host)


def test_asnumpy_is_a_plain_looking_numpy_array(ctx):
    host = nd.array([1.0, 2.0], ctx=ctx).asnumpy()
    assert isinstance(host, numpy.ndarray)
    assert repr(host) == 'array([1., 2.], dtype=float32)'
    assert str(host) == '[1. 2.]'
    # a copy: writing to it leaves the NDArray alone
    x = nd.array([1.0, 2.0], ctx=ctx)
    h = x.asnumpy()
    h[0] = 9
    assert x.asnumpy()[0] == 1.0


def test_elementwise_loop_assignment(ctx):
    # d2l's vector-addition timing loop: c[i] = a[i] + b[i]
    a = nd.array([1, 2, 3], ctx=ctx)
    b = nd.array([10, 20, 30], ctx=ctx)
    c = nd.zeros(3, ctx=ctx)
    for i in range(3):
        assert (a[i] + b[i]).shape == (1,)
        c[i] = a[i] + b[i]
    numpy.testing.assert_array_equal(c.asnumpy(), a.asnumpy() + b.asnumpy())


def test_counting_with_plus_equals(ctx):
    # dice counting: totals[k] += 1 reads and writes a (1,) element
    rolls = [2, 0, 2, 1, 2]
    totals = nd.zeros(3, ctx=ctx)
    for k in rolls:
        totals[k] += 1
    numpy.testing.assert_array_equal(
        totals.asnumpy(), numpy.bincount(rolls, minlength=3)
    )


def test_corr2d_scratch_loop(ctx):
    # d2l's corr2d: Y[i, j] = (X[i:i+h, j:j+w] * K).sum()
    xs = numpy.arange(16, dtype='float32').reshape(4, 4)
    ks = numpy.array([[0, 1], [2, 3]], dtype='float32')
    X, K = nd.array(xs, ctx=ctx), nd.array(ks, ctx=ctx)
    Y = nd.zeros((3, 3), ctx=ctx)
    for i in range(3):
        for j in range(3):
            Y[i, j] = (X[i : i + 2, j : j + 2] * K).sum()
    expected = numpy.array(
        [
            [(xs[i : i + 2, j : j + 2] * ks).sum() for j in range(3)]
            for i in range(3)
        ]
    )
    numpy.testing.assert_array_equal(Y.asnumpy(), expected)


@pytest.mark.parametrize(
    'value',
    [
        numpy.array([47.8], dtype='float32'),
        numpy.array([[47.8]], dtype='float64'),
        [47.8],
    ],
)
def test_one_element_host_values_into_one_element(ctx, value):
    b = nd.zeros(2, ctx=ctx)
    b[0] = value
    assert b.asnumpy()[0] == numpy.float32(47.8)
    assert b.asnumpy()[1] == 0


def test_one_element_value_broadcasts_into_a_slice(ctx):
    x = nd.zeros((2, 3), ctx=ctx)
    x[1] = nd.array([5.0], ctx=ctx)
    numpy.testing.assert_array_equal(x.asnumpy(), [[0, 0, 0], [5, 5, 5]])


def test_mismatched_value_still_names_shapes(ctx):
    x = nd.zeros((2, 3), ctx=ctx)
    with pytest.raises(Exception, match=r'\(2,\).*\(2, 3\)'):
        x[:] = nd.array([1.0, 2.0], ctx=ctx)


def test_reductions_of_host_arrays_are_numpy_scalars(ctx):
    host = nd.array([[1.0, 2.0], [3.0, 4.0]], ctx=ctx).asnumpy()
    assert isinstance(host.sum(), numpy.floating)
    assert isinstance(host.mean(), numpy.floating)
    assert isinstance(numpy.max(host), numpy.floating)
    assert isinstance((host > 2).sum(), numpy.integer)
    assert host.sum(axis=0).shape == (2,)


def test_asnumpy_type_prints_as_numpy_ndarray(ctx):
    import pickle

    host = nd.array([1.0, 2.0], ctx=ctx).asnumpy()
    assert type(host).__name__ == 'ndarray'
    assert str(type(host)) == "<class 'numpy.ndarray'>"
    restored = pickle.loads(pickle.dumps(host))
    assert type(restored) is numpy.ndarray
    numpy.testing.assert_array_equal(restored, host)


# MXNet 1.9.1 converts a number to the array's dtype as C does:
# uint8 [250, 3] + 300 gives [38, 47]; nd.full((2,), 300, dtype='uint8')
# gives [44, 44]; u[0] = 300 writes 44.  NumPy 2 raises OverflowError
# for the same Python ints (NEP 50).
def test_scalar_arithmetic_wraps_as_in_mxnet(ctx):
    u = nd.array([250, 3], dtype='uint8', ctx=ctx)
    numpy.testing.assert_array_equal((u + 300).asnumpy(), [38, 47])
    assert (u + 300).dtype == numpy.uint8
    numpy.testing.assert_array_equal((u - 10).asnumpy(), [240, 249])


def test_full_and_assignment_wrap_as_in_mxnet(ctx):
    numpy.testing.assert_array_equal(
        nd.full((2,), 300, dtype='uint8', ctx=ctx).asnumpy(), [44, 44]
    )
    u = nd.array([250, 3], dtype='uint8', ctx=ctx)
    u[0] = 300
    numpy.testing.assert_array_equal(u.asnumpy(), [44, 3])
    i = nd.array([1, 2], dtype='int32', ctx=ctx)
    i[1] = 7.9
    numpy.testing.assert_array_equal(i.asnumpy(), [1, 7])


def test_float_scalars_with_int_arrays_as_in_mxnet(ctx):
    # MXNet 1.9.1: int32 [1, 2] * 0.5 -> [0, 0]; + 1.7 -> [2, 3]
    i = nd.array([1, 2], dtype='int32', ctx=ctx)
    numpy.testing.assert_array_equal((i * 0.5).asnumpy(), [0, 0])
    numpy.testing.assert_array_equal((i + 1.7).asnumpy(), [2, 3])
    assert (i * 0.5).dtype == numpy.int32
