"""Rows for the spatial operators: the spatial-transformer trio
(``GridGenerator``, ``BilinearSampler``, ``SpatialTransformer``),
``_contrib_BilinearResize2D``, ``_contrib_AdaptiveAvgPooling2D``,
``_contrib_ROIAlign``, ``Crop`` and ``Correlation``.

The references are plain loops over output pixels, written from MXNet
1.9.1's C++ kernels (and checked against MXNet's printed values in
``test_spatial_mxnet.py``).  Bilinear sampling has a gradient that jumps
where a sampling point crosses a pixel boundary, so the rows that
differentiate sampling positions draw them with ``make_inputs`` a safe
distance from every pixel boundary.
"""

import math

import numpy as np

from tests.ops.cases import Case

# -- spatial transformer -------------------------------------------------------


def affine_grid(theta, h, w):
    """``GridGenerator(transform_type='affine')``: (N, 6) -> (N, 2, h, w)."""
    out = np.zeros((theta.shape[0], 2, h, w), dtype=theta.dtype)
    for n in range(theta.shape[0]):
        a = theta[n].reshape(2, 3)
        for i in range(h):
            for j in range(w):
                x, y = -1 + 2 * j / (w - 1), -1 + 2 * i / (h - 1)
                out[n, :, i, j] = a @ np.array([x, y, 1], dtype=theta.dtype)
    return out


def warp_grid(flow):
    """``GridGenerator(transform_type='warp')``: pixel j + flow_x moved to
    [-1, 1] by 2 / (w - 1) (and the same for y)."""
    _, _, h, w = flow.shape
    out = np.empty_like(flow)
    for i in range(h):
        for j in range(w):
            out[:, 0, i, j] = (flow[:, 0, i, j] + j) / ((w - 1) / 2) - 1
            out[:, 1, i, j] = (flow[:, 1, i, j] + i) / ((h - 1) / 2) - 1
    return out


def sample(data, grid):
    """``BilinearSampler``: each output pixel reads the input at
    ((gx + 1)(W - 1) / 2, (gy + 1)(H - 1) / 2), with zeros outside."""
    n_, c_, h, w = data.shape
    _, _, oh, ow = grid.shape
    out = np.zeros((n_, c_, oh, ow), dtype=data.dtype)
    for n in range(n_):
        for i in range(oh):
            for j in range(ow):
                x = (grid[n, 0, i, j] + 1) * (w - 1) / 2
                y = (grid[n, 1, i, j] + 1) * (h - 1) / 2
                x0, y0 = math.floor(x), math.floor(y)
                for yy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
                    for xx, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
                        if 0 <= yy < h and 0 <= xx < w:
                            out[n, :, i, j] += wy * wx * data[n, :, yy, xx]
    return out


def transformer(h, w):
    return lambda data, loc: sample(data, affine_grid(loc, h, w))


def _off_boundary(values, scale, margin=0.1):
    """Move ``values`` (grid coordinates) so that ``(v + 1) * scale`` stays
    ``margin`` pixels away from every integer."""
    pix = (values + 1) * scale
    frac = pix - np.floor(pix)
    pix = np.floor(pix) + np.clip(frac, margin, 1 - margin)
    return pix / scale - 1


def sampler_inputs(data_shape, out_hw, spread=1.2):
    """Data and a grid (with points outside [-1, 1] too) whose sampling
    positions keep away from pixel boundaries."""

    def make(rng, dtype):
        n, c, h, w = data_shape
        data = rng.uniform(-1, 1, size=data_shape)
        grid = rng.uniform(-spread, spread, size=(n, 2) + out_hw)
        grid[:, 0] = _off_boundary(grid[:, 0], (w - 1) / 2)
        grid[:, 1] = _off_boundary(grid[:, 1], (h - 1) / 2)
        return [data.astype(dtype), grid.astype(dtype)]

    return make


def transformer_inputs(data_shape, out_hw):
    """Data and affine parameters near the identity (scaled by 0.9 and
    shifted), chosen so that no sampling point is near a pixel
    boundary."""

    def make(rng, dtype):
        n, c, h, w = data_shape
        data = rng.uniform(-1, 1, size=data_shape)
        for _ in range(1000):
            loc = np.array([0.9, 0, 0, 0, 0.9, 0]) + rng.uniform(
                -0.15, 0.15, size=(n, 6)
            )
            grid = affine_grid(loc, *out_hw)
            px = (grid[:, 0] + 1) * (w - 1) / 2
            py = (grid[:, 1] + 1) * (h - 1) / 2
            far = [np.abs(p - np.round(p)).min() > 0.05 for p in (px, py)]
            if all(far):
                return [data.astype(dtype), loc.astype(dtype)]
        raise AssertionError('no affine parameters far from boundaries')

    return make


