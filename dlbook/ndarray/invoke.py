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

from .. import _profile_state as _profile
from .. import _tape, _write_clock
from ..base import DLBookError
from ..context import HOST_TYPES, current_context
from .ndarray import NDArray
from .pending import settle_inputs

__all__ = ['invoke', 'invoke_plain', 'describe_inputs', 'DENSE_CLASSES']

#: While a HybridBlock is traced by running it (``dlbook.gluon.deferred``),
#: an object whose ``record(op, inputs, outputs, out)`` sees every call.
TRACER = None

#: Dense array classes that take the front end's fast path when every input
#: has the same one: NDArray, and ``mx.np.ndarray`` once ``dlbook.numpy``
#: is imported (it adds itself).  Results get that class.
DENSE_CLASSES = {NDArray}

_state = _tape._state
_Node = _tape.Node
_note_readers = _tape.note_readers
_new = object.__new__
#: Result types of multi-output operators (a ``type(...) in`` test is
#: quicker than ``isinstance`` against a tuple of classes).
_SEQUENCES = frozenset((tuple, list))


def describe_inputs(inputs):
    """``'(2, 3) float32 @cpu(0), (4,) float32 @cpu(0)'`` for messages."""
    return ', '.join(f'{x.shape} {x.dtype} @{x._ctx}' for x in inputs)


def _check_inputs(op, inputs):
    for x in inputs:
        if not isinstance(x, NDArray):
            inputs = settle_inputs(op, inputs)
            break
    ctx = inputs[0]._ctx
    for x in inputs:
        if (
            x._ctx is not ctx
            and x._ctx != ctx
            and not _same_host_memory(x._ctx, ctx)
        ):
            raise DLBookError(
                f'{op.name}: inputs are on different contexts '
                f'({describe_inputs(inputs)}); move them to one context '
                f'first with x.as_in_context(ctx)'
            )
    if op.same_dtype:
        _check_same_dtype(op, inputs)
    return ctx, inputs


def _careful_inputs(op, inputs, out_cls):
    """``(ctx, inputs, out_cls)`` for inputs of mixed classes or contexts
    (the slow path of :func:`invoke`)."""
    ctx, inputs = _check_inputs(op, inputs)
    return ctx, inputs, out_cls or _output_class(inputs)


def _same_host_memory(a, b):
    """``cpu(i)``, ``cpu_pinned(i)`` and ``cpu_shared(i)`` are one device
    seen through different allocators: MXNet lets them meet in one
    operator (the result takes the first input's context), so batches
    from ``DataLoader(pin_memory=True)`` feed a network on ``cpu(i)``."""
    return (
        a.device_type in HOST_TYPES
        and b.device_type in HOST_TYPES
        and a.device_id == b.device_id
    )


def _check_same_dtype(op, inputs):
    dtype = inputs[0]._data.dtype
    for x in inputs:
        if x._data.dtype != dtype:
            raise DLBookError(
                f'{op.name}: inputs must have the same dtype, got '
                f'{describe_inputs(inputs)}; convert one with .astype(...)'
            )


def _output_class(inputs):
    """NDArray, or the NDArray subclass of an input (``mx.np.ndarray``):
    an operation with a NumPy-mode operand gives NumPy-mode results."""
    for x in inputs:
        if (
            type(x) is not NDArray
            and isinstance(x, NDArray)
            and x.stype == 'default'
        ):  # sparse inputs give dense results
            return type(x)
    return NDArray


def invoke_plain(f, first, second, cls=NDArray):
    """``f(xp, a, b)`` on an array of class ``cls`` and a second array of
    that class or a Python number, as a new array, without what
    :func:`invoke` does around an operator; None where that matters.

    For the Python operators (``a + b``, ``a * 2``, ``a > b``) of
    NDArrays (``cls`` NDArray) and of NumPy-mode arrays
    (``mx.np.ndarray``) outside ``autograd.record()``: no tape node, so
    nothing for backward to keep; ``f`` is the operator's ``plain()``.
    None (use :func:`invoke`) while recording, while a hybridized block is
    traced or the profiler runs, for other classes (sparse, a mix),
    different contexts or dtypes, a device to switch to, or when ``f``
    raises NumPy's ``ValueError`` or ``TypeError`` (shapes that do not
    broadcast, say: ``invoke`` raises MXNet's error).  Half the time of
    :func:`invoke` for small arrays (16x16 ``a + b``: 0.8 against 1.7 us).
    """
    if (
        _state.recording
        or TRACER is not None
        or _profile.ON
        or type(first) is not cls
    ):
        return None
    ctx = first._ctx
    if ctx._switch is not None:
        return None
    a = first._data
    if type(second) is cls:
        if second._ctx is not ctx:
            return None
        b = second._data
        if a.dtype != b.dtype:
            return None
    elif type(second) is float or type(second) is int:
        b = second
    else:
        return None
    try:
        result = f(ctx._xp or ctx.xp, a, b)
    except (ValueError, TypeError, IndexError):
        return None  # invoke raises it again, with the inputs described
    out = _new(cls)
    out._data = result
    out._ctx = ctx
    return out


