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

from .io import imread, imdecode  # noqa: F401
from .transforms import (scale_down, imresize, resize_short,  # noqa: F401
                         fixed_crop, random_crop, center_crop,
                         random_size_crop, color_normalize, copyMakeBorder)
from .augmenter import (Augmenter, SequentialAug,  # noqa: F401
                        RandomOrderAug, ResizeAug, ForceResizeAug,
                        RandomCropAug, RandomSizedCropAug, CenterCropAug,
                        HorizontalFlipAug, CastAug)
from .color import (BrightnessJitterAug, ContrastJitterAug,  # noqa: F401
                    SaturationJitterAug, HueJitterAug, ColorJitterAug,
                    LightingAug, ColorNormalizeAug, RandomGrayAug)
from .create import CreateAugmenter  # noqa: F401
from .iterator import ImageIter  # noqa: F401
