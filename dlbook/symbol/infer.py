"""Shape and type inference over a symbol graph.

Each operator node is asked in turn, and the passes repeat until nothing
changes:

* operators with parameters define ``infer_shape(*in_shapes)`` and fill
  in unknown input shapes from known ones (``FullyConnected`` gives
  ``weight = (num_hidden, in_units)`` from the data), so the shape rule of
  an operator lives in one place, the operator;
* other operators are run once on zero arrays of the known input shapes
  with NumPy, and the outputs' shapes and dtypes are read off.
"""

import warnings

import numpy as np

from ..base import DLBookError, dtype_name

__all__ = ['infer_graph', 'infer_shape', 'infer_type']


def _known(shape):
    return shape is not None and all(int(n) > 0 for n in shape)


def _variable_hints(node):
    shape = node.extra.get('__shape__')
    dtype = node.extra.get('__dtype__')
    if shape is not None:
        import ast

        shape = tuple(ast.literal_eval(shape))
    if dtype is not None:
        from ..base import FLAG_TO_DTYPE

        dtype = (
            FLAG_TO_DTYPE.get(int(dtype), dtype) if dtype.isdigit() else dtype
        )
    return shape, dtype


def infer_graph(nodes, shapes=None, dtypes=None, default_dtype='float32'):
    """Infer every entry's shape and dtype.

    Parameters
    ----------
    nodes : list of Node
        Topologically sorted (``topological_nodes``).
    shapes, dtypes : dict
        Known values by variable name.
    default_dtype : str or None
        dtype assumed where nothing decides one (None: leave it unknown,
        as ``infer_type`` does).

    Returns
    -------
    (shape_of, dtype_of) : dicts keyed by ``(id(node), output_index)``;
    unknown shapes are None or contain 0.
    """
    shapes, dtypes = shapes or {}, dtypes or {}
    shape_of, dtype_of = {}, {}
    for node in nodes:
        if node.is_variable:
            hint_shape, hint_dtype = _variable_hints(node)
            shape = shapes.get(node.name, hint_shape)
            shape_of[(id(node), 0)] = (
                None if shape is None else tuple(int(n) for n in shape)
            )
            dtype = dtypes.get(node.name, hint_dtype)
            dtype_of[(id(node), 0)] = dtype_name(dtype) if dtype else None
    for _ in range(len(nodes) + 2):
        changed = False
        for node in nodes:
            if not node.is_variable:
                changed |= _infer_node(node, shape_of, dtype_of, default_dtype)
        if not changed:
            break
    return shape_of, dtype_of


def _merge(old, new, node):
    """The most specific shape agreeing with both (0 = unknown dimension);
    a conflict is MXNet's "Shape inconsistent"."""
    if old is None or old == new:
        return new
    if len(old) == len(new):
        merged = []
        for o, n in zip(old, new):
            if o and n and o != n:
                break
            merged.append(o or n)
        else:
            return tuple(merged)
    raise DLBookError(
        f'Shape inconsistent at node {node.name!r} ({node.op}), '
        f'Provided = {old}, inferred shape={new}'
    )


def _set(table, key, value, node):
    """Record an inferred (possibly partial) shape, merged with what is
    known; return whether anything changed."""
    if value is None or len(value) == 0 and not _known(value):
        return False
    old = table.get(key)
    merged = _merge(old, tuple(int(n) for n in value), node)
    if merged == old:
        return False
    table[key] = merged
    return True


#: stand-ins for unknown dimensions when an operator is probed: a
#: dimension of the result that differs between the two runs is unknown
_PROBES = (7, 11)


