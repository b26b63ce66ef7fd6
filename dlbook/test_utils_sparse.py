"""Random sparse arrays for tests (``mx.test_utils.rand_ndarray`` with
``stype='csr'`` or ``'row_sparse'``), as MXNet 1.9.1's test_utils makes
them (apache/mxnet@1.9.1:python/mxnet/test_utils.py).

Every draw comes from NumPy's global generator (``np.random``), as in
MXNet: after ``np.random.seed(s)`` a row_sparse array or a
``distribution='powerlaw'`` CSR array has the very values MXNet makes.
Uniform CSR arrays come from ``scipy.sparse.rand`` (MXNet's path when
SciPy is installed).
"""

import numpy as np
import numpy.random as rnd

__all__ = [
    'rand_sparse_ndarray',
    'shuffle_csr_column_indices',
    'assign_each',
    'assign_each2',
]


def _validate_csr_generation_inputs(
    num_rows, num_cols, density, distribution='uniform'
):
    total_nnz = int(num_rows * num_cols * density)
    if density < 0 or density > 1:
        raise ValueError('density has to be between 0 and 1')
    if num_rows <= 0 or num_cols <= 0:
        raise ValueError('num_rows or num_cols should be greater than 0')
    if distribution == 'powerlaw' and total_nnz < 2 * num_rows:
        raise ValueError(
            f'not supported for this density: {density} for '
            f'this shape ({num_rows}, {num_cols}) Please keep '
            f': num_rows * num_cols * density >= 2 * num_rows'
        )


def shuffle_csr_column_indices(csr):
    """Shuffle the column indices within each row of a SciPy CSR matrix
    (a valid CSR matrix need not keep them sorted)."""
    for i in range(len(csr.indptr) - 1):
        start, end = csr.indptr[i], csr.indptr[i + 1]
        sublist = np.array(csr.indices[start:end])
        np.random.shuffle(sublist)
        csr.indices[start:end] = sublist


def _uniform_csr(
    num_rows, num_cols, density, dtype, data_init, shuffle_csr_indices, ctx
):
    """``density * rows * cols`` values uniform in [0, 1) at random
    positions (``scipy.sparse.rand``)."""
    from scipy import sparse as spsp

    from .ndarray import sparse

    _validate_csr_generation_inputs(num_rows, num_cols, density)
    csr = spsp.rand(num_rows, num_cols, density, dtype=dtype, format='csr')
    if data_init is not None:
        csr.data.fill(data_init)
    if shuffle_csr_indices is True:
        shuffle_csr_column_indices(csr)
    return sparse.csr_matrix(
        (csr.data, csr.indices, csr.indptr),
        shape=(num_rows, num_cols),
        dtype=dtype,
        ctx=ctx,
    )


def _powerlaw_csr(num_rows, num_cols, density, dtype, ctx):
    """Row ``i`` holds about twice the values of row ``i - 1`` (every
    row at least one, in column 0), values in (1, 3)."""
    from .ndarray import array

    _validate_csr_generation_inputs(
        num_rows, num_cols, density, distribution='powerlaw'
    )

    def done(out):
        return array(out, ctx=ctx).tostype('csr')

    unused_nnz = int(num_rows * num_cols * density)
    out = np.zeros((num_rows, num_cols), dtype=dtype)
    for row in range(num_rows):
        out[row][0] = 1 + rnd.uniform(0.001, 2)
        unused_nnz -= 1
        if unused_nnz <= 0:
            return done(out)
    col_max = 2
    for row in range(num_rows):
        col_limit = min(num_cols, col_max)
        if col_limit == num_cols and unused_nnz > col_limit:
            out[row] = 1 + rnd.uniform(0.001, 2)
            unused_nnz = unused_nnz - col_limit + 1
            if unused_nnz <= 0:
                return done(out)
            continue
        for col in range(1, col_limit):
            out[row][col] = 1 + rnd.uniform(0.001, 2)
            unused_nnz -= 1
            if unused_nnz <= 0:
                return done(out)
        col_max *= 2
    if unused_nnz > 0:
        raise ValueError(
            f'not supported for this density: {density} for '
            f'this shape ({num_rows},{num_cols})'
        )
    return done(out)


