"""Dense, Dropout, Embedding, Flatten, Lambda and HybridLambda: outputs
against NumPy, gradients against central differences, reprs, names,
initializers and deferred initialization."""

import numpy as np
import pytest

from dlbook import autograd, gluon, nd
from dlbook import initializer as init
from dlbook.gluon import nn
from dlbook.name import NameManager
from dlbook.test_utils import assert_almost_equal

from ._helpers import check_gradients, rand, value

DEFERRED_MESSAGE = (
    "Parameter 'dense0_weight' has not been initialized yet because "
    "initialization was deferred. Actual initialization happens during the "
    "first forward pass. Please pass one batch of data through the network "
    "before accessing Parameters. You can also avoid deferred "
    "initialization by specifying in_units, num_features, etc., for "
    "network layers."
)


# -- Dense -----------------------------------------------------------------


def test_dense_forward_flattens_trailing_axes(ctx):
    layer = nn.Dense(3, activation='tanh', bias_initializer=init.Uniform(1))
    layer.initialize(ctx=ctx)
    x, x_np = rand((2, 2, 3), ctx)
    y = layer(x)
    w, b = value(layer.weight, ctx), value(layer.bias, ctx)
    assert w.shape == (3, 6) and np.abs(b).sum() > 0
    assert_almost_equal(
        y.asnumpy(),
        np.tanh(x_np.reshape(2, 6) @ w.T + b),
        rtol=1e-5,
        atol=1e-6,
    )


def test_dense_without_flatten_acts_on_last_axis(ctx):
    layer = nn.Dense(5, flatten=False, bias_initializer=init.Uniform(1))
    layer.initialize(ctx=ctx)
    x, x_np = rand((2, 3, 4), ctx)
    y = layer(x)
    assert y.shape == (2, 3, 5)
    w, b = value(layer.weight, ctx), value(layer.bias, ctx)
    assert_almost_equal(y.asnumpy(), x_np @ w.T + b, rtol=1e-5, atol=1e-6)


def test_dense_without_bias(ctx):
    with NameManager():
        layer = nn.Dense(2, use_bias=False, in_units=3)
    assert layer.bias is None
    assert list(layer.collect_params()) == ['dense0_weight']
    layer.initialize(ctx=ctx)
    x, x_np = rand((4, 3), ctx)
    assert_almost_equal(
        layer(x).asnumpy(),
        x_np @ value(layer.weight, ctx).T,
        rtol=1e-5,
        atol=1e-6,
    )


@pytest.mark.parametrize('flatten', [True, False])
def test_dense_gradients(ctx, flatten):
    layer = nn.Dense(
        3,
        activation='tanh',
        flatten=flatten,
        bias_initializer=init.Uniform(0.5),
    )
    layer.initialize(ctx=ctx)
    check_gradients(layer, rand((2, 2, 2), ctx)[1], ctx)


def test_dense_repr_before_and_after_shape_inference(ctx):
    layer = nn.Dense(256, activation='relu')
    assert repr(layer) == 'Dense(None -> 256, Activation(relu))'
    layer.initialize(ctx=ctx)
    layer(nd.ones((2, 20), ctx=ctx))
    assert repr(layer) == 'Dense(20 -> 256, Activation(relu))'
    assert repr(nn.Dense(10)) == 'Dense(None -> 10, linear)'
    assert repr(nn.Dense(10, in_units=20)) == 'Dense(20 -> 10, linear)'


def test_dense_names_and_params():
    with NameManager():
        first = nn.Dense(256, activation='relu')
        second = nn.Dense(10)
        net = nn.HybridSequential()
        with net.name_scope():
            net.add(nn.Dense(4), nn.Dense(2))
    assert first.name == 'dense0' and second.prefix == 'dense1_'
    assert list(first.collect_params()) == ['dense0_weight', 'dense0_bias']
    # the activation child lives in Dense's name scope
    assert first.act.prefix == 'dense0_relu_'
    assert list(net.collect_params()) == [
        'hybridsequential0_dense0_weight',
        'hybridsequential0_dense0_bias',
        'hybridsequential0_dense1_weight',
        'hybridsequential0_dense1_bias',
    ]
    assert first.weight.shape == (256, 0)
    assert first.params['dense0_bias'].shape == (256,)


def test_dense_initializers(ctx):
    layer = nn.Dense(3, in_units=4)
    # the block initializer is a default; the bias keeps its 'zeros'
    layer.initialize(init.Constant(0.5), ctx=ctx)
    assert (value(layer.weight, ctx) == 0.5).all()
    assert (value(layer.bias, ctx) == 0).all()
    own = nn.Dense(
        3, in_units=4, weight_initializer=init.One(), bias_initializer='ones'
    )
    own.initialize(init.Constant(0.5), ctx=ctx)
    assert (value(own.weight, ctx) == 1).all()
    assert (value(own.bias, ctx) == 1).all()
    default = nn.Dense(50, in_units=40)
    default.initialize(ctx=ctx)  # Uniform(0.07)
    w = value(default.weight, ctx)
    assert np.abs(w).max() <= 0.07 and w.std() > 0.02


