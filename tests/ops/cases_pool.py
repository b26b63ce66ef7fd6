"""Case rows for Pooling, with a loop-based reference.

``pool_ref`` follows MXNet's CPU kernel (src/operator/nn/pool.h) window by
window: start = o*s - p, end = min(start + k, H + p); the average divisor
is (end - start) with ``count_include_pad`` and the number of data
elements otherwise; the window is then clipped to the data.
``test_conv_pool_reference.py`` reuses these functions.
"""

import math
from functools import partial

import numpy as np

from tests.ops.cases import Case


def pool_out_size(size, k, s, p, convention):
    span = size + 2 * p - k
    if convention == 'valid':
        return span // s + 1
    return math.ceil(span / s) + 1


def _windows(shape, kernel, stride, pad, convention, global_pool):
    """Yield (n, c, o, data slices, count_with_pad) for every output."""
    spatial = shape[2:]
    nd = len(spatial)
    if global_pool:
        kernel, stride, pad = spatial, (1,) * nd, (0,) * nd
    out = tuple(
        pool_out_size(spatial[a], kernel[a], stride[a], pad[a], convention)
        for a in range(nd)
    )
    for o in np.ndindex(*out):
        slices, count_pad = [], 1
        for a in range(nd):
            start = o[a] * stride[a] - pad[a]
            end = min(start + kernel[a], spatial[a] + pad[a])
            count_pad *= end - start
            slices.append(slice(max(start, 0), min(end, spatial[a])))
        yield out, o, tuple(slices), count_pad


def pool_ref(
    x,
    kernel=(),
    pool_type='max',
    stride=None,
    pad=None,
    convention='valid',
    global_pool=False,
    count_include_pad=True,
    p_value=None,
):
    x = np.asarray(x, np.float64)
    nd = x.ndim - 2
    stride = tuple(stride) if stride else (1,) * nd
    pad = tuple(pad) if pad else (0,) * nd
    y = None
    for out, o, slices, count_pad in _windows(
        x.shape, kernel, stride, pad, convention, global_pool
    ):
        if y is None:
            y = np.zeros(x.shape[:2] + out)
        for n in range(x.shape[0]):
            for c in range(x.shape[1]):
                window = x[(n, c) + slices]
                if pool_type == 'max':
                    value = window.max()
                elif pool_type == 'sum':
                    value = window.sum()
                elif pool_type == 'avg':
                    count = count_pad if count_include_pad else window.size
                    value = window.sum() / count
                else:
                    value = np.sum(window**p_value) ** (1.0 / p_value)
                y[(n, c) + o] = value
    return y


def pool_grad_ref(
    x,
    dy,
    kernel=(),
    pool_type='max',
    stride=None,
    pad=None,
    convention='valid',
    global_pool=False,
    count_include_pad=True,
    p_value=None,
):
    """dx of pool_ref: max sends dy to the first maximum (row-major) of
    each window, avg sends dy / count to each data element, sum sends dy,
    lp sends dy * (x / y)^(p-1)."""
    x = np.asarray(x, np.float64)
    nd = x.ndim - 2
    stride = tuple(stride) if stride else (1,) * nd
    pad = tuple(pad) if pad else (0,) * nd
    y = pool_ref(
        x,
        kernel,
        pool_type,
        stride,
        pad,
        convention,
        global_pool,
        count_include_pad,
        p_value,
    )
    dx = np.zeros_like(x)
    for out, o, slices, count_pad in _windows(
        x.shape, kernel, stride, pad, convention, global_pool
    ):
        for n in range(x.shape[0]):
            for c in range(x.shape[1]):
                window = x[(n, c) + slices]
                grad = dy[(n, c) + o]
                target = dx[(n, c) + slices]  # a view into dx
                if pool_type == 'max':
                    first = np.unravel_index(np.argmax(window), window.shape)
                    target[first] += grad
                elif pool_type == 'sum':
                    target += grad
                elif pool_type == 'avg':
                    count = count_pad if count_include_pad else window.size
                    target += grad / count
                else:
                    p = p_value
                    target += grad * (window / y[(n, c) + o]) ** (p - 1)
    return dx


def distinct(shape, scale=1.0):
    """make_inputs for max pooling: all values distinct (no ties)."""

    def make(rng, dtype):
        size = int(np.prod(shape))
        values = (rng.permutation(size) - size / 2) / size * 2 * scale
        return [values.reshape(shape).astype(dtype)]

    return make


def row(shape, attrs, **extra):
    """A Pooling row whose reference reads the same attributes."""
    ref_kw = dict(
        kernel=attrs.get('kernel', ()),
        pool_type=attrs.get('pool_type', 'max'),
        stride=attrs.get('stride'),
        pad=attrs.get('pad'),
        convention=attrs.get('pooling_convention', 'valid'),
        global_pool=attrs.get('global_pool', False),
        count_include_pad=attrs.get('count_include_pad', True),
        p_value=attrs.get('p_value'),
    )
    if ref_kw['pool_type'] == 'max' and 'make_inputs' not in extra:
        extra['make_inputs'] = distinct(shape)
    return Case([shape], attrs=attrs, ref=partial(pool_ref, **ref_kw), **extra)


