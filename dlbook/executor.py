"""Executors: a symbol bound to arrays, ready to run forward and backward.

``sym.simple_bind(ctx, data=(32, 784))`` infers every shape, allocates the
argument, gradient and auxiliary arrays and returns an :class:`Executor`;
``sym.bind(ctx, args)`` uses arrays you give.  ``exe.forward()`` computes
``exe.outputs``; ``exe.backward()`` fills ``exe.grad_arrays``.
"""

import warnings
from collections import OrderedDict

import numpy as np

from . import ndarray as nd
from .base import DLBookError, dtype_name
from .ndarray.ndarray import NDArray, from_raw
from .ndarray.sparse_ndarray import raw_of, store_grad, wrap_raw
from .ops import REGISTRY
from .ops.sparse import stype_of_attr
from .symbol.program import GraphProgram
from .symbol.program_sparse import is_sparse, storage_types

__all__ = ['Executor', 'simple_bind']

_GRAD_REQS = ('write', 'add', 'null')


def _as_list(values, names, key, allow_missing=False):
    """Arrays given as a list (in ``names`` order) or a dict -> list
    (MXNet's ``_get_ndarray_inputs``, with its messages)."""
    if values is None:
        return [None] * len(names)
    if isinstance(values, dict):
        found = []
        for name in names:
            if name in values:
                found.append(values[name])
            elif allow_missing:
                found.append(None)
            else:
                raise ValueError(f'key `{name}` is missing in `{key}`')
        return found
    if isinstance(values, (list, tuple)):
        if len(values) != len(names):
            raise ValueError(
                f'Length of {key} does not match the number of arguments'
            )
        return list(values)
    raise TypeError('Only accept list of NDArrays or dict of str to NDArray')


def _grad_reqs(grad_req, names):
    if isinstance(grad_req, str):
        reqs = [grad_req] * len(names)
    elif isinstance(grad_req, dict):
        reqs = [grad_req.get(n, 'null') for n in names]
    else:
        reqs = list(grad_req)
        if len(reqs) != len(names):
            raise ValueError(
                'grad_req must have the same length as the arguments'
            )
    for req in reqs:
        if req not in _GRAD_REQS:
            raise ValueError(f"grad_req must be in {_GRAD_REQS}, got {req!r}")
    return reqs


def _copy_into(target, value, name):
    _check_copy(target, value, name)
    target[:] = value


def _check_copy(target, value, name):
    if tuple(value.shape) != target.shape:
        raise DLBookError(
            f'copy_params_from: {name!r} has shape '
            f'{tuple(value.shape)}, the bound array '
            f'{target.shape}'
        )