def _probe(node, op, rule, in_shapes, in_dtypes):
    """Partial shapes (0 = unknown) of inputs and outputs, from running the
    shape rule (or the operator on zeros) with two stand-in sizes for the
    unknown dimensions.  None when the operator refuses them."""
    runs = []
    for probe in _PROBES:
        filled = [
            None
            if s is None
            else tuple(probe if n == 0 else int(n) for n in s)
            for s in in_shapes
        ]
        try:
            if rule is not None:
                args, outs, aux = rule(*filled)
                ins = list(args) + list(aux)
            else:
                if any(s is None for s in filled):
                    return None
                outs = [
                    r.shape for r in _run_on_zeros(node, op, filled, in_dtypes)
                ]
                ins = filled
        except (
            DLBookError,
            ValueError,
            TypeError,
            IndexError,
            ZeroDivisionError,
        ):
            return None
        runs.append(
            (
                [None if x is None else tuple(x) for x in ins],
                [None if x is None else tuple(x) for x in outs],
            )
        )

    def agree(a, b):
        if a is None or b is None or len(a) != len(b):
            return None
        return tuple(x if x == y else 0 for x, y in zip(a, b))

    (ins_a, outs_a), (ins_b, outs_b) = runs
    return (
        [agree(a, b) for a, b in zip(ins_a, ins_b)],
        [agree(a, b) for a, b in zip(outs_a, outs_b)],
    )


def _passed_through(node, op, rule, in_shapes, in_dtypes, out_shapes):
    """Unknown input dimensions that reach an output unchanged, read back
    from that output's known size: ``{(input, axis): size}``.

    Each unknown dimension is probed alone (7, then 11; the others 5): an
    output dimension that follows it exactly (7, then 11) is the same
    dimension, so a size known there is its size.  This is how a
    ``zeros((0, H))`` begin state learns its batch size from the layer
    it is added to, as MXNet's shape inference runs backwards too.
    """
    found = {}
    for k, shape in enumerate(in_shapes):
        if shape is None or _known(shape):
            continue
        for axis, size in enumerate(shape):
            if size:
                continue
            runs = []
            for probe in (7, 11):
                filled = [
                    None
                    if s is None
                    else tuple(
                        probe if (i, j) == (k, axis) else (int(n) or 5)
                        for j, n in enumerate(s)
                    )
                    for i, s in enumerate(in_shapes)
                ]
                try:
                    if rule is not None:
                        outs = rule(*filled)[1]
                    elif any(s is None for s in filled):
                        break
                    else:
                        outs = [
                            r.shape
                            for r in _run_on_zeros(node, op, filled, in_dtypes)
                        ]
                except (DLBookError, ValueError, TypeError, IndexError):
                    break
                runs.append(outs)
            if len(runs) < 2:
                continue
            for a, b, known in zip(runs[0], runs[1], out_shapes):
                if a is None or b is None or known is None:
                    continue
                if not len(a) == len(b) == len(known):
                    continue
                for j, (x, y) in enumerate(zip(a, b)):
                    if (x, y) == (7, 11) and known[j]:
                        found[(k, axis)] = int(known[j])
    return found


def _fill_from_outputs(node, op, rule, entries, outputs, shape_of, dtypes):
    """Set the unknown input sizes that :func:`_passed_through` reads
    from the outputs; return whether anything changed."""
    in_shapes = [shape_of.get(e) for e in entries]
    out_shapes = [shape_of.get(o) for o in outputs]
    if all(s is None or _known(s) or not len(s) for s in in_shapes):
        return False
    if not any(s is not None and any(s) for s in out_shapes):
        return False
    changed = False
    sizes = _passed_through(node, op, rule, in_shapes, dtypes, out_shapes)
    for (k, axis), size in sizes.items():
        shape = list(in_shapes[k])
        shape[axis] = size
        changed |= _set(shape_of, entries[k], shape, node)
    return changed


