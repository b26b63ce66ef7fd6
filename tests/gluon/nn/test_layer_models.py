"""Layers inside models: names, collect_params, parameter sharing,
save/load with structural keys, hybridize and symbol parity."""

import numpy as np
import pytest

from dlbook import autograd, nd
from dlbook.gluon import nn
from dlbook.name import NameManager
from dlbook.test_utils import assert_almost_equal

from ._helpers import check_gradients, rand, value


class MLP(nn.Block):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.hidden = nn.Dense(5, activation='relu')
            self.output = nn.Dense(2)

    def forward(self, x):
        return self.output(self.hidden(x))


def small_cnn():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(
            nn.Conv2D(3, 3, padding=1, activation='relu'),
            nn.BatchNorm(),
            nn.MaxPool2D(),
            nn.Flatten(),
            nn.Dense(4, activation='tanh'),
            nn.Dropout(0.5),
            nn.Dense(2),
        )
    return net


def test_nested_names_and_collect_params():
    with NameManager():
        mlp = MLP()
        net = small_cnn()
    assert list(mlp.collect_params()) == [
        'mlp0_dense0_weight',
        'mlp0_dense0_bias',
        'mlp0_dense1_weight',
        'mlp0_dense1_bias',
    ]
    assert list(net.collect_params('.*weight')) == [
        'hybridsequential0_conv0_weight',
        'hybridsequential0_dense0_weight',
        'hybridsequential0_dense1_weight',
    ]
    assert list(net.collect_params('.*running')) == [
        'hybridsequential0_batchnorm0_running_mean',
        'hybridsequential0_batchnorm0_running_var',
    ]
    assert list(mlp._collect_params_with_prefix()) == [
        'hidden.weight',
        'hidden.bias',
        'output.weight',
        'output.bias',
    ]


def test_sharing_through_params_argument(ctx):
    with NameManager():
        first = nn.Dense(3, in_units=4)
        second = nn.Dense(3, in_units=4, params=first.params)
    assert second.prefix == 'dense1_'
    assert second.weight is first.weight and second.bias is first.bias
    assert list(second.collect_params()) == ['dense0_weight', 'dense0_bias']
    first.initialize(ctx=ctx)
    x, _ = rand((2, 4), ctx)
    assert (first(x).asnumpy() == second(x).asnumpy()).all()


def test_layer_used_twice_accumulates_gradients(ctx):
    shared = nn.Dense(3, activation='tanh')
    net = nn.HybridSequential()
    net.add(shared, shared)
    assert len(net.collect_params()) == 2
    net.initialize(ctx=ctx)
    x, x_np = rand((2, 3), ctx)
    y = net(x)  # the first use infers in_units = 3
    w, b = value(shared.weight, ctx), value(shared.bias, ctx)
    once = np.tanh(x_np @ w.T + b)
    assert_almost_equal(
        y.asnumpy(), np.tanh(once @ w.T + b), rtol=1e-5, atol=1e-6
    )
    # the numeric gradient moves both uses at once: the analytic one must
    # be the sum of the two uses' contributions
    check_gradients(net, x_np, ctx)


def test_save_and_load_parameters(ctx, tmp_path):
    net = small_cnn()
    net.initialize(ctx=ctx)
    x, _ = rand((2, 1, 4, 4), ctx)
    with autograd.record():  # moves the running statistics
        net(x)
    want = net(x).asnumpy()
    path = str(tmp_path / 'cnn.params')
    net.save_parameters(path)
    saved = nd.load(path)
    assert sorted(saved) == sorted(
        [
            '0.weight',
            '0.bias',
            '1.gamma',
            '1.beta',
            '1.running_mean',
            '1.running_var',
            '4.weight',
            '4.bias',
            '6.weight',
            '6.bias',
        ]
    )
    assert_almost_equal(
        saved['1.running_mean'].asnumpy(), value(net[1].running_mean, ctx)
    )
    assert saved['0.weight'].shape == (3, 1, 3, 3)

    other = small_cnn()  # other prefix, same structure
    assert other.prefix != net.prefix
    other.load_parameters(path, ctx=ctx)  # no initialize() needed
    assert other[4].weight.shape == (4, 12)
    assert_almost_equal(other(x).asnumpy(), want)
    assert other[0].weight.data().context == ctx


def test_forward_backward_through_a_cnn(ctx):
    net = small_cnn()
    net.initialize(ctx=ctx)
    x, _ = rand((2, 1, 4, 4), ctx)
    with autograd.record():
        y = net(x)
    y.backward()
    for name, param in net.collect_params().items():
        if param.grad_req == 'null':
            continue
        grad = param.grad(ctx).asnumpy()
        assert grad.shape == param.shape and np.isfinite(grad).all(), name
    assert repr(net) == '\n'.join(
        [
            'HybridSequential(',
            '  (0): Conv2D(1 -> 3, kernel_size=(3, 3), stride=(1, 1), '
            'padding=(1, 1), Activation(relu))',
            '  (1): BatchNorm(axis=1, eps=1e-05, momentum=0.9, fix_gamma=False, '
            'use_global_stats=False, in_channels=3)',
            '  (2): MaxPool2D(size=(2, 2), stride=(2, 2), padding=(0, 0), '
            'ceil_mode=False, global_pool=False, pool_type=max, layout=NCHW)',
            '  (3): Flatten',
            '  (4): Dense(12 -> 4, Activation(tanh))',
            '  (5): Dropout(p = 0.5, axes=())',
            '  (6): Dense(4 -> 2, linear)',
            ')',
        ]
    )


def all_layers():
    """One of (almost) every layer, in a net that accepts (2, 4, 6)."""
    net = nn.HybridSequential()
    net.add(
        nn.Conv1D(4, 3, padding=1, activation='tanh'),
        nn.BatchNorm(),
        nn.LayerNorm(),
        nn.InstanceNorm(scale=True),
        nn.GroupNorm(2),
        nn.LeakyReLU(0.1),
        nn.PReLU(),
        nn.ELU(),
        nn.SELU(),
        nn.GELU(),
        nn.Swish(),
        nn.Activation('sigmoid'),
        nn.Conv1DTranspose(4, 2),
        nn.MaxPool1D(),
        nn.AvgPool1D(2, 1),
        nn.Dropout(0.3),
        nn.HybridLambda('tanh'),
        nn.Flatten(),
        nn.Dense(3),
    )
    return net


def test_hybridized_net_matches_eager(ctx):
    net = all_layers()
    net.initialize(ctx=ctx)
    x, _ = rand((2, 4, 6), ctx)
    want = net(x).asnumpy()
    net.hybridize()
    assert_almost_equal(net(x).asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_symbol_graph_names(ctx):
    sym = pytest.importorskip('dlbook.symbol')
    with NameManager():
        dense = nn.Dense(10, in_units=4)
        norm = nn.BatchNorm(in_channels=3)
    out = dense(sym.var('data'))
    assert out.list_arguments() == ['data', 'dense0_weight', 'dense0_bias']
    out = norm(sym.var('data'))
    assert out.list_arguments() == [
        'data',
        'batchnorm0_gamma',
        'batchnorm0_beta',
    ]
    assert out.list_auxiliary_states() == [
        'batchnorm0_running_mean',
        'batchnorm0_running_var',
    ]