class Executor:
    """A bound symbol.

    Attributes
    ----------
    arg_arrays, grad_arrays, aux_arrays : list of NDArray
        In ``list_arguments()`` / ``list_auxiliary_states()`` order;
        ``grad_arrays`` has None where no gradient array was given
        (``simple_bind`` gives none where ``grad_req`` is ``'null'``).
    outputs : list of NDArray
        Results of the last :meth:`forward`.  As in MXNet they are the
        executor's own arrays: a later ``forward`` updates them in place.
    """

    def __init__(
        self,
        symbol,
        ctx,
        args,
        args_grad=None,
        grad_req='write',
        aux_states=None,
        group2ctx=None,
    ):
        self._symbol = symbol
        self._ctx = ctx
        self._group2ctx = dict(group2ctx or {})
        self._arg_names = symbol.list_arguments()
        self._aux_names = symbol.list_auxiliary_states()
        self.arg_arrays = _as_list(args, self._arg_names, 'args')
        self.grad_arrays = _as_list(
            args_grad, self._arg_names, 'args_grad', allow_missing=True
        )
        self.aux_arrays = _as_list(aux_states, self._aux_names, 'aux_states')
        for kind, names, arrays in (
            ('argument', self._arg_names, self.arg_arrays),
            ('auxiliary state', self._aux_names, self.aux_arrays),
        ):
            for name, arr in zip(names, arrays):
                if not isinstance(arr, NDArray):
                    raise DLBookError(
                        f'bind: {kind} {name!r} must be an NDArray, got '
                        f'{type(arr).__name__}'
                    )
        reqs = _grad_reqs(grad_req, self._arg_names)
        self._grad_req = [
            'null' if g is None else r for r, g in zip(reqs, self.grad_arrays)
        ]
        self._program = GraphProgram(symbol, ctx, self._group2ctx)
        by_name = dict(zip(self._arg_names, self.arg_arrays))
        by_name.update(zip(self._aux_names, self.aux_arrays))
        self._inputs = [by_name[n] for n in self._program.var_names]
        # sparse arguments: the graph runs with MXNet's sparse rules
        if any(x.stype != 'default' for x in self._inputs):
            self._program.sparse = True
        # an executor bound with gradients keeps what backward needs after
        # every forward, as MXNet's does (backward may follow a forward
        # with is_train=False)
        self._needs_grad = any(r != 'null' for r in self._grad_req)
        wanted = {
            n for n, r in zip(self._arg_names, self._grad_req) if r != 'null'
        }
        self._needed = tuple(n in wanted for n in self._program.var_names)
        self.outputs = []
        self._tape = None
        self._monitor = None
        self._monitor_all = False
        self._internals = {}
        self._arg_dict = self._grad_dict = self._aux_dict = None

    # -- running -------------------------------------------------------------
    def forward(self, is_train=False, **kwargs):
        """Compute the outputs.

        Parameters
        ----------
        is_train : bool
            Training behaviour (Dropout, BatchNorm statistics).
        **kwargs : NDArray or numpy.ndarray
            New values copied into arguments first
            (``exe.forward(data=batch)``).
        """
        if kwargs:
            arg_dict = self.arg_dict
            for name, array in kwargs.items():
                if not isinstance(array, (NDArray, np.ndarray)):
                    raise ValueError(
                        'only accept keyword argument of '
                        'NDArrays and numpy.ndarray'
                    )
                if name not in arg_dict:
                    raise TypeError(f'Unknown argument {name}')
                target = arg_dict[name]
                if target.shape != array.shape:
                    raise ValueError(
                        f'Shape not match! Argument {name}, '
                        f'need: {target.shape}, received: '
                        f'{array.shape}'
                    )
                target[:] = array
        if self._program.sparse:
            inputs = [(raw_of(x), x._ctx) for x in self._inputs]
        else:
            inputs = [(x._data, x._ctx) for x in self._inputs]
        outs, self._tape = self._program.forward(
            inputs,
            is_train,
            keep=is_train or self._needs_grad,
            watch=self._watch(),
        )
        if self._program.sparse:
            # outputs may be sparse: fresh arrays of each output's storage
            self.outputs = [wrap_raw(raw, ctx) for raw, ctx in outs]
        elif len(self.outputs) == len(outs):
            # the same output arrays, now holding the new values
            for o, (raw, ctx) in zip(self.outputs, outs):
                o._data, o._ctx = raw, ctx
        else:
            self.outputs = [from_raw(raw, ctx) for raw, ctx in outs]
        return self.outputs

    def _watch(self):
        """The program's ``watch`` for the installed monitor callback: each
        operator's outputs as ``callback('<node>_output', array)`` (and,
        with ``monitor_all``, its inputs first as ``'<node>_<argument>'``),
        or None without a monitor (or while it is not collecting)."""
        callback = self._monitor
        if callback is None or not getattr(callback, 'collecting', True):
            return None
        monitor_all = self._monitor_all

        def watch(node, raws, ctx):
            if monitor_all:
                names = REGISTRY[node.op](**node.attrs).list_arguments()
                for (source, index), arg in zip(node.inputs, names):
                    value = self._internal_value(source, index)
                    if value is not None:
                        callback(f'{node.name}_{arg}', value)
            for name, raw in zip(node.output_names(), raws):
                array = from_raw(raw, ctx)
                if monitor_all:  # read as a later operator's input
                    self._internals[(id(node), name)] = array
                callback(name, array)

        self._internals = {}
        return watch

    def _internal_value(self, node, index):
        """The value of a node's output seen so far in this forward (a
        variable: its bound array)."""
        if node.is_variable:
            return self.arg_dict.get(node.name, self.aux_dict.get(node.name))
        return self._internals.get((id(node), node.output_names()[index]))

    def backward(self, out_grads=None, is_train=True):
        """Compute gradients into ``grad_arrays``.

        ``out_grads`` are the gradients of the outputs (default: ones;
        loss operators such as ``SoftmaxOutput`` ignore them).
        """
        if self._tape is None:
            raise DLBookError(
                'backward needs a forward pass first; bind '
                'with gradients (grad_req) or run '
                'forward(is_train=True)'
            )
        if isinstance(out_grads, NDArray):
            out_grads = [out_grads]
        if not out_grads:
            raws = [o._ctx.xp.ones_like(o._data) for o in self.outputs]
        else:
            if len(out_grads) != len(self.outputs):
                raise DLBookError(
                    f'backward: {len(out_grads)} out_grads '
                    f'for {len(self.outputs)} outputs'
                )
            raws = []
            for g, o in zip(out_grads, self.outputs):
                if g is None:
                    raws.append(o._ctx.xp.ones_like(o._data))
                    continue
                if g.shape != o.shape:
                    raise DLBookError(
                        f'backward: out_grad of shape '
                        f'{g.shape} for output of shape '
                        f'{o.shape}'
                    )
                g = g.as_in_context(o.context)
                raws.append(raw_of(g) if self._program.sparse else g._data)
        grads = self._program.backward(self._tape, raws, needed=self._needed)
        by_name = dict(zip(self._program.var_names, grads))
        for name, arg, buf, req in zip(
            self._arg_names, self.arg_arrays, self.grad_arrays, self._grad_req
        ):
            if req == 'null' or buf is None:
                continue
            g = by_name.get(name)
            if g is None:
                if req == 'write':
                    buf[:] = 0
                continue
            if buf.stype != 'default' or is_sparse(g):
                store_grad(buf, g, req)  # row_sparse gradients
                continue
            if buf._ctx is not arg._ctx:
                # the gradient lives with its argument
                g = buf._ctx.backend.asarray(g, buf._ctx.device_id)
            if req == 'add':
                buf._data += g
            else:
                buf._data[...] = g

    # -- views ----------------------------------------------------------------
    @property
    def arg_dict(self):
        """``{name: argument array}``."""
        if self._arg_dict is None:
            self._arg_dict = OrderedDict(zip(self._arg_names, self.arg_arrays))
        return self._arg_dict

    @property
    def grad_dict(self):
        """``{name: gradient array}`` (arguments with a gradient)."""
        if self._grad_dict is None:
            self._grad_dict = OrderedDict(
                (n, g)
                for n, g in zip(self._arg_names, self.grad_arrays)
                if g is not None
            )
        return self._grad_dict

    @property
    def aux_dict(self):
        """``{name: auxiliary state array}``."""
        if self._aux_dict is None:
            self._aux_dict = OrderedDict(zip(self._aux_names, self.aux_arrays))
        return self._aux_dict

    @property
    def output_dict(self):
        """``{output name: array}`` of the last forward."""
        return OrderedDict(zip(self._symbol.list_outputs(), self.outputs))

    @property
    def peak_bytes(self):
        """Largest total size of live intermediate arrays seen during runs
        with ``GraphProgram.track_memory`` on."""
        return self._program.peak_bytes

    @property
    def total_bytes(self):
        """Size of every intermediate array those runs produced."""
        return self._program.total_bytes

    def copy_params_from(
        self, arg_params, aux_params=None, allow_extra_params=False
    ):
        """Copy values from dicts of arrays into the bound arrays.

        Every name and shape is checked before anything is copied, so a
        bad dict leaves the executor unchanged.
        """
        for given, bound, kind in (
            (arg_params, self.arg_dict, 'arguments'),
            (aux_params, self.aux_dict, 'auxiliary states'),
        ):
            for name, value in (given or {}).items():
                if name in bound:
                    _check_copy(bound[name], value, name)
                elif not allow_extra_params:
                    raise ValueError(
                        f'Find name "{name}" that is not in the {kind}'
                    )
        for name, value in (arg_params or {}).items():
            if name in self.arg_dict:
                _copy_into(self.arg_dict[name], value, name)
            elif not allow_extra_params:
                raise ValueError(
                    f'Find name "{name}" that is not in the arguments'
                )
        for name, value in (aux_params or {}).items():
            if name in self.aux_dict:
                _copy_into(self.aux_dict[name], value, name)
            elif not allow_extra_params:
                raise ValueError(
                    f'Find name "{name}" that is not in the auxiliary states'
                )

    def reshape(self, partial_shaping=False, allow_up_sizing=False, **kwargs):
        """A new executor for new input shapes (MXNet's rules).

        Arrays whose shape does not change are shared.  An array whose
        shape changes must be named in ``kwargs`` (or
        ``partial_shaping=True``); when it shrinks, the new array is a view
        of the old memory; growing needs ``allow_up_sizing=True``.
        """
        arg_shapes, _, aux_shapes = self._symbol.infer_shape(**kwargs)
        if arg_shapes is None:
            raise DLBookError(f'reshape: cannot infer shapes from {kwargs}')

        def resized(name, arr, shape, kind):
            shape = tuple(shape)
            if arr is None or arr.shape == shape:
                return arr
            if not (partial_shaping or name in kwargs):
                raise DLBookError(
                    f'Shape of unspecified array {kind}:{name} changed. '
                    f'This can cause the new executor to not share '
                    f'parameters with the old one. Please check for error '
                    f'in network. If this is intended, set '
                    f'partial_shaping=True to suppress this warning.'
                )
            size = int(np.prod(shape, dtype=np.int64))
            if size > arr.size:
                if not allow_up_sizing:
                    raise DLBookError(
                        f'New shape of {kind}: {name} larger than '
                        f'original. First making a big executor and then '
                        f'down sizing it is more efficient than the '
                        f'reverse. If you really want to up size, set '
                        f'allow_up_sizing=True to enable allocation of new '
                        f'arrays.'
                    )
                return nd.zeros(shape, ctx=arr.context, dtype=arr.dtype)
            return from_raw(
                arr._data.reshape(-1)[:size].reshape(shape), arr._ctx
            )

        args = [
            resized(n, a, s, 'arg')
            for n, a, s in zip(self._arg_names, self.arg_arrays, arg_shapes)
        ]
        grads = [
            resized(n, g, s, 'grad')
            for n, g, s in zip(self._arg_names, self.grad_arrays, arg_shapes)
        ]
        aux = [
            resized(n, a, s, 'aux')
            for n, a, s in zip(self._aux_names, self.aux_arrays, aux_shapes)
        ]
        return Executor(
            self._symbol,
            self._ctx,
            args,
            grads,
            self._grad_req,
            aux,
            self._group2ctx,
        )

    def set_monitor_callback(self, callback, monitor_all=False):
        """Call ``callback(name, array)`` on every operator's outputs
        (``'fc1_output'``) during each forward, and with ``monitor_all``
        on its inputs too (``'fc1_weight'``).  While the callback has a
        false ``collecting`` attribute (``mx.mon.Monitor`` between
        intervals), the forward runs as usual."""
        self._monitor = callback
        self._monitor_all = bool(monitor_all)

    def debug_str(self):
        return self._symbol.debug_str()


