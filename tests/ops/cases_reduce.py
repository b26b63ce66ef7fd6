"""Rows for the reductions (dlbook/ops/reduce.py)."""

import numpy as np

from tests.ops.cases import Case

X = [(2, 3, 4)]


def full(f):
    """Reference for a reduction over every axis: shape (1,), never 0-d."""
    return lambda x: np.asarray(f(x)).reshape(1)


def reductions(f, **kw):
    """Rows for one reduction: all axes, one axis, negative axis, several
    axes with keepdims, exclude, and exclude with keepdims."""
    return [
        Case(X, ref=full(f), **kw),
        Case(X, attrs={'axis': 1}, ref=lambda x: f(x, axis=1), **kw),
        Case(X, attrs={'axis': -1}, ref=lambda x: f(x, axis=-1), **kw),
        Case(
            X,
            attrs={'axis': (0, 2), 'keepdims': True},
            ref=lambda x: f(x, axis=(0, 2), keepdims=True),
            **kw,
        ),
        Case(
            X,
            attrs={'axis': 1, 'exclude': True},
            ref=lambda x: f(x, axis=(0, 2)),
            **kw,
        ),
        Case(
            X,
            attrs={'axis': (0,), 'exclude': True, 'keepdims': True},
            ref=lambda x: f(x, axis=(1, 2), keepdims=True),
            **kw,
        ),
    ]


def with_nans(rng, dtype):
    x = rng.uniform(0.5, 1.5, size=(2, 3, 4))
    x[rng.uniform(size=x.shape) < 0.25] = np.nan
    return [x.astype(dtype)]


def nan_rows(f):
    return [
        Case(X, ref=full(f), make_inputs=with_nans),
        Case(
            X,
            attrs={'axis': 1},
            ref=lambda x: f(x, axis=1),
            make_inputs=with_nans,
        ),
        Case(
            X,
            attrs={'axis': (0, 2), 'keepdims': True},
            ref=lambda x: f(x, axis=(0, 2), keepdims=True),
            make_inputs=with_nans,
        ),
    ]


def as_float(f):
    return lambda x: f(x).astype(x.dtype)


def arg_rows(f):
    return [
        Case(X, grad=(), ref=as_float(lambda x: np.array([f(x)]))),
        Case(
            X, attrs={'axis': 1}, grad=(), ref=as_float(lambda x: f(x, axis=1))
        ),
        Case(
            X,
            attrs={'axis': -1, 'keepdims': True},
            grad=(),
            ref=as_float(lambda x: np.expand_dims(f(x, axis=-1), -1)),
        ),
        Case(
            [(5,)],
            attrs={'axis': 0},
            grad=(),
            ref=as_float(lambda x: np.array([f(x)])),
        ),
    ]


def l1(x, axis=None, keepdims=False):
    return np.abs(x).sum(axis=axis, keepdims=keepdims)


def l2(x, axis=None, keepdims=False):
    return np.sqrt((x * x).sum(axis=axis, keepdims=keepdims))


CASES = {
    'sum': reductions(np.sum),
    'mean': reductions(np.mean),
    'prod': reductions(np.prod, low=0.5, high=1.5),
    'max': reductions(np.max),
    'min': reductions(np.min),
    'nansum': nan_rows(np.nansum),
    'nanprod': nan_rows(np.nanprod),
    'norm': [
        Case(X, ref=full(l2)),
        Case(X, attrs={'ord': 1}, ref=full(l1), avoid=(0.0,)),
        Case(X, attrs={'axis': 1}, ref=lambda x: l2(x, axis=1)),
        Case(
            X,
            attrs={'ord': 1, 'axis': -1, 'keepdims': True},
            ref=lambda x: l1(x, axis=-1, keepdims=True),
            avoid=(0.0,),
        ),
        Case(
            X,
            attrs={'axis': (1, 2), 'keepdims': True},
            ref=lambda x: l2(x, axis=(1, 2), keepdims=True),
        ),
    ],
    'argmax': arg_rows(np.argmax),
    'argmin': arg_rows(np.argmin),
    'argmax_channel': [
        Case([(3, 4)], grad=(), ref=as_float(lambda x: np.argmax(x, -1))),
        Case(
            [(5,)], grad=(), ref=as_float(lambda x: np.array([np.argmax(x)]))
        ),
    ],
}
