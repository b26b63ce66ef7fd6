"""Colour augmenters: brightness, contrast, saturation, hue, PCA lighting
noise, greyscale and mean/std normalisation.

They expect RGB images in floating point (``CastAug`` comes before them
in ``CreateAugmenter``'s list).  As in MXNet, most of them change the
image **in place** and return it (brightness, contrast, saturation,
lighting, normalisation); hue and greyscale return a new array.  An
integer image is computed in floating point and rounded and clipped back
to its dtype (MXNet would truncate), so ``uint8`` input stays valid.

Each random factor is drawn from ``dlbook.random.numpy_rng()`` at every
call, so ``mx.random.seed`` makes the results reproducible.
"""

__all__ = [
    'BrightnessJitterAug',
    'ContrastJitterAug',
    'SaturationJitterAug',
    'HueJitterAug',
    'ColorJitterAug',
    'LightingAug',
    'ColorNormalizeAug',
    'RandomGrayAug',
]


import numpy

from .. import ndarray as nd
from .. import random as _random
from .._imaging import ops as _imageops
from ..base import DLBookError
from ..ndarray.ndarray import NDArray
from .augmenter import Augmenter, RandomOrderAug
from .transforms import _wrap, as_image, color_normalize

# ITU-R 601 luma weights, used for contrast and saturation.
_LUMA = numpy.array([0.299, 0.587, 0.114])


def _update(src, name, fn, in_place, rgb=False):
    """Compute ``fn(xp, pixels as float)`` and store it back into ``src``
    (``in_place``) or into a new array of ``src``'s dtype.  ``rgb``: the
    image must have 3 channels."""
    src = as_image(src, name)
    if rgb and src.shape[2] != 3:
        raise DLBookError(
            f'{name} needs an RGB image (3 channels), got shape {src.shape}'
        )
    ctx = src.context
    xp = ctx.xp
    with ctx.backend.scope(ctx.device_id):
        values = fn(xp, _imageops.as_float(src._data))
        values = _imageops.saturate(xp, values, src.dtype)
        if not in_place:
            return _wrap(values, src)
        src._check_writable()
        src._stamp_write()
        src._data[...] = values
    return src


def _matrix(xp, matrix, like):
    return xp.asarray(matrix, dtype=like.dtype)


class BrightnessJitterAug(Augmenter):
    """Multiply every pixel by ``alpha``, drawn uniformly from
    ``[1 - brightness, 1 + brightness]`` (in place).

    Parameters
    ----------
    brightness : float
        Jitter strength, in [0, 1].
    """

    def __init__(self, brightness):
        super().__init__(brightness=brightness)
        self.brightness = brightness

    def __call__(self, src):
        alpha = 1.0 + _random.numpy_rng().uniform(
            -self.brightness, self.brightness
        )
        return _update(
            src,
            'BrightnessJitterAug',
            lambda xp, img: img * alpha,
            in_place=True,
        )


class ContrastJitterAug(Augmenter):
    """Blend the image with its mean grey level:
    ``alpha * src + (1 - alpha) * mean(luma)`` with ``alpha`` drawn from
    ``[1 - contrast, 1 + contrast]`` (in place).

    Parameters
    ----------
    contrast : float
        Jitter strength, in [0, 1].
    """

    def __init__(self, contrast):
        super().__init__(contrast=contrast)
        self.contrast = contrast

    def __call__(self, src):
        alpha = 1.0 + _random.numpy_rng().uniform(
            -self.contrast, self.contrast
        )

        def adjust(xp, img):
            # 3 * sum(weighted) / weighted.size is the mean luma over all
            # pixels (MXNet's formula).
            weighted = img * _matrix(xp, _LUMA, img)
            gray = 3.0 * (1.0 - alpha) / weighted.size * weighted.sum()
            return img * alpha + gray

        return _update(src, 'ContrastJitterAug', adjust, in_place=True)


class SaturationJitterAug(Augmenter):
    """Blend each pixel with its own grey level:
    ``alpha * src + (1 - alpha) * luma`` with ``alpha`` drawn from
    ``[1 - saturation, 1 + saturation]`` (in place).

    Parameters
    ----------
    saturation : float
        Jitter strength, in [0, 1].
    """

    def __init__(self, saturation):
        super().__init__(saturation=saturation)
        self.saturation = saturation

    def __call__(self, src):
        alpha = 1.0 + _random.numpy_rng().uniform(
            -self.saturation, self.saturation
        )

        def adjust(xp, img):
            gray = (img * _matrix(xp, _LUMA, img)).sum(axis=2, keepdims=True)
            return img * alpha + gray * (1.0 - alpha)

        return _update(src, 'SaturationJitterAug', adjust, in_place=True)


