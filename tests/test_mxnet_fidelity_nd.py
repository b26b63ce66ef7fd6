"""NDArray and Parameter details compared with MXNet 1.9.1 (each expected
value was printed by MXNet 1.9.1 for the same expression)."""

import numpy as np
import pytest

import dlbook as mx
from dlbook import nd

A = nd.arange(24).reshape((2, 3, 4))


def test_array_of_a_number_or_0d_array_is_0d():
    # MXNet 1.9.1: shape (), value 5.0, dtype float32; repr '<NDArray  @cpu(0)>'
    for source in (np.array(5.0), np.array(5, dtype='int32'), 5):
        x = nd.array(source)
        assert x.shape == () and x.dtype == np.float32
        assert x.asscalar() == 5.0
    assert repr(nd.array(np.array(5.0))) == '\n5.0\n<NDArray  @cpu(0)>'
    assert nd.array([3]).shape == (1,)


@pytest.mark.parametrize(
    'key,shape,first',
    [
        # (key, MXNet 1.9.1 shape, first element)
        (1, (3, 4), 12.0),
        (-1, (3, 4), 12.0),
        ((slice(None), slice(None, None, 2)), (2, 2, 4), 0.0),
        ((slice(None), slice(None, None, -1)), (2, 3, 4), 8.0),
        ((1, 2), (4,), 20.0),
        ((1, slice(1, 3), slice(None, None, 2)), (2, 2), 16.0),
        ((Ellipsis, 1), (2, 3), 1.0),
        (None, (1, 2, 3, 4), 0.0),
    ],
)
def test_indexing_forms(key, shape, first):
    got = A[key]
    assert got.shape == shape
    assert got.asnumpy().ravel()[0] == first


def test_indexing_with_ndarrays_and_assignment_forms():
    # MXNet 1.9.1: a[nd.array([1, 0])][0, 0, 0] == 12, a[[1,0],[0,2]] rows
    assert A[nd.array([1, 0])].asnumpy()[0, 0, 0] == 12
    assert A[nd.array([1, 0]), nd.array([0, 2])].asnumpy()[:, 0].tolist() == [
        12.0,
        8.0,
    ]
    b = A.copy()
    b[0, 1, 2] = nd.array([5])  # one-element value
    b[1] = 7
    b[:, ::2] = 9
    assert b[0, 1, 2].asscalar() == 5.0
    assert b.asnumpy()[1, 1].tolist() == [7.0] * 4
    assert b.asnumpy()[:, 0].ravel().tolist() == [9.0] * 8


@pytest.mark.parametrize(
    'shape,kwargs,expected',
    [
        # MXNet 1.9.1 results for an array of shape (2, 3, 4)
        ((0, -1), {}, (2, 12)),
        ((-2,), {}, (2, 3, 4)),
        ((0, -2), {}, (2, 3, 4)),
        ((-3, 4), {}, (6, 4)),
        ((2, -3), {}, (2, 12)),
        ((-4, 1, 2, -2), {}, (1, 2, 3, 4)),
        ((0, 0, -4, 2, -1), {}, (2, 3, 2, 2)),
        ((-4, -1, 1, 3, 4), {}, (2, 1, 3, 4)),
        ((-1, 0), {'reverse': True}, (6, 4)),
    ],
)
def test_reshape_special_codes(shape, kwargs, expected):
    assert A.reshape(shape, **kwargs).shape == expected


def test_reshape_reverse_on_the_mxnet_doc_example():
    # MXNet 1.9.1: (10, 5, 4) with (-1, 0), reverse=True -> (50, 4)
    assert nd.zeros((10, 5, 4)).reshape((-1, 0), reverse=True).shape == (50, 4)


def test_inplace_keyword_of_methods():
    # MXNet 1.9.1 methods accept inplace=; nd.squeeze(inplace=) does not
    assert nd.zeros((1, 3, 1)).squeeze(axis=0, inplace=True).shape == (3, 1)
    assert A.flatten(inplace=True).shape == (2, 12)
    assert A.expand_dims(1, inplace=True).shape == (2, 1, 3, 4)
    with pytest.raises(mx.MXNetError):
        nd.squeeze(nd.zeros((1, 3, 1)), axis=0, inplace=True)


def test_moveaxis_with_ints_and_tuples():
    # MXNet 1.9.1 shapes and first rows
    assert nd.moveaxis(A, 0, 2).shape == (3, 4, 2)
    assert nd.moveaxis(A, -1, 0).shape == (4, 2, 3)
    moved = nd.moveaxis(A, (0, 1), (1, 2))
    assert moved.shape == (4, 2, 3)
    assert moved.asnumpy()[0].tolist() == [[0.0, 4.0, 8.0], [12.0, 16.0, 20.0]]


def test_broadcast_like_checks():
    assert nd.broadcast_like(
        nd.ones((1, 4)), nd.zeros((3, 5)), lhs_axes=(0,), rhs_axes=(0,)
    ).shape == (3, 4)
    with pytest.raises(mx.MXNetError):
        nd.broadcast_like(nd.ones((2, 4)), nd.zeros((3, 4)))
    with pytest.raises(mx.MXNetError):
        nd.broadcast_like(
            nd.ones((1, 4)), nd.zeros((3, 5)), lhs_axes=(0, 1), rhs_axes=(0,)
        )


def test_parameter_dtype_is_reported_as_given():
    # MXNet 1.9.1: <class 'numpy.float32'> by default, 'float16' if given
    # so, 'float32' for Dense (which passes the string)
    assert mx.gluon.Parameter('w', shape=(2,)).dtype is np.float32
    assert (
        mx.gluon.Parameter('w', shape=(2,), dtype='float16').dtype == 'float16'
    )
    assert (
        mx.gluon.Parameter('w', shape=(2,), dtype=np.float64).dtype
        is np.float64
    )
    dense = mx.gluon.nn.Dense(2, in_units=3)
    assert dense.weight.dtype == 'float32'
    dense.cast('float16')
    assert dense.weight.dtype == 'float16'
    p = mx.gluon.Parameter('w', shape=(2,))
    p.initialize()
    assert p.data().dtype == np.float32
