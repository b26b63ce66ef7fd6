"""Rows for the creation operators (no inputs)."""

import numpy as np

from tests.ops.cases import Case

CASES = {
    '_zeros': Case(
        [], attrs={'shape': (2, 3)}, ref=lambda: np.zeros((2, 3), np.float32)
    ),
    '_ones': Case(
        [], attrs={'shape': (4,), 'dtype': 'float64'}, ref=lambda: np.ones(4)
    ),
    '_full': Case(
        [],
        attrs={'shape': (2, 2), 'value': 3.5},
        ref=lambda: np.full((2, 2), 3.5, np.float32),
    ),
    '_empty': Case(
        [],
        attrs={'shape': (3,)},
        check=lambda outs, _: np.testing.assert_equal(outs[0].shape, (3,)),
    ),
    '_arange': [
        Case([], attrs={'start': 5}, ref=lambda: np.arange(5.0)),
        Case(
            [],
            attrs={'start': 1, 'stop': 7, 'step': 2, 'repeat': 2},
            ref=lambda: np.repeat(np.arange(1.0, 7.0, 2.0), 2),
        ),
    ],
    '_linspace': Case(
        [],
        attrs={'start': 0, 'stop': 1, 'num': 5},
        ref=lambda: np.linspace(0, 1, 5),
    ),
    '_eye': [
        Case([], attrs={'N': 3}, ref=lambda: np.eye(3)),
        Case([], attrs={'N': 2, 'M': 4, 'k': 1}, ref=lambda: np.eye(2, 4, 1)),
    ],
}
