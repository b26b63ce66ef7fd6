"""Object detection data: augmenters that move the boxes with the image,
and :class:`ImageDetIter` (MXNet 1.x's ``mxnet.image.detection``).

The label format
----------------
A detection label is a flat list of numbers, as ``im2rec.py`` packs it
into a ``.rec`` header or writes it into a ``.lst`` line::

    [header_width, object_width, (extra header...),
     cls, xmin, ymin, xmax, ymax, (extra...),      # object 1
     cls, xmin, ymin, xmax, ymax, (extra...),      # object 2 ...]

``header_width`` (at least 2) counts the header numbers, ``object_width``
(at least 5) the numbers of one object.  Coordinates are *normalised*:
``xmin = 0.25`` means a quarter of the image width, so boxes survive any
resize unchanged.  ``ImageDetIter`` turns it into an ``(objects,
object_width)`` array, drops boxes with ``xmax <= xmin`` or ``ymax <=
ymin``, and stacks the images' arrays into a batch label of shape
``(batch_size, max_objects, object_width)``, the rows after an image's
last object filled with -1 (a class of -1 marks padding for the
detection losses and metrics).

Detection augmenters
--------------------
A detection augmenter is called as ``src, label = aug(src, label)`` with
an ``HWC`` image and the ``(objects, object_width)`` NumPy label.  Those
that move pixels move the boxes too:

- :class:`DetHorizontalFlipAug`: ``xmin, xmax <- 1 - xmax, 1 - xmin``;
- :class:`DetRandomCropAug`: an SSD-style random crop that keeps enough
  of some object, re-expresses the boxes in the crop's coordinates and
  drops the objects it mostly cut away;
- :class:`DetRandomPadAug`: a random larger canvas (``pad_val``) with the
  image somewhere inside, boxes shrunk accordingly;
- :class:`DetBorrowAug` wraps any classification augmenter that does not
  move pixels around relative to the image frame (resize, colour jitter,
  normalisation): normalised boxes stay valid;
- :class:`DetRandomSelectAug` applies one of several at random (or none).

:func:`CreateDetAugmenter` builds the usual list, as ``CreateAugmenter``
does for classification.  Random choices come from
``dlbook.random.numpy_rng()``, so ``mx.random.seed(n)`` makes a pipeline
reproducible (MXNet drew them from Python's ``random`` module).

Examples
--------
>>> it = mx.image.ImageDetIter(8, (3, 300, 300), path_imgrec='train.rec',
...                            rand_crop=0.5, rand_pad=0.5, rand_mirror=True,
...                            mean=True, std=True)
>>> batch = it.next()
>>> batch.data[0].shape, batch.label[0].shape
((8, 3, 300, 300), (8, 4, 6))
"""

__all__ = [
    'DetAugmenter',
    'DetBorrowAug',
    'DetRandomSelectAug',
    'DetHorizontalFlipAug',
    'DetRandomCropAug',
    'DetRandomPadAug',
    'CreateMultiRandCropAugmenter',
    'CreateDetAugmenter',
    'ImageDetIter',
]

import logging
import math

import numpy

from .. import ndarray as nd
from .. import random as _random
from ..base import DLBookError, numeric_types
from ..ndarray.ndarray import NDArray
from .augmenter import Augmenter, CastAug, ForceResizeAug, ResizeAug
from .color import (
    ColorJitterAug,
    ColorNormalizeAug,
    HueJitterAug,
    LightingAug,
    RandomGrayAug,
)
from .create import (
    IMAGENET_MEAN,
    IMAGENET_STD,
    PCA_EIGVAL,
    PCA_EIGVEC,
    _statistic,
)
from .iterator import ImageIter
from .transforms import copyMakeBorder, fixed_crop


class DetAugmenter:
    """Base class of detection augmenters: ``(src, label) -> (src,
    label)``.

    Settings passed to ``__init__`` are kept for :meth:`dumps`, exactly
    as for :class:`~dlbook.image.Augmenter` (a detection augmenter is not
    an ``Augmenter``: it takes and returns the label as well).
    """

    __init__ = Augmenter.__init__
    dumps = Augmenter.dumps

    def __call__(self, src, label):
        """Return the augmented ``(src, label)`` (subclasses define
        this)."""
        raise NotImplementedError('Must override implementation.')


class DetBorrowAug(DetAugmenter):
    """Use a classification :class:`~dlbook.image.Augmenter` on the image
    and pass the label through: right for augmenters that keep normalised
    box coordinates valid (resizes, colour changes, casts).

    Parameters
    ----------
    augmenter : Augmenter
    """

    def __init__(self, augmenter):
        if not isinstance(augmenter, Augmenter):
            raise TypeError(
                f'DetBorrowAug borrows an mx.image.Augmenter, got '
                f'{type(augmenter).__name__}'
            )
        super().__init__(augmenter=augmenter.dumps())
        self.augmenter = augmenter

    def dumps(self):
        """``['detborrowaug', <the borrowed augmenter's dumps()>]``."""
        return [self.__class__.__name__.lower(), self.augmenter.dumps()]

    def __call__(self, src, label):
        return self.augmenter(src), label


