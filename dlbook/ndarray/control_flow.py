"""``nd.contrib.foreach``, ``while_loop`` and ``cond``: control flow on
NDArrays, run eagerly.

As in MXNet these are plain Python loops and branches around the
functions you give; under ``autograd.record()`` the tape records the
operators those functions run, so gradients flow through every iteration
(and through the branch taken).  The symbolic forms, which build one
subgraph operator, are in ``dlbook/symbol/control_flow.py``.
"""

from ..ops import REGISTRY
from .creation import zeros
from .ndarray import NDArray
from .register import make_function

# the operators ``nd.stack`` and ``nd.concat`` (made here: importing them
# from the ``ndarray`` package would tie it into an import circle)
stack = make_function(REGISTRY['stack'], 'stack')
concat = make_function(REGISTRY['concat'], 'concat')

__all__ = ['foreach', 'while_loop', 'cond']


def flatten(args, inout_str, leaf=NDArray):
    """Nested lists of ``leaf`` objects (NDArrays; Symbols for
    ``sym.contrib``) -> (flat list, format), as MXNet's ``_flatten``
    (0 stands for one object, a list for a list)."""
    if isinstance(args, leaf):
        return [args], 0
    if not isinstance(args, (list, tuple)):
        raise AssertionError(
            f'{inout_str} must be (nested) list of {leaf.__name__}, but got '
            f'{args} of type {type(args)}'
        )
    flat, fmts = [], []
    for item in args:
        arg, fmt = flatten(item, inout_str, leaf)
        flat.extend(arg)
        fmts.append(fmt)
    return flat, fmts


def regroup(args, fmt):
    """Inverse of :func:`flatten`: (structure, rest of ``args``)."""
    if isinstance(fmt, int):
        if fmt == 0:
            return args[0], args[1:]
        return args[:fmt], args[fmt:]
    ret = []
    for sub in fmt:
        res, args = regroup(args, sub)
        ret.append(res)
    return ret, args


def _to_python_scalar(value, type_, name):
    if hasattr(value, 'asscalar'):
        value = value.asscalar()
    try:
        return type_(value)
    except Exception:
        raise ValueError(
            f'Cannot convert {name} to python {type_.__name__}'
        ) from None


def _as_list(obj):
    return obj if isinstance(obj, (list, tuple)) else [obj]


def foreach(body, data, init_states):
    """Run ``body`` on each slice of ``data`` along axis 0.

    Equivalent to::

        states = init_states
        outs = []
        for i in range(data.shape[0]):
            out, states = body(data[i], states)
            outs.append(out)
        outs = stack(*outs)

    Parameters
    ----------
    body : callable
        ``body(x, states) -> (out, new_states)``.  ``x`` is ``data[i]``, or
        the list ``[d[i] for d in data]`` when ``data`` is a list; ``out``
        an NDArray or a nested list of NDArrays.
    data : NDArray or list of NDArray
    init_states : NDArray or nested list of NDArray

    Returns
    -------
    (outputs, states)
        Each output stacked over the iterations on a new axis 0
        (structured as ``body`` returns it), and the last states (as
        ``body`` returned them).

    Examples
    --------
    >>> step = lambda x, s: (x + s[0], [s[0] * 2])
    >>> outs, states = mx.nd.contrib.foreach(
    ...     step, mx.nd.ones((3, 2)), [mx.nd.ones((2,))])
    >>> outs.asnumpy()
    array([[2., 2.],
           [3., 3.],
           [5., 5.]], dtype=float32)
    >>> states[0].asnumpy()
    array([8., 8.], dtype=float32)
    """
    flat, _ = flatten(data, 'foreach input')
    _check(flat, 'data should be an NDArray or a nested list of NDArrays')
    flat, _ = flatten(init_states, 'foreach states')
    _check(
        flat, 'init_states should be an NDArray or a nested list of NDArrays'
    )
    single = isinstance(data, NDArray)
    num_iters = data.shape[0] if single else data[0].shape[0]
    states = init_states
    outputs = []
    out_fmt = None
    for i in range(num_iters):
        elements = data[i] if single else [d[i] for d in data]
        outs, states = body(elements, states)
        outs, out_fmt = flatten(outs, 'foreach output')
        outputs.append(outs)
    if out_fmt is None:
        raise ValueError('foreach: data has length 0 on axis 0')
    stacked = [stack(*column) for column in zip(*outputs)]
    return regroup(stacked, out_fmt)[0], states


def _check(flat, msg):
    for item in flat:
        if not isinstance(item, NDArray):
            raise AssertionError(msg)


