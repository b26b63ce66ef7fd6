"""Rows for dlbook/ops/upsampling.py: UpSampling, nearest and bilinear."""

import numpy as np

from tests.ops.cases import Case


def nearest(scale, mode='concat'):
    """Upsample every input to the first one's size times ``scale`` by
    repeating pixels, then concatenate along channels or add."""

    def ref(*xs):
        out_h = xs[0].shape[2] * scale
        parts = [
            np.repeat(
                np.repeat(x, out_h // x.shape[2], axis=2),
                out_h // x.shape[2],
                axis=3,
            )
            for x in xs
        ]
        if mode == 'sum':
            return sum(parts)
        return np.concatenate(parts, axis=1)

    return ref


def bilinear(scale):
    """Per-channel transposed convolution with MXNet's kernel size
    ``2s - s % 2``, stride ``s`` and padding ``ceil((s - 1) / 2)``, one
    input pixel at a time."""
    k, pad = 2 * scale - scale % 2, -(-(scale - 1) // 2)

    def ref(x, w):
        n, c, h, wd = x.shape
        full = np.zeros(
            (n, c, (h - 1) * scale + k, (wd - 1) * scale + k), dtype=x.dtype
        )
        for i in range(h):
            for j in range(wd):
                full[
                    :, :, i * scale : i * scale + k, j * scale : j * scale + k
                ] += x[:, :, i, j, None, None] * w[None, :, 0]
        return full[:, :, pad : pad + h * scale, pad : pad + wd * scale]

    return ref


NEAREST = {'sample_type': 'nearest'}

CASES = {
    'UpSampling': [
        Case([(2, 3, 2, 3)], attrs={'scale': 2, **NEAREST}, ref=nearest(2)),
        Case([(1, 2, 3, 2)], attrs={'scale': 3, **NEAREST}, ref=nearest(3)),
        # several inputs brought to the first one's size times scale
        Case(
            [(2, 2, 2, 2), (2, 3, 4, 4), (2, 1, 1, 1)],
            attrs={'scale': 2, **NEAREST},
            ref=nearest(2),
        ),
        Case(
            [(1, 2, 2, 2), (1, 2, 4, 4), (1, 2, 1, 1)],
            attrs={'scale': 2, 'multi_input_mode': 'sum', **NEAREST},
            ref=nearest(2, 'sum'),
        ),
        Case(
            [(2, 3, 3, 2), (3, 1, 4, 4)],
            attrs={'scale': 2, 'sample_type': 'bilinear', 'num_filter': 3},
            ref=bilinear(2),
        ),
        Case(
            [(1, 2, 2, 3), (2, 1, 5, 5)],
            attrs={'scale': 3, 'sample_type': 'bilinear', 'num_filter': 2},
            ref=bilinear(3),
        ),
    ],
}
