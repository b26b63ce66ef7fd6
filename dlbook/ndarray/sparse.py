"""``mx.nd.sparse``: creating and computing with sparse NDArrays.

Storage types, as in MXNet 1.x:

* ``'csr'``  -- :class:`CSRNDArray`, a 2-D matrix stored as its non-zero
  values (``data``), their columns (``indices``) and row starts
  (``indptr``).  Text features and one-hot inputs look like this.
* ``'row_sparse'`` -- :class:`RowSparseNDArray`, only some rows stored
  (``data``) with their row numbers (``indices``).  Embedding gradients
  look like this, so an optimizer can update only the rows a batch used.

The CSR storage is ``scipy.sparse`` on the CPU and ``cupyx.scipy.sparse``
on a GPU (chosen by the array's Context, like NumPy and CuPy for dense
arrays); SciPy is imported only when sparse storage is first used.

>>> a = mx.nd.array([[0, 1, 0], [2, 0, 0]]).tostype('csr')
>>> a
<BLANKLINE>
<CSRNDArray 2x3 @cpu(0)>
>>> a.indices, a.indptr                      # doctest: +SKIP
>>> mx.nd.sparse.dot(a, mx.nd.ones((3, 2)))  # dense result
"""

import numbers

import numpy

from ..base import DLBookError, dtype_name
from ..ops import sparse as ops
from .ndarray import NDArray
from .register import function_for
from .sparse_ndarray import (  # noqa: F401
    BaseSparseNDArray,
    CSRNDArray,
    RowSparseNDArray,
    _ctx,
    cast_storage,
    elemwise_add,
    invoke_sparse,
    raw_of,
    retain,
    wrap_raw,
    zeros,
)

__all__ = [
    'BaseSparseNDArray',
    'CSRNDArray',
    'RowSparseNDArray',
    'csr_matrix',
    'row_sparse_array',
    'zeros',
    'empty',
    'array',
    'cast_storage',
    'retain',
    'dot',
    'add',
    'elemwise_add',
    'slice',
    'invoke_sparse',
]


# --------------------------------------------------------------- creation


def _default_dtype(src, dtype):
    """MXNet's rule: the source's dtype for NDArray/NumPy/SciPy sources,
    float32 for Python lists."""
    if dtype is not None:
        return dtype_name(dtype)
    if isinstance(src, (NDArray, numpy.ndarray)) or _is_scipy(src):
        return numpy.dtype(src.dtype).name
    return 'float32'


def _is_scipy(x):
    return (
        hasattr(x, 'tocsr')
        and hasattr(x, 'nnz')
        and not isinstance(x, NDArray)
    )


def _host(x, dtype=None):
    if isinstance(x, NDArray):
        x = x.asnumpy()
    return numpy.asarray(x, dtype=dtype)


def _device_csr(ctx, data, indices, indptr, shape):
    backend = ctx.backend
    with backend.scope(ctx.device_id):
        move = lambda a: backend.asarray(a, ctx.device_id)
        return backend.sparse.csr_matrix(
            (move(data), move(indices), move(indptr)), shape=shape
        )


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    """Create a :class:`CSRNDArray`.

    Parameters
    ----------
    arg1 : tuple, NDArray, numpy.ndarray or scipy.sparse matrix
        * ``(data, indices, indptr)``: row ``i`` holds ``data[k]`` at column
          ``indices[k]`` for ``k`` in ``indptr[i]:indptr[i+1]``;
        * ``(M, N)``: an empty ``M x N`` matrix;
        * a dense 2-D array, a SciPy sparse matrix or a CSRNDArray: its
          values.
    shape : tuple of int, optional
        ``(rows, columns)``; inferred from ``indptr``/``indices`` if omitted.
    ctx : Context, optional
    dtype : str, optional
        Defaults to the source's dtype, or float32 for Python lists.

    Examples
    --------
    >>> x = mx.nd.sparse.csr_matrix(([1, 2, 3], [1, 0, 2], [0, 1, 2, 3]),
    ...                             shape=(3, 4))
    >>> x.asnumpy()
    array([[0., 1., 0., 0.],
           [2., 0., 0., 0.],
           [0., 0., 3., 0.]], dtype=float32)
    """
    ctx = _ctx(ctx)
    if isinstance(arg1, tuple) and len(arg1) == 3:
        data, indices, indptr = arg1
        dtype = _default_dtype(data, dtype)
        data = _host(data, dtype).reshape(-1)
        indices = _host(indices, 'int64').reshape(-1)
        indptr = _host(indptr, 'int64').reshape(-1)
        if shape is None:
            cols = int(indices.max()) + 1 if len(indices) else 0
            shape = (len(indptr) - 1, cols)
        return wrap_raw(
            _device_csr(ctx, data, indices, indptr, tuple(shape)), ctx
        )
    if (
        isinstance(arg1, tuple)
        and len(arg1) == 2
        and all(isinstance(n, numbers.Integral) for n in arg1)
    ):
        return zeros('csr', arg1, ctx=ctx, dtype=dtype)
    if _is_scipy(arg1):
        m = arg1.tocsr()
        m.sort_indices()
        dtype = _default_dtype(m, dtype)
        return wrap_raw(
            _device_csr(
                ctx, m.data.astype(dtype), m.indices, m.indptr, m.shape
            ),
            ctx,
        )
    if isinstance(arg1, CSRNDArray):
        return arg1.as_in_context(ctx).astype(_default_dtype(arg1, dtype))
    if isinstance(arg1, (NDArray, numpy.ndarray, list)):
        from .creation import array as dense_array

        dense = dense_array(arg1, ctx=ctx, dtype=_default_dtype(arg1, dtype))
        if dense.ndim != 2:
            raise DLBookError(
                f'csr_matrix: expected a 2-D array, got shape {dense.shape}'
            )
        return cast_storage(dense, 'csr')
    raise DLBookError(
        f'csr_matrix: unexpected argument of type '
        f'{type(arg1).__name__}; pass (data, indices, indptr),'
        f' a shape (M, N), a dense array or a SciPy matrix'
    )


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    """Create a :class:`RowSparseNDArray`.

    Parameters
    ----------
    arg1 : tuple or NDArray
        * ``(data, indices)``: row ``indices[k]`` holds ``data[k]``;
        * ``(D0, D1, ...)``: an all-zero array of that shape;
        * a dense array or a RowSparseNDArray: its values.
    shape : tuple of int, optional
        Inferred as ``(max(indices) + 1,) + data.shape[1:]`` if omitted.

    Examples
    --------
    >>> x = mx.nd.sparse.row_sparse_array(([[1, 2], [3, 4]], [1, 3]),
    ...                                   shape=(4, 2))
    >>> x.asnumpy()
    array([[0., 0.],
           [1., 2.],
           [0., 0.],
           [3., 4.]], dtype=float32)
    """
    ctx = _ctx(ctx)
    if (
        isinstance(arg1, tuple)
        and len(arg1) == 2
        and not all(isinstance(n, numbers.Integral) for n in arg1)
    ):
        data, indices = arg1
        dtype = _default_dtype(data, dtype)
        data = _host(data, dtype)
        indices = _host(indices, 'int64').reshape(-1)
        if data.ndim == 1 and len(indices) and data.shape[0] != len(indices):
            data = data.reshape(len(indices), -1)
        if shape is None:
            rows = int(indices.max()) + 1 if len(indices) else 0
            shape = (rows,) + data.shape[1:]
        backend = ctx.backend
        with backend.scope(ctx.device_id):
            raw = ops.RowSparse(
                backend.xp,
                backend.asarray(data, ctx.device_id),
                backend.asarray(indices, ctx.device_id),
                tuple(shape),
            )
        return wrap_raw(raw, ctx)
    if isinstance(arg1, tuple) and all(
        isinstance(n, numbers.Integral) for n in arg1
    ):
        return zeros('row_sparse', arg1, ctx=ctx, dtype=dtype)
    if isinstance(arg1, RowSparseNDArray):
        return arg1.as_in_context(ctx).astype(_default_dtype(arg1, dtype))
    if isinstance(arg1, (NDArray, numpy.ndarray, list)):
        from .creation import array as dense_array

        dense = dense_array(arg1, ctx=ctx, dtype=_default_dtype(arg1, dtype))
        return cast_storage(dense, 'row_sparse')
    raise DLBookError(
        f'row_sparse_array: unexpected argument of type '
        f'{type(arg1).__name__}; pass (data, indices), a '
        f'shape or a dense array'
    )


