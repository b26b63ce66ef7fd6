"""Chapter 3 (linear regression from scratch): model, loss, optimizer."""

import numpy as np

from .. import nd
from ..ndarray.ndarray import NDArray
from .compare import as_nd, call, expect_close, matches, rng
from .registry import exercise
from .result import Failure


@exercise('ch03.linreg', hint='return nd.dot(X, w) + b.')
def _linreg(student):
    """linreg(X, w, b): the linear model Xw + b."""
    r = rng(301)
    for n, d in [(4, 2), (1, 3), (6, 1)]:
        X, w, b = (
            r.normal(size=(n, d)),
            r.normal(size=(d, 1)),
            r.normal(size=(1,)),
        )
        expected = X @ w + b

        def diagnose(got, X=X, w=w, b=b):
            if matches(got, X @ w):
                return 'the bias b is missing: Xw + b.'
            if matches(got, X * w.T + b):
                return (
                    'that is an elementwise product; a matrix-vector '
                    'product is nd.dot(X, w).'
                )
            return None

        inputs = {'X': X, 'w': w, 'b': b}
        got = call(student, as_nd(X), as_nd(w), as_nd(b), inputs=inputs)
        expect_close(got, expected, inputs, diagnose=diagnose)
    return 'correct: predictions of shape (n, 1).'


@exercise(
    'ch03.squared_loss', hint='(y_hat - y.reshape(y_hat.shape)) ** 2 / 2'
)
def _squared_loss(student):
    """squared_loss(y_hat, y): (y_hat - y)^2 / 2 for each example."""
    r = rng(302)
    for n in (5, 3):
        y_hat, y = r.normal(size=(n, 1)), r.normal(size=(n,))
        diff = y_hat - y.reshape(n, 1)
        expected = diff**2 / 2

        def diagnose(got, n=n, diff=diff):
            if np.shape(got) == (n, n):
                return (
                    f'y has shape ({n},) and y_hat ({n}, 1), so '
                    f'y_hat - y broadcasts to ({n}, {n}); reshape y '
                    f'to y_hat.shape first.'
                )
            if matches(got, diff**2):
                return 'divide by 2: the loss is (y_hat - y) ** 2 / 2.'
            if np.size(got) == 1:
                return (
                    'return one loss per example (shape (n, 1)); '
                    'the training loop sums them.'
                )
            return None

        inputs = {'y_hat': y_hat, 'y': y}
        got = call(student, as_nd(y_hat), as_nd(y), inputs=inputs)
        expect_close(got, expected, inputs, diagnose=diagnose)
    return 'correct, and y was reshaped to match y_hat.'


@exercise(
    'ch03.sgd',
    hint='for param in params: param[:] = param - lr * param.grad / '
    'batch_size',
)
def _sgd(student):
    """sgd(params, lr, batch_size): one in-place minibatch SGD step."""
    r = rng(303)
    values = [r.normal(size=(3, 1)), r.normal(size=(1,))]
    grads = [r.normal(size=(3, 1)), r.normal(size=(1,))]
    lr, batch_size = 0.1, 4
    params = []
    for value, grad in zip(values, grads):
        param = as_nd(value)
        param.attach_grad()
        param.grad[:] = nd.array(grad)
        params.append(param)
    originals = list(params)
    inputs = {'lr': lr, 'batch_size': batch_size}
    call(student, params, lr, batch_size, inputs=inputs)
    if any(p is not o for p, o in zip(params, originals)):
        raise Failure(
            'your function replaced the arrays in the params '
            'list instead of updating them.',
            'write into each array: param[:] = ...',
        )
    for i, (param, value, grad) in enumerate(zip(params, values, grads)):
        got = param.asnumpy()
        expected = value - lr * grad / batch_size

        def diagnose(got, value=value, grad=grad):
            if matches(got, value):
                return (
                    'the parameter did not change: `param = ...` only '
                    'rebinds a local name; write param[:] = ... (or '
                    'param -= ...) to update the array in place.'
                )
            if matches(got, value - lr * grad):
                return (
                    'divide the gradient by batch_size: the loss was '
                    'summed over the batch.'
                )
            if matches(got, value + lr * grad / batch_size):
                return 'step against the gradient: param - lr * grad, not +.'
            return None

        if not isinstance(param, NDArray):
            raise Failure(f'params[{i}] is no longer an NDArray.')
        expect_close(
            got,
            expected,
            {f'params[{i}]': value, **inputs},
            what=f'params[{i}] after the update',
            diagnose=diagnose,
        )
    return 'correct: both parameters were updated in place.'
