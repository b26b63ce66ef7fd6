"""Control flow in symbol graphs: ``sym.contrib.foreach``, ``while_loop``
and ``cond``, as MXNet's subgraph operators ``_foreach``, ``_while_loop``
and ``_cond``.

A Python function (the loop body, the loop condition, a branch) is called
**once**, on placeholder variables, and the symbols it returns become a
*subgraph*: a small graph kept as an attribute of one operator node of
the outer graph.  When the outer graph runs (``bind``, ``simple_bind``, or
a hybridized Gluon block), that operator runs its subgraph as many times
as the data asks: once per slice of axis 0 (``foreach``), while the
condition holds (``while_loop``), or once, for the branch the predicate
picks (``cond``).  Its backward runs the subgraph backward through the
saved iterations in reverse order, so gradients are MXNet's.

Which nodes belong to the subgraph is decided as in MXNet: the function
runs inside ``AttrScope(__subgraph_name__=<name>)``, so every node it
creates carries that name (and so does every node that depends on a loop
placeholder).  Anything else the function reads - an outer symbol it
closes over, a parameter's variable - is *cut*: it is computed by the
outer graph and given to the operator as an extra input, whose gradient
the operator returns too.

The operators take their subgraphs as Python objects in their attributes:
such a graph runs, infers shapes and differentiates, but cannot be saved
to JSON (``tojson``/``export`` raise an error naming the node).
"""

import itertools

from .. import attribute
from .. import name as _name
from ..base import DLBookError
from ..ndarray.control_flow import flatten, regroup
from ..ops.op import Op
from .node import SUBGRAPH_OPS, Node, stored_attrs
from .symbol import Symbol

__all__ = ['foreach', 'while_loop', 'cond']

_KEY = '__subgraph_name__'
_counter = itertools.count()
_new = object.__new__


def _flatten(args, inout_str):
    """Nested lists of Symbols -> (flat list, format): MXNet's
    ``_flatten`` (:func:`dlbook.ndarray.control_flow.flatten`)."""
    return flatten(args, inout_str, Symbol)


def _entry(symbol, what):
    if len(symbol._outputs) != 1:
        raise DLBookError(
            f'{what}: {symbol} has {len(symbol._outputs)} outputs; pick one '
            f'with [i]'
        )
    return symbol._outputs[0]


class _Subgraph:
    """A graph run inside a control-flow operator, on raw arrays.

    ``inputs`` are variable nodes (one raw array each, in order), ``heads``
    the ``(node, index)`` entries it returns.  :meth:`forward` keeps what
    :meth:`backward` needs, one operator instance per node.
    """

    def __init__(self, heads, inputs, label):
        from .node import topological_nodes

        self.label = label
        self.heads = list(heads)
        self.inputs = list(inputs)
        slot = {(id(v), 0): k for k, v in enumerate(inputs)}
        self.steps = []
        for node in topological_nodes(self.heads):
            if node.is_variable:
                if (id(node), 0) not in slot:  # cut: cannot happen
                    raise DLBookError(
                        f'{label}: variable {node.name!r} is not an input '
                        f'of the subgraph'
                    )
                continue
            outs = []
            for i in range(node.num_outputs()):
                slot[(id(node), i)] = len(slot)
                outs.append(slot[(id(node), i)])
            ins = [slot[(id(c), i)] for c, i in node.inputs]
            self.steps.append((node, node.make_op(), ins, outs))
        self.num_slots = len(slot)
        self.out_slots = [slot[(id(n), i)] for n, i in self.heads]
        self.needs_rng = any(proto.needs_rng for _, proto, _, _ in self.steps)

    def __repr__(self):
        return f'<subgraph {self.label}: {len(self.steps)} operators>'

    def forward(self, xp, raws, is_train, rng, keep=True):
        """Run on ``raws`` (one per input); return (outputs, tape)."""
        values = list(raws) + [None] * (self.num_slots - len(raws))
        tape = [] if keep else None
        for node, proto, ins, outs in self.steps:
            op = _new(type(proto))
            op.__dict__.update(proto.__dict__)
            op.is_train = is_train
            if proto.needs_rng:
                op.rng = rng
            args = [values[s] for s in ins]
            try:
                out = op.forward(xp, *args)
            except (ValueError, TypeError, IndexError) as err:
                raise DLBookError(
                    f'{self.label}: {node.op} (node {node.name!r}) failed '
                    f'on inputs of shapes {[a.shape for a in args]}: {err}'
                ) from err
            if len(outs) == 1:
                if isinstance(out, (tuple, list)):
                    out = out[0]
                values[outs[0]] = out
                meta = None
            else:
                for s, o in zip(outs, out):
                    values[s] = o
                meta = [(o.shape, o.dtype) for o in out]
            if keep:
                tape.append((op, meta))
        return [values[s] for s in self.out_slots], tape

    def backward(self, xp, tape, dys):
        """Input gradients (None where none reaches) from output ones."""
        grads = [None] * self.num_slots
        for s, g in zip(self.out_slots, dys):
            if g is not None:
                grads[s] = g if grads[s] is None else grads[s] + g
        for k in range(len(self.steps) - 1, -1, -1):
            _, _, ins, outs = self.steps[k]
            op, meta = tape[k]
            douts = [grads[s] for s in outs]
            if all(d is None for d in douts):
                continue
            for s in outs:
                grads[s] = None
            if not op.differentiable:
                continue
            if meta is not None:
                douts = [
                    xp.zeros(shape, dtype) if d is None else d
                    for d, (shape, dtype) in zip(douts, meta)
                ]
            din = op.backward(xp, *douts)
            if not isinstance(din, (tuple, list)):
                din = (din,)
            for s, g in zip(ins, din):
                if g is not None:
                    grads[s] = g if grads[s] is None else grads[s] + g
        return grads[: len(self.inputs)]