def _infer_types(symbol, type_dict):
    """Argument and auxiliary dtypes for ``simple_bind``: as MXNet,
    arguments without a ``__dtype__`` attribute default to float32 when
    no ``type_dict`` is given (and where it leaves them undecided)."""
    attrs = symbol.attr_dict()
    defaults = {
        n: 'float32'
        for n in symbol.list_arguments()
        if '__dtype__' not in attrs.get(n, {})
    }
    if type_dict is None:
        type_dict = defaults
    given = {k: dtype_name(v) for k, v in type_dict.items()}
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        arg_types, _, aux_types = symbol.infer_type(**given)
        if arg_types is None:
            arg_types, _, aux_types = symbol.infer_type(
                **{**defaults, **given}
            )
    if arg_types is None:
        raise DLBookError(
            f'simple_bind: cannot infer the dtypes of the '
            f'arguments from {given}; give them in '
            f'type_dict'
        )
    return arg_types, aux_types


def _arg_stypes(symbol, stype_dict):
    """Storage of each argument: ``stype_dict``, else the variable's
    ``stype`` (``__storage_type__``), else dense."""
    attrs = symbol.attr_dict()
    stypes = {}
    for name in symbol.list_arguments():
        given = (stype_dict or {}).get(name)
        stypes[name] = (
            given
            if given is not None
            else stype_of_attr(attrs.get(name, {}).get('__storage_type__'))
        )
    return stypes


