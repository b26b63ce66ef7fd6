"""Symbols: a computation described as a graph, to be run later.

A :class:`Symbol` is a list of outputs of graph nodes.  A node is either a
variable (an input to be bound to an array) or an operator from the same
registry that ``nd`` uses, with its attributes and input edges.  Nothing
is computed until the symbol is bound to arrays (``simple_bind``/``bind``)
and the resulting Executor runs.
"""

import copy

from .. import attribute
from ..base import DLBookError, dtype_name
from . import json_io
from .node import (  # noqa: F401
    HIDDEN_KEYS,
    Node,
    _aux_variable_ids,
    _with_plain_names,
    hidden_key,
    json_attr,
    stored_attrs,
    topological_nodes,
)

__all__ = [
    'Symbol',
    'Variable',
    'var',
    'Group',
    'load_json',
    'Node',
    'HIDDEN_KEYS',
    'hidden_key',
]


class Symbol:
    """A symbolic computation with one or more outputs.

    Build symbols with ``sym.var`` and the ``sym.<op>`` functions; combine
    outputs with ``sym.Group``.  ``symbol[i]`` picks one output.
    """

    def __init__(self, outputs):
        self._outputs = list(outputs)

    # -- structure -----------------------------------------------------------
    def _nodes(self):
        return topological_nodes(self._outputs)

    @property
    def name(self):
        """Name of the (single) output's node; None for a group."""
        if len(self._outputs) != 1:
            return None
        return self._outputs[0][0].name

    def __repr__(self):
        if len(self._outputs) == 1:
            return f'<Symbol {self.name}>'
        names = ', '.join(node.name for node, _ in self._outputs)
        return f'<Symbol group [{names}]>'

    def __len__(self):
        return len(self._outputs)

    def __iter__(self):
        return (Symbol([out]) for out in self._outputs)

    def __getitem__(self, index):
        if isinstance(index, str):
            matches = [
                i for i, n in enumerate(self.list_outputs()) if n == index
            ]
            if len(matches) > 1:
                raise ValueError(
                    f'There are multiple outputs with name "{index}"'
                )
            if not matches:
                raise ValueError(
                    f'Cannot find output that matches name "{index}"'
                )
            index = matches[0]
        if isinstance(index, slice):
            return Symbol(self._outputs[index])
        if not -len(self._outputs) <= index < len(self._outputs):
            raise IndexError(
                f'symbol has {len(self._outputs)} output(s), '
                f'index {index} is out of range'
            )
        return Symbol([self._outputs[index]])

    def __copy__(self):
        return self.__deepcopy__(None)

    def __deepcopy__(self, memo):
        """A new graph with the same structure: changing its attributes
        or composing it leaves this one untouched (as in MXNet)."""
        new = {}
        for node in self._nodes():
            twin = Node(node.op, node.name, attrs=node.attrs, extra=node.extra)
            twin.inputs = [(new[id(c)], i) for c, i in node.inputs]
            new[id(node)] = twin
        return Symbol([(new[id(n)], i) for n, i in self._outputs])

    def list_arguments(self):
        """Argument variables (not auxiliary states), depth-first order."""
        nodes = self._nodes()
        aux = _aux_variable_ids(nodes)
        return [n.name for n in nodes if n.is_variable and id(n) not in aux]

    def list_auxiliary_states(self):
        """Auxiliary-state variables (BatchNorm's moving mean/var)."""
        nodes = self._nodes()
        aux = _aux_variable_ids(nodes)
        return [n.name for n in nodes if n.is_variable and id(n) in aux]

    def list_inputs(self):
        """Every variable, arguments and auxiliary states, in order."""
        return [n.name for n in self._nodes() if n.is_variable]

    def list_outputs(self):
        """Output names, e.g. ``['fc1_output']``."""
        return [node.output_names()[i] for node, i in self._outputs]

    def get_internals(self):
        """A group of every output of every node (variables included)."""
        outputs = []
        for node in self._nodes():
            outputs += [(node, i) for i in range(node.num_outputs())]
        return Symbol(outputs)

    def get_children(self):
        """The inputs of the output node, grouped; None for a variable."""
        node = self._outputs[0][0]
        if node.is_variable:
            return None
        return Symbol(node.inputs)

    # -- attributes ----------------------------------------------------------
    def attr(self, key):
        """The string attribute ``key`` of the output node, or None."""
        node = self._outputs[0][0]
        value = node.extra.get(hidden_key(key), node.extra.get(key))
        if value is None and key in node.attrs:
            value = json_attr(node.attrs[key])
        return value

    def list_attr(self, recursive=False):
        """Attributes of the output node (all nodes with ``recursive``)."""
        if recursive:
            raise DeprecationWarning(
                'Symbol.list_attr with recursive=True '
                'has been deprecated. Please use '
                'attr_dict instead.'
            )
        node = self._outputs[0][0]
        found = {k: json_attr(v) for k, v in node.attrs.items()}
        found.update(node.extra)
        return _with_plain_names(found)

    def attr_dict(self):
        """``{node name: {attribute: string value}}`` for every node."""
        result = {}
        for node in self._nodes():
            attrs = {k: json_attr(v) for k, v in node.attrs.items()}
            attrs.update(node.extra)
            if attrs:
                result[node.name] = _with_plain_names(attrs)
        return result

    def _set_attr(self, **kwargs):
        """Set string attributes on the output node."""
        for key, value in kwargs.items():
            if not isinstance(value, str):
                raise ValueError('Set Attr only accepts string values')
            self._outputs[0][0].extra[hidden_key(key)] = value

    # -- composition ---------------------------------------------------------
    def __call__(self, *args, **kwargs):
        """Replace variables by symbols: ``net(data=other)``."""
        result = copy.deepcopy(self)
        result._compose(*args, **kwargs)
        return result

    def _compose(self, *args, name=None, **kwargs):
        if args and kwargs:
            raise TypeError(
                'compose only accept input Symbols either as '
                'positional or keyword arguments, not both'
            )
        for value in list(args) + list(kwargs.values()):
            if not isinstance(value, Symbol):
                raise TypeError('Compose expect `Symbol` as arguments')
        variables = {n.name: n for n in self._nodes() if n.is_variable}
        arguments = self.list_arguments()
        replace = dict(zip(arguments, args))
        replace.update(kwargs)
        for key, value in replace.items():
            if key not in variables:
                raise DLBookError(
                    f'cannot compose: {self} has no variable '
                    f'{key!r}; arguments are {arguments}'
                )
            if len(value._outputs) != 1:
                raise DLBookError('cannot compose with a grouped symbol')
        swap = {id(variables[k]): v._outputs[0] for k, v in replace.items()}
        for node in self._nodes():
            node.inputs = [
                swap.get(id(child), (child, i)) for child, i in node.inputs
            ]
        self._outputs = [swap.get(id(n), (n, i)) for n, i in self._outputs]

    # -- arithmetic ----------------------------------------------------------
    # ``a + b``, ``a * 2``, ``a == b``... record nodes through the table of
    # ``sym.add`` and friends; ``dlbook.symbol.arithmetic`` attaches them
    # (it builds on this class, so it cannot be imported from here).

    def __hash__(self):
        return id(self)

    def __bool__(self):
        # MXNet: a Symbol has no truth value (it is not computed until
        # bound to arrays)
        from ..base import NotImplementedForSymbol

        raise NotImplementedForSymbol(self.__bool__, 'bool')

    # -- shapes, types, serialisation, binding -------------------------------
    def infer_shape(self, *args, **kwargs):
        """Shapes of arguments, outputs and auxiliary states from the
        known input shapes: ``(arg_shapes, out_shapes, aux_shapes)``."""
        from .infer import infer_shape

        return infer_shape(self, args, kwargs, partial=False)

    def infer_shape_partial(self, *args, **kwargs):
        """Like :meth:`infer_shape`, but returns what it can (unknown
        shapes are ``()``) instead of None."""
        from .infer import infer_shape

        return infer_shape(self, args, kwargs, partial=True)

    def infer_type(self, *args, **kwargs):
        """dtypes of arguments, outputs and auxiliary states."""
        from .infer import infer_type

        return infer_type(self, args, kwargs)

    def infer_type_partial(self, *args, **kwargs):
        """Like :meth:`infer_type`, but unknown dtypes are None in the
        lists instead of the whole answer being None."""
        from .infer import infer_type

        return infer_type(self, args, kwargs, partial=True)

    def tojson(self):
        """The graph in MXNet's JSON format."""
        return json_io.to_json(self)

    def save(self, fname, remove_amp_cast=True):
        """Write :meth:`tojson` to ``fname`` (atomically)."""
        from .._atomic import atomic_write

        with atomic_write(fname, 'w') as f:
            f.write(self.tojson())

    def simple_bind(
        self,
        ctx,
        grad_req='write',
        type_dict=None,
        stype_dict=None,
        group2ctx=None,
        shared_arg_names=None,
        shared_exec=None,
        shared_buffer=None,
        **kwargs,
    ):
        """Allocate arrays from input shapes and return an Executor."""
        # The one import from a layer above: binding hands the graph to
        # the Executor, which runs NDArrays.  MXNet's Symbol is the same
        # facade; the Executor itself knows nothing of this class.
        from ..executor import simple_bind

        return simple_bind(
            self,
            ctx,
            grad_req=grad_req,
            type_dict=type_dict,
            stype_dict=stype_dict,
            group2ctx=group2ctx,
            shared_exec=shared_exec,
            shapes=kwargs,
        )

    def bind(
        self,
        ctx,
        args,
        args_grad=None,
        grad_req='write',
        aux_states=None,
        group2ctx=None,
        shared_exec=None,
    ):
        """Return an Executor using the given argument arrays."""
        from ..executor import Executor

        return Executor(
            self, ctx, args, args_grad, grad_req, aux_states, group2ctx
        )

    def eval(self, ctx=None, **kwargs):
        """Evaluate with the given input arrays; returns a list of
        NDArrays."""
        from ..context import current_context

        exe = self.bind(ctx or current_context(), kwargs)
        return exe.forward()

    def debug_str(self):
        """A readable listing of the nodes."""
        lines = []
        for node in self._nodes():
            if node.is_variable:
                lines.append(f'Variable:{node.name}')
                continue
            lines.append('-' * 20)
            lines.append(f'Op:{node.op}, Name={node.name}')
            lines.append('Inputs:')
            for i, (child, k) in enumerate(node.inputs):
                lines.append(f'\targ[{i}]={child.name}({k})')
            if node.attrs:
                lines.append('Attrs:')
                lines += [f'\t{k}={v}' for k, v in node.attrs.items()]
        return '\n'.join(lines)