def _cut(heads, placeholders, marker):
    """Copy the part of the graph below ``heads`` that belongs inside.

    A node is inside when it carries ``marker`` (the user's function made
    it) or depends on a placeholder; every other entry it reads (an outer
    node's output, a variable) is replaced by a new variable.  Returns
    ``(heads, outer)``: the copied heads, and ``{(id(node), index):
    ((node, index), variable)}`` for the outer entries, in the order met.
    """
    holder = {id(p) for p in placeholders}
    depends = {}

    def is_inside(node):
        found = depends.get(id(node))
        if found is not None:
            return found
        # iterative: is any placeholder below an unmarked node?
        stack = [(node, False)]
        while stack:
            current, done = stack.pop()
            key = id(current)
            if key in depends:
                continue
            if current.is_variable:
                depends[key] = key in holder
                continue
            if not done:
                stack.append((current, True))
                stack.extend(
                    (c, False)
                    for c, _ in current.inputs
                    if id(c) not in depends
                )
                continue
            depends[key] = current.extra.get(_KEY) == marker or any(
                depends[id(c)] for c, _ in current.inputs
            )
        return depends[id(node)]

    copies = {id(p): p for p in placeholders}
    outer, outer_vars = [], {}

    def entry_of(node, index):
        if id(node) in holder:
            return (node, 0)
        if node.is_variable or not is_inside(node):
            key = (id(node), index)
            var = outer_vars.get(key)
            if var is None:
                suffix = '' if node.is_variable else f'_{index}'
                var = Node(None, f'{node.name}{suffix}')
                outer_vars[key] = var
                outer.append((node, index))
            return (var, 0)
        return (copy_of(node), index)

    def copy_of(node):
        # inner nodes, inputs first (iterative post-order)
        stack = [(node, False)]
        while stack:
            current, done = stack.pop()
            if id(current) in copies:
                continue
            inner = [
                c
                for c, _ in current.inputs
                if id(c) not in holder and not c.is_variable and is_inside(c)
            ]
            if not done:
                stack.append((current, True))
                stack.extend((c, False) for c in inner if id(c) not in copies)
                continue
            twin = Node(
                current.op,
                current.name,
                attrs=current.attrs,
                extra=current.extra,
            )
            twin.inputs = [entry_of(c, i) for c, i in current.inputs]
            copies[id(current)] = twin
        return copies[id(node)]

    new_heads = [entry_of(n, i) for n, i in heads]
    return new_heads, {
        (id(n), i): ((n, i), outer_vars[(id(n), i)]) for n, i in outer
    }


