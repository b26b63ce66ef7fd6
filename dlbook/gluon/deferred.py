"""Hybridize by running: trace a block's operators into one graph.

MXNet 2's Gluon hybridizes a block that defines ``forward(self, x)`` by
*deferred compute*: the first call runs the Python code on real arrays and
records every operator it executes; later calls run the recorded graph.
dlbook does the same here, for

* HybridBlocks written MXNet-2 style, with ``forward(self, x)`` and no
  ``hybrid_forward``;
* any HybridBlock hybridized under ``npx.set_np()``, whose
  ``hybrid_forward(self, F, x)`` may call ``F.np``/``F.npx`` (with ``F``
  the ``nd`` module, ``F.np`` is ``mx.np``).

Every operator call goes through ``ndarray.invoke``, which hands it to the
active :class:`Tracer`.  An array is identified by its raw buffer: the
block's inputs become the graph's ``data``/``data0``... variables, a
parameter's array the parameter's variable, an array computed by a
recorded operator that operator's output.  Any other array the code reads
(one made from a Python list inside ``forward``, an attribute set in
``__init__``) enters the graph as a constant.

Python code runs only while tracing, so values that depend on the data's
shape are fixed in the graph; dlbook therefore keeps one graph per input
signature (shapes and dtypes) and traces again when a new one arrives.
The tracing call itself returns the eagerly computed results (recorded on
the autograd tape as usual).  Operators called through ``mx.np``/``npx``
are written to ``export``'s JSON under MXNet's np-mode names
(``_npi_add``, ``_npx_relu``; ``dlbook.symbol.np_names``).
"""

import importlib

from .._np_state import is_np_shape
from ..base import DLBookError
from ..ndarray.ndarray import NDArray
from ..symbol.np_names import NP_NAMES, SCALAR_OPS
from ..symbol.symbol import Node, Symbol
from .cached_op import CachedGraph, eager_children, flatten, run_graph

# the module (``dlbook.ndarray.invoke`` the name is also the function)
_invoke_module = importlib.import_module('..ndarray.invoke', __package__)

__all__ = ['call_deferred', 'Tracer']


def _given_attrs(op):
    """The attributes that differ from the operator's defaults (what a
    symbol call would have stored)."""
    if op.attrs is op.defaults:
        return {}
    given = {}
    for key, value in op.attrs.items():
        default = op.defaults.get(key, given)
        try:
            same = (
                default is not given
                and bool(default == value)
                and type(default) is type(value)
            )
        except (TypeError, ValueError):
            same = False
        if not same:
            given[key] = value
    return given


#: legacy scalar operators MXNet's np functions record (``np.maximum(x,
#: 0.5)``), with np mode's ``is_int`` attribute
_NP_LEGACY_SCALAR = ('_maximum_scalar', '_minimum_scalar')


#: node-name stems MXNet takes from the Python function, not the operator
_HINTS = {'_split_v2': 'split'}


def _hint(op_name):
    """Node-name stem of an operator: ``_np_reshape`` -> ``reshape``,
    ``FullyConnected`` -> ``fullyconnected``."""
    if op_name in _HINTS:
        return _HINTS[op_name]
    hint = op_name.lstrip('_').lower()
    for stem in ('npi_', 'npx_', 'np_'):
        if hint.startswith(stem):
            return hint[len(stem) :]
    return hint


