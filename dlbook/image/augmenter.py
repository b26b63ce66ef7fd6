"""Augmenters: callable objects that change one ``HWC`` image.

An augmenter is built once with its settings and then called on every
image: ``aug = mx.image.HorizontalFlipAug(0.5); img = aug(img)``.  A list
of them is an augmentation pipeline, applied in order by
:class:`~dlbook.image.ImageIter` (``CreateAugmenter`` builds the usual
one).  This module holds the base class, the two containers and the
geometric augmenters (resize, crop, flip) plus ``CastAug``; colour
augmenters live in ``dlbook.image.color``.

Writing your own augmenter means subclassing :class:`Augmenter`, passing
the settings to ``super().__init__(**settings)`` (they are what
``dumps()`` prints) and defining ``__call__(self, src)``.

Random choices come from ``dlbook.random.numpy_rng()``, so
``mx.random.seed(n)`` makes a pipeline reproducible.
"""

__all__ = [
    'Augmenter',
    'SequentialAug',
    'RandomOrderAug',
    'ResizeAug',
    'ForceResizeAug',
    'RandomCropAug',
    'RandomSizedCropAug',
    'CenterCropAug',
    'HorizontalFlipAug',
    'CastAug',
]

import json
import warnings

import numpy

from .. import random as _random
from ..ndarray.ndarray import NDArray
from .transforms import (
    _get_interp_method,
    _wrap,
    as_image,
    center_crop,
    imresize,
    random_crop,
    random_size_crop,
    resize_short,
)


class Augmenter:
    """Base class of image augmenters.

    Parameters
    ----------
    **kwargs
        The augmenter's settings, kept for :meth:`dumps`.  NDArrays and
        NumPy arrays are stored as (nested) lists so they can be written
        as JSON.

    Examples
    --------
    >>> class Invert(mx.image.Augmenter):
    ...     def __init__(self, top=255):
    ...         super().__init__(top=top)
    ...         self.top = top
    ...     def __call__(self, src):
    ...         return self.top - src
    >>> Invert().dumps()
    '["invert", {"top": 255}]'
    """

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        for key, value in self._kwargs.items():
            if isinstance(value, NDArray):
                value = value.asnumpy()
            if isinstance(value, numpy.ndarray):
                self._kwargs[key] = value.tolist()

    def dumps(self):
        """Describe the augmenter as a JSON string.

        Returns
        -------
        str
            ``'["<lower-case class name>", {settings}]'``, e.g.
            ``'["horizontalflipaug", {"p": 0.5}]'``.
        """
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, src):
        """Return the augmented image (subclasses define this)."""
        raise NotImplementedError('Must override implementation.')


class _AugmenterList(Augmenter):
    """An augmenter made of the augmenters ``ts``, which it applies in
    some order (:class:`SequentialAug`, :class:`RandomOrderAug`)."""

    def __init__(self, ts):
        super().__init__()
        self.ts = ts

    def dumps(self):
        """``['<lower-case class name>', [child.dumps(), ...]]``: a list
        (not a string), whose items are the children's dumps, as in
        MXNet."""
        return [self.__class__.__name__.lower(), [x.dumps() for x in self.ts]]


class SequentialAug(_AugmenterList):
    """Apply augmenters one after the other.

    Parameters
    ----------
    ts : list of Augmenter
    """

    def __call__(self, src):
        for aug in self.ts:
            src = aug(src)
        return src


class RandomOrderAug(_AugmenterList):
    """Apply augmenters in a random order, drawn anew for every image.

    Parameters
    ----------
    ts : list of Augmenter

    Notes
    -----
    MXNet shuffles ``ts`` itself in place, so the order of a reused
    augmenter depends on its past calls; dlbook draws a fresh permutation
    each call and leaves ``ts`` as given (the orders have the same
    distribution), so that after ``mx.random.seed(n)`` a pipeline gives
    the same results however often it ran before.
    """

    def __call__(self, src):
        for i in _random.numpy_rng().permutation(len(self.ts)):
            src = self.ts[i](src)
        return src


