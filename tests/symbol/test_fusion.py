"""Fused graph steps (``dlbook/symbol/fusion.py``) against the reference.

A compiled graph runs a dense layer and its activation, a loss's
``log_softmax`` → ``pick`` → ``* s`` → ``mean``, a relu followed by max
pooling, a BatchNorm followed by a relu, and a convolution followed by
its activation, as single steps when the fast path is on.  The fused steps perform the same floating-point
operations as the operators they replace, so every test here asks for
**equal** arrays (``assert_array_equal``), not close ones: eager,
hybridized (fast and reference path) and symbolic (Executor) runs, values
and gradients, and the parameters after several Trainer steps.  The
gradients of the fused graph are also checked against float64 central
differences.
"""

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, gluon, nd, sym
from dlbook.gluon import nn
from dlbook.ops import fastpath
from dlbook.symbol.fusion import (
    BatchNormRelu,
    ConvActivation,
    DenseActivation,
    ReluMaxPool,
    SoftmaxCrossEntropy,
)
from dlbook.test_utils import check_numeric_gradient

ACTS = ['relu', 'sigmoid', 'tanh']


@pytest.fixture(autouse=True)
def fresh_names():
    with mx.name.NameManager():
        yield


def mlp(act, n_in=6, hidden=5, n_out=4, ctx=None):
    net = nn.HybridSequential()
    net.add(
        nn.Dense(hidden, activation=act, in_units=n_in),
        nn.Dense(n_out, in_units=hidden),
    )
    net.initialize(mx.init.Xavier(), ctx=ctx)
    return net


def fused_kinds(block, ctx):
    """The operator classes of the block's fused step list."""
    program, _ = block._cached_graph.program(ctx)
    return [entry[0] for entry in program._plan(True)]


def train(mode, act, ctx, dtype='float32', steps=4, fast=True):
    """Parameters and last loss after ``steps`` SGD steps: 'eager' or
    'hybrid' (network and loss hybridized)."""
    mx.random.seed(3)
    net = mlp(act, ctx=ctx)
    net.cast(dtype)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    if mode == 'hybrid':
        net.hybridize()
        loss_fn.hybridize()
    trainer = gluon.Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.5, 'momentum': 0.9}
    )
    rng = np.random.RandomState(0)
    with fastpath.use(fast):
        for _ in range(steps):
            x = nd.array(rng.randn(8, 6), ctx=ctx, dtype=dtype)
            y = nd.array(rng.randint(0, 4, 8), ctx=ctx, dtype=dtype)
            with autograd.record():
                loss = loss_fn(net(x), y)
            loss.backward()
            trainer.step(8)
    params = [p.data(ctx).asnumpy() for p in net.collect_params().values()]
    return params, loss.asnumpy(), (net, loss_fn)


@pytest.mark.parametrize('act', ACTS)
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_trainer_steps_equal_eager(ctx, act, dtype):
    eager, eager_loss, _ = train('eager', act, ctx, dtype)
    fused, fused_loss, (net, loss_fn) = train('hybrid', act, ctx, dtype)
    reference, reference_loss, _ = train('hybrid', act, ctx, dtype, fast=False)
    # the fused steps really ran
    assert fused_kinds(net, ctx) == [DenseActivation, DenseActivation]
    assert fused_kinds(loss_fn, ctx) == [SoftmaxCrossEntropy]
    np.testing.assert_array_equal(fused_loss, eager_loss)
    np.testing.assert_array_equal(reference_loss, eager_loss)
    for a, b, c in zip(fused, eager, reference):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(c, b)


def forward_backward(block, inputs, grad_req='write', out_grad=None):
    for x in inputs:
        x.attach_grad(grad_req)
    with autograd.record():
        y = block(*inputs)
    y.backward(out_grad)
    params = block.collect_params().values()
    return (
        y.asnumpy(),
        [x.grad.asnumpy() for x in inputs],
        [p.grad().asnumpy() for p in params],
    )


def assert_runs_equal(a, b):
    np.testing.assert_array_equal(a[0], b[0])
    for u, v in zip(a[1] + a[2], b[1] + b[2]):
        np.testing.assert_array_equal(u, v)


