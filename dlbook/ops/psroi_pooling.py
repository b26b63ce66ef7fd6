"""Operator: ``contrib.PSROIPooling``, R-FCN's position-sensitive region
pooling (Dai et al. 2016), as in MXNet 1.x
(apache/mxnet@1.9.1:src/operator/contrib/psroi_pooling.cc).

R-FCN's last convolution gives ``output_dim * k * k`` score maps, one
group of ``output_dim`` maps per cell of a ``k x k`` grid (``k =
group_size``).  A region is split into ``pooled_size x pooled_size``
bins, and bin ``(i, j)`` averages only the maps of its own grid cell, so
that each map learns to respond to one part (top-left, centre, ...) of
an object.
"""

from ..base import DLBookError
from .op import Op, register
from .windows import parse_bool, parse_int

__all__ = ['PSROIPooling', 'DeformablePSROIPooling']


def bin_weights(xp, start, length, pooled, size, dtype):
    """The ``(R, pooled, size)`` averaging matrix of one axis: bin ``p``
    of a region covers the whole pixels ``[floor(start + p bin),
    ceil(start + (p + 1) bin))`` (``bin = length / pooled``) clipped to
    the image, each weighted ``1 / count``; an empty bin is all 0."""
    p = xp.arange(pooled, dtype=start.dtype)[None, :]
    bin_size = (length / pooled)[:, None]
    lo = xp.floor(p * bin_size + start[:, None])
    hi = xp.ceil((p + 1) * bin_size + start[:, None])
    lo = xp.clip(lo, 0, size)[..., None]
    hi = xp.clip(hi, 0, size)[..., None]
    cells = xp.arange(size, dtype=start.dtype)
    inside = (cells >= lo) & (cells < hi)
    count = xp.maximum(hi - lo, 1)
    return (inside / count).astype(dtype)


def c_round(xp, v):
    """C's ``round``: halves away from zero."""
    return xp.sign(v) * xp.floor(xp.abs(v) + 0.5)


