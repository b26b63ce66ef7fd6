"""Executors: a symbol bound to arrays, ready to run forward and backward.

``sym.simple_bind(ctx, data=(32, 784))`` infers every shape, allocates the
argument, gradient and auxiliary arrays and returns an :class:`Executor`;
``sym.bind(ctx, args)`` uses arrays you give.  ``exe.forward()`` computes
``exe.outputs``; ``exe.backward()`` fills ``exe.grad_arrays``.
"""

from collections import OrderedDict

from . import ndarray as nd
from .base import DLBookError, dtype_name
from .graph import GraphProgram
from .ndarray.ndarray import NDArray, from_raw

__all__ = ['Executor', 'simple_bind']


def _as_list(values, names, what, allow_missing=False):
    """Arrays given as a list (in ``names`` order) or a dict -> list."""
    if values is None:
        return [None] * len(names)
    if isinstance(values, dict):
        missing = [n for n in names if n not in values]
        if missing and not allow_missing:
            raise DLBookError(f'{what}: no array given for {missing}; '
                              f'expected names {names}')
        return [values.get(n) for n in names]
    values = list(values)
    if len(values) != len(names):
        raise DLBookError(f'{what}: expected {len(names)} arrays '
                          f'({names}), got {len(values)}')
    return values


class Executor:
    """A bound symbol.

    Attributes
    ----------
    arg_arrays, grad_arrays, aux_arrays : list of NDArray
        In ``list_arguments()`` / ``list_auxiliary_states()`` order;
        ``grad_arrays`` has None where ``grad_req`` is ``'null'``.
    outputs : list of NDArray
        Results of the last :meth:`forward`.
    """

    def __init__(self, symbol, ctx, args, args_grad=None, grad_req='write',
                 aux_states=None, group2ctx=None):
        self._symbol = symbol
        self._ctx = ctx
        self._group2ctx = dict(group2ctx or {})
        self._arg_names = symbol.list_arguments()
        self._aux_names = symbol.list_auxiliary_states()
        self.arg_arrays = _as_list(args, self._arg_names, 'bind args')
        for name, arr in zip(self._arg_names, self.arg_arrays):
            if not isinstance(arr, NDArray):
                raise DLBookError(f'bind: argument {name!r} must be an '
                                  f'NDArray, got {type(arr).__name__}')
        self.grad_arrays = _as_list(args_grad, self._arg_names,
                                    'bind args_grad', allow_missing=True)
        self.aux_arrays = _as_list(aux_states, self._aux_names,
                                   'bind aux_states')
        if isinstance(grad_req, str):
            reqs = [grad_req] * len(self._arg_names)
        elif isinstance(grad_req, dict):
            reqs = [grad_req.get(n, 'null') for n in self._arg_names]
        else:
            reqs = list(grad_req)
        self._grad_req = ['null' if g is None else r
                          for r, g in zip(reqs, self.grad_arrays)]
        self._program = GraphProgram(symbol, ctx, self._group2ctx)
        by_name = dict(zip(self._arg_names, self.arg_arrays))
        by_name.update(zip(self._aux_names, self.aux_arrays))
        self._inputs = [by_name[n] for n in self._program.var_names]
        self.outputs = []
        self._tape = None

    # -- running -------------------------------------------------------------
    def forward(self, is_train=False, **kwargs):
        """Compute the outputs; ``kwargs`` copy new values into arguments
        (``exe.forward(data=batch)``)."""
        for name, value in kwargs.items():
            if name not in self.arg_dict:
                raise DLBookError(f'forward: unknown argument {name!r}; '
                                  f'arguments are {self._arg_names}')
            target = self.arg_dict[name]
            target[:] = value if isinstance(value, NDArray) \
                else nd.array(value, ctx=target.context,
                              dtype=target.dtype)
        outs, self._tape = self._program.forward(
            [(x._data, x._ctx) for x in self._inputs], is_train)
        self.outputs = [from_raw(raw, ctx) for raw, ctx in outs]
        return self.outputs

    def backward(self, out_grads=None, is_train=True):
        """Compute gradients into ``grad_arrays``.

        ``out_grads`` are the gradients of the outputs (default: ones;
        loss operators such as ``SoftmaxOutput`` ignore them).
        """
        if isinstance(out_grads, NDArray):
            out_grads = [out_grads]
        if out_grads is None:
            raws = [o._ctx.xp.ones_like(o._data) for o in self.outputs]
        else:
            raws = [g.as_in_context(o.context)._data
                    for g, o in zip(out_grads, self.outputs)]
        grads = self._program.backward(self._tape, raws)
        by_name = dict(zip(self._program.var_names, grads))
        for name, buf, req in zip(self._arg_names, self.grad_arrays,
                                  self._grad_req):
            g = by_name.get(name)
            if req == 'null' or buf is None:
                continue
            if g is None:
                if req == 'write':
                    buf[:] = 0
                continue
            raw = g if buf._ctx is self._find_ctx(name) else \
                buf._ctx.backend.asarray(g, buf._ctx.device_id)
            if req == 'add':
                buf._data += raw
            else:
                buf._data[...] = raw

    def _find_ctx(self, name):
        return self.arg_dict[name]._ctx

    # -- views -----------------------------------------------------------------
    @property
    def arg_dict(self):
        """``{name: argument array}``."""
        return OrderedDict(zip(self._arg_names, self.arg_arrays))

    @property
    def grad_dict(self):
        """``{name: gradient array}`` (arguments with a gradient)."""
        return OrderedDict((n, g) for n, g in zip(self._arg_names,
                                                  self.grad_arrays)
                           if g is not None)

    @property
    def aux_dict(self):
        """``{name: auxiliary state array}``."""
        return OrderedDict(zip(self._aux_names, self.aux_arrays))

    @property
    def output_dict(self):
        """``{output name: array}`` of the last forward."""
        return OrderedDict(zip(self._symbol.list_outputs(), self.outputs))

    @property
    def peak_bytes(self):
        """Largest total size of live intermediate arrays seen during
        forward passes run with ``track_memory`` on."""
        return self._program.peak_bytes

    def copy_params_from(self, arg_params, aux_params=None,
                         allow_extra_params=False):
        """Copy values from dicts of arrays into the bound arrays."""
        for name, value in (arg_params or {}).items():
            if name in self.arg_dict:
                self.arg_dict[name][:] = value
            elif not allow_extra_params:
                raise ValueError(f'Find name "{name}" that is not in the '
                                 f'arguments')
        for name, value in (aux_params or {}).items():
            if name in self.aux_dict:
                self.aux_dict[name][:] = value
            elif not allow_extra_params:
                raise ValueError(f'Find name "{name}" that is not in the '
                                 f'auxiliary states')

    def reshape(self, partial_shaping=False, allow_up_sizing=False,
                **kwargs):
        """A new executor for new input shapes, sharing the arrays whose
        shapes do not change."""
        shapes = {n: a.shape for n, a in self.arg_dict.items()}
        shapes.update(kwargs)
        arg_shapes, _, aux_shapes = self._symbol.infer_shape(**{
            k: v for k, v in shapes.items() if k in kwargs or
            k not in kwargs})
        if arg_shapes is None:
            raise DLBookError(f'reshape: cannot infer shapes from {kwargs}')
        args, grads = [], []
        for name, shape, arr, grad in zip(self._arg_names, arg_shapes,
                                          self.arg_arrays,
                                          self.grad_arrays):
            if arr.shape == tuple(shape):
                args.append(arr)
                grads.append(grad)
                continue
            if not partial_shaping and name not in kwargs:
                raise DLBookError(
                    f'reshape: shape of unspecified array {name!r} changed '
                    f'from {arr.shape} to {shape}; set partial_shaping=True')
            args.append(nd.zeros(shape, ctx=arr.context, dtype=arr.dtype))
            grads.append(None if grad is None else
                         nd.zeros(shape, ctx=arr.context, dtype=arr.dtype))
        aux = [a if a.shape == tuple(s) else
               nd.zeros(s, ctx=a.context, dtype=a.dtype)
               for a, s in zip(self.aux_arrays, aux_shapes)]
        return Executor(self._symbol, self._ctx, args, grads,
                        self._grad_req, aux, self._group2ctx)

    def set_monitor_callback(self, callback, monitor_all=False):
        """Call ``callback(name, array)`` on outputs after each forward
        (a simplified form of MXNet's monitor)."""
        self._monitor = callback

    def debug_str(self):
        return self._symbol.debug_str()