def simple_bind(
    symbol,
    ctx,
    grad_req='write',
    type_dict=None,
    group2ctx=None,
    shared_exec=None,
    shapes=None,
    stype_dict=None,
):
    """Infer shapes and dtypes, allocate arrays, return an Executor.

    Storage types, as MXNet's: an argument is stored as ``stype_dict``
    or its variable's ``stype`` says (dense otherwise); its gradient is
    row_sparse where the graph gives one (the ``rhs`` of ``dot(csr,
    rhs)``, the weight of ``Embedding(sparse_grad=True)``), else dense.
    """
    shapes = dict(shapes or {})
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # the error below says it
        arg_shapes, _, aux_shapes = symbol.infer_shape(**shapes)
    if arg_shapes is None:
        partial = symbol.infer_shape_partial(**shapes)[0]
        unknown = [
            n
            for n, s in zip(symbol.list_arguments(), partial)
            if not s or not all(s)
        ]
        raise DLBookError(
            f'simple_bind: cannot infer the shapes of '
            f'{unknown} from {shapes}; give them as keyword '
            f'arguments'
        )
    arg_types, aux_types = _infer_types(symbol, type_dict)
    program = GraphProgram(symbol, ctx, group2ctx)
    arg_names = symbol.list_arguments()
    reqs = dict(zip(arg_names, _grad_reqs(grad_req, arg_names)))
    arg_stypes = _arg_stypes(symbol, stype_dict)
    grad_stypes = storage_types(symbol, arg_stypes)
    shared = shared_exec.arg_dict if shared_exec is not None else {}
    args, grads = [], []
    for name, shape, dtype in zip(arg_names, arg_shapes, arg_types):
        where = program.var_context(name, ctx, group2ctx)
        same = shared.get(name)
        if same is not None and same.shape == tuple(shape):
            args.append(same)
            grads.append(shared_exec.grad_dict.get(name))
            continue
        args.append(
            nd.zeros(shape, ctx=where, dtype=dtype, stype=arg_stypes[name])
        )
        grads.append(
            None
            if reqs[name] == 'null'
            else nd.zeros(
                shape, ctx=where, dtype=dtype, stype=grad_stypes[name]
            )
        )
    # auxiliary states (BatchNorm's moving statistics) are shared too, so
    # executors bound for several buckets keep one set of statistics
    shared_aux = shared_exec.aux_dict if shared_exec is not None else {}
    aux = []
    for name, shape, dtype in zip(
        symbol.list_auxiliary_states(), aux_shapes, aux_types
    ):
        same = shared_aux.get(name)
        if same is not None and same.shape == tuple(shape):
            aux.append(same)
        else:
            aux.append(
                nd.zeros(
                    shape,
                    dtype=dtype,
                    ctx=program.var_context(name, ctx, group2ctx),
                )
            )
    return Executor(
        symbol, ctx, args, grads, [reqs[n] for n in arg_names], aux, group2ctx
    )
