"""Chapter 2 (autograd): gradients computed with ``autograd.record``."""

import numpy as np

from .compare import as_nd, call, expect_close, matches, rng
from .registry import exercise

RECORD = (
    'call x.attach_grad(), compute y inside `with autograd.record():`, '
    'call y.backward() and return x.grad.'
)


def _grad_hint(err):
    text = str(err)
    if 'attach_grad' in text or 'grad' in text:
        return RECORD
    return None


@exercise('ch02.grad_2xTx', hint=RECORD)
def _grad_2xtx(student):
    """grad_2xTx(x): the gradient of y = 2 x.x with respect to x."""
    cases = [np.arange(4.0), rng(201).normal(size=7)]
    for x in cases:

        def diagnose(got, x=x):
            if matches(got, 2 * x):
                return (
                    'that is the gradient of x.x times 1; y = 2 * '
                    'nd.dot(x, x) has gradient 4x.'
                )
            if matches(got, np.zeros_like(x)):
                return (
                    'all zeros: was y computed inside '
                    '`with autograd.record():`, and did you call '
                    'y.backward()?'
                )
            if np.size(got) == 1 and np.isclose(np.ravel(got)[0], 2 * x @ x):
                return 'you returned y itself; return x.grad.'
            return None

        got = call(student, as_nd(x), inputs={'x': x}, hint=_grad_hint)
        expect_close(
            got, 4 * x, {'x': x}, what='the gradient', diagnose=diagnose
        )
    return 'correct: the gradient of 2 x.x is 4x.'


@exercise('ch02.sin_grad', hint=RECORD)
def _sin_grad(student):
    """sin_grad(x): d sin(x) / dx computed with autograd (not cos!)."""
    x = np.linspace(-np.pi, np.pi, 9)

    def diagnose(got):
        if matches(got, np.sin(x)):
            return 'you returned sin(x) itself; return x.grad.'
        if matches(got, -np.cos(x)):
            return 'the sign is flipped: d sin(x)/dx = cos(x).'
        if matches(got, np.zeros_like(x)):
            return (
                'all zeros: was y computed inside '
                '`with autograd.record():`, and did you call '
                'y.backward()?'
            )
        return None

    got = call(student, as_nd(x), inputs={'x': x}, hint=_grad_hint)
    expect_close(
        got, np.cos(x), {'x': x}, what='the gradient', diagnose=diagnose
    )
    return 'correct: autograd found cos(x).'