def _assemble(cuts, label):
    """Subgraphs over one shared list of outer inputs.

    ``cuts`` are ``(name, placeholders, heads, outer)`` (``outer`` from
    :func:`_cut`).  Each subgraph takes its placeholders, then one input
    per outer entry of *any* of the cuts (those it does not read stay
    unused).  Returns ``(subgraphs, outer entries)``.
    """
    union = {}
    for _, _, _, outer in cuts:
        for key, (entry, _) in outer.items():
            union.setdefault(key, entry)
    subgraphs = []
    for name, placeholders, heads, outer in cuts:
        inputs = list(placeholders) + [
            outer[key][1] if key in outer else Node(None, 'unused')
            for key in union
        ]
        subgraphs.append(_Subgraph(heads, inputs, f'{label} {name}'))
    return subgraphs, list(union.values())


def _placeholders(symbols, marker):
    """One new variable per symbol (MXNet names it ``<name>-<index>``)."""
    out = []
    for k, s in enumerate(symbols):
        node, index = s._outputs[0]
        out.append(Node(None, f'{node.name}-{index}', extra={_KEY: marker}))
    return out


def _marker(name):
    return f'{name}{next(_counter)}'


def _make(op_name, attrs, inputs):
    """The operator node of the outer graph, as a Symbol of its outputs."""
    cls = SUBGRAPH_OPS[op_name]
    op = cls(**attrs)
    node = Node(
        op_name,
        _name.current().get(None, op_name),
        attrs=attrs,
        inputs=inputs,
        extra=stored_attrs(attribute.current().get(None)),
    )
    return Symbol([(node, i) for i in range(op.num_outputs)])


def _check(flat, msg):
    for s in flat:
        if not isinstance(s, Symbol):
            raise AssertionError(msg)


def _copy_aliases(xp, outs, raws):
    """Outputs that are input arrays (a state returned unchanged) as new
    arrays: an operator's outputs never share an input's memory."""
    given = {id(r) for r in raws}
    return [o.copy() if id(o) in given else o for o in outs]


def _scalar_truth(value, what):
    if value.size != 1:
        raise DLBookError(
            f'{what} must be a scalar (one element), got shape {value.shape}'
        )
    return bool(value.reshape(()))


# -- the operators ------------------------------------------------------------


class _ControlFlowOp:
    """What the three operators share: attrs given as Python objects,
    instance-level ``num_outputs`` and ``needs_rng``."""

    def _setup(self, attrs, subgraphs):
        merged = dict(self.defaults)
        merged.update(attrs)
        unknown = set(attrs) - set(self.defaults)
        if unknown:
            raise DLBookError(
                f'operator {self.name!r} got unexpected argument(s) '
                f'{sorted(unknown)}'
            )
        self.attrs = merged
        self.num_outputs = int(merged['num_outputs'])
        self.needs_rng = any(merged[g].needs_rng for g in subgraphs)

    def list_outputs(self):
        if self.num_outputs == 1:
            return ('output',)
        return tuple(f'output{i}' for i in range(self.num_outputs))