class DetRandomSelectAug(DetAugmenter):
    """Skip everything with probability ``skip_prob``, otherwise apply one
    augmenter of ``aug_list`` drawn uniformly.

    Parameters
    ----------
    aug_list : DetAugmenter or list of DetAugmenter
        An empty list means: always skip.
    skip_prob : float, default 0

    Notes
    -----
    MXNet shuffles ``aug_list`` in place and applies its first item;
    dlbook draws an index and leaves the list as given (same
    distribution).
    """

    def __init__(self, aug_list, skip_prob=0):
        super().__init__(skip_prob=skip_prob)
        if not isinstance(aug_list, (list, tuple)):
            aug_list = [aug_list]
        for aug in aug_list:
            if not isinstance(aug, DetAugmenter):
                raise ValueError(
                    f'DetRandomSelectAug takes DetAugmenters only, got '
                    f'{type(aug).__name__}'
                )
        self.aug_list = list(aug_list)
        self.skip_prob = skip_prob if aug_list else 1

    def dumps(self):
        """``['detrandomselectaug', [child.dumps(), ...]]``."""
        return [
            self.__class__.__name__.lower(),
            [x.dumps() for x in self.aug_list],
        ]

    def __call__(self, src, label):
        rng = _random.numpy_rng()
        if rng.random_sample() < self.skip_prob:
            return src, label
        return self.aug_list[rng.randint(len(self.aug_list))](src, label)


class DetHorizontalFlipAug(DetAugmenter):
    """Mirror the image left-right with probability ``p``, and the boxes
    with it: ``xmin, xmax <- 1 - xmax, 1 - xmin``.

    Parameters
    ----------
    p : float
        Probability of flipping.

    Notes
    -----
    As in MXNet, the flipped label is written into ``label`` in place.
    """

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src, label):
        if _random.numpy_rng().random_sample() < self.p:
            src = nd.flip(src, axis=1)
            self._flip_label(label)
        return src, label

    @staticmethod
    def _flip_label(label):
        xmin = 1.0 - label[:, 3]
        label[:, 3] = 1.0 - label[:, 1]
        label[:, 1] = xmin


def _range_pair(value, name, augmenter):
    """A number ``v`` means the fixed range ``(v, v)``."""
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise DLBookError(
                f'{augmenter}: {name} must be a number or (low, high), '
                f'got {value!r}'
            )
        return tuple(value)
    if not isinstance(value, numeric_types):
        raise DLBookError(
            f'{augmenter}: {name} must be a number or (low, high), got '
            f'{value!r}'
        )
    return (value, value)


def _check_aspect_ratios(ratios, augmenter):
    """Raise unless ``ratios`` is ``(low, high)`` with 0 < low <= high."""
    if ratios[0] <= 0 or ratios[0] > ratios[1]:
        raise DLBookError(
            f'{augmenter}: aspect_ratio_range must be (low, high) with '
            f'0 < low <= high, got {ratios}'
        )


def _box_areas(boxes):
    """Areas of ``[xmin, ymin, xmax, ymax]`` rows (0 for empty boxes)."""
    widths = numpy.maximum(0, boxes[:, 2] - boxes[:, 0])
    heights = numpy.maximum(0, boxes[:, 3] - boxes[:, 1])
    return widths * heights


def _draw_height(rng, low, high):
    """A height in ``[low, high]`` (inclusive), ``low`` when empty."""
    return int(rng.randint(low, high + 1)) if low < high else low


