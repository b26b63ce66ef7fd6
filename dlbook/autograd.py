"""``mx.autograd``: the public API of automatic differentiation.

``record()``/``pause()`` and the mode switches, ``backward``, ``grad``,
``mark_variables`` and custom ``Function``s, as in MXNet 1.x.  The tape
they drive - what ``record()`` writes and ``backward()`` reads - is
``dlbook/_tape.py``, which sits below ``NDArray`` and is the place to
start reading (``notebooks/ch02_autograd.ipynb`` draws it).
"""

from . import _tape, _write_clock
from ._tape import (  # noqa: F401  (the tape's names, for compatibility)
    _IN_GRAPH,
    _NOT_IN_GRAPH,
    Node,
    _Scope,
    _state,
    _topological_order,
    check_write,
    note_readers,
    output_written,
)
from .base import DLBookError
from .ndarray.ndarray import NDArray, from_raw
from .ops.op import Op

__all__ = [
    'record',
    'pause',
    'train_mode',
    'predict_mode',
    'is_recording',
    'is_training',
    'set_recording',
    'set_training',
    'mark_variables',
    'backward',
    'grad',
    'Function',
    'get_symbol',
]


# -- scopes ----------------------------------------------------------------


def record(train_mode=True):
    """Record operators for ``backward`` (training mode by default).

    >>> with autograd.record():
    ...     y = net(x)
    """
    return _Scope(True, train_mode)


def pause(train_mode=False):
    """Stop recording inside a ``record()`` block (prediction mode)."""
    return _Scope(False, train_mode)


def train_mode():
    """Training behaviour (Dropout, BatchNorm) without changing recording."""
    return _Scope(None, True)


def predict_mode():
    """Prediction behaviour without changing recording."""
    return _Scope(None, False)


def is_recording():
    """True inside ``record()`` (and not inside ``pause()``)."""
    return _state.recording


def is_training():
    """True when layers should use training behaviour."""
    return _state.training


def set_recording(is_recording):
    """Set recording on or off; returns the previous value."""
    old, _state.recording = _state.recording, bool(is_recording)
    return old


def set_training(train_mode):
    """Set training mode on or off; returns the previous value."""
    old, _state.training = _state.training, bool(train_mode)
    return old


# -- variables ---------------------------------------------------------------


def mark_variables(variables, gradients, grad_reqs='write'):
    """Make ``variables`` leaves of the tape whose gradients go into
    ``gradients`` (what ``x.attach_grad()`` does for one array)."""
    if isinstance(variables, NDArray):
        variables, gradients = [variables], [gradients]
    _tape.mark_variables(variables, gradients, grad_reqs)


# -- backward ------------------------------------------------------------------


def _heads_list(heads, head_grads):
    """``(heads, head_grads)`` as lists, as the tape takes them."""
    if isinstance(heads, NDArray):
        heads = [heads]
    if isinstance(head_grads, NDArray):
        head_grads = [head_grads]
    return list(heads), head_grads


def _run_backward(heads, head_grads, retain_graph, capture=()):
    heads, head_grads = _heads_list(heads, head_grads)
    return _tape.run_backward(heads, head_grads, retain_graph, capture)


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):
    """Compute the gradients of ``heads`` with respect to the variables.

    Parameters
    ----------
    heads : NDArray or list of NDArray
        Outputs to differentiate.  A non-scalar head acts as if its head
        gradient were all ones, i.e. as ``heads.sum()``.
    head_grads : NDArray or list of NDArray, optional
        Gradients with respect to the heads (``dL/dy``).
    retain_graph : bool
        Keep the tape so ``backward`` can run again.
    train_mode : bool
        Unused by dlbook's operators; kept for MXNet compatibility.
    """
    heads, head_grads = _heads_list(heads, head_grads)
    _tape.backward(heads, head_grads, retain_graph, train_mode)