_SPECIAL_ATTRS = ('shape', 'dtype', 'lr_mult', 'wd_mult', 'init', 'stype')


def Variable(
    name,
    attr=None,
    shape=None,
    lr_mult=None,
    wd_mult=None,
    dtype=None,
    init=None,
    stype=None,
    **kwargs,
):
    """A named input of a graph (data, label or parameter).

    Parameters
    ----------
    name : str
    attr : dict of str, optional
        Extra string attributes (``{'ctx_group': 'dev1'}``).
    shape, dtype : optional
        Known shape and type, used by ``infer_shape``/``infer_type``.
    lr_mult, wd_mult : float, optional
        Per-variable multipliers used by optimizers.
    init : Initializer, optional
        Initializer used by ``Module.init_params``.
    """
    if not isinstance(name, str):
        raise TypeError('Expect a string for variable `name`')
    extra = stored_attrs(attribute.current().get(attr))
    if shape is not None:
        extra['__shape__'] = str(tuple(shape))
    if lr_mult is not None:
        extra['__lr_mult__'] = str(lr_mult)
    if wd_mult is not None:
        extra['__wd_mult__'] = str(wd_mult)
    if dtype is not None:
        # MXNet stores the type flag (0 = float32) as a string
        from ..base import DTYPE_TO_FLAG

        extra['__dtype__'] = str(DTYPE_TO_FLAG[dtype_name(dtype)])
    if init is not None:
        extra['__init__'] = init if isinstance(init, str) else init.dumps()
    if stype is not None:
        # MXNet stores the storage-type id: default 0, row_sparse 1, csr 2
        from ..ops.sparse import stype_id

        extra['__storage_type__'] = str(stype_id(stype))
    for key, value in kwargs.items():
        if key.startswith('__') and key.endswith('__'):
            extra[key] = str(value)
        else:
            raise ValueError(
                f'Attribute name={key} is not supported. '
                f'Additional attributes must start and end '
                f'with double underscores, e.g, __yourattr__'
            )
    return Symbol([(Node(None, name, extra=extra), 0)])


var = Variable


def Group(symbols):
    """One symbol whose outputs are the outputs of ``symbols``."""
    symbols = list(symbols)
    if not symbols or not all(isinstance(s, Symbol) for s in symbols):
        raise TypeError('Expected a list of symbols as input')
    outputs = []
    for s in symbols:
        outputs += s._outputs
    return Symbol(outputs)


def load_json(json_str, source='symbol JSON'):
    """Build a Symbol from MXNet's JSON text (graphs saved by MXNet 1.x
    load here).

    Any malformed graph (not JSON, wrong types, an input or head index
    outside the node list, a node without ``op``) raises one
    :class:`~dlbook.base.DLBookError` whose message starts with
    ``source`` (``"symbol file 'net-symbol.json'"``).
    """
    return Symbol(json_io.read_outputs(json_str, source))
