"""Operators on sparse storage: CSR matrices and row-sparse arrays.

Two raw sparse forms travel through these operators, next to the dense
``xp`` arrays every other operator sees:

* **CSR** (compressed sparse row) is the backend's own matrix type:
  ``scipy.sparse.csr_matrix`` on the CPU, ``cupyx.scipy.sparse.csr_matrix``
  on a GPU.  Products such as ``csr @ dense`` therefore run in SciPy's and
  cuSPARSE's compiled kernels; nothing here loops in Python.  Operators
  that build a new CSR matrix use ``self.sp``, the backend's sparse module,
  which the front end sets (as it sets ``self.rng`` for random operators).
* **Row-sparse** is :class:`RowSparse`: the non-zero rows ``data`` of a
  larger array, their sorted row numbers ``indices`` and the full ``shape``.
  Embedding gradients and the gradient of ``dot(csr, weight)`` take this
  form, so an optimizer can update only the rows that were used.

``nd.sparse`` runs these classes (``dlbook/ndarray/sparse.py``); a
symbol graph runs them when its arrays are sparse
(``dlbook/symbol/program_sparse.py``).  ``cast_storage`` and ``_sparse_retain``
are also in the registry, so ``sym.cast_storage``/``sym.sparse.retain``
make graph nodes; on dense arrays (shape inference, dense graphs) they
compute the same values densely.
MXNet's kernels: apache/mxnet@1.9.1:src/operator/tensor/dot-inl.h,
cast_storage-inl.h, sparse_retain-inl.h, elemwise_binary_op-inl.h.
"""

from ..base import DLBookError
from .op import Op, register

__all__ = [
    'RowSparse',
    'STYPE_IDS',
    'stype_id',
    'stype_of_attr',
    'is_csr',
    'is_row_sparse',
    'todense',
    'csr_from',
    'SparseDot',
    'CastStorage',
    'SparseRetain',
    'SparseAdd',
    'SparseSlice',
    'SparseScalarMul',
]


class RowSparse:
    """Rows ``indices`` (sorted, unique, int64) of an array of ``shape``;
    every other row is zero.  ``data[k]`` is row ``indices[k]``."""

    is_row_sparse = True
    __array_ufunc__ = None  # NumPy must not treat it as an array

    def __init__(self, xp, data, indices, shape):
        self.xp, self.data, self.indices = xp, data, indices
        self.shape = tuple(shape)

    @property
    def dtype(self):
        return self.data.dtype

    @classmethod
    def zeros(cls, xp, shape, dtype):
        return cls(
            xp,
            xp.zeros((0,) + tuple(shape[1:]), dtype),
            xp.zeros((0,), 'int64'),
            shape,
        )

    @classmethod
    def from_dense(cls, xp, dense):
        """Keep the rows of ``dense`` that hold a non-zero value."""
        flat = dense.reshape(dense.shape[0], -1) if dense.ndim else dense
        rows = xp.nonzero(xp.any(flat != 0, axis=1))[0].astype('int64')
        return cls(xp, dense[rows], rows, dense.shape)

    def todense(self):
        out = self.xp.zeros(self.shape, self.data.dtype)
        out[self.indices] = self.data
        return out

    def __add__(self, other):
        xp = self.xp
        if not getattr(other, 'is_row_sparse', False):
            out = xp.array(other, dtype=self.data.dtype, copy=True)
            out[self.indices] += self.data
            return out
        rows = xp.union1d(self.indices, other.indices).astype('int64')
        data = xp.zeros((len(rows),) + self.shape[1:], self.data.dtype)
        data[xp.searchsorted(rows, self.indices)] += self.data
        data[xp.searchsorted(rows, other.indices)] += other.data
        return RowSparse(xp, data, rows, self.shape)

    __radd__ = __add__


# MXNet's storage-type ids (``__storage_type__`` in symbol JSON)
STYPE_IDS = {'default': 0, 'row_sparse': 1, 'csr': 2}


def stype_id(stype):
    """MXNet's id of the storage type ``stype`` (``'csr'`` -> 2)."""
    if stype not in STYPE_IDS:
        raise DLBookError(
            f"unknown storage type {stype!r}; expected one of "
            f"'default', 'row_sparse', 'csr'"
        )
    return STYPE_IDS[stype]