@pytest.mark.parametrize('act', ACTS)
def test_dense_activation_values_and_all_gradients(ctx, act):
    """Data gradient included (x.attach_grad()), a head gradient given."""
    net = mlp(act, ctx=ctx)
    rng = np.random.RandomState(1)
    x = nd.array(rng.randn(3, 6), ctx=ctx)
    dy = nd.array(rng.randn(3, 4), ctx=ctx)
    eager = forward_backward(net, [x.copy()], out_grad=dy)
    net.hybridize()
    fused = forward_backward(net, [x.copy()], out_grad=dy)
    with fastpath.use(False):
        reference = forward_backward(net, [x.copy()], out_grad=dy)
    assert_runs_equal(fused, eager)
    assert_runs_equal(reference, eager)


def test_grad_req_add_accumulates_as_eager(ctx):
    def twice(hybrid):
        mx.random.seed(5)
        net = mlp('relu', ctx=ctx)
        for p in net.collect_params().values():
            p.grad_req = 'add'
        if hybrid:
            net.hybridize()
        x = nd.array(np.random.RandomState(2).randn(4, 6), ctx=ctx)
        for _ in range(2):
            with autograd.record():
                y = net(x)
            y.backward()
        return [p.grad().asnumpy() for p in net.collect_params().values()]

    for a, b in zip(twice(True), twice(False)):
        np.testing.assert_array_equal(a, b)


def test_retain_graph_backward_twice(ctx):
    net = mlp('tanh', ctx=ctx)
    net.hybridize()
    x = nd.array(np.random.RandomState(2).randn(4, 6), ctx=ctx)
    with autograd.record():
        y = net(x)
    y.backward(retain_graph=True)
    first = net[0].weight.grad().asnumpy().copy()
    y.backward()
    np.testing.assert_array_equal(net[0].weight.grad().asnumpy(), first)
    with pytest.raises(mx.base.MXNetError):
        y.backward()


def symbol_mlp(act_op):
    data = sym.var('data')
    h = sym.FullyConnected(data, num_hidden=5, name='fc1')
    if act_op == 'Activation':
        h = sym.Activation(h, act_type='relu')
    else:
        h = getattr(sym, act_op)(h)
    h = sym.FullyConnected(h, num_hidden=3, no_bias=True, name='fc2')
    return sym.log_softmax(h)


@pytest.mark.parametrize('act_op', ['Activation', 'relu', 'sigmoid', 'tanh'])
def test_executor_fused_equals_reference_and_eager(act_op):
    net = symbol_mlp(act_op)
    rng = np.random.RandomState(4)
    args = {
        'data': rng.randn(4, 2, 3),  # flattened to (4, 6) by fc1
        'fc1_weight': rng.randn(5, 6),
        'fc1_bias': rng.randn(5),
        'fc2_weight': rng.randn(3, 5),
    }
    dy = rng.randn(4, 3)
    results = []
    for fast in (True, False):
        with fastpath.use(fast):
            exe = net.simple_bind(mx.cpu(), data=(4, 2, 3))
            for name, value in args.items():
                exe.arg_dict[name][:] = value
            out = exe.forward(is_train=True)[0].asnumpy()
            exe.backward(nd.array(dy))
            results.append(
                [out] + [exe.grad_dict[n].asnumpy() for n in sorted(args)]
            )
    program = exe._program
    assert len(program._plan(True)) == 3  # fc1+act, fc2, log_softmax
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
    # and the same graph run eagerly, operator by operator, on NDArrays
    arrays = {name: nd.array(value) for name, value in args.items()}
    for a in arrays.values():
        a.attach_grad()
    with autograd.record():
        h = nd.FullyConnected(
            arrays['data'],
            arrays['fc1_weight'],
            arrays['fc1_bias'],
            num_hidden=5,
        )
        if act_op == 'Activation':
            h = nd.Activation(h, act_type='relu')
        else:
            h = getattr(nd, act_op)(h)
        h = nd.FullyConnected(
            h, arrays['fc2_weight'], num_hidden=3, no_bias=True
        )
        out = nd.log_softmax(h)
    out.backward(nd.array(dy))
    eager = [out.asnumpy()] + [arrays[n].grad.asnumpy() for n in sorted(args)]
    for a, b in zip(results[0], eager):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize('act_op', ['Activation', 'sigmoid', 'tanh'])
