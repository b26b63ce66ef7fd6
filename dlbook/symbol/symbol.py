"""Symbols: a computation described as a graph, to be run later.

A :class:`Symbol` is a list of outputs of graph nodes.  A node is either a
variable (an input to be bound to an array) or an operator from the same
registry that ``nd`` uses, with its attributes and input edges.  Nothing
is computed until the symbol is bound to arrays (``simple_bind``/``bind``)
and the resulting Executor runs.
"""

import copy
import numbers

from .. import attribute
from ..base import DLBookError, dtype_name
from ..ops import REGISTRY

__all__ = ['Symbol', 'Variable', 'var', 'Group', 'Node', 'HIDDEN_KEYS',
           'hidden_key']

#: attributes MXNet stores as ``__key__`` (``lr_mult`` -> ``__lr_mult__``)
#: and reports under both names (nnvm's kHiddenKeys)
HIDDEN_KEYS = ('ctx_group', 'lr_mult', 'wd_mult', 'force_mirroring',
               'mirror_stage', 'profiler_scope')


def hidden_key(key):
    """The stored name of attribute ``key``: ``'__lr_mult__'`` for
    ``'lr_mult'``, ``key`` itself otherwise."""
    return f'__{key}__' if key in HIDDEN_KEYS else key


def stored_attrs(attrs):
    """``attrs`` with hidden keys renamed and values as strings."""
    return {hidden_key(k): v if isinstance(v, str) else json_attr(v)
            for k, v in (attrs or {}).items()}


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
        return REGISTRY[self.op](**self.attrs)

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
            matches = [i for i, n in enumerate(self.list_outputs())
                       if n == index]
            if len(matches) > 1:
                raise ValueError(f'There are multiple outputs with name '
                                 f'"{index}"')
            if not matches:
                raise ValueError(f'Cannot find output that matches name '
                                 f'"{index}"')
            index = matches[0]
        if isinstance(index, slice):
            return Symbol(self._outputs[index])
        if not -len(self._outputs) <= index < len(self._outputs):
            raise IndexError(f'symbol has {len(self._outputs)} output(s), '
                             f'index {index} is out of range')
        return Symbol([self._outputs[index]])

    def __copy__(self):
        return self.__deepcopy__(None)

    def __deepcopy__(self, memo):
        """A new graph with the same structure: changing its attributes
        or composing it leaves this one untouched (as in MXNet)."""
        new = {}
        for node in self._nodes():
            twin = Node(node.op, node.name, attrs=node.attrs,
                        extra=node.extra)
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
            raise DeprecationWarning('Symbol.list_attr with recursive=True '
                                     'has been deprecated. Please use '
                                     'attr_dict instead.')
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
            raise TypeError('compose only accept input Symbols either as '
                            'positional or keyword arguments, not both')
        for value in list(args) + list(kwargs.values()):
            if not isinstance(value, Symbol):
                raise TypeError('Compose expect `Symbol` as arguments')
        variables = {n.name: n for n in self._nodes() if n.is_variable}
        arguments = self.list_arguments()
        replace = dict(zip(arguments, args))
        replace.update(kwargs)
        for key, value in replace.items():
            if key not in variables:
                raise DLBookError(f'cannot compose: {self} has no variable '
                                  f'{key!r}; arguments are {arguments}')
            if len(value._outputs) != 1:
                raise DLBookError('cannot compose with a grouped symbol')
        swap = {id(variables[k]): v._outputs[0] for k, v in replace.items()}
        for node in self._nodes():
            node.inputs = [swap.get(id(child), (child, i))
                           for child, i in node.inputs]
        self._outputs = [swap.get(id(n), (n, i)) for n, i in self._outputs]

    # -- arithmetic ----------------------------------------------------------
    def _binary(self, other, array_op, scalar_op):
        # As in MXNet, two symbols combine element-wise without
        # broadcasting (``a + b`` is ``elemwise_add``, named ``_plus0``);
        # write ``sym.broadcast_add(a, b)`` to broadcast.
        from .arithmetic import record
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
        from .json_io import to_json
        return to_json(self)

    def save(self, fname, remove_amp_cast=True):
        """Write :meth:`tojson` to ``fname`` (atomically)."""
        from .._atomic import atomic_write
        with atomic_write(fname, 'w') as f:
            f.write(self.tojson())

    def simple_bind(self, ctx, grad_req='write', type_dict=None,
                    stype_dict=None, group2ctx=None, shared_arg_names=None,
                    shared_exec=None, shared_buffer=None, **kwargs):
        """Allocate arrays from input shapes and return an Executor."""
        from ..executor import simple_bind
        return simple_bind(self, ctx, grad_req=grad_req,
                           type_dict=type_dict, stype_dict=stype_dict,
                           group2ctx=group2ctx,
                           shared_exec=shared_exec, shapes=kwargs)

    def bind(self, ctx, args, args_grad=None, grad_req='write',
             aux_states=None, group2ctx=None, shared_exec=None):
        """Return an Executor using the given argument arrays."""
        from ..executor import Executor
        return Executor(self, ctx, args, args_grad, grad_req, aux_states,
                        group2ctx)

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


def Variable(name, attr=None, shape=None, lr_mult=None, wd_mult=None,
             dtype=None, init=None, stype=None, **kwargs):
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
            raise ValueError(f'Attribute name={key} is not supported. '
                             f'Additional attributes must start and end '
                             f'with double underscores, e.g, __yourattr__')
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
    if hasattr(value, 'device_type'):       # a Context
        return str(value)
    if isinstance(value, type) or (hasattr(value, 'fields') and
                                   hasattr(value, 'kind')):
        return dtype_name(value)            # numpy.float32 -> 'float32'
    return str(value)                       # None -> 'None', as MXNet
