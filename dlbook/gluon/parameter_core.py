"""``Parameter``: a trainable array, one copy per device.

A :class:`Parameter` knows its name (``dense0_weight``), shape, dtype,
initializer and ``grad_req``, and keeps one data array (and one gradient)
per context it was initialized on.  A dimension of 0 in the shape means
"not known yet": initialization then waits for the first forward pass,
where the operator's shape rule fills it in (deferred initialization,
:mod:`dlbook.gluon.parameter_deferred`).
"""

import warnings
from collections import OrderedDict

import numpy as _np

from .. import autograd
from .. import ndarray as nd
from .._np_state import is_np_array, is_np_shape
from ..base import DLBookError, dtype_name
from ..context import HOST_TYPES, Context, cpu, current_context
from .parameter_deferred import (
    DeferredInitializationError,
    DeferredParameter,
    _shape_known,
    _unknown_as_zero,
)


def _np_mode_arrays(arrays):
    """Under ``npx.set_np()`` parameters are ``mx.np.ndarray`` (the fresh
    arrays change type in place)."""
    if is_np_array():
        from ..numpy._core import to_np

        to_np(list(arrays))


def _as_ctx_list(ctx):
    if ctx is None:
        return [current_context()]
    if isinstance(ctx, Context):
        return [ctx]
    return list(ctx)


