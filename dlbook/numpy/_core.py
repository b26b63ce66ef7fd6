"""The plumbing of ``mx.np``: run a registered operator, give NumPy-mode
results.

``mx.np`` has no formulas of its own.  Each function calls an operator of
``dlbook.ops`` through the eager front end (``ndarray.invoke``), exactly
as ``nd`` does, and then applies NumPy mode's conventions:

* the result is an ``mx.np.ndarray`` (the same data, never a copy);
* a result NumPy would give as 0-d gets shape ``()`` (legacy operators
  give ``(1,)``), through the ``_np_reshape`` operator so the tape sees it;
* dtypes follow MXNet's NumPy-mode promotion (:func:`result_dtype`).
"""

import numbers

import numpy

from ..base import DLBookError, dtype_name
from ..context import current_context
from ..ndarray.invoke import invoke
from ..ndarray.ndarray import NDArray
from ..ops import REGISTRY

__all__ = [
    'ndarray_class',
    'to_np',
    'wrap',
    'call',
    'shaped',
    'result_dtype',
    'reduced_shape',
]

_CLASS = []
_new = object.__new__


def ndarray_class():
    """``mx.np.ndarray``: ``multiarray.py`` adds the class here when it is
    defined (it builds on this module, so this module cannot import it)."""
    return _CLASS[0]


def to_np(x):
    """Make a freshly computed NDArray (or a list of them) an
    ``mx.np.ndarray`` in place.  Only for results nobody else holds."""
    cls = ndarray_class()
    if isinstance(x, (list, tuple)):
        for item in x:
            to_np(item)
        return x
    if isinstance(x, NDArray) and type(x) is not cls:
        x.__class__ = cls
        # The instance's attributes are still laid out for NDArray, and
        # CPython's fast attribute lookup only works for the layout of the
        # object's own class: every later ``x._data`` would take the slow
        # path (twice the time, on every operation).  A fresh dictionary
        # takes the fast path again.
        x.__dict__ = dict(x.__dict__)
    return x


def wrap(raw, ctx):
    """A new ``mx.np.ndarray`` around the raw array ``raw`` on ``ctx`` (no
    copy): the np twin of ``ndarray.from_raw``."""
    x = _new(_CLASS[0])
    x._data = raw
    x._ctx = ctx
    return x


def call(name, *inputs, ctx=None, **attrs):
    """Run the registered operator ``name`` on ``inputs``; np results
    (created as ``mx.np.ndarray``, whatever the inputs' class)."""
    return invoke(
        REGISTRY[name](**attrs),
        inputs,
        ctx=ctx,
        out_cls=_CLASS[0],
    )


def run(op, *inputs):
    """Run the operator instance ``op`` on ``inputs``; np results (the
    fast form of :func:`call` for callers holding the op class)."""
    return invoke(op, inputs, out_cls=_CLASS[0])


def shaped(y, shape):
    """``y`` with NumPy's result shape (``()`` where legacy gives (1,))."""
    shape = tuple(shape)
    if y.shape == shape:
        return y
    return call('_np_reshape', y, newshape=shape)


def _kind_rank(dtype):
    return {'b': 0, 'u': 1, 'i': 1, 'f': 2}.get(dtype.kind, 2)


def result_dtype(a, b):
    """MXNet's NumPy-mode promotion of two array dtypes.

    bool < integers < floats; within a kind the wider type wins, and an
    integer meeting a float takes the float's type (``int32 + float32`` is
    float32, where NumPy gives float64).
    """
    a, b = numpy.dtype(a), numpy.dtype(b)
    if a == b:
        return a
    ra, rb = _kind_rank(a), _kind_rank(b)
    if ra != rb:
        return a if ra > rb else b
    return numpy.promote_types(a, b)


def reduced_shape(shape, axis, keepdims):
    """NumPy's result shape of a reduction of ``shape`` over ``axis``."""
    ndim = len(shape)
    if axis is None:
        axes = set(range(ndim))
    else:
        axes = {
            a % max(ndim, 1)
            for a in ((axis,) if isinstance(axis, int) else axis)
        }
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def cast(x, dtype):
    """``x`` as ``dtype`` (the same array when it already is)."""
    if x.dtype == dtype:  # dtype objects compare fast; names are slow
        return x
    return call('Cast', x, dtype=dtype_name(dtype))


def default_ctx(ctx):
    return ctx or current_context()


def check_number(value, what):
    if not isinstance(value, numbers.Number):
        raise DLBookError(
            f'{what} must be a number, got {type(value).__name__}'
        )
    return value