def grad(
    heads,
    variables,
    head_grads=None,
    retain_graph=None,
    create_graph=False,
    train_mode=True,
):
    """Return the gradients of ``heads`` with respect to ``variables``
    without touching ``x.grad``.

    With ``create_graph=True`` the gradients are computed by recorded
    operators, so they can be differentiated in turn (higher-order
    gradients)::

        with autograd.record():
            y = nd.sin(x)
            dy_dx = autograd.grad(y, x, create_graph=True)[0]  # cos(x)
        dy_dx.backward()  # x.grad: -sin(x)

    Element-wise operators (unary, binary, with a scalar), reductions
    (``sum``, ``mean``, ``max``, ``prod`` ...), reshapes and transposes,
    ``broadcast_to``, ``dot``, ``softmax``, ``log_softmax``, ``pick``,
    ``Activation``, ``LeakyReLU``, ``FullyConnected``, ``Convolution``
    (one group), pooling whose windows tile the input, ``BatchNorm``,
    ``LayerNorm`` and ``InstanceNorm`` have such rules
    (``Op.graph_grads``), so Gluon's dense networks and CNNs with their
    softmax cross-entropy can be differentiated twice; any other operator
    on the way (``RNN``, a hybridized block's graph ...) raises an error
    naming it.

    Returns
    -------
    list of NDArray
        One gradient per variable, a list even for one variable, as in
        MXNet.

    Raises
    ------
    DLBookError
        As MXNet, when a variable does not require a gradient (no
        ``attach_grad()``) or the heads do not depend on it.
    """
    if isinstance(variables, NDArray):
        variables = [variables]
    variables = list(variables)
    _check_grad_variables(heads, variables)
    if create_graph:
        with _Scope(True, train_mode):
            return _graph_grads(heads, head_grads, variables)
    if retain_graph is None:
        retain_graph = create_graph
    with _Scope(None, train_mode):
        found = _run_backward(
            heads, head_grads, retain_graph, capture=variables
        )
    out = []
    for var in variables:
        g = found.get(id(var), (None, None))[1]
        if g is None:
            g = var._ctx.xp.zeros_like(var._data)
        if getattr(g, 'is_row_sparse', False):
            from .ndarray.sparse_ndarray import wrap_raw

            out.append(wrap_raw(g, var._ctx))
            continue
        out.append(from_raw(g, var._ctx))
    return out


def _graph_grads(heads, head_grads, variables):
    """:func:`grad` with ``create_graph=True``: the gradients computed by
    recorded operators, so that they can be differentiated again.

    The nodes are taken newest first, as ``backward`` takes them, but
    each runs its operator's :meth:`~dlbook.ops.Op.graph_grads`: the
    gradient rule written with ``nd`` operators on NDArrays, which the
    tape records as it records any other operation (the caller is inside
    ``record()``).  The graph being differentiated is left as it is.
    """
    from . import ndarray as F

    heads, head_grads = _heads_list(heads, head_grads)
    if head_grads is None:
        head_grads = [None] * len(heads)
    # id(node) -> {output index: gradient}; id(variable) -> gradient
    at_outputs, found = {}, {}

    def route(x, g):
        if g is None:
            return
        if x._node is not None:
            slots = at_outputs.setdefault(id(x._node), {})
            held = slots.get(x._out_index)
            slots[x._out_index] = g if held is None else held + g
        if x._grad_req is not None or x._node is None:
            held = found.get(id(x))
            found[id(x)] = g if held is None else held + g

    for head, hg in zip(heads, head_grads):
        route(head, F.ones_like(head) if hg is None else hg)
    for node in reversed(_topological_order(heads)):
        slots = at_outputs.pop(id(node), None)
        if slots is None:  # no gradient reaches it
            continue
        dys = [slots.get(i, None) for i in range(_tape._num_outputs(node))]
        if any(dy is None for dy in dys):
            dys = [
                F.zeros(shape, dtype=dtype, ctx=node.ctx) if dy is None else dy
                for dy, (shape, dtype) in zip(dys, node.out_meta)
            ]
        if not node.op.differentiable:  # zeros, as the first order's
            grads = [F.zeros_like(x) for x in node.inputs]
        else:
            grads = node.op.graph_grads(F, node.inputs, dys)
        for x, g in zip(node.inputs, grads):
            route(x, g)
    return [
        found[id(v)] if id(v) in found else F.zeros_like(v) for v in variables
    ]


