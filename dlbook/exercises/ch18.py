"""Chapter 18 (sparse data): CSR and row_sparse by hand, memory, LibSVM.

The references are MXNet's own layouts: ``tostype('csr')`` and
``tostype('row_sparse')`` of the same matrix, the byte counts of a
``CSRNDArray``'s three arrays, and what ``mx.io.LibSVMIter`` reads back
from the student's lines.
"""

import os
import tempfile

import numpy as np

from .. import nd
from .compare import call, describe, rng
from .registry import exercise
from .result import Failure


def _matrices(seed):
    """Small test matrices: the chapter's, one with empty rows, random."""
    r = rng(seed)
    cases = [
        np.array([[0, 1, 0, 0], [2, 0, 0, 3], [0, 0, 0, 0]], 'float32'),
        np.array([[0, 0, 0], [0, 0, 5], [0, 0, 0], [7, 0, 8]], 'float32'),
        np.zeros((2, 3), 'float32'),
    ]
    for shape in ((5, 6), (3, 8)):
        m = r.randint(1, 10, shape).astype('float32')
        m[r.uniform(size=shape) < 0.7] = 0
        cases.append(m)
    return cases


def _arrays(got, count, what):
    """The student's tuple of ``count`` arrays as NumPy arrays."""
    if not isinstance(got, (tuple, list)) or len(got) != count:
        length = (
            f' of length {len(got)}' if isinstance(got, (tuple, list)) else ''
        )
        raise Failure(
            f'the result is {type(got).__name__}{length}, '
            f'expected a tuple of {count} arrays ({what}).'
        )
    out = []
    for part in got:
        if hasattr(part, 'asnumpy'):
            part = part.asnumpy()
        out.append(np.asarray(part))
    return out


def _compare(name, got, expected, dense):
    if got.shape != expected.shape or not np.array_equal(got, expected):
        raise Failure(
            f'for {describe("the matrix", dense)} {name} should '
            f'be {expected.tolist()}, got {got.tolist()}.'
        )


# -- CSR by hand (worked example) --------------------------------------------


@exercise(
    'ch18.csr_arrays',
    hint='go row by row: append each non-zero value to data and its '
    'column to indices; after each row, append len(data) to '
    'indptr, which starts as [0].',
)
def _csr_arrays(student):
    """csr_arrays(dense): the data, indices and indptr of a matrix."""
    cases = _matrices(1800)
    for dense in cases:
        got = call(student, dense.copy(), inputs={'dense': dense})
        data, indices, indptr = _arrays(got, 3, 'data, indices, indptr')
        csr = nd.array(dense).tostype('csr')
        if len(indptr) == dense.shape[0] and dense.shape[0] > 0:
            raise Failure(
                f'for {describe("the matrix", dense)} indptr has '
                f'{len(indptr)} entries; it needs one per row '
                f'plus one ({dense.shape[0] + 1}).',
                hint='indptr starts with 0 and ends with the '
                'number of non-zeros.',
            )
        _compare('data', data, csr.data.asnumpy(), dense)
        _compare('indices', indices, csr.indices.asnumpy(), dense)
        _compare('indptr', indptr, csr.indptr.asnumpy(), dense)
    return (
        f'correct: the three CSR arrays of {len(cases)} matrices, empty '
        'rows included.'
    )


# -- row_sparse by hand ------------------------------------------------------


@exercise(
    'ch18.row_sparse_arrays',
    hint='the rows to keep are those with any non-zero: '
    'np.nonzero(dense.any(axis=1))[0]; data is dense[those rows].',
)
def _row_sparse_arrays(student):
    """row_sparse_arrays(dense): the data and indices of a matrix."""
    cases = _matrices(1801)
    for dense in cases:
        got = call(student, dense.copy(), inputs={'dense': dense})
        data, indices = _arrays(got, 2, 'data, indices')
        rsp = nd.array(dense).tostype('row_sparse')
        expected_indices = rsp.indices.asnumpy()
        if (
            indices.shape == expected_indices.shape
            and np.array_equal(indices, expected_indices)
            and data.ndim == 1
        ):
            raise Failure(
                f'data has shape {data.shape}: row_sparse keeps '
                f'whole rows, shape ({len(expected_indices)}, '
                f'{dense.shape[1]}).',
                hint='data is dense[indices], zeros inside the '
                'kept rows included.',
            )
        _compare('indices', indices, expected_indices, dense)
        _compare(
            'data',
            data.reshape(-1, dense.shape[1])
            if data.size
            else data.reshape(0, dense.shape[1]),
            rsp.data.asnumpy(),
            dense,
        )
    return 'correct: the stored rows and their numbers.'


# -- the bytes of a CSR matrix -----------------------------------------------


