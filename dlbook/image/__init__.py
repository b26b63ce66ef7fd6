"""``mx.image`` (also ``mx.img``): read, transform and augment images, and
iterate over image data sets (MXNet 1.x's ``mxnet.image``).

Images are NDArrays of shape ``(height, width, channels)`` (``HWC``),
``uint8`` as decoded, **RGB** channel order.  Sizes are ``(width,
height)`` and crop boxes ``(x0, y0, width, height)``, OpenCV's
conventions, which MXNet follows.

- Reading: :func:`imread`, :func:`imdecode` (``dlbook.image.io``).
- Functions on one image: :func:`imresize`, :func:`resize_short`,
  :func:`scale_down`, :func:`fixed_crop`, :func:`random_crop`,
  :func:`center_crop`, :func:`random_size_crop`, :func:`color_normalize`,
  :func:`copyMakeBorder` (``dlbook.image.transforms``, whose
  documentation lists the interpolation codes and how dlbook computes
  each).
- Augmenters, callable objects applied to every image:
  ``ResizeAug``, ``RandomCropAug``, ``HorizontalFlipAug``, ``CastAug``...
  (``dlbook.image.augmenter``), the colour ones ``ColorJitterAug``,
  ``LightingAug``, ``ColorNormalizeAug``... (``dlbook.image.color``),
  and :func:`CreateAugmenter`, which builds the usual list.
- :class:`ImageIter`: an ``mx.io`` data iterator over a ``.lst`` image
  list or a RecordIO ``.rec`` file, yielding ``NCHW`` float32 batches.

Decoding needs Pillow (imported only when an image is decoded).

Examples
--------
>>> img = mx.image.imread('cat.jpg')                 # (H, W, 3) uint8 RGB
>>> img = mx.image.resize_short(img, 256)
>>> img, box = mx.image.center_crop(img, (224, 224))
>>> img = mx.image.color_normalize(img.astype('float32'),
...                                mean=mx.nd.array([123.68, 116.28, 103.53]),
...                                std=mx.nd.array([58.395, 57.12, 57.375]))
"""

from . import detection as det  # MXNet's short name
from .augmenter import (
    Augmenter,
    CastAug,
    CenterCropAug,
    ForceResizeAug,
    HorizontalFlipAug,
    RandomCropAug,
    RandomOrderAug,
    RandomSizedCropAug,
    ResizeAug,
    SequentialAug,
)
from .color import (
    BrightnessJitterAug,
    ColorJitterAug,
    ColorNormalizeAug,
    ContrastJitterAug,
    HueJitterAug,
    LightingAug,
    RandomGrayAug,
    SaturationJitterAug,
)
from .create import CreateAugmenter
from .detection import (
    CreateDetAugmenter,
    CreateMultiRandCropAugmenter,
    DetAugmenter,
    DetBorrowAug,
    DetHorizontalFlipAug,
    DetRandomCropAug,
    DetRandomPadAug,
    DetRandomSelectAug,
    ImageDetIter,
)
from .io import imdecode, imread
from .iterator import ImageIter
from .rotate import imrotate, random_rotate
from .transforms import (
    center_crop,
    color_normalize,
    copyMakeBorder,
    fixed_crop,
    imresize,
    random_crop,
    random_size_crop,
    resize_short,
    scale_down,
)
