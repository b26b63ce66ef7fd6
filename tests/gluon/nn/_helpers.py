"""Shared checks for the layer tests: NumPy views of parameters and a
float64 central-difference check of input and parameter gradients."""

import numpy as np

from dlbook import autograd, nd
from dlbook.test_utils import assert_almost_equal


def value(param, ctx):
    """A parameter's data on ``ctx`` as a NumPy array."""
    return param.data(ctx).asnumpy()


def rand(shape, ctx, low=-1.0, high=1.0, seed=0, dtype='float32'):
    """A reproducible uniform NDArray and its NumPy twin."""
    data = np.random.RandomState(seed).uniform(low, high, shape)
    data = data.astype(dtype)
    return nd.array(data, ctx=ctx, dtype=dtype), data


def check_gradients(
    block, x, ctx, train=False, wrt_input=True, eps=1e-6, rtol=1e-5, atol=1e-8
):
    """Compare autograd's input and parameter gradients of
    ``sum(block(x) * cot)`` (random ``cot``) with central differences.

    The block is cast to float64 first; ``train`` runs the numeric
    forwards in training mode too (BatchNorm batch statistics);
    ``wrt_input=False`` skips the input (integer indices of Embedding).
    """
    block.cast('float64')
    x = nd.array(np.asarray(x, dtype=np.float64), ctx=ctx, dtype='float64')
    params = [
        p for p in block.collect_params().values() if p.grad_req != 'null'
    ]
    scope = autograd.train_mode if train else autograd.predict_mode
    with scope():
        out_shape = block(x).shape
    cot = np.random.RandomState(1).uniform(-1, 1, out_shape)

    def loss():
        with scope():
            return float((block(x).asnumpy() * cot).sum())

    def numeric(array):
        """d loss / d array, perturbing the NDArray ``array`` in place."""
        base = array.asnumpy()
        grad = np.zeros_like(base)
        for i in np.ndindex(base.shape):
            for sign in (1, -1):
                moved = base.copy()
                moved[i] += sign * eps
                array[:] = nd.array(moved, ctx=ctx, dtype='float64')
                grad[i] += sign * loss() / (2 * eps)
        array[:] = nd.array(base, ctx=ctx, dtype='float64')
        return grad

    x.attach_grad()
    with autograd.record(train_mode=train):
        out = block(x)
    out.backward(nd.array(cot, ctx=ctx, dtype='float64'))
    analytic = [x.grad.asnumpy()] + [p.grad(ctx).asnumpy() for p in params]
    names = ['input'] + [p.name for p in params]
    arrays = [x] + [p.data(ctx) for p in params]
    checks = list(zip(names, analytic, arrays))
    if not wrt_input:
        checks = checks[1:]
    assert checks, 'nothing to check'
    for name, got, array in checks:
        assert_almost_equal(
            got,
            numeric(array),
            rtol=rtol,
            atol=atol,
            names=(f'autograd d/d{name}', f'numeric d/d{name}'),
        )


__all__ = ['value', 'rand', 'check_gradients']