def test_fused_graph_numeric_gradient(act_op):
    with fastpath.use(True):
        check_numeric_gradient(
            symbol_mlp(act_op),
            {
                'data': np.random.RandomState(0).randn(3, 2, 3),
                'fc1_weight': np.random.RandomState(1).randn(5, 6),
                'fc1_bias': np.random.RandomState(2).randn(5),
                'fc2_weight': np.random.RandomState(3).randn(3, 5),
            },
            dtype=np.float64,
            rtol=1e-5,
            atol=1e-7,
        )


def test_intermediate_read_twice_is_not_fused():
    """An activation input that is also a graph output keeps its step."""
    data = sym.var('data')
    h = sym.FullyConnected(data, num_hidden=4, name='fc')
    out = sym.Group([h, sym.relu(h)])
    exe = out.simple_bind(mx.cpu(), data=(2, 3))
    exe.arg_dict['data'][:] = np.arange(6).reshape(2, 3) - 2.5
    exe.arg_dict['fc_weight'][:] = np.linspace(-1, 1, 12).reshape(4, 3)
    with fastpath.use(True):
        h_val, r_val = (o.asnumpy() for o in exe.forward())
    kinds = [entry[0].__name__ for entry in exe._program._plan(True)]
    assert kinds == ['DenseActivation', 'Relu']  # no activation fused
    np.testing.assert_array_equal(r_val, np.maximum(h_val, 0))


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_softmax_ce_equals_eager_with_clipped_labels(ctx, dtype):
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    rng = np.random.RandomState(6)
    pred = nd.array(rng.randn(5, 4) * 3, ctx=ctx, dtype=dtype)
    # out-of-range labels are clipped by pick, as in MXNet
    label = nd.array([0, 3, 7, -2, 1], ctx=ctx, dtype=dtype)
    eager = forward_backward(loss_fn, [pred.copy(), label.copy()])
    loss_fn.hybridize()
    fused = forward_backward(loss_fn, [pred.copy(), label.copy()])
    assert fused_kinds(loss_fn, ctx) == [SoftmaxCrossEntropy]
    with fastpath.use(False):
        reference = forward_backward(loss_fn, [pred.copy(), label.copy()])
    # compare the loss and pred's gradient (the label's is zero)
    for run in (fused, reference):
        np.testing.assert_array_equal(run[0], eager[0])
        np.testing.assert_array_equal(run[1][0], eager[1][0])
    # and against NumPy: softmax - onehot
    p = np.exp(pred.asnumpy().astype('float64'))
    p /= p.sum(1, keepdims=True)
    onehot = np.eye(4)[np.clip(label.asnumpy().astype(int), 0, 3)]
    np.testing.assert_allclose(fused[1][0], p - onehot, 1e-5, 1e-6)


def test_softmax_ce_other_shapes_fall_back(ctx):
    """3-D predictions (softmax on the last axis, mean over the rest) and
    sample weights take the replaced operators' own path."""
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    rng = np.random.RandomState(7)
    pred = nd.array(rng.randn(2, 3, 4), ctx=ctx)
    label = nd.array(rng.randint(0, 4, (2, 3)), ctx=ctx)
    weight = nd.array(rng.rand(2, 3, 1), ctx=ctx)
    for args in ([pred, label], [pred, label, weight]):
        loss_fn.hybridize(False)
        eager = forward_backward(loss_fn, [a.copy() for a in args])
        loss_fn.hybridize()
        fused = forward_backward(loss_fn, [a.copy() for a in args])
        np.testing.assert_array_equal(fused[0], eager[0])
        np.testing.assert_array_equal(fused[1][0], eager[1][0])


@pytest.mark.parametrize(
    'flags',
    [{'static_alloc': True}, {'static_alloc': True, 'static_shape': True}],
)
def test_static_alloc_outputs_are_fresh(ctx, flags):
    """MXNet 1.9.1 with static_alloc (and static_shape) returns outputs
    that the next call does not overwrite, predicting and training."""
    net = mlp('relu', ctx=ctx)
    net.hybridize(**flags)
    x1 = nd.ones((2, 6), ctx=ctx)
    x2 = x1 * 2
    y1 = net(x1)
    kept = y1.asnumpy().copy()
    net(x2)
    np.testing.assert_array_equal(y1.asnumpy(), kept)
    with autograd.record():
        y1 = net(x1)
    kept = y1.asnumpy().copy()
    y1.backward()
    with autograd.record():
        y2 = net(x2)
    y2.backward()
    np.testing.assert_array_equal(y1.asnumpy(), kept)