class DetRandomCropAug(DetAugmenter):
    """Crop a random window that keeps enough of the objects, as in SSD.

    A window is proposed with an aspect ratio (width / height) drawn from
    ``aspect_ratio_range`` and an area (as a fraction of the image) in
    ``area_range``, at a random position.  It is accepted when every
    object it overlaps has more than ``min_object_covered`` of its area
    inside it (and it overlaps at least one).  The boxes are then
    re-expressed in the window's normalised coordinates and clipped to
    it; an object left with ``min_eject_coverage`` or less of its
    original area is dropped.  After ``max_attempts`` rejected proposals
    the image and label are returned unchanged.

    Parameters
    ----------
    min_object_covered : float, default 0.1
    aspect_ratio_range : (float, float) or float, default (0.75, 1.33)
        A number means that fixed ratio.
    area_range : (float, float) or float, default (0.05, 1.0)
        A number means that fixed fraction.
    min_eject_coverage : float, default 0.3
    max_attempts : int, default 50
    """

    def __init__(
        self,
        min_object_covered=0.1,
        aspect_ratio_range=(0.75, 1.33),
        area_range=(0.05, 1.0),
        min_eject_coverage=0.3,
        max_attempts=50,
    ):
        name = type(self).__name__
        aspect_ratio_range = _range_pair(
            aspect_ratio_range, 'aspect_ratio_range', name
        )
        area_range = _range_pair(area_range, 'area_range', name)
        super().__init__(
            min_object_covered=min_object_covered,
            aspect_ratio_range=aspect_ratio_range,
            area_range=area_range,
            min_eject_coverage=min_eject_coverage,
            max_attempts=max_attempts,
        )
        if area_range[1] <= 0 or area_range[0] > area_range[1]:
            raise DLBookError(
                f'{name}: area_range must be (low, high) with 0 < high and '
                f'low <= high, got {area_range}'
            )
        _check_aspect_ratios(aspect_ratio_range, name)
        self.min_object_covered = min_object_covered
        self.min_eject_coverage = min_eject_coverage
        self.max_attempts = max_attempts
        self.aspect_ratio_range = aspect_ratio_range
        self.area_range = area_range

    def __call__(self, src, label):
        crop = self._random_crop_proposal(label, src.shape[0], src.shape[1])
        if crop:
            x, y, w, h, label = crop
            src = fixed_crop(src, x, y, w, h, None)
        return src, label

    @staticmethod
    def _intersect(boxes, xmin, ymin, xmax, ymax):
        """``boxes`` clipped to the window; boxes outside it become 0."""
        out = boxes.copy()
        out[:, 0] = numpy.maximum(boxes[:, 0], xmin)
        out[:, 1] = numpy.maximum(boxes[:, 1], ymin)
        out[:, 2] = numpy.minimum(boxes[:, 2], xmax)
        out[:, 3] = numpy.minimum(boxes[:, 3], ymax)
        outside = (out[:, 0] >= out[:, 2]) | (out[:, 1] >= out[:, 3])
        out[outside, :] = 0
        return out

    def _check_satisfy_constraints(
        self, label, xmin, ymin, xmax, ymax, width, height
    ):
        """Whether the pixel window ``[xmin, xmax) x [ymin, ymax)`` of a
        ``width x height`` image covers more than ``min_object_covered``
        of every object it touches (objects under 2 pixels ignored)."""
        if (xmax - xmin) * (ymax - ymin) < 2:
            return False
        areas = _box_areas(label[:, 1:5])
        valid = numpy.where(areas * width * height > 2)[0]
        if valid.size < 1:
            return False
        inside = self._intersect(
            label[valid, 1:5],
            xmin / width,
            ymin / height,
            xmax / width,
            ymax / height,
        )
        coverages = _box_areas(inside) / areas[valid]
        coverages = coverages[coverages > 0]
        return coverages.size > 0 and (
            numpy.amin(coverages) > self.min_object_covered
        )

    def _update_labels(self, label, crop_box, height, width):
        """The label in the coordinates of the pixel window ``crop_box =
        (x, y, w, h)``, or None when no object keeps more than
        ``min_eject_coverage`` of its area."""
        xmin, ymin = crop_box[0] / width, crop_box[1] / height
        w, h = crop_box[2] / width, crop_box[3] / height
        out = label.copy()
        out[:, (1, 3)] = (out[:, (1, 3)] - xmin) / w
        out[:, (2, 4)] = (out[:, (2, 4)] - ymin) / h
        out[:, 1:5] = numpy.clip(out[:, 1:5], 0, 1)
        coverage = _box_areas(out[:, 1:5]) * w * h / _box_areas(label[:, 1:5])
        valid = (out[:, 3] > out[:, 1]) & (out[:, 4] > out[:, 2])
        valid &= coverage > self.min_eject_coverage
        if not valid.any():
            return None
        return out[valid, :]

    def _random_crop_proposal(self, label, height, width):
        """``(x, y, w, h, new_label)`` of an accepted window, or ``()``."""
        if height <= 0 or width <= 0:
            return ()
        rng = _random.numpy_rng()
        min_area = self.area_range[0] * height * width
        max_area = self.area_range[1] * height * width
        for _ in range(self.max_attempts):
            ratio = rng.uniform(*self.aspect_ratio_range)
            h = int(round(math.sqrt(min_area / ratio)))
            max_h = int(round(math.sqrt(max_area / ratio)))
            if round(max_h * ratio) > width:
                # the largest max_h with round(max_h * ratio) <= width
                max_h = int((width + 0.4999999) / ratio)
            max_h = min(max_h, height)
            h = _draw_height(rng, min(h, max_h), max_h)
            w = int(round(h * ratio))
            # rounding may have pushed the area out of range: nudge h
            area = w * h
            if area < min_area:
                h += 1
                w = int(round(h * ratio))
                area = w * h
            if area > max_area:
                h -= 1
                w = int(round(h * ratio))
                area = w * h
            if not (
                min_area <= area <= max_area
                and 0 <= w <= width
                and 0 <= h <= height
            ):
                continue
            y = int(rng.randint(0, max(0, height - h) + 1))
            x = int(rng.randint(0, max(0, width - w) + 1))
            if self._check_satisfy_constraints(
                label, x, y, x + w, y + h, width, height
            ):
                new_label = self._update_labels(
                    label, (x, y, w, h), height, width
                )
                if new_label is not None:
                    return (x, y, w, h, new_label)
        return ()


