"""Graph nodes: what a Symbol is made of, below every front end.

A :class:`Node` is a variable (an input to be bound to an array) or an
operator call from the registry ``nd`` uses, with its attributes and input
edges.  ``topological_nodes`` lists a graph's nodes, inputs first, in
MXNet's order; ``json_attr`` writes an attribute value as MXNet's JSON
stores it.  The Symbol facade (``symbol.py``), shape inference
(``infer.py``), the JSON reader and writer (``json_io.py``) and the graph
runner (``program.py``) all build on these and import nothing above them.
"""

import numbers

from ..base import dtype_name
from ..ops import REGISTRY

__all__ = [
    'Node',
    'topological_nodes',
    'HIDDEN_KEYS',
    'hidden_key',
    'stored_attrs',
    'json_attr',
    'SUBGRAPH_OPS',
    'op_class',
]

#: Operators that run subgraphs (``_foreach``, ``_while_loop``, ``_cond``,
#: ``dlbook/symbol/control_flow.py``).  They exist only inside symbol
#: graphs (no ``nd.<op>`` front end, no raw-array test row), so they are
#: kept out of ``REGISTRY`` and looked up here after it.
SUBGRAPH_OPS = {}


def op_class(name):
    """The operator class of node operator ``name``."""
    cls = REGISTRY.get(name)
    return cls if cls is not None else SUBGRAPH_OPS[name]


#: attributes MXNet stores as ``__key__`` (``lr_mult`` -> ``__lr_mult__``)
#: and reports under both names (nnvm's kHiddenKeys)
HIDDEN_KEYS = (
    'ctx_group',
    'lr_mult',
    'wd_mult',
    'force_mirroring',
    'mirror_stage',
    'profiler_scope',
)


def hidden_key(key):
    """The stored name of attribute ``key``: ``'__lr_mult__'`` for
    ``'lr_mult'``, ``key`` itself otherwise."""
    return f'__{key}__' if key in HIDDEN_KEYS else key


def stored_attrs(attrs):
    """``attrs`` with hidden keys renamed and values as strings."""
    return {
        hidden_key(k): v if isinstance(v, str) else json_attr(v)
        for k, v in (attrs or {}).items()
    }


def _with_plain_names(attrs):
    """``{'__lr_mult__': '2'}`` -> also ``'lr_mult': '2'`` (MXNet's
    ``list_attr``/``attr_dict`` show hidden keys under both names)."""
    for key in HIDDEN_KEYS:
        if f'__{key}__' in attrs:
            attrs[key] = attrs[f'__{key}__']
    return attrs


class Node:
    """One graph node: a variable (``op is None``) or an operator call.

    ``inputs`` are ``(node, output_index)`` pairs; ``attrs`` are the
    operator's attributes (Python values); ``extra`` holds string
    attributes such as ``ctx_group``, ``lr_mult`` or ``__shape__``.
    """

    __slots__ = ('op', 'name', 'attrs', 'inputs', 'extra', '_op')

    def __init__(self, op, name, attrs=None, inputs=(), extra=None):
        self.op = op
        self.name = name
        self.attrs = dict(attrs or {})
        self.inputs = list(inputs)
        self.extra = dict(extra or {})
        self._op = None

    @property
    def is_variable(self):
        return self.op is None

    def make_op(self):
        """A fresh operator instance for this node."""
        return op_class(self.op)(**self.attrs)

    def op_info(self):
        """A cached operator instance for questions about names/outputs."""
        if self._op is None:
            self._op = self.make_op()
        return self._op

    def num_outputs(self):
        return 1 if self.is_variable else self.op_info().num_outputs

    def output_names(self):
        if self.is_variable:
            return [self.name]
        return [f'{self.name}_{o}' for o in self.op_info().list_outputs()]

    def num_arguments(self):
        """Inputs before this position are arguments, after it aux."""
        if self.is_variable:
            return 0
        info = self.op_info()
        if info.variadic:
            return len(self.inputs)
        return len(info.list_arguments())


def topological_nodes(outputs):
    """Nodes reachable from ``outputs``, inputs first, in MXNet's
    depth-first order (iterative, for deep graphs)."""
    order, seen = [], set()
    for head, _ in outputs:
        stack = [(head, 0)]
        while stack:
            node, i = stack.pop()
            if i == 0 and id(node) in seen:
                continue
            if i < len(node.inputs):
                stack.append((node, i + 1))
                child = node.inputs[i][0]
                if id(child) not in seen:
                    stack.append((child, 0))
            else:
                if id(node) not in seen:
                    seen.add(id(node))
                    order.append(node)
    return order


def _aux_variable_ids(nodes):
    """Variables used as auxiliary states (e.g. BatchNorm moving stats)."""
    aux = set()
    for node in nodes:
        if node.is_variable:
            continue
        n_args = node.num_arguments()
        for child, _ in node.inputs[n_args:]:
            aux.add(id(child))
    return aux


def _plain(value):
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, (list, tuple)):
        return tuple(_plain(v) for v in value)
    return value


def json_attr(value):
    """Serialise an attribute value as MXNet does (a string)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return 'True' if value else 'False'
    if isinstance(value, (list, tuple)):
        # plain Python numbers: numpy scalars would print as np.int64(5)
        return str(tuple(_plain(v) for v in value))
    if hasattr(value, 'device_type'):  # a Context
        return str(value)
    if isinstance(value, type) or (
        hasattr(value, 'fields') and hasattr(value, 'kind')
    ):
        return dtype_name(value)  # numpy.float32 -> 'float32'
    return str(value)  # None -> 'None', as MXNet