class Foreach(_ControlFlowOp, Op):
    """``_foreach``: run ``body`` on each slice of the data's axis 0.

    Inputs: data arrays, initial states, then the body's outer
    inputs.  Outputs: the per-step outputs stacked on axis 0, then the
    final states."""

    name = '_foreach'
    variadic = True
    defaults = {
        'body': None,
        'num_data': 0,
        'num_states': 0,
        'num_out_data': 0,
        'num_outputs': 0,
    }

    def __init__(self, **attrs):
        self._setup(attrs, ['body'])

    def list_arguments(self):
        a = self.attrs
        return (
            tuple(f'data{i}' for i in range(a['num_data']))
            + tuple(f'state{i}' for i in range(a['num_states']))
            + tuple(
                f'free{i}'
                for i in range(
                    len(a['body'].inputs) - a['num_data'] - a['num_states']
                )
            )
        )

    def forward(self, xp, *raws):
        a = self.attrs
        body, nd_, ns, no = (
            a['body'],
            a['num_data'],
            a['num_states'],
            a['num_out_data'],
        )
        data, states, free = (
            raws[:nd_],
            list(raws[nd_ : nd_ + ns]),
            raws[nd_ + ns :],
        )
        lengths = {d.shape[0] if d.ndim else None for d in data}
        if len(lengths) != 1 or None in lengths:
            raise DLBookError(
                'foreach: every data array needs the same length on axis '
                f'0, got shapes {[d.shape for d in data]}'
            )
        (length,) = lengths
        if length == 0:
            raise DLBookError('foreach: the data is empty on axis 0')
        tapes, per_step = [], []
        for i in range(length):
            outs, tape = body.forward(
                xp,
                [d[i] for d in data] + states + list(free),
                self.is_train,
                self.rng,
            )
            tapes.append(tape)
            per_step.append(outs[:no])
            states = outs[no:]
        self.saved = (tapes, [(d.shape, d.dtype) for d in data], length)
        stacked = [xp.stack(list(col)) for col in zip(*per_step)]
        return stacked + _copy_aliases(xp, states, raws)

    def backward(self, xp, *dys):
        a = self.attrs
        body, nd_, ns, no = (
            a['body'],
            a['num_data'],
            a['num_states'],
            a['num_out_data'],
        )
        tapes, data_meta, length = self.saved
        d_out, d_states = dys[:no], list(dys[no:])
        d_data = [xp.zeros(shape, dtype) for shape, dtype in data_meta]
        d_free = None
        for i in range(length - 1, -1, -1):
            step_dys = [None if d is None else d[i] for d in d_out]
            grads = body.backward(xp, tapes[i], step_dys + d_states)
            for j in range(nd_):
                if grads[j] is not None:
                    d_data[j][i] += grads[j]
            d_states = grads[nd_ : nd_ + ns]
            d_free = _accumulate(d_free, grads[nd_ + ns :])
        return d_data + d_states + (d_free or [])


class WhileLoop(_ControlFlowOp, Op):
    """``_while_loop``: run ``func`` while ``cond`` holds, at most
    ``max_iterations`` times.

    Inputs: loop variables, then the outer inputs of both subgraphs.
    Outputs: the step outputs stacked on axis 0 and padded to
    ``max_iterations`` rows (padding rows are zeros), then the final
    loop variables."""

    name = '_while_loop'
    variadic = True
    defaults = {
        'cond': None,
        'func': None,
        'max_iterations': 0,
        'num_vars': 0,
        'num_out_data': 0,
        'num_outputs': 0,
    }

    def __init__(self, **attrs):
        self._setup(attrs, ['cond', 'func'])

    def list_arguments(self):
        a = self.attrs
        return tuple(f'var{i}' for i in range(a['num_vars'])) + tuple(
            f'free{i}' for i in range(len(a['func'].inputs) - a['num_vars'])
        )

    def forward(self, xp, *raws):
        a = self.attrs
        nv, no, limit = (
            a['num_vars'],
            a['num_out_data'],
            a['max_iterations'],
        )
        loop_vars, free = list(raws[:nv]), list(raws[nv:])
        tapes, per_step = [], []
        while len(tapes) < limit:
            (pred,), _ = a['cond'].forward(
                xp, loop_vars + free, self.is_train, self.rng, keep=False
            )
            if not _scalar_truth(pred, 'while_loop: the value of cond'):
                break
            outs, tape = a['func'].forward(
                xp, loop_vars + free, self.is_train, self.rng
            )
            tapes.append(tape)
            per_step.append(outs[:no])
            loop_vars = outs[no:]
        self.saved = tapes
        if per_step:
            samples = per_step[0]
        elif no:
            # no iteration: the output shapes from one unrecorded run
            samples = a['func'].forward(
                xp, loop_vars + free, False, self.rng, keep=False
            )[0][:no]
        stacked = []
        for k in range(no):
            parts = [xp.stack([s[k] for s in per_step])] if per_step else []
            if len(per_step) < limit:  # padding rows: zeros
                shape = (limit - len(per_step),) + samples[k].shape
                parts.append(xp.zeros(shape, samples[k].dtype))
            stacked.append(
                parts[0] if len(parts) == 1 else xp.concatenate(parts)
            )
        return stacked + _copy_aliases(xp, loop_vars, raws)

    def backward(self, xp, *dys):
        a = self.attrs
        nv, no = a['num_vars'], a['num_out_data']
        d_out, d_vars = dys[:no], list(dys[no:])
        d_free = None
        for i in range(len(self.saved) - 1, -1, -1):
            step_dys = [None if d is None else d[i] for d in d_out]
            grads = a['func'].backward(xp, self.saved[i], step_dys + d_vars)
            d_vars = grads[:nv]
            d_free = _accumulate(d_free, grads[nv:])
        if d_free is None:
            d_free = [None] * (len(a['func'].inputs) - nv)
        return d_vars + d_free


