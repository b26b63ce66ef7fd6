"""Case rows for ``dlbook/ops/numpy_more.py`` (``arctan2``, ``copysign``,
``ldexp``, ``nan_to_num``, ``einsum``, ``bincount``)."""

import numpy as np

from tests.ops.cases import Case


def _with_specials(rng, dtype):
    """make_inputs: values with NaN and infinities among them."""
    x = rng.uniform(-1, 1, size=(3, 4))
    x[0, 0], x[1, 2], x[2, 3] = np.nan, np.inf, -np.inf
    return [x.astype(dtype)]


def _nan_to_num_ref(x):
    return np.nan_to_num(x)


def _counts(rng, dtype):
    return [rng.randint(0, 5, size=(12,)).astype('int64')]


def _counts_weighted(rng, dtype):
    return [
        rng.randint(0, 5, size=(12,)).astype('int64'),
        rng.uniform(0, 1, size=(12,)).astype(dtype),
    ]


CASES = {
    '_npi_arctan2': [
        Case([(3, 4), (3, 4)], ref=np.arctan2, avoid=(0.0,), margin=0.1),
        Case([(2, 3, 4), (3, 1)], ref=np.arctan2, avoid=(0.0,), margin=0.1),
    ],
    '_npi_copysign': [
        Case([(3, 4), (3, 4)], ref=np.copysign, avoid=(0.0,)),
        Case([(2, 3), (3,)], ref=np.copysign, avoid=(0.0,)),
    ],
    '_npi_ldexp': [
        Case([(3, 4), (3, 4)], ref=lambda a, b: a * np.exp2(b)),
        Case([(3, 4), (4,)], ref=lambda a, b: a * np.exp2(b)),
    ],
    '_npi_nan_to_num': [
        Case([(3, 4)], ref=_nan_to_num_ref),
        Case(
            [(3, 4)],
            make_inputs=_with_specials,
            attrs={'nan': 1.0, 'posinf': 2.0, 'neginf': -3.0},
            ref=lambda x: np.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-3.0),
            grad=(),
        ),
    ],
    '_npi_einsum': [
        Case(
            [(2, 3), (3, 4)],
            attrs={'subscripts': 'ij,jk->ik'},
            ref=lambda a, b: np.einsum('ij,jk->ik', a, b),
        ),
        Case(
            [(3, 3)],
            attrs={'subscripts': 'ii'},
            ref=lambda a: np.einsum('ii', a),
        ),
        Case(
            [(2, 3), (3,)],
            attrs={'subscripts': 'ij,j'},
            ref=lambda a, b: np.einsum('ij,j', a, b),
        ),
        Case(
            [(2, 3, 4), (4, 5)],
            attrs={'subscripts': '...ij,jk->...ik'},
            ref=lambda a, b: np.einsum('...ij,jk->...ik', a, b),
        ),
        Case(
            [(2, 3)],
            attrs={'subscripts': 'ij->'},
            ref=lambda a: np.einsum('ij->', a),
        ),
        Case(
            [(2, 3), (1, 3)],
            attrs={'subscripts': '...j,...j->...'},
            ref=lambda a, b: np.einsum('...j,...j->...', a, b),
        ),
    ],
    '_npi_bincount': [
        Case(
            [(12,)],
            make_inputs=_counts,
            attrs={'minlength': 7},
            ref=lambda x: np.bincount(x, minlength=7),
            grad=(),
        ),
        Case(
            [(12,), (12,)],
            make_inputs=_counts_weighted,
            attrs={'has_weights': True},
            ref=lambda x, w: np.bincount(x, weights=w).astype(w.dtype),
            grad=(),
        ),
    ],
}
