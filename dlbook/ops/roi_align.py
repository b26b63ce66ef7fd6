"""Operator: ``contrib.ROIAlign`` (Mask R-CNN's region pooling, He et al.
2017) as in MXNet 1.x (src/operator/contrib/roi_align.cc, from Detectron).

``ROIPooling`` rounds each region to whole pixels and takes maxima;
ROIAlign keeps the region's real-valued corners, splits it into a
``pooled_size`` grid of bins, reads a few points in each bin by bilinear
interpolation and averages them, so the output moves smoothly with the
region and the features stay aligned with the image.
"""

from ..base import DLBookError
from .op import Op, register
from .windows import parse_bool, parse_int, parse_tuple

__all__ = ['ROIAlign']


def axis_weights(xp, start, bin_size, count, grid, pooled, size, dtype):
    """The ``(R, pooled, size)`` matrix that, for every region and bin,
    averages the bilinear weights of the bin's ``count`` sample points
    along one axis.

    Samples: ``start + p bin + (g + 1/2) bin / count`` for ``g < count``
    (``grid`` is the largest count: points past a region's own count are
    masked).  A point outside ``[-1, size]`` reads 0; one in
    ``[-1, 0]`` reads at 0; one past ``size - 1`` reads the last pixel.
    """
    p = xp.arange(pooled, dtype=dtype)[None, :, None]
    g = xp.arange(grid, dtype=dtype)[None, None, :]
    start, bin_size = start[:, None, None], bin_size[:, None, None]
    count = count[:, None, None]
    pos = start + p * bin_size + (g + 0.5) * bin_size / xp.maximum(count, 1)
    used = (g < count) & (pos >= -1.0) & (pos <= size)
    pos = xp.maximum(pos, 0.0)
    low = xp.floor(pos).astype(xp.int64)
    last = low >= size - 1
    low = xp.where(last, size - 1, low)
    high = xp.where(last, size - 1, low + 1)
    frac = xp.where(last, 0.0, pos - low)
    scale = used / xp.maximum(count, 1)  # (R, pooled, grid)
    cells = xp.arange(size)
    w = ((low[..., None] == cells) * (1 - frac)[..., None]) + (
        (high[..., None] == cells) * frac[..., None]
    )
    return (w * scale[..., None]).sum(axis=2).astype(dtype)


