"""Rows for dlbook/ops/loss_output.py.

These operators ignore the head gradient, so a central-difference check of
``sum(f(x) * cot)`` does not apply: every row has ``grad=()`` and the
gradients are checked against their formulas in test_nn_semantics.py.
"""

import numpy as np

from tests.ops.cases import Case


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _labels(data_shape, label_shape, classes):
    def make(rng, dtype):
        return [
            rng.uniform(-2, 2, size=data_shape).astype(dtype),
            rng.randint(0, classes, size=label_shape).astype(dtype),
        ]

    return make


def _regression(data_shape, label_shape):
    def make(rng, dtype):
        return [
            rng.uniform(-2, 2, size=data_shape).astype(dtype),
            rng.uniform(0, 1, size=label_shape).astype(dtype),
        ]

    return make


CASES = {
    'SoftmaxOutput': [
        Case(
            [(4, 5), (4,)],
            make_inputs=_labels((4, 5), (4,), 5),
            ref=lambda x, y: softmax(x, 1),
            grad=(),
        ),
        # default: (N, ...) is flattened to (N, -1) before the softmax
        Case(
            [(2, 3, 2), (2,)],
            make_inputs=_labels((2, 3, 2), (2,), 6),
            ref=lambda x, y: softmax(x.reshape(2, -1), 1).reshape(x.shape),
            grad=(),
        ),
        Case(
            [(2, 3, 4), (2, 4)],
            attrs={'multi_output': True},
            make_inputs=_labels((2, 3, 4), (2, 4), 3),
            ref=lambda x, y: softmax(x, 1),
            grad=(),
        ),
        Case(
            [(2, 3, 4), (2, 3)],
            attrs={'preserve_shape': True},
            make_inputs=_labels((2, 3, 4), (2, 3), 4),
            ref=lambda x, y: softmax(x, -1),
            grad=(),
        ),
    ],
    'LinearRegressionOutput': Case(
        [(4, 1), (4,)],
        make_inputs=_regression((4, 1), (4,)),
        ref=lambda x, y: x,
        grad=(),
    ),
    'LogisticRegressionOutput': Case(
        [(4, 3), (4, 3)],
        make_inputs=_regression((4, 3), (4, 3)),
        ref=lambda x, y: 1 / (1 + np.exp(-x)),
        grad=(),
    ),
    'MAERegressionOutput': Case(
        [(4, 3), (4, 3)],
        make_inputs=_regression((4, 3), (4, 3)),
        ref=lambda x, y: x,
        grad=(),
    ),
    'MakeLoss': Case([(3, 4)], ref=lambda x: x, grad=()),
    'make_loss': Case([(3, 4)], ref=lambda x: x, grad=()),
}