@exercise(
    'ch18.csr_nbytes',
    hint='float32 values (4 bytes) and int64 column indices (8 bytes) '
    'for each non-zero, and num_rows + 1 int64 row pointers.',
)
def _csr_nbytes(student):
    """csr_nbytes(num_rows, num_cols, nnz): the bytes of a float32 CSR."""
    r = rng(1802)
    for num_rows, num_cols, nnz in ((3, 4, 3), (100, 1000, 950), (1, 5, 0)):
        dense = np.zeros(num_rows * num_cols, 'float32')
        dense[r.choice(dense.size, nnz, replace=False)] = 1
        csr = nd.array(dense.reshape(num_rows, num_cols)).tostype('csr')
        expected = sum(
            a.asnumpy().nbytes for a in (csr.data, csr.indices, csr.indptr)
        )
        inputs = {'num_rows': num_rows, 'num_cols': num_cols, 'nnz': nnz}
        got = call(student, num_rows, num_cols, nnz, inputs=inputs)
        if isinstance(got, bool) or not isinstance(
            got, (int, float, np.integer, np.floating)
        ):
            raise Failure(
                f'the result is {got!r:.60}, expected a number of bytes.'
            )
        if got != expected:
            hint = None
            if got == expected - 8:
                hint = 'indptr has num_rows + 1 entries, not num_rows.'
            elif got == 4 * nnz + 4 * nnz + 4 * (num_rows + 1):
                hint = "MXNet's CSR indices and indptr are int64: 8 bytes."
            elif got == 4 * num_rows * num_cols:
                hint = 'that is the dense matrix.'
            raise Failure(
                f'a {num_rows}x{num_cols} CSRNDArray with {nnz} '
                f'non-zeros takes {expected} bytes, got {got!r}.',
                hint,
            )
    return 'correct: 12 bytes per non-zero and 8 per row pointer.'


# -- one LibSVM line ---------------------------------------------------------


@exercise(
    'ch18.libsvm_line',
    hint="f'{label:g} ' + ' '.join(f'{j}:{row[j]:g}' for j in "
    "np.nonzero(row)[0]): zero-based columns, increasing, zeros "
    "left out.",
)
def _libsvm_line(student):
    """libsvm_line(label, row): one example as a line of a LibSVM file."""
    r = rng(1803)
    rows = [
        (1.0, np.array([0, 0.5, 0, 0, 2], 'float32')),
        (0.0, np.array([3, 0, 0, 0, 0], 'float32')),
    ]
    for _ in range(3):
        row = np.round(r.uniform(0.1, 1, 8), 2).astype('float32')
        row[r.uniform(size=8) < 0.6] = 0
        rows.append((float(r.randint(0, 2)), row))
    lines = []
    for label, row in rows:
        got = call(
            student, label, row.copy(), inputs={'label': label, 'row': row}
        )
        if not isinstance(got, str):
            raise Failure(
                f'the result is a {type(got).__name__}, expected '
                f'a str such as "1 1:0.5 4:2".'
            )
        if '\n' in got.rstrip('\n'):
            raise Failure(
                f'the result {got!r} holds several lines; one '
                f'example is one line.'
            )
        lines.append(got.rstrip('\n'))
    from ..base import DLBookError
    from ..io import LibSVMIter

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, 'rows.libsvm')
        with open(path, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        try:
            it = LibSVMIter(
                data_libsvm=path, data_shape=(9,), batch_size=len(rows)
            )
            batch = it.next()
        except (DLBookError, ValueError) as err:
            raise Failure(
                f'LibSVMIter cannot read your lines: {err}',
                hint='each feature is index:value with a zero-based index.',
            ) from None
        read = batch.data[0].asnumpy()
        labels = batch.label[0].asnumpy()
    for i, (label, row) in enumerate(rows):
        width = len(row)
        if labels[i] != label:
            raise Failure(
                f'the line {lines[i]!r} starts with the label '
                f'{labels[i]:g}, expected {label:g}.'
            )
        if not np.allclose(read[i], np.pad(row, (0, 9 - width))):
            hint = None
            if np.allclose(read[i, 1 : width + 1], row):
                hint = (
                    "MXNet's LibSVM indices start at 0: column j is "
                    "written j:value."
                )
            raise Failure(
                f'LibSVMIter reads {lines[i]!r} as '
                f'{read[i, :width].tolist()}, expected '
                f'{row.tolist()}.',
                hint,
            )
        fields = lines[i].split()[1:]
        if any(float(f.split(':')[1]) == 0 for f in fields):
            raise Failure(
                f'{lines[i]!r} lists zeros; a sparse line leaves them out.'
            )
    return 'correct: LibSVMIter reads your lines back as the rows.'
