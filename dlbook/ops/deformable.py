"""Deformable convolutions (Dai et al. 2017; Zhu et al. 2019, "DCNv2") as
in MXNet 1.x: ``contrib.DeformableConvolution`` and
``contrib.ModulatedDeformableConvolution``
(apache/mxnet@1.9.1:src/operator/contrib/deformable_convolution-inl.h,
nn/deformable_im2col.h, modulated_deformable_convolution-inl.h).

An ordinary convolution reads, for output pixel ``p`` and kernel tap
``k``, the input at ``p stride - pad + k dilate``.  A deformable one
adds a learned, real-valued offset ``(dh, dw)`` per output pixel and tap
(the ``offset`` input, usually a convolution of the same data) and reads
there by bilinear interpolation; the modulated one (DCNv2) also scales
each read by a learned ``mask`` value.  The reads form the columns of an
im2col matrix, and the convolution is the weight times those columns.

Layouts: ``offset`` is ``(N, 2 G K, Ho, Wo)`` with ``K = kh kw`` taps
and ``G = num_deformable_group`` (the input channels are split into
``G`` groups that share offsets); channel ``2 (g K + k)`` holds ``dh``
and the next one ``dw``.  ``mask`` is ``(N, G K, Ho, Wo)``.
"""

from ..base import DLBookError
from .op import Op, register
from .windows import parse_bool, parse_int, parse_tuple, spatial_tuple

__all__ = ['DeformableConvolution', 'ModulatedDeformableConvolution']


def _axis(xp, pos, size, clamp):
    """Bilinear corners along one axis: ``(low, high, frac, dfrac,
    inside)`` with ``frac`` the weight of ``high`` and ``dfrac`` its
    derivative by ``pos`` (0 where the position is clamped)."""
    low = xp.floor(pos)
    if clamp:  # MXNet's DCNv1: past the last pixel reads the last pixel
        last = low >= size - 1
        low = xp.where(last, size - 1, low)
        high = xp.where(last, size - 1, low + 1)
        frac = xp.where(last, 0, pos - low)
        dfrac = xp.where(last, 0, 1).astype(pos.dtype)
        inside = (pos >= 0) & (pos < size)
    else:  # DCNv2: pixels outside the image read 0
        high = low + 1
        frac = pos - low
        dfrac = xp.ones_like(pos)
        inside = (pos > -1) & (pos < size)
    return low.astype(xp.int64), high.astype(xp.int64), frac, dfrac, inside


