"""Rows for dlbook/ops/legacy.py, amp.py, attention.py, fft.py and
batch_norm_variants.py.

Loss outputs (SVMOutput), the straight-through estimators and
IdentityAttachKLSparseReg have gradients that are not the derivative of
their forward pass: their rows have ``grad=()`` and their gradients are
checked against MXNet's values in test_legacy_mxnet.py.
"""

import numpy as np

from tests.ops.cases import Case


def group_norm(x, gamma, beta, groups=2, eps=1e-5):
    g = x.reshape(x.shape[0], groups, -1).astype(np.float64)
    mean = g.mean(axis=2, keepdims=True)
    std = np.sqrt(g.var(axis=2, keepdims=True) + eps)
    y = (g - mean) / std * gamma[None, :, None] + beta[None, :, None]
    return y.reshape(x.shape), mean[..., 0], std[..., 0]


def im2col(x, kernel, stride, dilate, pad):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0],) * 2, (pad[1],) * 2))
    oh = (h + 2 * pad[0] - dilate[0] * (kernel[0] - 1) - 1) // stride[0] + 1
    ow = (w + 2 * pad[1] - dilate[1] * (kernel[1] - 1) - 1) // stride[1] + 1
    out = np.zeros((n, c, kernel[0], kernel[1], oh, ow), x.dtype)
    for ky in range(kernel[0]):
        for kx in range(kernel[1]):
            y0, x0 = ky * dilate[0], kx * dilate[1]
            out[:, :, ky, kx] = xp[
                :,
                :,
                y0 : y0 + stride[0] * oh : stride[0],
                x0 : x0 + stride[1] * ow : stride[1],
            ]
    return out.reshape(n, -1, oh * ow)


def col2im(cols, size, kernel, stride, dilate, pad):
    n = cols.shape[0]
    c = cols.shape[1] // (kernel[0] * kernel[1])
    h, w = size
    oh = (h + 2 * pad[0] - dilate[0] * (kernel[0] - 1) - 1) // stride[0] + 1
    ow = (w + 2 * pad[1] - dilate[1] * (kernel[1] - 1) - 1) // stride[1] + 1
    blocks = cols.reshape(n, c, kernel[0], kernel[1], oh, ow)
    out = np.zeros((n, c, h + 2 * pad[0], w + 2 * pad[1]), cols.dtype)
    for ky in range(kernel[0]):
        for kx in range(kernel[1]):
            y0, x0 = ky * dilate[0], kx * dilate[1]
            out[
                :,
                :,
                y0 : y0 + stride[0] * oh : stride[0],
                x0 : x0 + stride[1] * ow : stride[1],
            ] += blocks[:, :, ky, kx]
    return out[:, :, pad[0] : pad[0] + h, pad[1] : pad[1] + w]


def heads(a, h, parts):
    """(L, B, h * parts * D) -> (B, h, parts, L, D)"""
    length, batch, width = a.shape
    return a.reshape(length, batch, h, parts, -1).transpose(1, 2, 3, 0, 4)


def scores(q, k):
    b, h, s, d = q.shape
    return (q @ k.transpose(0, 1, 3, 2) / np.sqrt(d)).reshape(b * h, s, -1)


def weighted(att, v):
    b, h, t, d = v.shape
    out = att.reshape(b, h, -1, t) @ v
    return out.transpose(2, 0, 1, 3).reshape(out.shape[2], b, h * d)


def fft(x):
    z = np.fft.fft(x, axis=-1)
    return np.stack([z.real, z.imag], -1).reshape(x.shape[:-1] + (-1,))


def ifft(x):
    z = x[..., 0::2] + 1j * x[..., 1::2]
    return np.fft.ifft(z, axis=-1).real * z.shape[-1]


def _labels(shape, classes):
    def make(rng, dtype):
        return [
            rng.uniform(-2, 2, size=shape).astype(dtype),
            rng.randint(0, classes, size=shape[:-1]).astype(dtype),
        ]

    return make


def _sketch(rng, dtype):
    return [
        rng.uniform(-1, 1, size=(3, 5)).astype(dtype),
        np.array([[0, 3, 1, 3, 2]], dtype),
        np.array([[1, -1, -1, 1, 1]], dtype),
    ]


def _bn_inputs(shape):
    def make(rng, dtype):
        c = shape[1]
        return [
            rng.uniform(-1, 1, size=shape).astype(dtype),
            rng.uniform(0.5, 1.5, size=(c,)).astype(dtype),
            rng.uniform(-0.5, 0.5, size=(c,)).astype(dtype),
            rng.uniform(-0.2, 0.2, size=(c,)).astype(dtype),
            rng.uniform(0.5, 1.5, size=(c,)).astype(dtype),
        ]

    return make


def _batch_norm(x, gamma, beta, mean, var, eps=1e-3, relu=False):
    m = x.mean(axis=(0, 2), keepdims=True)
    v = x.var(axis=(0, 2), keepdims=True)
    y = (x - m) / np.sqrt(v + eps) * gamma[:, None] + beta[:, None]
    return np.maximum(y, 0) if relu else y


def _kl_inputs(rng, dtype):
    return [
        rng.uniform(0.1, 0.9, size=(4, 3)).astype(dtype),
        rng.uniform(0.2, 0.6, size=(3,)).astype(dtype),
    ]


_GN = {'num_groups': 2}
_WINDOW = {'kernel': (2, 3), 'stride': (2, 1), 'dilate': (1, 2), 'pad': (1, 0)}
_FOLD = {
    'output_size': (4, 5),
    'kernel': (2, 3),
    'stride': (2, 2),
    'pad': (1, 1),
}

