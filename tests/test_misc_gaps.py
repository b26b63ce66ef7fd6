"""``nd.split_v2``/``sym.split_v2``, ``gluon.nn.BatchNormReLU`` over
``contrib.BatchNormWithReLU`` and ``gluon.utils``' ``replace_file``,
``shape_is_known`` and ``HookHandle``; expected values are MXNet
1.9.1's."""

import json
import os

import numpy as onp
import pytest

import dlbook as mx
from dlbook import autograd, nd, npx
from dlbook.gluon.utils import HookHandle, replace_file, shape_is_known


def test_nd_split_v2():
    x = nd.arange(6).reshape((2, 3))
    parts = nd.split_v2(x, 3, axis=1)
    assert isinstance(parts, list) and len(parts) == 3
    assert [p.asnumpy().tolist() for p in parts] == [
        [[0], [3]],
        [[1], [4]],
        [[2], [5]],
    ]
    sq = nd.split_v2(x, 2, axis=0, squeeze_axis=True)
    assert [p.shape for p in sq] == [(3,), (3,)]
    assert [p.asnumpy().tolist() for p in sq] == [[0, 1, 2], [3, 4, 5]]
    one = nd.split_v2(nd.arange(6), 1)
    assert isinstance(one, nd.NDArray) and one.shape == (6,)
    at = nd.split_v2(nd.arange(6), (2,))
    assert [p.asnumpy().tolist() for p in at] == [[0, 1], [2, 3, 4, 5]]
    fluent = x.split_v2(3, axis=1, squeeze_axis=True)
    assert [p.asnumpy().tolist() for p in fluent] == [[0, 3], [1, 4], [2, 5]]
    with pytest.raises(ValueError, match='equal division'):
        nd.split_v2(nd.arange(6), 4)
    for bad in ([1, 4], 2.0):
        with pytest.raises(ValueError, match='int or tuple'):
            nd.split_v2(nd.arange(6), bad)


def test_nd_split_v2_gradient():
    x = nd.arange(6).reshape((2, 3))
    x.attach_grad()
    with autograd.record():
        parts = nd.split_v2(x, (1,), axis=1)
        y = parts[0] * 2 + parts[1].sum()
    y.backward()
    assert x.grad.asnumpy().tolist() == [[2, 2, 2], [2, 2, 2]]


def test_sym_split_v2():
    s = mx.sym.split_v2(mx.sym.var('x'), 3, axis=1)
    assert len(s.list_outputs()) == 3
    attrs = [
        n['attrs']
        for n in json.loads(s.tojson())['nodes']
        if n['op'] != 'null'
    ]
    assert attrs[0]['sections'] == '3' and attrs[0]['axis'] == '1'
    s = mx.sym.split_v2(mx.sym.var('x'), (1, 2, 3), axis=0, squeeze_axis=True)
    assert s.infer_shape(x=(4, 2))[1] == [(2,), (2,), (2,), (2,)]
    ex = s.bind(mx.cpu(), {'x': nd.arange(8).reshape((4, 2))})
    assert [o.asnumpy().tolist() for o in ex.forward()] == [
        [0, 1],
        [2, 3],
        [4, 5],
        [6, 7],
    ]
    with pytest.raises(ValueError, match='int or tuple'):
        mx.sym.split_v2(mx.sym.var('x'), [1, 2])
    assert len(mx.sym.var('x').split_v2(2).list_outputs()) == 2


def test_batchnormrelu_is_one_fused_operator():
    net = mx.gluon.nn.BatchNormReLU()
    net.initialize()
    x = nd.array([-1.0, 2.0, 3.0, -4.0]).reshape((2, 1, 2))
    onp.testing.assert_allclose(
        net(x).asnumpy().ravel(), [0, 1.99999, 2.999985, 0], rtol=1e-5
    )
    y = net(mx.sym.var('data'))
    ops = [
        n['op'] for n in json.loads(y.tojson())['nodes'] if n['op'] != 'null'
    ]
    assert ops == ['_contrib_BatchNormWithReLU']
    assert y.list_outputs() == [net.prefix + 'fwd_output']
    assert net.prefix.startswith('batchnormrelu')
    assert repr(net) == (
        'BatchNormReLU(axis=1, eps=1e-05, momentum=0.9, fix_gamma=False, '
        'use_global_stats=False, in_channels=1)'
    )
    with autograd.record():
        out = net(x)
    onp.testing.assert_allclose(
        out.asnumpy().ravel(), [0, 0.7302962, 1.0954444, 0], rtol=1e-5
    )
    net.hybridize()
    # the running statistics moved during the training pass
    onp.testing.assert_allclose(
        net(x).asnumpy().ravel(), [0, 1.5569931, 2.3354897, 0], rtol=1e-5
    )


def test_shape_is_known():
    assert [shape_is_known(s) for s in [None, (), (2, 3), (2, 0)]] == [
        False,
        False,
        True,
        False,
    ]
    with pytest.raises(AssertionError, match='cannot be less than 0'):
        shape_is_known((2, -1))
    npx.set_np()
    try:
        assert [
            shape_is_known(s) for s in [None, (), (2, 3), (2, 0), (2, -1)]
        ] == [False, True, True, True, False]
    finally:
        npx.reset_np()


def test_replace_file(tmp_path):
    a, b = tmp_path / 'a', tmp_path / 'b'
    a.write_text('x')
    b.write_text('y')
    replace_file(str(a), str(b))
    assert b.read_text() == 'x' and not a.exists()
    with pytest.raises(OSError, match='Moving downloaded temp file'):
        replace_file(str(tmp_path / 'nope'), str(b))
    assert os.path.exists(b)


def test_forward_hooks_return_hook_handles():
    net = mx.gluon.nn.Dense(2)
    net.initialize()
    seen = []

    def post(block, inputs, output):
        seen.append(('post', output.shape))

    def pre(block, inputs):
        seen.append(('pre', inputs[0].shape))

    h = net.register_forward_hook(post)
    h2 = net.register_forward_pre_hook(pre)
    h3 = net.register_forward_hook(post)  # the same function: one hook
    assert isinstance(h, HookHandle) and isinstance(h2, HookHandle)
    net(nd.ones((1, 3)))
    assert seen == [('pre', (1, 3)), ('post', (1, 2))]
    h.detach()
    h3.detach()
    h.detach()
    with h2:
        pass
    net(nd.ones((1, 3)))
    assert seen == [('pre', (1, 3)), ('post', (1, 2))]
    with pytest.raises(AssertionError, match='attached twice'):
        h.attach({}, post)