def stype_of_attr(value):
    """The storage type a ``__storage_type__`` attribute names (MXNet
    writes the id, ``'2'``; a name such as ``'csr'`` is accepted too)."""
    if value is None:
        return 'default'
    for name, number in STYPE_IDS.items():
        if value in (name, str(number)):
            return name
    raise DLBookError(
        f'unknown __storage_type__ {value!r}; expected '
        f"0 (default), 1 (row_sparse) or 2 (csr)"
    )


def is_csr(raw):
    """Whether ``raw`` is a SciPy/CuPy CSR matrix."""
    return getattr(raw, 'format', None) == 'csr'


def is_row_sparse(raw):
    return getattr(raw, 'is_row_sparse', False)


def todense(xp, raw):
    """The dense ``xp`` array of any raw storage."""
    if is_csr(raw):
        return raw.toarray()
    if is_row_sparse(raw):
        return raw.todense()
    return raw


def csr_from(sp, dense):
    """A CSR matrix holding the non-zeros of a 2-D dense array."""
    if dense.ndim != 2:
        raise DLBookError(
            f'csr storage needs a 2-D array, got shape {dense.shape}'
        )
    return sp.csr_matrix(dense)


def _compact_columns(xp, sp, csr):
    """``(rows, c)``: the distinct column numbers used by ``csr`` and the
    matrix with its columns renumbered 0..len(rows)-1, so that
    ``c.T @ x`` gives exactly the rows ``rows`` of ``csr.T @ x``."""
    rows, inverse = xp.unique(csr.indices, return_inverse=True)
    compact = sp.csr_matrix(
        (csr.data, inverse.reshape(-1), csr.indptr),
        shape=(csr.shape[0], len(rows)),
    )
    return rows.astype('int64'), compact


class _SparseOp(Op):
    sp = None  # the backend's sparse module


class SparseDot(_SparseOp):
    """y = op(a) @ op(b), with op = transpose where asked.

    Storage of the result, as MXNet 1.9.1 on the CPU:
    ``dot(csr, dense) = dense``, ``dot(csr.T, dense) = row_sparse`` (the
    rows are the columns ``csr`` uses), ``dot(dense, csr) = csr``; other
    combinations compute densely.
    Gradient of a dense ``b`` in ``dot(csr, b)``: ``db = csr.T @ dy``,
    row-sparse over the columns of ``csr`` (what an embedding-like weight
    needs); in ``dot(csr.T, b)``: ``db = csr @ dy``.  No gradient flows to
    a CSR operand.
    """

    name = 'dot'
    arguments = ('lhs', 'rhs')
    defaults = {
        'transpose_a': False,
        'transpose_b': False,
        'forward_stype': None,
    }

    def forward(self, xp, a, b):
        ta, tb = self.attrs['transpose_a'], self.attrs['transpose_b']
        self.saved = (a, b)
        if is_row_sparse(b):
            b = b.todense()
        if is_csr(a) and not is_csr(b):
            if tb:
                b = b.T
            if not ta:
                return a @ b
            if self.attrs['forward_stype'] == 'default':
                return a.T @ b
            rows, compact = _compact_columns(xp, self.sp, a)
            return RowSparse(
                xp,
                xp.ascontiguousarray(compact.T @ b),
                rows,
                (a.shape[1],) + b.shape[1:],
            )
        if is_csr(b) and not is_csr(a):
            a = a.T if ta else a
            bt = b if tb else b.T  # (op(b)).T, sparse
            dense = xp.ascontiguousarray((bt @ a.T).T)
            if self.attrs['forward_stype'] == 'default':
                return dense
            return self.sp.csr_matrix(dense)
        a, b = todense(xp, a), todense(xp, b)
        return xp.dot(a.T if ta else a, b.T if tb else b)

    def backward(self, xp, dy):
        a, b = self.saved
        ta, tb = self.attrs['transpose_a'], self.attrs['transpose_b']
        if is_csr(dy):
            dy = dy.toarray()
        elif is_row_sparse(dy):
            dy = dy.todense()
        if is_csr(a) and not is_csr(b) and not tb:
            if ta:
                return None, a @ dy
            rows, compact = _compact_columns(xp, self.sp, a)
            grad = xp.ascontiguousarray(compact.T @ dy)
            return None, RowSparse(xp, grad, rows, b.shape)
        if is_csr(a) or is_csr(b):
            raise DLBookError(
                'dot: the gradient is implemented for '
                'dot(csr, dense) and dot(csr.T, dense) only'
            )
        a_, b_ = todense(xp, a), todense(xp, b)
        opa = a_.T if ta else a_
        opb = b_.T if tb else b_
        da = dy @ opb.T
        db = opa.T @ dy
        return (da.T if ta else da), (db.T if tb else db)