CASES = {
    'GroupNorm': [
        Case(
            [(2, 4, 3), (2,), (2,)],
            attrs=_GN,
            ref=lambda x, g, b: group_norm(x, g, b)[0],
            rtol=1e-4,
            atol=1e-5,
        ),
        Case(
            [(3, 6, 2, 2), (3,), (3,)],
            attrs={'num_groups': 3, 'eps': 0.01, 'output_mean_var': True},
            ref=lambda x, g, b: group_norm(x, g, b, 3, 0.01),
            grad=(),  # mean and std pass no gradient (as in MXNet)
            rtol=1e-4,
            atol=1e-5,
        ),
    ],
    'SVMOutput': [
        Case(
            [(4, 5), (4,)],
            make_inputs=_labels((4, 5), 5),
            ref=lambda x, y: x,
            grad=(),
        ),
        Case(
            [(2, 3, 4), (2, 3)],
            attrs={'use_linear': True, 'margin': 0.5},
            make_inputs=_labels((2, 3, 4), 4),
            ref=lambda x, y: x,
            grad=(),
        ),
    ],
    'im2col': Case(
        [(2, 2, 4, 5)],
        attrs=_WINDOW,
        ref=lambda x: im2col(x, (2, 3), (2, 1), (1, 2), (1, 0)),
    ),
    'col2im': Case(
        [(2, 12, 9)],
        attrs=_FOLD,
        ref=lambda c: col2im(c, (4, 5), (2, 3), (2, 2), (1, 1), (1, 1)),
    ),
    'IdentityAttachKLSparseReg': Case(
        [(4, 3), (3,)],
        make_inputs=_kl_inputs,
        is_train=True,
        ref=lambda x, avg: x,
        grad=(),
    ),
    'amp_cast': [
        Case(
            [(2, 3)], attrs={'dtype': 'float64'}, ref=lambda x: x, dtypes=()
        ),  # fmt: skip
        Case(
            [(2, 3)],
            attrs={'dtype': 'float32'},
            ref=lambda x: x,
            dtypes=('float32',),
            grad=(),
        ),  # fmt: skip
    ],
    'amp_multicast': Case(
        [(2, 3), (3,)],
        attrs={'num_outputs': 2},
        ref=lambda a, b: (a, b),
    ),
    # no outputs, so nothing for a graph to reach: MXNet's own symbol of
    # it crashes; the zeroing in place is checked in test_legacy_mxnet.py
    'reset_arrays': Case([], attrs={'num_arrays': 0}, ref=lambda: ()),
    '_contrib_round_ste': Case(
        [(3, 4)],
        low=-3,
        high=3,
        avoid=(-2.5, -1.5, -0.5, 0.5, 1.5, 2.5),
        ref=lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5),
        grad=(),
    ),  # fmt: skip
    '_contrib_sign_ste': Case([(3, 4)], avoid=(0,), ref=np.sign, grad=()),
    '_contrib_interleaved_matmul_selfatt_qk': Case(
        [(3, 2, 12)],
        attrs={'heads': 2},
        ref=lambda a: scores(heads(a, 2, 3)[:, :, 0], heads(a, 2, 3)[:, :, 1]),
    ),
    '_contrib_interleaved_matmul_selfatt_valatt': Case(
        [(3, 2, 12), (4, 3, 3)],
        attrs={'heads': 2},
        ref=lambda a, att: weighted(att, heads(a, 2, 3)[:, :, 2]),
    ),
    '_contrib_interleaved_matmul_encdec_qk': Case(
        [(3, 2, 4), (5, 2, 8)],
        attrs={'heads': 2},
        ref=lambda q, kv: scores(
            heads(q, 2, 1)[:, :, 0], heads(kv, 2, 2)[:, :, 0]
        ),
    ),
    '_contrib_interleaved_matmul_encdec_valatt': Case(
        [(5, 2, 8), (4, 3, 5)],
        attrs={'heads': 2},
        ref=lambda kv, att: weighted(att, heads(kv, 2, 2)[:, :, 1]),
    ),
    '_contrib_fft': [
        Case([(3, 4)], ref=fft, rtol=1e-5, atol=1e-5),
        Case([(2, 1, 2, 5)], ref=fft, rtol=1e-5, atol=1e-5),
    ],
    '_contrib_ifft': [
        Case([(3, 8)], ref=ifft, rtol=1e-5, atol=1e-5),
        Case([(2, 1, 2, 6)], ref=ifft, rtol=1e-5, atol=1e-5),
    ],
    '_contrib_count_sketch': Case(
        [(3, 5), (1, 5), (1, 5)],
        attrs={'out_dim': 4},
        make_inputs=_sketch,
        ref=lambda x, h, s: x @ (s.T * (h.T == np.arange(4))),
        grad=(0,),
    ),
    '_contrib_BatchNormWithReLU': Case(
        [(4, 3, 2), (3,), (3,), (3,), (3,)],
        attrs={'fix_gamma': False},
        make_inputs=_bn_inputs((4, 3, 2)),
        is_train=True,
        ref=lambda x, g, b, m, v: _batch_norm(x, g, b, m, v, relu=True),
        rtol=1e-4,
        atol=1e-5,
    ),
    '_contrib_SyncBatchNorm': Case(
        [(4, 3, 2), (3,), (3,), (3,), (3,)],
        attrs={'fix_gamma': False, 'key': 'bn0'},
        make_inputs=_bn_inputs((4, 3, 2)),
        is_train=True,
        ref=lambda x, g, b, m, v: _batch_norm(x, g, b, m, v),
        rtol=1e-4,
        atol=1e-5,
    ),
}
