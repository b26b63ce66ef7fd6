"""Case rows for Convolution and Deconvolution, with loop-based references.

The references below are deliberately naive: explicit loops over batch
items, filters and output positions, written straight from the defining
formulas, so they share no code (and no index tricks) with
``dlbook/ops/conv_reference.py``, ``convolution.py`` and
``deconvolution.py``.  ``test_conv_pool_reference.py`` reuses them.
"""

from functools import partial

import numpy as np

from tests.ops.cases import Case


def _tuple(value, nd, default):
    if value is None or value == ():
        return (default,) * nd
    return tuple(value)


def conv_ref(x, w, b=None, stride=None, pad=None, dilate=None, groups=1):
    """y[n, f, o] = b[f] + sum_{c, k} w[f, c, k] x_pad[n, gC+c, o*s + k*d]."""
    x, w = np.asarray(x, np.float64), np.asarray(w, np.float64)
    nd = x.ndim - 2
    kernel = w.shape[2:]
    stride, dilate = _tuple(stride, nd, 1), _tuple(dilate, nd, 1)
    pad = _tuple(pad, nd, 0)
    n_batch, channels = x.shape[:2]
    filters = w.shape[0]
    cg, fg = channels // groups, filters // groups
    x_pad = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    out = tuple(
        (x_pad.shape[2 + i] - dilate[i] * (kernel[i] - 1) - 1) // stride[i] + 1
        for i in range(nd)
    )
    y = np.zeros((n_batch, filters) + out)
    for n in range(n_batch):
        for f in range(filters):
            g = f // fg
            for o in np.ndindex(*out):
                total = 0.0
                for c in range(cg):
                    for k in np.ndindex(*kernel):
                        i = tuple(
                            o[a] * stride[a] + k[a] * dilate[a]
                            for a in range(nd)
                        )
                        total += w[(f, c) + k] * x_pad[(n, g * cg + c) + i]
                y[(n, f) + o] = total + (0.0 if b is None else b[f])
    return y


def conv_grad_ref(x, w, dy, stride=None, pad=None, dilate=None, groups=1):
    """(dx, dw, db) of conv_ref for the output gradient ``dy``, by the same
    loops: every product w * x_pad sends dy to both factors."""
    x, w = np.asarray(x, np.float64), np.asarray(w, np.float64)
    nd = x.ndim - 2
    kernel = w.shape[2:]
    stride, dilate = _tuple(stride, nd, 1), _tuple(dilate, nd, 1)
    pad = _tuple(pad, nd, 0)
    channels, filters = x.shape[1], w.shape[0]
    cg, fg = channels // groups, filters // groups
    x_pad = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    dx_pad, dw = np.zeros_like(x_pad), np.zeros_like(w)
    out = dy.shape[2:]
    for n in range(x.shape[0]):
        for f in range(filters):
            g = f // fg
            for o in np.ndindex(*out):
                grad = dy[(n, f) + o]
                for c in range(cg):
                    for k in np.ndindex(*kernel):
                        i = tuple(
                            o[a] * stride[a] + k[a] * dilate[a]
                            for a in range(nd)
                        )
                        dx_pad[(n, g * cg + c) + i] += grad * w[(f, c) + k]
                        dw[(f, c) + k] += grad * x_pad[(n, g * cg + c) + i]
    crop = (slice(None), slice(None)) + tuple(
        slice(p, p + s) for p, s in zip(pad, x.shape[2:])
    )
    db = dy.sum(axis=(0,) + tuple(range(2, dy.ndim)))
    return dx_pad[crop], dw, db


