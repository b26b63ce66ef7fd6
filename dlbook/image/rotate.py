"""Rotating float images: :func:`imrotate` and :func:`random_rotate`
(MXNet 1.x's ``mx.image.imrotate`` / ``random_rotate``).

Unlike the rest of ``mx.image`` these work on ``CHW`` images or ``NCHW``
batches of float32 (what ``ToTensor`` produces), as in MXNet.  The image
is rotated about its centre by sampling it with ``nd.BilinearSampler`` on
a rotated grid: points that fall outside the image read 0.  A positive
angle turns the picture counter-clockwise as it is displayed.

- ``zoom_in=True`` scales the grid so that no padding shows (the output
  is a magnified central part);
- ``zoom_out=True`` scales it so that the whole rotated image fits.

The grid is computed with the same float32 operations as MXNet's, so
results agree to float32 rounding.
"""

__all__ = ['imrotate', 'random_rotate']

import math
import numbers

import numpy

from .. import ndarray as nd
from .. import random as _random
from ..base import DLBookError
from ..ndarray.ndarray import NDArray


def _check_float_image(src, name):
    if not isinstance(src, NDArray):
        raise DLBookError(
            f'{name}: src must be an NDArray of shape (C, H, W) or '
            f'(N, C, H, W), got {type(src).__name__}'
        )
    if src.dtype != numpy.float32:
        raise DLBookError(
            f'{name}: only float32 images are supported, got dtype '
            f'{numpy.dtype(src.dtype).name} (shape {src.shape}); call '
            f"ToTensor or .astype('float32') first"
        )
    if src.ndim not in (3, 4):
        raise DLBookError(
            f'{name}: src must have shape (C, H, W) or (N, C, H, W), got '
            f'shape {src.shape}'
        )
    if min(src.shape[-2:]) < 2:
        raise DLBookError(
            f'{name}: the image must be at least 2x2 pixels, got shape '
            f'{src.shape}'
        )


def imrotate(src, rotation_degrees, zoom_in=False, zoom_out=False):
    """Rotate image(s) by ``rotation_degrees`` about their centre.

    Parameters
    ----------
    src : NDArray
        float32 image ``(C, H, W)`` or batch ``(N, C, H, W)``.
    rotation_degrees : float or NDArray
        The angle in degrees (counter-clockwise); for a batch, a number
        or an ``(N,)`` NDArray with one angle per image.
    zoom_in : bool, default False
        Magnify so that no padding shows.
    zoom_out : bool, default False
        Shrink so that the whole rotated image shows.

    Returns
    -------
    NDArray
        Same shape as ``src``; points outside the source read 0.

    Examples
    --------
    >>> img = mx.nd.ones((3, 4, 4))
    >>> mx.image.imrotate(img, 90).shape
    (3, 4, 4)
    """
    if zoom_in and zoom_out:
        raise DLBookError('imrotate: zoom_in and zoom_out cannot both be True')
    _check_float_image(src, 'imrotate')
    expanded = False
    if src.ndim == 3:
        expanded = True
        src = src.expand_dims(axis=0)
        if not isinstance(rotation_degrees, numbers.Number):
            raise DLBookError(
                'imrotate: for a single (C, H, W) image rotation_degrees '
                f'must be a number, got {type(rotation_degrees).__name__}'
            )
    ctx = src.context
    if isinstance(rotation_degrees, numbers.Number):
        rotation_degrees = nd.array([rotation_degrees] * len(src), ctx=ctx)
    elif not isinstance(rotation_degrees, NDArray):
        rotation_degrees = nd.array(rotation_degrees, ctx=ctx)
    if rotation_degrees.shape != (len(src),):
        raise DLBookError(
            f'imrotate: {len(src)} images (src shape {src.shape}) need '
            f'{len(src)} rotation angles, got rotation_degrees of shape '
            f'{rotation_degrees.shape}'
        )
    rotation_degrees = rotation_degrees.as_in_context(ctx)
    rotation_rad = math.pi * rotation_degrees.astype('float32') / 180
    rotation_rad = rotation_rad.expand_dims(axis=1).expand_dims(axis=2)
    _, _, h, w = src.shape

    # a grid of pixel positions centred on the image centre
    hscale = float(h - 1) / 2
    wscale = float(w - 1) / 2
    rows = nd.arange(h, ctx=ctx).astype('float32').reshape(h, 1)
    cols = nd.arange(w, ctx=ctx).astype('float32').reshape(1, w)
    h_matrix = (nd.repeat(rows, w, axis=1) - hscale).expand_dims(axis=0)
    w_matrix = (nd.repeat(cols, h, axis=0) - wscale).expand_dims(axis=0)
    c_alpha = nd.cos(rotation_rad)
    s_alpha = nd.sin(rotation_rad)
    w_matrix_rot = w_matrix * c_alpha - h_matrix * s_alpha
    h_matrix_rot = w_matrix * s_alpha + h_matrix * c_alpha
    # normalise after rotating, which keeps the aspect ratio
    w_matrix_rot = w_matrix_rot / wscale
    h_matrix_rot = h_matrix_rot / hscale

    if zoom_in or zoom_out:
        hh, ww = nd.array([h], ctx=ctx), nd.array([w], ctx=ctx)
        rho_corner = nd.sqrt(hh * hh + ww * ww)
        ang_corner = nd.arctan(hh / ww)
        turn = nd.abs(rotation_rad)
        corner1_x = nd.abs(rho_corner * nd.cos(ang_corner + turn))
        corner1_y = nd.abs(rho_corner * nd.sin(ang_corner + turn))
        corner2_x = nd.abs(rho_corner * nd.cos(ang_corner - turn))
        corner2_y = nd.abs(rho_corner * nd.sin(ang_corner - turn))
        max_x = nd.maximum(corner1_x, corner2_x)
        max_y = nd.maximum(corner1_y, corner2_y)
        if zoom_out:
            globalscale = nd.maximum(max_x / ww, max_y / hh)
        else:
            globalscale = nd.minimum(ww / max_x, hh / max_y)
        globalscale = globalscale.expand_dims(axis=3)
    else:
        globalscale = 1
    grid = nd.concat(
        w_matrix_rot.expand_dims(axis=1),
        h_matrix_rot.expand_dims(axis=1),
        dim=1,
    )
    grid = grid * globalscale
    out = nd.BilinearSampler(src, grid)
    return out[0] if expanded else out


def random_rotate(src, angle_limits, zoom_in=False, zoom_out=False):
    """Rotate by an angle drawn uniformly from ``angle_limits``
    (degrees), one angle per image of a batch; see :func:`imrotate`.

    Parameters
    ----------
    src : NDArray
        float32 ``(C, H, W)`` or ``(N, C, H, W)``.
    angle_limits : tuple of (float, float)
        ``(lower, upper)`` in degrees.
    zoom_in, zoom_out : bool, default False

    The angles come from ``dlbook.random.numpy_rng()``
    (``mx.random.seed`` makes them reproducible).
    """
    try:
        lower, upper = angle_limits
    except (TypeError, ValueError):
        raise DLBookError(
            f'random_rotate: angle_limits must be (lower, upper) in '
            f'degrees, got {angle_limits!r}'
        ) from None
    _check_float_image(src, 'random_rotate')
    rng = _random.numpy_rng()
    if src.ndim == 3:
        rotation_degrees = float(rng.uniform(lower, upper))
    else:
        rotation_degrees = nd.array(
            rng.uniform(lower, upper, size=src.shape[0]), ctx=src.context
        )
    return imrotate(src, rotation_degrees, zoom_in=zoom_in, zoom_out=zoom_out)