def invoke(op, inputs, out=None, ctx=None, out_cls=None):
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
    out_cls : type, optional
        Class of the results (``mx.np.ndarray`` for NumPy-mode calls);
        by default NDArray, or the NDArray subclass of an input.

    Returns
    -------
    NDArray or list of NDArray
    """
    # This function runs for every operation, so the common case (plain
    # NDArrays of one class on one device, nothing recorded) is checked
    # first, cheaply, with few attribute reads and no temporary lists;
    # anything else takes the careful path in _check_inputs.
    n_in = len(inputs)
    if n_in == 2:
        first, second = inputs
        cls = type(first)
        if (
            type(second) is cls
            and cls in DENSE_CLASSES
            and second._ctx is first._ctx
        ):
            ctx = first._ctx
            if out_cls is None:
                out_cls = cls
            if op.same_dtype:
                # NumPy's dtypes of one kind are one object: ``is`` first
                # (comparing dtypes takes three times as long)
                dtype = first._data.dtype
                if dtype is not second._data.dtype and (
                    dtype != second._data.dtype
                ):
                    _check_same_dtype(op, inputs)
        else:
            ctx, inputs, out_cls = _careful_inputs(op, inputs, out_cls)
            first, second = inputs
    elif n_in == 1:
        first = inputs[0]
        cls = type(first)
        if cls in DENSE_CLASSES:
            ctx = first._ctx
            if out_cls is None:
                out_cls = cls
        else:
            ctx, inputs, out_cls = _careful_inputs(op, inputs, out_cls)
            first = inputs[0]
    elif n_in:
        first = inputs[0]
        cls = type(first)
        ctx = first._ctx if cls in DENSE_CLASSES else None
        for x in inputs:
            if type(x) is not cls or x._ctx is not ctx:
                ctx, inputs, out_cls = _careful_inputs(op, inputs, out_cls)
                first = inputs[0]
                break
        else:
            if out_cls is None:
                out_cls = cls
            if op.same_dtype:
                _check_same_dtype(op, inputs)
    else:
        if ctx is None:
            ctx = current_context()
        if out_cls is None:
            out_cls = NDArray
    state = _state
    if op.reads_train_mode:
        op.is_train = state.training
    if op.needs_rng:
        op.rng = ctx.backend.rng(ctx.device_id)
    xp = ctx._xp or ctx.xp
    try:
        if _profile.ON:  # mx.profiler running
            result = _profile.run(
                op.name,
                'imperative',
                ctx,
                op.forward,
                xp,
                [x._data for x in inputs],
                ctx._switch,
            )
        elif ctx._switch is None:  # no device switch needed (CPU)
            if n_in == 2:
                result = op.forward(xp, first._data, second._data)
            elif n_in == 1:
                result = op.forward(xp, first._data)
            else:
                result = op.forward(xp, *[x._data for x in inputs])
        else:
            with ctx._switch:
                result = op.forward(xp, *[x._data for x in inputs])
    except DLBookError:
        raise  # already says what is wrong (and its class)
    except (ValueError, TypeError, IndexError) as err:
        raise DLBookError(
            f'{op.name}: {err} (inputs: {describe_inputs(inputs) or "none"})'
        ) from err

    out_ctx = ctx if op.out_context is None else op.out_context(ctx)
    if type(result) in _SEQUENCES:
        # each output made as out_cls from the start (a class switched
        # afterwards would lose CPython's fast attribute layout)
        outputs = []
        for r in result:
            o = _new(out_cls)
            o._data = r
            o._ctx = out_ctx
            outputs.append(o)
        meta = [(r.shape, r.dtype) for r in result]
        single = None
    else:
        single = _new(out_cls)
        single._data = result
        single._ctx = out_ctx
        meta = None

    # every operator is recorded, as in MXNet: one without a gradient (a
    # comparison, argmax) gives its inputs zeros (_tape._propagate)
    if state.recording:
        for x in inputs:
            if x._node is not None or x._grad_req is not None:
                if type(inputs) is not tuple:
                    inputs = tuple(inputs)
                node = _Node(op, inputs, ctx, meta, _write_clock.NOW[0])
                if single is not None:  # _out_index: 0 by default
                    single._node = node
                else:
                    for i, o in enumerate(outputs):
                        o._node = node
                        o._out_index = i
                _note_readers(node, inputs)
                break

    if TRACER is not None or out is not None:
        if single is not None:
            outputs = (single,)
        if TRACER is not None:
            TRACER.record(op, inputs, outputs, out)
        if out is not None:
            targets = out if isinstance(out, (tuple, list)) else [out]
            for target, o in zip(targets, outputs):
                target._assign(o)
            return out
    return outputs if single is None else single
