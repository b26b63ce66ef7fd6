"""The autograd tape: what ``record()`` writes and ``backward()`` reads.

Read this module first; it works on any array object with the "tape
protocol" attributes, so it needs nothing from ``NDArray`` itself:

``x._data``, ``x._ctx``
    the raw NumPy/CuPy array and its device (``ctx.xp``, ``ctx._xp``);
``x._node``, ``x._out_index``
    the recorded operator call that produced ``x`` (None for leaves), and
    which of its outputs ``x`` is;
``x._grad``, ``x._grad_req``
    a variable's gradient buffer and ``'write'``/``'add'`` (None when
    ``x`` is not a variable);
``x._fresh_grad``
    set when ``backward`` wrote the buffer (the Trainer reads it);
``x._written_at``, ``x._used_by``
    in-place write checks (the write clock, ``dlbook/_write_clock.py``).

Inside ``with autograd.record():`` every operator whose inputs need a
gradient appends a :class:`Node` ``(op, inputs)``; each output remembers
the node that made it.  ``backward`` walks those nodes from the heads back
to the variables, calling each operator's ``backward`` newest node first
(nodes are numbered as they are recorded, and an operator's inputs are
always older than it, so every gradient a node will receive has arrived
when its turn comes).  Two rules make the result right:

* **accumulate first, store last** - an array used several times gets the
  *sum* of all its contributions; only then is its ``grad_req`` applied
  (``'write'`` overwrites ``x.grad``, ``'add'`` adds to it);
* **the tape is freed** after ``backward`` unless ``retain_graph=True``,
  so memory stays flat over thousands of training steps and a second
  ``backward`` on the same graph raises MXNet's error.

``dlbook.autograd`` is the public API over this module.
"""

import heapq
import itertools
import threading
import weakref

from . import _gc_policy, _write_clock
from . import _profile_state as _profile
from .base import DLBookError


class _State(threading.local):
    recording = False
    training = False
    in_backward = False


_state = _State()
# fewer garbage collections while this thread records or runs backward
_gc_policy.watch(lambda: _state.recording or _state.in_backward)


#: Numbers the recorded nodes in the order they were made: a node's
#: inputs were always made before it, so backward can take the nodes in
#: decreasing number without sorting the graph.
_NEXT_NUMBER = itertools.count()


class Node:
    """One recorded operator call: the op instance (which holds what its
    backward needs) and the input NDArrays the gradient flows into."""

    __slots__ = (
        'op',
        'inputs',
        'ctx',
        'out_meta',
        'freed',
        'recorded_at',
        'written_outputs',
        'number',
        '__weakref__',
    )

    def __init__(self, op, inputs, ctx, out_meta=None, recorded_at=None):
        self.number = next(_NEXT_NUMBER)
        self.op = op
        self.inputs = inputs
        self.ctx = ctx
        self.out_meta = out_meta  # [(shape, dtype)] for multi-output ops
        self.freed = False
        # the write clock's time when the op ran (see _check_writes);
        # None when not recorded
        self.recorded_at = recorded_at
        # (index, raw array) of outputs written in place after recording
        self.written_outputs = ()

    def __repr__(self):
        return f'Node({self.op.name})'


class _Scope:
    """Set recording/training on enter, restore the old values on exit."""

    def __init__(self, recording, training):
        self._new = (recording, training)
        self._old = None

    def __enter__(self):
        self._old = (_state.recording, _state.training)
        recording, training = self._new
        if recording is not None:
            _state.recording = recording
        if training is not None:
            _state.training = training
        return self

    def __exit__(self, *exc):
        _state.recording, _state.training = self._old
        if not self._old[0]:  # recording off again, or never on
            # the collector's threshold stays raised for the backward
            # pass that usually follows (dlbook/_gc_policy.py)
            _gc_policy.recording_ended()
        return False


# -- variables -------------------------------------------------------------

_GRAD_REQS = ('write', 'add', 'null')


def mark_variables(variables, gradients, grad_reqs='write'):
    """Make ``variables`` (a list) leaves of the tape whose gradients go
    into ``gradients`` (what ``x.attach_grad()`` does for one array)."""
    if isinstance(grad_reqs, str):
        grad_reqs = [grad_reqs] * len(variables)
    for var, buf, req in zip(variables, gradients, grad_reqs):
        if req not in _GRAD_REQS:
            raise DLBookError(
                f"grad_req must be one of {_GRAD_REQS}, got {req!r}"
            )
        var._node = None
        var._grad = buf if req != 'null' else None
        var._grad_req = req if req != 'null' else None


# -- backward ---------------------------------------------------------------

_NOT_IN_GRAPH = (
    'Cannot differentiate node because it is not in a computational graph. '
    'You need to set is_recording to true or use autograd.record() to save '
    'computational graphs for backward. If you want to differentiate the '
    'same graph twice, you need to pass retain_graph=True to backward.'
)