class DetRandomPadAug(DetAugmenter):
    """Place the image at a random position on a larger canvas filled with
    ``pad_val`` ("zoom out", as in SSD), shrinking the boxes to match.

    The canvas has an aspect ratio drawn from ``aspect_ratio_range`` and
    an area of ``area_range`` times the image's; it is at least 2 pixels
    larger than the image each way (a proposal that is not is retried, up
    to ``max_attempts`` times, then the image is returned unchanged).

    Parameters
    ----------
    aspect_ratio_range : (float, float) or float, default (0.75, 1.33)
    area_range : (float, float) or float, default (1.0, 3.0)
        The upper end must exceed 1.
    max_attempts : int, default 50
    pad_val : float or tuple of float, default (128, 128, 128)
        Fill colour (one value for every channel, or one per channel).
    """

    def __init__(
        self,
        aspect_ratio_range=(0.75, 1.33),
        area_range=(1.0, 3.0),
        max_attempts=50,
        pad_val=(128, 128, 128),
    ):
        name = type(self).__name__
        if isinstance(pad_val, numeric_types):
            pad_val = (pad_val,)
        aspect_ratio_range = _range_pair(
            aspect_ratio_range, 'aspect_ratio_range', name
        )
        area_range = _range_pair(area_range, 'area_range', name)
        super().__init__(
            aspect_ratio_range=aspect_ratio_range,
            area_range=area_range,
            max_attempts=max_attempts,
            pad_val=pad_val,
        )
        if area_range[1] <= 1.0 or area_range[0] > area_range[1]:
            raise DLBookError(
                f'{name}: area_range must be (low, high) with 1 < high and '
                f'low <= high, got {area_range}'
            )
        _check_aspect_ratios(aspect_ratio_range, name)
        self.pad_val = tuple(pad_val)
        self.aspect_ratio_range = aspect_ratio_range
        self.area_range = area_range
        self.max_attempts = max_attempts

    def __call__(self, src, label):
        height, width = src.shape[0], src.shape[1]
        pad = self._random_pad_proposal(label, height, width)
        if pad:
            x, y, w, h, label = pad
            src = copyMakeBorder(
                src,
                y,
                h - y - height,
                x,
                w - x - width,
                type=0,
                values=self.pad_val,
            )
        return src, label

    @staticmethod
    def _update_labels(label, pad_box, height, width):
        """The label of a ``height x width`` image placed at ``(x, y)`` on
        a ``w x h`` canvas, ``pad_box = (x, y, w, h)``."""
        out = label.copy()
        out[:, (1, 3)] = (out[:, (1, 3)] * width + pad_box[0]) / pad_box[2]
        out[:, (2, 4)] = (out[:, (2, 4)] * height + pad_box[1]) / pad_box[3]
        return out

    def _random_pad_proposal(self, label, height, width):
        """``(x, y, w, h, new_label)`` of a canvas, or ``()``."""
        if height <= 0 or width <= 0:
            return ()
        rng = _random.numpy_rng()
        min_area = self.area_range[0] * height * width
        max_area = self.area_range[1] * height * width
        for _ in range(self.max_attempts):
            ratio = rng.uniform(*self.aspect_ratio_range)
            h = int(round(math.sqrt(min_area / ratio)))
            max_h = int(round(math.sqrt(max_area / ratio)))
            if round(h * ratio) < width:
                h = int((width + 0.499999) / ratio)
            h = min(max(h, height), max_h)
            h = _draw_height(rng, h, max_h)
            w = int(round(h * ratio))
            if (h - height) < 2 or (w - width) < 2:
                continue  # marginal padding is not helpful
            y = int(rng.randint(0, h - height + 1))
            x = int(rng.randint(0, w - width + 1))
            new_label = self._update_labels(label, (x, y, w, h), height, width)
            return (x, y, w, h, new_label)
        return ()