@register('_contrib_PSROIPooling')
class PSROIPooling(Op):
    """Position-sensitive average pooling of regions: output ``(R,
    output_dim, pooled_size, pooled_size)``.

    ``data`` is ``(N, output_dim * g * g, H, W)`` with ``g = group_size``
    (``pooled_size`` when 0); ``rois`` ``(R, 5)`` rows are ``(batch, x1,
    y1, x2, y2)`` in image coordinates.  The corners are rounded to whole
    pixels (C's ``round``) and scaled: ``x1' = round(x1) s``, ``x2' =
    (round(x2) + 1) s`` (``s = spatial_scale``), the size at least 0.1.
    Bin ``(i, j)`` covers the pixels of ``[floor(y1' + i bh), ceil(y1' +
    (i + 1) bh)) x [...]`` (``bh`` the region's height over
    ``pooled_size``) and reads channel ``(c g + gi) g + gj`` with ``gi =
    floor(i g / pooled_size)``::

        y[r, c, i, j] = mean over the bin of x[b_r, (c g + gi) g + gj]

    (0 for an empty bin).  The pooling is separable: per-region matrices
    ``Wy`` ``(pooled, H)`` and ``Wx`` ``(pooled, W)`` of ``1 / count``
    weights give ``Y_r = Wy x Wx^T`` for every channel, of which each bin
    keeps its own, and the gradient is the transpose::

        dx[b_r, (c g + gi) g + gj] += Wy[i]^T dy[r, c, i, j] Wx[j]

    ``rois`` get a zero gradient, as in MXNet.
    """

    arguments = ('data', 'rois')
    defaults = {
        'spatial_scale': None,
        'output_dim': None,
        'pooled_size': None,
        'group_size': 0,
    }

    def __init__(self, **attrs):
        super().__init__(**attrs)
        a = self.attrs
        for key in ('spatial_scale', 'output_dim', 'pooled_size'):
            if a[key] is None:
                raise DLBookError(
                    f'PSROIPooling: the {key} argument is required'
                )
        self.scale = float(a['spatial_scale'])
        self.dim = parse_int(a['output_dim'], 'output_dim', 'PSROIPooling')
        self.pooled = parse_int(
            a['pooled_size'], 'pooled_size', 'PSROIPooling'
        )
        group = parse_int(a['group_size'], 'group_size', 'PSROIPooling')
        self.group = group or self.pooled
        if self.dim < 1 or self.pooled < 1 or self.group < 1:
            raise DLBookError(
                'PSROIPooling: output_dim, pooled_size and group_size must '
                f'be positive, got {self.dim}, {self.pooled}, {self.group}'
            )

    def _check(self, data, rois):
        if len(data) != 4:
            raise DLBookError(
                'PSROIPooling: data must be 4-D (batch, channel, height, '
                f'width), got shape {tuple(data)}'
            )
        if len(rois) != 2 or rois[1] != 5:
            raise DLBookError(
                'PSROIPooling: rois must be (num_rois, 5) rows of (batch, '
                f'x1, y1, x2, y2), got shape {tuple(rois)}'
            )
        want = self.dim * self.group * self.group
        if data[1] != want:
            raise DLBookError(
                f'PSROIPooling: data must have output_dim * group_size^2 = '
                f'{want} channels, got {data[1]}'
            )
        return (rois[0], self.dim, self.pooled, self.pooled)

    def infer_shape(self, data=None, rois=None):
        if data is None or rois is None:
            return [data, rois], [None], []
        out = self._check(data, rois)
        return [tuple(data), tuple(rois)], [out], []

    def _weights(self, xp, rois, n, h, w, dtype):
        boxes = rois.astype('float64')
        x1, y1, x2, y2 = (c_round(xp, boxes[:, k]) for k in range(1, 5))
        x1, y1 = x1 * self.scale, y1 * self.scale
        x2, y2 = (x2 + 1) * self.scale, (y2 + 1) * self.scale
        rw = xp.maximum(x2 - x1, 0.1)
        rh = xp.maximum(y2 - y1, 0.1)
        wy = bin_weights(xp, y1, rh, self.pooled, h, dtype)
        wx = bin_weights(xp, x1, rw, self.pooled, w, dtype)
        batch = xp.trunc(boxes[:, 0]).astype(xp.int64)
        pick = (batch[:, None] == xp.arange(n)).astype(dtype)  # (R, N)
        return pick[:, :, None, None] * wy[:, None], wx

    def _index(self, xp):
        """``(channel, i, j)`` index arrays of each output ``(c, i, j)``."""
        p, g = self.pooled, self.group
        cell = xp.minimum(xp.arange(p) * g // p, g - 1)
        gi, gj = cell[:, None], cell[None, :]
        c = xp.arange(self.dim)[:, None, None]
        channel = (c * g + gi) * g + gj  # (dim, p, p)
        i = xp.arange(p)[None, :, None]
        j = xp.arange(p)[None, None, :]
        return (slice(None), channel, i, j)

    def forward(self, xp, data, rois):
        self._check(data.shape, rois.shape)
        n, c, h, w = data.shape
        wy, wx = self._weights(xp, rois, n, h, w, data.dtype)
        # (R, N, p, H) x (N, C, H, W) over N and H -> (R, p, C, W)
        rows = xp.tensordot(wy, data, axes=([1, 3], [0, 2]))
        full = xp.matmul(
            rows.transpose(0, 2, 1, 3), wx.transpose(0, 2, 1)[:, None]
        )  # (R, C, p, p)
        self.saved = (wy, wx, data.shape, rois.shape)
        return full[self._index(xp)].astype(data.dtype)

    def backward(self, xp, dy):
        wy, wx, shape, rois_shape = self.saved
        p = self.pooled
        full = xp.zeros((dy.shape[0], shape[1], p, p), dy.dtype)
        full[self._index(xp)] = dy  # each (channel, i, j) once
        drows = xp.matmul(full, wx[:, None])  # (R, C, p, W)
        # (R, N, p, H) x (R, C, p, W) over R and p -> (N, H, C, W)
        ddata = xp.tensordot(wy, drows, axes=([0, 2], [0, 2]))
        ddata = ddata.transpose(0, 2, 1, 3).astype(dy.dtype)
        return ddata, xp.zeros(rois_shape, dtype=dy.dtype)


@register('_contrib_DeformablePSROIPooling')
class DeformablePSROIPooling(Op):
    """Deformable position-sensitive RoI pooling (Deformable R-FCN, Dai et
    al. 2017): ``PSROIPooling`` whose bins are shifted by learned
    offsets and averaged from bilinear samples.  Output ``(R,
    output_dim, pooled_size, pooled_size)``.

    The region ``[round(x1) s - 0.5, (round(x2) + 1) s - 0.5]`` (``s =
    spatial_scale``, size at least 0.1) is split into ``pooled_size``
    bins.  Bin ``(i, j)`` of output channel ``c`` (class ``c // (D / K)``
    of ``K = trans.shape[1] / 2`` classes) moves by ``trans[r, 2 k + {0,
    1}, pi, pj] * trans_std`` times the region's width (height), with
    ``(pi, pj)`` the bin's cell of a ``part_size`` grid (``pooled_size``
    when 0); ``no_trans=True`` drops ``trans`` and the shifts.  The bin
    averages ``sample_per_part^2`` samples on a regular grid starting at
    its corner; a sample more than half a pixel outside the map is
    skipped, the others are clamped into it and read by bilinear
    interpolation from channel ``(c g + gi) g + gj`` (as ``PSROIPooling``)::

        y[r, c, i, j] = 1 / count sum_samples bilinear(x[b_r, ch], h, w)

    Gradients: ``dx`` scatters ``dy / count`` with each sample's bilinear
    weights; ``dtrans`` sums ``dy / count`` times the sample's derivative
    by its position (0 when clamped), times ``trans_std`` and the
    region's size; ``rois`` get 0.  MXNet's second output ``top_count``
    (the number of samples) is not visible there and not given here.
    """

    arguments = ('data', 'rois', 'trans')
    defaults = {
        'spatial_scale': None,
        'output_dim': None,
        'group_size': None,
        'pooled_size': None,
        'part_size': 0,
        'sample_per_part': 1,
        'trans_std': 0.0,
        'no_trans': False,
    }

    def __init__(self, **attrs):
        super().__init__(**attrs)
        a, name = self.attrs, 'DeformablePSROIPooling'
        for key in (
            'spatial_scale',
            'output_dim',
            'group_size',
            'pooled_size',
        ):
            if a[key] is None:
                raise DLBookError(f'{name}: the {key} argument is required')
        self.scale = float(a['spatial_scale'])
        self.dim = parse_int(a['output_dim'], 'output_dim', name)
        self.group = parse_int(a['group_size'], 'group_size', name)
        self.pooled = parse_int(a['pooled_size'], 'pooled_size', name)
        self.part = parse_int(a['part_size'], 'part_size', name) or self.pooled
        self.samples = parse_int(a['sample_per_part'], 'sample_per_part', name)
        self.std = float(a['trans_std'])
        self.no_trans = parse_bool(a['no_trans'])

    def list_arguments(self):
        return self.arguments[:2] if self.no_trans else self.arguments

    def infer_shape(self, data=None, rois=None, trans=None):
        shapes = [data, rois] + ([] if self.no_trans else [trans])
        if data is None or rois is None:
            return shapes, [None], []
        out = (rois[0], self.dim, self.pooled, self.pooled)
        return [tuple(s) if s is not None else s for s in shapes], [out], []

    def _positions(self, xp, rois, trans, h, w):
        """Sample positions ``(R, D, P, P, S, S)`` (clamped), their
        validity, the region sizes and the trans index of each bin."""
        p, s = self.pooled, self.samples
        boxes = rois.astype('float64')
        x1, y1, x2, y2 = (c_round(xp, boxes[:, k]) for k in range(1, 5))
        sx, sy = x1 * self.scale - 0.5, y1 * self.scale - 0.5
        rw = xp.maximum((x2 + 1) * self.scale - 0.5 - sx, 0.1)
        rh = xp.maximum((y2 + 1) * self.scale - 0.5 - sy, 0.1)
        grid = xp.arange(p, dtype='float64')
        part = xp.floor(grid / p * self.part).astype(xp.int64)
        classes = 1 if trans is None else trans.shape[1] // 2
        cls = xp.arange(self.dim) // (self.dim // classes)
        shape = (-1, 1, 1, 1)
        # trans entries (R, D, P, P) of the x shift; y is the next plane
        r = xp.arange(rois.shape[0]).reshape(shape)
        index = (
            ((r * classes + cls[:, None, None]) * 2) * self.part
            + part[:, None]
        ) * self.part + part[None, :]
        if trans is None:
            tx = ty = 0.0
        else:
            flat = trans.reshape(-1).astype('float64')
            tx = flat[index] * self.std
            ty = flat[index + self.part * self.part] * self.std
        ws = (
            grid[None, None, None, :] * (rw / p).reshape(shape)
            + sx.reshape(shape)
            + tx * rw.reshape(shape)
        )
        hs = (
            grid[None, None, :, None] * (rh / p).reshape(shape)
            + sy.reshape(shape)
            + ty * rh.reshape(shape)
        )
        sub = xp.arange(s, dtype='float64')
        wpos = ws[..., None, None] + sub * (rw / p / s).reshape(shape + (1, 1))
        hpos = hs[..., None, None] + sub[:, None] * (rh / p / s).reshape(
            shape + (1, 1)
        )
        hpos, wpos = xp.broadcast_arrays(hpos, wpos)
        valid = (wpos >= -0.5) & (wpos <= w - 0.5)
        valid &= (hpos >= -0.5) & (hpos <= h - 0.5)
        wpos = xp.clip(wpos, 0, w - 1)
        hpos = xp.clip(hpos, 0, h - 1)
        return hpos, wpos, valid, rw, rh, index

    def forward(self, xp, data, rois, trans=None):
        n, c, h, w = data.shape
        if c != self.dim * self.group * self.group:
            raise DLBookError(
                'DeformablePSROIPooling: data must have output_dim * '
                f'group_size^2 = {self.dim * self.group**2} channels, got {c}'
            )
        hpos, wpos, valid, rw, rh, index = self._positions(
            xp, rois, None if self.no_trans else trans, h, w
        )
        p, g = self.pooled, self.group
        cell = xp.minimum(xp.arange(p) * g // p, g - 1)
        ch = (xp.arange(self.dim)[:, None, None] * g + cell[:, None]) * g
        ch = (ch + cell[None, :])[None, :, :, :, None, None]
        b = xp.trunc(rois[:, 0].astype('float64')).astype(xp.int64)
        base = (b.reshape(-1, 1, 1, 1, 1, 1) * c + ch) * (h * w)
        y0, x0 = xp.floor(hpos), xp.floor(wpos)
        y1, x1 = xp.ceil(hpos), xp.ceil(wpos)
        fy, fx = hpos - y0, wpos - x0
        flat = data.reshape(-1)
        corners = []
        for yy, wy in ((y0, 1 - fy), (y1, fy)):
            for xx, wx in ((x0, 1 - fx), (x1, fx)):
                idx = base + (yy * w + xx).astype(xp.int64)
                corners.append((idx, wy * wx, flat[idx].astype('float64')))
        count = valid.sum(axis=(-2, -1))
        norm = valid / xp.maximum(count, 1)[..., None, None]
        value = sum(wgt * v for _, wgt, v in corners)
        out = (value * norm).sum(axis=(-2, -1))
        self.saved = (data.shape, rois.shape, corners, norm, fx, fy, rw, rh)
        self.saved += (index, None if trans is None else trans.shape)
        return out.astype(data.dtype)

    def backward(self, xp, dy):
        shape, rois_shape, corners, norm, fx, fy, rw, rh, index, tshape = (
            self.saved
        )
        grad = dy.astype('float64')[..., None, None] * norm
        size = shape[0] * shape[1] * shape[2] * shape[3]
        ddata = 0
        for idx, wgt, _ in corners:
            ddata = ddata + xp.bincount(
                idx.reshape(-1),
                weights=(grad * wgt).reshape(-1),
                minlength=size,
            )
        ddata = ddata.reshape(shape).astype(dy.dtype)
        drois = xp.zeros(rois_shape, dtype=dy.dtype)
        if self.no_trans:
            return ddata, drois
        v00, v01, v10, v11 = (v for _, _, v in corners)
        dvx = (1 - fy) * (v01 - v00) + fy * (v11 - v10)
        dvy = (1 - fx) * (v10 - v00) + fx * (v11 - v01)
        shape4 = (-1, 1, 1, 1)
        gx = (grad * dvx).sum(axis=(-2, -1)) * self.std * rw.reshape(shape4)
        gy = (grad * dvy).sum(axis=(-2, -1)) * self.std * rh.reshape(shape4)
        total = tshape[0] * tshape[1] * tshape[2] * tshape[3]
        dtrans = xp.bincount(
            index.reshape(-1), weights=gx.reshape(-1), minlength=total
        ) + xp.bincount(
            (index + self.part * self.part).reshape(-1),
            weights=gy.reshape(-1),
            minlength=total,
        )
        return ddata, drois, dtrans.reshape(tshape).astype(dy.dtype)