def _topological_order(heads, freed_error=_NOT_IN_GRAPH, left_to_right=False):
    """Nodes reachable from ``heads``, inputs before consumers.

    Iterative depth-first search: a deep RNN unrolled over hundreds of
    steps would overflow Python's recursion limit.  A freed node (its
    graph was already used by ``backward``) raises ``freed_error``.
    ``left_to_right`` visits heads and inputs in their given order (for
    drawing the tape); backward visits the last one first.
    """

    def ordered(items):
        return reversed(items) if left_to_right else items

    # The stack holds nodes to expand and, as ``(node,)``, nodes whose
    # inputs are all placed (a one-tuple is cheaper than a flag per entry).
    order, seen = [], set()
    append = order.append
    stack = [x._node for x in ordered(heads) if x._node is not None]
    push = stack.append
    while stack:
        node = stack.pop()
        if type(node) is tuple:
            append(node[0])
            continue
        key = id(node)
        if key in seen:
            continue
        if node.freed:
            raise DLBookError(freed_error)
        seen.add(key)
        push((node,))
        for x in ordered(node.inputs):
            child = x._node
            if child is not None and id(child) not in seen:
                push(child)
    return order


#: Raw array types seen without ``is_row_sparse`` (numpy.ndarray, cupy's):
#: one set look-up instead of a failing ``getattr`` per gradient.
_DENSE_TYPES = set()


def is_row_sparse(g):
    """Whether the raw gradient ``g`` is row-sparse (a ``RowSparse`` of
    ``Embedding(sparse_grad=True)``), not a dense array."""
    kind = type(g)
    if kind in _DENSE_TYPES:
        return False
    if getattr(g, 'is_row_sparse', False):
        return True
    _DENSE_TYPES.add(kind)
    return False


def _accumulate(acc, g, owned):
    """``(acc + g, owned)`` for a variable used several times.

    The first sum is a new array, which this pass owns; later ones are
    added into it in place (no new array per use: an RNN's weights get
    one gradient per time step).  A gradient that arrived as it is may be
    shared with other nodes, so it is never written into.
    """
    if (
        owned
        and type(acc) is type(g)
        and type(g) in _DENSE_TYPES
        and acc.dtype == g.dtype
        and acc.shape == g.shape
    ):
        acc += g
        return acc, True
    total = _add(acc, g)
    return total, type(total) in _DENSE_TYPES


def _add(acc, g):
    if acc is None:
        return g
    if is_row_sparse(g):  # RowSparse + dense: its rule
        return g + acc
    return acc + g


def run_backward(heads, head_grads, retain_graph, capture=()):
    """Propagate gradients from ``heads`` (a list); return
    ``{id(x): (x, grad)}`` for every variable reached, plus the arrays
    listed in ``capture``.  ``head_grads`` is a list of the same length
    (None entries mean all ones), or None.

    The garbage collector runs less often meanwhile, as while recording
    (``dlbook/_gc_policy.py``): the pass allocates a few objects per node.
    """
    was_in_backward = _state.in_backward
    _state.in_backward = True
    try:
        return _propagate(heads, head_grads, retain_graph, capture)
    finally:
        _state.in_backward = was_in_backward
        if not (was_in_backward or _state.recording):
            _gc_policy.restore()


