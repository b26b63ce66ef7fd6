"""Chapter 5 (multilayer perceptrons): ReLU, dropout, L2 penalty."""

import numpy as np

from .compare import (
    as_nd,
    call,
    describe,
    expect_close,
    matches,
    rng,
    to_numpy,
)
from .registry import exercise
from .result import Failure


@exercise('ch05.relu', hint='nd.maximum(X, 0)')
def _relu(student):
    """relu(X): max(X, 0), elementwise."""
    X = rng(501).normal(size=(3, 4))
    X[0, 0] = 0.0
    X_nd = as_nd(X)

    def diagnose(got):
        if matches(got, np.abs(X)):
            return 'that is |X|; negative values must become 0.'
        if matches(got, np.minimum(X, 0)):
            return 'that keeps the negative part; ReLU keeps max(X, 0).'
        if matches(got, (X > 0).astype(float)):
            return 'that is the derivative of ReLU (0 or 1); return max(X, 0).'
        return None

    got = call(student, X_nd, inputs={'X': X})
    expect_close(got, np.maximum(X, 0), {'X': X}, diagnose=diagnose)
    if not matches(X_nd.asnumpy(), X.astype(np.float32)):
        raise Failure(
            'your function changed its input X in place.',
            'return a new array (nd.maximum(X, 0)) and leave X as it was.',
        )
    return 'correct, and X was left unchanged.'


@exercise(
    'ch05.dropout_layer',
    hint='mask = nd.random.uniform(0, 1, X.shape) > dropout; return '
    'mask * X / (1.0 - dropout), and zeros when dropout == 1.',
)
def _dropout_layer(student):
    """dropout_layer(X, dropout): zero each element with probability
    ``dropout``, scale the others by 1 / (1 - dropout)."""
    X = rng(502).uniform(0.5, 1.5, size=(200, 100))

    got = call(student, as_nd(X), 0.0, inputs={'X': X, 'dropout': 0.0})

    def nothing_dropped(got):
        if matches(got, np.zeros_like(X)):
            return (
                'with dropout = 0 everything was dropped: keep each '
                'element with probability 1 - dropout, mask = '
                'uniform > dropout.'
            )
        return 'with dropout = 0 nothing is dropped: return X.'

    expect_close(got, X, {'X': X, 'dropout': 0.0}, diagnose=nothing_dropped)
    got = call(
        student,
        as_nd(X),
        1.0,
        inputs={'X': X, 'dropout': 1.0},
        hint=lambda err: (
            'with dropout = 1 return zeros (do not divide by 1 - 1 = 0).'
        ),
    )
    expect_close(
        got,
        np.zeros_like(X),
        {'X': X, 'dropout': 1.0},
        diagnose=lambda g: (
            'with dropout = 1 every element is '
            'dropped: return nd.zeros_like(X) '
            '(1 / (1 - 1) would divide by zero).'
        ),
    )
    for p in (0.2, 0.5):
        inputs = {'X': X, 'dropout': p}
        got = to_numpy(call(student, as_nd(X), p, inputs=inputs))
        if got.shape != X.shape:
            raise Failure(
                f'the result has shape {got.shape}, expected '
                f'{X.shape} (for {describe("X", X)}).'
            )
        kept = ~np.isclose(got, 0)
        scaled = np.isclose(got, X / (1 - p), rtol=1e-4)
        unscaled = np.isclose(got, X, rtol=1e-4)
        fraction = kept.mean()
        if kept.all():
            raise Failure(f'with dropout = {p} no element was set to 0.')
        if not (scaled | ~kept).all():
            hint = None
            if (unscaled | ~kept).all():
                hint = (
                    'divide the kept elements by 1 - dropout, so that '
                    'the expected value stays X.'
                )
            raise Failure(
                f'with dropout = {p} the kept elements should be '
                f'X / (1 - {p}) = X * {1 / (1 - p):.3g}.',
                hint,
            )
        if abs(fraction - (1 - p)) > 0.03:
            hint = None
            if abs(fraction - p) <= 0.03:
                hint = (
                    'you keep each element with probability dropout; '
                    'keep it with probability 1 - dropout: mask = '
                    'uniform > dropout.'
                )
            raise Failure(
                f'with dropout = {p}, {fraction:.1%} of the '
                f'elements were kept; expected about '
                f'{1 - p:.0%}.',
                hint,
            )
    return (
        'correct: about 1 - p of the elements are kept, scaled by 1 / (1 - p).'
    )


@exercise('ch05.l2_penalty', hint='(w ** 2).sum() / 2')
def _l2_penalty(student):
    """l2_penalty(w): half the squared L2 norm of w."""
    r = rng(503)
    for shape in [(5, 1), (3, 4)]:
        w = r.normal(size=shape)
        expected = float((w**2).sum() / 2)
        got = call(student, as_nd(w), inputs={'w': w})
        value = to_numpy(got, scalar=True)
        if np.isclose(value, expected, rtol=1e-4):
            continue
        hint = None
        if np.isclose(value, 2 * expected, rtol=1e-4):
            hint = 'divide by 2: the penalty is ||w||^2 / 2.'
        elif np.isclose(value, np.sqrt(2 * expected), rtol=1e-4):
            hint = (
                'that is the norm ||w||; the penalty uses the squared '
                'norm, divided by 2.'
            )
        raise Failure(
            f'for {describe("w", w)} the penalty is '
            f'{expected:.4g}, your function returned '
            f'{value:.4g}.',
            hint,
        )
    return 'correct: ||w||^2 / 2.'