def deconv_ref(
    x, w, b=None, stride=None, pad=None, dilate=None, adj=None, groups=1
):
    """Scatter form: x[n, c, i] adds x * w[c, f, k] to
    y_pad[n, gF+f, i*s + k*d]; y = y_pad cropped by ``pad``."""
    x, w = np.asarray(x, np.float64), np.asarray(w, np.float64)
    nd = x.ndim - 2
    kernel = w.shape[2:]
    stride, dilate = _tuple(stride, nd, 1), _tuple(dilate, nd, 1)
    pad, adj = _tuple(pad, nd, 0), _tuple(adj, nd, 0)
    n_batch, channels = x.shape[:2]
    fg = w.shape[1]
    cg = channels // groups
    full = tuple(
        (x.shape[2 + a] - 1) * stride[a]
        + dilate[a] * (kernel[a] - 1)
        + 1
        + adj[a]
        for a in range(nd)
    )
    y_pad = np.zeros((n_batch, fg * groups) + full)
    for n in range(n_batch):
        for c in range(channels):
            g = c // cg
            for i in np.ndindex(*x.shape[2:]):
                for f in range(fg):
                    for k in np.ndindex(*kernel):
                        o = tuple(
                            i[a] * stride[a] + k[a] * dilate[a]
                            for a in range(nd)
                        )
                        y_pad[(n, g * fg + f) + o] += (
                            x[(n, c) + i] * w[(c, f) + k]
                        )
    crop = (slice(None), slice(None)) + tuple(
        slice(p, s - p) for p, s in zip(pad, full)
    )
    y = y_pad[crop]
    if b is not None:
        y = y + np.asarray(b).reshape((1, -1) + (1,) * nd)
    return y


def _conv(x, w, b=None, **kw):
    return conv_ref(x, w, b, **kw)


def _deconv(x, w, b=None, **kw):
    return deconv_ref(x, w, b, **kw)


def _first(a):
    return np.moveaxis(a, -1, 1)


def _conv_last(x, w, b=None, **kw):
    """Channels-last (NHWC data, (F, kh, kw, C) weight) through the
    channels-first reference: MXNet's layout='NHWC'."""
    return np.moveaxis(conv_ref(_first(x), _first(w), b, **kw), 1, -1)


def _deconv_last(x, w, b=None, **kw):
    return np.moveaxis(deconv_ref(_first(x), _first(w), b, **kw), 1, -1)


# Convolution is linear: float32 sums of a few dozen terms differ from the
# float64 reference by ~1e-7 relative, hence atol=1e-5.
TOL = dict(rtol=1e-5, atol=1e-5)

