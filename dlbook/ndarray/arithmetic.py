"""``nd.add``, ``nd.maximum``, ``nd.equal``... accepting arrays or numbers.

MXNet's Python-level helpers pick the broadcasting operator when both
operands are arrays and the ``*_scalar`` operator when one is a number
(``nd.maximum(x, 0)`` is ``_maximum_scalar(x, scalar=0)``).
"""

import numbers

from ..ops import REGISTRY
from .invoke import invoke
from .ndarray import NDArray

__all__ = ['add', 'subtract', 'multiply', 'divide', 'true_divide',
           'modulo', 'power', 'maximum', 'minimum', 'hypot', 'equal',
           'not_equal', 'greater', 'greater_equal', 'lesser',
           'lesser_equal', 'logical_and', 'logical_or', 'logical_xor']


def _dispatch(lhs, rhs, array_op, scalar_op, rscalar_op, py_fn):
    if isinstance(lhs, NDArray) and isinstance(rhs, NDArray):
        return invoke(REGISTRY[array_op](), [lhs, rhs])
    if isinstance(lhs, NDArray) and isinstance(rhs, numbers.Number):
        return invoke(REGISTRY[scalar_op](scalar=rhs), [lhs])
    if isinstance(rhs, NDArray) and isinstance(lhs, numbers.Number):
        return invoke(REGISTRY[rscalar_op](scalar=lhs), [rhs])
    if isinstance(lhs, numbers.Number) and isinstance(rhs, numbers.Number):
        return py_fn(lhs, rhs)
    raise TypeError(f'{array_op}: unsupported operand types '
                    f'{type(lhs).__name__} and {type(rhs).__name__}')


def _make(name, array_op, scalar_op, rscalar_op, py_fn, doc):
    def function(lhs, rhs):
        return _dispatch(lhs, rhs, array_op, scalar_op, rscalar_op, py_fn)
    function.__name__ = name
    function.__doc__ = (f'{doc}, element-wise with broadcasting; either '
                        f'operand may be a number.')
    return function


def _bool(fn):
    return lambda a, b: float(fn(a, b))


add = _make('add', 'broadcast_add', '_plus_scalar', '_plus_scalar',
            lambda a, b: a + b, 'lhs + rhs')
subtract = _make('subtract', 'broadcast_sub', '_minus_scalar',
                 '_rminus_scalar', lambda a, b: a - b, 'lhs - rhs')
multiply = _make('multiply', 'broadcast_mul', '_mul_scalar', '_mul_scalar',
                 lambda a, b: a * b, 'lhs * rhs')
divide = _make('divide', 'broadcast_div', '_div_scalar', '_rdiv_scalar',
               lambda a, b: a / b, 'lhs / rhs')
true_divide = divide
modulo = _make('modulo', 'broadcast_mod', '_mod_scalar', '_rmod_scalar',
               lambda a, b: a % b, 'lhs % rhs')
power = _make('power', 'broadcast_power', '_power_scalar', '_rpower_scalar',
              lambda a, b: a ** b, 'lhs ** rhs')
maximum = _make('maximum', 'broadcast_maximum', '_maximum_scalar',
                '_maximum_scalar', max, 'max(lhs, rhs)')
minimum = _make('minimum', 'broadcast_minimum', '_minimum_scalar',
                '_minimum_scalar', min, 'min(lhs, rhs)')
hypot = _make('hypot', 'broadcast_hypot', '_hypot_scalar', '_hypot_scalar',
              lambda a, b: (a * a + b * b) ** 0.5, 'sqrt(lhs**2 + rhs**2)')
equal = _make('equal', 'broadcast_equal', '_equal_scalar', '_equal_scalar',
              _bool(lambda a, b: a == b), 'lhs == rhs as 0/1')
not_equal = _make('not_equal', 'broadcast_not_equal', '_not_equal_scalar',
                  '_not_equal_scalar', _bool(lambda a, b: a != b),
                  'lhs != rhs as 0/1')
greater = _make('greater', 'broadcast_greater', '_greater_scalar',
                '_lesser_scalar', _bool(lambda a, b: a > b),
                'lhs > rhs as 0/1')
greater_equal = _make('greater_equal', 'broadcast_greater_equal',
                      '_greater_equal_scalar', '_lesser_equal_scalar',
                      _bool(lambda a, b: a >= b), 'lhs >= rhs as 0/1')
lesser = _make('lesser', 'broadcast_lesser', '_lesser_scalar',
               '_greater_scalar', _bool(lambda a, b: a < b),
               'lhs < rhs as 0/1')
lesser_equal = _make('lesser_equal', 'broadcast_lesser_equal',
                     '_lesser_equal_scalar', '_greater_equal_scalar',
                     _bool(lambda a, b: a <= b), 'lhs <= rhs as 0/1')
logical_and = _make('logical_and', 'broadcast_logical_and',
                    '_logical_and_scalar', '_logical_and_scalar',
                    _bool(lambda a, b: a and b), 'lhs and rhs as 0/1')
logical_or = _make('logical_or', 'broadcast_logical_or',
                   '_logical_or_scalar', '_logical_or_scalar',
                   _bool(lambda a, b: a or b), 'lhs or rhs as 0/1')
logical_xor = _make('logical_xor', 'broadcast_logical_xor',
                    '_logical_xor_scalar', '_logical_xor_scalar',
                    _bool(lambda a, b: bool(a) != bool(b)),
                    'lhs xor rhs as 0/1')