# -- relu + max pooling ------------------------------------------------------

POOLS = {
    'tiling 2x2': {'pool_size': 2, 'strides': 2},
    'overlapping 3x3 s2 p1': {'pool_size': 3, 'strides': 2, 'padding': 1},
    'tiling 2x2, odd input (ceil)': {
        'pool_size': 2,
        'strides': 2,
        'ceil_mode': True,
    },
}


def cnn(pool, ctx, act='relu'):
    """conv -> relu -> max pool, twice, then a dense layer.  Integer
    weights and inputs make many ties: windows whose maximum repeats,
    windows that are all negative, all zero after relu."""
    net = nn.HybridSequential()
    net.add(
        nn.Conv2D(3, kernel_size=3, activation=act, in_channels=2),
        nn.MaxPool2D(**pool),
        nn.Conv2D(4, kernel_size=2, in_channels=3),
        nn.Activation(act),
        nn.MaxPool2D(**pool),
        nn.Dense(5),
    )
    net.initialize(ctx=ctx)
    net(nd.zeros((1, 2, 11, 11), ctx=ctx))  # the dense layer's shape
    rng = np.random.RandomState(11)
    for p in net.collect_params().values():
        p.set_data(nd.array(rng.randint(-2, 3, p.shape), ctx=ctx))
    return net


@pytest.mark.parametrize('pool', sorted(POOLS))
def test_relu_max_pool_values_and_gradients_equal_eager(ctx, pool):
    net = cnn(POOLS[pool], ctx)
    rng = np.random.RandomState(12)
    x = nd.array(rng.randint(-3, 4, (2, 2, 11, 11)), ctx=ctx)
    dy = nd.array(rng.randint(-2, 3, (2, 5)), ctx=ctx)
    eager = forward_backward(net, [x.copy()], out_grad=dy)
    net.hybridize()
    fused = forward_backward(net, [x.copy()], out_grad=dy)
    kinds = fused_kinds(net, ctx)
    assert kinds.count(ReluMaxPool) == 2, kinds
    with fastpath.use(False):
        reference = forward_backward(net, [x.copy()], out_grad=dy)
    assert_runs_equal(fused, eager)
    assert_runs_equal(reference, eager)
    # the cases that matter are there: 2x2 windows of the first layer's
    # relu'd output whose maximum repeats, and windows all zero
    h = net[0](x).asnumpy()[:, :, :8, :8].reshape(2, 3, 4, 2, 4, 2)
    windows = h.transpose(0, 1, 2, 4, 3, 5).reshape(-1, 4)
    tied = (windows == windows.max(1, keepdims=True)).sum(1) > 1
    assert tied.sum() > 5 and (windows.max(1) == 0).sum() > 5


def trained_cnn_params(layers, image, ctx, hybrid, lr, seed):
    """The parameters of ``HybridSequential(*layers())`` after three SGD
    steps on random ``image``-shaped data (batch 4, 3 classes), and the
    fused step kinds (hybridized) or None (eager)."""
    mx.random.seed(seed)
    with mx.name.NameManager():
        net = nn.HybridSequential()
        net.add(*layers())
        net.initialize(mx.init.Xavier(), ctx=ctx)
    if hybrid:
        net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': lr})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    rng = np.random.RandomState(seed + 1)
    for _ in range(3):
        x = nd.array(rng.randn(4, *image), ctx=ctx)
        y = nd.array(rng.randint(0, 3, 4), ctx=ctx)
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(4)
    params = [p.data().asnumpy() for p in net.collect_params().values()]
    return params, fused_kinds(net, ctx) if hybrid else None