def CreateMultiRandCropAugmenter(
    min_object_covered=0.1,
    aspect_ratio_range=(0.75, 1.33),
    area_range=(0.05, 1.0),
    min_eject_coverage=0.3,
    max_attempts=50,
    skip_prob=0,
):
    """Several :class:`DetRandomCropAug`, one of which is applied at
    random (a :class:`DetRandomSelectAug`).

    Every parameter is one value shared by all the crop augmenters or a
    **list** with one value per augmenter (lists must have the same
    length).  Only lists count: ``aspect_ratio_range=(0.75, 1.33)`` is one
    range, ``[(0.5, 1), (1, 2)]`` two, and -- as in MXNet --
    ``[0.75, 1.33]`` two *fixed* ratios.

    Parameters
    ----------
    min_object_covered, aspect_ratio_range, area_range,
    min_eject_coverage, max_attempts
        As for :class:`DetRandomCropAug`, or lists of them.
    skip_prob : float, default 0
        Probability of cropping nothing.

    Returns
    -------
    DetRandomSelectAug

    Examples
    --------
    >>> aug = mx.image.CreateMultiRandCropAugmenter(
    ...     min_object_covered=[0.1, 0.3, 0.5, 0.7, 0.9],
    ...     area_range=[(0.1, 1.0), (0.2, 1.0), (0.2, 1.0), (0.3, 0.9),
    ...                 (0.5, 1.0)])
    >>> len(aug.aug_list)
    5
    """
    params = {
        'min_object_covered': min_object_covered,
        'aspect_ratio_range': aspect_ratio_range,
        'area_range': area_range,
        'min_eject_coverage': min_eject_coverage,
        'max_attempts': max_attempts,
    }
    params = {k: v if isinstance(v, list) else [v] for k, v in params.items()}
    lengths = {k: len(v) for k, v in params.items() if len(v) > 1}
    if len(set(lengths.values())) > 1:
        raise DLBookError(
            f'CreateMultiRandCropAugmenter: the list parameters must have '
            f'the same length (one value per crop augmenter), got lengths '
            f'{lengths}'
        )
    count = max(lengths.values(), default=1)
    params = {k: v * (count // len(v)) for k, v in params.items()}
    augs = [
        DetRandomCropAug(**{k: v[i] for k, v in params.items()})
        for i in range(count)
    ]
    return DetRandomSelectAug(augs, skip_prob=skip_prob)


def CreateDetAugmenter(
    data_shape,
    resize=0,
    rand_crop=0,
    rand_pad=0,
    rand_gray=0,
    rand_mirror=False,
    mean=None,
    std=None,
    brightness=0,
    contrast=0,
    saturation=0,
    pca_noise=0,
    hue=0,
    inter_method=2,
    min_object_covered=0.1,
    aspect_ratio_range=(0.75, 1.33),
    area_range=(0.05, 3.0),
    min_eject_coverage=0.3,
    max_attempts=50,
    pad_val=(127, 127, 127),
):
    """Build the usual list of detection augmenters.

    In this order (each only when asked for):

    1. ``ResizeAug(resize)``: shorter side to ``resize``;
    2. random crop with probability ``rand_crop``
       (:func:`CreateMultiRandCropAugmenter` of the crop parameters, the
       upper end of ``area_range`` capped at 1 by the crop itself);
    3. ``DetHorizontalFlipAug(0.5)`` if ``rand_mirror``;
    4. random padding with probability ``rand_pad``, canvas area
       ``(1, area_range[1])`` times the image;
    5. ``ForceResizeAug`` to ``(data_shape[2], data_shape[1])`` (always:
       detection images are squeezed, not cropped, to the input size);
    6. ``CastAug()`` to float32 (always);
    7. ``ColorJitterAug``, ``HueJitterAug``, ``LightingAug`` (ImageNet
       PCA), ``RandomGrayAug``, ``ColorNormalizeAug(mean, std)``, as in
       :func:`~dlbook.image.CreateAugmenter`.

    The classification augmenters are wrapped in :class:`DetBorrowAug`.

    Parameters
    ----------
    data_shape : tuple of int
        Output ``(channels, height, width)``.
    resize : int, default 0
    rand_crop, rand_pad : float, default 0
        Probabilities of a random crop / pad.
    rand_gray : float, default 0
    rand_mirror : bool, default False
    mean, std : True, array or None
        True means ImageNet's RGB statistics.
    brightness, contrast, saturation, hue, pca_noise : float, default 0
    inter_method : int, default 2
        Interpolation code of every resize (``help(mx.image.transforms)``).
    min_object_covered, aspect_ratio_range, area_range,
    min_eject_coverage, max_attempts
        Crop settings (lists give several crop augmenters, see
        :func:`CreateMultiRandCropAugmenter`); ``aspect_ratio_range``,
        ``area_range`` and ``max_attempts`` also set the padding.
    pad_val : float or tuple of float, default (127, 127, 127)
        Padding colour.

    Returns
    -------
    list of DetAugmenter

    Examples
    --------
    >>> augs = mx.image.CreateDetAugmenter((3, 300, 300), rand_crop=0.5,
    ...                                    rand_pad=0.5, rand_mirror=True)
    >>> [type(a).__name__ for a in augs]
    ['DetRandomSelectAug', 'DetHorizontalFlipAug', 'DetRandomSelectAug', \
'DetBorrowAug', 'DetBorrowAug']
    """
    auglist = []
    if resize > 0:
        auglist.append(DetBorrowAug(ResizeAug(resize, inter_method)))

    if rand_crop > 0:
        auglist.append(
            CreateMultiRandCropAugmenter(
                min_object_covered,
                aspect_ratio_range,
                area_range,
                min_eject_coverage,
                max_attempts,
                skip_prob=(1 - rand_crop),
            )
        )

    if rand_mirror > 0:
        auglist.append(DetHorizontalFlipAug(0.5))

    # padding as late as possible: the images it makes are larger
    if rand_pad > 0:
        pad_aug = DetRandomPadAug(
            aspect_ratio_range, (1.0, area_range[1]), max_attempts, pad_val
        )
        auglist.append(DetRandomSelectAug([pad_aug], 1 - rand_pad))

    auglist.append(
        DetBorrowAug(
            ForceResizeAug((data_shape[2], data_shape[1]), inter_method)
        )
    )
    auglist.append(DetBorrowAug(CastAug()))

    if brightness or contrast or saturation:
        auglist.append(
            DetBorrowAug(ColorJitterAug(brightness, contrast, saturation))
        )
    if hue:
        auglist.append(DetBorrowAug(HueJitterAug(hue)))
    if pca_noise > 0:
        auglist.append(
            DetBorrowAug(
                LightingAug(pca_noise, PCA_EIGVAL.copy(), PCA_EIGVEC.copy())
            )
        )
    if rand_gray > 0:
        auglist.append(DetBorrowAug(RandomGrayAug(rand_gray)))

    mean = _statistic(mean, IMAGENET_MEAN, 'mean')
    std = _statistic(std, IMAGENET_STD, 'std')
    if mean is not None or std is not None:
        auglist.append(DetBorrowAug(ColorNormalizeAug(mean, std)))
    return auglist


def _as_numpy(label):
    """A label (NDArray, NumPy array or number) as a flat float array."""
    if isinstance(label, NDArray):
        label = label.asnumpy()
    return numpy.asarray(label, dtype=numpy.float64).ravel()


class ImageDetIter(ImageIter):
    """Detection data iterator: :class:`~dlbook.image.ImageIter`'s sources
    (``.rec``, ``.lst`` + images, a Python list) with detection labels
    (see the module documentation) and detection augmenters.

    At construction the iterator reads every label once (without decoding
    images) to size the label batch: ``label_shape = (max objects in one
    image, object_width)``, ``provide_label = [(label_name, (batch_size,)
    + label_shape)]``.  Images whose boxes are all invalid after
    augmentation (none left with a class >= 0 and a positive width and
    height) are skipped, as in MXNet.

    Parameters
    ----------
    batch_size : int
    data_shape : tuple of int
        ``(3, height, width)``.
    path_imgrec, path_imglist, path_root, path_imgidx, shuffle,
    part_index, num_parts, imglist, data_name, last_batch_handle
        As for :class:`~dlbook.image.ImageIter`.
    aug_list : list of DetAugmenter, optional
        Default ``CreateDetAugmenter(data_shape, **kwargs)``.
    label_name : str, default 'label'
    **kwargs
        Passed to :func:`CreateDetAugmenter` when ``aug_list`` is None.

    Attributes
    ----------
    label_shape : (int, int)
        ``(max_objects, object_width)``; grow it with :meth:`reshape` or
        :meth:`sync_label_shape`.

    Examples
    --------
    >>> imglist = [[2, 5, 0, 0.1, 0.2, 0.5, 0.6, 'cat.jpg'],
    ...            [2, 5, 1, 0.3, 0.3, 0.9, 0.8, 2, 0, 0, 0.5, 0.5, 'two.jpg']]
    >>> it = mx.image.ImageDetIter(2, (3, 64, 64), imglist=imglist,
    ...                            path_root='images')
    >>> it.label_shape
    (2, 5)
    >>> it.next().label[0][0].asnumpy()     # cat.jpg: one object, one pad row
    array([[ 0. ,  0.1,  0.2,  0.5,  0.6],
           [-1. , -1. , -1. , -1. , -1. ]], dtype=float32)
    """

    def __init__(
        self,
        batch_size,
        data_shape,
        path_imgrec=None,
        path_imglist=None,
        path_root=None,
        path_imgidx=None,
        shuffle=False,
        part_index=0,
        num_parts=1,
        aug_list=None,
        imglist=None,
        data_name='data',
        label_name='label',
        last_batch_handle='pad',
        **kwargs,
    ):
        super().__init__(
            batch_size=batch_size,
            data_shape=data_shape,
            path_imgrec=path_imgrec,
            path_imglist=path_imglist,
            path_root=path_root,
            path_imgidx=path_imgidx,
            shuffle=shuffle,
            part_index=part_index,
            num_parts=num_parts,
            aug_list=[],
            imglist=imglist,
            data_name=data_name,
            label_name=label_name,
            last_batch_handle=last_batch_handle,
        )
        if aug_list is None:
            self.auglist = CreateDetAugmenter(self.data_shape, **kwargs)
        else:
            self.auglist = aug_list
        self.label_shape = self._estimate_label_shape()
        self.provide_label = [
            (label_name, (self.batch_size,) + self.label_shape)
        ]

    # -- labels ---------------------------------------------------------------
    def _estimate_label_shape(self):
        """``(max objects, object_width)`` over all the labels."""
        max_count, width = 0, None
        self.reset()
        try:
            while True:
                label, _ = self.next_sample()
                label = self._parse_label(label)
                if width is not None and label.shape[1] != width:
                    raise DLBookError(
                        f'ImageDetIter: the label of {self._source} has '
                        f'object_width {label.shape[1]}, earlier labels '
                        f'{width}; all objects must have the same width'
                    )
                width = label.shape[1]
                max_count = max(max_count, label.shape[0])
        except StopIteration:
            pass
        self.reset()
        if width is None:
            raise DLBookError('ImageDetIter: the data set has no images')
        return (max_count, width)

    def _parse_label(self, label):
        """The raw label as an ``(objects, object_width)`` array, invalid
        boxes (``xmax <= xmin`` or ``ymax <= ymin``) removed."""
        raw = _as_numpy(label)
        where = f'ImageDetIter: the label of {self._source}'
        if raw.size < 7:
            raise DLBookError(
                f'{where} has {raw.size} values; a detection label is '
                f'[header_width, object_width, ..., cls, xmin, ymin, xmax, '
                f'ymax, ...] (at least 7 values)'
            )
        header_width, obj_width = int(raw[0]), int(raw[1])
        if header_width < 2 or obj_width < 5:
            raise DLBookError(
                f'{where} starts with header_width={header_width}, '
                f'object_width={obj_width}; they must be >= 2 and >= 5'
            )
        if (raw.size - header_width) % obj_width != 0:
            raise DLBookError(
                f'{where} has {raw.size} values: {raw.size - header_width} '
                f'after the header of {header_width}, not a multiple of '
                f'object_width={obj_width}'
            )
        out = raw[header_width:].reshape(-1, obj_width)
        valid = (out[:, 3] > out[:, 1]) & (out[:, 4] > out[:, 2])
        if not valid.any():
            raise DLBookError(f'{where} has no valid box')
        return out[valid, :]

    def _has_object(self, label):
        """Whether an augmented label still has an object (a class >= 0
        and a box of positive width and height); an augmenter that
        returns a label of the wrong shape is an error."""
        if label.ndim != 2 or label.shape[1] < 5:
            raise DLBookError(
                f'ImageDetIter: the augmenters turned the label of '
                f'{self._source} into shape {label.shape}; expected '
                f'(objects, object_width >= 5)'
            )
        valid = (
            (label[:, 0] >= 0)
            & (label[:, 3] > label[:, 1])
            & (label[:, 4] > label[:, 2])
        )
        return bool(valid.any())

    def check_label_shape(self, label_shape):
        """A new ``label_shape`` must be ``(count, object_width)`` with at
        least as many rows as now and the same width."""
        if len(label_shape) != 2:
            raise ValueError(
                f'label_shape should have length 2, got {label_shape}'
            )
        if label_shape[0] < self.label_shape[0]:
            raise ValueError(
                f'Attempts to reduce label count from '
                f'{self.label_shape[0]} to {label_shape[0]}, not allowed.'
            )
        if label_shape[1] != self.provide_label[0][1][2]:
            raise ValueError(
                f'label_shape object width inconsistent: '
                f'{self.provide_label[0][1][2]} vs {label_shape[1]}.'
            )

    def reshape(self, data_shape=None, label_shape=None):
        """Change the output ``data_shape`` and/or ``label_shape`` (which
        may only grow, keeping its width).

        The augmenters are left alone: with a new ``data_shape`` they
        must produce images of that size (a list from
        ``CreateDetAugmenter`` still resizes to the old one).
        """
        if data_shape is not None:
            data_shape = tuple(data_shape)
            self.check_data_shape(data_shape)
            self.provide_data = [
                (self.provide_data[0][0], (self.batch_size,) + data_shape)
            ]
            self.data_shape = data_shape
        if label_shape is not None:
            label_shape = tuple(label_shape)
            self.check_label_shape(label_shape)
            self.provide_label = [
                (self.provide_label[0][0], (self.batch_size,) + label_shape)
            ]
            self.label_shape = label_shape

    def sync_label_shape(self, it, verbose=False):
        """Give this iterator and ``it`` the same, larger label count
        (train and validation sets padded alike).

        Parameters
        ----------
        it : ImageDetIter
        verbose : bool, default False
            Log the new shape.

        Returns
        -------
        ImageDetIter
            ``it``, reshaped if needed.

        Examples
        --------
        >>> train.label_shape, val.label_shape
        ((30, 6), (25, 6))
        >>> val = train.sync_label_shape(val)
        >>> val.label_shape
        (30, 6)
        """
        if not isinstance(it, ImageDetIter):
            raise DLBookError(
                f'sync_label_shape needs an ImageDetIter, got '
                f'{type(it).__name__}'
            )
        mine, theirs = self.label_shape, it.label_shape
        if mine[1] != theirs[1]:
            raise DLBookError(
                f'sync_label_shape: object widths differ, {mine[1]} vs '
                f'{theirs[1]}'
            )
        max_count = max(mine[0], theirs[0])
        if max_count > mine[0]:
            self.reshape(None, (max_count, mine[1]))
        if max_count > theirs[0]:
            it.reshape(None, (max_count, theirs[1]))
        if verbose and max_count > min(mine[0], theirs[0]):
            logging.info(
                'Resized label_shape to (%d, %d).', max_count, mine[1]
            )
        return it

    # -- batches --------------------------------------------------------------
    def augmentation_transform(self, data, label):
        """Apply every detection augmenter of ``auglist`` in order."""
        for aug in self.auglist:
            data, label = aug(data, label)
        return data, label

    def _store_det(self, batch_data, batch_label, i, datum, label):
        if datum.shape != self.data_shape:
            raise DLBookError(
                f'ImageDetIter: the augmented image ({self._source}) has '
                f'shape {datum.shape} after postprocess_data, but '
                f'data_shape is {self.data_shape}; the augmenters must '
                f'produce images of that size (CreateDetAugmenter resizes '
                f'to it)'
            )
        if label.shape[0] > self.label_shape[0] or (
            label.shape[1] != self.label_shape[1]
        ):
            raise DLBookError(
                f'ImageDetIter: the label of {self._source} has shape '
                f'{label.shape} after augmentation; label_shape is '
                f'{self.label_shape} (at most that many objects of that '
                f'width)'
            )
        batch_data[i] = datum
        row = numpy.full(self.label_shape, -1, dtype=numpy.float32)
        row[: label.shape[0]] = label
        batch_label[i] = row

    def _batchify(self, batch_data, batch_label, start=0):
        """Fill the batch from position ``start``; return how many
        positions are filled.  A fresh batch (``start == 0``) starts with
        every label row -1, which unfilled rows keep."""
        if start == 0:
            batch_label[:] = -1
        i = start
        try:
            while i < self.batch_size:
                label, s = self.next_sample()
                data = self.imdecode(s)
                try:
                    self.check_valid_image(data)
                except RuntimeError as err:
                    logging.debug('Invalid image, skipping:  %s', str(err))
                    continue
                label = self._parse_label(label)
                data, label = self.augmentation_transform(data, label)
                if not self._has_object(label):
                    logging.debug(
                        'No object left in %s, skipping', self._source
                    )
                    continue
                self._store_det(
                    batch_data,
                    batch_label,
                    i,
                    self.postprocess_data(data),
                    label,
                )
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    # -- looking at the data --------------------------------------------------
    def draw_next(
        self,
        color=None,
        thickness=2,
        mean=None,
        std=None,
        clip=True,
        waitKey=None,
        window_name='draw_next',
        id2labels=None,
    ):
        """Yield the next images, augmented, with their boxes drawn: a
        generator of ``(height, width, 3)`` uint8 NumPy arrays in **BGR**
        order (as MXNet, for OpenCV's ``imshow``; ``image[:, :, ::-1]``
        is RGB).  It reads from the current position to the end of the
        epoch.

        Parameters
        ----------
        color : tuple of 3 int, optional
            Box colour (RGB); None draws each box in a random colour.
        thickness : int, default 2
            Box line width in pixels.
        mean, std : True, array or None
            Undo ``ColorNormalizeAug``: multiply by ``std``, then add
            ``mean`` (True: ImageNet's values).
        clip : bool, default True
            Clip the pixels to [0, 255] before casting to uint8.
        waitKey : int, optional
            Also show each image in an OpenCV window for ``waitKey``
            milliseconds (needs ``cv2``).
        window_name : str, default 'draw_next'
        id2labels : dict, optional
            ``{class id: name}``: write the name in each box.

        Notes
        -----
        Drawing uses Pillow's ``ImageDraw`` (MXNet used OpenCV), so the
        line pixels and the text font differ slightly.

        Examples
        --------
        >>> for image in it.draw_next(id2labels={0: 'cat', 1: 'dog'}):
        ...     plt.imshow(image[:, :, ::-1])
        """
        from PIL import Image, ImageDraw

        cv2 = None
        if waitKey is not None:
            try:
                import cv2
            except ImportError:
                raise DLBookError(
                    'draw_next: waitKey shows the images with OpenCV, but '
                    'cv2 is not installed; leave waitKey=None and display '
                    'the yielded arrays yourself'
                ) from None
        std = _drawing_statistic(std, IMAGENET_STD, 'std')
        mean = _drawing_statistic(mean, IMAGENET_MEAN, 'mean')
        if color:
            color = tuple(int(c) for c in color[::-1])  # RGB -> BGR
        rng = _random.numpy_rng()
        while True:
            try:
                label, s = self.next_sample()
            except StopIteration:
                return
            data = self.imdecode(s)
            try:
                self.check_valid_image(data)
            except RuntimeError as err:
                logging.debug('Invalid image, skipping:  %s', str(err))
                continue
            label = self._parse_label(label)
            data, label = self.augmentation_transform(data, label)
            image = data.asnumpy().astype(numpy.float64)
            if std is not None:
                image *= std
            if mean is not None:
                image += mean
            image = image[:, :, ::-1]  # RGB -> BGR
            if clip:
                image = numpy.clip(image, 0, 255)
            canvas = Image.fromarray(numpy.ascontiguousarray(image, 'uint8'))
            draw = ImageDraw.Draw(canvas)
            height, width = image.shape[0], image.shape[1]
            for row in label:
                x1 = int(row[1] * width)
                if x1 < 0:
                    continue
                y1, x2, y2 = (
                    int(row[2] * height),
                    int(row[3] * width),
                    int(row[4] * height),
                )
                box_color = color or tuple(
                    int(c) for c in rng.random_sample(3) * 255
                )
                draw.rectangle(
                    [x1, y1, x2, y2], outline=box_color, width=thickness
                )
                if id2labels is not None and int(row[0]) in id2labels:
                    draw.text(
                        (x1 + 5, y1 + 5),
                        str(id2labels[int(row[0])]),
                        fill=(255, 255, 255),
                    )
            image = numpy.asarray(canvas)
            if cv2 is not None:
                cv2.imshow(window_name, image)
                cv2.waitKey(waitKey)
            yield image


def _drawing_statistic(value, default, name):
    """``mean``/``std`` of :meth:`ImageDetIter.draw_next` as a NumPy
    array of 1 or 3 values (True: ImageNet's), or None."""
    if value is None:
        return None
    value = numpy.asarray(default if value is True else value, numpy.float64)
    if value.ndim != 1 or value.shape[0] not in (1, 3):
        raise DLBookError(
            f'draw_next: {name} must be True, None or 1 or 3 values (one '
            f'per RGB channel), got shape {value.shape}'
        )
    return value