CASES = {
    'Convolution': [
        # 2-D, the shape of the docs example
        Case(
            [(2, 2, 5, 5), (3, 2, 3, 3), (3,)],
            attrs={'kernel': (3, 3), 'num_filter': 3},
            ref=_conv,
            **TOL,
        ),
        # stride 2, pad 1
        Case(
            [(2, 2, 5, 5), (3, 2, 3, 3), (3,)],
            attrs={
                'kernel': (3, 3),
                'num_filter': 3,
                'stride': (2, 2),
                'pad': (1, 1),
            },
            ref=partial(_conv, stride=(2, 2), pad=(1, 1)),
            **TOL,
        ),
        # dilation 2 with padding
        Case(
            [(1, 2, 6, 6), (2, 2, 2, 2), (2,)],
            attrs={
                'kernel': (2, 2),
                'num_filter': 2,
                'dilate': (2, 2),
                'pad': (1, 1),
            },
            ref=partial(_conv, dilate=(2, 2), pad=(1, 1)),
            **TOL,
        ),
        # two groups
        Case(
            [(2, 4, 4, 4), (4, 2, 3, 3), (4,)],
            attrs={
                'kernel': (3, 3),
                'num_filter': 4,
                'num_group': 2,
                'pad': (1, 1),
            },
            ref=partial(_conv, groups=2, pad=(1, 1)),
            **TOL,
        ),
        # no bias: two inputs
        Case(
            [(2, 2, 4, 4), (3, 2, 2, 2)],
            attrs={'kernel': (2, 2), 'num_filter': 3, 'no_bias': True},
            ref=_conv,
            **TOL,
        ),
        # rectangular kernel, unequal strides
        Case(
            [(1, 2, 5, 6), (2, 2, 2, 3), (2,)],
            attrs={'kernel': (2, 3), 'num_filter': 2, 'stride': (1, 2)},
            ref=partial(_conv, stride=(1, 2)),
            **TOL,
        ),
        # 1-D (NCW)
        Case(
            [(2, 3, 7), (4, 3, 3), (4,)],
            attrs={
                'kernel': (3,),
                'num_filter': 4,
                'stride': (2,),
                'pad': (1,),
            },
            ref=partial(_conv, stride=(2,), pad=(1,)),
            **TOL,
        ),
        # 3-D (NCDHW)
        Case(
            [(1, 2, 4, 4, 3), (2, 2, 2, 2, 2), (2,)],
            attrs={
                'kernel': (2, 2, 2),
                'num_filter': 2,
                'stride': (1, 2, 1),
                'pad': (1, 0, 1),
            },
            ref=partial(_conv, stride=(1, 2, 1), pad=(1, 0, 1)),
            **TOL,
        ),
        # channels last: NHWC data, (F, kh, kw, C) weight
        Case(
            [(2, 5, 5, 2), (3, 3, 3, 2), (3,)],
            attrs={
                'kernel': (3, 3),
                'num_filter': 3,
                'layout': 'NHWC',
                'stride': (2, 1),
                'pad': (1, 1),
            },
            ref=partial(_conv_last, stride=(2, 1), pad=(1, 1)),
            **TOL,
        ),
        Case(
            [(1, 4, 3, 4, 2), (2, 2, 2, 2, 2), (2,)],
            attrs={'kernel': (2, 2, 2), 'num_filter': 2, 'layout': 'NDHWC'},
            ref=_conv_last,
            **TOL,
        ),
        Case(
            [(2, 6, 3), (2, 3, 3), (2,)],
            attrs={'kernel': (3,), 'num_filter': 2, 'layout': 'NWC'},
            ref=_conv_last,
            **TOL,
        ),
    ],
    'Deconvolution': [
        # channels last: NHWC data, (C, kh, kw, F) weight (MXNet 1.9.1
        # infers ([(2, 5, 5, 2), (2, 3, 3, 4)], [(2, 11, 11, 4)]) for these
        # attributes on a (2, 5, 5, 2) input)
        Case(
            [(2, 3, 3, 2), (2, 3, 3, 3)],
            attrs={
                'kernel': (3, 3),
                'num_filter': 3,
                'stride': (2, 2),
                'layout': 'NHWC',
            },
            ref=partial(_deconv_last, stride=(2, 2)),
            **TOL,
        ),
        # default no_bias=True: data and weight only
        Case(
            [(2, 3, 3, 3), (3, 2, 3, 3)],
            attrs={'kernel': (3, 3), 'num_filter': 2},
            ref=_deconv,
            **TOL,
        ),
        # stride 2, pad 1, adj 1, with bias
        Case(
            [(2, 2, 3, 3), (2, 3, 3, 3), (3,)],
            attrs={
                'kernel': (3, 3),
                'num_filter': 3,
                'stride': (2, 2),
                'pad': (1, 1),
                'adj': (1, 1),
                'no_bias': False,
            },
            ref=partial(_deconv, stride=(2, 2), pad=(1, 1), adj=(1, 1)),
            **TOL,
        ),
        # two groups, dilation 2
        Case(
            [(1, 4, 3, 3), (4, 1, 2, 2)],
            attrs={
                'kernel': (2, 2),
                'num_filter': 2,
                'num_group': 2,
                'dilate': (2, 2),
            },
            ref=partial(_deconv, dilate=(2, 2), groups=2),
            **TOL,
        ),
        # 1-D with target_shape: full size 9, target 8 -> pad 1, adj 1
        Case(
            [(2, 2, 4), (2, 3, 3)],
            attrs={
                'kernel': (3,),
                'num_filter': 3,
                'stride': (2,),
                'target_shape': (8,),
            },
            ref=partial(_deconv, stride=(2,), pad=(1,), adj=(1,)),
            **TOL,
        ),
        # 3-D
        Case(
            [(1, 2, 2, 3, 2), (2, 2, 2, 2, 2), (2,)],
            attrs={
                'kernel': (2, 2, 2),
                'num_filter': 2,
                'stride': (2, 1, 2),
                'no_bias': False,
            },
            ref=partial(_deconv, stride=(2, 1, 2)),
            **TOL,
        ),
    ],
}
