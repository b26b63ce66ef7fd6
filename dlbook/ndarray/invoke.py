"""The eager front end: run one operator on NDArrays, now.

Every ``nd.<op>`` call and every NDArray operator (``x + y``) ends here:

1. check that all inputs live on one context (only ``_copyto`` crosses
   devices);
2. run ``op.forward(xp, *raw_arrays)`` with ``xp`` the array module of
   that context (NumPy or CuPy);
3. wrap the raw results in NDArrays;
4. when ``autograd.record()`` is on and an input needs a gradient, add a
   node to the tape.
"""

from .. import autograd
from ..base import DLBookError
from ..context import current_context
from .ndarray import NDArray, from_raw

__all__ = ['invoke', 'describe_inputs']

_state = autograd._state
_Node = autograd.Node


def describe_inputs(inputs):
    """``'(2, 3) float32 @cpu(0), (4,) float32 @cpu(0)'`` for messages."""
    return ', '.join(f'{x.shape} {x.dtype} @{x._ctx}' for x in inputs)


def _check_inputs(op, inputs):
    ctx = inputs[0]._ctx
    for x in inputs:
        if not isinstance(x, NDArray):
            raise DLBookError(f'{op.name}: expected NDArray inputs, got '
                              f'{type(x).__name__}')
        if x._ctx is not ctx and x._ctx != ctx:
            raise DLBookError(
                f'{op.name}: inputs are on different contexts '
                f'({describe_inputs(inputs)}); move them to one context '
                f'first with x.as_in_context(ctx)')
    if op.same_dtype:
        dtype = inputs[0]._data.dtype
        for x in inputs:
            if x._data.dtype != dtype:
                raise DLBookError(
                    f'{op.name}: inputs must have the same dtype, got '
                    f'{describe_inputs(inputs)}; convert one with '
                    f'.astype(...)')
    return ctx


def invoke(op, inputs, out=None, ctx=None):
    """Run ``op`` eagerly on the NDArrays ``inputs``.

    Parameters
    ----------
    op : dlbook.ops.Op
        A fresh operator instance (its attributes already set).
    inputs : sequence of NDArray
        Arrays in the operator's input order.
    out : NDArray or list of NDArray, optional
        Write the result(s) into these arrays instead of new ones.
    ctx : Context, optional
        Device for operators without inputs (``zeros``, random sampling).

    Returns
    -------
    NDArray or list of NDArray
    """
    if inputs:
        ctx = _check_inputs(op, inputs)
    elif ctx is None:
        ctx = current_context()
    op.is_train = _state.training
    if op.needs_rng:
        op.rng = ctx.backend.rng(ctx.device_id)
    try:
        with ctx.scope:
            result = op.forward(ctx.xp, *[x._data for x in inputs])
    except (ValueError, TypeError, IndexError) as err:
        raise DLBookError(f'{op.name}: {err} (inputs: '
                          f'{describe_inputs(inputs) or "none"})') from err

    out_ctx = op.out_context(ctx)
    multi = isinstance(result, (tuple, list))
    raws = result if multi else (result,)
    outputs = [from_raw(r, out_ctx) for r in raws]

    if (_state.recording and op.differentiable and
            any(x._node is not None or x._grad_req is not None
                for x in inputs)):
        meta = [(r.shape, r.dtype) for r in raws] if multi else None
        node = _Node(op, tuple(inputs), ctx, meta)
        for i, o in enumerate(outputs):
            o._node = node
            o._out_index = i

    if out is not None:
        targets = out if isinstance(out, (tuple, list)) else [out]
        for target, o in zip(targets, outputs):
            target._assign(o)
        return out
    return outputs if multi else outputs[0]
