"""Image arithmetic on raw arrays, written once for NumPy and CuPy (``xp``).

Images are ``HWC`` (one image) or ``NHWC`` (a batch): height is axis -3,
width axis -2, channels axis -1, so every function here works on both.
Nothing here knows about NDArrays; ``transforms`` wraps these functions.
"""

import functools
import math

import numpy

from ..base import DLBookError

# ITU-R 601 luma weights, used by MXNet's contrast/saturation ops.
GRAY_COEF = (0.299, 0.587, 0.114)


def _compute_dtype(dtype):
    return numpy.float64 if dtype == numpy.float64 else numpy.float32


def saturate(xp, values, dtype):
    """Cast float ``values`` to ``dtype``, rounding and clipping for
    integer types (like OpenCV's ``saturate_cast``)."""
    dtype = numpy.dtype(dtype)
    if dtype.kind in 'iub':
        info = numpy.iinfo(dtype) if dtype.kind != 'b' else None
        if info is not None:
            values = xp.clip(xp.rint(values), info.min, info.max)
    return values.astype(dtype, copy=False)


@functools.lru_cache(maxsize=256)
def _source_coords(in_size, out_size, nearest):
    """For each output pixel: two source indices and the weight of the
    second, following OpenCV's INTER_LINEAR / INTER_NEAREST rules.

    Cached (read-only): a data set resizes many images of one size."""
    coords = _compute_coords(in_size, out_size, nearest)
    for array in coords:
        array.flags.writeable = False
    return coords


def _compute_coords(in_size, out_size, nearest):
    scale = in_size / out_size
    dst = numpy.arange(out_size, dtype=numpy.float64)
    if nearest:
        i0 = numpy.minimum(
            numpy.floor(dst * scale).astype(numpy.int64), in_size - 1
        )
        return i0, i0, numpy.zeros(out_size)
    src = numpy.maximum((dst + 0.5) * scale - 0.5, 0.0)  # pixel centres
    i0 = numpy.floor(src).astype(numpy.int64)
    frac = src - i0
    last = i0 >= in_size - 1
    i0[last] = in_size - 1
    frac[last] = 0.0
    i1 = numpy.minimum(i0 + 1, in_size - 1)
    return i0, i1, frac


def resize(xp, image, width, height, interp=1):
    """Resize to ``width x height``: bilinear (``interp=1``, default) or
    nearest neighbour (``interp=0``).

    Vectorised as two gathers and two linear interpolations, rows then
    columns.  Integer images are rounded back to their dtype.
    """
    in_h, in_w = image.shape[-3], image.shape[-2]
    if (in_h, in_w) == (height, width):
        return image.copy()
    nearest = interp == 0
    ctype = _compute_dtype(image.dtype)
    y0, y1, fy = (xp.asarray(a) for a in _source_coords(in_h, height, nearest))
    x0, x1, fx = (xp.asarray(a) for a in _source_coords(in_w, width, nearest))
    img = image.astype(ctype, copy=False)
    top = xp.take(img, y0, axis=-3)
    if nearest:
        return xp.take(top, x0, axis=-2).astype(image.dtype)
    bottom = xp.take(img, y1, axis=-3)
    rows = top + (bottom - top) * fy.astype(ctype)[:, None, None]
    left = xp.take(rows, x0, axis=-2)
    right = xp.take(rows, x1, axis=-2)
    out = left + (right - left) * fx.astype(ctype)[:, None]
    return saturate(xp, out, image.dtype)


def to_tensor(xp, image):
    """``HWC`` in [0, 255] -> ``CHW`` float32 in [0, 1] (``NHWC`` ->
    ``NCHW``): channels first, divided by 255 whatever the dtype."""
    out = xp.ascontiguousarray(xp.moveaxis(image, -1, -3), dtype=numpy.float32)
    out /= numpy.float32(255.0)
    return out


def per_channel(xp, value, channels, dtype, name, where):
    """``value`` (one number or one per channel) as a ``(C, 1, 1)``
    array of ``dtype``, to broadcast over a ``CHW`` or ``NCHW`` tensor."""
    value = numpy.asarray(value, dtype=numpy.float64).reshape(-1)
    if value.size not in (1, channels):
        raise DLBookError(
            f'{where}: {name} has {value.size} values '
            f'but the input has {channels} channels'
        )
    return xp.asarray(value.reshape(-1, 1, 1), dtype=dtype)


def normalize(xp, tensor, mean, std, where='Normalize'):
    """``(x - mean) / std`` per channel of a ``CHW`` or ``NCHW`` tensor
    (integers computed in float32); returns the result and the ``std``
    array, which the gradient divides by."""
    dtype = tensor.dtype if tensor.dtype.kind == 'f' else numpy.float32
    channels = tensor.shape[-3]
    mean = per_channel(xp, mean, channels, dtype, 'mean', where)
    std = per_channel(xp, std, channels, dtype, 'std', where)
    return (tensor.astype(dtype, copy=False) - mean) / std, std


def crop(image, x0, y0, width, height):
    """The ``width x height`` window whose top-left corner is (x0, y0),
    as a new array (never a view of the source data set)."""
    return image[..., y0 : y0 + height, x0 : x0 + width, :].copy()


def fixed_crop(xp, image, x0, y0, width, height, size=None, interp=1):
    """Crop, then resize to ``size = (w, h)`` if given and different."""
    out = crop(image, x0, y0, width, height)
    if size is not None and (width, height) != tuple(size):
        out = resize(xp, out, size[0], size[1], interp)
    return out


def scale_down(src_size, size):
    """Shrink ``size = (w, h)``, keeping its aspect ratio, until it fits
    in ``src_size = (w, h)`` (MXNet's ``image.scale_down``)."""
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


