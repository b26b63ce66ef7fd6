"""Resize, crop, pad and normalise single ``HWC`` images (NDArrays).

These are MXNet's ``mx.image`` functions.  An image is an NDArray of shape
``(height, width, channels)``, as :func:`~dlbook.image.imread` returns it;
sizes are given as ``(width, height)``, OpenCV's order, and crop boxes as
``(x0, y0, width, height)`` with ``(x0, y0)`` the top-left corner.

Interpolation codes
-------------------
``interp`` takes OpenCV's codes, which MXNet passes straight to
``cv2.resize``:

====  =================================  ===============================
code  MXNet (OpenCV)                     dlbook
====  =================================  ===============================
0     nearest neighbour                  nearest neighbour (same rule)
1     bilinear                           bilinear (same rule; may differ
                                         by one grey level)
2     bicubic (4x4 neighbourhood)        bilinear
3     area (pixel-area averaging)        bilinear
4     Lanczos (8x8 neighbourhood)        bilinear
9     auto: 2 to enlarge, 3 to shrink,   the same choice, then as above
      1 otherwise
10    a random code from 0-4             the same draw (from dlbook's
                                         seeded generator), then as above
====  =================================  ===============================

MXNet 1.x's docstrings list 2 as "area" and 3 as "bicubic"; the codes
really go to OpenCV, where ``INTER_CUBIC`` is 2 and ``INTER_AREA`` is 3,
and the "auto" rule (9) picks them accordingly.  dlbook reuses the
bilinear resizer of ``gluon.data.vision.transforms``, so results match
MXNet exactly in shape and closely in value for codes 0 and 1, but not
bit for bit; for 2, 3 and 4 expect visible differences, chiefly when
shrinking a lot (bilinear does not average away fine detail as area
resampling does).  Exact OpenCV parity is not a goal.

Randomness (``random_crop``, ``random_size_crop``, code 10) comes from
``dlbook.random.numpy_rng()``, so ``mx.random.seed`` makes it
reproducible.  (MXNet used Python's ``random`` module, which
``mx.random.seed`` does not seed.)
"""

__all__ = [
    'scale_down',
    'imresize',
    'resize_short',
    'fixed_crop',
    'random_crop',
    'center_crop',
    'random_size_crop',
    'color_normalize',
    'copyMakeBorder',
]

import numbers
import warnings

import numpy

from .. import random as _random
from .._imaging import ops as _imageops
from ..base import DLBookError
from ..context import cpu
from ..ndarray.ndarray import NDArray, from_raw

# -- helpers ------------------------------------------------------------------


def as_image(src, name):
    """``src`` as an ``HWC`` NDArray (a NumPy array is wrapped on cpu(0)
    without copying); anything else raises a clear error."""
    if isinstance(src, numpy.ndarray):
        src = from_raw(src, cpu(0))
    if not isinstance(src, NDArray):
        raise TypeError(
            f'{name} expects an image NDArray of shape '
            f'(height, width, channels), got '
            f'{type(src).__name__}'
        )
    if src.ndim != 3:
        raise DLBookError(
            f'{name} expects an image of shape (height, width, '
            f'channels), got shape {src.shape}'
        )
    return src


def _wrap(raw, like):
    return from_raw(raw, like.context)


def _size_pair(size, name):
    """``size`` as a ``(width, height)`` tuple of ints."""
    try:
        width, height = size
    except (TypeError, ValueError):
        raise DLBookError(
            f'{name}: size must be (width, height), got {size!r}'
        ) from None
    return int(width), int(height)


def _get_interp_method(interp, sizes=()):
    """Resolve MXNet's interpolation code to one of 0-4.

    Parameters
    ----------
    interp : int
        0-4 as they are; 9 ("auto") picks 2 (bicubic) to enlarge, 3 (area)
        to shrink, 1 (bilinear) otherwise; 10 draws one of 0-4 at random.
    sizes : tuple of int, optional
        ``(old_height, old_width, new_height, new_width)``, used by 9;
        without it 9 gives 2.

    Returns
    -------
    int
    """
    if interp == 9:
        if sizes:
            old_h, old_w, new_h, new_w = sizes
            if new_h > old_h and new_w > old_w:
                return 2
            if new_h < old_h and new_w < old_w:
                return 3
            return 1
        return 2
    if interp == 10:
        return int(_random.numpy_rng().randint(0, 5))
    if interp not in (0, 1, 2, 3, 4):
        raise ValueError(f'Unknown interp method {interp}')
    return interp


