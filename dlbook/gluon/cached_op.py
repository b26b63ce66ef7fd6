"""Hybridized execution: trace ``hybrid_forward`` once, then run the graph.

After ``net.hybridize()``, the first call traces the block with symbols
(``F = mx.sym``; inputs named ``data`` or ``data0``, ``data1`` ...), and
every later call runs the traced graph with :class:`dlbook.symbol.program.
GraphProgram` instead of calling Python layer code again.  Under
``autograd.record()`` the whole graph is **one** tape node, whose backward
runs the graph backward.  Parameters are shared with eager execution: the
graph reads each parameter's current array on every call.

The graph runs from a flat list of steps prepared once, in which a dense
layer and its activation, a softmax cross-entropy loss, a relu with the
max pooling that follows it, and a BatchNorm with the relu that follows
it, are fused into single steps (``dlbook/symbol/fusion.py``): on a small network the
Python around each operator costs more than its NumPy work, so fewer steps
make a hybridized training step faster than an eager one.

A Python side effect inside ``hybrid_forward`` (a ``print``) therefore runs
only during the trace, as in MXNet.
"""

from .. import autograd
from .. import symbol as sym
from ..base import DLBookError
from ..ndarray.invoke import invoke
from ..ndarray.ndarray import NDArray
from ..ndarray.pending import settle_shapes
from ..ops.op import Op
from ..symbol.program import GraphProgram
from .parameter_deferred import DeferredParameter

__all__ = ['call_cached', 'run_graph', 'trace', 'flatten', 'regroup']

_state = autograd._state


def flatten(args, what):
    """Flatten nested lists/tuples of arrays; return (flat, format)."""
    if isinstance(args, (list, tuple)):
        flat, fmt = [], []
        for a in args:
            f, sub = flatten(a, what)
            flat += f
            fmt.append(sub)
        return flat, fmt
    if args is None:
        return [None], -1
    return [args], 0


def regroup(flat, fmt):
    """Inverse of :func:`flatten`: returns (structure, rest of flat)."""
    if isinstance(fmt, int):
        if fmt == 0:
            return flat[0], flat[1:]
        return None, flat[1:]
    out = []
    for sub in fmt:
        item, flat = regroup(flat, sub)
        out.append(item)
    return out, flat


def _without_trailing_none(fmt):
    """A top-level format without its trailing ``-1`` (None) entries:
    leaving out optional inputs at the end means passing None."""
    fmt = list(fmt)
    while fmt and fmt[-1] == -1:
        fmt.pop()
    return fmt


def _is_flat(fmt):
    return isinstance(fmt, list) and all(f == 0 for f in fmt)


class CachedGraph:
    """The traced graph of one HybridBlock and its input/output layout."""

    def __init__(self, block, args):
        flat, in_format = flatten(list(args), 'input')
        # None stands for an optional input left out (a loss's
        # sample_weight): it stays None in the trace and gets no variable
        count = sum(a is not None for a in flat)
        names = ['data'] if count == 1 else [f'data{i}' for i in range(count)]
        variables = iter(sym.var(n) for n in names)
        inputs = [None if a is None else next(variables) for a in flat]
        grouped = regroup(inputs, in_format)[0]
        params = {name: p.var() for name, p in block._reg_params.items()}
        with block.name_scope():
            out = block.hybrid_forward(sym, *grouped, **params)
        outs, out_format = flatten(out, 'output')
        symbol = sym.Group(outs) if len(outs) > 1 else outs[0]
        by_name = {p.name: p for p in block.collect_params().values()}
        params = {}
        for name in symbol.list_inputs():
            if name in names:
                continue
            if name not in by_name:
                raise DLBookError(
                    f'hybridize: the traced graph of {block.name} uses '
                    f'variable {name!r}, which is neither an input nor a '
                    f'parameter of the block'
                )
            params[name] = by_name[name]
        self.setup(symbol, names, params, in_format, out_format)
        self.block = block

    def setup(self, symbol, input_names, params, in_format, out_format):
        """Record the graph and its layout (SymbolBlock calls this
        directly, with a graph it already has)."""
        self.symbol = symbol
        self.input_names = list(input_names)
        self.params = dict(params)
        self.in_format = in_format
        self.out_format = out_format
        self.flat_in = _is_flat(in_format)
        self.single_out = out_format == 0
        self.programs = {}
        self._ready = False
        self.block = None

    def program(self, ctx):
        """The compiled graph for ``ctx`` and where each of its variables
        comes from: an input position (int) or a Parameter."""
        found = self.programs.get(ctx)
        if found is None:
            program = GraphProgram(self.symbol, ctx)
            position = {n: i for i, n in enumerate(self.input_names)}
            sources = [
                position[n] if n in position else self.params[n]
                for n in program.var_names
            ]
            found = self.programs[ctx] = (program, sources)
        return found

    def finish_deferred_init(self, flat):
        """Give parameters of unknown shape their shapes from the graph."""
        if self._ready:
            return
        pending = [p for p in self.params.values() if p._deferred_init]
        if pending:
            shapes = {n: x.shape for n, x in zip(self.input_names, flat)}
            arg_shapes, _, aux_shapes = self.symbol.infer_shape_partial(
                **shapes
            )
            names = (
                self.symbol.list_arguments()
                + self.symbol.list_auxiliary_states()
            )
            found = dict(zip(names, list(arg_shapes) + list(aux_shapes)))
            settle_shapes(
                'the hybridized graph',
                [DeferredParameter(p, None) for p in pending],
                [found.get(p.name) for p in pending],
                partial=True,
            )
            if self.block is not None and any(
                not (p._shape and all(p._shape)) for p in pending
            ):
                # some shapes only follow from running the layers (e.g. an
                # LSTM's input width reaches its weight through reshape
                # and concat): run one eager pass, where each operator
                # completes the shapes of the parameters it uses
                _eager_pass(self.block, regroup(flat, self.in_format)[0])
            for param in pending:
                if param._deferred_init:
                    param._finish_deferred_init()
        # from now on every parameter has its data (or raises MXNet's
        # error when read): no need to look again
        self._ready = all(p._data is not None for p in self.params.values())