def while_loop(cond, func, loop_vars, max_iterations=None):
    """Run ``func`` while ``cond`` holds, at most ``max_iterations`` times.

    Parameters
    ----------
    cond : callable
        ``cond(*loop_vars)`` returns a one-element NDArray (or a number);
        the loop stops when it is zero.
    func : callable
        ``func(*loop_vars) -> (step_output, new_loop_vars)``; either may
        be None, and ``new_loop_vars`` must have as many items as
        ``loop_vars``.
    loop_vars : NDArray or list of NDArray
    max_iterations : int
        Required.

    Returns
    -------
    (outputs, states)
        ``outputs``: each step output stacked on axis 0 and padded to
        ``max_iterations`` rows (the padding is undefined in MXNet, zeros
        here), structured as ``func`` returned it; ``[]`` when the loop
        never ran.  ``states``: the final loop variables, one NDArray when
        ``loop_vars`` was one NDArray.

    Examples
    --------
    >>> cond = lambda i, s: i <= 5
    >>> func = lambda i, s: ([i + s], [i + 1, s + i])
    >>> loop_vars = (mx.nd.array([0]), mx.nd.array([1]))
    >>> outs, states = mx.nd.contrib.while_loop(
    ...     cond, func, loop_vars, max_iterations=10)
    >>> outs[0][:6].asnumpy().ravel()
    array([ 1.,  2.,  4.,  7., 11., 16.], dtype=float32)
    >>> [s.asscalar() for s in states]
    [6.0, 16.0]
    """
    if max_iterations is None:
        raise ValueError('max_iterations should be specified')
    max_iterations = _to_python_scalar(max_iterations, int, 'max_iteration')
    if len(loop_vars) == 0:
        raise ValueError('loop_vars should contain at least one element')
    steps = 0
    outputs = []
    out_fmt = None
    single = isinstance(loop_vars, NDArray)
    loop_vars = _as_list(loop_vars)
    while steps < max_iterations and _to_python_scalar(
        cond(*loop_vars), bool, 'Return value of cond'
    ):
        step_output, new_vars = func(*loop_vars)
        step_output = [] if step_output is None else step_output
        new_vars = [] if new_vars is None else new_vars
        if isinstance(step_output, tuple):
            step_output = list(step_output)
        new_vars = _as_list(
            list(new_vars) if isinstance(new_vars, tuple) else new_vars
        )
        if len(loop_vars) != len(new_vars):
            raise ValueError(
                'The length of loop_vars should be consistent during the loop'
            )
        loop_vars = new_vars
        step_output, out_fmt = flatten(step_output, 'while output')
        outputs.append(step_output)
        steps += 1
        if len(step_output) != len(outputs[0]):
            raise ValueError(
                'Number of elements in step_output should be the same in '
                'each step'
            )
    stacked = []
    for i_th, items in enumerate(zip(*outputs), 1):
        items = [x.expand_dims(0) for x in items]
        if steps != max_iterations and items:
            pad_shape = [max_iterations - steps] + list(items[0].shape[1:])
            items.append(
                zeros(pad_shape, ctx=items[0].context, dtype=items[0].dtype)
            )
        try:
            stacked.append(concat(*items, dim=0))
        except Exception as err:
            raise ValueError(
                '\n'.join(
                    [
                        f'Shapes of {i_th}-th elements in step_outputs are '
                        'inconsistent, which are:'
                    ]
                    + [
                        f'  Step {i}, shape is {x.shape}'
                        for i, x in enumerate(items)
                    ]
                )
            ) from err
    if out_fmt is not None:
        stacked = regroup(stacked, out_fmt)[0]
    if single:
        loop_vars = loop_vars[0]
    return stacked, loop_vars


def cond(pred, then_func, else_func):
    """Run ``then_func()`` if ``pred`` is nonzero, else ``else_func()``.

    Parameters
    ----------
    pred : NDArray
        One element (MXNet raises when it has more).
    then_func, else_func : callable
        Take no arguments; read what they need from their closure.

    Returns
    -------
    Whatever the branch taken returns.

    Examples
    --------
    >>> a, b = mx.nd.array([1]), mx.nd.array([2])
    >>> mx.nd.contrib.cond(a * b < 5, lambda: (a + 5) * (b + 5),
    ...                    lambda: (a - 5) * (b - 5)).asnumpy()
    array([42.], dtype=float32)
    """
    if _to_python_scalar(pred, bool, 'pred'):
        return then_func()
    return else_func()