def _resize_raw(src, w, h, interp):
    """The resized raw array: nearest neighbour for code 0, bilinear for
    every other code (see the module notes)."""
    ctx = src.context
    mode = 0 if interp == 0 else 1
    with ctx.backend.scope(ctx.device_id):
        return _imageops.resize(ctx.xp, src._data, w, h, mode)


def _store(result, out):
    """Return ``result``, or copy it into ``out`` and return ``out``."""
    if out is None:
        return result
    if out.shape != result.shape:
        raise DLBookError(
            f'out has shape {out.shape} but the result has '
            f'shape {result.shape}'
        )
    out[:] = result
    return out


# -- resizing -----------------------------------------------------------------


def scale_down(src_size, size):
    """Shrink a crop size, keeping its aspect ratio, until it fits inside
    the image.

    Parameters
    ----------
    src_size : tuple of int
        Image size ``(width, height)``.
    size : tuple of int
        Wanted crop size ``(width, height)``.

    Returns
    -------
    tuple of int
        The crop size ``(width, height)``, no larger than the image.

    Examples
    --------
    >>> mx.image.scale_down((640, 480), (720, 120))
    (640, 106)
    """
    return _imageops.scale_down(src_size, size)


def imresize(src, w, h, interp=1, out=None):
    """Resize an image to ``w x h`` pixels, ignoring its aspect ratio.

    Parameters
    ----------
    src : NDArray
        ``(H, W, C)`` image, any real dtype (integer images are rounded
        back to their dtype).
    w, h : int
        New width and height (at least 1).
    interp : int, default 1
        Interpolation code (module notes): 0 nearest neighbour, 1 bilinear;
        2, 3, 4 (and 9, 10) are accepted and computed as described there.
    out : NDArray, optional
        Write the result into this ``(h, w, C)`` array.

    Returns
    -------
    NDArray
        ``(h, w, C)``, same dtype and context as ``src``.

    Examples
    --------
    >>> img = mx.nd.zeros((480, 640, 3), dtype='uint8')
    >>> mx.image.imresize(img, 320, 240).shape
    (240, 320, 3)
    """
    src = as_image(src, 'imresize')
    w, h = int(w), int(h)
    if w < 1 or h < 1:
        raise DLBookError(
            f'imresize: the new size must be at least 1x1, got w={w}, h={h}'
        )
    interp = _get_interp_method(interp, (src.shape[0], src.shape[1], h, w))
    return _store(_wrap(_resize_raw(src, w, h, interp), src), out)


def resize_short(src, size, interp=2):
    """Resize so that the shorter side is ``size``, keeping the aspect
    ratio.

    The longer side becomes ``size * long // short`` (integer division,
    as MXNet computes it).

    Parameters
    ----------
    src : NDArray
        ``(H, W, C)`` image.
    size : int
        Length of the shorter side after resizing.
    interp : int, default 2
        Interpolation code; see the module notes (9 picks by direction).

    Returns
    -------
    NDArray

    Examples
    --------
    >>> img = mx.nd.zeros((480, 640, 3), dtype='uint8')
    >>> mx.image.resize_short(img, 240).shape
    (240, 320, 3)
    """
    src = as_image(src, 'resize_short')
    h, w, _ = src.shape
    if h > w:
        new_h, new_w = size * h // w, size
    else:
        new_h, new_w = size, size * w // h
    return imresize(
        src,
        new_w,
        new_h,
        interp=_get_interp_method(interp, (h, w, new_h, new_w)),
    )


# -- cropping -----------------------------------------------------------------