def test_relu_max_pool_global_pool_and_training_equal_eager(ctx):
    def layers():
        return (
            nn.Conv2D(4, kernel_size=3, activation='relu'),
            nn.GlobalMaxPool2D(),
            nn.Dense(3),
        )

    fused, kinds = trained_cnn_params(layers, (2, 7, 7), ctx, True, 0.1, 4)
    eager, _ = trained_cnn_params(layers, (2, 7, 7), ctx, False, 0.1, 4)
    assert ReluMaxPool in kinds
    for a, b in zip(fused, eager):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize('act', ['sigmoid', 'tanh'])
def test_other_activations_before_max_pool_are_not_moved(ctx, act):
    net = cnn(POOLS['tiling 2x2'], ctx, act=act)
    net.hybridize()
    net(nd.ones((1, 2, 11, 11), ctx=ctx))
    assert ReluMaxPool not in fused_kinds(net, ctx)


def test_relu_read_twice_or_avg_pool_keeps_its_step():
    data = sym.var('data')
    r = sym.relu(data)
    both = sym.Group([r, sym.Pooling(r, kernel=(2, 2), stride=(2, 2))])
    avg = sym.Pooling(
        sym.relu(data), kernel=(2, 2), stride=(2, 2), pool_type='avg'
    )
    x = np.arange(-8.0, 8.0).reshape(1, 1, 4, 4)
    for out in (both, avg):
        exe = out.simple_bind(mx.cpu(), data=(1, 1, 4, 4))
        exe.arg_dict['data'][:] = x
        with fastpath.use(True):
            exe.forward()
        kinds = [entry[0].__name__ for entry in exe._program._plan(True)]
        assert 'ReluMaxPool' not in kinds, kinds
        assert 'Relu' in kinds


def test_relu_max_pool_executor_gradients_equal_reference():
    data = sym.var('data')
    out = sym.Pooling(
        sym.Activation(data, act_type='relu'), kernel=(2, 2), stride=(2, 2)
    )
    rng = np.random.RandomState(8)
    x = rng.randint(-2, 3, (2, 3, 6, 6)).astype('float32')
    dy = rng.randint(-2, 3, (2, 3, 3, 3)).astype('float32')
    results = []
    for fast in (True, False):
        exe = out.simple_bind(mx.cpu(), data=x.shape)
        exe.arg_dict['data'][:] = x
        with fastpath.use(fast):
            y = exe.forward(is_train=True)[0].asnumpy()
            exe.backward(nd.array(dy))
        results.append((y, exe.grad_dict['data'].asnumpy()))
    kinds = [entry[0].__name__ for entry in exe._program._plan(True)]
    assert kinds == ['ReluMaxPool']
    (y, dx), (y_ref, dx_ref) = results
    np.testing.assert_array_equal(y, y_ref)
    np.testing.assert_array_equal(dx, dx_ref)
    np.testing.assert_array_equal(
        y, np.maximum(x, 0).reshape(2, 3, 3, 2, 3, 2).max(axis=(3, 5))
    )


# -- BatchNorm + relu --------------------------------------------------------


def resnet_block(ctx):
    """conv -> BatchNorm -> relu, twice (a residual unit's main path)."""
    net = nn.HybridSequential()
    net.add(
        nn.Conv2D(4, kernel_size=3, padding=1, in_channels=2),
        nn.BatchNorm(in_channels=4),
        nn.Activation('relu'),
        nn.Conv2D(3, kernel_size=3, padding=1, in_channels=4),
        nn.BatchNorm(in_channels=3, scale=False),
        nn.Activation('relu'),
        nn.Dense(2),
    )
    net.initialize(mx.init.Xavier(), ctx=ctx)
    return net


def recorded_run(make_net, x, dy, hybrid, fast, train, seed):
    """``(net, y, x)``: a fresh ``make_net()`` (hybridized or not) run on a
    copy of ``x`` under ``autograd.record(train_mode=train)`` with the
    fast path on or off, then ``y.backward(dy)``."""
    mx.random.seed(seed)
    with mx.name.NameManager():
        net = make_net()
    if hybrid:
        net.hybridize()
    xs = x.copy()
    xs.attach_grad()
    with fastpath.use(fast), autograd.record(train_mode=train):
        y = net(xs)
    y.backward(dy)
    return net, y, xs


