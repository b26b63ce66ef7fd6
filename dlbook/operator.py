"""``mx.operator``: operators written in Python (``CustomOp``).

An operator in Python has two classes, as in MXNet 1.x:

* a :class:`CustomOpProp` describes the operator: its argument, output and
  auxiliary-state names, its shape and type rules, which arrays its
  backward pass needs, and which :class:`CustomOp` computes it;
* a :class:`CustomOp` computes: ``forward`` fills ``out_data`` from
  ``in_data``, ``backward`` fills ``in_grad`` from ``out_grad``, both with
  ``self.assign(dst, req, src)``.

``@mx.operator.register('softmax')`` records the property class under a
name; ``nd.Custom(x, label, op_type='softmax')`` runs it now (and under
``autograd.record()``), ``sym.Custom(data, op_type='softmax')`` puts it in
a graph that executors and hybridized blocks run.  Extra keyword
arguments reach the property's ``__init__`` as strings, as in MXNet.

Example (MXNet's tutorial)::

    class Softmax(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            x = in_data[0].asnumpy()
            y = np.exp(x - x.max(axis=1).reshape((x.shape[0], 1)))
            y /= y.sum(axis=1).reshape((x.shape[0], 1))
            self.assign(out_data[0], req[0], mx.nd.array(y))

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            l = in_data[1].asnumpy().ravel().astype(int)
            y = out_data[0].asnumpy()
            y[np.arange(l.shape[0]), l] -= 1.0
            self.assign(in_grad[0], req[0], mx.nd.array(y))

    @mx.operator.register('softmax')
    class SoftmaxProp(mx.operator.CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=False)
        def list_arguments(self):
            return ['data', 'label']
        def infer_shape(self, in_shape):
            return [in_shape[0], (in_shape[0][0],)], [in_shape[0]], []
        def create_operator(self, ctx, shapes, dtypes):
            return Softmax()
"""

import collections
import traceback

from .base import DTYPE_TO_FLAG, DLBookError, dtype_name
from .ops import REGISTRY, Op
from .ops import register as _register_op

__all__ = [
    'CustomOp',
    'CustomOpProp',
    'register',
    'get_all_registered_operators',
    'get_operator_arguments',
]

#: property classes by ``op_type`` name
_PROPS = {}


class CustomOp:
    """Base class of the computing half of a Python operator."""

    def __init__(self):
        pass

    def forward(self, is_train, req, in_data, out_data, aux):
        """Fill ``out_data`` (NDArrays) from ``in_data``.

        ``req[i]`` says how to write ``out_data[i]``: ``'write'``,
        ``'add'``, ``'inplace'`` or ``'null'``; :meth:`assign` follows it.
        ``aux`` (auxiliary states) may be updated in place.
        """

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        """Fill ``in_grad`` from ``out_grad``, ``in_data`` and ``out_data``.

        ``req[i]`` is ``'null'`` for inputs that need no gradient.
        """

    def assign(self, dst, req, src):
        """Write ``src`` into ``dst`` as ``req`` asks: ``'write'`` and
        ``'inplace'`` overwrite, ``'add'`` accumulates, ``'null'`` skips."""
        if req == 'null':
            return
        if req in ('write', 'inplace'):
            dst[:] = src
        elif req == 'add':
            dst[:] += src


class CustomOpProp:
    """Base class of the describing half of a Python operator.

    Parameters
    ----------
    need_top_grad : bool
        Whether ``backward`` reads ``out_grad``.  A loss layer that makes
        its own gradient (the tutorial's softmax) says False; its
        ``out_grad`` then holds empty placeholders.
    """

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def infer_shape(self, in_shape):
        """``(in_shapes, out_shapes[, aux_shapes])`` from the argument
        shapes (lists; ``[]`` where unknown).  Default: every output has
        the first argument's shape."""
        return in_shape, (in_shape[0],) * len(self.list_outputs()), ()

    def infer_type(self, in_type):
        """``(in_types, out_types[, aux_types])`` from the argument types
        (NumPy types).  Default: everything takes the first type."""
        return (
            in_type,
            [in_type[0]] * len(self.list_outputs()),
            [in_type[0]] * len(self.list_auxiliary_states()),
        )

    def infer_storage_type(self, in_stype):
        """Only the ``'default'`` (dense) storage exists here."""
        return (
            in_stype,
            ['default'] * len(self.list_outputs()),
            ['default'] * len(self.list_auxiliary_states()),
        )

    def list_outputs(self):
        return ['output']

    def list_arguments(self):
        return ['data']

    def list_auxiliary_states(self):
        return []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        """The ids (of those given) that ``backward`` reads; the others
        are passed to it as empty placeholders."""
        deps = []
        if self.need_top_grad_:
            deps.extend(out_grad)
        deps.extend(in_data)
        deps.extend(out_data)
        return deps

    def create_operator(self, ctx, in_shapes, in_dtypes):
        """The :class:`CustomOp` that computes, for this context, these
        argument shapes and dtype flags (0 = float32)."""
        return CustomOp()


