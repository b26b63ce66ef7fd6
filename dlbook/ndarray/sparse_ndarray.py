"""CSRNDArray and RowSparseNDArray: NDArrays with sparse storage.

``x.stype`` names the storage: ``'csr'`` keeps a 2-D matrix as its
non-zero values ``data``, their column numbers ``indices`` and, per row,
where its values start, ``indptr``; ``'row_sparse'`` keeps only some rows
(``data``) and their row numbers (``indices``).  The raw storage is the
backend's CSR matrix (``scipy.sparse`` / ``cupyx.scipy.sparse``,
``x._sp``) or a :class:`dlbook.ops.sparse.RowSparse` (``x._rsp``).

An operator with no sparse rule sees the dense values: ``x._data``
expands the storage, as MXNet's "storage fallback" does, so
``nd.exp(csr)`` works and returns a dense NDArray.
"""

import numbers

from .. import _tape
from ..base import DLBookError, dtype_name
from ..context import Context, current_context
from ..ops import sparse as ops
from .creation import array
from .creation import zeros as dense_zeros
from .ndarray import NDArray, from_raw

__all__ = [
    'BaseSparseNDArray',
    'CSRNDArray',
    'RowSparseNDArray',
    'wrap_raw',
    'raw_of',
    'invoke_sparse',
    'zeros',
    'cast_storage',
    'retain',
    'elemwise_add',
]

_STYPES = ('default', 'csr', 'row_sparse')


