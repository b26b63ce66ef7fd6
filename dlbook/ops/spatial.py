"""Operators: the spatial transformer network (Jaderberg et al., 2015) as
in MXNet 1.x: ``GridGenerator``, ``BilinearSampler`` and the two joined,
``SpatialTransformer`` (src/operator/grid_generator-inl.h,
bilinear_sampler-inl.h, spatial_transformer-inl.h).

A *sampling grid* has shape ``(N, 2, H_out, W_out)``: for every output
pixel it says where in the input image to read, channel 0 the column
``x`` and channel 1 the row ``y``, both *normalised* to ``[-1, 1]``
(-1 the first pixel's centre, +1 the last one's).  On an input of
``H x W`` pixels the point ``(x, y)`` is the pixel position::

    px = (x + 1) (W - 1) / 2,        py = (y + 1) (H - 1) / 2.

``BilinearSampler`` reads the input there by bilinear interpolation of
the four surrounding pixels (pixels outside the image count as 0), so a
network can learn *where to look*: the output is differentiable in the
grid as well as in the data.  ``GridGenerator`` makes grids from six
affine parameters per image or from a per-pixel displacement field
(optical flow).
"""

from ..base import DLBookError
from .op import Op, register
from .windows import parse_tuple

__all__ = ['GridGenerator', 'BilinearSampler', 'SpatialTransformer']


def _target(attrs, op_name):
    """``target_shape`` as positive ``(h, w)``, at least 2 each (the grid
    spacing divides by ``h - 1`` and ``w - 1``)."""
    shape = parse_tuple(attrs['target_shape'], 'target_shape', op_name)
    if len(shape) != 2 or min(shape) < 2:
        raise DLBookError(
            f'{op_name}: target_shape must be (h, w) with h, w >= 2, got '
            f'{attrs["target_shape"]!r}'
        )
    return shape


