"""``mx.viz.plot_tape``: a picture of the autograd tape (dlbook only).

Inside ``with autograd.record():`` every operator applied to an array that
needs a gradient leaves a tape node: the operator object and its input
arrays; each output array points back at its node (``y._node``).  This
module walks those pointers from ``y`` back to the variables and draws

* one **box** per operator call, labelled with the operator's name and the
  attributes that differ from their defaults (``_mul_scalar`` /
  ``scalar=2``);
* one **oval** per array, labelled with its shape; variables (arrays with
  ``attach_grad()``) are coloured and show ``‖grad‖``, the L2 norm of the
  gradient ``backward`` stored in them; constants (arrays without a
  gradient) are grey and dashed: no gradient flows into them;
* arrows in the direction data flows: input -> operator -> output.
  ``backward`` walks the same arrows in reverse.

It is micrograd's ``draw_dot`` for MXNet's tape.  ``backward()`` frees the
tape to save memory, so draw it first, or after
``backward(retain_graph=True)`` to see the gradients as well::

    x = nd.array([1.0, 2.0]); x.attach_grad()
    with autograd.record():
        y = (x * x).sum()
    y.backward(retain_graph=True)
    mx.viz.plot_tape(y, names={'x': x})
"""

from .. import autograd
from ..base import DLBookError
from ..ndarray.ndarray import NDArray
from ._dot import new_digraph

__all__ = ['plot_tape']

#: Colours from MXNet's plot_network palette.
OP_COLOR = '#bebada'
VARIABLE_COLOR = '#8dd3c7'
CONSTANT_COLOR = '#eeeeee'
HEAD_COLOR = '#ffffb3'

MAX_ATTRS = 4  # attribute lines per operator box
MAX_ATTR_CHARS = 24  # characters per attribute value

_FREED = (
    'plot_tape: the autograd graph of this array was freed by backward(), '
    'which releases the tape to save memory. Call mx.viz.plot_tape(y) '
    'before y.backward(), or use y.backward(retain_graph=True) to keep the '
    'graph (and then the drawing also shows the gradients).'
)

_NOT_RECORDED = (
    'plot_tape: this array is not on the autograd tape, so there is no '
    'graph to draw. Compute it inside `with autograd.record():` from '
    'arrays that need a gradient (call x.attach_grad() first).'
)


def _heads(y):
    heads = [y] if isinstance(y, NDArray) else list(y)
    if not heads or not all(isinstance(h, NDArray) for h in heads):
        raise TypeError(
            f'plot_tape expects an NDArray or a list of '
            f'NDArrays, got {type(y).__name__}'
        )
    for head in heads:
        if head._node is None and head._grad_req is None:
            raise DLBookError(_NOT_RECORDED)
    return heads


def _tape_nodes(heads):
    """Tape nodes reachable from ``heads``, inputs before consumers, in
    drawing order.  A freed node has lost its inputs, so the graph cannot
    be drawn: say so instead of drawing half of it."""
    return autograd._topological_order(
        heads, freed_error=_FREED, left_to_right=True
    )


def _array_key(x):
    """Arrays made by an operator are identified by (node, output); leaves
    (variables, constants) by the array object."""
    if x._node is not None:
        return (id(x._node), x._out_index)
    return id(x)


def _name_table(names):
    """``{array key: name}`` from ``{name: NDArray or Parameter}``; a
    Parameter names its array on every context."""
    table = {}
    for name, value in (names or {}).items():
        arrays = [value]
        if hasattr(value, 'list_data'):  # a gluon Parameter
            try:
                arrays = value.list_data()
            except DLBookError:
                continue  # not initialized yet
        for x in arrays:
            table[_array_key(x)] = str(name)
    return table


def _grad_norm(grad):
    """L2 norm of a gradient buffer, computed in float64."""
    xp, raw = grad._ctx.xp, grad._data.astype('float64')
    return float(xp.sqrt(xp.sum(raw * raw)))


def _scalar(x):
    return float(x._data.reshape(-1)[0])


def _array_label(x, name, show_grads):
    """Name (or kind), shape, value of one-element arrays, gradient
    norm."""
    lines = []
    is_variable = x._node is None and x._grad_req is not None
    if name is not None:
        lines.append(name)
    elif x._node is None:
        lines.append('variable' if is_variable else 'constant')
    shape = str(tuple(x.shape))
    dtype = x.dtype.__name__ if hasattr(x.dtype, '__name__') else str(x.dtype)
    lines.append(shape if dtype == 'float32' else f'{shape} {dtype}')
    if x.size == 1:
        lines.append(f'value={_scalar(x):.4g}')
    if show_grads and is_variable and x._grad is not None:
        lines.append(f'‖grad‖={_grad_norm(x._grad):.4g}')
    return '\n'.join(lines)