class BaseSparseNDArray(NDArray):
    """Common behaviour of the sparse NDArrays (not created directly)."""

    def _store_grad(self, g, req):
        store_grad(self, g, req)  # in this array's storage

    _raw = None  # the raw sparse storage

    @property
    def _data(self):
        """The dense values (storage fallback for dense operators)."""
        with self._ctx.backend.scope(self._ctx.device_id):
            return ops.todense(self._ctx.xp, self._raw)

    @property
    def shape(self):
        return tuple(self._raw.shape)

    @property
    def dtype(self):
        return self._raw.dtype

    @property
    def size(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        shape = 'x'.join(str(n) for n in self.shape)
        name = _CLASS_NAMES[self.stype]
        return f'\n<{name} {shape} @{self._ctx}>'

    def __len__(self):
        return self.shape[0]

    def __iter__(self):
        raise DLBookError(
            f'{type(self).__name__} is not iterable; convert '
            f"it with .tostype('default') first"
        )

    def __setitem__(self, key, value):
        if key != slice(None) and key is not Ellipsis:
            raise DLBookError(
                f'{type(self).__name__} only supports x[:] = value'
            )
        if isinstance(value, (int, float)) and value == 0:  # zero_grad
            self._raw = zeros(
                self.stype, self.shape, ctx=self._ctx, dtype=self.dtype
            )._raw
            return
        self._assign(value)

    def _assign(self, other):
        """Replace the stored values with ``other``'s, in this storage."""
        if not isinstance(other, NDArray):
            other = array(other, ctx=self._ctx, dtype=self.dtype)
        if tuple(other.shape) != self.shape:
            raise DLBookError(
                f'cannot assign shape {other.shape} to a '
                f'{type(self).__name__} of shape {self.shape}'
            )
        other = other.as_in_context(self._ctx)
        self._raw = _cast(other, self.stype).astype(self.dtype)._raw
        return self

    def tostype(self, stype):
        """This array with storage ``stype`` ('default', 'csr' or
        'row_sparse'); itself when it already has that storage."""
        if stype == self.stype:
            return self
        return _cast(self, stype)

    def copy(self):
        return wrap_raw(_copy_raw(self._ctx, self._raw), self._ctx)

    def copyto(self, other):
        """Copy to a Context (a new array of the same storage) or into an
        existing NDArray (converted to that array's storage)."""
        if isinstance(other, Context):
            if other == self._ctx:
                return self.copy()
            backend = other.backend
            with backend.scope(other.device_id):
                raw = _move_raw(self._raw, other)
            return wrap_raw(raw, other)
        if isinstance(other, NDArray):
            if other is self:
                return other
            if tuple(other.shape) != self.shape:
                raise DLBookError(
                    f'copyto: shape mismatch, source '
                    f'{self.shape} vs target {other.shape}'
                )
            if other.stype == 'default':
                other[...] = self.tostype('default').as_in_context(other._ctx)
            else:
                other._assign(self)
            return other
        raise TypeError(f'copyto does not support type {type(other)}')

    def astype(self, dtype, copy=True):
        name = dtype_name(dtype)
        if not copy and name == self.dtype.name:
            return self
        raw = self._raw
        if ops.is_row_sparse(raw):
            new = ops.RowSparse(
                raw.xp, raw.data.astype(name), raw.indices, raw.shape
            )
        else:
            new = raw.astype(name)
        return wrap_raw(new, self._ctx)

    def asnumpy(self):
        return self.tostype('default').asnumpy()

    def check_format(self, full_check=True):
        """Raise if the storage is inconsistent (sorted indices etc.)."""
        check_format(self._raw, self._ctx.xp)

    def wait_to_read(self):
        self._ctx.backend.synchronize(self._ctx.device_id)

    def attach_grad(self, grad_req='write', stype=None):
        buf = from_raw(self._ctx.xp.zeros(self.shape, self.dtype), self._ctx)
        _tape.mark_variables([self], [buf], grad_req)

    # arithmetic that keeps the storage; the rest falls back to dense
    def __add__(self, other):
        if isinstance(other, BaseSparseNDArray) and other.stype == self.stype:
            return elemwise_add(self, other)
        return super().__add__(other)

    def __mul__(self, other):
        if isinstance(other, (int, float)) and not isinstance(other, bool):
            return invoke_sparse(ops.SparseScalarMul(scalar=other), [self])
        return super().__mul__(other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        if isinstance(other, (int, float)) and not isinstance(other, bool):
            return self.__mul__(1.0 / other)
        return super().__truediv__(other)

    def __neg__(self):
        return self.__mul__(-1.0)


class CSRNDArray(BaseSparseNDArray):
    """A 2-D array in compressed sparse row format.

    Row ``i`` holds the values ``data[indptr[i]:indptr[i+1]]`` at the
    columns ``indices[indptr[i]:indptr[i+1]]``.

    >>> a = mx.nd.sparse.csr_matrix(([1., 2., 3.], [1, 0, 2], [0, 1, 2, 3]),
    ...                             shape=(3, 4))
    >>> a.asnumpy()
    array([[0., 1., 0., 0.],
           [2., 0., 0., 0.],
           [0., 0., 3., 0.]], dtype=float32)
    """

    stype = 'csr'

    @property
    def _sp(self):
        return self._raw

    @property
    def data(self):
        """The stored values, row after row (a dense 1-D NDArray)."""
        return from_raw(self._raw.data, self._ctx)

    @property
    def indices(self):
        """The column of each stored value (int64)."""
        return from_raw(self._raw.indices.astype('int64'), self._ctx)

    @property
    def indptr(self):
        """Where each row starts in ``data`` (int64, length rows + 1)."""
        return from_raw(self._raw.indptr.astype('int64'), self._ctx)

    def asscipy(self):
        """A ``scipy.sparse.csr_matrix`` copy (on the host)."""
        raw = self._raw
        if hasattr(raw, 'get'):  # cupyx matrix
            return raw.get()
        return raw.copy()

    def __getitem__(self, key):
        if isinstance(key, int):
            key = slice(key, key + 1 if key != -1 else None)
        if isinstance(key, slice) and key.step in (None, 1):
            start, stop, _ = key.indices(self.shape[0])
            return invoke_sparse(
                ops.SparseSlice(begin=(start,), end=(stop,)), [self]
            )
        raise DLBookError(
            f'CSRNDArray only supports row slices x[a:b], got {key!r}'
        )


class RowSparseNDArray(BaseSparseNDArray):
    """An array in which only the rows ``indices`` are stored (``data``);
    every other row is zero.  Embedding gradients have this form."""

    stype = 'row_sparse'

    @property
    def _rsp(self):
        return self._raw

    @property
    def data(self):
        """The stored rows (a dense NDArray)."""
        return from_raw(self._raw.data, self._ctx)

    @property
    def indices(self):
        """The row number of each stored row (sorted, int64)."""
        return from_raw(self._raw.indices, self._ctx)

    def retain(self, indices):
        """Keep only the stored rows listed in ``indices``."""
        return retain(self, indices)

    def __getitem__(self, key):
        if key == slice(None):
            return self
        raise DLBookError('RowSparseNDArray only supports x[:]')


def wrap_raw(raw, ctx):
    """The NDArray for a raw result: sparse classes for sparse storage."""
    if ops.is_csr(raw):
        x = CSRNDArray.__new__(CSRNDArray)
    elif ops.is_row_sparse(raw):
        x = RowSparseNDArray.__new__(RowSparseNDArray)
    else:
        return from_raw(raw, ctx)
    x._raw, x._ctx = raw, ctx
    return x


def raw_of(x):
    """The raw storage an operator receives for ``x``."""
    return x._raw if isinstance(x, BaseSparseNDArray) else x._data


def _cast(x, stype):
    return cast_storage(x, stype=stype)


def _copy_raw(ctx, raw):
    if ops.is_row_sparse(raw):
        return ops.RowSparse(
            raw.xp, raw.data.copy(), raw.indices.copy(), raw.shape
        )
    return raw.copy()


def _move_raw(raw, ctx):
    """The raw storage rebuilt on ``ctx``'s backend (a copy)."""
    backend = ctx.backend

    def move(a):
        return backend.asarray(a, ctx.device_id)

    if ops.is_row_sparse(raw):
        return ops.RowSparse(
            backend.xp, move(raw.data), move(raw.indices), raw.shape
        )
    return backend.sparse.csr_matrix(
        (move(raw.data), move(raw.indices), move(raw.indptr)), shape=raw.shape
    )


def check_format(raw, xp):
    """MXNet's ``check_format``: indices sorted and in range."""
    if ops.is_csr(raw):
        indptr, indices = raw.indptr, raw.indices
        if (
            len(indptr) != raw.shape[0] + 1
            or int(indptr[0]) != 0
            or bool(xp.any(xp.diff(indptr) < 0))
            or int(indptr[-1]) != len(indices)
        ):
            raise DLBookError(
                'CSRNDArray: indptr is not a valid '
                'non-decreasing array from 0 to nnz'
            )
        if len(indices) and (
            int(indices.min()) < 0 or int(indices.max()) >= raw.shape[1]
        ):
            raise DLBookError('CSRNDArray: column index out of range')
        for i in range(raw.shape[0]):
            row = indices[int(indptr[i]) : int(indptr[i + 1])]
            if len(row) > 1 and bool(xp.any(xp.diff(row) <= 0)):
                raise DLBookError(
                    f'CSRNDArray: column indices of row {i} '
                    f'are not sorted and unique'
                )
    else:
        idx = raw.indices
        if len(idx) and (
            bool(xp.any(xp.diff(idx) <= 0))
            or int(idx[0]) < 0
            or int(idx[-1]) >= raw.shape[0]
        ):
            raise DLBookError(
                'RowSparseNDArray: indices are not sorted, unique and in range'
            )


def store_grad(buf, g, req):
    """Store the gradient ``g`` (raw dense or RowSparse) into the buffer
    ``buf`` per ``req`` ('write' or 'add'), in ``buf``'s storage."""
    xp = buf._ctx.xp
    if buf.stype == 'row_sparse':
        if not ops.is_row_sparse(g):
            g = ops.RowSparse.from_dense(xp, g)
        g = ops.RowSparse(
            xp, g.data.astype(buf.dtype, copy=False), g.indices, g.shape
        )
        buf._raw = buf._raw + g if req == 'add' else g
        return
    if buf.stype != 'default':
        buf._assign(wrap_raw(ops.todense(xp, g), buf._ctx))
        return
    if req != 'add':
        buf._data[...] = 0
    if ops.is_row_sparse(g):
        buf._data[g.indices] += g.data
    else:
        buf._data[...] += g


def pull_rows(full, row_id, grad=None, grad_req='write'):
    """The rows ``row_id`` (made unique and sorted) of the dense ``full``
    as a RowSparseNDArray; when ``grad`` is given the result is a tape
    variable whose gradient goes into ``grad``."""
    xp = full._ctx.xp
    rows = xp.unique(
        row_id.as_in_context(full._ctx)._data.astype('int64').reshape(-1)
    )
    x = _PulledRows.__new__(_PulledRows)
    x._raw = ops.RowSparse(xp, full._data[rows], rows, full.shape)
    x._ctx, x._owner = full._ctx, full
    if grad is not None and grad_req != 'null':
        _tape.mark_variables([x], [grad], grad_req)
    return x


class _PulledRows(RowSparseNDArray):
    """Rows pulled from a Parameter's weight: a fresh gradient on them is
    a fresh gradient of the weight (the Trainer's stale-gradient check)."""

    _owner = None

    @property
    def _fresh_grad(self):
        return self._owner._fresh_grad

    @_fresh_grad.setter
    def _fresh_grad(self, value):
        self._owner._fresh_grad = value


_CLASS_NAMES = {'csr': 'CSRNDArray', 'row_sparse': 'RowSparseNDArray'}


# -- operators that keep sparse storage ------------------------------------


def invoke_sparse(op, inputs):
    """Run a sparse operator now (the sparse twin of ``nd.invoke``):
    one context for all inputs, raw storage in, NDArray of the matching
    storage out, and a tape node when autograd is recording."""
    ctx = inputs[0]._ctx
    for x in inputs:
        if not isinstance(x, NDArray):
            raise DLBookError(
                f'{op.name}: expected NDArray inputs, got {type(x).__name__}'
            )
        if x._ctx != ctx:
            raise DLBookError(
                f'{op.name}: inputs are on different contexts '
                f'({", ".join(f"{x.stype} {x.shape} @{x._ctx}" for x in inputs)}'
                f'); move them to one context first with '
                f'x.as_in_context(ctx)'
            )
    op.sp = ctx.backend.sparse
    op.is_train = _tape._state.training
    with ctx.backend.scope(ctx.device_id):
        try:
            result = op.forward(ctx.xp, *[raw_of(x) for x in inputs])
        except (ValueError, TypeError, IndexError) as err:
            raise DLBookError(
                f'{op.name}: {err} (inputs: '
                + ', '.join(f'{x.stype} {x.shape}' for x in inputs)
                + ')'
            ) from err
    out = wrap_raw(result, ctx)
    if (
        _tape._state.recording
        and op.differentiable
        and any(x._node is not None or x._grad_req is not None for x in inputs)
    ):
        node = _tape.Node(op, tuple(inputs), ctx, None)
        out._node, out._out_index = node, 0
    return out


def _ctx(ctx):
    return ctx or current_context()


def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    """An all-zero array with storage ``stype`` ('csr', 'row_sparse' or
    'default')."""
    ctx = _ctx(ctx)
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    dtype = dtype_name(dtype) if dtype is not None else 'float32'
    if stype == 'default':
        return dense_zeros(shape, ctx=ctx, dtype=dtype)
    backend = ctx.backend
    with backend.scope(ctx.device_id):
        if stype == 'csr':
            if len(shape) != 2:
                raise DLBookError(
                    f'csr storage needs a 2-D shape, got {shape}'
                )
            raw = backend.sparse.csr_matrix(shape, dtype=dtype)
        elif stype == 'row_sparse':
            raw = ops.RowSparse.zeros(backend.xp, shape, dtype)
        else:
            raise DLBookError(
                f'unknown storage type {stype!r}; expected one of {_STYPES}'
            )
    return wrap_raw(raw, ctx)


def cast_storage(data, stype):
    """``data`` stored as ``stype`` ('default', 'csr' or 'row_sparse').
    Dense to CSR needs a 2-D array; CSR and row_sparse do not convert
    into each other (as in MXNet)."""
    if stype == data.stype:
        return data.copy()
    return invoke_sparse(ops.CastStorage(stype=stype), [data])


def retain(data, indices):
    """The rows ``indices`` of a RowSparseNDArray that it stores; all
    other rows become zero."""
    if not isinstance(indices, NDArray):
        indices = array(indices, ctx=data.context, dtype='int64')
    return invoke_sparse(ops.SparseRetain(), [data, indices])


def elemwise_add(lhs, rhs):
    """``lhs + rhs`` keeping sparse storage when both share it."""
    return invoke_sparse(ops.SparseAdd(), [lhs, rhs])
