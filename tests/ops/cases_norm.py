"""Rows for the normalization layers: BatchNorm (dlbook/ops/batch_norm.py),
LayerNorm, InstanceNorm, L2Normalization (sample_norm.py) and LRN
(lrn.py)."""

import numpy as np

from tests.ops.cases import Case


def _bn_inputs(shape, axis):
    channels = shape[axis]

    def make(rng, dtype):
        return [
            rng.uniform(-2, 2, size=shape).astype(dtype),
            rng.uniform(0.5, 1.5, size=(channels,)).astype(dtype),
            rng.uniform(-0.5, 0.5, size=(channels,)).astype(dtype),
            rng.uniform(-0.2, 0.2, size=(channels,)).astype(dtype),
            rng.uniform(0.5, 1.5, size=(channels,)).astype(dtype),
        ]

    return make


def bn_ref(axis=1, eps=1e-3, fix_gamma=True, train=True, mean_var=False):
    def ref(x, gamma, beta, mm, mv):
        ax = axis % x.ndim
        axes = tuple(i for i in range(x.ndim) if i != ax)
        shape = [1] * x.ndim
        shape[ax] = x.shape[ax]
        if train:
            mean, var = x.mean(axis=axes), x.var(axis=axes)
        else:
            mean, var = mm, mv
        invstd = 1 / np.sqrt(var + eps)
        g = np.ones_like(gamma) if fix_gamma else gamma
        y = (x - mean.reshape(shape)) * invstd.reshape(shape) * g.reshape(
            shape
        ) + beta.reshape(shape)
        return (y, mean, invstd) if mean_var else y

    return ref


def ln_ref(axis=-1, eps=1e-5, mean_var=False):
    def ref(x, gamma, beta):
        shape = [1] * x.ndim
        shape[axis] = x.shape[axis]
        mean = x.mean(axis=axis, keepdims=True)
        std = np.sqrt(x.var(axis=axis, keepdims=True) + eps)
        y = (x - mean) / std * gamma.reshape(shape) + beta.reshape(shape)
        return (y, mean, std) if mean_var else y

    return ref


def in_ref(x, gamma, beta, eps=1e-3):
    axes = tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma.reshape(
        shape
    ) + beta.reshape(shape)


def _norm_inputs(shape, channels):
    def make(rng, dtype):
        return [
            rng.uniform(-2, 2, size=shape).astype(dtype),
            rng.uniform(0.5, 1.5, size=(channels,)).astype(dtype),
            rng.uniform(-0.5, 0.5, size=(channels,)).astype(dtype),
        ]

    return make


def l2_ref(axes):
    return lambda x: x / np.sqrt((x * x).sum(axis=axes, keepdims=True) + 1e-10)


def lrn_ref(nsize, alpha=1e-4, beta=0.75, knorm=2.0):
    """y_c = x_c / (knorm + alpha/nsize * sum of x_j^2, |j - c| <= n//2)^beta,
    one channel at a time."""

    def ref(x):
        half, channels = nsize // 2, x.shape[1]
        y = np.empty_like(x)
        for c in range(channels):
            window = x[:, max(c - half, 0) : min(c + half + 1, channels)]
            norm = knorm + alpha / nsize * (window**2).sum(axis=1)
            y[:, c] = x[:, c] * norm**-beta
        return y

    return ref


BN4 = [(4, 3, 2, 2), (3,), (3,), (3,), (3,)]