def register(reg_name):
    """Class decorator: make a :class:`CustomOpProp` subclass available as
    ``nd.Custom(..., op_type=reg_name)`` and ``sym.Custom(...)``."""

    def do_register(prop_cls):
        _PROPS[reg_name] = prop_cls
        return prop_cls

    return do_register


register('custom_op')(CustomOpProp)


def get_all_registered_operators():
    """Names of every operator (``'Activation'``, ``'BatchNorm'``...)."""
    return sorted(REGISTRY)


OperatorArguments = collections.namedtuple(
    'OperatorArguments', ['narg', 'names', 'types']
)


def get_operator_arguments(op_name):
    """The attribute names of operator ``op_name`` (types as their Python
    class names)."""
    if op_name not in REGISTRY:
        raise DLBookError(f'operator {op_name!r} is not registered')
    cls = REGISTRY[op_name]
    names = list(cls.arguments) + list(cls.defaults)
    types = ['NDArray-or-Symbol'] * len(cls.arguments) + [
        type(v).__name__ for v in cls.defaults.values()
    ]
    return OperatorArguments(len(names), names, types)


# -- the graph operator that runs a registered property --------------------


def _prop_error(op_type, method):
    return DLBookError(
        f'Error in {op_type}.{method}: {traceback.format_exc()}'
    )


def _unpack(result, n_aux):
    if len(result) == 2:
        return list(result[0]), list(result[1]), [None] * n_aux
    if len(result) == 3:
        return list(result[0]), list(result[1]), list(result[2])
    raise DLBookError('infer_shape/infer_type must return 2 or 3 lists')


def _shape_or_none(shape):
    """MXNet's unknown shape is an empty list."""
    if shape is None or len(shape) == 0:
        return None
    return tuple(int(n) for n in shape)


def _context_of(xp, array):
    from .context import HOST_TYPES, Context, current_context

    device = getattr(array, 'device', None)
    if device is not None and hasattr(device, 'id'):  # CuPy
        return Context('gpu', device.id)
    ctx = current_context()
    return ctx if ctx.device_type in HOST_TYPES else Context('cpu', 0)