def center_crop(xp, image, size, interp=1):
    """The central ``size = (w, h)`` window, resized up if the image is
    smaller than that."""
    h, w = image.shape[-3], image.shape[-2]
    new_w, new_h = scale_down((w, h), size)
    x0 = int((w - new_w) / 2)
    y0 = int((h - new_h) / 2)
    return fixed_crop(xp, image, x0, y0, new_w, new_h, size, interp)


def random_size_window(rng, w, h, area, ratio):
    """``(x0, y0, width, height)`` of a random window of a ``w x h`` image
    covering a fraction ``area`` (range) of it with aspect ``ratio``
    (range, sampled on a log scale); None when 10 tries do not fit
    (MXNet's ``image.random_size_crop``)."""
    src_area = h * w
    log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
    for _ in range(10):
        target_area = rng.uniform(area[0], area[1]) * src_area
        new_ratio = math.exp(rng.uniform(*log_ratio))
        new_w = int(round(math.sqrt(target_area * new_ratio)))
        new_h = int(round(math.sqrt(target_area / new_ratio)))
        if new_w <= w and new_h <= h:
            x0 = int(rng.randint(0, w - new_w + 1))
            y0 = int(rng.randint(0, h - new_h + 1))
            return x0, y0, new_w, new_h
    return None


def random_size_crop(xp, rng, image, size, area, ratio, interp=1):
    """A random window of ``area`` (fraction range) and aspect ``ratio``
    (range), resized to ``size``; 10 tries, then a centre crop
    (MXNet's ``image.random_size_crop``)."""
    window = random_size_window(
        rng, image.shape[-2], image.shape[-3], area, ratio
    )
    if window is None:
        return center_crop(xp, image, size, interp)
    return fixed_crop(xp, image, *window, size, interp)


def _need_rgb(name, img):
    if img.shape[-1] != 3:
        raise DLBookError(
            f'{name} needs RGB images (3 channels), got shape {img.shape}'
        )


def gray(xp, img, keepdims):
    """Luma of an RGB image (a matrix product: far faster than summing
    over a length-3 axis)."""
    if img.shape[-1] == 1:  # already grey
        return img if keepdims else img[..., 0]
    out = img @ xp.asarray(GRAY_COEF, dtype=img.dtype)
    return out[..., None] if keepdims else out


def adjust_brightness(xp, img, alpha):
    return img * alpha


def adjust_contrast(xp, img, alpha):
    mean = gray(xp, img, keepdims=True).mean(axis=(-3, -2), keepdims=True)
    return img * alpha + mean * (1 - alpha)


def adjust_saturation(xp, img, alpha):
    return img * alpha + gray(xp, img, keepdims=True) * (1 - alpha)


#: RGB -> YIQ and (approximately) back
TYIQ = numpy.array(
    [[0.299, 0.587, 0.114], [0.596, -0.274, -0.321], [0.211, -0.523, 0.311]]
)
ITYIQ = numpy.array(
    [[1.0, 0.956, 0.621], [1.0, -0.272, -0.647], [1.0, -1.107, 1.705]]
)


def hue_matrix(alpha):
    """The 3x3 matrix ``t`` that rotates the hue of RGB pixels by
    ``alpha * 180`` degrees as ``img @ t``: to YIQ, rotate the I-Q plane,
    back to RGB (a linear approximation of a hue rotation)."""
    u, w = math.cos(alpha * math.pi), math.sin(alpha * math.pi)
    rotation = numpy.array([[1.0, 0.0, 0.0], [0.0, u, -w], [0.0, w, u]])
    return (ITYIQ @ rotation @ TYIQ).T


def adjust_hue(xp, img, alpha):
    """Rotate the hue by ``alpha * 180`` degrees in YIQ space (as
    ``mx.image.HueJitterAug``)."""
    if alpha == 0:  # the YIQ matrices are only approximate inverses
        return img
    _need_rgb('RandomHue', img)
    return img @ xp.asarray(hue_matrix(alpha), dtype=img.dtype)


# AlexNet's PCA of ImageNet RGB values (MXNet's AdjustLighting).
_EIGVAL = numpy.array([55.46, 4.794, 1.148])
_EIGVEC = numpy.array(
    [
        [-0.5675, 0.7192, 0.4009],
        [-0.5808, -0.0045, -0.8140],
        [-0.5836, -0.6948, 0.4203],
    ]
)


def color_jitter(xp, img, rng, brightness=0, contrast=0, saturation=0, hue=0):
    """Brightness, contrast, saturation and hue changes, in random order,
    each of a strength drawn from ``rng``: a factor in ``[max(0, 1 - s),
    1 + s]`` for the first three, a hue turn in ``[-hue, hue]`` (strength
    0 leaves a change out)."""

    def factor(strength):
        return rng.uniform(max(0.0, 1.0 - strength), 1.0 + strength)

    steps = []
    if brightness:
        steps.append(lambda a: adjust_brightness(xp, a, factor(brightness)))
    if contrast:
        steps.append(lambda a: adjust_contrast(xp, a, factor(contrast)))
    if saturation:
        steps.append(lambda a: adjust_saturation(xp, a, factor(saturation)))
    if hue:
        steps.append(lambda a: adjust_hue(xp, a, rng.uniform(-hue, hue)))
    for i in rng.permutation(len(steps)):
        img = steps[i](img)
    return img


def adjust_lighting(xp, img, alphas):
    _need_rgb('RandomLighting', img)
    rgb = _EIGVEC @ (numpy.asarray(alphas) * _EIGVAL)
    return img + xp.asarray(rgb, dtype=img.dtype)


def as_float(img):
    return img.astype(_compute_dtype(img.dtype), copy=False)
