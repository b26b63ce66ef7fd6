"""Generate ``sym.<op>`` functions from the operator registry.

``sym.FullyConnected(data, num_hidden=64, name='fc1')`` makes a node of
the same operator class ``nd.FullyConnected`` runs.  Inputs that are not
given become variables named ``<node>_<input>`` (``fc1_weight``,
``fc1_bias``, ``softmax_label``), as in MXNet.
"""

from .. import attribute
from .. import name as _name
from ..base import DLBookError
from ..ndarray.register import split_arguments
from ..ops import REGISTRY
from .symbol import HIDDEN_KEYS, Node, Symbol, Variable, stored_attrs

__all__ = ['make_function', 'make_node']


def make_node(op_name, inputs, attrs, name, attr=None, hint=None, named=None):
    """Create the node for one operator call; return its Symbol.

    ``inputs`` are Symbols for variadic operators; ``named`` maps input
    names to Symbols (missing ones become variables).
    """
    cls = REGISTRY[op_name]
    if cls.variadic and 'num_args' in cls.defaults:
        attrs.setdefault('num_args', len(inputs))
    # lr_mult=, wd_mult=, ctx_group=... given to an operator call are node
    # attributes (stored as __lr_mult__), as are those of ``attr`` and the
    # AttrScope; MXNet gives them to the operator's automatic variables too
    extra = stored_attrs(attribute.current().get(attr))
    for key in HIDDEN_KEYS:
        if key in attrs and key not in cls.defaults:
            extra.update(stored_attrs({key: attrs.pop(key)}))
    op = cls(**attrs)
    name = _name.current().get(name, (hint or op_name).lower())
    inherited = {**stored_attrs(attrs), **extra}
    if cls.variadic:
        sources = list(inputs)
        # named inputs beyond those given (UpSampling's bilinear weight)
        # become variables, as for other operators
        for input_name in op.list_inputs()[len(sources) :]:
            sources.append(
                _auto_variable(
                    f'{name}_{input_name}', op, input_name, inherited
                )
            )
    else:
        named = dict(named or {})
        if inputs:
            named.update(zip(cls.arguments, inputs))
        sources = []
        for input_name in op.list_inputs():
            given = named.get(input_name)
            if given is None:
                given = _auto_variable(
                    f'{name}_{input_name}', op, input_name, inherited
                )
            sources.append(given)
    edges = []
    for s in sources:
        if not isinstance(s, Symbol):
            raise DLBookError(
                f'{cls.name}: inputs must be Symbols, got {type(s).__name__}'
            )
        if len(s._outputs) != 1:
            raise DLBookError(
                f'{cls.name}: input {s} has '
                f'{len(s._outputs)} outputs; pick one with '
                f'[i]'
            )
        edges.append(s._outputs[0])
    # only the attributes given are stored, as MXNet's JSON does
    node = Node(cls.name, name, attrs=attrs, inputs=edges, extra=extra)
    return Symbol([(node, i) for i in range(op.num_outputs)])


def _auto_variable(name, op, input_name, inherited):
    """The variable made for an input not given (``fc1_weight``); it
    carries the node's attributes, as in MXNet's JSON."""
    var = Variable(name, init=op.input_inits.get(input_name))
    node = var._outputs[0][0]
    node.extra = {**inherited, **node.extra}
    return var


def make_function(cls, func_name):
    """Build the ``sym.<func_name>`` function for operator ``cls``."""

    def function(*args, name=None, attr=None, **kwargs):
        named, positional, attrs = split_arguments(
            cls, args, kwargs, input_type=Symbol
        )
        return make_node(
            cls.name,
            positional,
            attrs,
            name,
            attr,
            hint=func_name,
            named=named,
        )

    function.__name__ = func_name
    function.__qualname__ = func_name
    function.__doc__ = cls.__doc__
    function.__wrapped__ = cls
    return function
