"""BatchNorm (train vs predict, running statistics, use_global_stats),
LayerNorm, InstanceNorm and GroupNorm against NumPy."""

import numpy as np
import pytest

from dlbook import autograd, nd
from dlbook import initializer as init
from dlbook.gluon import nn
from dlbook.name import NameManager
from dlbook.test_utils import assert_almost_equal

from ._helpers import check_gradients, rand, value

TOL = {'rtol': 1e-5, 'atol': 1e-5}


def normalize(x, axes, eps):
    """``(x - mean) / sqrt(var + eps)`` over ``axes`` (biased var)."""
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def per_channel(v, ndim, axis=1):
    shape = [1] * ndim
    shape[axis] = -1
    return v.reshape(shape)


def random_affine(layer, ctx, seed=5):
    """Give gamma and beta non-trivial values."""
    rng = np.random.RandomState(seed)
    for p in (layer.gamma, layer.beta):
        p.set_data(nd.array(rng.uniform(0.5, 1.5, p.shape), ctx=ctx))


def make_batchnorm(ctx, channels=3, **kwargs):
    layer = nn.BatchNorm(in_channels=channels, **kwargs)
    layer.initialize(ctx=ctx)
    random_affine(layer, ctx)
    rng = np.random.RandomState(7)
    layer.running_mean.set_data(
        nd.array(rng.uniform(-0.5, 0.5, channels), ctx=ctx)
    )
    layer.running_var.set_data(
        nd.array(rng.uniform(0.5, 2.0, channels), ctx=ctx)
    )
    return layer


# -- BatchNorm -------------------------------------------------------------


def test_batchnorm_predict_uses_running_statistics(ctx):
    layer = make_batchnorm(ctx)
    x, x_np = rand((4, 3, 2, 2), ctx)
    g, b, rm, rv = (
        value(p, ctx)
        for p in (
            layer.gamma,
            layer.beta,
            layer.running_mean,
            layer.running_var,
        )
    )
    want = (x_np - per_channel(rm, 4)) / np.sqrt(
        per_channel(rv, 4) + 1e-5
    ) * per_channel(g, 4) + per_channel(b, 4)
    assert_almost_equal(layer(x).asnumpy(), want, **TOL)
    # predicting leaves the running statistics alone
    assert (value(layer.running_mean, ctx) == rm).all()
    assert (value(layer.running_var, ctx) == rv).all()


def test_batchnorm_training_uses_batch_statistics(ctx):
    layer = make_batchnorm(ctx, momentum=0.8)
    x, x_np = rand((4, 3, 2, 2), ctx, seed=2)
    g, b, rm, rv = (
        value(p, ctx)
        for p in (
            layer.gamma,
            layer.beta,
            layer.running_mean,
            layer.running_var,
        )
    )
    with autograd.record():
        y = layer(x)
    axes = (0, 2, 3)
    want = normalize(x_np, axes, 1e-5) * per_channel(g, 4) + per_channel(b, 4)
    assert_almost_equal(y.asnumpy(), want, **TOL)
    # running = momentum * running + (1 - momentum) * batch
    assert_almost_equal(
        value(layer.running_mean, ctx),
        0.8 * rm + 0.2 * x_np.mean(axis=axes),
        **TOL,
    )
    assert_almost_equal(
        value(layer.running_var, ctx),
        0.8 * rv + 0.2 * x_np.var(axis=axes),
        **TOL,
    )
    # after training, predicting uses the (updated) running statistics
    rm, rv = value(layer.running_mean, ctx), value(layer.running_var, ctx)
    want = (x_np - per_channel(rm, 4)) / np.sqrt(
        per_channel(rv, 4) + 1e-5
    ) * per_channel(g, 4) + per_channel(b, 4)
    assert_almost_equal(layer(x).asnumpy(), want, **TOL)