class _Deformable(Op):
    """The shared im2col of both deformable convolutions."""

    defaults = {
        'kernel': None,
        'stride': (),
        'dilate': (),
        'pad': (),
        'num_filter': None,
        'num_group': 1,
        'num_deformable_group': 1,
        'workspace': 1024,
        'no_bias': False,
        'layout': None,
    }
    learned_inputs = ('weight', 'bias')
    modulated = False

    def __init__(self, **attrs):
        super().__init__(**attrs)
        a, name = self.attrs, self.name
        self.kernel = parse_tuple(a['kernel'], 'kernel', name)
        if len(self.kernel) != 2:
            raise DLBookError(
                f'{name}: only 2-D kernels (h, w) are supported, got '
                f'kernel={a["kernel"]!r}'
            )
        self.stride = spatial_tuple(a['stride'], 2, 1, 'stride', name)
        self.dilate = spatial_tuple(a['dilate'], 2, 1, 'dilate', name)
        self.pad = spatial_tuple(a['pad'], 2, 0, 'pad', name)
        if a['num_filter'] is None:
            raise DLBookError(f'{name}: the num_filter argument is required')
        self.filters = parse_int(a['num_filter'], 'num_filter', name)
        self.groups = parse_int(a['num_group'], 'num_group', name)
        self.dgroups = parse_int(
            a['num_deformable_group'], 'num_deformable_group', name
        )
        self.no_bias = parse_bool(a['no_bias'])
        if a['layout'] not in (None, 'None', 'NCHW'):
            raise DLBookError(
                f'{name}: layout must be NCHW, got {a["layout"]!r}'
            )

    def list_arguments(self):
        args = ('data', 'offset') + (('mask',) if self.modulated else ())
        return args + (('weight',) if self.no_bias else ('weight', 'bias'))

    def _shapes(self, data):
        """``(Ho, Wo)`` and the offset, mask, weight and bias shapes."""
        name = self.name
        if len(data) != 4:
            raise DLBookError(
                f'{name}: data must be 4-D (batch, channel, height, width), '
                f'got shape {tuple(data)}'
            )
        n, c, h, w = data
        if c % self.groups or self.filters % self.groups:
            raise DLBookError(
                f'{name}: channels ({c}) and num_filter ({self.filters}) '
                f'must be multiples of num_group ({self.groups})'
            )
        if c % self.dgroups:
            raise DLBookError(
                f'{name}: channels ({c}) must be a multiple of '
                f'num_deformable_group ({self.dgroups})'
            )
        if self.modulated and self.filters % self.dgroups:
            raise DLBookError(
                f'{name}: num_filter ({self.filters}) must be a multiple of '
                f'num_deformable_group ({self.dgroups})'
            )
        kh, kw = self.kernel
        out = tuple(
            (size + 2 * p - d * (k - 1) - 1) // s + 1
            for size, k, s, d, p in zip(
                (h, w), self.kernel, self.stride, self.dilate, self.pad
            )
        )
        if min(out) < 1:
            raise DLBookError(
                f'{name}: kernel {self.kernel} (dilated) is larger than the '
                f'padded input {(h, w)}'
            )
        taps = self.dgroups * kh * kw
        shapes = {
            'offset': (n, 2 * taps) + out,
            'mask': (n, taps) + out,
            'weight': (self.filters, c // self.groups, kh, kw),
            'bias': (self.filters,),
        }
        return out, shapes

    def infer_shape(self, *shapes):
        data = shapes[0] if shapes else None
        names = self.list_arguments()
        if data is None:
            return (
                list(shapes) + [None] * (len(names) - len(shapes)),
                [None],
                [],
            )
        out, known = self._shapes(data)
        args = [tuple(data)] + [known[k] for k in names[1:]]
        return args, [(data[0], self.filters) + out], []

    def _sample(self, xp, data, offset):
        """The sampling positions' corners: a list of ``(flat index,
        weight, dweight/dh, dweight/dw)`` per corner, each ``(N, G, K,
        L)``, ``L = Ho Wo``."""
        n, c, h, w = data.shape
        (ho, wo), _ = self._shapes(data.shape)
        kh, kw = self.kernel
        dt = data.dtype
        off = offset.reshape(n, self.dgroups, kh * kw, 2, ho, wo)
        base_h = (
            xp.arange(ho, dtype=dt)[None, :] * self.stride[0]
            - self.pad[0]
            + xp.arange(kh, dtype=dt)[:, None] * self.dilate[0]
        )  # (kh, Ho)
        base_w = (
            xp.arange(wo, dtype=dt)[None, :] * self.stride[1]
            - self.pad[1]
            + xp.arange(kw, dtype=dt)[:, None] * self.dilate[1]
        )  # (kw, Wo)
        grid_h = xp.broadcast_to(base_h[:, None, :, None], (kh, kw, ho, wo))
        grid_w = xp.broadcast_to(base_w[None, :, None, :], (kh, kw, ho, wo))
        pos_h = grid_h.reshape(kh * kw, ho, wo) + off[:, :, :, 0]
        pos_w = grid_w.reshape(kh * kw, ho, wo) + off[:, :, :, 1]
        clamp = not self.modulated
        hl, hh, fh, dfh, in_h = _axis(xp, pos_h, h, clamp)
        wl, wh, fw, dfw, in_w = _axis(xp, pos_w, w, clamp)
        valid = in_h & in_w
        corners = []
        for ih, ah, wy, dy in ((hl, 1, 1 - fh, -dfh), (hh, 0, fh, dfh)):
            for iw, aw, wx, dx in ((wl, 1, 1 - fw, -dfw), (wh, 0, fw, dfw)):
                ok = valid & (ih >= 0) & (ih < h) & (iw >= 0) & (iw < w)
                flat = xp.clip(ih, 0, h - 1) * w + xp.clip(iw, 0, w - 1)
                ok = ok.astype(dt)
                corners.append(
                    (
                        flat.reshape(n, self.dgroups, -1),
                        (wy * wx * ok).reshape(n, self.dgroups, -1),
                        (dy * wx * ok).reshape(n, self.dgroups, -1),
                        (wy * dx * ok).reshape(n, self.dgroups, -1),
                    )
                )
        return corners

    def _columns(self, xp, data, corners):
        """``(N, G, Cg, K L)`` values and their ``d/dh``, ``d/dw``."""
        n, c, h, w = data.shape
        flat = data.reshape(n, self.dgroups, c // self.dgroups, h * w)
        cols = dcol_h = dcol_w = 0
        for index, weight, dwh, dww in corners:
            index = xp.broadcast_to(
                index[:, :, None], flat.shape[:3] + index.shape[-1:]
            )
            value = xp.take_along_axis(flat, index, axis=3)
            cols = cols + value * weight[:, :, None]
            dcol_h = dcol_h + value * dwh[:, :, None]
            dcol_w = dcol_w + value * dww[:, :, None]
        return cols, dcol_h, dcol_w

    def _run(self, xp, data, offset, mask, weight, bias):
        n, c, h, w = data.shape
        (ho, wo), shapes = self._shapes(data.shape)
        given = {'offset': offset, 'weight': weight}
        if mask is not None:
            given['mask'] = mask
        if bias is not None:
            given['bias'] = bias
        for key, value in given.items():
            if tuple(value.shape) != shapes[key]:
                raise DLBookError(
                    f'{self.name}: {key} must have shape {shapes[key]} for '
                    f'data {tuple(data.shape)}, got {tuple(value.shape)}'
                )
        k = self.kernel[0] * self.kernel[1]
        corners = self._sample(xp, data, offset)
        cols, dcol_h, dcol_w = self._columns(xp, data, corners)
        # (N, G, Cg, K, L) -> (N, C, K, L)
        raw = cols.reshape(n, c, k, ho * wo)
        if mask is not None:
            m = mask.reshape(n, self.dgroups, 1, k, ho * wo)
            full = cols.reshape(n, self.dgroups, -1, k, ho * wo) * m
            full = full.reshape(raw.shape)
        else:
            full = raw
        g = self.groups
        wmat = weight.reshape(g, self.filters // g, -1)
        y = xp.matmul(wmat[None], full.reshape(n, g, -1, ho * wo))
        y = y.reshape(n, self.filters, ho, wo)
        if bias is not None:
            y = y + bias.reshape(1, -1, 1, 1)
        self.saved = (data, mask, weight, corners, raw, full, dcol_h, dcol_w)
        return y.astype(data.dtype)

    def _grads(self, xp, dy):
        data, mask, weight, corners, raw, full, dcol_h, dcol_w = self.saved
        n, c, h, w = data.shape
        ho, wo = dy.shape[2:]
        k = self.kernel[0] * self.kernel[1]
        g, dg = self.groups, self.dgroups
        dyg = dy.reshape(n, g, self.filters // g, ho * wo)
        wmat = weight.reshape(g, self.filters // g, -1)
        dweight = xp.matmul(
            dyg, full.reshape(n, g, -1, ho * wo).swapaxes(2, 3)
        )
        dweight = dweight.sum(axis=0).reshape(weight.shape)
        dbias = dy.sum(axis=(0, 2, 3))
        dfull = xp.matmul(wmat.swapaxes(1, 2)[None], dyg)  # (N, g, CgK, L)
        dfull = dfull.reshape(n, dg, c // dg, k, ho * wo)
        dmask = None
        if mask is not None:
            dmask = (dfull * raw.reshape(dfull.shape)).sum(axis=2)
            dmask = dmask.reshape(mask.shape)
            dcols = dfull * mask.reshape(n, dg, 1, k, ho * wo)
        else:
            dcols = dfull
        dcols = dcols.reshape(n, dg, c // dg, k * ho * wo)
        # offsets: the columns' derivative by the positions, summed over
        # the channels of each deformable group
        doff_h = (dcols * dcol_h).sum(axis=2).reshape(n, dg, k, 1, ho, wo)
        doff_w = (dcols * dcol_w).sum(axis=2).reshape(n, dg, k, 1, ho, wo)
        doffset = xp.concatenate([doff_h, doff_w], axis=3)
        doffset = doffset.reshape(n, 2 * dg * k, ho, wo)
        # data: every corner's weight scatters the column gradient back
        size = h * w
        cg = c // dg
        lead = xp.arange(n * dg * cg).reshape(n, dg, cg, 1) * size
        ddata = xp.zeros(n * c * size, dtype=dy.dtype)
        for index, wgt, _, _ in corners:
            target = lead + index[:, :, None]
            ddata = ddata + xp.bincount(
                target.reshape(-1),
                weights=(dcols * wgt[:, :, None]).reshape(-1),
                minlength=n * c * size,
            ).astype(dy.dtype)
        ddata = ddata.reshape(data.shape)
        return ddata, doffset.astype(dy.dtype), dmask, dweight, dbias


@register('_contrib_DeformableConvolution')
class DeformableConvolution(_Deformable):
    """Deformable convolution (DCNv1): output ``(N, num_filter, Ho, Wo)``,
    ``Ho = floor((H + 2 pad - dilate (kh - 1) - 1) / stride) + 1``.

    For output pixel ``(y, x)``, tap ``k = (i, j)`` and an input channel
    ``c`` of deformable group ``d``, the read position is::

        h = y stride_h - pad_h + i dilate_h + offset[n, 2 (d K + k), y, x]
        w = x stride_w - pad_w + j dilate_w + offset[n, 2 (d K + k) + 1, y, x]

    and ``col[c, k, (y, x)] = bilinear(data[n, c], h, w)``; as in MXNet's
    CPU kernel a read with ``h`` outside ``[0, H)`` (or ``w`` outside
    ``[0, W)``) is 0, and one past the last row or column (``h > H - 1``)
    reads that row (its ``dh`` gradient is then 0).  Then, per group of
    ``num_group``, ``y = weight @ col + bias``.

    Gradients: ``dweight = sum_n dy @ col^T``, ``dbias = sum dy``;
    ``dcol = weight^T @ dy``; ``ddata`` scatters ``dcol`` back with each
    corner's bilinear weight, and ``doffset`` sums ``dcol`` times the
    read's derivative over the group's channels: with ``f_w`` the
    fractional part of ``w`` and ``v[a, b]`` the four corners::

        d bilinear / dh = (1 - f_w) (v[hi, lo] - v[lo, lo])
                          + f_w (v[hi, hi] - v[lo, hi])

    (and symmetrically for ``dw``).
    """

    arguments = ('data', 'offset', 'weight', 'bias')

    def forward(self, xp, data, offset, weight, bias=None):
        return self._run(xp, data, offset, None, weight, bias)

    def backward(self, xp, dy):
        ddata, doffset, _, dweight, dbias = self._grads(xp, dy)
        if self.no_bias:
            return ddata, doffset, dweight
        return ddata, doffset, dweight, dbias


@register('_contrib_ModulatedDeformableConvolution')
class ModulatedDeformableConvolution(_Deformable):
    """Modulated deformable convolution (DCNv2): as
    ``DeformableConvolution`` with every read scaled by ``mask[n, d K +
    k, y, x]`` (usually a sigmoid output)::

        col[c, k, (y, x)] = mask[n, d K + k, y, x] bilinear(data[n, c], h, w)

    DCNv2's bilinear reads treat pixels outside the image as 0 (a read at
    ``-1 < h < H`` mixes in the zeros; outside that it is 0), unlike
    DCNv1's clamping.  ``dmask = sum_c dcol * bilinear(...)``; the other
    gradients are DCNv1's with ``dcol`` scaled by the mask.  MXNet 1.9.1
    computes this operator's gradient on GPUs only; here it runs on every
    device (checked against finite differences).
    """

    arguments = ('data', 'offset', 'mask', 'weight', 'bias')
    defaults = dict(_Deformable.defaults)
    defaults.pop('layout')
    defaults.update({'im2col_step': 64, 'layout': None})
    modulated = True

    def forward(self, xp, data, offset, mask, weight, bias=None):
        return self._run(xp, data, offset, mask, weight, bias)

    def backward(self, xp, dy):
        ddata, doffset, dmask, dweight, dbias = self._grads(xp, dy)
        if self.no_bias:
            return ddata, doffset, dmask, dweight
        return ddata, doffset, dmask, dweight, dbias