def empty(stype, shape, ctx=None, dtype=None):
    """A sparse array with no stored values (all zeros)."""
    return zeros(stype, shape, ctx=ctx, dtype=dtype)


def array(source_array, ctx=None, dtype=None):
    """A sparse NDArray copied from a sparse NDArray or a SciPy sparse
    matrix (which becomes CSR)."""
    if isinstance(source_array, BaseSparseNDArray):
        ctx = _ctx(ctx)
        return (
            source_array.as_in_context(ctx).astype(
                _default_dtype(source_array, dtype), copy=True
            )
            if source_array._ctx != ctx
            else source_array.astype(_default_dtype(source_array, dtype))
        )
    if _is_scipy(source_array):
        return csr_matrix(source_array, ctx=ctx, dtype=dtype)
    raise DLBookError(
        f'nd.sparse.array: unexpected source of type '
        f'{type(source_array).__name__}; use nd.array for '
        f'dense data'
    )


# --------------------------------------------------------------- operators


def dot(lhs, rhs, transpose_a=False, transpose_b=False, forward_stype=None):
    """Matrix product with sparse operands.

    Result storage as MXNet on the CPU: ``dot(csr, dense)`` is dense,
    ``dot(csr, dense, transpose_a=True)`` is row_sparse, ``dot(dense,
    csr)`` is csr (``forward_stype='default'`` asks for dense).  Two dense
    operands run the dense ``nd.dot``.  Under ``autograd.record()``, the
    gradient of a dense ``rhs`` in ``dot(csr, rhs)`` is row_sparse.
    """
    if lhs.stype == 'default' and rhs.stype == 'default':
        return function_for('dot')(
            lhs, rhs, transpose_a=transpose_a, transpose_b=transpose_b
        )
    return invoke_sparse(
        ops.SparseDot(
            transpose_a=transpose_a,
            transpose_b=transpose_b,
            forward_stype=forward_stype,
        ),
        [lhs, rhs],
    )


add = elemwise_add


def slice(data, begin, end, step=None):  # noqa: A001 (MXNet's name)
    """Rows ``begin[0]:end[0]`` (and columns ``begin[1]:end[1]``) of a
    CSRNDArray, as a CSRNDArray."""
    if data.stype != 'csr':
        return function_for('slice')(
            data, begin=begin, end=end, step=step or ()
        )
    return invoke_sparse(
        ops.SparseSlice(begin=tuple(begin), end=tuple(end)), [data]
    )


# MXNet's other nd.sparse operators (``sparse_names.py`` has their
# storage rules) and the update operators, which take row_sparse
# gradients (lazy updates) as nd's do
from .sparse_names import NAMES as _NAMES  # noqa: E402
from .updates import (  # noqa: E402,F401
    adam_update,
    ftrl_update,
    sgd_mom_update,
    sgd_update,
)

globals().update(_NAMES)
__all__ += sorted(_NAMES) + [
    'adam_update',
    'ftrl_update',
    'sgd_mom_update',
    'sgd_update',
]