def test_batchnorm_train_mode_without_recording(ctx):
    layer = make_batchnorm(ctx)
    x, x_np = rand((5, 3), ctx)
    rm = value(layer.running_mean, ctx)
    with autograd.train_mode():
        layer(x)
    assert_almost_equal(
        value(layer.running_mean, ctx),
        0.9 * rm + 0.1 * x_np.mean(axis=0),
        **TOL,
    )


def test_batchnorm_use_global_stats(ctx):
    layer = make_batchnorm(ctx, use_global_stats=True)
    x, x_np = rand((4, 3, 2), ctx)
    rm, rv = value(layer.running_mean, ctx), value(layer.running_var, ctx)
    with autograd.record():
        y = layer(x)
    g, b = value(layer.gamma, ctx), value(layer.beta, ctx)
    want = (x_np - per_channel(rm, 3)) / np.sqrt(
        per_channel(rv, 3) + 1e-5
    ) * per_channel(g, 3) + per_channel(b, 3)
    assert_almost_equal(y.asnumpy(), want, **TOL)
    assert (value(layer.running_mean, ctx) == rm).all()
    assert (value(layer.running_var, ctx) == rv).all()


@pytest.mark.parametrize('train', [True, False])
def test_batchnorm_gradients(ctx, train):
    layer = make_batchnorm(ctx, channels=2)
    check_gradients(layer, rand((3, 2, 2), ctx)[1], ctx, train=train)


def test_batchnorm_other_axis_and_deferred_channels(ctx):
    layer = nn.BatchNorm(axis=-1)
    layer.initialize(ctx=ctx)
    x, x_np = rand((4, 2, 3), ctx)
    with autograd.record():
        y = layer(x)
    assert layer.gamma.shape == (3,)
    assert repr(layer).endswith('in_channels=3)')
    assert_almost_equal(y.asnumpy(), normalize(x_np, (0, 1), 1e-5), **TOL)


def test_batchnorm_scale_and_center_off(ctx):
    layer = make_batchnorm(ctx, scale=False, center=False)
    assert layer.gamma.grad_req == 'null' and layer.beta.grad_req == 'null'
    x, x_np = rand((4, 3), ctx)
    with autograd.record():
        y = layer(x)
    # fix_gamma: gamma is ignored (treated as 1), beta stays as set
    b = value(layer.beta, ctx)
    assert_almost_equal(y.asnumpy(), normalize(x_np, (0,), 1e-5) + b, **TOL)


def test_batchnorm_repr_names_and_initial_values(ctx):
    with NameManager():
        layer = nn.BatchNorm()
    assert repr(layer) == (
        'BatchNorm(axis=1, eps=1e-05, momentum=0.9, fix_gamma=False, '
        'use_global_stats=False, in_channels=None)'
    )
    assert list(layer.collect_params()) == [
        'batchnorm0_gamma',
        'batchnorm0_beta',
        'batchnorm0_running_mean',
        'batchnorm0_running_var',
    ]
    assert layer.running_mean.grad_req == 'null'
    assert layer.running_var.grad_req == 'null'
    assert layer.gamma.grad_req == 'write'
    layer.initialize(init.Constant(7), ctx=ctx)  # layer's own inits win
    layer(nd.ones((2, 4, 3), ctx=ctx))
    assert repr(layer) == (
        'BatchNorm(axis=1, eps=1e-05, momentum=0.9, fix_gamma=False, '
        'use_global_stats=False, in_channels=4)'
    )
    expected = {'gamma': 1, 'beta': 0, 'running_mean': 0, 'running_var': 1}
    for name, want in expected.items():
        assert (value(getattr(layer, name), ctx) == want).all(), name
    other = nn.BatchNorm(
        momentum=0.8,
        epsilon=1e-3,
        scale=False,
        use_global_stats=True,
        in_channels=2,
    )
    assert repr(other) == (
        'BatchNorm(axis=1, eps=0.001, momentum=0.8, fix_gamma=True, '
        'use_global_stats=True, in_channels=2)'
    )