def affine_base(xp, h, w, dtype):
    """The ``(3, h w)`` matrix of homogeneous target coordinates
    ``(x, y, 1)``, ``x = -1 + 2 j / (w - 1)``, ``y = -1 + 2 i / (h - 1)``,
    pixels in row-major order."""
    cols = xp.arange(h * w)
    x = -1.0 + (cols % w) * (2.0 / (w - 1))
    y = -1.0 + (cols // w) * (2.0 / (h - 1))
    return xp.stack([x, y, xp.ones(h * w)]).astype(dtype)


def affine_grid(xp, theta, h, w):
    """Grid ``(N, 2, h, w)`` from ``theta`` ``(N, 6)`` and the base."""
    base = affine_base(xp, h, w, theta.dtype)
    grid = xp.matmul(theta.reshape(-1, 2, 3), base)
    return grid.reshape(-1, 2, h, w), base


def affine_grid_grad(xp, dgrid, base):
    """``dtheta = dgrid @ base^T``, per image: ``(N, 6)``."""
    n = dgrid.shape[0]
    return xp.matmul(dgrid.reshape(n, 2, -1), base.T).reshape(n, 6)


class Bilinear:
    """Bilinear reads of NCHW ``data`` at pixel positions ``px, py`` (each
    ``(N, P)``), zero outside the image, with the gradients of both.

    The point ``(px, py)`` lies in the cell of corners ``x0 = floor(px)``,
    ``x0 + 1`` and ``y0``, ``y0 + 1``; with ``fx = px - x0``,
    ``fy = py - y0`` the read is::

        out = (1-fy)(1-fx) v00 + (1-fy) fx v01 + fy (1-fx) v10 + fy fx v11

    so ``d out / d px = (1-fy)(v01 - v00) + fy (v11 - v10)`` (and alike
    for ``py``), and each corner's pixel receives ``weight * dy``.
    """

    def __init__(self, xp, data, px, py):
        n, c, h, w = data.shape
        self.shape = data.shape
        x0, y0 = xp.floor(px), xp.floor(py)
        fx, fy = px - x0, py - y0
        x0, y0 = x0.astype(xp.int64), y0.astype(xp.int64)
        # (N, H W, C): one row per pixel, so one gather reads C values
        rows = data.reshape(n, c, h * w).transpose(0, 2, 1)
        batch = xp.arange(n)[:, None]
        self.corners = []
        out = 0
        for sy, wy in ((-1, 1 - fy), (1, fy)):
            yy = y0 + (sy > 0)
            for sx, wx in ((-1, 1 - fx), (1, fx)):
                xx = x0 + (sx > 0)
                inside = ((yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)).astype(
                    data.dtype
                )
                flat = xp.clip(yy, 0, h - 1) * w + xp.clip(xx, 0, w - 1)
                value = rows[batch, flat] * inside[..., None]
                out = out + (wy * wx)[..., None] * value
                self.corners.append((flat, inside, wy, wx, sy, sx, value))
        self.out = out

    def output(self):
        """``(N, C, P)``: the sum over the corners of weight * value."""
        return self.out.transpose(0, 2, 1)

    def grads(self, xp, dy, need_data=True):
        """``dy`` ``(N, C, P)`` -> ``(ddata or None, dpx, dpy)``."""
        n, c, h, w = self.shape
        dyt = dy.transpose(0, 2, 1)  # (N, P, C)
        dpx = dpy = 0
        ddata = xp.zeros((n * h * w, c), dtype=dy.dtype) if need_data else None
        offset = (xp.arange(n) * (h * w))[:, None]
        for flat, inside, wy, wx, sy, sx, value in self.corners:
            along = (dyt * value).sum(axis=2)  # dy . value, (N, P)
            dpx = dpx + sx * wy * along
            dpy = dpy + sy * wx * along
            if need_data:
                # add.at: several output pixels may read one input pixel
                xp.add.at(
                    ddata,
                    (flat + offset).reshape(-1),
                    (dyt * (wy * wx * inside)[..., None]).reshape(-1, c),
                )
        if need_data:
            ddata = ddata.reshape(n, h * w, c).transpose(0, 2, 1)
            ddata = ddata.reshape(n, c, h, w)
        return ddata, dpx, dpy


def _check_data(shape, op_name):
    if len(shape) != 4:
        raise DLBookError(
            f'{op_name}: data must be 4-D (batch, channel, height, width), '
            f'got shape {tuple(shape)}'
        )


def _check_grid(data, grid, op_name):
    _check_data(data, op_name)
    if len(grid) != 4 or grid[1] != 2 or grid[0] != data[0]:
        raise DLBookError(
            f'{op_name}: grid must have shape (batch, 2, h_out, w_out) with '
            f'the batch of data {tuple(data)}, got {tuple(grid)}'
        )


def sample(xp, data, grid):
    """Read ``data`` at the normalised ``grid``: (Bilinear, output NCHW)."""
    n, _, h, w = data.shape
    _, _, oh, ow = grid.shape
    g = grid.reshape(n, 2, oh * ow)
    px = (g[:, 0] + 1) * ((w - 1) / 2)
    py = (g[:, 1] + 1) * ((h - 1) / 2)
    reads = Bilinear(xp, data, px, py)
    return reads, reads.output().reshape(n, -1, oh, ow)


def sample_grads(xp, reads, dy, need_data=True):
    """(ddata, dgrid) of :func:`sample` for the output gradient ``dy``."""
    n, c, h, w = reads.shape
    _, _, oh, ow = dy.shape
    ddata, dpx, dpy = reads.grads(xp, dy.reshape(n, c, oh * ow), need_data)
    dgrid = xp.stack([dpx * ((w - 1) / 2), dpy * ((h - 1) / 2)], axis=1)
    return ddata, dgrid.reshape(n, 2, oh, ow).astype(dy.dtype)


@register('GridGenerator')
class GridGenerator(Op):
    """A sampling grid ``(N, 2, H, W)`` for :class:`BilinearSampler`.

    ``transform_type='affine'``: ``data`` is ``(N, 6)``, the matrix
    ``A = [[a0, a1, a2], [a3, a4, a5]]`` of each image, and
    ``target_shape=(H, W)`` the output size::

        grid[n, :, i, j] = A_n @ (x_j, y_i, 1),
        x_j = -1 + 2 j / (W - 1),   y_i = -1 + 2 i / (H - 1);
        dA_n = sum_ij dgrid[n, :, i, j] (x_j, y_i, 1)^T.

    ``A = [[1, 0, 0], [0, 1, 0]]`` is the identity grid.

    ``transform_type='warp'``: ``data`` is a flow ``(N, 2, H, W)`` in
    pixels (x, y), turned into normalised positions of the moved pixels::

        grid[:, 0, i, j] = (j + flow_x) / ((W - 1) / 2) - 1;
        dflow_x = dgrid_x * 2 / (W - 1)    (and alike for y).
    """

    defaults = {'transform_type': None, 'target_shape': (0, 0)}

    def __init__(self, **attrs):
        super().__init__(**attrs)
        if self.attrs['transform_type'] not in ('affine', 'warp'):
            raise DLBookError(
                "GridGenerator: transform_type must be 'affine' or 'warp', "
                f'got {self.attrs["transform_type"]!r}'
            )
        self.affine = self.attrs['transform_type'] == 'affine'

    def _out_shape(self, shape):
        if self.affine:
            if len(shape) != 2 or shape[1] != 6:
                raise DLBookError(
                    "GridGenerator(transform_type='affine'): data must be "
                    f'(batch, 6), got shape {tuple(shape)}'
                )
            h, w = _target(self.attrs, 'GridGenerator')
            return (shape[0], 2, h, w)
        if len(shape) != 4 or shape[1] != 2 or min(shape[2:]) < 2:
            raise DLBookError(
                "GridGenerator(transform_type='warp'): data must be a flow "
                f'(batch, 2, h, w) with h, w >= 2, got shape {tuple(shape)}'
            )
        return tuple(shape)

    def infer_shape(self, data=None):
        if data is None:
            return [None], [None], []
        return [tuple(data)], [self._out_shape(data)], []

    def forward(self, xp, data):
        _, _, h, w = self._out_shape(data.shape)
        if self.affine:
            grid, self.saved = affine_grid(xp, data, h, w)
            return grid
        cols = xp.arange(w, dtype=data.dtype)
        rows = xp.arange(h, dtype=data.dtype)[:, None]
        sx, sy = (w - 1) / 2, (h - 1) / 2
        self.saved = (sx, sy)
        return xp.stack(
            [(data[:, 0] + cols) / sx - 1, (data[:, 1] + rows) / sy - 1],
            axis=1,
        ).astype(data.dtype)

    def backward(self, xp, dy):
        if self.affine:
            return affine_grid_grad(xp, dy, self.saved)
        sx, sy = self.saved
        return xp.stack([dy[:, 0] / sx, dy[:, 1] / sy], axis=1).astype(
            dy.dtype
        )


@register('BilinearSampler')
class BilinearSampler(Op):
    """Read NCHW ``data`` at the normalised positions of ``grid``
    ``(N, 2, H_out, W_out)`` (x then y, -1..1 spanning the pixel
    centres) by bilinear interpolation; pixels outside read 0.

    With ``px = (x + 1)(W - 1)/2``, ``py = (y + 1)(H - 1)/2``, the cell
    corners ``x0 = floor(px)``, ``y0 = floor(py)`` and ``fx = px - x0``,
    ``fy = py - y0``::

        out = (1-fy)(1-fx) v00 + (1-fy) fx v01 + fy (1-fx) v10 + fy fx v11
        ddata[corner] += weight(corner) * dout
        dgrid_x = (W - 1)/2 * sum_c dout ((1-fy)(v01 - v00) + fy (v11 - v10))

    and alike for ``dgrid_y``.  The gradient in the grid jumps where a
    point crosses a pixel boundary (the corners change).
    ``cudnn_off`` is accepted and ignored.
    """

    arguments = ('data', 'grid')
    defaults = {'cudnn_off': None}
    same_dtype = True

    def infer_shape(self, data=None, grid=None):
        if data is None or grid is None:
            return [data, grid], [None], []
        _check_grid(data, grid, 'BilinearSampler')
        out = (data[0], data[1], grid[2], grid[3])
        return [tuple(data), tuple(grid)], [out], []

    def forward(self, xp, data, grid):
        _check_grid(data.shape, grid.shape, 'BilinearSampler')
        self.saved, out = sample(xp, data, grid)
        return out

    def backward(self, xp, dy):
        return sample_grads(xp, self.saved, dy)


@register('SpatialTransformer')
class SpatialTransformer(Op):
    """``BilinearSampler(data, GridGenerator(loc, 'affine', target_shape))``
    in one operator: ``loc`` ``(N, 6)`` holds each image's affine matrix
    (usually the output of a small localisation network, initialised to
    the identity ``[1, 0, 0, 0, 1, 0]``); the output is
    ``(N, C, target_shape[0], target_shape[1])``.

    Gradients follow the chain: ``dgrid`` from the sampler, then
    ``dloc_n = sum_ij dgrid[n, :, i, j] (x_j, y_i, 1)^T``.  Only
    ``transform_type='affine'`` and ``sampler_type='bilinear'`` exist (as
    in MXNet); ``cudnn_off`` is ignored.
    """

    arguments = ('data', 'loc')
    defaults = {
        'target_shape': (0, 0),
        'transform_type': None,
        'sampler_type': None,
        'cudnn_off': None,
    }
    same_dtype = True
    skips_unneeded_grads = True

    def __init__(self, **attrs):
        super().__init__(**attrs)
        if self.attrs['transform_type'] != 'affine':
            raise DLBookError(
                "SpatialTransformer: transform_type must be 'affine', got "
                f'{self.attrs["transform_type"]!r}'
            )
        if self.attrs['sampler_type'] != 'bilinear':
            raise DLBookError(
                "SpatialTransformer: sampler_type must be 'bilinear', got "
                f'{self.attrs["sampler_type"]!r}'
            )

    def _out_shape(self, data, loc):
        _check_data(data, 'SpatialTransformer')
        if tuple(loc) != (data[0], 6):
            raise DLBookError(
                f'SpatialTransformer: loc must be (batch, 6) = ({data[0]}, 6) '
                f'for data {tuple(data)}, got {tuple(loc)}'
            )
        h, w = _target(self.attrs, 'SpatialTransformer')
        return (data[0], data[1], h, w)

    def infer_shape(self, data=None, loc=None):
        if data is None:
            return [data, loc], [None], []
        loc = (data[0], 6) if loc is None else loc
        out = self._out_shape(data, loc)
        return [tuple(data), tuple(loc)], [out], []

    def forward(self, xp, data, loc):
        _, _, h, w = self._out_shape(data.shape, loc.shape)
        grid, base = affine_grid(xp, loc, h, w)
        reads, out = sample(xp, data, grid)
        self.saved = (reads, base)
        return out

    def backward(self, xp, dy):
        reads, base = self.saved
        need = self.needs_input_grad
        need_data = need is None or need[0]
        ddata, dgrid = sample_grads(xp, reads, dy, need_data)
        return ddata, affine_grid_grad(xp, dgrid, base)