def eager_children(block):
    """Switch hybridization off in ``block`` and below; return the blocks
    switched, to switch back on."""
    switched = []

    def eager(b):
        if getattr(b, '_active', False):
            switched.append(b)
            b._active = False

    block.apply(eager)
    return switched


def _eager_pass(block, args):
    """Run ``block`` once eagerly (hybridization off, not recorded)."""
    from .. import autograd

    switched = eager_children(block)
    try:
        with autograd.pause():
            block(*args)
    finally:
        for b in switched:
            b._active = True


class _GraphOp(Op):
    """The whole traced graph as one operator for the eager front end:
    ``invoke`` runs it and records it as a single tape node.

    Not registered: it exists only as the tape node of a hybridized call.
    Subclassing :class:`~dlbook.ops.op.Op` gives it every attribute
    ``invoke`` and the tape read, with the defaults of any other operator.
    """

    name = 'CachedOp'
    attrs = {}
    arguments = ()  # errors name an input by its position
    # the program skips the gradients of inputs that want none
    skips_unneeded_grads = True

    def __init__(self, program, keep):
        self.program = program
        self.keep = keep
        self.saved = None
        # the device's generator is looked up only for a graph that samples
        needs_rng = program.__dict__.get('_needs_rng')
        if needs_rng is None:
            needs_rng = program._needs_rng = any(
                step.needs_rng for step in program.steps
            )
        self.needs_rng = needs_rng

    def forward(self, xp, *raws):
        program = self.program
        ctx = program.ctx
        if program.can_run_local(ctx):
            # raw arrays straight through, no (array, context) pairs
            result, self.saved = program.run_local(
                raws, self.is_train, rng=self.rng, keep=self.keep
            )
        else:
            outs, self.saved = program.forward(
                [(r, ctx) for r in raws],
                self.is_train,
                rng=self.rng,
                keep=self.keep,
            )
            result = [raw for raw, _ in outs]
        if not program.steps or len(result) > 1:
            # an output that is an input (``return x``) is a new array
            given = {id(r) for r in raws}
            result = [r.copy() if id(r) in given else r for r in result]
        return result[0] if len(result) == 1 else result

    def backward(self, xp, *dys):
        return self.program.backward(
            self.saved, dys, needed=self.needs_input_grad
        )


def trace(block, args):
    """Build (or return) the block's cached graph for these inputs."""
    if block._cached_graph is None:
        block._cached_graph = CachedGraph(block, args)
    return block._cached_graph


def call_cached(block, *args):
    """Run a hybridized block on NDArrays through its traced graph."""
    return run_graph(block, trace(block, args), args)


def run_graph(block, graph, args):
    """Run ``graph`` (a :class:`CachedGraph` of ``block``) on ``args``."""
    if graph.flat_in:
        flat = args
    else:
        flat, in_format = flatten(list(args), 'input')
        if _without_trailing_none(in_format) != _without_trailing_none(
            graph.in_format
        ):
            raise DLBookError(
                f'{block.name}: the argument structure does not match the '
                f'traced graph (input format {in_format}, traced '
                f'{graph.in_format}; 0 is an array, -1 None); call '
                f'hybridize() again to trace a new one'
            )
        flat = [x for x in flat if x is not None]
    if len(flat) != len(graph.input_names):
        raise DLBookError(
            f'{block.name}: the hybridized graph takes '
            f'{len(graph.input_names)} input array(s), got '
            f'{len(flat)}; call hybridize() again to trace '
            f'a new one'
        )
    for x in flat:
        if not isinstance(x, NDArray):
            raise DLBookError(
                'a hybridized block takes NDArray inputs '
                '(or Symbols, to build a graph)'
            )
    ctx = flat[0]._ctx
    if not graph._ready:
        graph.finish_deferred_init(flat)
    program, sources = graph.program(ctx)
    inputs = []
    append = inputs.append
    for s in sources:
        if type(s) is int:
            append(flat[s])
        elif isinstance(s, NDArray):  # a constant of a traced forward
            append(s)
        else:
            # the parameter's current array on ctx (re-read every call:
            # set_data, load_parameters or reset_ctx may replace it)
            data = s._data
            arr = data.get(ctx) if data is not None else None
            append(arr if arr is not None else s.data(ctx))
    # keep the graph's intermediate arrays only when backward can come
    keep = False
    if _state.recording:
        for x in inputs:
            if x._node is not None or x._grad_req is not None:
                keep = True
                break
    out = invoke(_GraphOp(program, keep), inputs)
    if graph.single_out:
        return out
    outs = out if isinstance(out, list) else [out]
    return regroup(outs, graph.out_format)[0]
