"""Checkers of chapter 12: references pass, typical mistakes explained."""

import numpy as np

import dlbook as mx
from dlbook import nd, sym
from dlbook.exercises.checker import run_check
from dlbook.gluon import nn

from .failing import fails as _fails


def mlp(hidden=64, relu=True):
    net = sym.FullyConnected(sym.var('data'), num_hidden=hidden, name='fc1')
    if relu:
        net = sym.Activation(net, act_type='relu', name='relu1')
    net = sym.FullyConnected(net, num_hidden=10, name='fc2')
    return sym.SoftmaxOutput(net, name='softmax')


def test_mlp_symbol_reference_passes():
    result = run_check('ch12.mlp_symbol', mlp())
    assert result.passed, result.report()
    assert '1994 parameters' in result.message


def test_mlp_symbol_mistakes():
    _fails('ch12.mlp_symbol', mlp(hidden=32), 'fc1_weight has shape (32, 20)')
    _fails('ch12.mlp_symbol', mlp(relu=False), 'no ReLU')
    _fails('ch12.mlp_symbol', 'net', 'expected a Symbol')
    _fails('ch12.mlp_symbol', sym.var('x') * 2, 'no input called data')


def count_params(symbol, data_shape):
    shapes, _, _ = symbol.infer_shape(data=data_shape)
    return sum(
        int(np.prod(shape))
        for name, shape in zip(symbol.list_arguments(), shapes)
        if name != 'data' and not name.endswith('_label')
    )


def test_count_params_reference_passes():
    assert run_check('ch12.count_params', count_params).passed


def test_count_params_counting_the_data_is_explained():
    def with_data(symbol, data_shape):
        return count_params(symbol, data_shape) + int(np.prod(data_shape))

    _fails('ch12.count_params', with_data, 'counted the data')


def symbolic_grad(x):
    x_var = mx.sym.var('x')
    y = mx.sym.sum(2 * mx.sym.sin(x_var))
    ex = y.simple_bind(mx.cpu(), x=x.shape)
    ex.arg_dict['x'][:] = x
    ex.forward(is_train=True)
    ex.backward()
    return ex.grad_dict['x']


def test_executor_grad_reference_passes():
    assert run_check('ch12.executor_grad', symbolic_grad).passed


def test_executor_grad_mistakes():
    _fails('ch12.executor_grad', lambda x: nd.cos(x), 'factor 2')
    _fails('ch12.executor_grad', lambda x: 2 * nd.sin(x), 'y itself')


class Residual(nn.HybridBlock):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.dense = nn.Dense(units)

    def hybrid_forward(self, F, x):
        return F.relu(x + self.dense(x))


def test_hybrid_block_reference_passes():
    result = run_check('ch12.hybrid_block', Residual)
    assert result.passed, result.report()


def test_hybrid_block_using_nd_fails_after_hybridize():
    class WithNd(Residual):
        def hybrid_forward(self, F, x):
            return nd.relu(x + self.dense(x))

    _fails('ch12.hybrid_block', WithNd, 'after hybridize()', 'F.relu')


def test_hybrid_block_wrong_math_and_instances():
    class NoSkip(Residual):
        def hybrid_forward(self, F, x):
            return F.relu(self.dense(x))

    _fails('ch12.hybrid_block', NoSkip, 'before hybridize()')
    _fails('ch12.hybrid_block', Residual(8), 'HybridBlock class')
