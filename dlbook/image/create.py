"""``CreateAugmenter``: the standard augmentation pipeline from a few
switches, as ``ImageIter`` builds it from its keyword arguments."""

__all__ = ['CreateAugmenter']

import numpy

from .. import ndarray as nd
from ..ndarray.ndarray import NDArray
from .augmenter import (
    CastAug,
    CenterCropAug,
    HorizontalFlipAug,
    RandomCropAug,
    RandomSizedCropAug,
    ResizeAug,
)
from .color import (
    ColorJitterAug,
    ColorNormalizeAug,
    HueJitterAug,
    LightingAug,
    RandomGrayAug,
)

# ImageNet statistics used by ``mean=True`` / ``std=True`` (RGB, 0-255).
IMAGENET_MEAN = (123.68, 116.28, 103.53)
IMAGENET_STD = (58.395, 57.12, 57.375)

# AlexNet's PCA of ImageNet RGB values, for ``pca_noise``.
PCA_EIGVAL = numpy.array([55.46, 4.794, 1.148])
PCA_EIGVEC = numpy.array(
    [
        [-0.5675, 0.7192, 0.4009],
        [-0.5808, -0.0045, -0.8140],
        [-0.5836, -0.6948, 0.4203],
    ]
)


def _statistic(value, default, name):
    """``mean``/``std``: True means ImageNet's values; otherwise None or
    an array with 1 or 3 entries."""
    if value is True:
        return nd.array(default)
    if value is None or value is False:
        return None
    if not isinstance(value, (numpy.ndarray, NDArray)):
        value = numpy.asarray(value, dtype=numpy.float64)
    if value.ndim < 1 or value.shape[0] not in (1, 3):
        raise ValueError(
            f'CreateAugmenter: {name} must be True, None or an '
            f'array of 1 or 3 values (one per RGB channel), '
            f'got shape {value.shape}'
        )
    return value


def CreateAugmenter(
    data_shape,
    resize=0,
    rand_crop=False,
    rand_resize=False,
    rand_mirror=False,
    mean=None,
    std=None,
    brightness=0,
    contrast=0,
    saturation=0,
    hue=0,
    pca_noise=0,
    rand_gray=0,
    inter_method=2,
):
    """Build the usual list of augmenters for image classification.

    The list is applied in this order (each item only when asked for):

    1. ``ResizeAug(resize)``: shorter side to ``resize`` (if > 0);
    2. a crop to ``(data_shape[2], data_shape[1])`` (width, height):
       ``RandomSizedCropAug`` (area 0.08-1, ratio 3/4-4/3) if
       ``rand_resize``, else ``RandomCropAug`` if ``rand_crop``, else
       ``CenterCropAug`` (always present);
    3. ``HorizontalFlipAug(0.5)`` if ``rand_mirror``;
    4. ``CastAug()`` to float32 (always present);
    5. ``ColorJitterAug`` if any of brightness, contrast, saturation;
    6. ``HueJitterAug(hue)``;
    7. ``LightingAug(pca_noise, ...)`` with ImageNet's PCA;
    8. ``RandomGrayAug(rand_gray)``;
    9. ``ColorNormalizeAug(mean, std)`` if either is given.

    Parameters
    ----------
    data_shape : tuple of int
        Output shape ``(channels, height, width)``.
    resize : int, default 0
        Resize the shorter side to this first (0: no resize).
    rand_crop : bool, default False
        Random instead of centre crop.
    rand_resize : bool, default False
        Random area and aspect-ratio crop; needs ``rand_crop``.
    rand_mirror : bool, default False
        Flip left-right with probability 0.5.
    mean : True, array or None
        RGB mean to subtract; True means ImageNet's
        ``[123.68, 116.28, 103.53]``.
    std : True, array or None
        RGB standard deviation to divide by; True means
        ``[58.395, 57.12, 57.375]``.
    brightness, contrast, saturation, hue : float, default 0
        Jitter strengths (0 leaves the augmenter out).
    pca_noise : float, default 0
        PCA lighting noise level.
    rand_gray : float, default 0
        Probability of turning the image grey (3 channels kept).
    inter_method : int, default 2
        Interpolation code for every resize (``help(mx.image.transforms)``;
        10 picks one at random each time).

    Returns
    -------
    list of Augmenter

    Examples
    --------
    >>> augs = mx.image.CreateAugmenter((3, 224, 224), resize=256,
    ...                                 rand_crop=True, rand_mirror=True,
    ...                                 mean=True, std=True)
    >>> [type(a).__name__ for a in augs]
    ['ResizeAug', 'RandomCropAug', 'HorizontalFlipAug', 'CastAug', \
'ColorNormalizeAug']
    """
    auglist = []
    if resize > 0:
        auglist.append(ResizeAug(resize, inter_method))

    crop_size = (data_shape[2], data_shape[1])
    if rand_resize:
        if not rand_crop:
            raise ValueError(
                'CreateAugmenter: rand_resize=True needs rand_crop=True'
            )
        auglist.append(
            RandomSizedCropAug(
                crop_size, 0.08, (3.0 / 4.0, 4.0 / 3.0), inter_method
            )
        )
    elif rand_crop:
        auglist.append(RandomCropAug(crop_size, inter_method))
    else:
        auglist.append(CenterCropAug(crop_size, inter_method))

    if rand_mirror:
        auglist.append(HorizontalFlipAug(0.5))

    auglist.append(CastAug())

    if brightness or contrast or saturation:
        auglist.append(ColorJitterAug(brightness, contrast, saturation))

    if hue:
        auglist.append(HueJitterAug(hue))

    if pca_noise > 0:
        auglist.append(
            LightingAug(pca_noise, PCA_EIGVAL.copy(), PCA_EIGVEC.copy())
        )

    if rand_gray > 0:
        auglist.append(RandomGrayAug(rand_gray))

    mean = _statistic(mean, IMAGENET_MEAN, 'mean')
    std = _statistic(std, IMAGENET_STD, 'std')
    if mean is not None or std is not None:
        auglist.append(ColorNormalizeAug(mean, std))

    return auglist