@pytest.mark.parametrize('train', [True, False])
def test_batch_norm_relu_equals_eager(ctx, train):
    """Values, all gradients and the running statistics, in training
    (batch statistics) and in prediction (moving statistics)."""
    rng = np.random.RandomState(9)
    x = nd.array(rng.randn(3, 2, 5, 5), ctx=ctx)
    dy = nd.array(rng.randn(3, 2), ctx=ctx)

    def run(hybrid, fast=True):
        net, y, xs = recorded_run(
            lambda: resnet_block(ctx), x, dy, hybrid, fast, train, seed=2
        )
        params = net.collect_params().values()
        kinds = fused_kinds(net, ctx) if hybrid else []
        return (
            [y.asnumpy(), xs.grad.asnumpy()]
            + [p.data().asnumpy() for p in params]  # running stats too
            + [p.grad().asnumpy() for p in params if p.grad_req != 'null'],
            kinds,
        )

    fused, kinds = run(True)
    assert kinds.count(BatchNormRelu) == 2, kinds
    # the reference path (no fusion) against eager on the reference
    # convolution: the fast and reference convolutions round differently
    for fast in (True, False):
        hybrid = fused if fast else run(True, fast=False)[0]
        for a, b in zip(hybrid, run(False, fast=fast)[0]):
            np.testing.assert_array_equal(a, b)


def test_batch_norm_read_twice_keeps_its_step():
    data = sym.var('data')
    bn = sym.BatchNorm(data, name='bn')
    out = sym.Group([bn, sym.relu(bn)])
    exe = out.simple_bind(mx.cpu(), data=(2, 3, 4))
    exe.arg_dict['data'][:] = np.arange(24.0).reshape(2, 3, 4) - 12
    with fastpath.use(True):
        exe.forward(is_train=True)
    kinds = [entry[0].__name__ for entry in exe._program._plan(True)]
    assert 'BatchNormRelu' not in kinds, kinds


# -- convolution + activation ------------------------------------------------

#: Convolutions taking each route of the CPU forward (``convolution.py``):
#: channels-last windows (under 256 output positions), per-image windows
#: (more), grouped, taps cut (a 3x3 kernel on a 1x1 input reads only its
#: centre) and, in prediction, whole padded rows (few filters).
CONV_LAYERS = {
    'channels-last': dict(channels=4, kernel_size=3, padding=1),
    'per-image windows': dict(channels=3, kernel_size=3, padding=5),
    'grouped': dict(channels=4, kernel_size=3, groups=2),
    'whole rows': dict(channels=2, kernel_size=3),
}
CONV_INPUTS = {
    'channels-last': (3, 2, 6, 6),
    'per-image windows': (3, 2, 8, 8),
    'grouped': (3, 2, 7, 7),
    'whole rows': (3, 2, 9, 9),
    'taps cut': (3, 2, 1, 1),
}
CONV_LAYERS['taps cut'] = dict(channels=3, kernel_size=3, padding=1)
# the layer's NHWC layout (data moved to NCHW and back around the
# convolution, the activation applied between)
CONV_LAYERS['NHWC layout'] = dict(channels=4, kernel_size=3, layout='NHWC')
CONV_INPUTS['NHWC layout'] = (3, 7, 7, 2)


def conv_act_net(layer, act, ctx):
    """A convolution with ``act`` as its activation, then a dense layer."""
    net = nn.HybridSequential()
    net.add(nn.Conv2D(activation=act, **CONV_LAYERS[layer]), nn.Dense(3))
    net.initialize(mx.init.Xavier(), ctx=ctx)
    return net


@pytest.mark.parametrize('train', [True, False])
@pytest.mark.parametrize('layer', sorted(CONV_LAYERS))
@pytest.mark.parametrize('act', ACTS)
def test_conv_activation_equals_eager(ctx, act, layer, train):
    """Values and every gradient (data, weight, bias), fused against
    eager and against the graph run operator by operator."""
    rng = np.random.RandomState(13)
    shape = CONV_INPUTS[layer]
    x = nd.array(rng.randn(*shape), ctx=ctx)
    dy = nd.array(rng.randn(shape[0], 3), ctx=ctx)

    def run(hybrid, fast=True):
        net, y, xs = recorded_run(
            lambda: conv_act_net(layer, act, ctx),
            x,
            dy,
            hybrid,
            fast,
            train,
            seed=6,
        )
        params = net.collect_params().values()
        values = [y.asnumpy(), xs.grad.asnumpy()]
        values += [p.grad().asnumpy() for p in params]
        return values, fused_kinds(net, ctx) if hybrid else []

    fused, kinds = run(True)
    assert kinds[0] is ConvActivation, kinds
    for a, b in zip(fused, run(False)[0]):
        np.testing.assert_array_equal(a, b)
    # the reference path runs the two operators (and the reference
    # convolution, which rounds differently from the fast one)
    for a, b in zip(run(True, fast=False)[0], run(False, fast=False)[0]):
        np.testing.assert_array_equal(a, b)


