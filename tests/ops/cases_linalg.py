"""Rows for the matrix operators (dlbook/ops/linalg.py)."""

import numpy as np

from tests.ops.cases import Case


def mxnet_dot(a, b):
    """MXNet's dot: contract lhs's last axis with rhs's first; never 0-d."""
    return np.asarray(np.tensordot(a, b, axes=1)).reshape(
        a.shape[:-1] + b.shape[1:] or (1,)
    )


def mT(x):
    return np.swapaxes(x, -1, -2)


def gemm2(ta=False, tb=False, alpha=1.0):
    def ref(a, b):
        return alpha * np.matmul(mT(a) if ta else a, mT(b) if tb else b)

    return ref


def diag(k=0, axis1=0, axis2=1):
    """MXNet's diag: np.diag for 1-D input, else np.diagonal."""

    def ref(x):
        if x.ndim == 1:
            return np.diag(x, k)
        return np.diagonal(x, k, axis1, axis2)

    return ref


CASES = {
    'dot': [
        Case([(3, 4), (4, 5)], ref=mxnet_dot),
        Case(
            [(4, 3), (4, 5)],
            attrs={'transpose_a': True},
            ref=lambda a, b: a.T @ b,
        ),
        Case(
            [(3, 4), (5, 4)],
            attrs={'transpose_b': True},
            ref=lambda a, b: a @ b.T,
        ),
        Case(
            [(4, 3), (5, 4)],
            attrs={'transpose_a': True, 'transpose_b': True},
            ref=lambda a, b: a.T @ b.T,
        ),
        Case([(4,), (4,)], ref=mxnet_dot),
        Case([(3, 4), (4,)], ref=mxnet_dot),
        Case([(4,), (4, 5)], ref=mxnet_dot),
        Case([(2, 3, 4), (4, 5)], ref=mxnet_dot),
        Case([(2, 3, 4), (4, 2, 5)], ref=mxnet_dot),
        Case(
            [(4, 3, 2), (4, 5)],
            attrs={'transpose_a': True},
            ref=lambda a, b: mxnet_dot(a.T, b),
        ),
        Case(
            [(2, 3, 4), (2, 5, 4)],
            attrs={'transpose_b': True},
            ref=lambda a, b: mxnet_dot(a, b.T),
        ),
    ],
    'batch_dot': [
        Case([(2, 3, 4), (2, 4, 5)], ref=np.matmul),
        Case(
            [(2, 4, 3), (2, 4, 5)],
            attrs={'transpose_a': True},
            ref=lambda a, b: mT(a) @ b,
        ),
        Case(
            [(2, 3, 4), (2, 5, 4)],
            attrs={'transpose_b': True},
            ref=lambda a, b: a @ mT(b),
        ),
        Case(
            [(2, 4, 3), (2, 5, 4)],
            attrs={'transpose_a': True, 'transpose_b': True},
            ref=lambda a, b: mT(a) @ mT(b),
        ),
        Case([(2, 2, 3, 4), (2, 2, 4, 2)], ref=np.matmul),
    ],
    '_linalg_gemm2': [
        Case([(3, 4), (4, 5)], ref=gemm2()),
        Case(
            [(2, 3, 4), (2, 4, 5)], attrs={'alpha': 2.0}, ref=gemm2(alpha=2.0)
        ),
        Case(
            [(2, 4, 3), (2, 5, 4)],
            attrs={'transpose_a': True, 'transpose_b': True, 'alpha': 0.5},
            ref=gemm2(True, True, 0.5),
        ),
        # Rows along axis 1, columns along the last axis: A[:, :, j, :].
        Case(
            [(2, 3, 2, 4), (2, 4, 2, 5)],
            attrs={'axis': 1},
            ref=lambda a, b: np.moveaxis(
                np.moveaxis(a, 1, -2) @ np.moveaxis(b, 1, -2), -2, 1
            ),
        ),
    ],
    '_linalg_gemm': [
        Case([(3, 4), (4, 5), (3, 5)], ref=lambda a, b, c: a @ b + c),
        Case(
            [(2, 4, 3), (2, 4, 5), (2, 3, 5)],
            attrs={'transpose_a': True, 'alpha': 0.5, 'beta': 2.0},
            ref=lambda a, b, c: 0.5 * (mT(a) @ b) + 2.0 * c,
        ),
        Case(
            [(2, 3, 4), (2, 5, 4), (2, 3, 5)],
            attrs={'transpose_b': True, 'alpha': 2.0, 'beta': -1.0},
            ref=lambda a, b, c: 2.0 * (a @ mT(b)) - c,
        ),
    ],
    'diag': [
        Case([(4,)], ref=diag()),
        Case([(3,)], attrs={'k': 2}, ref=diag(2)),
        Case([(3,)], attrs={'k': -1}, ref=diag(-1)),
        Case([(3, 4)], ref=diag()),
        Case([(3, 4)], attrs={'k': 1}, ref=diag(1)),
        Case([(3, 4)], attrs={'k': -2}, ref=diag(-2)),
        Case([(2, 3, 4)], attrs={'axis1': 0, 'axis2': 2}, ref=diag(0, 0, 2)),
        Case(
            [(2, 3, 4)],
            attrs={'k': 1, 'axis1': -1, 'axis2': -2},
            ref=diag(1, -1, -2),
        ),
        Case(
            [(2, 3, 4, 3)],
            attrs={'k': -1, 'axis1': 1, 'axis2': 3},
            ref=diag(-1, 1, 3),
        ),
    ],
}
