"""``mx.nd``: imperative arrays and every registered operator.

The functions here are generated from the operator registry
(``dlbook.ops.REGISTRY``); a few hand-written helpers give MXNet's
Python-level conveniences (``nd.array``, ``nd.maximum(x, 0)``,
``nd.random.normal``, ``nd.save``).
"""

from ..ops import REGISTRY
from .invoke import invoke
from .ndarray import NDArray, from_raw
from .register import function_for


def op_class(name):
    """The operator class registered as ``name``."""
    return REGISTRY[name]


def _generate():
    made = {}
    for name, cls in REGISTRY.items():
        if name.isidentifier():
            made[name] = function_for(name)
    return made


globals().update(_generate())

# nd's Python-level functions, over the generated ones of the same name
from . import contrib, image, linalg, random
from .arithmetic import *  # noqa: F403
from .creation import (
    arange,
    array,
    empty,
    eye,
    full,
    linspace,
    ones,
    ones_like,
    zeros_like,
)
from .creation import zeros as _dense_zeros
from .legacy import (
    choose_element_0index,
    fill_element_0index,
    from_numpy,
    onehot_encode,
    split_v2,
)
from .methods import attach_methods as _attach_methods
from .serialization import load, load_frombuffer, save
from .updates import *  # noqa: F403  (sgd_update, adam_update, ...)
from .updates_lamb import *  # noqa: F403  (lamb_update_phase1, ...)
from .updates_multi import *  # noqa: F403  (preloaded_multi_sgd_update, ...)
from .updates_norms import *  # noqa: F403  (multi_sum_sq, all_finite, ...)

_attach_methods(NDArray, globals())

# Sparse storage (nd.sparse); nd.dot and nd.cast_storage accept sparse
# operands as in MXNet.
_dense_dot = globals()['dot']
from . import sparse  # noqa: E402
from .sparse import CSRNDArray, RowSparseNDArray, cast_storage  # noqa: E402,F401
from .sparse_ndarray import BaseSparseNDArray as _Sparse  # noqa: E402


def dot(
    lhs,
    rhs,
    transpose_a=False,
    transpose_b=False,
    forward_stype=None,
    out=None,
    **kwargs,
):
    """Matrix product; sparse operands use ``nd.sparse.dot``'s rules."""
    if isinstance(lhs, _Sparse) or isinstance(rhs, _Sparse):
        return sparse.dot(lhs, rhs, transpose_a, transpose_b, forward_stype)
    # only the transposes asked for: an operator made with its default
    # attributes shares them instead of merging a dict (a third of a small
    # product's time)
    if transpose_a:
        kwargs['transpose_a'] = transpose_a
    if transpose_b:
        kwargs['transpose_b'] = transpose_b
    return _dense_dot(lhs, rhs, out=out, **kwargs)


dot.__doc__ = _dense_dot.__doc__


def zeros(shape, ctx=None, dtype=None, stype=None, out=None, **kwargs):
    """An array of zeros; ``stype='csr'`` or ``'row_sparse'`` makes a
    sparse one.  Extra keywords (``name=``, ``__layout__=``) are accepted
    and ignored, as in MXNet."""
    if stype not in (None, 'default'):
        return sparse.zeros(stype, shape, ctx=ctx, dtype=dtype)
    return _dense_zeros(shape, ctx=ctx, dtype=dtype, out=out, **kwargs)


def waitall():
    """Wait until all pending device work has finished (CuPy); a no-op on
    NumPy, which computes synchronously."""
    from .. import backend

    if backend.gpu_count():
        backend.get_backend('gpu').synchronize()


def concatenate(arrays, axis=0, always_copy=True):
    """Join a list of arrays along ``axis`` (legacy helper)."""
    return globals()['concat'](*arrays, dim=axis)


def moveaxis(tensor, source, destination):
    """Move axis ``source`` to position ``destination`` (ints or
    sequences of ints, as ``numpy.moveaxis``)."""
    axes = _moveaxis_order(tensor.ndim, source, destination)
    return globals()['transpose'](tensor, axes=axes)


def _moveaxis_order(ndim, source, destination):
    """The ``transpose`` axes that move ``source`` to ``destination``."""

    def normalize(axes):
        axes = [axes] if isinstance(axes, int) else list(axes)
        for a in axes:
            if not -ndim <= a < ndim:
                raise ValueError(
                    f'moveaxis: axis {a} is out of bounds for '
                    f'an array of {ndim} dimensions'
                )
        return [a % ndim for a in axes]

    source, destination = normalize(source), normalize(destination)
    if len(source) != len(destination):
        raise ValueError(
            '`source` and `destination` arguments must have '
            'the same number of elements'
        )
    order = [n for n in range(ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return tuple(order)
