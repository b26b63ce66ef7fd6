"""Checkers of chapter 18: references pass, typical mistakes explained."""

import numpy as np
import pytest

from dlbook.exercises.checker import run_check

from .failing import fails as _fails

pytest.importorskip('scipy.sparse')


def csr_arrays(dense):
    data, indices, indptr = [], [], [0]
    for row in dense:
        for j, value in enumerate(row):
            if value != 0:
                data.append(value)
                indices.append(j)
        indptr.append(len(data))
    return (
        np.array(data, 'float32'),
        np.array(indices, 'int64'),
        np.array(indptr, 'int64'),
    )


def test_csr_arrays():
    assert run_check('ch18.csr_arrays', csr_arrays).passed
    _fails(
        'ch18.csr_arrays',
        lambda d: csr_arrays(d)[:2] + (csr_arrays(d)[2][1:],),
        'one per row plus one',
    )
    # column-major order: right values, wrong layout
    _fails('ch18.csr_arrays', lambda d: csr_arrays(d.T), 'should be')
    _fails(
        'ch18.csr_arrays',
        lambda d: csr_arrays(d)[:2],
        'expected a tuple of 3 arrays',
    )


def row_sparse_arrays(dense):
    rows = np.nonzero(dense.any(axis=1))[0]
    return dense[rows], rows


def test_row_sparse_arrays():
    assert run_check('ch18.row_sparse_arrays', row_sparse_arrays).passed
    _fails(
        'ch18.row_sparse_arrays',
        lambda d: (d[d != 0], np.nonzero(d.any(axis=1))[0]),
        'keeps whole rows',
    )
    _fails(
        'ch18.row_sparse_arrays',
        lambda d: (d, np.arange(len(d))),
        'indices should be',
    )


def test_csr_nbytes():
    assert run_check(
        'ch18.csr_nbytes', lambda r, c, nnz: 12 * nnz + 8 * (r + 1)
    ).passed
    _fails(
        'ch18.csr_nbytes', lambda r, c, nnz: 12 * nnz + 8 * r, 'num_rows + 1'
    )
    _fails('ch18.csr_nbytes', lambda r, c, nnz: 8 * nnz + 4 * (r + 1), 'int64')
    _fails('ch18.csr_nbytes', lambda r, c, nnz: 4 * r * c, 'dense matrix')


def libsvm_line(label, row):
    return f'{label:g} ' + ' '.join(
        f'{j}:{row[j]:g}' for j in np.nonzero(row)[0]
    )


def test_libsvm_line():
    assert run_check('ch18.libsvm_line', libsvm_line).passed
    _fails(
        'ch18.libsvm_line',
        lambda label, row: (
            f'{label:g} '
            + ' '.join(f'{j + 1}:{row[j]:g}' for j in np.nonzero(row)[0])
        ),
        'start at 0',
    )
    _fails(
        'ch18.libsvm_line',
        lambda label, row: (
            f'{label:g} ' + ' '.join(f'{j}:{v:g}' for j, v in enumerate(row))
        ),
        'lists zeros',
    )
    _fails(
        'ch18.libsvm_line',
        lambda label, row: '1 ' + libsvm_line(label, row).split(' ', 1)[1],
        'starts with the label',
    )
    _fails(
        'ch18.libsvm_line',
        lambda label, row: libsvm_line(label, row).replace(':', '='),
        'cannot read',
    )
    _fails('ch18.libsvm_line', lambda label, row: [label], 'expected a str')