@_register_op('Custom')
class Custom(Op):
    """Run the Python operator registered as ``op_type``.

    forward: ``CustomOp.forward(is_train, req, in_data, out_data, aux)``
    fills fresh output arrays shaped by ``CustomOpProp.infer_shape``;
    backward: ``CustomOp.backward(req, out_grad, in_data, out_data,
    in_grad, aux)`` fills zero gradient arrays (``req`` is ``'null'`` for
    inputs that need none).  Recording is paused inside both, as in MXNet.
    """

    skips_unneeded_grads = True

    #: attributes other than ``__x__`` ones are the property's keywords
    open_attrs = True
    defaults = {'op_type': None}

    def __init__(self, op_type=None, **kwargs):
        if op_type is None:
            raise DLBookError(
                'Custom: missing the op_type argument '
                '(the name given to @mx.operator.register)'
            )
        prop_cls = _PROPS.get(op_type)
        if prop_cls is None:
            raise DLBookError(
                f'Cannot find custom operator {op_type}; '
                f'registered: {sorted(_PROPS)}'
            )
        strings = {
            k: v if isinstance(v, str) else _attr_string(v)
            for k, v in kwargs.items()
        }
        self.attrs = {'op_type': op_type, **strings}
        self.prop = prop_cls(**strings)
        self.op_type = op_type
        self._arguments = tuple(self.prop.list_arguments())
        self._outputs = tuple(self.prop.list_outputs())
        self.aux_states = tuple(self.prop.list_auxiliary_states())
        self.num_outputs = len(self._outputs)
        self.saved = ()
        self.is_train = False
        self.rng = None
        self.needs_input_grad = None
        # operators made by create_operator, shared by the copies a graph
        # makes of this node's prototype (MXNet creates one per executor)
        self._operators = {}

    def list_arguments(self):
        return self._arguments

    def list_outputs(self):
        return self._outputs

    # -- shape and type rules ----------------------------------------------
    def infer_shape(self, *in_shapes):
        """Ask the property; unknown shapes go in as ``[]``."""
        n_in, n_aux = len(self._arguments), len(self.aux_states)
        args = list(in_shapes[:n_in]) + [None] * (n_in - len(in_shapes))
        given = [list(s) if s is not None else [] for s in args]
        try:
            ins, outs, aux = _unpack(self.prop.infer_shape(given), n_aux)
        except Exception:
            if all(s is not None for s in args):
                raise _prop_error(self.op_type, 'infer_shape') from None
            return args, [None] * self.num_outputs, [None] * n_aux
        if (
            len(ins) != n_in
            or len(outs) != self.num_outputs
            or len(aux) != n_aux
        ):
            raise DLBookError(
                f'InferShape Error: {self.op_type}.infer_shape returned '
                f'{len(ins)} input, {len(outs)} output and {len(aux)} aux '
                f'shapes; expected {n_in}, {self.num_outputs} and {n_aux}'
            )
        return (
            [_shape_or_none(s) for s in ins],
            [_shape_or_none(s) for s in outs],
            [_shape_or_none(s) for s in aux],
        )

    def out_dtypes(self, in_dtypes):
        """Output dtype names from the arguments' (``infer_type``)."""
        import numpy as np

        n_in = len(self._arguments)
        types = [np.dtype(d).type for d in in_dtypes[:n_in]]
        try:
            _, outs, _ = _unpack(
                self.prop.infer_type(types), len(self.aux_states)
            )
        except Exception:
            raise _prop_error(self.op_type, 'infer_type') from None
        return [dtype_name(t) for t in outs]

    # -- computing -------------------------------------------------------
    def _operator(self, ctx, shapes, dtypes):
        key = (ctx, tuple(map(tuple, shapes)), tuple(dtypes))
        op = self._operators.get(key)
        if op is None:
            flags = [DTYPE_TO_FLAG[dtype_name(d)] for d in dtypes]
            op = self.prop.create_operator(
                ctx, [list(s) for s in shapes], flags
            )
            self._operators[key] = op
        return op

    def forward(self, xp, *inputs):
        from . import autograd
        from .ndarray import from_raw

        n_in = len(self._arguments)
        ctx = _context_of(xp, inputs[0]) if inputs else _context_of(xp, None)
        args, aux_raw = inputs[:n_in], inputs[n_in:]
        shapes = [a.shape for a in args]
        _, out_shapes, _ = self.infer_shape(*shapes)
        out_types = self.out_dtypes([a.dtype for a in args])
        if any(s is None for s in out_shapes):
            raise DLBookError(
                f'{self.op_type}.infer_shape gave no output '
                f'shape for inputs of shapes {shapes}'
            )
        op = self._operator(ctx, shapes, [a.dtype for a in args])
        in_data = [from_raw(a, ctx) for a in args]
        aux = [from_raw(a, ctx) for a in aux_raw]
        with ctx.backend.scope(ctx.device_id):
            out_data = [
                from_raw(xp.zeros(s, dtype=d), ctx)
                for s, d in zip(out_shapes, out_types)
            ]
        with ctx, autograd.pause(train_mode=bool(self.is_train)):
            op.forward(
                is_train=int(bool(self.is_train)),
                req=['write'] * self.num_outputs,
                in_data=in_data,
                out_data=out_data,
                aux=aux,
            )
        self.saved = (op, ctx, in_data, out_data, aux)
        raws = [o._data for o in out_data]
        return raws[0] if self.num_outputs == 1 else tuple(raws)

    def backward(self, xp, *dys):
        from . import autograd
        from .ndarray import from_raw

        op, ctx, in_data, out_data, aux = self.saved
        n_in, n_out = len(in_data), len(out_data)
        deps = set(
            self.prop.declare_backward_dependency(
                list(range(n_out)),
                list(range(n_out, n_out + n_in)),
                list(range(n_out + n_in, 2 * n_out + n_in)),
            )
        )

        def empty():
            return from_raw(xp.zeros(()), ctx)

        out_grad = [
            from_raw(dy, ctx) if i in deps else empty()
            for i, dy in enumerate(dys)
        ]
        ins = [
            x if n_out + i in deps else empty() for i, x in enumerate(in_data)
        ]
        outs = [
            y if n_out + n_in + i in deps else empty()
            for i, y in enumerate(out_data)
        ]
        needs = self.needs_input_grad
        req = [
            'write' if needs is None or needs[i] else 'null'
            for i in range(n_in)
        ]
        in_grad = [
            from_raw(xp.zeros(x.shape, dtype=x.dtype), ctx) for x in in_data
        ]
        with ctx, autograd.pause():
            op.backward(
                req=req,
                out_grad=out_grad,
                in_data=ins,
                out_data=outs,
                in_grad=in_grad,
                aux=aux,
            )
        grads = [
            g._data if r != 'null' else None for g, r in zip(in_grad, req)
        ]
        return tuple(grads) + (None,) * len(aux)