def _infer_node(node, shape_of, dtype_of, default_dtype='float32'):
    entries = [(id(child), i) for child, i in node.inputs]
    outputs = [(id(node), i) for i in range(node.num_outputs())]
    in_shapes = [shape_of.get(e) for e in entries]
    in_dtypes = [dtype_of.get(e) for e in entries]
    if (
        all(_known(s) for s in in_shapes)
        and all(_known(shape_of.get(o)) for o in outputs)
        and all(d is not None for d in in_dtypes)
    ):
        return False
    op = node.op_info()
    changed = False
    # dtypes: inputs without one take the first known input's dtype
    first = (
        next((d for d in in_dtypes if d is not None), None) or default_dtype
    )
    if first is not None:
        for e, d in zip(entries, in_dtypes):
            if d is None:
                dtype_of[e] = first
                changed = True
    in_dtypes = [dtype_of.get(e) for e in entries]
    if any(d is None for d in in_dtypes):
        # nothing decides the dtypes yet; an operator with a ``dtype``
        # attribute (Cast, one_hot...) still fixes its output's
        out_dtype = op.attrs.get('dtype')
        if out_dtype is not None:
            for o in outputs:
                if dtype_of.get(o) is None:
                    dtype_of[o] = dtype_name(out_dtype)
                    changed = True
        return changed
    if getattr(op, 'equal_shapes', False) and not all(
        _known(s) for s in in_shapes
    ):
        # inputs and output share one shape: merge what each one knows
        merged = None
        for key in entries + outputs:
            shape = shape_of.get(key)
            if shape is not None:
                merged = _merge(merged, shape, node) if merged else shape
        if merged is not None:
            for key in entries + outputs:
                changed |= _set(shape_of, key, merged, node)
    rule = getattr(op, 'infer_shape', None)
    if rule is not None:
        args, outs, aux = rule(*[s if _known(s) else None for s in in_shapes])
        full = list(args)
        if len(full) < len(entries):
            full += list(aux)
        for e, s in zip(entries, full):
            if s is not None and _known(s):
                changed |= _set(shape_of, e, s, node)
        # an operator may decide its outputs' dtypes (Custom's infer_type)
        out_dtypes = (
            op.out_dtypes(in_dtypes)
            if hasattr(op, 'out_dtypes')
            else [op.attrs.get('dtype') or first] * len(outputs)
        )
        for o, s, out_dtype in zip(outputs, outs, out_dtypes):
            if s is not None and _known(s):
                changed |= _set(shape_of, o, s, node)
                if dtype_of.get(o) is None:
                    dtype_of[o] = dtype_name(out_dtype)
                    changed = True
        if all(_known(shape_of.get(o)) for o in outputs):
            return changed | _fill_from_outputs(
                node, op, rule, entries, outputs, shape_of, in_dtypes
            )
    in_shapes = [shape_of.get(e) for e in entries]
    if not all(_known(s) for s in in_shapes):
        # without shapes the operator can't run: assume the usual rule
        # (the ``dtype`` attribute, else the inputs' dtype)
        guess = dtype_name(op.attrs.get('dtype') or first)
        for o in outputs:
            if dtype_of.get(o) is None:
                dtype_of[o] = guess
                changed = True
        # partly known shapes (0 = unknown dimension), as MXNet's
        # infer_shape_partial: probe the operator with stand-in sizes
        if any(s is not None and len(s) and not _known(s) for s in in_shapes):
            found = _probe(node, op, rule, in_shapes, in_dtypes)
            if found is not None:
                for key, shape in zip(entries + outputs, found[0] + found[1]):
                    if shape is not None and len(shape):
                        changed |= _set(shape_of, key, shape, node)
            changed |= _fill_from_outputs(
                node, op, rule, entries, outputs, shape_of, in_dtypes
            )
        return changed
    results = _run_on_zeros(node, op, in_shapes, in_dtypes)
    for o, r in zip(outputs, results):
        changed |= _set(shape_of, o, tuple(r.shape), node)
        if dtype_of.get(o) != r.dtype.name:
            dtype_of[o] = r.dtype.name
            changed = True
    return changed


def _run_on_zeros(node, op, shapes, dtypes):
    """Run the operator on zeros to learn its output shapes and dtypes."""
    arrays = [np.zeros(s, dtype=d) for s, d in zip(shapes, dtypes)]
    fresh = node.make_op()
    fresh.is_train = False
    fresh.rng = np.random.RandomState(0)
    try:
        with np.errstate(all='ignore'):
            try:
                out = fresh.forward(np, *arrays)
            except ZeroDivisionError:  # integer division: use ones
                out = node.make_op().forward(
                    np, *[np.ones(s, dtype=d) for s, d in zip(shapes, dtypes)]
                )
    except (ValueError, TypeError, IndexError, DLBookError) as err:
        raise DLBookError(
            f'shape inference failed at node {node.name!r} ({node.op}) '
            f'with input shapes {shapes}: {err}'
        ) from err
    return out if isinstance(out, (tuple, list)) else (out,)