def test_conv_activation_trainer_steps_equal_eager(ctx):
    """d2l's LeNet pattern: sigmoid convolutions, average pooling."""

    def layers():
        return (
            nn.Conv2D(3, kernel_size=5, padding=2, activation='sigmoid'),
            nn.AvgPool2D(pool_size=2, strides=2),
            nn.Conv2D(4, kernel_size=3, activation='sigmoid'),
            nn.Dense(3),
        )

    fused, kinds = trained_cnn_params(layers, (1, 12, 12), ctx, True, 0.5, 7)
    eager, _ = trained_cnn_params(layers, (1, 12, 12), ctx, False, 0.5, 7)
    assert kinds.count(ConvActivation) == 2
    for a, b in zip(fused, eager):
        np.testing.assert_array_equal(a, b)


def test_conv_activation_numeric_gradient():
    data = sym.var('data')
    out = sym.Activation(
        sym.Convolution(data, kernel=(2, 2), num_filter=2, name='conv'),
        act_type='tanh',
    )
    rng = np.random.RandomState(9)
    location = {
        'data': rng.randn(2, 2, 4, 4),
        'conv_weight': rng.randn(2, 2, 2, 2),
        'conv_bias': rng.randn(2),
    }
    exe = out.simple_bind(mx.cpu(), data=(2, 2, 4, 4))
    with fastpath.use(True):
        exe.forward()
    assert [e[0] for e in exe._program._plan(True)] == [ConvActivation]
    with fastpath.use(True):
        check_numeric_gradient(
            out, location, dtype=np.float64, rtol=1e-5, atol=1e-7
        )


def test_conv_output_read_twice_keeps_its_step():
    data = sym.var('data')
    conv = sym.Convolution(data, kernel=(2, 2), num_filter=2, name='conv')
    out = sym.Group([conv, sym.sigmoid(conv)])
    exe = out.simple_bind(mx.cpu(), data=(1, 1, 3, 3))
    exe.arg_dict['data'][:] = np.arange(9.0).reshape(1, 1, 3, 3)
    with fastpath.use(True):
        exe.forward()
    kinds = [entry[0].__name__ for entry in exe._program._plan(True)]
    assert kinds == ['Convolution', 'Sigmoid'], kinds


def test_relu_before_max_pool_is_left_to_relu_max_pool(ctx):
    net = cnn(POOLS['tiling 2x2'], ctx)
    net.hybridize()
    net(nd.ones((1, 2, 11, 11), ctx=ctx))
    kinds = fused_kinds(net, ctx)
    assert ConvActivation not in kinds and kinds.count(ReluMaxPool) == 2


@pytest.mark.parametrize('act', ACTS)
def test_conv_activation_on_integers_equals_eager(act):
    """An integer convolution keeps the two operators' rules (no
    activation written in place into integers)."""

    def run(hybrid):
        with mx.name.NameManager():
            net = nn.HybridSequential()
            net.add(nn.Conv2D(2, kernel_size=2, activation=act, in_channels=1))
            net.initialize()
            net.cast('int32')
        for p in net.collect_params().values():
            p.set_data(nd.ones(p.shape, dtype='int32'))
        if hybrid:
            net.hybridize()
        x = nd.array(np.arange(9).reshape(1, 1, 3, 3) - 4, dtype='int32')
        y = net(x).asnumpy()
        kinds = fused_kinds(net, mx.cpu()) if hybrid else None
        return y, kinds

    (fused, kinds), (eager, _) = run(True), run(False)
    assert kinds == [ConvActivation]
    assert fused.dtype == eager.dtype
    np.testing.assert_array_equal(fused, eager)
