"""Running a symbol graph: the one graph interpreter of dlbook.

:class:`GraphProgram` compiles a Symbol into a list of steps (operator
nodes in topological order, reading and writing numbered *slots*) and
runs it forward and backward on raw arrays.  The Executor (``bind``,
``simple_bind``) and hybridized Gluon blocks (``CachedOp``) both use it,
so a graph is always run the same way.

Three details matter:

* **devices** - each node runs on the context of its ``ctx_group``
  (``group2ctx``); where an input lives elsewhere, a ``_copyto`` operator
  moves it, and its backward moves the gradient back;
* **memory** - a slot is released right after its last reader has run,
  so intermediate buffers are freed (and reused by the allocator) as early
  as their lifetimes allow.  ``peak_bytes`` reports the high-water mark
  when ``track_memory`` is on;
* **speed** - everything that does not depend on the data (operator
  attributes, output devices, which slots to release) is worked out once,
  when the program is built; running a step is then a few list look-ups
  around ``op.forward``.
"""

from .. import _profile_state as _profile
from ..base import DLBookError
from ..ops import REGISTRY
from ..ops import fastpath as _fastpath
from .node import op_class, topological_nodes

__all__ = ['GraphProgram']

_new = object.__new__


def _as_list(out, single):
    """A step's outputs as a list (one-output operators may return one
    array or a one-item sequence)."""
    if not single:
        return list(out)
    return [out[0] if isinstance(out, (tuple, list)) else out]


#: operators that make an array of their ``shape`` attribute
_CREATIONS = frozenset(['_zeros', '_ones', '_full', '_empty'])


class _Step:
    """One operator node, with everything known before the data."""

    __slots__ = (
        'node',
        'cls',
        'proto',
        'in_slots',
        'out_slots',
        'ctx',
        'out_ctx',
        'xp',
        'switch',
        'needs_rng',
        'single',
        'release',
    )

    def __init__(self, node, in_slots, out_slots, ctx):
        self.node = node
        self.cls = op_class(node.op)
        # A prototype checks the attributes once; each run copies its
        # state into a fresh instance (per-call state lives on the op).
        self.proto = self.cls(**node.attrs)
        self.in_slots = in_slots
        self.out_slots = out_slots
        self.ctx = ctx
        out_context = self.proto.out_context
        self.out_ctx = ctx if out_context is None else out_context(ctx)
        self.xp = ctx.xp
        self.switch = ctx.scope if ctx.backend.switches_device else None
        self.needs_rng = self.proto.needs_rng
        self.single = len(out_slots) == 1
        self.release = ()

    def make_op(self, is_train):
        op = _new(self.cls)
        op.__dict__.update(self.proto.__dict__)
        op.is_train = is_train
        return op

    def run(self, op, raws):
        """``op.forward`` on the raw inputs, through the profiler when it
        is on and inside the device switch when the backend needs one."""
        try:
            if _profile.ON:
                return _profile.run(
                    op.name,
                    'symbolic',
                    self.ctx,
                    op.forward,
                    self.xp,
                    raws,
                    self.switch,
                )
            if self.switch is None:
                return op.forward(self.xp, *raws)
            with self.switch:
                return op.forward(self.xp, *raws)
        except (ValueError, TypeError, IndexError) as err:
            raise self.failure(err, raws) from err

    def failure(self, err, raws):
        """The error for an operator that failed on ``raws``: it names
        the node, its operator and the input shapes."""
        shapes = [r.shape for r in raws]
        return DLBookError(
            f'{self.node.op} (node {self.node.name!r}) failed on inputs '
            f'of shapes {shapes}: {err}'
        )


class _Tape(list):
    """What :meth:`GraphProgram.run_local` keeps for backward: one entry
    per step, and the step list (``plan``, fused or not) they follow."""

    __slots__ = ('plan',)


def _owner(array):
    """The array that owns the memory of ``array`` (views share it)."""
    base = getattr(array, 'base', None)
    while base is not None and hasattr(base, 'nbytes'):
        array, base = base, getattr(base, 'base', None)
    return array