def test_dense_deferred_initialization(ctx):
    with NameManager():
        layer = nn.Dense(4)
    layer.initialize(ctx=ctx)
    with pytest.raises(gluon.DeferredInitializationError) as err:
        layer.weight.data()
    assert str(err.value) == DEFERRED_MESSAGE
    assert layer.weight.shape == (4, 0)
    layer(nd.ones((3, 5), ctx=ctx))
    assert layer.weight.shape == (4, 5)
    assert layer.weight.data().shape == (4, 5)
    assert layer.weight.data().context == ctx


def test_dense_dtype(ctx):
    layer = nn.Dense(2, in_units=3, dtype='float64')
    layer.initialize(ctx=ctx)
    assert layer.weight.dtype == 'float64'
    y = layer(nd.ones((1, 3), ctx=ctx, dtype='float64'))
    assert y.dtype == np.float64


# -- Dropout ---------------------------------------------------------------


def test_dropout_is_identity_when_predicting(ctx):
    layer = nn.Dropout(0.5)
    x, x_np = rand((4, 5), ctx)
    assert (layer(x).asnumpy() == x_np).all()
    with autograd.predict_mode():
        assert (layer(x).asnumpy() == x_np).all()


def test_dropout_scales_kept_values_in_training(ctx):
    layer = nn.Dropout(0.5)
    x = nd.ones((100, 40), ctx=ctx)
    x.attach_grad()
    with autograd.record():
        y = layer(x)
    y.backward()
    out = y.asnumpy()
    assert set(np.unique(out)) <= {0.0, 2.0}
    assert 0.4 < (out == 0).mean() < 0.6
    # the gradient goes through the same mask: mask / (1 - p)
    assert (x.grad.asnumpy() == out).all()
    with autograd.train_mode():  # training without recording
        assert (layer(x).asnumpy() == 0).any()


def test_dropout_axes_share_the_mask(ctx):
    layer = nn.Dropout(0.5, axes=(1,))
    with autograd.train_mode():
        out = layer(nd.ones((50, 8), ctx=ctx)).asnumpy()
    assert (out == out[:, :1]).all()
    assert set(np.unique(out)) == {0.0, 2.0}


def test_dropout_rate_zero_and_repr(ctx):
    x, x_np = rand((3, 4), ctx)
    with autograd.train_mode():
        assert (nn.Dropout(0)(x).asnumpy() == x_np).all()
    assert repr(nn.Dropout(0.5)) == 'Dropout(p = 0.5, axes=())'
    assert repr(nn.Dropout(0.2, axes=(1,))) == 'Dropout(p = 0.2, axes=(1,))'


# -- Embedding -------------------------------------------------------------


def test_embedding_forward_and_repr(ctx):
    with NameManager():
        layer = nn.Embedding(10, 5)
    assert repr(layer) == 'Embedding(10 -> 5, float32)'
    assert list(layer.collect_params()) == ['embedding0_weight']
    layer.initialize(ctx=ctx)
    idx = np.array([[1, 3, 3], [0, 9, 2]])
    y = layer(nd.array(idx, ctx=ctx))
    assert y.shape == (2, 3, 5)
    assert_almost_equal(y.asnumpy(), value(layer.weight, ctx)[idx])


def test_embedding_weight_gradient(ctx):
    layer = nn.Embedding(6, 3)
    layer.initialize(ctx=ctx)
    # a repeated index must accumulate both rows of the output gradient
    check_gradients(
        layer, np.array([[1, 4, 1], [0, 5, 4]]), ctx, wrt_input=False
    )


# -- Flatten, Lambda, HybridLambda -------------------------------------------


def test_flatten(ctx):
    x, x_np = rand((2, 3, 4), ctx)
    layer = nn.Flatten()
    assert repr(layer) == 'Flatten'
    assert_almost_equal(layer(x).asnumpy(), x_np.reshape(2, 12))
    check_gradients(layer, x_np, ctx)


def test_lambda(ctx):
    x, x_np = rand((2, 3), ctx)
    by_name = nn.Lambda('tanh')
    assert repr(by_name) == 'Lambda(tanh)'
    assert_almost_equal(
        by_name(x).asnumpy(), np.tanh(x_np), rtol=1e-5, atol=1e-6
    )
    doubled = nn.Lambda(lambda a: a * 2)
    assert repr(doubled) == 'Lambda(<lambda>)'
    assert_almost_equal(doubled(x).asnumpy(), x_np * 2)
    with pytest.raises(AssertionError):
        nn.Lambda('no_such_function')
    with pytest.raises(ValueError):
        nn.Lambda(3)


def test_hybrid_lambda(ctx):
    x, x_np = rand((2, 3), ctx)
    by_name = nn.HybridLambda('tanh')
    assert repr(by_name) == 'HybridLambda(tanh)'
    assert_almost_equal(
        by_name(x).asnumpy(), np.tanh(x_np), rtol=1e-5, atol=1e-6
    )

    def leaky(F, a):
        return F.LeakyReLU(a, slope=0.1)

    block = nn.HybridLambda(leaky)
    assert repr(block) == 'HybridLambda(leaky)'
    assert_almost_equal(
        block(x).asnumpy(), np.where(x_np > 0, x_np, 0.1 * x_np), rtol=1e-6
    )
    check_gradients(block, rand((2, 3), ctx, seed=3)[1], ctx)
    with pytest.raises(AssertionError):
        nn.HybridLambda('no_such_function')
