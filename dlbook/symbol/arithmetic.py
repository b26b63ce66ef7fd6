"""``sym.add``, ``sym.maximum``, ... accepting symbols or numbers (the
same table as ``nd``'s, recording graph nodes instead of computing).

Where ``nd`` broadcasts, MXNet's Symbol API does not: two symbols combine
with the equal-shape operator (``sym.maximum(a, b)`` records ``_maximum``,
``a + b`` records ``elemwise_add``), and node names follow MXNet's Python
front end (``_plus0``, ``_mulscalar0``), so saved JSON matches MXNet's.
"""

from ..ndarray.arithmetic import __all__, build  # noqa: F401
from ..ops import REGISTRY
from .register import make_node
from .symbol import Symbol

#: ``broadcast_add`` -> ``elemwise_add``, ``broadcast_maximum`` ->
#: ``_maximum``, ...: the operator two symbols combine with
EQUAL_SHAPE_FORM = {cls.broadcast_form: cls.name
                    for cls in set(REGISTRY.values())
                    if getattr(cls, 'broadcast_form', None)}

#: automatic node names where MXNet's differ from the operator name: they
#: come from the ``_internal`` functions it calls (``_Plus``, ``_MulScalar``)
NAME_HINTS = {
    'elemwise_add': '_plus', 'elemwise_sub': '_minus',
    'elemwise_mul': '_mul', 'elemwise_div': '_div',
    '_plus_scalar': '_plusscalar', '_minus_scalar': '_minusscalar',
    '_rminus_scalar': '_rminusscalar', '_mul_scalar': '_mulscalar',
    '_div_scalar': '_divscalar', '_rdiv_scalar': '_rdivscalar',
    '_mod_scalar': '_modscalar', '_rmod_scalar': '_rmodscalar',
    '_power_scalar': '_powerscalar', '_rpower_scalar': '_rpowerscalar',
    '_maximum_scalar': '_maximumscalar',
    '_minimum_scalar': '_minimumscalar', '_hypot_scalar': '_hypotscalar',
}


def record(op_name, inputs, attrs):
    """Add one arithmetic node; two symbols use the equal-shape form."""
    op_name = EQUAL_SHAPE_FORM.get(op_name, op_name)
    return make_node(op_name, inputs, dict(attrs), None,
                     hint=NAME_HINTS.get(op_name))


globals().update(build(Symbol, record))
