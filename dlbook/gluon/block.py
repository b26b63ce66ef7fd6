"""Blocks: the building unit of Gluon models.

A :class:`Block` owns parameters and child blocks and defines
``forward``.  Names follow MXNet: a block's prefix is its lower-cased class
name plus a counter (``dense0_``); blocks created inside a parent's
``with self.name_scope():`` are prefixed by the parent's (``mlp0_dense1_``),
and parameter names are prefix + name (``dense0_weight``).

A :class:`HybridBlock` writes ``hybrid_forward(self, F, x, **params)``
where ``F`` is ``nd`` (run now) or ``sym`` (build a graph); after
``hybridize()`` the graph is traced once and reused.
"""

import re
import threading
import warnings
from collections import OrderedDict

from .. import name as _name
from .. import ndarray as nd
from .._np_state import is_np_array
from ..base import DLBookError
from ..ndarray.ndarray import NDArray
from .cached_op import call_cached, run_graph
from .deferred import call_deferred
from .parameter import (
    DeferredInitializationError,
    Parameter,
    ParameterDict,
)
from .parameter_files import _brief_print_list
from .utils import HookHandle

__all__ = ['Block', 'HybridBlock']


class _BlockScope:
    """The naming scope opened by ``with block.name_scope():``."""

    _current = threading.local()

    def __init__(self, block):
        self._block = block
        self._counter = {}
        self._old_scope = None
        self._name_scope = None

    @staticmethod
    def create(prefix, params, hint):
        """Prefix and ParameterDict for a new block with name ``hint``."""
        current = getattr(_BlockScope._current, 'value', None)
        if current is None:
            if prefix is None:
                prefix = _name.current().get(None, hint) + '_'
            if params is None:
                params = ParameterDict(prefix)
            else:
                params = ParameterDict(params.prefix, params)
            return prefix, params
        if prefix is None:
            count = current._counter.get(hint, 0)
            prefix = f'{hint}{count}_'
            current._counter[hint] = count + 1
        if params is None:
            parent = current._block.params
            params = ParameterDict(parent.prefix + prefix, parent._shared)
        else:
            params = ParameterDict(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self):
        if self._block._empty_prefix:
            return self
        self._old_scope = getattr(_BlockScope._current, 'value', None)
        _BlockScope._current.value = self
        self._name_scope = _name.Prefix(self._block.prefix)
        self._name_scope.__enter__()
        return self

    def __exit__(self, *exc):
        if self._block._empty_prefix:
            return False
        self._name_scope.__exit__(*exc)
        self._name_scope = None
        _BlockScope._current.value = self._old_scope
        return False


def _indent(text, spaces):
    lines = text.split('\n')
    return '\n'.join([lines[0]] + [' ' * spaces + ln for ln in lines[1:]])


