"""Hybridized execution: trace ``hybrid_forward`` once, then run the graph.

After ``net.hybridize()``, the first call traces the block with symbols
(``F = mx.sym``; inputs named ``data`` or ``data0``, ``data1`` ...), and
every later call runs the traced graph with :class:`dlbook.graph.
GraphProgram` instead of calling Python layer code again.  Under
``autograd.record()`` the whole graph is **one** tape node, whose backward
runs the graph backward.  Parameters are shared with eager execution: the
graph reads each parameter's current array on every call.

A Python side effect inside ``hybrid_forward`` (a ``print``) therefore runs
only during the trace, as in MXNet.
"""

from .. import symbol as sym
from ..base import DLBookError
from ..graph import GraphProgram
from ..ndarray.invoke import invoke
from ..ndarray.ndarray import NDArray

__all__ = ['call_cached', 'trace', 'flatten', 'regroup']


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


class CachedGraph:
    """The traced graph of one HybridBlock and its input/output layout."""

    def __init__(self, block, args):
        flat, self.in_format = flatten(list(args), 'input')
        if any(a is None for a in flat):
            raise DLBookError('hybridized blocks cannot take None inputs')
        names = ['data'] if len(flat) == 1 else \
            [f'data{i}' for i in range(len(flat))]
        inputs = [sym.var(n) for n in names]
        grouped = regroup(inputs, self.in_format)[0]
        params = {name: p.var() for name, p in block._reg_params.items()}
        with block.name_scope():
            out = block.hybrid_forward(sym, *grouped, **params)
        outs, self.out_format = flatten(out, 'output')
        self.symbol = sym.Group(outs) if len(outs) > 1 else outs[0]
        self.input_names = names
        by_name = {p.name: p for p in block.collect_params().values()}
        self.params = {}
        for name in self.symbol.list_inputs():
            if name in names:
                continue
            if name not in by_name:
                raise DLBookError(
                    f'hybridize: the traced graph of {block.name} uses '
                    f'variable {name!r}, which is neither an input nor a '
                    f'parameter of the block')
            self.params[name] = by_name[name]
        self.programs = {}

    def program(self, ctx):
        found = self.programs.get(ctx)
        if found is None:
            found = self.programs[ctx] = GraphProgram(self.symbol, ctx)
        return found

    def finish_deferred_init(self, flat):
        """Give parameters of unknown shape their shapes from the graph."""
        pending = [p for p in self.params.values() if p._deferred_init]
        if not pending:
            return
        shapes = {n: x.shape for n, x in zip(self.input_names, flat)}
        dtypes = {n: x.dtype for n, x in zip(self.input_names, flat)}
        arg_shapes, _, aux_shapes = self.symbol.infer_shape_partial(
            **shapes)
        names = self.symbol.list_arguments() + \
            self.symbol.list_auxiliary_states()
        found = dict(zip(names, list(arg_shapes) + list(aux_shapes)))
        del dtypes
        for param in pending:
            shape = found.get(param.name)
            if shape:
                param.shape = shape
            param._finish_deferred_init()


class _GraphOp:
    """The whole traced graph as one operator for the eager front end:
    ``invoke`` runs it and records it as a single tape node."""

    name = 'CachedOp'
    needs_rng = True
    differentiable = True
    same_dtype = False

    def __init__(self, program, var_order):
        self.program = program
        self.var_order = var_order
        self.is_train = False
        self.rng = None
        self.saved = None
        self._ctx = program.steps[0].ctx if program.steps else None

    def out_context(self, ctx):
        return ctx

    def forward(self, xp, *raws):
        ctx = self._ctx
        outs, self.saved = self.program.forward(
            [(r, ctx) for r in raws], self.is_train, rng=self.rng)
        result = [raw for raw, _ in outs]
        return result[0] if len(result) == 1 else result

    def backward(self, xp, *dys):
        return self.program.backward(self.saved, list(dys))


def trace(block, args):
    """Build (or return) the block's cached graph for these inputs."""
    if block._cached_graph is None:
        block._cached_graph = CachedGraph(block, args)
    return block._cached_graph


def call_cached(block, *args):
    """Run a hybridized block on NDArrays through its traced graph."""
    graph = trace(block, args)
    flat, _ = flatten(list(args), 'input')
    if not all(isinstance(x, NDArray) for x in flat):
        raise DLBookError('a hybridized block takes NDArray inputs '
                          '(or Symbols, to build a graph)')
    ctx = flat[0].context
    graph.finish_deferred_init(flat)
    program = graph.program(ctx)
    by_name = dict(zip(graph.input_names, flat))
    inputs = []
    for name in program.var_names:
        if name in by_name:
            inputs.append(by_name[name])
        else:
            inputs.append(graph.params[name].data(ctx))
    op = _GraphOp(program, program.var_names)
    if not program.steps:
        raise DLBookError('hybridize: the traced graph has no operators')
    out = invoke(op, inputs)
    outs = out if isinstance(out, list) else [out]
    result = regroup(outs, graph.out_format)[0]
    return result