def simple_bind(symbol, ctx, grad_req='write', type_dict=None,
                group2ctx=None, shared_exec=None, shapes=None):
    """Infer shapes and dtypes, allocate arrays, return an Executor."""
    shapes = dict(shapes or {})
    arg_shapes, _, aux_shapes = symbol.infer_shape(**shapes)
    if arg_shapes is None:
        partial = symbol.infer_shape_partial(**shapes)[0]
        unknown = [n for n, s in zip(symbol.list_arguments(), partial)
                   if not s or not all(s)]
        raise DLBookError(f'simple_bind: cannot infer the shapes of '
                          f'{unknown} from {shapes}; give them as keyword '
                          f'arguments')
    arg_types, _, aux_types = symbol.infer_type(
        **{k: dtype_name(v) for k, v in (type_dict or {}).items()})
    program = GraphProgram(symbol, ctx, group2ctx)
    arg_names = symbol.list_arguments()
    if isinstance(grad_req, str):
        reqs = {n: grad_req for n in arg_names}
    elif isinstance(grad_req, dict):
        reqs = {n: grad_req.get(n, 'null') for n in arg_names}
    else:
        reqs = dict(zip(arg_names, grad_req))
    shared = shared_exec.arg_dict if shared_exec is not None else {}
    args, grads = [], []
    for name, shape, dtype in zip(arg_names, arg_shapes, arg_types):
        where = program.var_context(name, ctx, group2ctx)
        dtype = dtype or 'float32'
        same = shared.get(name)
        if same is not None and same.shape == tuple(shape):
            args.append(same)
            grads.append(shared_exec.grad_dict.get(name))
            continue
        args.append(nd.zeros(shape, ctx=where, dtype=dtype))
        grads.append(None if reqs[name] == 'null' else
                     nd.zeros(shape, ctx=where, dtype=dtype))
    aux = [nd.zeros(shape, ctx=program.var_context(name, ctx, group2ctx),
                    dtype=dtype or 'float32')
           for name, shape, dtype in zip(symbol.list_auxiliary_states(),
                                         aux_shapes, aux_types)]
    return Executor(symbol, ctx, args, grads,
                    [reqs[n] for n in arg_names], aux, group2ctx)
