"""Case rows for the NumPy-mode operators (``dlbook/ops/numpy_ops.py``)."""

import numpy as np

from tests.ops.cases import Case


def _with_zeros(shape):
    """make_inputs: uniform values with about a third set to zero."""

    def make(rng, dtype):
        x = rng.uniform(-1, 1, size=shape)
        x[rng.uniform(size=shape) < 0.35] = 0
        return [x.astype(dtype)]

    return make


def _repeats(rng, dtype):
    return [rng.randint(0, 4, size=(3, 5)).astype(dtype)]


def _counts(outs, _):
    counts = outs[0]
    assert counts.shape == (2000, 3) and counts.dtype == np.int64
    assert (counts.sum(axis=1) == 10).all()
    np.testing.assert_allclose(
        counts.mean(axis=0) / 10, [0.2, 0.5, 0.3], atol=0.02
    )


def _well_conditioned(*shapes):
    """make_inputs: matrices A + n*I (invertible), then other inputs."""

    def make(rng, dtype):
        first, *rest = shapes
        n = first[-1]
        a = rng.uniform(-1, 1, size=first) + n * np.eye(n)
        return [a.astype(dtype)] + [
            rng.uniform(-1, 1, size=s).astype(dtype) for s in rest
        ]

    return make


def _symmetric(rng, dtype):
    a = rng.uniform(-1, 1, size=(3, 3))
    return [(a + a.T + 6 * np.eye(3)).astype(dtype)]


def _small_ints(*shapes):
    """make_inputs: small integers as floats, so equal pairs occur."""

    def make(rng, dtype):
        return [rng.randint(-2, 3, size=s).astype(dtype) for s in shapes]

    return make


def _bool_compare(ref):
    """Rows of a NumPy-mode comparison: bool results, with broadcasting."""
    return [
        Case(shapes, make_inputs=_small_ints(*shapes), ref=ref, grad=())
        for shapes in ([(3, 4), (3, 4)], [(2, 3, 4), (3, 1)])
    ]


def _bool_compare_scalar(ref):
    return Case(
        [(3, 4)],
        make_inputs=_small_ints((3, 4)),
        attrs={'scalar': 1.0},
        ref=lambda x: ref(x, 1.0),
        grad=(),
    )


def _svd_check(outs, ins):
    ut, s, v = outs
    np.testing.assert_allclose(ut @ (s[..., None] * v), ins[0], atol=1e-4)
    np.testing.assert_allclose(
        s, np.linalg.svd(ins[0], compute_uv=False), rtol=1e-4
    )


def _qr_check(outs, ins):
    q, r = outs
    np.testing.assert_allclose(q @ r, ins[0], atol=1e-5)
    np.testing.assert_allclose(r, np.triu(r))


def _slogdet(a):
    return np.linalg.slogdet(a)


