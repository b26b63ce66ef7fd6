"""infer_shape_partial with unknown dimensions (0), compared with MXNet
1.9.1 (expected values printed by MXNet 1.9.1 for the same graphs)."""

import warnings

import pytest

import dlbook as mx


def lenet_head():
    data = mx.sym.var('data')
    conv = mx.sym.Convolution(
        data, kernel=(3, 3), num_filter=16, pad=(1, 1), name='c'
    )
    pool = mx.sym.Pooling(conv, kernel=(2, 2), stride=(2, 2), pool_type='max')
    return conv, mx.sym.FullyConnected(
        mx.sym.flatten(pool), num_hidden=10, name='fc'
    )


A, B = mx.sym.var('a'), mx.sym.var('b')


@pytest.mark.parametrize(
    'symbol,shapes,expected',
    [
        (
            lenet_head()[1],
            {'data': (64, 0, 14, 14)},
            (
                [(64, 0, 14, 14), (16, 0, 3, 3), (16,), (10, 784), (10,)],
                [(64, 10)],
                [],
            ),
        ),
        (lenet_head()[1], {}, ([(), (), (), (), ()], [()], [])),
        (
            lenet_head()[0],
            {'data': (64, 0, 7, 7)},
            ([(64, 0, 7, 7), (16, 0, 3, 3), (16,)], [(64, 16, 7, 7)], []),
        ),
        (A + B, {'a': (2, 0)}, ([(2, 0), (2, 0)], [(2, 0)], [])),
        (A * B, {'a': (2, 0), 'b': (0, 3)}, ([(2, 3), (2, 3)], [(2, 3)], [])),
        (mx.sym.broadcast_add(A, B), {'a': (2, 0)}, ([(2, 0), ()], [()], [])),
        (mx.sym.dot(A, B), {'a': (2, 3)}, ([(2, 3), ()], [()], [])),
        (
            mx.sym.FullyConnected(A, num_hidden=5, name='f2'),
            {'a': (0, 8)},
            ([(0, 8), (5, 8), (5,)], [(0, 5)], []),
        ),
        (
            mx.sym.FullyConnected(A, num_hidden=5, name='f2'),
            {'f2_weight': (5, 8)},
            ([(), (5, 8), ()], [()], []),
        ),
        (
            mx.sym.BatchNorm(A, name='bn'),
            {'a': (0, 4, 3, 3)},
            ([(0, 4, 3, 3), (4,), (4,)], [(0, 4, 3, 3)], [(4,), (4,)]),
        ),
        (
            mx.sym.reshape(A, shape=(0, -1)),
            {'a': (2, 0, 4)},
            ([(2, 0, 4)], [(2, 0)], []),
        ),
        (
            mx.sym.concat(A, B, dim=1),
            {'a': (2, 3), 'b': (2, 0)},
            ([(2, 3), (2, 0)], [(2, 0)], []),
        ),
        (
            mx.sym.SoftmaxOutput(A, name='sm'),
            {'a': (0, 10)},
            ([(0, 10), (0,)], [(0, 10)], []),
        ),
        (
            mx.sym.Embedding(A, input_dim=100, output_dim=8, name='emb'),
            {'a': (0, 5)},
            ([(0, 5), (100, 8)], [(0, 5, 8)], []),
        ),
        (mx.sym.relu(A), {'a': (0, 5)}, ([(0, 5)], [(0, 5)], [])),
    ],
)
def test_partial_shapes_as_mxnet(symbol, shapes, expected):
    assert symbol.infer_shape_partial(**shapes) == expected


def test_full_inference_with_unknown_dims_warns_and_gives_none():
    # MXNet 1.9.1: (None, None, None) with a warning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        assert lenet_head()[1].infer_shape(data=(64, 0, 14, 14)) == (
            None,
            None,
            None,
        )
    assert 'Cannot decide shape' in str(caught[0].message)


def test_conflicting_partial_shapes_are_an_error():
    with pytest.raises(mx.MXNetError, match='Shape inconsistent'):
        (A + B).infer_shape_partial(a=(2, 0), b=(3, 0))


def test_dlbook_infers_more_where_mxnet_gives_up():
    # MXNet 1.9.1 leaves Flatten's (and Reshape's -1) output unknown when
    # any input dimension is; dlbook keeps the dimensions that do not
    # depend on the unknown ones
    assert mx.sym.reshape(A, shape=(0, -1)).infer_shape_partial(a=(0, 3, 4))[
        1
    ] == [(0, 12)]
