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
            # MXNet contracts an N-d lhs's first axis, the rest keep order
            ref=lambda a, b: mxnet_dot(np.moveaxis(a, 0, -1), b),
        ),
        Case(
            [(2, 3, 4), (2, 5, 4)],
            attrs={'transpose_b': True},
            # MXNet contracts an N-d rhs's last axis, the rest keep order
            ref=lambda a, b: mxnet_dot(a, np.moveaxis(b, -1, 0)),
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


# -- MXNet's la_op operators (dlbook/ops/la_op.py) ----------------------------
# potrf and syevd read one triangle of a matrix meant to be symmetric and
# return MXNet's symmetric gradient, which entry-wise central differences
# cannot check: their gradients are checked along symmetric directions
# and against recorded MXNet values in tests/ops/test_linalg_mxnet.py.


def _spd(*shape):
    """make_inputs: symmetric positive-definite matrices M M^T + n I."""

    def make(rng, dtype):
        m = rng.uniform(-1, 1, size=shape)
        return [(m @ mT(m) + shape[-1] * np.eye(shape[-1])).astype(dtype)]

    return make


def _triangular_and(a_shape, *others, low=1.0):
    """make_inputs: a matrix whose diagonal is in [low, low + 1) (so
    either triangle is well conditioned; the other triangle is noise the
    operator must ignore), then uniform inputs of ``others``."""

    def make(rng, dtype):
        n = a_shape[-1]
        a = rng.uniform(-1, 1, size=a_shape)
        a += (
            np.eye(n)
            * (low + 1 + rng.uniform(0, 1, size=a_shape[:-1]))[..., None]
        )
        rest = [rng.uniform(-1, 1, size=s) for s in others]
        return [x.astype(dtype) for x in [a] + rest]

    return make


def _well_conditioned_la(*shape):
    def make(rng, dtype):
        n = shape[-1]
        return [(rng.uniform(-1, 1, size=shape) + n * np.eye(n)).astype(dtype)]

    return make


def _positive(*shape):
    def make(rng, dtype):
        return [rng.uniform(0.5, 2.0, size=shape).astype(dtype)]

    return make


def _sym_distinct(rng, dtype):
    """make_inputs: symmetric 3x3 matrices with well separated eigenvalues."""
    q, _ = np.linalg.qr(rng.uniform(-1, 1, size=(2, 3, 3)))
    lam = np.array([[-1.0, 0.5, 2.0], [0.3, 1.4, 3.1]])
    return [(q * lam[:, None, :] @ mT(q)).astype(dtype)]


def _op(a, transpose):
    return mT(a) if transpose else a


def trmm(transpose=False, rightside=False, lower=True, alpha=1.0):
    def ref(a, b):
        t = _op(np.tril(a) if lower else np.triu(a), transpose)
        return alpha * (b @ t if rightside else t @ b)

    return ref


def trsm(transpose=False, rightside=False, lower=True, alpha=1.0):
    def ref(a, b):
        t = _op(np.tril(a) if lower else np.triu(a), transpose)
        inv = np.linalg.inv(t)
        return alpha * (b @ inv if rightside else inv @ b)

    return ref


def potri(lower=True):
    def ref(a):
        low = np.tril(a) if lower else mT(np.triu(a))
        return np.linalg.inv(low @ mT(low))

    return ref


def gelqf(a):
    q, r = np.linalg.qr(mT(a))
    return mT(q), mT(r)


def syevd(a):
    """Rows of U are eigenvectors; each row's largest entry positive."""
    lam, v = np.linalg.eigh(a)
    u = mT(v)
    top = np.take_along_axis(u, np.abs(u).argmax(-1)[..., None], -1)
    return np.where(top < 0, -u, u), lam


def scalar_per_matrix(f):
    """MXNet's shape for one matrix's scalar: (1,), else the batch axes."""
    return lambda a: np.reshape(f(a), a.shape[:-2] or (1,))


def extracttrian(offset=0, lower=True):
    """MXNet's order: a lower triangle by rows, an upper one by columns."""

    def entries(m):
        n = m.shape[0]
        if offset > 0 or (offset == 0 and not lower):
            cells = [(i, j) for j in range(n) for i in range(n)]
            keep = [(i, j) for i, j in cells if j - i >= offset]
        else:
            cells = [(i, j) for i in range(n) for j in range(n)]
            keep = [(i, j) for i, j in cells if i - j >= -offset]
        return [m[c] for c in keep]

    def ref(a):
        flat = a.reshape((-1,) + a.shape[-2:])
        return np.array([entries(m) for m in flat]).reshape(
            a.shape[:-2] + (-1,)
        )

    return ref


def maketrian(n, offset=0, lower=True):
    """The inverse of extracttrian for n x n matrices."""

    def ref(v):
        probe = np.arange(n * n, dtype=float).reshape(n, n)
        where = np.array(extracttrian(offset, lower)(probe), dtype=int)
        out = np.zeros(v.shape[:-1] + (n * n,), dtype=v.dtype)
        out[..., where] = v
        return out.reshape(v.shape[:-1] + (n, n))

    return ref


def makediag(offset=0):
    def ref(v):
        n = v.shape[-1] + abs(offset)
        out = np.zeros(v.shape[:-1] + (n, n), dtype=v.dtype)
        for idx in np.ndindex(v.shape[:-1]):
            out[idx] = np.diag(v[idx], offset)
        return out

    return ref


CASES.update(
    {
        '_linalg_potrf': [
            Case(
                [(2, 3, 3)],
                make_inputs=_spd(2, 3, 3),
                ref=np.linalg.cholesky,
                rtol=1e-4,
                grad=(),
            ),
            Case(
                [(3, 3)],
                attrs={'lower': False},
                make_inputs=_spd(3, 3),
                ref=lambda a: mT(np.linalg.cholesky(mT(a))),
                rtol=1e-4,
                grad=(),
            ),
        ],
        '_linalg_potri': [
            Case(
                [(2, 3, 3)],
                make_inputs=_triangular_and((2, 3, 3)),
                ref=potri(),
                rtol=1e-4,
            ),
            Case(
                [(3, 3)],
                attrs={'lower': False},
                make_inputs=_triangular_and((3, 3)),
                ref=potri(False),
                rtol=1e-4,
            ),
        ],
        '_linalg_trmm': [
            Case([(3, 3), (3, 4)], ref=trmm()),
            Case(
                [(2, 3, 3), (2, 3, 2)],
                attrs={'transpose': True, 'lower': False, 'alpha': 2.0},
                ref=trmm(True, False, False, 2.0),
            ),
            Case(
                [(2, 3, 3), (2, 4, 3)],
                attrs={'rightside': True, 'alpha': -0.5},
                ref=trmm(False, True, True, -0.5),
            ),
            Case(
                [(3, 3), (2, 3)],
                attrs={'rightside': True, 'transpose': True, 'lower': False},
                ref=trmm(True, True, False),
            ),
        ],
        '_linalg_trsm': [
            Case(
                [(3, 3), (3, 4)],
                make_inputs=_triangular_and((3, 3), (3, 4)),
                ref=trsm(),
                rtol=1e-4,
            ),
            Case(
                [(2, 3, 3), (2, 3, 2)],
                attrs={'transpose': True, 'lower': False, 'alpha': 2.0},
                make_inputs=_triangular_and((2, 3, 3), (2, 3, 2)),
                ref=trsm(True, False, False, 2.0),
                rtol=1e-4,
            ),
            Case(
                [(2, 3, 3), (2, 4, 3)],
                attrs={'rightside': True, 'alpha': -0.5},
                make_inputs=_triangular_and((2, 3, 3), (2, 4, 3)),
                ref=trsm(False, True, True, -0.5),
                rtol=1e-4,
            ),
            Case(
                [(3, 3), (2, 3)],
                attrs={'rightside': True, 'transpose': True, 'lower': False},
                make_inputs=_triangular_and((3, 3), (2, 3)),
                ref=trsm(True, True, False),
                rtol=1e-4,
            ),
        ],
        '_linalg_syrk': [
            Case([(2, 3)], ref=lambda a: a @ a.T),
            Case(
                [(2, 2, 3)],
                attrs={'transpose': True, 'alpha': 0.5},
                ref=lambda a: 0.5 * (mT(a) @ a),
            ),
        ],
        '_linalg_gelqf': [
            Case([(2, 3)], ref=gelqf, rtol=1e-4),
            Case([(2, 3, 4)], ref=gelqf, rtol=1e-4),
        ],
        '_linalg_syevd': Case(
            [(2, 3, 3)],
            make_inputs=_sym_distinct,
            ref=syevd,
            rtol=1e-4,
            grad=(),
        ),
        '_linalg_inverse': Case(
            [(2, 3, 3)],
            make_inputs=_well_conditioned_la(2, 3, 3),
            ref=np.linalg.inv,
            rtol=1e-4,
        ),
        '_linalg_det': [
            Case(
                [(3, 3)],
                make_inputs=_well_conditioned_la(3, 3),
                ref=scalar_per_matrix(np.linalg.det),
                rtol=1e-4,
            ),
            Case(
                [(2, 2, 3, 3)],
                make_inputs=_well_conditioned_la(2, 2, 3, 3),
                ref=scalar_per_matrix(np.linalg.det),
                rtol=1e-4,
            ),
        ],
        '_linalg_slogdet': Case(
            [(2, 3, 3)],
            make_inputs=_well_conditioned_la(2, 3, 3),
            ref=np.linalg.slogdet,
            rtol=1e-4,
        ),
        '_linalg_sumlogdiag': [
            Case(
                [(3, 3)],
                make_inputs=_positive(3, 3),
                ref=scalar_per_matrix(
                    lambda a: np.log(np.diagonal(a, 0, -2, -1)).sum(-1)
                ),
            ),
            Case(
                [(2, 3, 3)],
                make_inputs=_positive(2, 3, 3),
                ref=lambda a: np.log(np.diagonal(a, 0, -2, -1)).sum(-1),
            ),
        ],
        '_linalg_extractdiag': [
            Case([(3, 3)], ref=lambda a: np.diagonal(a, 0, -2, -1)),
            Case(
                [(2, 4, 4)],
                attrs={'offset': -2},
                ref=lambda a: np.diagonal(a, -2, -2, -1),
            ),
            Case(
                [(4, 4)],
                attrs={'offset': 1},
                ref=lambda a: np.diagonal(a, 1, -2, -1),
            ),
        ],
        '_linalg_makediag': [
            Case([(3,)], ref=makediag()),
            Case([(2, 3)], attrs={'offset': 2}, ref=makediag(2)),
            Case([(2, 1, 2)], attrs={'offset': -1}, ref=makediag(-1)),
        ],
        '_linalg_extracttrian': [
            Case([(4, 4)], ref=extracttrian()),
            Case(
                [(2, 4, 4)], attrs={'lower': False}, ref=extracttrian(0, False)
            ),
            Case([(4, 4)], attrs={'offset': 1}, ref=extracttrian(1)),
            Case([(2, 4, 4)], attrs={'offset': -2}, ref=extracttrian(-2)),
        ],
        '_linalg_maketrian': [
            Case([(6,)], ref=maketrian(3)),
            Case([(2, 6)], attrs={'lower': False}, ref=maketrian(3, 0, False)),
            Case([(3,)], attrs={'offset': 2}, ref=maketrian(4, 2)),
            Case([(2, 3)], attrs={'offset': -1}, ref=maketrian(3, -1)),
        ],
    }
)
