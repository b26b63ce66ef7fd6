"""The graph to draw or tabulate: a Symbol, or a Gluon block traced into
one, and the shapes or dtypes of every node's outputs."""

import re

from .. import ndarray as nd
from .. import symbol as sym
from ..gluon.block import Block, settle_block_shapes
from ..symbol import Symbol


def _shape_dict(shape, names=('data',)):
    """Normalize ``shape``: a dict stays, one tuple is the shape of
    ``data``, a list of tuples the shapes of ``data0``, ``data1``..."""
    if shape is None or isinstance(shape, dict):
        return shape
    shape = tuple(shape)
    if shape and all(isinstance(s, (tuple, list)) for s in shape):
        return {f'data{i}': tuple(s) for i, s in enumerate(shape)}
    return {names[0]: shape}


def _needs_a_forward_pass(block):
    """True if some parameter still waits for its shape (deferred
    initialization): one forward pass on zeros settles them."""
    return any(
        p._data is None and p._deferred_init
        for p in block.collect_params().values()
    )


def _trace_block(block, shape, dtype, caller):
    """Turn a Gluon block into a Symbol by calling it on variables.

    A HybridBlock called on ``sym.var('data')`` runs ``hybrid_forward``
    with ``F = mx.sym`` and so returns the graph it would compute.
    """
    if shape is None:
        raise ValueError(
            f'{caller}: a Gluon block is drawn by tracing it '
            f'on symbolic inputs, which needs their shape, '
            f'e.g. {caller}(net, shape=(1, 1, 28, 28))'
        )
    shapes = _shape_dict(shape)
    if _needs_a_forward_pass(block):
        params = list(block.collect_params().values())
        ctx = next(p.list_ctx()[0] for p in params if p._deferred_init)
        dtypes = dtype or {}
        inputs = [
            nd.zeros(s, ctx=ctx, dtype=dtypes.get(n, 'float32'))
            for n, s in shapes.items()
        ]
        settle_block_shapes(block, *inputs)
    try:
        out = block(*[sym.var(name) for name in shapes])
    except Exception as err:
        raise TypeError(
            f'{caller}: could not trace {type(block).__name__} by calling '
            f'it on mx.sym.var(...) ({type(err).__name__}: {err}). Only '
            f'HybridBlocks (and Sequential containers of HybridBlocks) '
            f'can be drawn this way.'
        ) from err
    if isinstance(out, (list, tuple)):
        out = sym.Group(list(out))
    return out, shapes


def _as_symbol(symbol, shape, dtype, caller, type_message):
    """``(symbol, shape dict)`` for a Symbol or a Gluon block."""
    if isinstance(symbol, Block):
        return _trace_block(symbol, shape, dtype, caller)
    if not isinstance(symbol, Symbol):
        raise TypeError(
            f'{type_message} (or, in dlbook, a Gluon Block '
            f'with shape=...), got {type(symbol).__name__}'
        )
    if shape is not None and not isinstance(shape, dict):
        # MXNet wants {'data': (...)}; a bare tuple is read as the shape
        # of 'data' when the symbol has such an input.
        if 'data' not in symbol.list_inputs():
            raise TypeError(
                f'{caller}: shape must be a dict of input '
                f'shapes, e.g. shape={{"data": (1, 784)}}; '
                f'inputs are {symbol.list_inputs()}'
            )
        shape = _shape_dict(shape)
    return symbol, shape


def _str2tuple(string):
    """The digits in an attribute string: ``'(5, 5)'`` -> ``['5', '5']``."""
    return re.findall(r'\d+', string)


def _entry_tables(symbol, shape=None, dtype=None, message='Input shape'):
    """Shapes (or dtypes) of every output of every node, keyed by
    ``(JSON node index, output index)``, from inference on
    ``symbol.get_internals()``."""
    internals = symbol.get_internals()
    index = {id(node): k for k, node in enumerate(symbol._nodes())}
    if shape is not None:
        _, values, _ = internals.infer_shape(**shape)
    else:
        _, values, _ = internals.infer_type(**dtype)
    if values is None:
        raise ValueError(f'{message} is incomplete')
    return {
        (index[id(node)], i): value
        for (node, i), value in zip(internals._outputs, values)
    }