def rand_sparse_ndarray(
    shape,
    stype,
    density=None,
    dtype=None,
    distribution=None,
    data_init=None,
    rsp_indices=None,
    modifier_func=None,
    shuffle_csr_indices=False,
    ctx=None,
):
    """A random sparse NDArray and its raw parts.

    Parameters
    ----------
    shape : tuple of int
    stype : {'csr', 'row_sparse'}
    density : float, optional
        Expected fraction of stored rows (row_sparse) or values (csr);
        drawn uniformly in [0, 1) when omitted.
    dtype : optional
        Default float32.
    distribution : {'uniform', 'powerlaw'}, optional
        ``'powerlaw'`` (csr only): each row holds twice the values of the
        row before.
    data_init : float, optional
        Fill every stored value with this number.
    rsp_indices : array, optional
        The rows to store (row_sparse).
    modifier_func : callable, optional
        Applied to every stored value (row_sparse).
    shuffle_csr_indices : bool
        Leave each row's column indices unsorted (uniform csr).

    Returns
    -------
    (array, parts) : ``parts`` is ``(values, indices)`` (NumPy) for
    row_sparse and ``(indptr, indices, data)`` (NDArrays) for csr.
    """
    from .context import current_context
    from .ndarray import sparse

    ctx = ctx if ctx else current_context()  # default_context()
    density = rnd.rand() if density is None else density
    dtype = np.float32 if dtype is None else dtype  # default_dtype()
    distribution = 'uniform' if distribution is None else distribution
    if stype == 'row_sparse':
        if distribution != 'uniform':
            raise ValueError(
                f'Distribution {distribution} not supported for row_sparse'
            )
        if rsp_indices is not None:
            indices = rsp_indices
            if len(indices) > shape[0]:
                raise ValueError(
                    f'rsp_indices: {len(indices)} rows for a '
                    f'shape of {shape[0]} rows'
                )
        else:
            indices = np.argwhere(rnd.rand(shape[0]) < density).flatten()
        if indices.shape[0] == 0:
            return (
                sparse.zeros('row_sparse', shape, ctx=ctx, dtype=dtype),
                (np.array([], dtype=dtype), np.array([])),
            )
        val = rnd.rand(indices.shape[0], *shape[1:]).astype(dtype)
        if data_init is not None:
            val.fill(data_init)
        if modifier_func is not None:
            val = assign_each(val, modifier_func)
        arr = sparse.row_sparse_array(
            (val, indices), shape=shape, dtype=dtype, ctx=ctx
        )
        return arr, (val, indices)
    if stype == 'csr':
        if len(shape) != 2:
            raise ValueError(f'csr storage needs a 2-D shape, got {shape}')
        if distribution == 'uniform':
            csr = _uniform_csr(
                shape[0],
                shape[1],
                density,
                dtype,
                data_init,
                shuffle_csr_indices,
                ctx,
            )
        elif distribution == 'powerlaw':
            csr = _powerlaw_csr(shape[0], shape[1], density, dtype, ctx)
        else:
            raise ValueError(f'Distribution not supported: {distribution}')
        return csr, (csr.indptr, csr.indices, csr.data)
    raise ValueError(
        f"unknown storage type {stype!r}; expected 'csr' or 'row_sparse'"
    )


def assign_each(the_input, function):
    """``function`` applied to every element (a float64 array)."""
    if function is None:
        return np.array(the_input)
    output = np.zeros(the_input.shape)
    for index, value in np.ndenumerate(the_input):
        output[index] = function(value)
    return output


def assign_each2(input1, input2, function):
    """``function(a, b)`` applied to every pair of elements."""
    if function is None:
        return np.array(input1)
    if input1.shape != input2.shape:
        raise ValueError(
            f'assign_each2: shapes {input1.shape} and {input2.shape} differ'
        )
    output = np.zeros(input1.shape)
    for index, value in np.ndenumerate(input1):
        output[index] = function(value, input2[index])
    return output
