"""``sym.np`` and ``sym.npx``: NumPy-mode functions that build graph nodes.

With ``F = mx.sym`` (a block called on a Symbol), ``F.np.add(x, 1)`` and
``F.npx.relu(x)`` record nodes under MXNet's np-mode operator names
(``_npi_add_scalar``, ``_npx_relu``; ``dlbook.symbol.np_names``), the
nodes a hybridized np-mode block writes to its exported JSON.  Only the
element-wise functions are here: the rest of ``mx.np`` needs the operands'
shapes, which a Symbol does not know.  Hybridizing does not need this
module: dlbook traces np-mode blocks by running them
(``dlbook.gluon.deferred``), where ``F.np`` is ``mx.np`` itself.
"""

import numbers
import types

from .np_names import NP_NAMES
from .register import make_node
from .symbol import Symbol

__all__ = ['np', 'npx']

_NP_OP = {np_name: op for op, (np_name, _) in NP_NAMES.items()}


def _node(np_name, inputs, attrs, extra=None):
    hint = NP_NAMES[_NP_OP[np_name]][1]
    out = make_node(np_name, inputs, attrs, None, hint=hint)
    node = out._outputs[0][0]
    node.op = np_name           # the JSON name, not the canonical one
    node.extra.update(extra or {})
    return out


def _binary(name, reverse_name=None):
    def function(x1, x2):
        if isinstance(x1, Symbol) and isinstance(x2, Symbol):
            return _node(f'_npi_{name}', [x1, x2], {})
        if isinstance(x1, Symbol):
            array, number, op = x1, x2, f'_npi_{name}_scalar'
        else:
            array, number = x2, x1
            op = f'_npi_{reverse_name}_scalar' if reverse_name else \
                f'_npi_{name}_scalar'
        if not isinstance(number, numbers.Number):
            raise TypeError(f'sym.np.{name}: operands must be Symbols or '
                            f'numbers, got {type(number).__name__}')
        return _node(op, [array], {'scalar': float(number)},
                     {'is_int': str(isinstance(number, int))})
    function.__name__ = name
    function.__doc__ = f'Element-wise ``{name}`` of Symbols or numbers.'
    return function


def _unary(np_name, name):
    def function(x):
        return _node(np_name, [x], {})
    function.__name__ = name
    function.__doc__ = f'Element-wise ``{name}`` (node ``{np_name}``).'
    return function


np = types.ModuleType('dlbook.symbol.np', __doc__)
npx = types.ModuleType('dlbook.symbol.npx', __doc__)
for _name, _rev in (('add', None), ('subtract', 'rsubtract'),
                    ('multiply', None), ('true_divide', 'rtrue_divide'),
                    ('mod', 'rmod'), ('power', 'rpower')):
    setattr(np, _name, _binary(_name, _rev))
np.divide = np.true_divide
for _op, (_np_name, _hint) in NP_NAMES.items():
    if _np_name.startswith('_npi_') and not _op.startswith('broadcast') \
            and not _op.endswith('_scalar'):
        setattr(np, _hint, _unary(_np_name, _hint))
np.absolute = np.abs


def _maximum_or_minimum(name):
    legacy = {'maximum': '_maximum_scalar', 'minimum': '_minimum_scalar'}

    def function(x1, x2):
        if isinstance(x1, Symbol) and isinstance(x2, Symbol):
            return _node(f'_npi_{name}', [x1, x2], {})
        array, number = (x1, x2) if isinstance(x1, Symbol) else (x2, x1)
        # MXNet 1.9.1 records the legacy scalar operator here
        return make_node(legacy[name], [array], {'scalar': float(number)},
                         None, hint=f'{name}_scalar')
    function.__name__ = name
    return function


np.maximum = _maximum_or_minimum('maximum')
np.minimum = _maximum_or_minimum('minimum')
npx.relu = _unary('_npx_relu', 'relu')
npx.sigmoid = _unary('_npx_sigmoid', 'sigmoid')
del _name, _rev, _op, _np_name, _hint