def test_batchnorm_stays_float32_under_float16_cast():
    layer = nn.BatchNorm(in_channels=2)
    layer.cast('float16')
    assert layer.gamma.dtype == 'float32'
    layer.cast('float64')
    assert layer.gamma.dtype == 'float64'


def test_batchnorm_relu(ctx):
    layer = nn.BatchNormReLU(in_channels=3)
    layer.initialize(ctx=ctx)
    x, x_np = rand((4, 3), ctx)
    with autograd.record():
        y = layer(x)
    want = np.maximum(normalize(x_np, (0,), 1e-5), 0)
    assert_almost_equal(y.asnumpy(), want, **TOL)


# -- LayerNorm, InstanceNorm, GroupNorm --------------------------------------


def test_layernorm(ctx):
    with NameManager():
        layer = nn.LayerNorm()
    assert repr(layer) == (
        'LayerNorm(eps=1e-05, axis=-1, center=True, scale=True, in_channels=0)'
    )
    assert list(layer.collect_params()) == [
        'layernorm0_gamma',
        'layernorm0_beta',
    ]
    layer.initialize(ctx=ctx)
    x, x_np = rand((2, 3, 4), ctx)
    layer(x)
    assert repr(layer).endswith('in_channels=4)')
    random_affine(layer, ctx)
    g, b = value(layer.gamma, ctx), value(layer.beta, ctx)
    assert_almost_equal(
        layer(x).asnumpy(), normalize(x_np, -1, 1e-5) * g + b, **TOL
    )
    check_gradients(layer, x_np, ctx)


def test_layernorm_axis(ctx):
    layer = nn.LayerNorm(axis=1, epsilon=1e-3, in_channels=3)
    layer.initialize(ctx=ctx)
    random_affine(layer, ctx)
    x, x_np = rand((2, 3, 2), ctx)
    g, b = value(layer.gamma, ctx), value(layer.beta, ctx)
    want = normalize(x_np, 1, 1e-3) * per_channel(g, 3) + per_channel(b, 3)
    assert_almost_equal(layer(x).asnumpy(), want, **TOL)


@pytest.mark.parametrize('axis', [1, -1])
def test_instancenorm(ctx, axis):
    layer = nn.InstanceNorm(axis=axis, scale=True)
    layer.initialize(ctx=ctx)
    x, x_np = rand((2, 3, 4), ctx)
    layer(x)
    random_affine(layer, ctx)
    g, b = value(layer.gamma, ctx), value(layer.beta, ctx)
    # statistics per sample and channel, over the remaining (spatial) axis
    spatial = 2 if axis == 1 else 1
    want = normalize(x_np, spatial, 1e-5) * per_channel(
        g, 3, axis
    ) + per_channel(b, 3, axis)
    assert_almost_equal(layer(x).asnumpy(), want, **TOL)
    check_gradients(layer, x_np, ctx)


def test_instancenorm_repr():
    layer = nn.InstanceNorm()
    assert repr(layer) == (
        'InstanceNorm(eps=1e-05, axis=1, center=True, '
        'scale=False, in_channels=0)'
    )
    assert layer.gamma.grad_req == 'null'


def test_groupnorm(ctx):
    layer = nn.GroupNorm(num_groups=2)
    assert repr(layer) == (
        'GroupNorm(eps=1e-05, num_groups=2, center=True, scale=True)'
    )
    layer.initialize(ctx=ctx)
    random_affine(layer, ctx)
    x, x_np = rand((2, 4, 3), ctx)
    g, b = value(layer.gamma, ctx), value(layer.beta, ctx)
    grouped = normalize(x_np.reshape(2, 2, 6), 2, 1e-5)
    want = (grouped * g.reshape(1, 2, 1) + b.reshape(1, 2, 1)).reshape(
        x_np.shape
    )
    assert_almost_equal(layer(x).asnumpy(), want, **TOL)
    check_gradients(layer, x_np, ctx)
