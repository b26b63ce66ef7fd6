"""Each activation function is computed by one operator class.

``nd.sigmoid(x)``, ``nd.Activation(x, act_type='sigmoid')``, Gluon's
``Dense(..., activation='sigmoid')`` and the RNN gates must give the same
numbers, and stay finite and silent at extreme inputs (no overflow
warning from ``exp``).
"""

import warnings

import numpy as np
import pytest

from dlbook import autograd, nd
from dlbook.ops.activation import ACT_TYPES

EXTREMES = [-1e4, -1000.0, -100.0, -20.0, 0.0, 20.0, 100.0, 1000.0, 1e4]
NAMED_OPS = {
    'relu': nd.relu,
    'sigmoid': nd.sigmoid,
    'tanh': nd.tanh,
    'softsign': nd.softsign,
}


def _value_and_grad(fn, values, dtype):
    x = nd.array(values, dtype=dtype)
    x.attach_grad()
    with autograd.record():
        y = fn(x)
    y.backward()
    return y.asnumpy(), x.grad.asnumpy()


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('act_type', sorted(ACT_TYPES))
def test_extreme_inputs_are_finite_and_silent(act_type, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        y, dx = _value_and_grad(
            lambda x: nd.Activation(x, act_type=act_type), EXTREMES, dtype
        )
    assert np.all(np.isfinite(dx))
    assert np.all(np.isfinite(y[1:-1]))  # softrelu(±1e4) is ±1e4, finite too
    assert np.all(np.isfinite(y))


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_sigmoid_saturates_exactly(dtype):
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        y = nd.sigmoid(nd.array([-1e4, -1000, 1000, 1e4], dtype=dtype))
    np.testing.assert_array_equal(y.asnumpy(), [0, 0, 1, 1])


def test_sigmoid_rounds_as_mxnet():
    """``1 / (1 + exp(-x))`` as written, as MXNet 1.9.1's ``nd.sigmoid``
    computes it (values recorded from it): 0 where ``exp(-x)``
    overflows, and within a few ulps elsewhere (NumPy's ``exp`` and the
    C library's may differ in the last bit)."""
    x = [-100.0, -89.0, -88.0, -50.0, -20.0, 0.0, 1e-8, 20.0, 90.0]
    mxnet = np.array(
        [0.0, 0.0, 6.0546015e-39, 1.9287499e-22, 2.0611537e-09]
        + [0.5, 0.5, 1.0, 1.0],
        dtype=np.float32,
    )
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        y = nd.sigmoid(nd.array(x, dtype='float32')).asnumpy()
    np.testing.assert_array_max_ulp(y, mxnet, maxulp=4)
    assert y[0] == y[1] == 0  # exp(-x) = inf: exactly 0, silently


def test_float16_sigmoid_computes_in_float32():
    # exp(12) overflows float16; MXNet's float16 kernels compute in float
    y = nd.sigmoid(nd.array([-12.0, 12.0], dtype='float16')).asnumpy()
    assert y.dtype == np.float16
    np.testing.assert_allclose(y, [6.144e-06, 1.0], rtol=1e-3)


def test_sigmoid_keeps_tiny_values():
    # 1 / (1 + e^20) = 2.06e-9: a tanh-based formula would give 0
    y = nd.sigmoid(nd.array([-20.0])).asnumpy()[0]
    assert y == pytest.approx(1 / (1 + np.exp(20.0)), rel=1e-6)


@pytest.mark.parametrize('act_type', sorted(NAMED_OPS))
def test_activation_equals_the_named_operator(act_type):
    values = np.linspace(-60, 60, 241)
    by_activation = _value_and_grad(
        lambda x: nd.Activation(x, act_type=act_type), values, 'float32'
    )
    by_name = _value_and_grad(NAMED_OPS[act_type], values, 'float32')
    np.testing.assert_array_equal(by_activation[0], by_name[0])
    np.testing.assert_array_equal(by_activation[1], by_name[1])


def test_gluon_dense_sigmoid_uses_the_same_sigmoid():
    from dlbook.gluon import nn

    net = nn.Dense(3, activation='sigmoid', in_units=2)
    net.initialize()
    x = nd.array([[500.0, -500.0], [-3.0, 2.0]])
    pre = nd.FullyConnected(
        x, net.weight.data(), net.bias.data(), num_hidden=3
    )
    np.testing.assert_array_equal(net(x).asnumpy(), nd.sigmoid(pre).asnumpy())