def _propagate(heads, head_grads, retain_graph, capture):
    """The body of :func:`run_backward`."""
    if head_grads is None:
        head_grads = [None] * len(heads)
    if len(head_grads) != len(heads):
        raise DLBookError(
            f'backward got {len(heads)} heads but '
            f'{len(head_grads)} head gradients'
        )

    node_grads = {}  # node -> [grad per output]
    # The nodes holding a gradient, newest first: (-node.number, node).
    # A node's consumers are all newer than it, so when it comes off the
    # heap every gradient it will get has arrived; nodes no gradient
    # reaches are never visited (no sort of the whole graph first).
    pending = []
    push = heapq.heappush
    # id(array) -> [array, grad, whether the grad array is ours to add to]
    leaf_grads = {}
    captured = {id(x): x for x in capture} if capture else {}
    results = {}

    def route(x, g):
        node = x._node
        if node is not None:
            if type(g) not in _DENSE_TYPES and is_row_sparse(g):
                g = g.todense()  # row-sparse gradients only reach leaves
            slots = node_grads.get(node)
            if slots is None:
                if node.freed:  # its graph was used by a backward already
                    raise DLBookError(_NOT_IN_GRAPH)
                push(pending, (-node.number, node))
                if node.out_meta is None:  # one output: the common case
                    node_grads[node] = [g]
                    return
                slots = node_grads[node] = [None] * len(node.out_meta)
            index = x._out_index
            slots[index] = _add(slots[index], g)
        elif x._grad_req is not None or id(x) in captured:
            entry = leaf_grads.get(id(x))
            if entry is None:
                leaf_grads[id(x)] = [x, g, False]
            else:
                entry[1], entry[2] = _accumulate(entry[1], g, entry[2])

    for head, hg in zip(heads, head_grads):
        if head._node is None and head._grad_req is None:
            raise DLBookError(_NOT_IN_GRAPH)
        if head._node is not None and head._node.freed:
            raise DLBookError(_NOT_IN_GRAPH)
        if hg is None:
            # ones(shape, dtype): ones_like's values without its Python
            # wrapper (every backward() of a loss starts here)
            data = head._data
            raw = head._ctx.xp.ones(data.shape, dtype=data.dtype)
        else:
            if hg.shape != head.shape:
                raise DLBookError(
                    f'head gradient of shape {hg.shape} does '
                    f'not match its head of shape {head.shape}'
                )
            raw = hg.as_in_context(head._ctx)._data
        route(head, raw)

    clock = _write_clock.NOW
    pop = node_grads.pop
    take = heapq.heappop
    done = []  # the nodes run, freed at the end
    while pending:
        node = take(pending)[1]
        done.append(node)
        dys = pop(node)
        if node.out_meta is not None and any(dy is None for dy in dys):
            xp = node.ctx.xp
            dys = [
                xp.zeros(shape, dtype) if dy is None else dy
                for dy, (shape, dtype) in zip(dys, node.out_meta)
            ]
        if captured:
            for x in captured.values():
                if x._node is node:
                    results[id(x)] = (x, dys[x._out_index])
        recorded_at = node.recorded_at
        if recorded_at is not None and clock[0] > recorded_at:
            _check_writes(node)
        op = node.op
        inputs = node.inputs
        if not op.differentiable:
            # a comparison, argmax, one_hot...: zero gradients, which MXNet
            # writes into the variables behind it
            for x in inputs:
                raw = x._data
                route(x, node.ctx._xp.zeros(raw.shape, dtype=raw.dtype))
            continue
        if op.skips_unneeded_grads:
            # tell the operator which input gradients are wanted, so it
            # can skip the others (the image gradient of a first layer)
            op.needs_input_grad = tuple(
                [
                    x._node is not None or x._grad_req is not None
                    for x in inputs
                ]
            )
        if op.offers_row_sparse:
            op.row_sparse_grad = True  # the tape accepts RowSparse grads
        ctx = node.ctx
        if _profile.ON:  # mx.profiler running
            grads = _profile.run(
                '_backward_' + op.name.lstrip('_'),
                'imperative',
                ctx,
                op.backward,
                ctx._xp,
                dys,
                ctx._switch,
            )
        elif ctx._switch is None:  # no device switch needed (CPU)
            grads = op.backward(ctx._xp, *dys)
        else:
            with ctx._switch:
                grads = op.backward(ctx._xp, *dys)
        if not isinstance(grads, (tuple, list)):
            grads = (grads,)
        for x, g in zip(inputs, grads):
            if g is not None:
                route(x, g)
            elif x._node is None and id(x) not in leaf_grads:
                # a variable in the graph that no gradient reaches (behind
                # a hybridized argmax, an index input) gets zeros, which
                # MXNet writes into every variable of the graph
                if x._grad_req is not None or id(x) in captured:
                    raw = x._data
                    zeros = ctx._xp.zeros(raw.shape, dtype=raw.dtype)
                    leaf_grads[id(x)] = [x, zeros, True]
    if not retain_graph:
        for node in done:
            node.freed = True
            node.op.saved = ()
            node.inputs = ()
            node.written_outputs = ()
    for key, (x, g, _) in leaf_grads.items():
        results[key] = (x, g)
    return results


_IN_GRAPH = (
    'Assigning to NDArrays that are already in a computational graph will '
    'cause undefined behavior when evaluating gradients: this NDArray of '
    'shape {shape} {dtype} @{ctx} is {what}. Please call backward first to '
    'clear the graph, do this outside of a record section, or write into '
    'a copy (x = x.copy()). Also note that you cannot use inplace '
    'operations like +=, *=, relu(x, out=x), y[idx]=x, etc inside a record '
    'section.'
)


_weak_ref = weakref.ref


def note_readers(node, inputs):
    """Point each input of ``node`` that is not a variable at the node,
    weakly (``x._used_by``), so that writing it in place before
    ``backward`` raises (:func:`check_write`).  A variable needs no
    pointer: writing one inside ``record()`` raises anyway."""
    used_by = None
    for x in inputs:
        if x._grad_req is None:
            if used_by is None:
                used_by = _weak_ref(node)
            x._used_by = used_by