def _short(value):
    text = str(value)
    if len(text) > MAX_ATTR_CHARS:
        text = text[: MAX_ATTR_CHARS - 3] + '...'
    return text


def _op_label(op):
    """The operator's name and the attributes that differ from their
    defaults (those are what the call spelled out)."""
    name = getattr(op, 'name', None) or type(op).__name__
    function = getattr(op, 'function', None)
    if name == 'Function' and function is not None:
        name = type(function).__name__  # an autograd.Function
    lines = [name]
    defaults = getattr(op, 'defaults', {}) or {}
    missing = object()
    for key, value in (getattr(op, 'attrs', {}) or {}).items():
        try:
            same = bool(defaults.get(key, missing) == value)
        except (TypeError, ValueError):
            same = False
        if not same:
            lines.append(f'{key}={_short(value)}')
    if len(lines) > MAX_ATTRS + 1:
        lines = lines[: MAX_ATTRS + 1] + ['...']
    return '\n'.join(lines)


def plot_tape(y, show_grads=True, names=None, title='tape', rankdir='LR'):
    """Draw the autograd graph recorded for ``y`` (dlbook extension).

    Boxes are operator calls, ovals are arrays; arrows run input ->
    operator -> output, the way the forward pass went (``backward``
    follows them in reverse).  Variables (``attach_grad()``) are
    coloured and show the L2 norm of their gradient, ``‖grad‖``;
    constants are grey and dashed; the output ``y`` has a double border.

    Parameters
    ----------
    y : NDArray or list of NDArray
        Result computed inside ``autograd.record()``.  Call this before
        ``y.backward()`` (which frees the tape), or after
        ``y.backward(retain_graph=True)`` to also see the gradients.
    show_grads : bool, optional
        Show ``‖grad‖`` on the variables (zero before ``backward``).
    names : dict, optional
        Labels for arrays, ``{'w': w, 'b': b}``; a Gluon ``Parameter`` (or
        ``net.collect_params()``) names the arrays of that parameter.
    title : str, optional
        Name of the graph.
    rankdir : str, optional
        Layout direction: ``'LR'`` (left to right) or ``'TB'``.

    Returns
    -------
    graphviz.Digraph
        Displayed as a picture in a notebook (or, without the ``dot``
        program, as install instructions and the DOT source).

    Raises
    ------
    DLBookError
        If the tape of ``y`` was freed by ``backward`` or ``y`` was not
        recorded.

    Examples
    --------
    >>> w = nd.array([[2.0, -1.0]]); w.attach_grad()
    >>> x = nd.array([[1.0], [3.0]])            # a constant
    >>> with autograd.record():
    ...     loss = nd.dot(w, x).sum()
    >>> loss.backward(retain_graph=True)
    >>> dot = mx.viz.plot_tape(loss, names={'w': w, 'x': x})
    """
    heads = _heads(y)
    tape = _tape_nodes(heads)
    name_of = _name_table(names)
    dot = new_digraph(
        name=title,
        graph_attr={'rankdir': rankdir},
        node_attr={'fontsize': '11'},
    )
    head_keys = {_array_key(h) for h in heads}
    array_ids = {}

    def add_array(x):
        key = _array_key(x)
        if key in array_ids:
            return array_ids[key]
        dot_id = array_ids[key] = f'a{len(array_ids)}'
        style = {'shape': 'oval'}
        if x._node is None and x._grad_req is not None:
            style.update(style='filled,bold', fillcolor=VARIABLE_COLOR)
        elif x._node is None:
            style.update(style='filled,dashed', fillcolor=CONSTANT_COLOR)
        if key in head_keys:
            style.update(style='filled', fillcolor=HEAD_COLOR, peripheries='2')
        dot.node(
            dot_id, _array_label(x, name_of.get(key), show_grads), **style
        )
        return dot_id

    # arrays in order of first use, so ids (a0, a1...) are reproducible
    outputs = {}  # id(node) -> {output index: array}
    for node in tape:
        for x in node.inputs:
            add_array(x)
            if x._node is not None:
                outputs.setdefault(id(x._node), {})[x._out_index] = x
    for head in heads:
        add_array(head)
        if head._node is not None:
            outputs.setdefault(id(head._node), {})[head._out_index] = head

    for k, node in enumerate(tape):
        op_id = f'op{k}'
        dot.node(
            op_id,
            _op_label(node.op),
            shape='box',
            style='filled',
            fillcolor=OP_COLOR,
        )
        for x in node.inputs:
            dot.edge(array_ids[_array_key(x)], op_id)
        made = outputs.get(id(node), {})
        several = node.out_meta is not None and len(node.out_meta) > 1
        for index in sorted(made):
            edge = {'label': f'[{index}]'} if several else {}
            dot.edge(op_id, array_ids[_array_key(made[index])], **edge)
    return dot