def fixed_crop(src, x0, y0, w, h, size=None, interp=2):
    """Crop the ``w x h`` window whose top-left corner is ``(x0, y0)``,
    then optionally resize it to ``size``.

    Parameters
    ----------
    src : NDArray
        ``(H, W, C)`` image.
    x0, y0 : int
        Left and top edge of the window.
    w, h : int
        Width and height of the window; it must lie inside the image.
    size : tuple of (int, int), optional
        Resize the crop to ``(width, height)`` if it differs.
    interp : int, default 2
        Interpolation code for the resize; see the module notes.

    Returns
    -------
    NDArray
        A new array (never a view of ``src``), ``(h, w, C)`` or
        ``(size[1], size[0], C)``.
    """
    src = as_image(src, 'fixed_crop')
    height, width = src.shape[0], src.shape[1]
    x0, y0, w, h = int(x0), int(y0), int(w), int(h)
    if x0 < 0 or y0 < 0 or w < 1 or h < 1 or x0 + w > width or y0 + h > height:
        raise DLBookError(
            f'fixed_crop: the window x0={x0}, y0={y0}, w={w}, '
            f'h={h} does not fit inside the {width}x{height} '
            f'(width x height) image'
        )
    out = _wrap(_imageops.crop(src._data, x0, y0, w, h), src)
    if size is not None:
        size = _size_pair(size, 'fixed_crop')
        if (w, h) != size:
            sizes = (h, w, size[1], size[0])
            out = imresize(
                out, *size, interp=_get_interp_method(interp, sizes)
            )
    return out


def random_crop(src, size, interp=2):
    """Crop a ``size`` window at a random position.

    If the image is smaller than ``size``, the largest window of the same
    aspect ratio is cropped and resized up to ``size``.

    Parameters
    ----------
    src : NDArray
        ``(H, W, C)`` image.
    size : tuple of (int, int)
        ``(width, height)`` of the output.
    interp : int, default 2
        Interpolation code, used only when resizing.

    Returns
    -------
    NDArray
        The crop, ``(size[1], size[0], C)``.
    tuple of int
        ``(x0, y0, width, height)`` of the window in ``src``.

    Examples
    --------
    >>> img = mx.nd.zeros((480, 640, 3), dtype='uint8')
    >>> out, (x0, y0, w, h) = mx.image.random_crop(img, (100, 100))
    >>> out.shape, (w, h)
    ((100, 100, 3), (100, 100))
    """
    src = as_image(src, 'random_crop')
    h, w, _ = src.shape
    new_w, new_h = scale_down((w, h), size)
    rng = _random.numpy_rng()
    x0 = int(rng.randint(0, w - new_w + 1))
    y0 = int(rng.randint(0, h - new_h + 1))
    out = fixed_crop(src, x0, y0, new_w, new_h, size, interp)
    return out, (x0, y0, new_w, new_h)


def center_crop(src, size, interp=2):
    """Crop the central ``size`` window (resizing up if the image is
    smaller than ``size``).

    Parameters
    ----------
    src : NDArray
        ``(H, W, C)`` image.
    size : tuple of (int, int)
        ``(width, height)`` of the output.
    interp : int, default 2
        Interpolation code, used only when resizing.

    Returns
    -------
    NDArray
        The crop, ``(size[1], size[0], C)``.
    tuple of int
        ``(x0, y0, width, height)`` of the window in ``src``; ``x0`` is
        ``int((W - width) / 2)``.

    Examples
    --------
    >>> img = mx.nd.zeros((2321, 3482, 3), dtype='uint8')
    >>> out, box = mx.image.center_crop(img, (1000, 500))
    >>> out.shape, box
    ((500, 1000, 3), (1241, 910, 1000, 500))
    """
    src = as_image(src, 'center_crop')
    h, w, _ = src.shape
    new_w, new_h = scale_down((w, h), size)
    x0 = int((w - new_w) / 2)
    y0 = int((h - new_h) / 2)
    out = fixed_crop(src, x0, y0, new_w, new_h, size, interp)
    return out, (x0, y0, new_w, new_h)