def _named_inputs(symbol, args, kwargs):
    names = symbol.list_arguments()
    known = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in symbol.list_inputs():
            raise DLBookError(
                f'infer: {key!r} is not an input of the '
                f'symbol; inputs are '
                f'{symbol.list_inputs()}'
            )
        known[key] = value
    return {k: v for k, v in known.items() if v is not None}


def infer_shape(symbol, args, kwargs, partial=False):
    """``(arg_shapes, out_shapes, aux_shapes)``; see
    :meth:`Symbol.infer_shape`."""
    nodes = symbol._nodes()
    shapes = {
        k: tuple(v) for k, v in _named_inputs(symbol, args, kwargs).items()
    }
    shape_of, _ = infer_graph(nodes, shapes)
    by_name = {
        n.name: shape_of.get((id(n), 0)) for n in nodes if n.is_variable
    }
    arg_shapes = [by_name[n] for n in symbol.list_arguments()]
    aux_shapes = [by_name[n] for n in symbol.list_auxiliary_states()]
    out_shapes = [shape_of.get((id(n), i)) for n, i in symbol._outputs]
    everything = arg_shapes + aux_shapes + out_shapes
    if all(_known(s) for s in everything):
        return arg_shapes, out_shapes, aux_shapes
    if partial:

        def fix(s):
            return () if s is None else s

        return (
            [fix(s) for s in arg_shapes],
            [fix(s) for s in out_shapes],
            [fix(s) for s in aux_shapes],
        )
    _warn_unknown(
        'shape',
        ' (0s in shape means unknown dimensions)',
        [
            (n, by_name[n] or ())
            for n in symbol.list_arguments()
            if not _known(by_name[n])
        ],
    )
    return None, None, None


def _warn_unknown(what, note, unknown):
    """MXNet's warning (at most 10 names, then '...')."""
    lines = [f'{name}: {value}' for name, value in unknown[:10]]
    if len(unknown) > 10:
        lines.append('...')
    warnings.warn(
        f'Cannot decide {what} for the following arguments{note}. '
        f'Consider providing them as input:\n\t' + '\n\t'.join(lines),
        stacklevel=4,
    )


def infer_type(symbol, args, kwargs, partial=False):
    """``(arg_types, out_types, aux_types)`` as NumPy scalar types; warns
    and returns ``(None, None, None)`` when some type stays unknown, as
    MXNet does.  With ``partial=True`` unknown types are None in the
    lists instead (``infer_type_partial``)."""
    nodes = symbol._nodes()
    dtypes = {
        k: dtype_name(v)
        for k, v in _named_inputs(symbol, args, kwargs).items()
    }
    # types flow along edges (an operator's inputs share one dtype unless
    # it says otherwise); shape hints let operators run on zeros
    _, dtype_of = infer_graph(nodes, None, dtypes, default_dtype=None)
    by_name = {
        n.name: dtype_of.get((id(n), 0)) for n in nodes if n.is_variable
    }

    def as_np(d):
        return None if d is None else np.dtype(d).type

    arg_types = [as_np(by_name[n]) for n in symbol.list_arguments()]
    out_types = [as_np(dtype_of.get((id(n), i))) for n, i in symbol._outputs]
    aux_types = [as_np(by_name[n]) for n in symbol.list_auxiliary_states()]
    if not partial and any(
        t is None for t in arg_types + out_types + aux_types
    ):
        _warn_unknown(
            'type',
            '',
            [
                (n, t)
                for n, t in zip(symbol.list_arguments(), arg_types)
                if t is None
            ],
        )
        return None, None, None
    return arg_types, out_types, aux_types