class Cond(_ControlFlowOp, Op):
    """``_cond``: run ``then_branch`` or ``else_branch`` as the scalar
    predicate (the first input) says.  The other inputs are the outer
    inputs of both branches."""

    name = '_cond'
    variadic = True
    defaults = {'then_branch': None, 'else_branch': None, 'num_outputs': 0}

    def __init__(self, **attrs):
        self._setup(attrs, ['then_branch', 'else_branch'])

    def list_arguments(self):
        count = len(self.attrs['then_branch'].inputs)
        return ('pred',) + tuple(f'free{i}' for i in range(count))

    def forward(self, xp, pred, *free):
        taken = _scalar_truth(pred, 'cond: pred')
        branch = self.attrs['then_branch' if taken else 'else_branch']
        outs, tape = branch.forward(xp, list(free), self.is_train, self.rng)
        self.saved = (branch, tape)
        return _copy_aliases(xp, outs, free)

    def backward(self, xp, *dys):
        branch, tape = self.saved
        return [None] + branch.backward(xp, tape, list(dys))


for _cls in (Foreach, WhileLoop, Cond):
    SUBGRAPH_OPS[_cls.name] = _cls


def _accumulate(total, grads):
    if total is None:
        return list(grads)
    return [
        g if t is None else t if g is None else t + g
        for t, g in zip(total, grads)
    ]


# -- the front end ------------------------------------------------------------


def _symbols(nodes):
    return [Symbol([(n, 0)]) for n in nodes]


def _to_int(value, what):
    if hasattr(value, 'asscalar'):
        value = value.asscalar()
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ValueError(f'Cannot convert {what} to python int') from None


def foreach(body, data, init_states, name='foreach'):
    """Run ``body`` over axis 0 of ``data`` in a graph (``_foreach``).

    ``body(data_slice, states) -> (outputs, new_states)`` is called once,
    on placeholders, to build the loop's subgraph; the graph then runs it
    on ``data[0]``, ``data[1]``, ... carrying the states along.

    Parameters
    ----------
    body : callable
        ``body(x, states)``: ``x`` a Symbol (a list of Symbols when
        ``data`` is a list), ``states`` structured like ``init_states``.
        Returns ``(outputs, new_states)``; ``new_states`` must have the
        structure of ``init_states``.  Symbols it reads from outside (a
        weight) become inputs of the loop and receive gradients.
    data : Symbol or list of Symbol
        Sliced along axis 0 (every array of the same length).
    init_states : Symbol or nested list of Symbol
    name : str
        Name of the subgraph.

    Returns
    -------
    (outputs, states)
        The per-step outputs stacked on a new axis 0 (Symbols, structured
        as ``body`` returns them), and the final states.

    Examples
    --------
    >>> step = lambda x, s: (x + s[0], [s[0] * 2])
    >>> outs, states = mx.sym.contrib.foreach(
    ...     step, mx.sym.var('data'), [mx.sym.var('s')])
    >>> ex = mx.sym.Group([outs] + states).bind(
    ...     mx.cpu(), {'data': mx.nd.ones((3, 2)), 's': mx.nd.ones((2,))})
    >>> ex.forward()[0].asnumpy()
    array([[2., 2.],
           [3., 3.],
           [5., 5.]], dtype=float32)
    """
    flat_data, data_fmt = _flatten(data, 'foreach input')
    _check(flat_data, 'data should be a symbol or a nested list of symbols')
    flat_init, init_fmt = _flatten(init_states, 'foreach states')
    _check(
        flat_init, 'init_states should be a symbol or a nested list of symbols'
    )
    marker = _marker(name)
    with attribute.AttrScope(**{_KEY: marker}):
        data_vars = _placeholders(flat_data, marker)
        state_vars = _placeholders(flat_init, marker)
        sym_out, sym_states = body(
            regroup(_symbols(data_vars), data_fmt)[0],
            regroup(_symbols(state_vars), init_fmt)[0],
        )
        sym_out, out_fmt = _flatten(sym_out, 'foreach output')
        sym_states, state_fmt = _flatten(sym_states, 'foreach loop_vars')
    if init_fmt != state_fmt:
        raise AssertionError(
            'The input and output loop_vars have different format'
        )
    heads = [_entry(s, 'foreach') for s in sym_out + sym_states]
    heads, outer = _cut(heads, data_vars + state_vars, marker)
    (graph,), entries = _assemble(
        [('body', data_vars + state_vars, heads, outer)], marker
    )
    num_out = len(sym_out)
    result = _make(
        '_foreach',
        {
            'body': graph,
            'num_data': len(flat_data),
            'num_states': len(flat_init),
            'num_out_data': num_out,
            'num_outputs': num_out + len(sym_states),
        },
        [_entry(s, 'foreach') for s in flat_data + flat_init] + entries,
    )
    outs = regroup([result[i] for i in range(num_out)], out_fmt)[0]
    states = regroup(
        [result[num_out + i] for i in range(len(sym_states))], state_fmt
    )[0]
    return outs, states