@register('_contrib_ROIAlign')
class ROIAlign(Op):
    """Pool each region of interest into a ``pooled_size`` ``(ph, pw)``
    grid: output ``(R, C, ph, pw)``.

    ``rois`` ``(R, 5)`` rows are ``(batch index, x1, y1, x2, y2)`` in
    image coordinates; ``spatial_scale`` (the feature map's size over the
    image's, ``1 / 16`` for a stride-16 network) takes them to feature
    coordinates, less half a pixel when ``aligned`` (Detectron2's
    pixel-centre convention); without ``aligned`` a region is at least
    1 x 1.  Each bin ``(i, j)`` is the mean of ``gh x gw`` bilinear
    samples on a regular grid inside it, ``gh = sample_ratio`` or, when
    that is <= 0, ``ceil(roi_height / ph)``::

        y[r, c, i, j] = 1 / (gh gw) sum_{a, b} bilinear(x[b_r, c], y_a, x_b)

    The sampling is separable: with per-region matrices ``Wy`` ``(ph, H)``
    and ``Wx`` ``(pw, W)`` of averaged interpolation weights,
    ``y[r, c] = Wy_r @ x[b_r, c] @ Wx_r^T`` and
    ``dx[b_r, c] += Wy_r^T @ dy[r, c] @ Wx_r``.  ``rois`` get a zero
    gradient (as in MXNet); regions with a negative batch index give 0.

    ``position_sensitive=True`` (R-FCN's PSRoIAlign): ``C`` must be a
    multiple of ``ph pw``; output channel ``c`` of bin ``(i, j)`` reads
    input channel ``(c ph + i) pw + j``, giving ``C / (ph pw)`` channels.
    """

    arguments = ('data', 'rois')
    defaults = {
        'pooled_size': None,
        'spatial_scale': None,
        'sample_ratio': -1,
        'position_sensitive': False,
        'aligned': False,
    }
    same_dtype = True

    def __init__(self, **attrs):
        super().__init__(**attrs)
        pooled = parse_tuple(
            self.attrs['pooled_size'], 'pooled_size', 'ROIAlign'
        )
        if len(pooled) == 1:
            pooled = pooled * 2
        if len(pooled) != 2 or min(pooled) < 1:
            raise DLBookError(
                'ROIAlign: pooled_size must be (h, w) of positive sizes, got '
                f'{self.attrs["pooled_size"]!r}'
            )
        scale = self.attrs['spatial_scale']
        if scale is None or not 0 <= float(scale) <= 1:
            raise DLBookError(
                f'ROIAlign: spatial_scale must be in [0, 1], got {scale!r}'
            )
        self.pooled = pooled
        self.scale = float(scale)
        self.ratio = parse_int(
            self.attrs['sample_ratio'], 'sample_ratio', 'ROIAlign'
        )
        self.sensitive = parse_bool(self.attrs['position_sensitive'])
        self.aligned = parse_bool(self.attrs['aligned'])

    def _out_shape(self, data, rois):
        if len(data) != 4:
            raise DLBookError(
                'ROIAlign: data must be 4-D (batch, channel, height, width), '
                f'got shape {tuple(data)}'
            )
        if len(rois) != 2 or rois[1] != 5:
            raise DLBookError(
                'ROIAlign: rois must be (num_rois, 5) rows of (batch, x1, y1, '
                f'x2, y2), got shape {tuple(rois)}'
            )
        ph, pw = self.pooled
        channels = data[1]
        if self.sensitive:
            if channels % (ph * pw):
                raise DLBookError(
                    f'ROIAlign(position_sensitive=True): the {channels} '
                    f'channels must be a multiple of ph * pw = {ph * pw}'
                )
            channels //= ph * pw
        return (rois[0], channels, ph, pw)

    def infer_shape(self, data=None, rois=None):
        if data is None or rois is None:
            return [data, rois], [None], []
        out = self._out_shape(data, rois)
        return [tuple(data), tuple(rois)], [out], []

    def _weights(self, xp, rois, n, h, w, dtype):
        """``Wy`` as ``(R, N, ph, H)`` (zero outside the region's image)
        and ``Wx`` ``(R, pw, W)``."""
        ph, pw = self.pooled
        boxes = rois.astype('float64')
        off = 0.5 if self.aligned else 0.0
        x1, y1, x2, y2 = (boxes[:, k] * self.scale - off for k in range(1, 5))
        rw, rh = x2 - x1, y2 - y1
        if not self.aligned:
            rw, rh = xp.maximum(rw, 1.0), xp.maximum(rh, 1.0)
        if self.ratio > 0:
            gh = gw = xp.full(rois.shape[0], self.ratio)
            grid_h = grid_w = self.ratio
        else:
            gh, gw = xp.ceil(rh / ph), xp.ceil(rw / pw)
            # the sample count is a shape: one read of two numbers
            grid_h = int(gh.max()) if gh.size else 0
            grid_w = int(gw.max()) if gw.size else 0
        wy = axis_weights(xp, y1, rh / ph, gh, grid_h, ph, h, dtype)
        wx = axis_weights(xp, x1, rw / pw, gw, grid_w, pw, w, dtype)
        # C's (int) cast truncates the batch index toward zero
        batch = xp.trunc(boxes[:, 0]).astype(xp.int64)
        pick = (batch[:, None] == xp.arange(n)).astype(dtype)  # (R, N)
        return pick[:, :, None, None] * wy[:, None], wx

    def _sensitive_index(self, xp, channels):
        """Index of ``full[:, c ph pw + i pw + j, i, j]`` viewed as
        ``(R, C', ph, pw, ph, pw)``."""
        ph, pw = self.pooled
        i = xp.arange(ph)[:, None]
        j = xp.arange(pw)[None, :]
        return (slice(None), slice(None), i, j, i, j)

    def forward(self, xp, data, rois):
        r_count, channels, ph, pw = self._out_shape(data.shape, rois.shape)
        n, c, h, w = data.shape
        wy, wx = self._weights(xp, rois, n, h, w, data.dtype)
        # (R, N, ph, H) x (N, C, H, W) over N and H -> (R, ph, C, W)
        rows = xp.tensordot(wy, data, axes=([1, 3], [0, 2]))
        full = xp.matmul(
            rows.transpose(0, 2, 1, 3), wx.transpose(0, 2, 1)[:, None]
        )
        self.saved = (wy, wx, data.shape, rois.shape)
        if not self.sensitive:
            return full
        view = full.reshape(r_count, channels, ph, pw, ph, pw)
        return view[self._sensitive_index(xp, channels)]

    def backward(self, xp, dy):
        wy, wx, shape, rois_shape = self.saved
        r_count, channels, ph, pw = dy.shape
        if self.sensitive:
            full = xp.zeros((r_count, channels, ph, pw, ph, pw), dy.dtype)
            full[self._sensitive_index(xp, channels)] = dy
            dy = full.reshape(r_count, shape[1], ph, pw)
        drows = xp.matmul(dy, wx[:, None])  # (R, C, ph, W)
        # (R, N, ph, H) x (R, C, ph, W) over R and ph -> (N, H, C, W)
        ddata = xp.tensordot(wy, drows, axes=([0, 2], [0, 2]))
        ddata = ddata.transpose(0, 2, 1, 3).astype(dy.dtype)
        return ddata, xp.zeros(rois_shape, dtype=dy.dtype)