def _attr_string(value):
    from .symbol.symbol import json_attr

    return json_attr(value)


# -- front ends: nd.Custom and sym.Custom ----------------------------------


def _split(args, kwargs, array_type):
    inputs = {k: v for k, v in kwargs.items() if isinstance(v, array_type)}
    attrs = {k: v for k, v in kwargs.items() if k not in inputs}
    return list(args), inputs, attrs


def nd_custom(*data, op_type=None, out=None, name=None, **kwargs):
    """Run the Python operator registered as ``op_type`` on NDArrays.

    Arrays are given positionally, in ``list_arguments()`` then
    ``list_auxiliary_states()`` order, or by those names; other keywords
    go to the property's ``__init__`` as strings.  Returns one NDArray, or
    a list for several outputs.
    """
    from .ndarray import NDArray
    from .ndarray.invoke import invoke

    positional, named, attrs = _split(data, kwargs, NDArray)
    op = Custom(op_type=op_type, **attrs)
    inputs = positional
    for input_name in op.list_inputs()[len(positional) :]:
        if input_name not in named:
            raise DLBookError(
                f'Custom ({op_type}): missing input '
                f'{input_name!r} (inputs: '
                f'{", ".join(op.list_inputs())})'
            )
        inputs.append(named[input_name])
    return invoke(op, inputs, out=out)


def sym_custom(*data, op_type=None, name=None, attr=None, **kwargs):
    """A graph node running the Python operator registered as ``op_type``.

    Inputs not given become variables ``<name>_<argument>``
    (``softmax_label``) carrying the operator's attributes, as in MXNet.
    """
    from . import attribute
    from . import name as _name
    from .symbol.symbol import Node, Symbol, Variable

    positional, named, attrs = _split(data, kwargs, Symbol)
    op = Custom(op_type=op_type, **attrs)
    name = _name.current().get(name, 'custom')
    extra = attribute.current().get(attr)
    sources = list(positional)
    for input_name in op.list_inputs()[len(positional) :]:
        given = named.get(input_name)
        if given is None:
            given = Variable(f'{name}_{input_name}', attr=dict(op.attrs))
        sources.append(given)
    edges = []
    for s in sources:
        if len(s._outputs) != 1:
            raise DLBookError(
                f'Custom ({op_type}): input {s} has '
                f'{len(s._outputs)} outputs; pick one with [i]'
            )
        edges.append(s._outputs[0])
    node = Node('Custom', name, attrs=op.attrs, inputs=edges, extra=extra)
    return Symbol([(node, i) for i in range(op.num_outputs)])


nd_custom.__name__ = sym_custom.__name__ = 'Custom'


def _install():
    """Expose ``nd.Custom`` and ``sym.Custom`` (hand-written front ends:
    the inputs come from the registered property, not from a class)."""
    from . import ndarray, symbol

    ndarray.Custom = nd_custom
    symbol.Custom = sym_custom


_install()