def while_loop(cond, func, loop_vars, max_iterations=None, name='while_loop'):
    """Run ``func`` while ``cond`` holds, in a graph (``_while_loop``).

    ``cond(*loop_vars)`` returns a scalar Symbol; ``func(*loop_vars)``
    returns ``(step_output, new_loop_vars)``.  Both are called once, on
    placeholders, to build two subgraphs; the graph then loops at most
    ``max_iterations`` times.

    Parameters
    ----------
    cond, func : callable
    loop_vars : Symbol or nested list of Symbol
    max_iterations : int
        Required: the stacked outputs always have ``max_iterations`` rows
        (MXNet's static shapes); rows after the last iteration are zeros
        here (undefined in MXNet).
    name : str

    Returns
    -------
    (outputs, final_loop_vars)
        ``outputs`` structured as ``func``'s step output (``[]`` when it
        returns None); ``final_loop_vars`` structured as ``loop_vars``.

    Examples
    --------
    >>> i = mx.sym.var('i')
    >>> outs, last = mx.sym.contrib.while_loop(
    ...     lambda i: i < 3, lambda i: (i * 10, i + 1), i, max_iterations=4)
    >>> ex = mx.sym.Group([outs, last]).bind(mx.cpu(), {'i': mx.nd.zeros(1)})
    >>> [o.asnumpy().ravel().tolist() for o in ex.forward()]
    [[0.0, 10.0, 20.0, 0.0], [3.0]]
    """
    flat_vars, var_fmt = _flatten(loop_vars, 'while loop_vars')
    _check(
        flat_vars, 'loop_vars should be a symbol or a nested list of symbols'
    )
    if max_iterations is None:
        raise ValueError('max_iterations should be specified')
    max_iterations = _to_int(max_iterations, 'max_iteration')
    if len(loop_vars) == 0:
        raise ValueError('loop_vars should contain at least one element')

    def build(function, label):
        marker = _marker(f'{name}_{label}')
        with attribute.AttrScope(**{_KEY: marker}):
            holders = _placeholders(flat_vars, marker)
            grouped = regroup(_symbols(holders), var_fmt)[0]
            args = grouped if isinstance(grouped, list) else [grouped]
            outs = function(args)
        return marker, holders, outs

    def run_cond(args):
        result = cond(*args)
        if not isinstance(result, Symbol):
            raise ValueError('Return of cond must be a Symbol')
        return [result]

    def run_func(args):
        step_output, new_vars = func(*args)
        step_output = [] if step_output is None else step_output
        new_vars = [] if new_vars is None else new_vars
        if isinstance(step_output, tuple):
            step_output = list(step_output)
        if isinstance(new_vars, tuple):
            new_vars = list(new_vars)
        step_output, out_fmt = _flatten(step_output, 'while output')
        new_vars, _ = _flatten(new_vars, 'while loop_vars')
        if len(args) != len(new_vars):
            raise ValueError(
                'The number of loop_vars should be consistent during the loop'
            )
        return step_output, new_vars, out_fmt

    cond_marker, cond_vars, cond_out = build(run_cond, 'cond')
    func_marker, func_vars, (step_output, new_vars, out_fmt) = build(
        run_func, 'func'
    )
    cond_heads, cond_outer = _cut(
        [_entry(cond_out[0], 'while_loop cond')], cond_vars, cond_marker
    )
    func_heads, func_outer = _cut(
        [_entry(s, 'while_loop func') for s in step_output + new_vars],
        func_vars,
        func_marker,
    )
    used = {id(n) for n, _ in _topo_inputs(func_heads)}
    for i, var in enumerate(func_vars, 1):
        if id(var) not in used:
            raise ValueError(
                f"The {i}-th loop_var doesn't involve into the computation"
            )
    (cond_g, func_g), entries = _assemble(
        [
            ('cond', cond_vars, cond_heads, cond_outer),
            ('func', func_vars, func_heads, func_outer),
        ],
        name,
    )
    num_out = len(step_output)
    result = _make(
        '_while_loop',
        {
            'cond': cond_g,
            'func': func_g,
            'max_iterations': max_iterations,
            'num_vars': len(flat_vars),
            'num_out_data': num_out,
            'num_outputs': num_out + len(flat_vars),
        },
        [_entry(s, 'while_loop') for s in flat_vars] + entries,
    )
    outs = regroup([result[i] for i in range(num_out)], out_fmt)[0]
    final = regroup(
        [result[num_out + i] for i in range(len(flat_vars))], var_fmt
    )[0]
    return outs, final