def random_size_crop(src, size, area, ratio, interp=2, **kwargs):
    """Crop a window of random area and aspect ratio, then resize it to
    ``size`` (the "Inception" crop).

    Up to 10 tries draw an area fraction uniformly from ``area`` and an
    aspect ratio (width / height) log-uniformly from ``ratio``; the first
    window that fits is cropped at a random position.  If none fits,
    :func:`center_crop` is used.

    Parameters
    ----------
    src : NDArray
        ``(H, W, C)`` image.
    size : tuple of (int, int)
        ``(width, height)`` of the output.
    area : float or tuple of (float, float)
        Range of the window's area as a fraction of the image's; a single
        number means ``(area, 1.0)``.  (``min_area=`` is the deprecated
        name.)
    ratio : tuple of (float, float)
        Range of the window's aspect ratio, e.g. ``(3/4, 4/3)``.
    interp : int, default 2
        Interpolation code for the resize.

    Returns
    -------
    NDArray
        ``(size[1], size[0], C)``.
    tuple of int
        ``(x0, y0, width, height)`` of the window in ``src``.
    """
    src = as_image(src, 'random_size_crop')
    h, w, _ = src.shape
    if 'min_area' in kwargs:
        warnings.warn(
            '`min_area` is deprecated. Please use `area` instead.',
            DeprecationWarning,
        )
        area = kwargs.pop('min_area')
    if kwargs:
        raise TypeError(
            f'unexpected keyword arguments for '
            f'`random_size_crop`: {sorted(kwargs)}'
        )
    if isinstance(area, numbers.Number):
        area = (area, 1.0)
    window = _imageops.random_size_window(
        _random.numpy_rng(), w, h, area, ratio
    )
    if window is None:
        return center_crop(src, size, interp)
    return fixed_crop(src, *window, size, interp), window


# -- pixel values and borders -------------------------------------------------


def _channel_values(value, src, name):
    """``value`` (number, sequence or NDArray) as a raw array in ``src``'s
    dtype and context, ready to broadcast over ``(H, W, C)``."""
    if isinstance(value, NDArray):
        value = value.asnumpy()
    value = numpy.asarray(value, dtype=numpy.float64)
    if value.size in (1, src.shape[2]):
        value = value.reshape(-1)  # broadcast along the channels
    else:
        try:
            fits = numpy.broadcast_shapes(value.shape, src.shape) == src.shape
        except ValueError:
            fits = False
        if not fits:
            raise DLBookError(
                f'color_normalize: {name} has shape '
                f'{value.shape}; it needs one value or one per '
                f'channel ({src.shape[2]}) for an image of '
                f'shape {src.shape}'
            )
    ctx = src.context
    return ctx.backend.asarray(value, ctx.device_id, dtype=src.dtype)


def color_normalize(src, mean, std=None):
    """Subtract ``mean`` and divide by ``std``, per channel, **in place**.

    ``(src - mean) / std`` with broadcasting over height and width.  As in
    MXNet, ``src`` itself is changed and returned (``src -= mean``;
    ``src /= std``), so pass a copy if you need the original.

    Parameters
    ----------
    src : NDArray
        ``(H, W, C)`` floating-point image (cast a ``uint8`` image first:
        ``src.astype('float32')``).
    mean : NDArray, array_like or None
        One value or one per channel, e.g. ImageNet's RGB mean
        ``mx.nd.array([123.68, 116.28, 103.53])``; None skips it.
    std : NDArray, array_like or None, optional
        One value or one per channel; None skips the division.

    Returns
    -------
    NDArray
        ``src``, normalised.

    Examples
    --------
    >>> img = mx.nd.full((2, 2, 3), 128.0)
    >>> out = mx.image.color_normalize(img, mx.nd.array([128.0, 100, 28]),
    ...                                mx.nd.array([1.0, 2.0, 4.0]))
    >>> out[0, 0]
    <BLANKLINE>
    [ 0. 14. 25.]
    <NDArray 3 @cpu(0)>
    """
    src = as_image(src, 'color_normalize')
    if numpy.dtype(src.dtype).kind != 'f':
        raise DLBookError(
            f'color_normalize changes the image in place and '
            f'needs a floating-point image, got '
            f'{numpy.dtype(src.dtype).name}; cast it first: '
            f"src.astype('float32')"
        )
    src._check_writable()
    src._stamp_write()
    if mean is not None:
        src._data -= _channel_values(mean, src, 'mean')
    if std is not None:
        src._data /= _channel_values(std, src, 'std')
    return src