def check_write(x):
    """Raise MXNet's error for an in-place write, inside ``record()``, to
    an array already in the graph: a variable, the output of a recorded
    operator, or an input of one, until ``backward`` frees that graph."""
    node = x._node
    if x._grad_req is not None:
        what = 'a variable (attach_grad() was called on it)'
    elif node is not None and not node.freed:
        what = f"the output of operator '{node.op.name}'"
    else:
        node = x._used_by() if x._used_by is not None else None
        if node is None or node.freed:
            return
        what = f"an input of operator '{node.op.name}'"
    raise DLBookError(
        _IN_GRAPH.format(shape=x.shape, dtype=x.dtype, ctx=x._ctx, what=what)
    )


def output_written(x):
    """Note that ``x``, the output of a recorded operator, was written in
    place, so that ``backward`` can tell whether the operator kept it."""
    node = x._node
    if not node.freed:
        node.written_outputs += ((x._out_index, x._data),)


def _check_writes(node):
    """Raise if an input that ``node``'s operator kept for its backward
    was written in place (``x[:] = ...``, ``x += 1``) after the operator
    ran: its gradient would be computed at the new values."""
    for i, x in enumerate(node.inputs):
        if x._written_at > node.recorded_at and _holds(node.op, x):
            names = getattr(node.op, 'arguments', ())
            which = (
                f"input {i} ({names[i]!r})" if i < len(names) else f'input {i}'
            )
            raise DLBookError(
                f"autograd: {which} of operator '{node.op.name}', an "
                f'NDArray of shape {x.shape} {x.dtype} @{x._ctx}, was '
                f'modified in place (x[...] = ..., x += ...) after the '
                f'operator recorded it; its gradient needs the old values. '
                f'Write into a copy (x = x.copy()) or modify it only after '
                f'backward().'
            )
    for i, raw in node.written_outputs:
        if _holds_raw(node.op, raw, node.ctx.xp):
            raise DLBookError(
                f"autograd: output {i} of operator '{node.op.name}', an "
                f'NDArray of shape {raw.shape} {raw.dtype} @{node.ctx}, was '
                f'modified in place (y[...] = ..., y += ...) after the '
                f'operator recorded it; its gradient needs the output it '
                f'computed. Modify a copy (y = y.copy()) or modify it only '
                f'after backward().'
            )


def _holds(op, x):
    """Whether ``op`` kept ``x``'s memory for its backward (in
    ``op.saved``, another attribute, or ``saved_tensors`` of an
    ``autograd.Function``).  Unsure cases count as kept."""
    return _holds_raw(op, x._data, x._ctx.xp, x)


def _holds_raw(op, raw, xp, x=None):
    """:func:`_holds` for a raw array ``raw`` (and its NDArray ``x``)."""
    todo = list(vars(op).values()) if hasattr(op, '__dict__') else [op.saved]
    function = getattr(op, 'function', None)
    if function is not None:
        todo.append(getattr(function, 'saved_tensors', ()))
    while todo:
        item = todo.pop()
        if isinstance(item, (tuple, list)):
            todo.extend(item)
        elif item is raw or (item is x and x is not None):
            return True
        elif hasattr(item, '_data') and hasattr(item, '_ctx'):
            todo.append(item._data)
        elif type(item) is type(raw):
            if xp.may_share_memory(item, raw):
                return True
        elif callable(item) and getattr(item, '__closure__', None):
            todo.extend(
                c.cell_contents for c in item.__closure__ if _has_contents(c)
            )
    return False


def _has_contents(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _num_outputs(node):
    return 1 if node.out_meta is None else len(node.out_meta)


def store_grads(grads):
    """Write the gradients ``run_backward`` returned into the variables'
    buffers, per ``grad_req``.

    On a GPU, dense gradients that fill their buffer exactly are written
    four per kernel (``dlbook/ops/grad_writes.py``): one launch per
    parameter would be a tenth of a small network's training step.
    """
    grouped = {}  # (device, req) -> (xp, [(grad, buffer), ...])
    for var, g in grads.values():
        buf = var._grad
        req = var._grad_req
        if req is None or buf is None:
            continue
        var._fresh_grad = True
        data = buf._data
        if (
            buf._ctx.device_type == 'gpu'
            and type(g) is type(data)
            and g.shape == data.shape
            and g.dtype == data.dtype
            and g.flags.c_contiguous
            and data.flags.c_contiguous
        ):
            key = (buf._ctx, req)
            grouped.setdefault(key, (buf._ctx.xp, []))[1].append((g, data))
            continue
        buf._store_grad(g, req)
    if grouped:
        from .ops.grad_writes import write_gradients

        for (_, req), (xp, pairs) in grouped.items():
            write_gradients(xp, pairs, req)


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):
    """``run_backward`` from the list ``heads`` in ``train_mode``, then
    ``store_grads``."""
    with _Scope(None, train_mode):
        grads = run_backward(heads, head_grads, retain_graph)
    store_grads(grads)
