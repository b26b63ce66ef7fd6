"""``nd.add``, ``nd.maximum``, ``nd.equal``... accepting arrays or numbers.

MXNet's Python-level helpers pick the broadcasting operator when both
operands are arrays and the ``*_scalar`` operator when one is a number
(``nd.maximum(x, 0)`` is ``_maximum_scalar(x, scalar=0)``).  The same
table builds the ``sym`` versions (``dlbook.symbol.arithmetic``).
"""

import numbers

from ..ops import REGISTRY
from .invoke import invoke
from .ndarray import NDArray

__all__ = [
    'add',
    'subtract',
    'multiply',
    'divide',
    'true_divide',
    'modulo',
    'power',
    'maximum',
    'minimum',
    'hypot',
    'equal',
    'not_equal',
    'greater',
    'greater_equal',
    'lesser',
    'lesser_equal',
    'logical_and',
    'logical_or',
    'logical_xor',
]


def _as_float(fn):
    return lambda a, b: float(fn(a, b))


# name, operator for two arrays, for (array, number), for (number, array),
# Python fallback for two numbers, formula for the docstring
TABLE = (
    (
        'add',
        'broadcast_add',
        '_plus_scalar',
        '_plus_scalar',
        lambda a, b: a + b,
        'lhs + rhs',
    ),
    (
        'subtract',
        'broadcast_sub',
        '_minus_scalar',
        '_rminus_scalar',
        lambda a, b: a - b,
        'lhs - rhs',
    ),
    (
        'multiply',
        'broadcast_mul',
        '_mul_scalar',
        '_mul_scalar',
        lambda a, b: a * b,
        'lhs * rhs',
    ),
    (
        'divide',
        'broadcast_div',
        '_div_scalar',
        '_rdiv_scalar',
        lambda a, b: a / b,
        'lhs / rhs',
    ),
    (
        'modulo',
        'broadcast_mod',
        '_mod_scalar',
        '_rmod_scalar',
        lambda a, b: a % b,
        'lhs % rhs',
    ),
    (
        'power',
        'broadcast_power',
        '_power_scalar',
        '_rpower_scalar',
        lambda a, b: a**b,
        'lhs ** rhs',
    ),
    (
        'maximum',
        'broadcast_maximum',
        '_maximum_scalar',
        '_maximum_scalar',
        max,
        'max(lhs, rhs)',
    ),
    (
        'minimum',
        'broadcast_minimum',
        '_minimum_scalar',
        '_minimum_scalar',
        min,
        'min(lhs, rhs)',
    ),
    (
        'hypot',
        'broadcast_hypot',
        '_hypot_scalar',
        '_hypot_scalar',
        lambda a, b: (a * a + b * b) ** 0.5,
        'sqrt(lhs**2 + rhs**2)',
    ),
    (
        'equal',
        'broadcast_equal',
        '_equal_scalar',
        '_equal_scalar',
        _as_float(lambda a, b: a == b),
        'lhs == rhs as 0/1',
    ),
    (
        'not_equal',
        'broadcast_not_equal',
        '_not_equal_scalar',
        '_not_equal_scalar',
        _as_float(lambda a, b: a != b),
        'lhs != rhs as 0/1',
    ),
    (
        'greater',
        'broadcast_greater',
        '_greater_scalar',
        '_lesser_scalar',
        _as_float(lambda a, b: a > b),
        'lhs > rhs as 0/1',
    ),
    (
        'greater_equal',
        'broadcast_greater_equal',
        '_greater_equal_scalar',
        '_lesser_equal_scalar',
        _as_float(lambda a, b: a >= b),
        'lhs >= rhs as 0/1',
    ),
    (
        'lesser',
        'broadcast_lesser',
        '_lesser_scalar',
        '_greater_scalar',
        _as_float(lambda a, b: a < b),
        'lhs < rhs as 0/1',
    ),
    (
        'lesser_equal',
        'broadcast_lesser_equal',
        '_lesser_equal_scalar',
        '_greater_equal_scalar',
        _as_float(lambda a, b: a <= b),
        'lhs <= rhs as 0/1',
    ),
    (
        'logical_and',
        'broadcast_logical_and',
        '_logical_and_scalar',
        '_logical_and_scalar',
        _as_float(lambda a, b: a and b),
        'lhs and rhs as 0/1',
    ),
    (
        'logical_or',
        'broadcast_logical_or',
        '_logical_or_scalar',
        '_logical_or_scalar',
        _as_float(lambda a, b: a or b),
        'lhs or rhs as 0/1',
    ),
    (
        'logical_xor',
        'broadcast_logical_xor',
        '_logical_xor_scalar',
        '_logical_xor_scalar',
        _as_float(lambda a, b: bool(a) != bool(b)),
        'lhs xor rhs as 0/1',
    ),
)


def build(array_type, call):
    """Make the helper functions for one front end.

    ``call(op_name, inputs, attrs)`` runs (``nd``) or records (``sym``) an
    operator; ``array_type`` is NDArray or Symbol.
    """
    made = {}
    for name, array_op, scalar_op, rscalar_op, py_fn, doc in TABLE:

        def function(
            lhs,
            rhs,
            array_op=array_op,
            scalar_op=scalar_op,
            rscalar_op=rscalar_op,
            py_fn=py_fn,
        ):
            left = isinstance(lhs, array_type)
            right = isinstance(rhs, array_type)
            if left and right:
                return call(array_op, [lhs, rhs], {})
            if left and isinstance(rhs, numbers.Number):
                return call(scalar_op, [lhs], {'scalar': rhs})
            if right and isinstance(lhs, numbers.Number):
                return call(rscalar_op, [rhs], {'scalar': lhs})
            if isinstance(lhs, numbers.Number) and isinstance(
                rhs, numbers.Number
            ):
                return py_fn(lhs, rhs)
            raise TypeError(
                f'{array_op}: unsupported operand types '
                f'{type(lhs).__name__} and '
                f'{type(rhs).__name__}'
            )

        function.__name__ = name
        function.__doc__ = (
            f'{doc}, element-wise with broadcasting; either '
            f'operand may be a number.'
        )
        made[name] = function
    made['true_divide'] = made['divide']
    return made


globals().update(
    build(
        NDArray,
        lambda op, inputs, attrs: invoke(REGISTRY[op](**attrs), inputs),
    )
)