def _topo_inputs(heads):
    from .node import topological_nodes

    return [(n, 0) for n in topological_nodes(heads) if n.is_variable]


def cond(pred, then_func, else_func, name='cond'):
    """If-then-else in a graph (``_cond``): run one branch per call.

    Parameters
    ----------
    pred : Symbol
        One output holding one element; nonzero picks ``then_func``.
    then_func, else_func : callable
        Take no arguments and return a Symbol or a nested list of Symbols
        (the same number of outputs, shapes and dtypes); they read the
        symbols they need from their closure.  Only the branch taken runs,
        and only it receives gradients.
    name : str

    Returns
    -------
    Symbol or nested list of Symbol
        Structured as ``then_func``'s result.

    Examples
    --------
    >>> a, b = mx.sym.var('a'), mx.sym.var('b')
    >>> out = mx.sym.contrib.cond(
    ...     a * b < 5, lambda: (a + 5) * (b + 5), lambda: (a - 5) * (b - 5))
    >>> out.eval(a=mx.nd.array([1]), b=mx.nd.array([2]))[0].asnumpy()
    array([42.], dtype=float32)
    """
    if not isinstance(pred, Symbol) or len(pred._outputs) != 1:
        raise ValueError('pred should always be a single output')
    cuts, formats = [], []
    for label, function in (('then', then_func), ('else', else_func)):
        marker = _marker(f'{name}_{label}')
        with attribute.AttrScope(**{_KEY: marker}):
            outs, fmt = _flatten(function(), 'cond outputs')
        heads, outer = _cut([_entry(s, 'cond') for s in outs], [], marker)
        cuts.append((label, [], heads, outer))
        formats.append(fmt)
    if len(cuts[0][2]) != len(cuts[1][2]):
        raise ValueError(
            'Number of outputs differs between then-branch and else-branch'
        )
    (then_g, else_g), entries = _assemble(cuts, name)
    count = len(cuts[0][2])
    result = _make(
        '_cond',
        {'then_branch': then_g, 'else_branch': else_g, 'num_outputs': count},
        [_entry(pred, 'cond')] + entries,
    )
    return regroup([result[i] for i in range(count)], formats[0])[0]