def _arrays_in(value, found):
    if isinstance(value, (tuple, list)):
        for v in value:
            _arrays_in(v, found)
    elif hasattr(value, 'nbytes') and hasattr(value, 'shape'):
        owner = _owner(value)
        found[id(owner)] = owner.nbytes


class GraphProgram:
    """A symbol compiled for execution.

    Parameters
    ----------
    symbol : Symbol
    default_ctx : Context
        Where nodes without a ``ctx_group`` run.
    group2ctx : dict, optional
        ``{group name: Context}`` for model parallelism.

    Attributes
    ----------
    track_memory : bool
        Class-wide switch (``GraphProgram.track_memory = True``) or per
        program: record ``peak_bytes``, the largest total size of the
        intermediate arrays alive at once during forward and backward
        (arrays kept for backward included, bound inputs excluded), and
        ``total_bytes``, the size of every array the runs produced (what
        would be held if nothing were released).
    """

    track_memory = False

    def __init__(self, symbol, default_ctx, group2ctx=None):
        self.symbol = symbol
        self.ctx = default_ctx
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
            group = node.extra.get(
                '__ctx_group__', node.extra.get('ctx_group')
            )
            ctx = group2ctx.get(group, default_ctx) if group else default_ctx
            self.steps.append(
                _Step(
                    node,
                    [slot_of[(id(c), i)] for c, i in node.inputs],
                    [
                        slot_of[(id(node), i)]
                        for i in range(node.num_outputs())
                    ],
                    ctx,
                )
            )
        self.out_slots = [slot_of[(id(n), i)] for n, i in symbol._outputs]
        # the last step reading each slot: it can be released afterwards
        keep = set(self.out_slots) | set(self.var_slots)
        last = {}
        for k, step in enumerate(self.steps):
            for s in step.in_slots:
                last[s] = k
        release = [[] for _ in self.steps]
        for slot, k in last.items():
            if slot not in keep:
                release[k].append(slot)
        for step, slots in zip(self.steps, release):
            step.release = tuple(slots)
        # the common case, one device and no copies, takes a shorter path
        contexts = {default_ctx}
        for step in self.steps:
            contexts.update((step.ctx, step.out_ctx))
        self.local_ctx = default_ctx if len(contexts) == 1 else None
        # sparse arrays: set by the Executor when it binds one, or by a
        # node that makes one (cast_storage, _sparse_retain)
        self.sparse = any(
            step.node.op in ('cast_storage', '_sparse_retain')
            for step in self.steps
        )
        # Embedding(sparse_grad=True) on a weight variable: a row_sparse
        # gradient, as MXNet's executors give
        var_slots = set(self.var_slots)
        for step in self.steps:
            if (
                step.node.op == 'Embedding'
                and step.proto.attrs.get('sparse_grad')
                and step.in_slots[1] in var_slots
            ):
                step.proto.row_sparse_grad = True
        self._needs = {}
        self.peak_bytes = 0
        self.total_bytes = 0
        # arrays made with a 0 in their shape (MXNet's zeros((0, H)) begin
        # states): sizes that shape inference fills in from the inputs
        self._open = {
            k
            for k, step in enumerate(self.steps)
            if step.node.op in _CREATIONS
            and 0 in tuple(step.proto.attrs.get('shape') or ())
        }
        self._sizes = {}

    def _open_shapes(self, inputs):
        """``{step index: full shape}`` for the arrays made with unknown
        sizes, inferred from the inputs' shapes (once per shapes)."""
        key = tuple(raw.shape for raw, _ in inputs)
        sizes = self._sizes.get(key)
        if sizes is None:
            from .infer import infer_graph

            shape_of, _ = infer_graph(
                topological_nodes(self.symbol._outputs),
                dict(zip(self.var_names, key)),
            )
            sizes = {}
            for k in self._open:
                node = self.steps[k].node
                shape = shape_of.get((id(node), 0))
                if shape is None or 0 in shape:
                    raise DLBookError(
                        f"cannot run node '{node.name}' ({node.op}): its "
                        f'shape {node.attrs.get("shape")} has unknown sizes '
                        f'(0) that shape inference could not fill in from '
                        f'the inputs'
                    )
                sizes[k] = tuple(shape)
            self._sizes[key] = sizes
        return sizes

    def var_context(self, name, default_ctx, group2ctx=None):
        """Context of a variable's arrays: its ``ctx_group``'s device."""
        node = self.variables[self.var_names.index(name)]
        group = node.extra.get('__ctx_group__', node.extra.get('ctx_group'))
        if group and group2ctx and group in group2ctx:
            return group2ctx[group]
        return default_ctx

    # -- forward -------------------------------------------------------------
    def forward(self, inputs, is_train, rng=None, keep=None, watch=None):
        """Run the graph.

        Parameters
        ----------
        inputs : list of (raw array, Context)
            One per variable, in ``self.variables`` order.
        is_train : bool
            Training behaviour of the operators (Dropout, BatchNorm).
        rng : RandomState, optional
            Generator for sampling operators (default: each node's
            device generator).
        keep : bool, optional
            Keep what :meth:`backward` needs (default: ``is_train``).
        watch : callable, optional
            ``watch(node, outputs, ctx)`` after each operator, its raw
            outputs in a list (``mx.mon.Monitor`` through an executor): the steps
            then run one by one, unfused.

        Returns
        -------
        (outputs, tape) : outputs as (raw, Context) pairs; ``tape`` is
        what :meth:`backward` needs (None unless ``keep``).
        """
        if keep is None:
            keep = is_train
        if self.sparse:
            from .program_sparse import forward as sparse_forward

            return sparse_forward(self, inputs, is_train, rng, keep)
        local = self.local_ctx
        if local is not None and not self.track_memory:
            for _, ctx in inputs:
                if ctx is not local:
                    break
            else:
                raws = [raw for raw, _ in inputs]
                if watch is None and not self._open:
                    outs, tape = self.run_local(raws, is_train, rng, keep)
                else:
                    sizes = self._open_shapes(inputs) if self._open else {}
                    outs, tape = self._run_local_checked(
                        raws, is_train, rng, keep, watch, sizes
                    )
                return [(raw, local) for raw in outs], tape
        sizes = self._open_shapes(inputs) if self._open else {}
        values = [None] * self.num_slots
        for slot, value in zip(self.var_slots, inputs):
            values[slot] = value
        tape = [] if keep else None
        track = self.track_memory
        if track:
            inputs_memory = {}
            _arrays_in([raw for raw, _ in inputs], inputs_memory)
        copyto = REGISTRY['_copyto']
        for k, step in enumerate(self.steps):
            ctx = step.ctx
            op = step.make_op(is_train)
            if k in sizes:
                op.attrs = {**op.attrs, 'shape': sizes[k]}
            if step.needs_rng:
                op.rng = rng or ctx.backend.rng(ctx.device_id)
            raws, copies = [], None
            for s in step.in_slots:
                raw, src = values[s]
                if src is not ctx:
                    copy = copyto(ctx=ctx, src_ctx=src)
                    raw = copy.forward(src.xp, raw)
                    if copies is None:
                        copies = []
                    copies.append((len(raws), copy))
                raws.append(raw)
            out = step.run(op, raws)
            out_ctx = step.out_ctx
            if step.single:
                if isinstance(out, (tuple, list)):
                    out = out[0]
                values[step.out_slots[0]] = (out, out_ctx)
                meta = None
            else:
                for s, o in zip(step.out_slots, out):
                    values[s] = (o, out_ctx)
                meta = [(o.shape, o.dtype) for o in out]
            if keep:
                tape.append((op, copies, meta))
            if watch is not None:
                outs = [values[s][0] for s in step.out_slots]
                watch(step.node, outs, out_ctx)
            if track:
                self.total_bytes += sum(
                    values[s][0].nbytes for s in step.out_slots
                )
                self._account(values, tape, {}, inputs_memory)
            for s in step.release:
                values[s] = None
        outputs = [values[s] for s in self.out_slots]
        if track and tape is not None:
            tape.append(inputs_memory)  # read back by backward
        return outputs, tape

    def can_run_local(self, ctx):
        """Whether :meth:`run_local` may run this graph on ``ctx``: one
        device, dense arrays, no memory tracking, no array of unknown
        size to make."""
        return (
            self.local_ctx is ctx
            and not self.sparse
            and not self.track_memory
            and not self._open
        )

    def _plan(self, fused=False):
        """Each step as one flat tuple, read by :meth:`run_local` and
        :meth:`_backward_local` without attribute look-ups: (operator
        class, prototype attributes, input slots, output slot (None for
        several outputs), output slots, slots to release, needs_rng).

        With ``fused``, the list where :func:`dlbook.symbol.fusion.fuse`
        has merged dense layers with their activation and a loss's
        softmax with its pick: the fast path's list.  Both lists are made
        once; :meth:`_plan_steps` names the step behind each entry."""
        cache = self.__dict__
        key = '_fused_plan' if fused else '_flat_plan'
        plan = cache.get(key)
        if plan is None:
            if fused:
                from .fusion import fuse

                protected = set(self.out_slots) | set(self.var_slots)
                plan, origin = fuse(self.steps, self._entry, protected)
                if len(plan) == len(self.steps) and all(
                    entry[0] is step.cls
                    for entry, step in zip(plan, self.steps)
                ):  # nothing fused
                    plan, origin = self._plan(), self.steps
            else:
                plan = [self._entry(step) for step in self.steps]
                origin = self.steps
            cache[key] = plan
            cache[key + '_steps'] = origin
        return plan

    def _plan_steps(self, plan):
        """The step each entry of ``plan`` comes from (error messages)."""
        if plan is self.__dict__.get('_fused_plan'):
            return self._fused_plan_steps
        return self.steps

    @staticmethod
    def _entry(step):
        return (
            step.cls,
            step.proto.__dict__,
            tuple(step.in_slots),
            step.out_slots[0] if step.single else None,
            tuple(step.out_slots),
            step.release,
            step.needs_rng,
        )

    def run_local(self, raws, is_train, rng=None, keep=False):
        """:meth:`forward` when every array and node is on one device
        (``local_ctx``): raw arrays in (one per variable), raw arrays out.

        The steps run from a flat list prepared once (:meth:`_plan`), so
        a step costs little more than its ``op.forward`` call: the path a
        hybridized block takes on every call.
        """
        ctx = self.local_ctx
        if _profile.ON or ctx._switch is not None:
            return self._run_local_checked(raws, is_train, rng, keep)
        xp = ctx._xp or ctx.xp
        values = [None] * self.num_slots
        for slot, raw in zip(self.var_slots, raws):
            values[slot] = raw
        plan = self._plan(_fastpath._ENABLED)
        tape = _Tape() if keep else None
        if keep:
            tape.plan = plan
        new = _new
        for k, (
            cls,
            attrs,
            ins,
            out_slot,
            out_slots,
            release,
            needs_rng,
        ) in enumerate(plan):
            op = new(cls)
            op.__dict__.update(attrs)
            op.is_train = is_train
            if needs_rng:
                op.rng = rng or ctx.backend.rng(ctx.device_id)
            try:
                if len(ins) == 1:
                    out = op.forward(xp, values[ins[0]])
                else:
                    out = op.forward(xp, *[values[s] for s in ins])
            except (ValueError, TypeError, IndexError) as err:
                step = self._plan_steps(plan)[k]
                raise step.failure(err, [values[s] for s in ins]) from err
            if out_slot is not None:
                if isinstance(out, (tuple, list)):
                    out = out[0]
                values[out_slot] = out
                if keep:
                    tape.append((op, None, None))
            else:
                for s, o in zip(out_slots, out):
                    values[s] = o
                if keep:
                    tape.append((op, None, [(o.shape, o.dtype) for o in out]))
            for s in release:
                values[s] = None
        return [values[s] for s in self.out_slots], tape

    def _run_local_checked(
        self, raws, is_train, rng, keep, watch=None, sizes=None
    ):
        """:meth:`run_local` with the profiler on, a device switch around
        each step, ``watch`` (:meth:`forward`) after each, or arrays made
        with the shapes ``sizes`` (:meth:`_open_shapes`)."""
        ctx = self.local_ctx
        values = [None] * self.num_slots
        for slot, raw in zip(self.var_slots, raws):
            values[slot] = raw
        tape = [] if keep else None
        sizes = sizes or {}
        for k, step in enumerate(self.steps):
            op = step.make_op(is_train)
            if k in sizes:
                op.attrs = {**op.attrs, 'shape': sizes[k]}
            if step.needs_rng:
                op.rng = rng or ctx.backend.rng(ctx.device_id)
            out = step.run(op, [values[s] for s in step.in_slots])
            if watch is not None:
                watch(step.node, _as_list(out, step.single), step.out_ctx)
            self.store_step_outputs(step, op, out, values, tape)
        return [values[s] for s in self.out_slots], tape

    @staticmethod
    def store_step_outputs(step, op, out, values, tape):
        """Put one step's raw outputs into their slots of ``values``, note
        the operator on ``tape`` (None when the graph is not kept for
        backward) and free the slots this step was the last to read."""
        if step.single:
            if isinstance(out, (tuple, list)):
                out = out[0]
            values[step.out_slots[0]] = out
            meta = None
        else:
            for s, o in zip(step.out_slots, out):
                values[s] = o
            meta = [(o.shape, o.dtype) for o in out]
        if tape is not None:
            tape.append((op, None, meta))
        for s in step.release:
            values[s] = None

    def _account(self, values, tape, grads, exclude):
        """Update ``peak_bytes`` with the memory alive right now."""
        live = {}
        _arrays_in([v[0] for v in values if v is not None], live)
        for entry in tape or ():
            if isinstance(entry, tuple):
                _arrays_in(entry[0].saved, live)
        _arrays_in(list(grads), live)
        total = sum(n for key, n in live.items() if key not in exclude)
        self.peak_bytes = max(self.peak_bytes, total)

    # -- backward ------------------------------------------------------------
    def input_needs(self, needed, plan=None):
        """For each step (of ``plan``, default: the unfused steps), which
        of its inputs lead to a variable whose gradient is wanted
        (``needed``: one bool per variable).  Worked out once per
        pattern."""
        if plan is None:
            plan = self._plan()
        key = (tuple(needed), plan is self._plan())
        found = self._needs.get(key)
        if found is None:
            flags = [False] * self.num_slots
            for slot, flag in zip(self.var_slots, key[0]):
                flags[slot] = flag
            found = []
            for entry in plan:
                wanted = tuple(flags[s] for s in entry[2])
                for s in entry[4]:
                    flags[s] = any(wanted)
                found.append(wanted)
            self._needs[key] = found
        return found

    def backward(self, tape, out_grads, needed=None):
        """Gradients of the variables given the outputs' gradients.

        Parameters
        ----------
        tape : from :meth:`forward` with ``keep`` (or ``is_train``)
        out_grads : list of raw arrays (one per output)
        needed : list of bool, optional
            Which variables' gradients are wanted (default: all).  Steps
            leading to none of them are skipped, and each operator is told
            which input gradients to compute (``op.needs_input_grad``):
            the data gradient of a first layer is never computed.

        Returns
        -------
        list of raw arrays or None, one per variable
        """
        if tape is None:
            raise DLBookError(
                'backward needs a forward pass with is_train=True first'
            )
        if type(tape) is _Tape:  # from run_local: one device, no copies
            return self._backward_local(tape, out_grads, needed)
        track = self.track_memory and tape and isinstance(tape[-1], dict)
        local = self.local_ctx
        if (
            not track
            and local is not None
            and local._switch is None
            and not _profile.ON
            and not self.sparse
            and not any(entry[1] for entry in tape)
        ):  # no device copies
            return self._backward_local(tape, out_grads, needed)
        if track:
            exclude = tape[-1]
            tape = tape[:-1]
        grads = [None] * self.num_slots
        for slot, g in zip(self.out_slots, out_grads):
            if g is not None:
                grads[slot] = g if grads[slot] is None else grads[slot] + g
        needs = None if needed is None else self.input_needs(needed)
        steps = self.steps
        for k in range(len(steps) - 1, -1, -1):
            step = steps[k]
            op, copies, meta = tape[k]
            if not op.differentiable:  # zeros_like, argmax, sampling
                continue
            if needs is not None:
                wanted = needs[k]
                if not any(wanted):
                    continue
                op.needs_input_grad = wanted
            if step.single:
                dy = grads[step.out_slots[0]]
                if dy is None:
                    continue
                grads[step.out_slots[0]] = None
                dys = (dy,)
            else:
                dys = [grads[s] for s in step.out_slots]
                if all(dy is None for dy in dys):
                    continue
                for s in step.out_slots:
                    grads[s] = None
                xp = step.xp
                dys = [
                    xp.zeros(shape, dtype) if dy is None else dy
                    for dy, (shape, dtype) in zip(dys, meta)
                ]
            if _profile.ON:
                din = _profile.run(
                    '_backward_' + op.name.lstrip('_'),
                    'symbolic',
                    step.ctx,
                    op.backward,
                    step.xp,
                    dys,
                    step.switch,
                )
            elif step.switch is None:
                din = op.backward(step.xp, *dys)
            else:
                with step.switch:
                    din = op.backward(step.xp, *dys)
            if not isinstance(din, (tuple, list)):
                din = (din,)
            if copies:
                din = list(din)
                for position, copy in copies:
                    if din[position] is not None:
                        din[position] = copy.backward(step.xp, din[position])
            for s, g in zip(step.in_slots, din):
                if g is not None:
                    grads[s] = g if grads[s] is None else grads[s] + g
            if track:
                self.total_bytes += sum(g.nbytes for g in din if g is not None)
                self._account(
                    (), tape[:k], [g for g in grads if g is not None], exclude
                )
        return [grads[s] for s in self.var_slots]

    def _backward_local(self, tape, out_grads, needed):
        """:meth:`backward` on one device without a device switch, the
        profiler or memory tracking: the steps come from the flat list of
        :meth:`_plan`, and no step moves arrays between devices."""
        grads = [None] * self.num_slots
        for slot, g in zip(self.out_slots, out_grads):
            if g is not None:
                grads[slot] = g if grads[slot] is None else grads[slot] + g
        plan = tape.plan if type(tape) is _Tape else self._plan()
        needs = None if needed is None else self.input_needs(needed, plan)
        ctx = self.local_ctx
        xp = ctx._xp or ctx.xp
        for k in range(len(plan) - 1, -1, -1):
            op, _, meta = tape[k]
            if not op.differentiable:  # zeros_like, argmax, sampling
                continue
            if needs is not None:
                wanted = needs[k]
                if True not in wanted:
                    continue
                op.needs_input_grad = wanted
            _, _, ins, out_slot, out_slots, _, _ = plan[k]
            if out_slot is not None:
                dy = grads[out_slot]
                if dy is None:
                    continue
                grads[out_slot] = None
                din = op.backward(xp, dy)
            else:
                dys = [grads[s] for s in out_slots]
                if all(dy is None for dy in dys):
                    continue
                for s in out_slots:
                    grads[s] = None
                din = op.backward(
                    xp,
                    *[
                        xp.zeros(shape, dtype) if dy is None else dy
                        for dy, (shape, dtype) in zip(dys, meta)
                    ],
                )
            if not isinstance(din, (tuple, list)):
                if din is not None:
                    s = ins[0]
                    grads[s] = din if grads[s] is None else grads[s] + din
                continue
            for s, g in zip(ins, din):
                if g is not None:
                    grads[s] = g if grads[s] is None else grads[s] + g
        return [grads[s] for s in self.var_slots]
