"""``sym.add``, ``sym.maximum``, ... accepting symbols or numbers (the
same table as ``nd``'s, recording graph nodes instead of computing).

Where ``nd`` broadcasts, MXNet's Symbol API does not: two symbols combine
with the equal-shape operator (``sym.maximum(a, b)`` records ``_maximum``,
``a + b`` records ``elemwise_add``), and node names follow MXNet's Python
front end (``_plus0``, ``_mulscalar0``), so saved JSON matches MXNet's.
"""

import types

from ..ndarray.arithmetic import __all__, build  # noqa: F401
from ..ops import REGISTRY
from .register import make_node
from .symbol import Symbol

#: ``broadcast_add`` -> ``elemwise_add``, ``broadcast_maximum`` ->
#: ``_maximum``, ...: the operator two symbols combine with
EQUAL_SHAPE_FORM = {
    cls.broadcast_form: cls.name
    for cls in set(REGISTRY.values())
    if getattr(cls, 'broadcast_form', None)
}

#: automatic node names where MXNet's differ from the operator name: they
#: come from the ``_internal`` functions it calls (``_Plus``, ``_MulScalar``)
NAME_HINTS = {
    'elemwise_add': '_plus',
    'elemwise_sub': '_minus',
    'elemwise_mul': '_mul',
    'elemwise_div': '_div',
    '_plus_scalar': '_plusscalar',
    '_minus_scalar': '_minusscalar',
    '_rminus_scalar': '_rminusscalar',
    '_mul_scalar': '_mulscalar',
    '_div_scalar': '_divscalar',
    '_rdiv_scalar': '_rdivscalar',
    '_mod_scalar': '_modscalar',
    '_rmod_scalar': '_rmodscalar',
    '_power_scalar': '_powerscalar',
    '_rpower_scalar': '_rpowerscalar',
    '_maximum_scalar': '_maximumscalar',
    '_minimum_scalar': '_minimumscalar',
    '_hypot_scalar': '_hypotscalar',
}


def record(op_name, inputs, attrs):
    """Add one arithmetic node; two symbols use the equal-shape form."""
    op_name = EQUAL_SHAPE_FORM.get(op_name, op_name)
    return make_node(
        op_name, inputs, dict(attrs), None, hint=NAME_HINTS.get(op_name)
    )


globals().update(build(Symbol, record))


class _Operators:
    """Python's operators on Symbols, copied onto :class:`Symbol` by
    :func:`attach_operators` (``a + b``, ``a * 2``, ``-a``, ``a == b``)."""

    def _binary(self, other, array_op, scalar_op):
        # As in MXNet, two symbols combine element-wise without
        # broadcasting (``a + b`` is ``elemwise_add``, named ``_plus0``);
        # write ``sym.broadcast_add(a, b)`` to broadcast.
        if isinstance(other, Symbol) and array_op is not None:
            return record(array_op, [self, other], {})
        if isinstance(other, (int, float)):
            return record(scalar_op, [self], {'scalar': other})
        raise TypeError(f'type {type(other).__name__} not supported')

    def __add__(self, other):
        return self._binary(other, 'elemwise_add', '_plus_scalar')

    __radd__ = __add__

    def __sub__(self, other):
        return self._binary(other, 'elemwise_sub', '_minus_scalar')

    def __rsub__(self, other):
        return self._binary(other, None, '_rminus_scalar')

    def __mul__(self, other):
        return self._binary(other, 'elemwise_mul', '_mul_scalar')

    __rmul__ = __mul__

    def __truediv__(self, other):
        return self._binary(other, 'elemwise_div', '_div_scalar')

    def __rtruediv__(self, other):
        return self._binary(other, None, '_rdiv_scalar')

    def __mod__(self, other):
        return self._binary(other, '_mod', '_mod_scalar')

    def __rmod__(self, other):
        return self._binary(other, None, '_rmod_scalar')

    def __pow__(self, other):
        return self._binary(other, '_power', '_power_scalar')

    def __rpow__(self, other):
        return self._binary(other, None, '_rpower_scalar')

    def __neg__(self):
        return self._binary(-1.0, None, '_mul_scalar')

    def __abs__(self):
        return self.abs()

    def __eq__(self, other):
        return self._binary(other, '_equal', '_equal_scalar')

    def __ne__(self, other):
        return self._binary(other, '_not_equal', '_not_equal_scalar')

    def __gt__(self, other):
        return self._binary(other, '_greater', '_greater_scalar')

    def __ge__(self, other):
        return self._binary(other, '_greater_equal', '_greater_equal_scalar')

    def __lt__(self, other):
        return self._binary(other, '_lesser', '_lesser_scalar')

    def __le__(self, other):
        return self._binary(other, '_lesser_equal', '_lesser_equal_scalar')


def attach_operators(cls):
    """Give ``cls`` (Symbol) the operators of :class:`_Operators`."""
    for name, value in vars(_Operators).items():
        if isinstance(value, types.FunctionType):
            setattr(cls, name, value)