CASES = {
    'BatchNorm': [
        # training, learnt gamma, NCHW
        Case(
            BN4,
            attrs={'fix_gamma': False},
            is_train=True,
            make_inputs=_bn_inputs((4, 3, 2, 2), 1),
            ref=bn_ref(fix_gamma=False),
            atol=1e-5,
        ),
        # training, fix_gamma=True (the raw op's default), (N, C)
        Case(
            [(6, 3), (3,), (3,), (3,), (3,)],
            is_train=True,
            make_inputs=_bn_inputs((6, 3), 1),
            ref=bn_ref(),
            atol=1e-5,
        ),
        # training, fix_gamma=True, NCHW and NCW (the channel sums taken
        # as matrix-vector products)
        Case(
            BN4,
            is_train=True,
            make_inputs=_bn_inputs((4, 3, 2, 2), 1),
            ref=bn_ref(),
            atol=1e-5,
        ),
        Case(
            [(3, 4, 5), (4,), (4,), (4,), (4,)],
            attrs={'fix_gamma': False},
            is_train=True,
            make_inputs=_bn_inputs((3, 4, 5), 1),
            ref=bn_ref(fix_gamma=False),
            atol=1e-5,
        ),
        # inference: moving statistics
        Case(
            BN4,
            attrs={'fix_gamma': False},
            make_inputs=_bn_inputs((4, 3, 2, 2), 1),
            ref=bn_ref(fix_gamma=False, train=False),
        ),
        # training, channels last
        Case(
            [(2, 3, 4), (4,), (4,), (4,), (4,)],
            attrs={'fix_gamma': False, 'axis': -1},
            is_train=True,
            make_inputs=_bn_inputs((2, 3, 4), 2),
            ref=bn_ref(axis=-1, fix_gamma=False),
            atol=1e-5,
        ),
        # training with use_global_stats: moving statistics, no update
        Case(
            BN4,
            attrs={'fix_gamma': False, 'use_global_stats': True},
            is_train=True,
            make_inputs=_bn_inputs((4, 3, 2, 2), 1),
            ref=bn_ref(fix_gamma=False, train=False),
        ),
        # extra outputs (mean, invstd): no gradient flows through them
        Case(
            BN4,
            attrs={'fix_gamma': False, 'output_mean_var': True, 'eps': 1e-5},
            is_train=True,
            make_inputs=_bn_inputs((4, 3, 2, 2), 1),
            ref=bn_ref(fix_gamma=False, eps=1e-5, mean_var=True),
            grad=(),
            atol=1e-5,
        ),
    ],
    'LayerNorm': [
        Case(
            [(3, 5), (5,), (5,)],
            make_inputs=_norm_inputs((3, 5), 5),
            ref=ln_ref(),
            atol=1e-5,
        ),
        Case(
            [(2, 3, 4), (3,), (3,)],
            attrs={'axis': 1},
            make_inputs=_norm_inputs((2, 3, 4), 3),
            ref=ln_ref(axis=1),
            atol=1e-5,
        ),
        Case(
            [(3, 5), (5,), (5,)],
            attrs={'output_mean_var': True},
            make_inputs=_norm_inputs((3, 5), 5),
            ref=ln_ref(mean_var=True),
            grad=(),
            atol=1e-5,
        ),
    ],
    'InstanceNorm': [
        Case(
            [(2, 3, 4), (3,), (3,)],
            make_inputs=_norm_inputs((2, 3, 4), 3),
            ref=in_ref,
            atol=1e-5,
        ),
        Case(
            [(2, 3, 2, 3), (3,), (3,)],
            make_inputs=_norm_inputs((2, 3, 2, 3), 3),
            ref=in_ref,
            atol=1e-5,
        ),
    ],
    'L2Normalization': [
        Case([(3, 4, 2)], ref=l2_ref((1, 2))),
        Case([(3, 4, 2)], attrs={'mode': 'channel'}, ref=l2_ref((1,))),
        Case([(2, 3, 2, 2)], attrs={'mode': 'spatial'}, ref=l2_ref((2, 3))),
    ],
    'LRN': [
        Case([(2, 4, 3, 3)], attrs={'nsize': 3}, ref=lrn_ref(3)),
        # strong normalization, a window wider than the channels
        Case(
            [(2, 3, 2, 3)],
            attrs={'nsize': 5, 'alpha': 2.0, 'beta': 0.5, 'knorm': 1.0},
            low=-2.0,
            high=2.0,
            ref=lrn_ref(5, 2.0, 0.5, 1.0),
        ),
        Case(
            [(1, 6, 2, 2)],
            attrs={'nsize': 1, 'alpha': 0.5, 'beta': 1.5},
            ref=lrn_ref(1, 0.5, 1.5),
        ),
    ],
}