# -- resizing and pooling to a size -------------------------------------------


def _source(dst, size_in, size_out, align_corners):
    """The input coordinate output row/column ``dst`` reads from (0 for
    an output of size 1, in both modes)."""
    if size_out == 1:
        return 0.0
    if align_corners:
        scale = (size_in - 1) / (size_out - 1) if size_out > 1 else 0.0
        return scale * dst
    return max((dst + 0.5) * size_in / size_out - 0.5, 0.0)


def resize(out_h, out_w, align_corners=True):
    """``BilinearResize2D`` to (out_h, out_w), one output pixel at a time
    (the last row/column repeats where the source index is the last)."""

    def ref(data, *like):
        _, _, h, w = data.shape
        out = np.zeros(data.shape[:2] + (out_h, out_w), dtype=data.dtype)
        for i in range(out_h):
            y = _source(i, h, out_h, align_corners)
            y0 = int(y)
            y1, ly = min(y0 + 1, h - 1), y - y0
            for j in range(out_w):
                x = _source(j, w, out_w, align_corners)
                x0 = int(x)
                x1, lx = min(x0 + 1, w - 1), x - x0
                out[:, :, i, j] = (
                    (1 - ly) * (1 - lx) * data[:, :, y0, x0]
                    + (1 - ly) * lx * data[:, :, y0, x1]
                    + ly * (1 - lx) * data[:, :, y1, x0]
                    + ly * lx * data[:, :, y1, x1]
                )
        return out

    return ref


def adaptive_avg(out_h, out_w):
    """``AdaptiveAvgPooling2D``: bin i covers rows floor(i H / oh) to
    ceil((i + 1) H / oh) - 1."""

    def ref(data):
        _, _, h, w = data.shape
        out = np.zeros(data.shape[:2] + (out_h, out_w), dtype=data.dtype)
        for i in range(out_h):
            r0, r1 = (i * h) // out_h, -(-((i + 1) * h) // out_h)
            for j in range(out_w):
                c0, c1 = (j * w) // out_w, -(-((j + 1) * w) // out_w)
                out[:, :, i, j] = data[:, :, r0:r1, c0:c1].mean(axis=(2, 3))
        return out

    return ref


def _roi_bilinear(img, y, x):
    """Detectron's ROIAlign interpolation of ``img`` (C, H, W) at (y, x)."""
    _, h, w = img.shape
    if y < -1 or y > h or x < -1 or x > w:
        return 0
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return (
        (1 - ly) * (1 - lx) * img[:, y0, x0]
        + (1 - ly) * lx * img[:, y0, x1]
        + ly * (1 - lx) * img[:, y1, x0]
        + ly * lx * img[:, y1, x1]
    )


def roi_align(pooled, scale, ratio=-1, sensitive=False, aligned=False):
    """``ROIAlign``: the mean of ratio x ratio bilinear samples per bin
    (ceil(roi size / pooled size) of them when ratio <= 0)."""
    ph, pw = pooled

    def ref(data, rois):
        c_in = data.shape[1]
        c_out = c_in // (ph * pw) if sensitive else c_in
        out = np.zeros((rois.shape[0], c_out, ph, pw), dtype=data.dtype)
        off = 0.5 if aligned else 0.0
        for r, roi in enumerate(rois.astype(np.float64)):
            b = int(roi[0])
            if b < 0:
                continue
            x1, y1, x2, y2 = roi[1:] * scale - off
            rw, rh = x2 - x1, y2 - y1
            if not aligned:
                rw, rh = max(rw, 1.0), max(rh, 1.0)
            bh, bw = rh / ph, rw / pw
            gh = ratio if ratio > 0 else math.ceil(rh / ph)
            gw = ratio if ratio > 0 else math.ceil(rw / pw)
            for i in range(ph):
                for j in range(pw):
                    acc = np.zeros(c_in)
                    for iy in range(gh):
                        y = y1 + i * bh + (iy + 0.5) * bh / gh
                        for ix in range(gw):
                            x = x1 + j * bw + (ix + 0.5) * bw / gw
                            acc = acc + _roi_bilinear(data[b], y, x)
                    acc /= max(gh * gw, 1)
                    if sensitive:
                        acc = acc[i * pw + j :: ph * pw][:c_out]
                    out[r, :, i, j] = acc
        return out

    return ref