class Parameter:
    """A trainable (or constant) array of a Block.

    Parameters
    ----------
    name : str
        Full name, e.g. ``'dense0_weight'``.
    grad_req : {'write', 'add', 'null'}
        How ``backward`` stores this parameter's gradient.
    shape : tuple of int, optional
        0 marks a dimension that is inferred on the first forward pass.
    dtype : str or NumPy type, default numpy.float32
        Kept as given (``Parameter.dtype`` reports it back, as MXNet).
    lr_mult, wd_mult : float
        Multipliers of the optimizer's learning rate and weight decay.
    init : Initializer or str, optional
        Overrides the initializer given to ``Block.initialize``.
    allow_deferred_init : bool
        Allow initialization to wait for an unknown shape.
    differentiable : bool
        False forces ``grad_req='null'``.
    """

    def __init__(
        self,
        name,
        grad_req='write',
        shape=None,
        dtype=_np.float32,
        lr_mult=1.0,
        wd_mult=1.0,
        init=None,
        allow_deferred_init=False,
        differentiable=True,
        stype='default',
        grad_stype='default',
    ):
        self.name = name
        self._shape = (
            None
            if shape is None
            else _unknown_as_zero(
                (shape,) if isinstance(shape, int) else shape
            )
        )
        dtype_name(dtype)  # checks it
        self.dtype = dtype  # kept as given, as MXNet does
        self.lr_mult = lr_mult
        self.wd_mult = wd_mult
        self.init = init
        self.allow_deferred_init = allow_deferred_init
        self._differentiable = differentiable
        self._grad_req = None
        self._data = None  # OrderedDict ctx -> NDArray
        self._grad = None
        self._ctx_list = None
        self._deferred_init = ()  # (init, ctx_list, default_init, data)
        self._var = None
        for kind, value in (('stype', stype), ('grad_stype', grad_stype)):
            if value not in ('default', 'row_sparse', 'csr'):
                raise DLBookError(
                    f"Parameter '{name}': {kind} must be "
                    f"'default', 'row_sparse' or 'csr', got "
                    f'{value!r}'
                )
        self._stype, self._grad_stype = stype, grad_stype
        self.grad_req = grad_req if differentiable else 'null'

    def __repr__(self):
        return (
            f'Parameter {self.name} (shape={self.shape}, dtype={self.dtype})'
        )

    # -- properties -----------------------------------------------------------
    @property
    def shape(self):
        """The shape; unknown entries (inferred on the first forward pass)
        read 0, or -1 under NumPy shape semantics (``npx.set_np()``), where
        0 is a valid size, as in MXNet."""
        if self._shape is None or not is_np_shape():
            return self._shape
        return tuple(-1 if n == 0 else n for n in self._shape)

    @shape.setter
    def shape(self, new_shape):
        new_shape = _unknown_as_zero(new_shape)
        if self._shape is None:
            self._shape = new_shape
            return
        compatible = len(self._shape) == len(new_shape) and all(
            old in (0, new) for old, new in zip(self._shape, new_shape)
        )
        if not compatible:
            raise DLBookError(
                f"Expected shape {new_shape} is incompatible with given "
                f"shape {self._shape} for Parameter '{self.name}'."
            )
        self._shape = new_shape

    @property
    def grad_req(self):
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req):
        if req not in ('write', 'add', 'null'):
            raise DLBookError(
                f"grad_req must be one of 'write', 'add', or "
                f"'null', but got '{req}'"
            )
        if not self._differentiable:
            req = 'null'
        if self._grad_req == req:
            return
        self._grad_req = req
        if req == 'null' and self._grad is not None:
            self._grad = None
            for arr in self._data.values():
                autograd.mark_variables([arr], [None], 'null')
        elif self._data is not None:
            self._init_grad()

    @property
    def differentiable(self):
        return self._differentiable

    # -- initialization ---------------------------------------------------------
    def initialize(
        self, init=None, ctx=None, default_init=None, force_reinit=False
    ):
        """Create the data on each context of ``ctx`` (default: the current
        context); with an unknown shape, wait for the first forward.

        The parameter's own ``init`` wins over ``init``, which wins over
        ``default_init`` (``Uniform(0.07)``).
        """
        from .. import initializer

        if default_init is None:
            default_init = initializer.Uniform()
        if self._data is not None and not force_reinit:
            warnings.warn(
                f"Parameter '{self.name}' is already initialized, "
                f"ignoring. Set force_reinit=True to "
                f"re-initialize.",
                stacklevel=2,
            )
            return
        self._data = self._grad = None
        ctx_list = _as_ctx_list(ctx)
        if init is None:
            init = default_init if self.init is None else self.init
        if not _shape_known(self._shape):
            if self.allow_deferred_init:
                self._deferred_init = (init, ctx_list, default_init, None)
                return
            raise DLBookError(
                f"Cannot initialize Parameter '{self.name}' "
                f"because it has invalid shape: {self.shape}."
            )
        self._deferred_init = (init, ctx_list, default_init, None)
        self._finish_deferred_init()

    def _finish_deferred_init(self):
        """Run the pending initialization now that the shape is known."""
        if not self._deferred_init:
            return
        from .. import initializer

        init, ctx_list, default_init, data = self._deferred_init
        self._deferred_init = ()
        if not _shape_known(self._shape):
            raise DLBookError(
                f"Cannot initialize Parameter '{self.name}' because it has "
                f"invalid shape: {self.shape}. Please specify in_units, "
                f"in_channels, etc for `Block`s."
            )
        with autograd.pause():
            if data is None:
                # values are drawn once on the CPU and copied to every
                # device, so all replicas start identical
                data = nd.zeros(self._shape, ctx=cpu(), dtype=self.dtype)
                initializer.create(default_init)(
                    initializer.InitDesc(self.name, {'__init__': init}), data
                )
            self._init_impl(data, ctx_list)

    def _init_impl(self, data, ctx_list):
        self._ctx_list = list(ctx_list)
        self._data = OrderedDict(
            (ctx, data.copyto(ctx).astype(self.dtype, copy=False))
            for ctx in self._ctx_list
        )
        _np_mode_arrays(self._data.values())
        self._init_grad()

    def _init_grad(self):
        if self.grad_req == 'null':
            self._grad = None
            return
        stype = getattr(self, '_grad_stype', 'default')
        self._grad = OrderedDict(
            (ctx, nd.zeros(arr.shape, ctx=ctx, dtype=arr.dtype, stype=stype))
            for ctx, arr in self._data.items()
        )
        if stype == 'default':
            _np_mode_arrays(self._grad.values())
        autograd.mark_variables(
            list(self._data.values()), list(self._grad.values()), self.grad_req
        )

    def _load_init(self, data, ctx, cast_dtype=False, dtype_source='current'):
        """Set this parameter from loaded ``data`` (shape-checked)."""
        self._check_loadable(data, cast_dtype, dtype_source)
        self.shape = data.shape
        if cast_dtype:
            if dtype_source == 'saved':
                self.dtype = data.dtype.name
            else:
                data = data.astype(self.dtype, copy=False)
        if self._data is None:
            if self._deferred_init:
                ctx = ctx or self._deferred_init[1]
            self._deferred_init = ()
            self._init_impl(data, _as_ctx_list(ctx))
        else:
            self.set_data(data)

    def _check_loadable(self, data, cast_dtype=False, dtype_source='current'):
        """Raise if ``data`` cannot be loaded into this parameter (shape or
        dtype); changes nothing, so a file is checked whole first."""
        if self._shape:
            unknown_ok = all(
                old in (0, new) for old, new in zip(self._shape, data.shape)
            )
            if len(self._shape) != len(data.shape) or not unknown_ok:
                raise DLBookError(
                    f"Failed loading Parameter '{self.name}' from saved "
                    f"params: shape incompatible expected {self.shape} vs "
                    f"saved {data.shape}"
                )
        if not cast_dtype and data.dtype.name != dtype_name(self.dtype):
            raise DLBookError(
                f"Failed loading Parameter '{self.name}' from saved params: "
                f"dtype incompatible expected {dtype_name(self.dtype)} vs "
                f"saved {data.dtype.name}. Set cast_dtype=True to cast the "
                f"dtype of saved params."
            )

    # -- access -------------------------------------------------------------------
    def _check_and_get(self, arr_dict, ctx):
        if arr_dict is not None:
            if ctx is list:
                return list(arr_dict.values())
            if ctx is None:
                if len(arr_dict) == 1:
                    return next(iter(arr_dict.values()))
                ctx = current_context()
            found = arr_dict.get(ctx)
            if found is None and ctx.device_type in HOST_TYPES:
                # as MXNet: cpu_pinned(i) and cpu_shared(i) use cpu(i)'s copy
                found = arr_dict.get(Context('cpu', ctx.device_id))
            if found is not None:
                return found
            raise DLBookError(
                f"Parameter '{self.name}' was not initialized on context "
                f"{ctx}. It was only initialized on {self._ctx_list}."
            )
        if self._deferred_init:
            raise DeferredInitializationError(
                f"Parameter '{self.name}' has not been initialized yet "
                f"because initialization was deferred. Actual "
                f"initialization happens during the first forward pass. "
                f"Please pass one batch of data through the network before "
                f"accessing Parameters. You can also avoid deferred "
                f"initialization by specifying in_units, num_features, "
                f"etc., for network layers."
            )
        raise DLBookError(
            f"Parameter '{self.name}' has not been initialized. Note that "
            f"you should initialize parameters and create Trainer with "
            f"Block.collect_params() instead of Block.params because the "
            f"later does not include Parameters of nested child Blocks"
        )

    def data(self, ctx=None):
        """The data array on ``ctx`` (the only one if on one context)."""
        if getattr(self, '_stype', 'default') != 'default':
            raise DLBookError(
                f"Cannot return a copy of Parameter '{self.name}' on ctx "
                f"{ctx} via data() because its storage type is "
                f"{self._stype}. Please use row_sparse_data() instead."
            )
        return self._check_and_get(self._data, ctx)

    def list_data(self):
        """Data arrays on all contexts, in initialization order."""
        return self._check_and_get(self._data, list)

    def grad(self, ctx=None):
        """The gradient array on ``ctx``."""
        if self._data is not None and self._grad is None:
            raise DLBookError(
                f"Cannot get gradient array for Parameter '{self.name}' "
                f"because grad_req='null'"
            )
        return self._check_and_get(self._grad, ctx)

    def list_grad(self):
        """Gradient arrays on all contexts."""
        if self._data is not None and self._grad is None:
            raise DLBookError(
                f"Cannot get gradient array for Parameter '{self.name}' "
                f"because grad_req='null'"
            )
        return self._check_and_get(self._grad, list)

    def list_ctx(self):
        """Contexts this parameter lives on."""
        if self._data is None:
            if self._deferred_init:
                return list(self._deferred_init[1])
            raise DLBookError(
                f"Parameter '{self.name}' has not been initialized"
            )
        return list(self._ctx_list)

    def _data_or_placeholder(self, ctx):
        """Data on ``ctx``, or a placeholder while initialization waits for
        a shape: the first operator that uses it infers the shape."""
        if self._data is None and self._deferred_init:
            return DeferredParameter(self, ctx)
        return self.data(ctx)

    def set_data(self, data):
        """Set the value on every context."""
        self.shape = data.shape
        if self._data is None:
            if not self._deferred_init:
                raise DLBookError(
                    f"Parameter '{self.name}' has not been initialized"
                )
            init, ctx_list, default_init, _ = self._deferred_init
            self._deferred_init = (init, ctx_list, default_init, data)
            return
        for arr in self._data.values():
            arr[:] = data

    def zero_grad(self):
        """Set the gradient to 0 on every context."""
        if self._grad is None:
            return
        for g in self._grad.values():
            g[:] = 0

    def reset_ctx(self, ctx):
        """Move the data to the context(s) ``ctx``."""
        ctx_list = _as_ctx_list(ctx)
        if self._data is not None:
            data = self._reduce()
            with autograd.pause():
                self._init_impl(data, ctx_list)
        elif self._deferred_init:
            init, _, default_init, data = self._deferred_init
            self._deferred_init = (init, ctx_list, default_init, data)
        else:
            raise DLBookError(
                f"Cannot reset context for Parameter "
                f"'{self.name}' because it has not been "
                f"initialized."
            )

    def _reduce(self):
        """The mean of the copies, on the CPU (what ``save`` writes)."""
        block = self.list_data()
        if len(block) == 1:
            return block[0].copyto(cpu())
        total = block[0].copyto(cpu())
        for arr in block[1:]:
            total = total + arr.copyto(cpu())
        return total / len(block)

    def cast(self, dtype):
        """Convert data and gradient to ``dtype``."""
        dtype_name(dtype)
        self.dtype = dtype
        if self._data is None:
            return
        with autograd.pause():
            self._data = OrderedDict(
                (c, a.astype(self.dtype)) for c, a in self._data.items()
            )
            self._init_grad()

    def var(self):
        """A symbol variable standing for this parameter."""
        if self._var is None:
            from .. import symbol

            self._var = symbol.var(
                self.name,
                shape=self._shape,
                dtype=self.dtype,
                lr_mult=self.lr_mult,
                wd_mult=self.wd_mult,
                init=self.init,
                stype=self._stype,
            )
        return self._var

    def row_sparse_data(self, row_id):
        """The rows ``row_id`` of a ``stype='row_sparse'`` weight, as a
        RowSparseNDArray on ``row_id``'s context (MXNet pulls them from
        the kvstore).  Its gradient goes to this Parameter's gradient."""
        if self._stype != 'row_sparse':
            raise DLBookError(
                f'Cannot return a copy of Parameter {self.name} via '
                f'row_sparse_data() because its storage type is '
                f'{self._stype}. Please use data() instead.'
            )
        return self._pull_rows(
            self._check_and_get(self._data, row_id.context), row_id
        )

    def list_row_sparse_data(self, row_id):
        """``row_sparse_data(row_id)`` on every context."""
        if self._stype != 'row_sparse':
            raise DLBookError(
                f'Cannot return copies of Parameter {self.name} via '
                f'list_row_sparse_data() because its storage type is '
                f'{self._stype}. Please use list_data() instead.'
            )
        return [
            self._pull_rows(arr, row_id.as_in_context(ctx))
            for ctx, arr in self._data.items()
        ]

    def _pull_rows(self, full, row_id):
        from ..ndarray.sparse_ndarray import pull_rows

        grad = None if self._grad is None else self._grad[full.context]
        return pull_rows(full, row_id, grad, self.grad_req)