class Block:
    """Base class of all layers and models.

    Parameters
    ----------
    prefix : str, optional
        Prefix of this block's parameter and child names; automatic
        (``dense0_``) when omitted.
    params : ParameterDict, optional
        Share these parameters instead of creating new ones
        (``params=other.collect_params()``).

    Subclasses create children and parameters inside
    ``with self.name_scope():`` and define ``forward``::

        class MLP(nn.Block):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                with self.name_scope():
                    self.hidden = nn.Dense(256, activation='relu')
                    self.output = nn.Dense(10)

            def forward(self, x):
                return self.output(self.hidden(x))
    """

    def __init__(self, prefix=None, params=None):
        self._empty_prefix = prefix == ''
        self._prefix, self._params = _BlockScope.create(
            prefix, params, self._alias()
        )
        self._name = (
            self._prefix[:-1] if self._prefix.endswith('_') else self._prefix
        )
        self._scope = _BlockScope(self)
        self._children = OrderedDict()
        self._reg_params = OrderedDict()
        self._forward_hooks = OrderedDict()
        self._forward_pre_hooks = OrderedDict()

    def _alias(self):
        return type(self).__name__.lower()

    def __repr__(self):
        body = '\n'.join(
            f'  ({key}): {_indent(repr(block), 2)}'
            for key, block in self.__dict__.items()
            if isinstance(block, Block)
        )
        return f'{type(self).__name__}(\n{body}\n)'

    def __setattr__(self, name, value):
        """Register child blocks and parameters assigned as attributes."""
        if name in self.__dict__:
            existing = self.__dict__[name]
            if isinstance(existing, (Parameter, Block)) and not isinstance(
                value, type(existing)
            ):
                raise TypeError(
                    f'Changing attribute type for {name} from '
                    f'{type(existing)} to {type(value)} is not '
                    f'allowed.'
                )
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            if (
                name in self._reg_params
                and self._reg_params[name] is not value
            ):
                raise DLBookError(
                    f'Overriding Parameter attribute {name} is not allowed. '
                    f'If you want to share parameters between blocks, '
                    f'please set \'params\' at Block construction instead.'
                )
            self._reg_params[name] = value
        super().__setattr__(name, value)

    # -- names ------------------------------------------------------------------
    @property
    def prefix(self):
        """Prefix of this block's names (``'dense0_'``)."""
        return self._prefix

    @property
    def name(self):
        """Name of this block (``'dense0'``)."""
        return self._name

    def name_scope(self):
        """``with self.name_scope():`` prefixes children created inside."""
        return self._scope

    @property
    def params(self):
        """This block's own ParameterDict (not its children's)."""
        return self._params

    # -- children and parameters -----------------------------------------------
    def register_child(self, block, name=None):
        """Register ``block`` as a child (key: ``name`` or its index)."""
        if name is None:
            name = str(len(self._children))
        self._children[name] = block

    def collect_params(self, select=None):
        """Parameters of this block and all its children.

        ``select`` is a regular expression matched at the start of each
        name (``re.match``), e.g. ``'.*weight'`` or ``'dense0_|dense1_'``.
        """
        result = ParameterDict(self._params.prefix)
        if not select:
            result.update(self.params)
        else:
            pattern = re.compile(select)
            result.update(
                OrderedDict(
                    (k, v) for k, v in self.params.items() if pattern.match(k)
                )
            )
        for child in self._children.values():
            result.update(child.collect_params(select=select))
        return result

    def _collect_params_with_prefix(self, prefix=''):
        """Structural names: ``'0.weight'``, ``'hidden.bias'``."""
        if prefix:
            prefix += '.'
        found = OrderedDict(
            (prefix + k, v) for k, v in self._reg_params.items()
        )
        for name, child in self._children.items():
            found.update(child._collect_params_with_prefix(prefix + name))
        return found

    def initialize(
        self, init=None, ctx=None, verbose=False, force_reinit=False
    ):
        """Initialize all parameters (default initializer Uniform(0.07));
        a parameter's own ``init`` wins."""
        self.collect_params().initialize(init, ctx, verbose, force_reinit)

    def apply(self, fn):
        """Call ``fn(block)`` on every child, then on this block."""
        for child in self._children.values():
            child.apply(fn)
        fn(self)
        return self

    def cast(self, dtype):
        """Cast all parameters to ``dtype``."""
        for child in self._children.values():
            child.cast(dtype)
        for param in self.params.values():
            param.cast(dtype)

    def hybridize(self, active=True, **kwargs):
        """Hybridize every HybridBlock among the children."""
        for child in self._children.values():
            child.hybridize(active, **kwargs)

    # -- saving ----------------------------------------------------------------
    def save_parameters(self, filename, deduplicate=False):
        """Save parameters under structural names (``0.weight``) in MXNet's
        ``.params`` format; each value is the mean over its contexts."""
        params = self._collect_params_with_prefix()
        if deduplicate:
            # a shared parameter is saved once, under its last name (MXNet)
            last = {id(param): key for key, param in params.items()}
            params = OrderedDict(
                (key, param)
                for key, param in params.items()
                if last[id(param)] == key
            )
        nd.save(filename, {k: v._reduce() for k, v in params.items()})

    def load_parameters(
        self,
        filename,
        ctx=None,
        allow_missing=False,
        ignore_extra=False,
        cast_dtype=False,
        dtype_source='current',
    ):
        """Load parameters written by :meth:`save_parameters` (or by
        MXNet).  Missing or extra names raise with both lists."""
        loaded = nd.load(filename)
        if not isinstance(loaded, dict):
            raise DLBookError(
                f"file '{filename}' holds a list of arrays, "
                f"not named parameters"
            )
        params = self._collect_params_with_prefix()
        if not loaded and not params:
            return
        if not any('.' in key for key in loaded):
            # legacy file of full names, as written by save_params
            self.collect_params().load(
                filename,
                ctx,
                allow_missing,
                ignore_extra,
                self.prefix,
                cast_dtype=cast_dtype,
                dtype_source=dtype_source,
            )
            return
        if not allow_missing:
            # a shared parameter is present under any of its names
            # (save_parameters(deduplicate=True) keeps one)
            present = {id(params[k]) for k in loaded if k in params}
            missing = [
                name
                for name, param in params.items()
                if name not in loaded and id(param) not in present
            ]
            if missing:
                raise DLBookError(
                    f"Parameter(s) {_brief_print_list(missing)} missing in "
                    f"file '{filename}', which contains parameters: "
                    f"{_brief_print_list(loaded)}. Set allow_missing=True "
                    f"to ignore missing parameters."
                )
        extra = [name for name in loaded if name not in params]
        if extra and not ignore_extra:
            raise DLBookError(
                f"Parameter(s) {_brief_print_list(extra)} loaded from file "
                f"'{filename}' are not present in this Block, which "
                f"contains parameters {_brief_print_list(params)}. Set "
                f"ignore_extra=True to ignore."
            )
        # check every parameter first: a failure leaves the block unchanged
        for name, value in loaded.items():
            if name in params:
                params[name]._check_loadable(value, cast_dtype, dtype_source)
        for name, value in loaded.items():
            if name in params:
                params[name]._load_init(
                    value,
                    ctx,
                    cast_dtype=cast_dtype,
                    dtype_source=dtype_source,
                )

    def save_params(self, filename):
        """Deprecated MXNet name: saves full parameter names."""
        warnings.warn(
            'save_params is deprecated. Please use save_parameters.',
            stacklevel=2,
        )
        self.collect_params().save(filename, strip_prefix=self.prefix)

    def load_params(
        self, filename, ctx=None, allow_missing=False, ignore_extra=False
    ):
        """Deprecated MXNet name: loads full parameter names."""
        warnings.warn(
            'load_params is deprecated. Please use load_parameters.',
            stacklevel=2,
        )
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    # -- calling ---------------------------------------------------------------
    def register_forward_pre_hook(self, hook):
        """``hook(block, inputs)`` runs before each forward."""
        handle = HookHandle()
        handle.attach(self._forward_pre_hooks, hook)
        return handle

    def register_forward_hook(self, hook):
        """``hook(block, inputs, outputs)`` runs after each forward."""
        handle = HookHandle()
        handle.attach(self._forward_hooks, hook)
        return handle

    def __call__(self, *args):
        for hook in list(self._forward_pre_hooks.values()):
            hook(self, args)
        out = self.forward(*args)
        for hook in list(self._forward_hooks.values()):
            hook(self, args, out)
        return out

    def forward(self, *args):
        """Compute the output; subclasses override it."""
        raise NotImplementedError(
            f'{type(self).__name__} must define forward(self, *args)'
        )

    def summary(self, *inputs):
        """Print each layer's output shape and parameter count for one
        forward pass on ``inputs`` (MXNet's table)."""
        from .summary import print_summary

        print_summary(self, *inputs)


