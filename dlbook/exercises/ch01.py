"""Chapter 1 (NDArray): broadcasting exercises."""

import numpy as np

from .compare import as_nd, call, expect_close, matches, rng, shapes
from .registry import exercise

KEEPDIMS = (
    'did you sum over axis=1 with keepdims=True? A sum of shape '
    '(n,) does not line up with the rows of an (n, m) array.'
)


@exercise(
    'ch01.row_normalize', hint='divide X by X.sum(axis=1, keepdims=True).'
)
def _row_normalize(student):
    """row_normalize(X): divide each row of X by its sum."""
    r = rng(101)
    cases = [(2, 5), (3, 3), (4, 1)]
    for shape in cases:
        X = r.uniform(0.5, 2.0, shape)
        expected = X / X.sum(axis=1, keepdims=True)

        def diagnose(got, X=X):
            if matches(got, X / X.sum(axis=0, keepdims=True)):
                return (
                    'you divided by the column sums (axis=0); rows '
                    'are summed with axis=1.'
                )
            if matches(got, X / X.sum(axis=1)[None, :]):
                return KEEPDIMS
            if matches(got, X / X.sum()):
                return (
                    'you divided by the sum of all elements; each row '
                    'needs its own sum: axis=1.'
                )
            return None

        got = call(
            student,
            as_nd(X),
            inputs={'X': X},
            hint=lambda err: KEEPDIMS if 'broadcast' in str(err) else None,
        )
        expect_close(got, expected, {'X': X}, diagnose=diagnose)
    return f'correct on inputs of shape {shapes(cases)}.'


@exercise(
    'ch01.pairwise_sq_dist',
    hint='reshape A to (n, 1, d) and B to (1, m, d), subtract (the '
    'result broadcasts to (n, m, d)), square, and sum over '
    'axis=2.',
)
def _pairwise_sq_dist(student):
    """pairwise_sq_dist(A, B): D[i, j] = squared distance of A[i], B[j]."""
    r = rng(102)
    cases = [((3, 2), (4, 2)), ((1, 3), (2, 3)), ((5, 4), (5, 4))]
    for shape_a, shape_b in cases:
        A, B = r.normal(size=shape_a), r.normal(size=shape_b)
        diff = A[:, None, :] - B[None, :, :]
        expected = (diff**2).sum(axis=2)

        def diagnose(got, diff=diff, A=A, B=B):
            if matches(got, np.sqrt((diff**2).sum(axis=2))):
                return (
                    'these are distances; the exercise asks for '
                    'squared distances (leave out the square root).'
                )
            if matches(got, (diff**2).sum(axis=2).T):
                return (
                    'your result is transposed: row i should belong '
                    'to A[i] and column j to B[j].'
                )
            if np.shape(got) == diff.shape:
                return 'sum the squared differences over axis=2.'
            return None

        inputs = {'A': A, 'B': B}
        got = call(student, as_nd(A), as_nd(B), inputs=inputs)
        expect_close(
            got, expected, inputs, rtol=1e-4, atol=1e-4, diagnose=diagnose
        )
    return 'correct, broadcasting (n, 1, d) against (1, m, d) does it.'