# OpenCV border types (cv2.BORDER_*) and the numpy.pad mode for each.
_BORDER_MODES = {
    1: 'symmetric',  # BORDER_REFLECT      fedcba|abcdef|fedcba
    2: 'reflect',  # BORDER_REFLECT_101  fedcb|abcdef|edcba
    3: 'edge',  # BORDER_REPLICATE    aaaaa|abcdef|fffff
    4: 'wrap',
}  # BORDER_WRAP         bcdef|abcdef|abcde


def copyMakeBorder(
    src, top, bot, left, right, type=0, value=0.0, values=(), out=None
):
    """Pad an image with a border (OpenCV's ``copyMakeBorder``).

    Parameters
    ----------
    src : NDArray
        ``(H, W, C)`` image.
    top, bot, left, right : int
        Border width on each side (>= 0).
    type : int, default 0
        0 constant colour (``values``); 1 reflect
        (``fedcba|abcdefgh|hgfedcb``); 2 reflect-101, OpenCV's default
        (``gfedcb|abcdefgh|gfedcba``);
        3 replicate (``aaaaaa|abcdefgh|hhhhhhh``); 4 wrap
        (``cdefgh|abcdefgh|abcdefg``).
    value : float, default 0.0
        Deprecated single fill value for ``type=0``, used for every
        channel when ``values`` is not given.
    values : tuple of float, optional
        Fill colour for ``type=0``: one value for every channel, or one
        per channel (e.g. RGB).
    out : NDArray, optional
        Write the result into this array.

    Returns
    -------
    NDArray
        ``(H + top + bot, W + left + right, C)``, same dtype as ``src``.

    Examples
    --------
    >>> img = mx.nd.zeros((4, 5, 3), dtype='uint8')
    >>> mx.image.copyMakeBorder(img, 1, 2, 3, 4, type=0).shape
    (7, 12, 3)
    """
    src = as_image(src, 'copyMakeBorder')
    margins = [int(m) for m in (top, bot, left, right)]
    if min(margins) < 0:
        raise DLBookError(
            f'copyMakeBorder: margins must be >= 0, got '
            f'top={top}, bot={bot}, left={left}, right={right}'
        )
    top, bot, left, right = margins
    ctx, xp, raw = src.context, src.context.xp, src._data
    widths = ((top, bot), (left, right), (0, 0))
    with ctx.backend.scope(ctx.device_id):
        if type == 0:
            fill = list(values) if len(values) else [value]
            channels = raw.shape[2]
            if len(fill) != 1 and len(fill) < channels:
                raise DLBookError(
                    f'copyMakeBorder: values has {len(fill)} '
                    f'entries for a {channels}-channel image'
                )
            fill = numpy.resize(
                numpy.asarray(fill[:channels], 'float64'), channels
            )
            fill = _imageops.saturate(numpy, fill, raw.dtype)
            result = xp.empty(
                (
                    raw.shape[0] + top + bot,
                    raw.shape[1] + left + right,
                    channels,
                ),
                dtype=raw.dtype,
            )
            result[...] = xp.asarray(fill)
            result[top : top + raw.shape[0], left : left + raw.shape[1]] = raw
        elif type in _BORDER_MODES:
            result = xp.pad(raw, widths, mode=_BORDER_MODES[type])
        else:
            raise DLBookError(
                f'copyMakeBorder: unknown border type {type}; '
                f'use 0 (constant), 1 (reflect), '
                f'2 (reflect 101), 3 (replicate) or 4 (wrap)'
            )
    return _store(_wrap(result, src), out)