# -- Crop and Correlation -------------------------------------------------------


def crop(h, w, offset=(0, 0), center=False):
    def ref(data, *like):
        y, x = offset
        if center:
            y, x = (data.shape[2] - h) // 2, (data.shape[3] - w) // 2
        return data[:, :, y : y + h, x : x + w]

    return ref


def correlation(k, md, s1, s2, pad, multiply=True):
    """FlowNet's correlation: for each position of data1 (stride s1) and
    each displacement (dy, dx) in s2 * [-md / s2, md / s2]^2, the mean
    over the k x k window and the channels of data1 * data2 (or of
    |data1 - data2|)."""

    def ref(a, b):
        n_, c_, h, w = a.shape
        r = (k - 1) // 2
        border = md + r
        a = np.pad(a, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
        b = np.pad(b, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
        out_h = math.ceil((h + 2 * pad - 2 * border) / s1)
        out_w = math.ceil((w + 2 * pad - 2 * border) / s1)
        grid = md // s2
        size = 2 * grid + 1
        out = np.zeros((n_, size * size, out_h, out_w), dtype=a.dtype)
        for i in range(out_h):
            for j in range(out_w):
                y1, x1 = i * s1 + md, j * s1 + md
                p1 = a[:, :, y1 : y1 + k, x1 : x1 + k]
                for p in range(-grid, grid + 1):
                    for o in range(-grid, grid + 1):
                        y2, x2 = y1 + p * s2, x1 + o * s2
                        p2 = b[:, :, y2 : y2 + k, x2 : x2 + k]
                        v = p1 * p2 if multiply else np.abs(p1 - p2)
                        ch = (p + grid) * size + (o + grid)
                        out[:, ch, i, j] = v.sum(axis=(1, 2, 3)) / (k * k * c_)
        return out

    return ref


# -- inputs ---------------------------------------------------------------------


def rois_inputs(data_shape, rois):
    """Data drawn uniformly and fixed region rows (float, as MXNet's)."""

    def make(rng, dtype):
        data = rng.uniform(-1, 1, size=data_shape).astype(dtype)
        return [data, np.array(rois, dtype=dtype)]

    return make


def crop_inputs(data_shape, like_shape):
    def make(rng, dtype):
        return [
            rng.uniform(-1, 1, size=data_shape).astype(dtype),
            np.zeros(like_shape, dtype=dtype),
        ]

    return make


def apart_inputs(shape):
    """Two inputs whose entries differ by at least 0.1 at equal positions
    (the zero displacement), away from the kink of |x1 - x2|."""

    def make(rng, dtype):
        a = rng.uniform(-1, 1, size=shape)
        gap = rng.uniform(0.1, 0.5, size=shape) * rng.choice([-1, 1], shape)
        return [a.astype(dtype), (a + gap).astype(dtype)]

    return make


ROIS = [
    [0, 0.5, 1.2, 4.7, 3.9],
    [1, -2.1, -1.3, 3.2, 8.4],
    [1, 2.2, 3.1, 2.4, 3.3],
    [0, 5.3, 4.1, 9.6, 9.2],
    [-1, 1.0, 1.0, 3.0, 3.0],  # a negative batch index: zeros
]


def _roi(pooled, scale, **kw):
    ratio = kw.get('sample_ratio', -1)
    sensitive = kw.get('position_sensitive', False)
    aligned = kw.get('aligned', False)
    return {
        'attrs': {'pooled_size': pooled, 'spatial_scale': scale, **kw},
        'ref': roi_align(pooled, scale, ratio, sensitive, aligned),
    }


CASES = {
    'GridGenerator': [
        Case(
            [(2, 6)],
            attrs={'transform_type': 'affine', 'target_shape': (3, 4)},
            ref=lambda theta: affine_grid(theta, 3, 4),
        ),
        Case(
            [(2, 2, 3, 4)],
            attrs={'transform_type': 'warp'},
            ref=warp_grid,
            low=-2,
            high=2,
        ),
    ],
    'BilinearSampler': [
        Case(
            [(2, 3, 4, 5), (2, 2, 3, 6)],
            ref=sample,
            make_inputs=sampler_inputs((2, 3, 4, 5), (3, 6)),
        ),
        # more output than input pixels: input pixels read several times
        Case(
            [(1, 2, 3, 3), (1, 2, 5, 4)],
            ref=sample,
            make_inputs=sampler_inputs((1, 2, 3, 3), (5, 4), spread=1.0),
        ),
    ],
    'SpatialTransformer': Case(
        [(2, 3, 5, 6), (2, 6)],
        attrs={
            'target_shape': (4, 5),
            'transform_type': 'affine',
            'sampler_type': 'bilinear',
        },
        ref=transformer(4, 5),
        make_inputs=transformer_inputs((2, 3, 5, 6), (4, 5)),
    ),
    '_contrib_BilinearResize2D': [
        Case(
            [(2, 3, 4, 5)], attrs={'height': 7, 'width': 3}, ref=resize(7, 3)
        ),
        Case(
            [(1, 2, 5, 4)],
            attrs={'height': 3, 'width': 9, 'align_corners': False},
            ref=resize(3, 9, False),
        ),
        Case(
            [(1, 2, 4, 5)],
            attrs={'scale_height': 1.5, 'scale_width': 0.7},
            ref=resize(6, 3),
        ),
        Case(
            [(1, 2, 5, 4)],
            attrs={'mode': 'odd_scale', 'scale_height': 2, 'scale_width': 2},
            ref=resize(9, 8),
        ),
        Case([(1, 2, 5, 4)], attrs={'mode': 'to_even_up'}, ref=resize(6, 4)),
        Case(
            [(1, 2, 5, 4)],
            attrs={'mode': 'to_odd_down', 'align_corners': False},
            ref=resize(5, 3, False),
        ),
        Case(
            [(1, 2, 3, 4), (1, 1, 1, 6)],
            attrs={'mode': 'like', 'align_corners': False},
            ref=resize(1, 6, False),
            grad=(0,),
        ),
    ],
    '_contrib_AdaptiveAvgPooling2D': [
        Case(
            [(2, 3, 5, 7)],
            attrs={'output_size': (3, 4)},
            ref=adaptive_avg(3, 4),
        ),
        Case([(1, 2, 4, 4)], attrs={'output_size': 3}, ref=adaptive_avg(3, 3)),
        Case([(1, 2, 3, 5)], ref=adaptive_avg(1, 1)),
        Case(
            [(1, 1, 2, 3)],
            attrs={'output_size': (4, 5)},
            ref=adaptive_avg(4, 5),
        ),
    ],
    '_contrib_ROIAlign': [
        Case(
            [(2, 3, 6, 7), (5, 5)],
            make_inputs=rois_inputs((2, 3, 6, 7), ROIS),
            grad=(0,),
            **_roi((2, 2), 1.0),
        ),
        Case(
            [(2, 3, 6, 7), (5, 5)],
            make_inputs=rois_inputs((2, 3, 6, 7), ROIS),
            grad=(0,),
            **_roi((3, 2), 0.5, sample_ratio=2, aligned=True),
        ),
        Case(
            [(2, 8, 6, 7), (5, 5)],
            make_inputs=rois_inputs((2, 8, 6, 7), ROIS),
            grad=(0,),
            **_roi((2, 2), 0.7, position_sensitive=True),
        ),
    ],
    'Crop': [
        Case(
            [(2, 3, 5, 6)],
            attrs={'h_w': (3, 4), 'offset': (1, 2)},
            ref=crop(3, 4, (1, 2)),
        ),
        Case(
            [(2, 3, 5, 6)],
            attrs={'h_w': (2, 3), 'center_crop': True},
            ref=crop(2, 3, center=True),
        ),
        Case(
            [(1, 2, 5, 6), (1, 1, 3, 2)],
            attrs={'num_args': 2, 'offset': (2, 1)},
            ref=crop(3, 2, (2, 1)),
            make_inputs=crop_inputs((1, 2, 5, 6), (1, 1, 3, 2)),
            grad=(0,),
        ),
    ],
    'Correlation': [
        Case([(2, 3, 5, 6), (2, 3, 5, 6)], ref=correlation(1, 1, 1, 1, 0)),
        Case(
            [(1, 2, 7, 8), (1, 2, 7, 8)],
            attrs={
                'kernel_size': 3,
                'max_displacement': 2,
                'stride1': 2,
                'stride2': 1,
                'pad_size': 2,
            },
            ref=correlation(3, 2, 2, 1, 2),
        ),
        Case(
            [(1, 2, 6, 7), (1, 2, 6, 7)],
            attrs={
                'kernel_size': 1,
                'max_displacement': 4,
                'stride2': 2,
                'pad_size': 3,
                'is_multiply': False,
            },
            ref=correlation(1, 4, 1, 2, 3, multiply=False),
            make_inputs=apart_inputs((1, 2, 6, 7)),
        ),
    ],
}