def _check_grad_variables(heads, variables):
    """MXNet's checks: every variable needs a gradient and must be
    reachable from the heads (else its gradient would silently be 0)."""
    heads = [heads] if isinstance(heads, NDArray) else list(heads)
    reached = {id(h) for h in heads}
    for node in _topological_order(heads):
        reached.update(id(x) for x in node.inputs)
    for i, var in enumerate(variables, 1):
        where = (
            f'the {i}-th variable (an NDArray of shape {var.shape} '
            f'{var.dtype} @{var._ctx})'
        )
        if var._node is None and var._grad_req is None:
            raise DLBookError(
                f'Cannot differentiate with respect to {where} because it '
                f'does not require gradient. Call attach_grad() on it '
                f'before autograd.record().'
            )
        if id(var) not in reached:
            raise DLBookError(
                f'Cannot differentiate with respect to {where} because it '
                f'is unreachable from the outputs: the heads were not '
                f'computed from it inside autograd.record().'
            )


def get_symbol(x):
    """Not available: dlbook's tape keeps Python operator objects, not a
    symbol graph.  Use ``HybridBlock.hybridize()`` and ``export`` instead."""
    raise DLBookError(
        'autograd.get_symbol is not supported by dlbook; '
        'hybridize a HybridBlock and call export() to get a '
        'symbol graph'
    )


# -- custom operators ----------------------------------------------------------


class Function:
    """A custom differentiable function written with NDArray operations.

    Subclass it and define ``forward(self, *inputs)`` and
    ``backward(self, *output_grads)``; call ``save_for_backward`` to keep
    arrays.  As in MXNet, an instance is used for one call.

    >>> class sigmoid(autograd.Function):
    ...     def forward(self, x):
    ...         y = 1 / (1 + nd.exp(-x))
    ...         self.save_for_backward(y)
    ...         return y
    ...     def backward(self, dy):
    ...         y, = self.saved_tensors
    ...         return dy * y * (1 - y)
    """

    def __init__(self):
        self.saved_tensors = ()

    def save_for_backward(self, *args):
        self.saved_tensors = args

    def forward(self, *inputs):
        raise NotImplementedError(
            'subclasses of autograd.Function define forward(self, *inputs)'
        )

    def backward(self, *output_grads):
        raise NotImplementedError(
            'subclasses of autograd.Function define '
            'backward(self, *output_grads)'
        )

    def __call__(self, *inputs):
        with pause(train_mode=_state.training):
            outputs = self.forward(*inputs)
        single = isinstance(outputs, NDArray)
        outs = (outputs,) if single else tuple(outputs)
        needs_grad = any(
            x._node is not None or x._grad_req is not None for x in inputs
        )
        if _state.recording and needs_grad:
            op = _FunctionOp(self, outs)
            meta = None if single else [(o.shape, o.dtype) for o in outs]
            node = Node(
                op, tuple(inputs), inputs[0]._ctx, meta, _write_clock.NOW[0]
            )
            for i, o in enumerate(outs):
                o._node, o._out_index = node, i
            note_readers(node, inputs)
        return outputs


class _FunctionOp(Op):
    """Adapter giving an ``autograd.Function`` the operator interface (an
    unregistered :class:`~dlbook.ops.op.Op`, so the tape finds every
    attribute it reads)."""

    name = 'Function'
    attrs = {}
    arguments = ()  # errors name an input by its position

    def __init__(self, function, outputs):
        self.function = function
        # only the context: holding the outputs would look, to the check
        # for written outputs, as if the backward needed their values
        self.out_ctx = outputs[0]._ctx

    def backward(self, xp, *dys):
        ctx = self.out_ctx
        with pause():
            grads = self.function.backward(*[from_raw(d, ctx) for d in dys])
        if isinstance(grads, NDArray):
            grads = (grads,)
        return tuple(None if g is None else g._data for g in grads)