CASES = {
    '_npi_det': [
        # 0-d result: no gradient row (legacy head gradients are (1,))
        Case(
            [(3, 3)],
            make_inputs=_well_conditioned((3, 3)),
            ref=np.linalg.det,
            rtol=1e-4,
            grad=(),
        ),
        Case(
            [(2, 3, 3)],
            make_inputs=_well_conditioned((2, 3, 3)),
            ref=np.linalg.det,
            rtol=1e-4,
        ),
    ],
    '_npi_slogdet': Case(
        [(2, 3, 3)],
        make_inputs=_well_conditioned((2, 3, 3)),
        ref=_slogdet,
        rtol=1e-4,
    ),
    '_npi_inv': Case(
        [(2, 3, 3)],
        make_inputs=_well_conditioned((2, 3, 3)),
        ref=np.linalg.inv,
        rtol=1e-4,
    ),
    '_npi_solve': [
        Case(
            [(3, 3), (3,)],
            make_inputs=_well_conditioned((3, 3), (3,)),
            ref=lambda a, b: np.linalg.solve(a, b[:, None])[:, 0],
            rtol=1e-4,
        ),
        Case(
            [(3, 3), (3, 2)],
            make_inputs=_well_conditioned((3, 3), (3, 2)),
            ref=np.linalg.solve,
            rtol=1e-4,
        ),
    ],
    '_npi_eigvals': Case(
        [(3, 3)],
        make_inputs=_symmetric,
        ref=lambda a: np.sort(np.linalg.eigvals(a).real),
        check=lambda outs, ins: np.testing.assert_allclose(
            np.sort(outs[0]), np.linalg.eigvalsh(ins[0]), rtol=1e-4
        ),
    ),
    '_npi_eig': Case(
        [(3, 3)],
        make_inputs=_symmetric,
        check=lambda outs, ins: np.testing.assert_allclose(
            ins[0] @ outs[1], outs[1] * outs[0], rtol=1e-3, atol=1e-4
        ),
    ),
    '_npi_eigh': Case(
        [(3, 3)],
        make_inputs=_symmetric,
        ref=lambda a: np.linalg.eigh(a),
        rtol=1e-4,
        check=lambda outs, ins: np.testing.assert_allclose(
            outs[0], np.linalg.eigvalsh(ins[0]), rtol=1e-4
        ),
    ),
    '_npi_eigvalsh': Case(
        [(3, 3)], make_inputs=_symmetric, ref=np.linalg.eigvalsh, rtol=1e-4
    ),
    # svd: the singular vectors' signs are LAPACK's choice, stable under
    # the small steps of a central difference, so the gradient check holds
    '_npi_svd': [
        Case(
            [(2, 3)],
            ref=lambda a: np.linalg.svd(a, full_matrices=False),
            check=_svd_check,
            rtol=1e-4,
        ),
        Case([(2, 2, 4)], check=_svd_check, rtol=1e-4),
    ],
    '_npi_cholesky': Case(
        [(3, 3)],
        make_inputs=_symmetric,
        ref=np.linalg.cholesky,
        rtol=1e-4,
        # NumPy reads only the lower triangle, the
        # gradient is symmetrized as MXNet's (checked in
        # tests/numpy/test_np_linalg_factor.py)
        grad=(),
    ),
    '_npi_qr': Case([(3, 2)], check=_qr_check),
    '_npi_pinv_scalar_rcond': Case(
        [(2, 3)], ref=np.linalg.pinv, rtol=1e-4, grad=()
    ),
    '_np_singular_values': Case(
        [(2, 3)], ref=lambda a: np.linalg.svd(a, compute_uv=False), rtol=1e-4
    ),
    '_np_reshape': [
        Case(
            [(2, 3, 4)],
            attrs={'newshape': (4, -1)},
            ref=lambda x: x.reshape(4, -1),
        ),
        # 0-d result: no gradient row (the harness's head gradients are
        # legacy arrays, never 0-d); tests/test_numpy_mode.py covers it
        Case(
            [(1,)],
            attrs={'newshape': ()},
            ref=lambda x: x.reshape(()),
            grad=(),
        ),
    ],
    # NumPy-mode reductions: legacy formulas, 0-d full reductions (no
    # gradient row for those: the harness's head gradients are (1,))
    '_np_sum': [
        Case([(2, 3)], attrs={'axis': 1}, ref=lambda x: x.sum(axis=1)),
        Case([(2, 3)], ref=lambda x: x.sum(), grad=()),
    ],
    '_npi_mean': [
        Case(
            [(2, 3)],
            attrs={'axis': 0, 'keepdims': True},
            ref=lambda x: x.mean(axis=0, keepdims=True),
        ),
        Case([(2, 3)], ref=lambda x: x.mean(), grad=()),
    ],
    '_np_prod': [
        Case(
            [(2, 3)],
            attrs={'axis': -1},
            low=0.5,
            high=1.5,
            ref=lambda x: x.prod(axis=-1),
        ),
        Case([(3,)], ref=lambda x: x.prod(), grad=()),
    ],
    '_np_max': [
        Case([(2, 3)], attrs={'axis': 1}, ref=lambda x: x.max(axis=1)),
        Case([(2, 3)], ref=lambda x: x.max(), grad=()),
    ],
    '_np_min': [
        Case([(2, 3)], attrs={'axis': 1}, ref=lambda x: x.min(axis=1)),
        Case([(2, 3)], ref=lambda x: x.min(), grad=()),
    ],
    # NumPy-mode comparisons: bool results (no gradient)
    '_npi_equal': _bool_compare(np.equal),
    '_npi_not_equal': _bool_compare(np.not_equal),
    '_npi_greater': _bool_compare(np.greater),
    '_npi_greater_equal': _bool_compare(np.greater_equal),
    '_npi_less': _bool_compare(np.less),
    '_npi_less_equal': _bool_compare(np.less_equal),
    '_npi_equal_scalar': _bool_compare_scalar(np.equal),
    '_npi_not_equal_scalar': _bool_compare_scalar(np.not_equal),
    '_npi_greater_scalar': _bool_compare_scalar(np.greater),
    '_npi_greater_equal_scalar': _bool_compare_scalar(np.greater_equal),
    '_npi_less_scalar': _bool_compare_scalar(np.less),
    '_npi_less_equal_scalar': _bool_compare_scalar(np.less_equal),
    '_np_cumsum': [
        Case([(3, 4)], attrs={'axis': 1}, ref=lambda x: np.cumsum(x, axis=1)),
        Case(
            [(2, 3, 2)], attrs={'axis': -3}, ref=lambda x: np.cumsum(x, axis=0)
        ),
        Case([(2, 3)], ref=lambda x: np.cumsum(x)),
    ],
    '_npi_nonzero': Case(
        [(3, 4)], make_inputs=_with_zeros((3, 4)), ref=lambda x: np.argwhere(x)
    ),
    '_npi_unique': [
        Case([(3, 5)], make_inputs=_repeats, ref=np.unique),
        Case(
            [(3, 5)],
            make_inputs=_repeats,
            attrs={
                'return_index': True,
                'return_inverse': True,
                'return_counts': True,
            },
            ref=lambda x: tuple(
                np.asarray(r).reshape(-1)
                for r in np.unique(
                    x,
                    return_index=True,
                    return_inverse=True,
                    return_counts=True,
                )
            ),
        ),
    ],
    '_npi_multinomial': Case(
        [],
        attrs={'n': 10, 'pvals': (0.2, 0.5, 0.3), 'size': (2000,)},
        check=_counts,
    ),
}
