"""Chapter 4 (softmax regression): softmax, cross-entropy, accuracy."""

import numpy as np

from .compare import as_nd, call, expect_close, matches, rng, shapes, to_numpy
from .registry import exercise
from .result import Failure

KEEPDIMS = 'did you sum over axis=1 with keepdims=True?'


def _softmax_ref(X, axis=1):
    e = np.exp(X - X.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@exercise(
    'ch04.softmax',
    hint='exponentiate, then divide each row by its sum: '
    'X_exp / X_exp.sum(axis=1, keepdims=True).',
)
def _softmax(student, stable=False):
    """softmax(X): each row of exp(X) divided by its sum.

    With ``stable=True`` the answer must also work for large inputs
    (subtract each row's maximum first).
    """
    r = rng(401)
    cases = [(2, 5), (3, 3), (1, 4)]
    for shape in cases:
        X = r.normal(size=shape)
        e = np.exp(X)

        def diagnose(got, X=X, e=e):
            if matches(got, _softmax_ref(X, axis=0)):
                return (
                    'your rows do not sum to 1 but your columns do: '
                    'sum over axis=1 (each row is one example).'
                )
            if matches(got, e / e.sum(axis=1)[None, :]):
                return KEEPDIMS
            if matches(got, e / e.sum()):
                return (
                    'you divided by the sum over the whole array; '
                    'each row needs its own sum: axis=1, '
                    'keepdims=True.'
                )
            if matches(got, e):
                return 'divide exp(X) by the row sums.'
            return None

        got = call(
            student,
            as_nd(X),
            inputs={'X': X},
            hint=lambda err: KEEPDIMS if 'broadcast' in str(err) else None,
        )
        expect_close(got, _softmax_ref(X), {'X': X}, diagnose=diagnose)
    note = f'correct on inputs of shape {shapes(cases)}.'
    big = np.array([[100.0, 101.0, 102.0]])
    try:
        got = call(student, as_nd(big), inputs={'X': big})
        expect_close(got, _softmax_ref(big), {'X': big})
    except Failure as failure:
        if stable:
            raise Failure(
                f'not stable for large inputs: {failure.message}',
                'did you subtract the row maximum first? '
                'softmax(X) = softmax(X - X.max(axis=1, '
                'keepdims=True)).',
            ) from None
        return (
            note + ' (For large inputs such as [[100, 101, 102]] '
            'exp overflows to inf; subtracting each row\'s maximum '
            'first fixes that: try it with stable=True.)'
        )
    return note + ' It also handles large inputs.'


@exercise(
    'ch04.cross_entropy',
    hint='pick the predicted probability of the true class and take '
    '-log: -nd.pick(y_hat, y).log().',
)
def _cross_entropy(student):
    """cross_entropy(y_hat, y): -log of the probability of the true class."""
    r = rng(402)
    for n, q in [(4, 3), (2, 5)]:
        y_hat = _softmax_ref(r.normal(size=(n, q)))
        y = r.randint(0, q, size=n)
        expected = -np.log(y_hat[np.arange(n), y])

        def diagnose(got, y_hat=y_hat, expected=expected):
            if matches(got, -expected):
                return 'the sign: the loss is -log(p), which is positive.'
            if matches(got, -np.log(y_hat)):
                return (
                    'you took -log of every probability; keep only the '
                    'true class: nd.pick(y_hat, y).'
                )
            if np.size(got) == 1 and np.isclose(
                np.ravel(got)[0], expected.sum()
            ):
                return 'return one loss per example, not their sum.'
            if np.size(got) == 1 and np.isclose(
                np.ravel(got)[0], expected.mean()
            ):
                return 'return one loss per example, not their mean.'
            return None

        inputs = {'y_hat': y_hat, 'y': y}
        got = call(
            student, as_nd(y_hat), as_nd(y, dtype='int32'), inputs=inputs
        )
        expect_close(got, expected, inputs, diagnose=diagnose)
    return 'correct: one loss per example.'


@exercise(
    'ch04.accuracy',
    hint='y_hat.argmax(axis=1) gives the predicted classes; compare '
    'with y (after .astype(y.dtype)) and sum.',
)
def _accuracy(student):
    """accuracy(y_hat, y): the number of correct predictions."""
    r = rng(403)
    for n, q in [(6, 3), (10, 4)]:
        y_hat = r.normal(size=(n, q))
        y = r.randint(0, q, size=n)
        correct = float((y_hat.argmax(axis=1) == y).sum())
        inputs = {'y_hat': y_hat, 'y': y}
        got = call(
            student, as_nd(y_hat), as_nd(y, dtype='int32'), inputs=inputs
        )
        value = to_numpy(got, scalar=True)
        if np.isclose(value, correct):
            continue
        hint = None
        if np.isclose(value, correct / n):
            hint = (
                'return the count, not the fraction: evaluate_accuracy '
                'divides by the number of examples.'
            )
        elif value == 0 and correct > 0:
            hint = (
                'your function returned 0: comparing int32 arrays '
                'gives int32, whose mean rounds down to 0. Return the '
                'count, as a float: float(cmp.sum().asscalar()).'
            )
        raise Failure(
            f'for {n} examples with {int(correct)} correct '
            f'predictions your function returned {value:.4g}.',
            hint,
        )
    return 'correct: it counts the right predictions.'