def _first_array(x, args):
    """The input that decides nd or sym: ``x``, or the first array in
    nested lists of inputs (``hybrid_forward(self, F, xs)`` with a list)."""
    if not isinstance(x, (list, tuple)):
        return x
    from .cached_op import flatten

    flat, _ = flatten([x, *args], 'input')
    return next((a for a in flat if a is not None), x)


class HybridBlock(Block):
    """A Block whose computation is written once for ``nd`` and ``sym``.

    Define ``hybrid_forward(self, F, x, *args, **params)``: ``F`` is
    ``mx.nd`` when called on NDArrays and ``mx.sym`` when called on a
    Symbol; ``params`` holds this block's parameters by attribute name
    (``weight=..., bias=...``).
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._active = False
        self._flags = {}
        self._cached_graph = None

    def __call__(self, *args):
        if self._active and args and isinstance(args[0], NDArray):
            graph = self._cached_graph
            if (
                graph is not None
                and getattr(graph, '_ready', False)
                and not self._forward_pre_hooks
                and not self._forward_hooks
                and type(self).forward is HybridBlock.forward
                and type(self)._call_cached_op is HybridBlock._call_cached_op
                and not is_np_array()
            ):
                # the common call of a hybridized block, straight to its
                # traced graph: what __call__ -> forward -> _call_cached_op
                # do in this case, without their look-ups
                return run_graph(self, graph, args)
            if self._traced_by_running():
                # traced by running it (MXNet 2's forward, F.np under
                # set_np): see dlbook/gluon/deferred.py
                for hook in list(self._forward_pre_hooks.values()):
                    hook(self, args)
                out = call_deferred(self, *args)
                for hook in list(self._forward_hooks.values()):
                    hook(self, args, out)
                return out
        return super().__call__(*args)

    #: False for blocks whose graph is given, not traced (SymbolBlock)
    _may_trace_by_running = True

    def _traced_by_running(self):
        """True if hybridizing this block records its operators by running
        it (``dlbook/gluon/deferred.py``): it defines ``forward`` (MXNet 2
        style) or NumPy mode is on."""
        if not self._may_trace_by_running:
            return False
        if is_np_array():
            return True
        forward = type(self).forward
        return (
            forward is not HybridBlock.forward
            and not forward.__module__.startswith('dlbook.')
        )

    def register_child(self, block, name=None):
        if not isinstance(block, HybridBlock):
            raise DLBookError(
                f'Children of HybridBlock must also be HybridBlock, but '
                f'{block} has type {type(block)}. If you are using '
                f'Sequential, please try HybridSequential instead.'
            )
        super().register_child(block, name)
        self._cached_graph = None

    def hybridize(
        self, active=True, static_alloc=False, static_shape=False, **kwargs
    ):
        """Trace ``hybrid_forward`` into a graph on the next call and reuse
        it (per input shape) afterwards."""
        self._active = active
        self._flags = {
            'static_alloc': static_alloc,
            'static_shape': static_shape,
            **kwargs,
        }
        self._cached_graph = None
        super().hybridize(
            active,
            static_alloc=static_alloc,
            static_shape=static_shape,
            **kwargs,
        )

    def forward(self, x, *args):
        """Dispatch on the input: NDArray (run, possibly through the cached
        graph) or Symbol (build a graph)."""
        first = _first_array(x, args)
        if isinstance(first, NDArray):
            graph = self._cached_graph
            if self._active and getattr(graph, '_ready', False):
                # a traced graph with every parameter ready: it runs on its
                # inputs' device and needs no default context (the common
                # call of a hybridized block, so kept short)
                cached = self._call_cached_op(x, *args)
                if cached is not NotImplemented:
                    return cached
            ctx = first.context
            with ctx:
                if self._active:
                    cached = self._call_cached_op(x, *args)
                    if cached is not NotImplemented:
                        return cached
                params = {
                    name: p._data_or_placeholder(ctx)
                    for name, p in self._reg_params.items()
                }
                return self.hybrid_forward(nd, x, *args, **params)
        from .. import symbol

        if not isinstance(first, symbol.Symbol):
            raise DLBookError(
                f'{type(self).__name__} expects NDArray or '
                f'Symbol input, got {type(x).__name__}'
            )
        params = {name: p.var() for name, p in self._reg_params.items()}
        with self.name_scope():
            return self.hybrid_forward(symbol, x, *args, **params)

    def _call_cached_op(self, *args):
        """Run the traced graph (see ``dlbook.gluon.cached_op``)."""
        return call_cached(self, *args)

    def hybrid_forward(self, F, x, *args, **kwargs):
        """The computation, written with ``F`` (``nd`` or ``sym``)."""
        raise NotImplementedError(
            f'{type(self).__name__} must define '
            f'hybrid_forward(self, F, x, ...)'
        )

    def export(self, path, epoch=0, remove_amp_cast=True):
        """Write ``path-symbol.json`` and ``path-%04d.params`` (keys
        ``arg:<name>``/``aux:<name>``), loadable by
        ``SymbolBlock.imports`` here and in MXNet.

        Returns
        -------
        (symbol_file, params_file)
        """
        if self._cached_graph is None:
            raise RuntimeError(
                'Please first call block.hybridize() and then '
                'run forward with this block at least once '
                'before calling export.'
            )
        constants = getattr(self._cached_graph, 'constants', None)
        if constants:
            raise DLBookError(
                f'export: the traced forward of {self.name} reads arrays '
                f'that are neither inputs nor parameters '
                f'({", ".join(constants)}); make them Parameters (or '
                f'constants via self.params.get_constant) to export'
            )
        graph = self._cached_graph.symbol
        symbol_file = f'{path}-symbol.json'
        graph.save(symbol_file)
        params = {p.name: p for p in self.collect_params().values()}
        aux_names = set(graph.list_auxiliary_states())
        arrays = {}
        for name in graph.list_inputs():
            if name in params:
                kind = 'aux' if name in aux_names else 'arg'
                arrays[f'{kind}:{name}'] = params[name]._reduce()
        params_file = f'{path}-{epoch:04d}.params'
        nd.save(params_file, arrays)
        return symbol_file, params_file

    def infer_shape(self, *args):
        """Finish deferred parameter shapes from example inputs by running
        one forward pass without recording."""
        settle_block_shapes(self, *args)


def settle_block_shapes(block, *args):
    """Run ``block`` once on example inputs, not recorded: each operator
    settles the shapes of the parameters it reads still pending
    (:func:`dlbook.ndarray.pending.settle_shapes`).  Used by
    ``HybridBlock.infer_shape`` and by ``mx.viz`` before tracing."""
    from .. import autograd

    with autograd.pause():
        block(*args)


def _check_no_deferred(block):
    for param in block.collect_params().values():
        if param._deferred_init:
            raise DeferredInitializationError(param.name)
