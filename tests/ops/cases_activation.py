"""Rows for dlbook/ops/activation.py: softmax family and activations."""

import math

import numpy as np

from tests.ops.cases import Case

np_erf = np.vectorize(math.erf, otypes=[np.float64])


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax(x, axis=-1):
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def _with_length(rng, dtype):
    data = rng.uniform(-2, 2, size=(3, 5)).astype(dtype)
    length = np.array([2, 5, 3], dtype='int64')
    return [data, length]


def masked_softmax(x, length):
    mask = np.arange(x.shape[1])[None, :] < length[:, None]
    e = np.where(mask, np.exp(x - x.max(axis=1, keepdims=True)), 0)
    return e / e.sum(axis=1, keepdims=True)


def masked_log_softmax(x, length):
    mask = np.arange(x.shape[1])[None, :] < length[:, None]
    p = masked_softmax(x, length)
    return np.where(mask, np.log(np.where(mask, p, 1)), 0)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def softrelu(x):
    return np.log1p(np.exp(x))


def _prelu_inputs(rng, dtype):
    return [
        rng.uniform(-1, 1, size=(2, 3, 4)).astype(dtype),
        rng.uniform(0.1, 0.5, size=(3,)).astype(dtype),
    ]


def _rrelu_check(outs, inputs):
    (y,), (x,) = outs, inputs
    pos = x > 0
    np.testing.assert_array_equal(y[pos], x[pos])
    ratio = y[~pos] / x[~pos]
    assert ratio.min() >= 0.125 - 1e-6 and ratio.max() <= 0.334 + 1e-6
    assert ratio.std() > 0.01  # the slopes really are random


SELU_A, SELU_L = 1.6732632423543772848, 1.0507009873554804934

CASES = {
    'softmax': [
        Case([(3, 5)], ref=softmax, low=-3, high=3),
        Case([(4, 3, 2)], attrs={'axis': 0}, ref=lambda x: softmax(x, 0)),
        Case(
            [(3, 5)],
            attrs={'temperature': 2.0},
            ref=lambda x: softmax(x / 2.0),
        ),
        Case(
            [(3, 5), (3,)],
            attrs={'use_length': True},
            make_inputs=_with_length,
            ref=masked_softmax,
        ),
    ],
    'softmin': [
        Case([(3, 5)], ref=lambda x: softmax(-x), low=-3, high=3),
        Case([(4, 3, 2)], attrs={'axis': 0}, ref=lambda x: softmax(-x, 0)),
        Case(
            [(3, 5)],
            attrs={'temperature': 2.0},
            ref=lambda x: softmax(-x / 2.0),
        ),
        Case(
            [(3, 5), (3,)],
            attrs={'use_length': True},
            make_inputs=_with_length,
            ref=lambda x, length: masked_softmax(-x, length),
            grad=(0,),
        ),
    ],
    'log_softmax': [
        Case([(3, 5)], ref=log_softmax, low=-3, high=3),
        Case([(2, 4, 3)], attrs={'axis': 1}, ref=lambda x: log_softmax(x, 1)),
        Case(
            [(3, 5)],
            attrs={'temperature': 0.5},
            ref=lambda x: log_softmax(x / 0.5),
        ),
        Case(
            [(3, 5), (3,)],
            attrs={'use_length': True},
            make_inputs=_with_length,
            ref=masked_log_softmax,
        ),
    ],
    'SoftmaxActivation': [
        Case(
            [(2, 3, 4)],
            ref=lambda x: softmax(x.reshape(2, -1), 1).reshape(x.shape),
        ),
        Case(
            [(2, 3, 4)], attrs={'mode': 'channel'}, ref=lambda x: softmax(x, 1)
        ),
    ],
    'Activation': [
        Case(
            [(3, 4)],
            attrs={'act_type': 'relu'},
            avoid=(0.0,),
            ref=lambda x: np.maximum(x, 0),
        ),
        Case(
            [(3, 4)],
            attrs={'act_type': 'sigmoid'},
            low=-4,
            high=4,
            ref=sigmoid,
        ),
        Case(
            [(3, 4)], attrs={'act_type': 'tanh'}, low=-2, high=2, ref=np.tanh
        ),
        Case(
            [(3, 4)],
            attrs={'act_type': 'softrelu'},
            low=-4,
            high=4,
            ref=softrelu,
        ),
        Case(
            [(3, 4)],
            attrs={'act_type': 'softsign'},
            avoid=(0.0,),
            ref=lambda x: x / (1 + np.abs(x)),
        ),
        Case(
            [(3, 4)],
            attrs={'act_type': 'log_sigmoid'},
            low=-4,
            high=4,
            ref=lambda x: np.log(sigmoid(x)),
        ),
        Case(
            [(3, 4)],
            attrs={'act_type': 'mish'},
            low=-3,
            high=3,
            ref=lambda x: x * np.tanh(softrelu(x)),
        ),
    ],
    'LeakyReLU': [
        Case(
            [(3, 4)], avoid=(0.0,), ref=lambda x: np.where(x > 0, x, 0.25 * x)
        ),
        Case(
            [(3, 4)],
            attrs={'act_type': 'leaky', 'slope': 0.1},
            avoid=(0.0,),
            ref=lambda x: np.where(x > 0, x, 0.1 * x),
        ),
        Case(
            [(2, 3, 4), (3,)],
            attrs={'act_type': 'prelu'},
            avoid=(0.0,),
            make_inputs=_prelu_inputs,
            ref=lambda x, g: np.where(x > 0, x, g.reshape(1, 3, 1) * x),
        ),
        Case(
            [(3, 4)],
            attrs={'act_type': 'elu', 'slope': 1.0},
            avoid=(0.0,),
            low=-3,
            high=3,
            ref=lambda x: np.where(x > 0, x, np.expm1(x)),
        ),
        Case(
            [(3, 4)],
            attrs={'act_type': 'selu'},
            avoid=(0.0,),
            low=-3,
            high=3,
            ref=lambda x: SELU_L * np.where(x > 0, x, SELU_A * np.expm1(x)),
        ),
        Case(
            [(4, 5)],
            attrs={'act_type': 'gelu'},
            low=-4,
            high=4,
            ref=lambda x: 0.5 * x * (1 + np_erf(x / np.sqrt(2))),
        ),
        Case(
            [(6, 8)],
            attrs={'act_type': 'rrelu'},
            avoid=(0.0,),
            is_train=True,
            check=_rrelu_check,
        ),
        Case(
            [(3, 4)],
            attrs={'act_type': 'rrelu'},
            avoid=(0.0,),
            ref=lambda x: np.where(x > 0, x, (0.125 + 0.334) / 2 * x),
        ),
    ],
}