class HueJitterAug(Augmenter):
    """Rotate the hue by ``alpha * 180`` degrees, ``alpha`` drawn from
    ``[-hue, hue]``; returns a new array.

    The rotation is the linear approximation in YIQ colour space
    (https://beesbuzz.biz/code/hsv_color_transforms.php): convert to YIQ,
    rotate the I-Q plane, convert back, all folded into one 3x3 matrix.

    Parameters
    ----------
    hue : float
        Jitter strength, in [0, 1].
    """

    def __init__(self, hue):
        super().__init__(hue=hue)
        self.hue = hue
        self.tyiq = _imageops.TYIQ
        self.ityiq = _imageops.ITYIQ

    def __call__(self, src):
        alpha = _random.numpy_rng().uniform(-self.hue, self.hue)
        t = _imageops.hue_matrix(alpha)
        return _update(
            src,
            'HueJitterAug',
            lambda xp, img: img @ _matrix(xp, t, img),
            in_place=False,
            rgb=True,
        )


class ColorJitterAug(RandomOrderAug):
    """Brightness, contrast and saturation jitter in a random order.

    Parameters
    ----------
    brightness, contrast, saturation : float
        Strength of each; 0 leaves that augmenter out.
    """

    def __init__(self, brightness, contrast, saturation):
        ts = []
        if brightness > 0:
            ts.append(BrightnessJitterAug(brightness))
        if contrast > 0:
            ts.append(ContrastJitterAug(contrast))
        if saturation > 0:
            ts.append(SaturationJitterAug(saturation))
        super().__init__(ts)


class LightingAug(Augmenter):
    """AlexNet's PCA lighting noise: add
    ``eigvec @ (alpha * eigval)`` to every pixel, ``alpha`` three normal
    draws with standard deviation ``alphastd`` (in place).

    Parameters
    ----------
    alphastd : float
        Noise level.
    eigval : array of shape (3,)
        Eigenvalues of the RGB covariance of the training set.
    eigvec : array of shape (3, 3)
        The eigenvectors, as columns.
    """

    def __init__(self, alphastd, eigval, eigvec):
        super().__init__(alphastd=alphastd, eigval=eigval, eigvec=eigvec)
        self.alphastd = alphastd
        self.eigval = eigval
        self.eigvec = eigvec

    def __call__(self, src):
        alpha = _random.numpy_rng().normal(0, self.alphastd, size=(3,))
        rgb = numpy.dot(
            numpy.asarray(self.eigvec) * alpha, numpy.asarray(self.eigval)
        )
        return _update(
            src,
            'LightingAug',
            lambda xp, img: img + _matrix(xp, rgb, img),
            in_place=True,
            rgb=True,
        )


class ColorNormalizeAug(Augmenter):
    """Subtract ``mean`` and divide by ``std`` per channel (in place); see
    :func:`~dlbook.image.color_normalize`.

    Parameters
    ----------
    mean : NDArray, array_like or None
        RGB mean to subtract (None: skip).
    std : NDArray, array_like or None
        RGB standard deviation to divide by (None: skip).
    """

    def __init__(self, mean, std):
        super().__init__(mean=mean, std=std)
        self.mean = (
            mean
            if mean is None or isinstance(mean, NDArray)
            else nd.array(mean)
        )
        self.std = (
            std if std is None or isinstance(std, NDArray) else nd.array(std)
        )

    def __call__(self, src):
        return color_normalize(src, self.mean, self.std)


class RandomGrayAug(Augmenter):
    """With probability ``p``, replace every channel by the grey level
    ``0.21 R + 0.72 G + 0.07 B`` (the image keeps 3 channels; a new array
    is returned).

    Parameters
    ----------
    p : float
        Probability of converting.
    """

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p
        self.mat = nd.array(
            [[0.21, 0.21, 0.21], [0.72, 0.72, 0.72], [0.07, 0.07, 0.07]]
        )

    def __call__(self, src):
        if _random.numpy_rng().random_sample() < self.p:
            mat = self.mat.asnumpy()
            src = _update(
                src,
                'RandomGrayAug',
                lambda xp, img: img @ _matrix(xp, mat, img),
                in_place=False,
                rgb=True,
            )
        return src
