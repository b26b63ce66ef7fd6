"""SymbolBlock: a Gluon block made from a symbol graph.

It turns a graph built with ``mx.sym`` (or exported by
``HybridBlock.export``, here or in MXNet) back into a block that can be
called on NDArrays, trained, and saved::

    net = gluon.SymbolBlock.imports('model-symbol.json', ['data'],
                                    'model-0000.params', ctx=mx.cpu())
"""

from .. import symbol as sym
from ..base import DLBookError
from .block import HybridBlock
from .cached_op import CachedGraph, call_cached

__all__ = ['SymbolBlock']


def _common_prefix(names):
    """The longest string every name starts with."""
    if not names:
        return ''
    prefix = names[0]
    for name in names[1:]:
        i = 0
        while i < min(len(prefix), len(name)) and prefix[i] == name[i]:
            i += 1
        prefix = prefix[:i]
    return prefix


class SymbolBlock(HybridBlock):
    """Construct a block from symbols.

    Parameters
    ----------
    outputs : Symbol or list of Symbol
        The graph's outputs.
    inputs : Symbol or list of Symbol
        Its input variables (everything else becomes a parameter).
    params : ParameterDict, optional
        Parameters to share; missing ones are created (with deferred
        shapes).
    """

    _may_trace_by_running = False  # its graph is given

    def __init__(self, outputs, inputs, params=None):
        super().__init__(prefix='', params=None)
        if isinstance(inputs, sym.Symbol) and len(inputs) == 1:
            inputs = [inputs]
        if isinstance(outputs, (list, tuple)):
            outputs = (
                sym.Group(list(outputs)) if len(outputs) > 1 else outputs[0]
            )
        input_names = []
        for s in inputs:
            if s.name is None or s.get_children() is not None:
                raise DLBookError(
                    f'SymbolBlock inputs must be variables, got {s}'
                )
            input_names.append(s.name)
        self._input_names = input_names
        self._graph_symbol = outputs
        aux = set(outputs.list_auxiliary_states())
        shared = params if params is not None else {}
        # arguments first, then auxiliary states, as MXNet registers them
        for name in outputs.list_arguments() + outputs.list_auxiliary_states():
            if name in input_names:
                continue
            if name in shared:
                self.params._params[name] = shared[name]
            else:
                self.params.get(
                    name,
                    allow_deferred_init=True,
                    grad_req='null' if name in aux else 'write',
                )
        # structural names for save_parameters: the full names without
        # their common prefix, as MXNet does
        names = list(self.params.keys())
        strip = len(_common_prefix(names))
        self._reg_params.update(
            (name[strip:], self.params[name]) for name in names
        )
        self._active = True

    def _trace_graph(self, args):
        graph = CachedGraph.__new__(CachedGraph)
        outputs = len(self._graph_symbol)
        graph.setup(
            self._graph_symbol,
            self._input_names,
            {p.name: p for p in self.params.values()},
            [0] * len(args),
            [0] * outputs if outputs > 1 else 0,
        )
        return graph

    def forward(self, x, *args):
        if len(args) + 1 != len(self._input_names):
            raise DLBookError(
                f'SymbolBlock takes {len(self._input_names)} '
                f'input(s) {self._input_names}, got '
                f'{len(args) + 1}'
            )
        if isinstance(x, sym.Symbol):
            given = dict(zip(self._input_names, (x,) + args))
            out = self._graph_symbol(**given)
            # one Symbol per output, as MXNet regroups them
            return list(out) if len(out) > 1 else out
        if self._cached_graph is None:
            self._cached_graph = self._trace_graph((x,) + args)
        return call_cached(self, x, *args)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise DLBookError('SymbolBlock runs its graph directly')

    def hybridize(self, active=True, **kwargs):
        """A SymbolBlock always runs its graph; this is a no-op."""

    @staticmethod
    def imports(
        symbol_file,
        input_names,
        param_file=None,
        ctx=None,
        allow_missing=False,
        ignore_extra=False,
    ):
        """Load a block from files written by ``export`` (or by MXNet)."""
        graph = sym.load(symbol_file)
        if isinstance(input_names, str):
            input_names = [input_names]
        inputs = [sym.var(n) for n in input_names]
        block = SymbolBlock(graph, inputs)
        if param_file is not None:
            block.collect_params().load(
                param_file,
                ctx=ctx,
                allow_missing=allow_missing,
                ignore_extra=ignore_extra,
                cast_dtype=True,
                dtype_source='saved',
            )
        return block
