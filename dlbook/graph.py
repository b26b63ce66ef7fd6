"""Running a symbol graph: the one graph interpreter of dlbook.

:class:`GraphProgram` compiles a Symbol into a list of steps (operator
nodes in topological order, reading and writing numbered *slots*) and
runs it forward and backward on raw arrays.  The Executor (``bind``,
``simple_bind``) and hybridized Gluon blocks (``CachedOp``) both use it,
so a graph is always run the same way.

Two details matter:

* **devices** - each node runs on the context of its ``ctx_group``
  (``group2ctx``); where an input lives elsewhere, a ``_copyto`` operator
  moves it, and its backward moves the gradient back;
* **memory** - a slot is released right after its last reader has run,
  so intermediate buffers are freed (and reused by the allocator) as early
  as their lifetimes allow.  ``peak_bytes`` reports the high-water mark
  when ``track_memory`` is on.
"""

from .base import DLBookError
from .ops import REGISTRY
from .symbol.symbol import topological_nodes

__all__ = ['GraphProgram']


class _Step:
    __slots__ = ('node', 'cls', 'attrs', 'in_slots', 'out_slots', 'ctx')

    def __init__(self, node, in_slots, out_slots, ctx):
        self.node = node
        self.cls = REGISTRY[node.op]
        self.attrs = node.attrs
        self.in_slots = in_slots
        self.out_slots = out_slots
        self.ctx = ctx


class GraphProgram:
    """A symbol compiled for execution.

    Parameters
    ----------
    symbol : Symbol
    default_ctx : Context
        Where nodes without a ``ctx_group`` run.
    group2ctx : dict, optional
        ``{group name: Context}`` for model parallelism.
    """

    def __init__(self, symbol, default_ctx, group2ctx=None):
        self.symbol = symbol
        group2ctx = group2ctx or {}
        nodes = topological_nodes(symbol._outputs)
        slot_of = {}
        for node in nodes:
            for i in range(node.num_outputs()):
                slot_of[(id(node), i)] = len(slot_of)
        self.num_slots = len(slot_of)
        self.variables = [n for n in nodes if n.is_variable]
        self.var_slots = [slot_of[(id(n), 0)] for n in self.variables]
        self.var_names = [n.name for n in self.variables]
        self.steps = []
        for node in nodes:
            if node.is_variable:
                continue
            group = node.extra.get('ctx_group')
            ctx = group2ctx.get(group, default_ctx) if group \
                else default_ctx
            self.steps.append(_Step(
                node, [slot_of[(id(c), i)] for c, i in node.inputs],
                [slot_of[(id(node), i)] for i in range(node.num_outputs())],
                ctx))
        self.out_slots = [slot_of[(id(n), i)] for n, i in symbol._outputs]
        # the last step reading each slot: it can be released afterwards
        keep = set(self.out_slots) | set(self.var_slots)
        self.release_after = [[] for _ in self.steps]
        last = {}
        for k, step in enumerate(self.steps):
            for s in step.in_slots:
                last[s] = k
        for slot, k in last.items():
            if slot not in keep:
                self.release_after[k].append(slot)
        self.track_memory = False
        self.peak_bytes = 0

    def var_context(self, name, default_ctx, group2ctx=None):
        """Context of a variable's arrays: its ``ctx_group``'s device."""
        node = self.variables[self.var_names.index(name)]
        group = node.extra.get('ctx_group')
        if group and group2ctx and group in group2ctx:
            return group2ctx[group]
        return default_ctx

    # -- forward -------------------------------------------------------------
    def forward(self, inputs, is_train, rng=None):
        """Run the graph.

        Parameters
        ----------
        inputs : list of (raw array, Context)
            One per variable, in ``self.variables`` order.
        is_train : bool
            Training behaviour (Dropout, BatchNorm) and keep what the
            backward pass needs.
        rng : RandomState, optional
            Generator for sampling operators (default: each node's
            device generator).

        Returns
        -------
        (outputs, tape) : outputs as (raw, Context) pairs; ``tape`` is
        what :meth:`backward` needs (None unless ``is_train``).
        """
        values = [None] * self.num_slots
        for slot, value in zip(self.var_slots, inputs):
            values[slot] = value
        tape = [] if is_train else None
        live = 0
        for k, step in enumerate(self.steps):
            ctx = step.ctx
            op = step.cls(**step.attrs)
            op.is_train = is_train
            if op.needs_rng:
                op.rng = rng or ctx.backend.rng(ctx.device_id)
            raws, copies = [], []
            for s in step.in_slots:
                raw, src = values[s]
                if src is not ctx:
                    copy = REGISTRY['_copyto'](ctx=ctx, src_ctx=src)
                    raw = copy.forward(src.xp, raw)
                    copies.append((len(raws), copy))
                raws.append(raw)
            try:
                with ctx.scope:
                    out = op.forward(ctx.xp, *raws)
            except (ValueError, TypeError, IndexError) as err:
                shapes = [r.shape for r in raws]
                raise DLBookError(f'{step.node.op} (node '
                                  f'{step.node.name!r}) failed on inputs '
                                  f'of shapes {shapes}: {err}') from err
            outs = out if isinstance(out, (tuple, list)) else (out,)
            for s, o in zip(step.out_slots, outs):
                values[s] = (o, ctx)
            if tape is not None:
                tape.append((op, copies,
                             [(o.shape, o.dtype) for o in outs]))
            if self.track_memory:
                live = self._account(values, live)
            for s in self.release_after[k]:
                values[s] = None
        return [values[s] for s in self.out_slots], tape

    def _account(self, values, live):
        total = sum(v[0].nbytes for v in values if v is not None)
        self.peak_bytes = max(self.peak_bytes, total)
        return total

    # -- backward ------------------------------------------------------------
    def backward(self, tape, out_grads):
        """Gradients of the variables given the outputs' gradients.

        Parameters
        ----------
        tape : from :meth:`forward` with ``is_train=True``
        out_grads : list of raw arrays (one per output; None = ones)

        Returns
        -------
        list of raw arrays or None, one per variable
        """
        if tape is None:
            raise DLBookError('backward needs a forward pass with '
                              'is_train=True first')
        grads = {}
        for slot, g in zip(self.out_slots, out_grads):
            grads[slot] = g if slot not in grads else grads[slot] + g
        for step, (op, copies, meta) in zip(reversed(self.steps),
                                            reversed(tape)):
            dys = [grads.pop(s, None) for s in step.out_slots]
            if all(dy is None for dy in dys):
                continue
            xp = step.ctx.xp
            dys = [xp.zeros(shape, dtype) if dy is None else dy
                   for dy, (shape, dtype) in zip(dys, meta)]
            with step.ctx.scope:
                din = op.backward(xp, *dys)
            if not isinstance(din, (tuple, list)):
                din = (din,)
            din = list(din)
            for position, copy in copies:
                if din[position] is not None:
                    din[position] = copy.backward(xp, din[position])
            for s, g in zip(step.in_slots, din):
                if g is not None:
                    grads[s] = g if s not in grads else grads[s] + g
        return [grads.get(s) for s in self.var_slots]
