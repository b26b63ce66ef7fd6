"""Activation layers against NumPy formulas, with gradient checks."""

import math

import numpy as np
import pytest

from dlbook import initializer as init
from dlbook import nd
from dlbook.gluon import nn
from dlbook.name import NameManager
from dlbook.test_utils import assert_almost_equal

from ._helpers import check_gradients, value

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_LAMBDA = 1.0507009873554804934193349852946
_erf = np.vectorize(math.erf)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def gelu_tanh(x):
    inner = math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)
    return 0.5 * x * (1 + np.tanh(inner))


# (layer factory, NumPy reference)
CASES = {
    'relu': (lambda: nn.Activation('relu'), lambda x: np.maximum(x, 0)),
    'sigmoid': (lambda: nn.Activation('sigmoid'), sigmoid),
    'tanh': (lambda: nn.Activation('tanh'), np.tanh),
    'softrelu': (
        lambda: nn.Activation('softrelu'),
        lambda x: np.log1p(np.exp(x)),
    ),
    'softsign': (
        lambda: nn.Activation('softsign'),
        lambda x: x / (1 + np.abs(x)),
    ),
    'leaky': (
        lambda: nn.LeakyReLU(0.1),
        lambda x: np.where(x > 0, x, 0.1 * x),
    ),
    'elu': (lambda: nn.ELU(), lambda x: np.where(x > 0, x, np.expm1(x))),
    'elu_alpha': (
        lambda: nn.ELU(alpha=0.5),
        lambda x: np.where(x > 0, x, 0.5 * np.expm1(x)),
    ),
    'selu': (
        nn.SELU,
        lambda x: SELU_LAMBDA * np.where(x > 0, x, SELU_ALPHA * np.expm1(x)),
    ),
    'gelu': (nn.GELU, lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2)))),
    'gelu_tanh': (lambda: nn.GELU(approximation='tanh'), gelu_tanh),
    'swish': (lambda: nn.Swish(beta=1.5), lambda x: x * sigmoid(1.5 * x)),
    'prelu': (nn.PReLU, lambda x: np.where(x > 0, x, 0.25 * x)),
}


def sample(shape, seed=0):
    """Values in +-[0.1, 2], away from the kink at 0."""
    rng = np.random.RandomState(seed)
    return rng.uniform(0.1, 2, shape) * rng.choice([-1, 1], shape)


@pytest.mark.parametrize('case', sorted(CASES))
def test_activation_forward_and_gradient(ctx, case):
    make, ref = CASES[case]
    layer = make()
    layer.initialize(ctx=ctx)
    x_np = sample((2, 3, 2)).astype('float32')
    y = layer(nd.array(x_np, ctx=ctx))
    assert_almost_equal(
        y.asnumpy(), ref(x_np.astype('float64')), rtol=1e-5, atol=1e-6
    )
    check_gradients(layer, sample((2, 3, 2), seed=1), ctx)


def test_prelu_per_channel(ctx):
    with NameManager():
        layer = nn.PReLU(alpha_initializer=init.Uniform(0.5), in_channels=3)
    assert list(layer.collect_params()) == ['prelu0_alpha']
    layer.initialize(ctx=ctx)
    alpha = value(layer.alpha, ctx)
    x_np = sample((2, 3, 2)).astype('float32')
    y = layer(nd.array(x_np, ctx=ctx))
    want = np.where(x_np > 0, x_np, alpha.reshape(1, 3, 1) * x_np)
    assert_almost_equal(y.asnumpy(), want, rtol=1e-6)
    check_gradients(layer, sample((2, 3, 2), seed=2), ctx)


def test_activation_names_and_reprs(ctx):
    with NameManager():
        relu = nn.Activation('relu')
        tanh = nn.Activation('tanh')
        prelu = nn.PReLU()
    assert relu.prefix == 'relu0_' and tanh.name == 'tanh0'
    assert repr(relu) == 'Activation(relu)'
    assert repr(nn.LeakyReLU(0.1)) == 'LeakyReLU(0.1)'
    # layers without a repr of their own print as an empty Block
    assert repr(prelu) == 'PReLU(\n\n)'
    prelu.initialize(ctx=ctx)
    assert (value(prelu.alpha, ctx) == 0.25).all()
    assert prelu.alpha.name == 'prelu0_alpha'


def test_activation_argument_checks():
    with pytest.raises(AssertionError):
        nn.LeakyReLU(-0.1)
    with pytest.raises(ValueError):
        nn.GELU(approximation='cubic')