def row_last(shape, attrs, **extra):
    """A channels-last Pooling row (``layout`` NWC/NHWC/NDHWC), checked
    against the channels-first reference on moved axes."""
    first = row(shape[:1] + shape[-1:] + shape[1:-1], attrs, **extra)
    ref = first.ref
    extra = {k: v for k, v in extra.items() if k != 'make_inputs'}
    if attrs.get('pool_type', 'max') == 'max':
        extra['make_inputs'] = distinct(shape)
    return Case(
        [shape],
        attrs={
            **attrs,
            'layout': {4: 'NHWC', 3: 'NWC', 5: 'NDHWC'}[len(shape)],
        },
        ref=lambda x: np.moveaxis(ref(np.moveaxis(x, -1, 1)), 1, -1),
        **extra,
    )


CASES = {
    'Pooling': [
        row_last((2, 4, 4, 3), {'kernel': (2, 2), 'stride': (2, 2)}),
        row_last(
            (2, 5, 5, 2),
            {
                'kernel': (3, 3),
                'stride': (2, 2),
                'pad': (1, 1),
                'pool_type': 'avg',
            },
        ),
        row_last((2, 6, 3), {'kernel': (2,), 'stride': (2,)}),
        row_last((1, 3, 4, 4, 2), {'kernel': (2, 2, 2), 'pool_type': 'avg'}),
        row_last((2, 3, 3, 2), {'global_pool': True, 'pool_type': 'avg'}),
        row((2, 3, 4, 4), {'kernel': (2, 2), 'stride': (2, 2)}),
        # overlapping windows with padding (-inf padding for max)
        row((2, 2, 5, 5), {'kernel': (3, 3), 'stride': (2, 2), 'pad': (1, 1)}),
        # default stride 1
        row((1, 2, 4, 5), {'kernel': (2, 2)}),
        row(
            (2, 2, 4, 4),
            {'kernel': (2, 2), 'stride': (2, 2), 'pool_type': 'avg'},
        ),
        row(
            (2, 2, 5, 5),
            {
                'kernel': (3, 3),
                'stride': (2, 2),
                'pad': (1, 1),
                'pool_type': 'avg',
            },
        ),
        row(
            (2, 2, 5, 5),
            {
                'kernel': (3, 3),
                'stride': (2, 2),
                'pad': (1, 1),
                'pool_type': 'avg',
                'count_include_pad': False,
            },
        ),
        row((2, 2, 4, 5), {'kernel': (2, 2), 'pool_type': 'sum'}),
        # 'full' (ceil) convention: the last window runs past the input
        row(
            (2, 2, 5, 5),
            {'kernel': (2, 2), 'stride': (2, 2), 'pooling_convention': 'full'},
        ),
        row(
            (2, 2, 6, 6),
            {
                'kernel': (3, 3),
                'stride': (2, 2),
                'pad': (1, 1),
                'pool_type': 'avg',
                'pooling_convention': 'full',
            },
        ),
        row(
            (2, 2, 6, 6),
            {
                'kernel': (3, 3),
                'stride': (2, 2),
                'pad': (1, 1),
                'pool_type': 'avg',
                'pooling_convention': 'full',
                'count_include_pad': False,
            },
        ),
        row((2, 3, 3, 4), {'global_pool': True}),
        row((2, 3, 3, 4), {'global_pool': True, 'pool_type': 'avg'}),
        row(
            (2, 3, 3, 4),
            {'global_pool': True, 'pool_type': 'sum', 'kernel': (2, 2)},
        ),
        # 1-D
        row((2, 3, 7), {'kernel': (3,), 'stride': (2,), 'pad': (1,)}),
        row(
            (2, 3, 7),
            {'kernel': (3,), 'stride': (2,), 'pad': (1,), 'pool_type': 'avg'},
        ),
        # 3-D
        row((1, 2, 4, 4, 4), {'kernel': (2, 2, 2), 'stride': (2, 2, 2)}),
        row(
            (1, 2, 3, 4, 5),
            {
                'kernel': (2, 2, 3),
                'stride': (1, 2, 1),
                'pad': (1, 0, 1),
                'pool_type': 'avg',
            },
        ),
        # Lp pooling on positive inputs
        row(
            (2, 2, 4, 4),
            {
                'kernel': (2, 2),
                'stride': (2, 2),
                'pool_type': 'lp',
                'p_value': 2,
            },
            low=0.5,
            high=1.5,
        ),
        row(
            (1, 2, 4, 4),
            {
                'kernel': (2, 2),
                'stride': (1, 1),
                'pool_type': 'lp',
                'p_value': 3,
            },
            low=0.5,
            high=1.5,
        ),
        row(
            (1, 2, 3, 3),
            {'global_pool': True, 'pool_type': 'lp', 'p_value': 2},
            low=0.5,
            high=1.5,
        ),
    ],
}
