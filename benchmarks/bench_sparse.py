"""Sparse matrix products: ``nd.sparse.dot`` vs SciPy called directly.

A CSR batch of 256 rows x 100,000 features at 0.1% density (about 100
non-zeros a row, a bag-of-words batch) times a dense 100,000 x 64 float32
weight:

1. ``dot(csr, w)`` (the forward of a sparse linear layer): dense result;
2. ``dot(csr, dy, transpose_a=True)`` (its weight gradient): row-sparse
   result holding only the columns the batch used.

The reference is ``scipy.sparse`` on the same matrix: ``csr @ w`` and
``(csr.T @ dy)`` restricted to the used rows.  Target: dlbook within
1.5x of SciPy (dlbook's work is SciPy's plus the NDArray wrapping).

Run: ``python benchmarks/bench_sparse.py`` (writes benchmarks/RESULTS.md).
"""

import os
import sys

import numpy as np
import scipy.sparse

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import dlbook as mx  # noqa: E402
from benchmarks.common import best_of, fmt_ms, table, write_section  # noqa
from dlbook import nd  # noqa: E402

ROWS, FEATURES, HIDDEN, DENSITY = 256, 100_000, 64, 0.001


def main():
    mx.random.seed(0)
    rng = np.random.RandomState(0)
    m = scipy.sparse.random(
        ROWS,
        FEATURES,
        density=DENSITY,
        format='csr',
        dtype=np.float32,
        random_state=rng,
    )
    w_np = rng.rand(FEATURES, HIDDEN).astype(np.float32)
    dy_np = rng.rand(ROWS, HIDDEN).astype(np.float32)
    csr, w, dy = nd.sparse.csr_matrix(m), nd.array(w_np), nd.array(dy_np)
    used = np.unique(m.indices)

    def scipy_backward():
        return (m.T @ dy_np)[used]

    t_fwd = best_of(lambda: nd.sparse.dot(csr, w).wait_to_read(), 7)
    t_fwd_sp = best_of(lambda: m @ w_np, 7)
    t_bwd = best_of(
        lambda: nd.sparse.dot(csr, dy, transpose_a=True).wait_to_read(), 7
    )
    t_bwd_sp = best_of(scipy_backward, 7)
    rows = [
        (
            '`dot(csr, w)` → dense',
            fmt_ms(t_fwd),
            fmt_ms(t_fwd_sp),
            f'{t_fwd / t_fwd_sp:.2f}×',
        ),
        (
            '`dot(csr.T, dy)` → row_sparse',
            fmt_ms(t_bwd),
            fmt_ms(t_bwd_sp),
            f'{t_bwd / t_bwd_sp:.2f}×',
        ),
    ]
    body = (
        f'CSR {ROWS}×{FEATURES:,} float32 at density {DENSITY} '
        f'({m.nnz:,} non-zeros) times a dense {FEATURES:,}×{HIDDEN} '
        f'weight, best of 7 (lower is better):\n\n'
        + table(
            ('operation', 'dlbook', 'SciPy direct', 'dlbook / SciPy'), rows
        )
    )
    write_section('sparse', 'Sparse dot (`benchmarks/bench_sparse.py`)', body)


if __name__ == '__main__':
    main()