@register('cast_storage')
class CastStorage(_SparseOp):
    """y = x stored as ``stype`` ('default', 'csr' or 'row_sparse');
    the values do not change."""

    defaults = {'stype': 'default'}
    differentiable = False

    def forward(self, xp, x):
        stype = self.attrs['stype']
        if stype not in ('default', 'csr', 'row_sparse'):
            raise DLBookError(
                f"unknown storage type {stype!r}; expected "
                f"'default', 'csr' or 'row_sparse'"
            )
        if stype == 'default' or self.sp is None:
            # (a dense front end, e.g. shape inference: the values only)
            return xp.array(todense(xp, x), copy=True)
        if stype == 'csr':
            if is_row_sparse(x):
                raise DLBookError(
                    'cast_storage from row_sparse to csr is not supported'
                )
            return x.copy() if is_csr(x) else csr_from(self.sp, x)
        if stype == 'row_sparse':
            if is_csr(x):
                raise DLBookError(
                    'cast_storage from csr to row_sparse is not supported'
                )
            if is_row_sparse(x):
                return RowSparse(xp, x.data.copy(), x.indices.copy(), x.shape)
            return RowSparse.from_dense(xp, x)


@register('_sparse_retain')
class SparseRetain(_SparseOp):
    """y = the rows ``indices`` of a row-sparse ``x`` that ``x`` stores;
    the others become zero."""

    arguments = ('data', 'indices')
    differentiable = False

    def forward(self, xp, x, indices):
        if self.sp is None and not is_row_sparse(x):
            # a dense front end (shape inference): the same values, dense
            keep = xp.zeros(x.shape[0], bool)
            keep[indices.astype('int64').reshape(-1)] = True
            return x * keep.reshape((-1,) + (1,) * (x.ndim - 1))
        if not is_row_sparse(x):
            raise DLBookError('retain: data must be a RowSparseNDArray')
        wanted = indices.astype('int64').reshape(-1)
        keep = xp.isin(x.indices, wanted)
        return RowSparse(xp, x.data[keep], x.indices[keep], x.shape)


class SparseAdd(_SparseOp):
    """y = a + b (same shape).  csr + csr = csr, row_sparse + row_sparse
    = row_sparse, anything with a dense operand is dense.
    da = dy;  db = dy."""

    name = 'elemwise_add'
    arguments = ('lhs', 'rhs')

    def forward(self, xp, a, b):
        if a.shape != b.shape:
            raise DLBookError(
                f'elemwise_add: shapes {a.shape} and {b.shape} differ'
            )
        if is_csr(a) and is_csr(b):
            out = a + b
            out.sort_indices()
            return out
        if is_row_sparse(a) and is_row_sparse(b):
            return a + b
        return todense(xp, a) + todense(xp, b)

    def backward(self, xp, dy):
        dy = todense(xp, dy)
        return dy, dy


class SparseScalarMul(_SparseOp):
    """y = x * scalar, keeping the storage;  dx = dy * scalar."""

    name = '_mul_scalar'
    defaults = {'scalar': 1.0}

    def forward(self, xp, x):
        s = self.attrs['scalar']
        if is_row_sparse(x):
            return RowSparse(
                xp, x.data * x.data.dtype.type(s), x.indices, x.shape
            )
        out = x.copy()
        out.data *= out.data.dtype.type(s)
        return out

    def backward(self, xp, dy):
        return todense(xp, dy) * self.attrs['scalar']


class SparseSlice(_SparseOp):
    """y = x[begin[0]:end[0], begin[1]:end[1]] of a CSR matrix, still CSR
    (MXNet's ``slice`` on csr storage)."""

    name = 'slice'
    defaults = {'begin': (), 'end': ()}
    differentiable = False

    def forward(self, xp, x):
        if not is_csr(x):
            raise DLBookError('sparse.slice: data must be a CSRNDArray')
        begin, end = list(self.attrs['begin']), list(self.attrs['end'])
        keys = []
        for axis in range(2):
            b = begin[axis] if axis < len(begin) else None
            e = end[axis] if axis < len(end) else None
            keys.append(slice(b, e))
        out = x[keys[0]]
        if keys[1] != slice(None, None):
            out = out[:, keys[1]]
        return self.sp.csr_matrix(out)