class Tracer:
    """Records operator calls into graph nodes (see the module text).

    Inputs are resolved at the end (:meth:`finish`), when the parameters
    are known: a parameter initialized during the trace (deferred
    initialization) was produced by operators too, but it enters the graph
    as its variable.
    """

    def __init__(self, prefix):
        self.prefix = prefix
        self.entries = {}  # id(raw) -> (Node, output index)
        self.alive = []  # raws kept alive so ids stay unique
        self.pending = []  # (Node, [(raw id, producer, NDArray)])
        self.counts = {}
        self.np_shape = is_np_shape()

    def source(self, name, x):
        """Make ``x`` the graph variable ``name``."""
        self.entries[id(x._data)] = (Node(None, name), 0)
        self.alive.append(x._data)

    def _input(self, x):
        return (id(x._data), self.entries.get(id(x._data)), x)

    def _node_name(self, hint):
        count = self.counts.get(hint, 0)
        self.counts[hint] = count + 1
        return f'{self.prefix}{hint}{count}'

    def record(self, op, inputs, outputs, out):
        ins = [self._input(x) for x in inputs]
        op_name, hint, extra = op.name, _hint(op.name), {}
        attrs = _given_attrs(op)
        np_scalar = op.name.startswith('_npi_') and op.name.endswith(
            '_scalar'
        )  # _npi_greater_scalar...
        if (
            outputs
            and type(outputs[0]) is not NDArray
            and (
                op.name in NP_NAMES
                or op.name in _NP_LEGACY_SCALAR
                or np_scalar
            )
        ):
            op_name, hint = NP_NAMES.get(op.name, (op_name, hint))
            if (
                op_name in SCALAR_OPS
                or op_name in _NP_LEGACY_SCALAR
                or np_scalar
            ):
                # MXNet writes the number as a float, and whether it was
                # a Python int
                scalar = op.attrs.get('scalar')
                extra['is_int'] = str(
                    isinstance(scalar, int) and not isinstance(scalar, bool)
                )
                attrs['scalar'] = float(scalar)
        node = Node(op_name, self._node_name(hint), attrs=attrs, extra=extra)
        self.pending.append((node, ins))
        for i, o in enumerate(outputs):
            self.entries[id(o._data)] = (node, i)
            self.alive.append(o._data)
        if out is not None:
            targets = out if isinstance(out, (tuple, list)) else [out]
            for i, target in enumerate(targets):
                self.entries[id(target._data)] = (node, i)
                self.alive.append(target._data)

    def finish(self, outs, params, prefix):
        """The graph's Symbol, the parameters it reads (by name) and its
        constants (name -> NDArray)."""
        by_raw = {}
        for param in params:
            for arr in (param._data or {}).values():
                by_raw[id(arr._data)] = param
        variables, used, constants = {}, {}, {}

        def resolve(raw_id, producer, x):
            param = by_raw.get(raw_id)
            if param is not None:
                if raw_id not in variables:
                    variables[raw_id] = param.var()._outputs[0]
                    used[param.name] = param
                return variables[raw_id]
            if producer is not None:
                return producer
            if raw_id not in variables:
                name = f'{prefix}constant{len(constants)}'
                constants[name] = x
                variables[raw_id] = (Node(None, name), 0)
            return variables[raw_id]

        for node, ins in self.pending:
            node.inputs = [resolve(*i) for i in ins]
        heads = []
        for o in outs:
            if not isinstance(o, NDArray):
                raise DLBookError(
                    f'hybridize: forward returned '
                    f'{type(o).__name__}; a hybridized block '
                    f'returns arrays (or lists of arrays)'
                )
            heads.append(resolve(*self._input(o)))
        symbol = Symbol(heads)
        symbol._np_shape = self.np_shape
        return symbol, used, constants


def _trace(block, args):
    """Run ``block`` eagerly on ``args`` while recording; returns
    (outputs, CachedGraph)."""
    flat, in_format = flatten(list(args), 'input')
    arrays = [a for a in flat if a is not None]
    names = (
        ['data']
        if len(arrays) == 1
        else [f'data{i}' for i in range(len(arrays))]
    )
    tracer = Tracer(block.prefix)
    for n, x in zip(names, arrays):
        tracer.source(n, x)
    switched = eager_children(block)
    previous = _invoke_module.TRACER
    _invoke_module.TRACER = tracer
    try:
        out = block.forward(*args)
    finally:
        _invoke_module.TRACER = previous
        for b in switched:
            b._active = True
    outs, out_format = flatten(out, 'output')
    symbol, params, constants = tracer.finish(
        outs, block.collect_params().values(), block.prefix
    )
    graph = CachedGraph.__new__(CachedGraph)
    graph.setup(symbol, names, {**params, **constants}, in_format, out_format)
    graph.constants = constants
    graph._ready = True
    return out, graph


class DeferredCache:
    """The graphs of one block, one per input signature; ``symbol`` is the
    latest (the one ``export`` writes)."""

    def __init__(self):
        self.graphs = {}
        self.symbol = None
        self.latest = None

    @property
    def constants(self):
        return self.latest.constants if self.latest else {}


def _signature(args):
    flat, fmt = flatten(list(args), 'input')
    return (repr(fmt),) + tuple(
        None if a is None else (a.shape, a.dtype.str, type(a).__name__)
        for a in flat
    )


def call_deferred(block, *args):
    """Run a hybridized block: trace it on a new input signature (and
    return the eager results), else run the recorded graph."""
    for a in flatten(list(args), 'input')[0]:
        if a is not None and not isinstance(a, NDArray):
            raise DLBookError(
                f'{block.name}: a hybridized block takes '
                f'arrays, got {type(a).__name__}'
            )
    cache = block._cached_graph
    if not isinstance(cache, DeferredCache):
        cache = block._cached_graph = DeferredCache()
    key = _signature(args)
    graph = cache.graphs.get(key)
    if graph is None:
        out, graph = _trace(block, args)
        cache.graphs[key] = graph
        cache.latest, cache.symbol = graph, graph.symbol
        return out
    cache.latest, cache.symbol = graph, graph.symbol
    return run_graph(block, graph, args)