class _SizeAug(Augmenter):
    """An augmenter set by an output ``size`` and the code ``interp`` of
    the interpolation it resizes with (:class:`ResizeAug`,
    :class:`ForceResizeAug`, :class:`RandomCropAug`,
    :class:`CenterCropAug`)."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp


class ResizeAug(_SizeAug):
    """Resize so that the shorter side is ``size`` (aspect ratio kept);
    see :func:`~dlbook.image.resize_short`.

    Parameters
    ----------
    size : int
    interp : int, default 2
        Interpolation code (``help(mx.image.transforms)``).
    """

    def __call__(self, src):
        return resize_short(src, self.size, self.interp)


class ForceResizeAug(_SizeAug):
    """Resize to exactly ``size = (width, height)``, ignoring the aspect
    ratio.

    Parameters
    ----------
    size : tuple of (int, int)
    interp : int, default 2
    """

    def __call__(self, src):
        src = as_image(src, 'ForceResizeAug')
        sizes = (src.shape[0], src.shape[1], self.size[1], self.size[0])
        return imresize(
            src, *self.size, interp=_get_interp_method(self.interp, sizes)
        )


class RandomCropAug(_SizeAug):
    """Crop a ``size = (width, height)`` window at a random position; see
    :func:`~dlbook.image.random_crop`.

    Parameters
    ----------
    size : tuple of (int, int)
    interp : int, default 2
        Used only when the image is smaller than ``size``.
    """

    def __call__(self, src):
        return random_crop(src, self.size, self.interp)[0]


class RandomSizedCropAug(Augmenter):
    """Crop a window of random area and aspect ratio and resize it to
    ``size``; see :func:`~dlbook.image.random_size_crop`.

    Parameters
    ----------
    size : tuple of (int, int)
        ``(width, height)`` of the output.
    area : float or tuple of (float, float)
        Area range as a fraction of the image (a number means
        ``(area, 1.0)``); ``min_area=`` is the deprecated name.
    ratio : tuple of (float, float)
        Aspect-ratio range (width / height).
    interp : int, default 2
    """

    def __init__(self, size, area, ratio, interp=2, **kwargs):
        super().__init__(size=size, area=area, ratio=ratio, interp=interp)
        self.size = size
        if 'min_area' in kwargs:
            warnings.warn(
                '`min_area` is deprecated. Please use `area` instead.',
                DeprecationWarning,
            )
            self.area = kwargs.pop('min_area')
        else:
            self.area = area
        self.ratio = ratio
        self.interp = interp
        if kwargs:
            raise TypeError(
                f'unexpected keyword arguments for '
                f'`RandomSizedCropAug`: {sorted(kwargs)}'
            )

    def __call__(self, src):
        return random_size_crop(
            src, self.size, self.area, self.ratio, self.interp
        )[0]


class CenterCropAug(_SizeAug):
    """Crop the central ``size = (width, height)`` window; see
    :func:`~dlbook.image.center_crop`.

    Parameters
    ----------
    size : tuple of (int, int)
    interp : int, default 2
    """

    def __call__(self, src):
        return center_crop(src, self.size, self.interp)[0]


class HorizontalFlipAug(Augmenter):
    """Mirror the image left-right with probability ``p``.

    Parameters
    ----------
    p : float
        Probability of flipping (CreateAugmenter uses 0.5).

    Returns a new array when it flips, ``src`` itself otherwise.
    """

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src):
        if _random.numpy_rng().random_sample() < self.p:
            src = as_image(src, 'HorizontalFlipAug')
            src = _wrap(src.context.xp.flip(src._data, axis=1).copy(), src)
        return src


class CastAug(Augmenter):
    """Cast the image to ``typ`` (default float32): colour augmenters and
    normalisation need floating-point pixels.

    Parameters
    ----------
    typ : str, default 'float32'
        Printed by :meth:`dumps` as ``type``.
    """

    def __init__(self, typ='float32'):
        super().__init__(type=typ)
        self.typ = typ

    def __call__(self, src):
        return src.astype(self.typ)
