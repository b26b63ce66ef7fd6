"""Image transforms: ``ToTensor``, ``Normalize``, ``Resize``, augmentations.

Each transform is a small callable class: ``ToTensor()(image)``.  Images
are NDArrays in ``HWC`` layout (height, width, channels; ``uint8`` as
loaded), or ``NHWC`` batches; ``ToTensor`` turns them into ``CHW``
``float32`` in [0, 1], which is what convolution layers expect, and the
transforms after it (``Normalize``) work on ``CHW``.  NumPy arrays work
too and stay NumPy.

In MXNet these are Gluon (Hybrid)Blocks; here they are plain classes with
the same names, arguments, printed form and a no-op ``hybridize``, so they
can be pickled into DataLoader workers.  Random transforms draw from
``dlbook.random.numpy_rng()`` (reproducible under ``mx.random.seed``).

Typical use (d2l)::

    trans = transforms.Compose([transforms.Resize(64),
                                transforms.ToTensor()])
    train = gluon.data.vision.FashionMNIST(train=True)
    loader = gluon.data.DataLoader(train.transform_first(trans), 256)
"""

__all__ = [
    'Compose',
    'Sequential',
    'HybridSequential',
    'RandomApply',
    'HybridRandomApply',
    'Rotate',
    'RandomRotation',
    'Cast',
    'ToTensor',
    'Normalize',
    'Resize',
    'CenterCrop',
    'CropResize',
    'RandomCrop',
    'RandomResizedCrop',
    'RandomFlipLeftRight',
    'RandomFlipTopBottom',
    'RandomBrightness',
    'RandomContrast',
    'RandomSaturation',
    'RandomHue',
    'RandomColorJitter',
    'RandomLighting',
]

import numbers

import numpy

from .... import random as _random
from ...._imaging import ops
from ....base import DLBookError
from ....context import cpu
from ....image.rotate import imrotate, random_rotate
from ....ndarray.ndarray import NDArray, from_raw
from ....ops import REGISTRY


def _indent(text, spaces):
    """MXNet's ``_indent``: indent every line but the first."""
    lines = text.split('\n')
    if len(lines) == 1:
        return text
    return '\n'.join([lines[0]] + [' ' * spaces + line for line in lines[1:]])


def _pair(size):
    """``size`` as ``(width, height)``."""
    if isinstance(size, numbers.Integral):
        return int(size), int(size)
    width, height = size
    return int(width), int(height)


def _check_image(name, img, ndims=(3, 4)):
    if img.ndim not in ndims:
        raise DLBookError(
            f'{name} expects an image of shape (H, W, C) or a '
            f'batch (N, H, W, C); got shape {img.shape}'
        )


class Transform:
    """Base class: ``transform(x)`` maps an image (NDArray or NumPy) to a
    new one of the same kind; subclasses define ``_forward(xp, raw)``.

    ``batchable`` marks deterministic transforms whose result on a stacked
    ``NHWC`` batch equals stacking their per-image results; the DataLoader
    then applies them to whole batches.
    """

    batchable = False

    def __call__(self, x):
        if isinstance(x, NDArray):
            ctx = x.context
            with ctx.backend.scope(ctx.device_id):
                out = from_raw(self._forward(ctx.xp, x._data), ctx)
            if type(x) is not NDArray:
                out.__class__ = type(x)  # an mx.np.ndarray stays one
            return out
        return self._forward(numpy, numpy.asarray(x))

    def forward(self, x):
        """Same as calling the transform."""
        return self(x)

    def _forward(self, xp, img):
        raise NotImplementedError

    def hybridize(self, active=True, **kwargs):
        """No-op, for compatibility with MXNet's HybridBlock transforms."""

    def __repr__(self):
        # MXNet prints a Block with no child Blocks like this.
        return f'{type(self).__name__}(\n\n)'


class Sequential(Transform):
    """Apply transforms one after another, added with :meth:`add` (MXNet
    re-exports ``gluon.nn.Sequential`` here; in dlbook it is this plain
    container, the base of :class:`Compose`).

    Parameters
    ----------
    prefix, params : ignored
        Accepted for MXNet's ``Sequential(prefix=None, params=None)``.

    Examples
    --------
    >>> seq = transforms.Sequential()
    >>> seq.add(transforms.Resize(8), transforms.ToTensor())
    >>> seq(mx.nd.zeros((4, 4, 3), dtype='uint8')).shape
    (3, 8, 8)
    """

    def __init__(self, prefix=None, params=None):
        self._transforms = []

    def add(self, *blocks):
        """Append transforms (callables) to the sequence."""
        for block in blocks:
            if not callable(block):
                raise DLBookError(
                    f'{type(self).__name__}.add: a transform must be '
                    f'callable, got {type(block).__name__}'
                )
        self._transforms.extend(blocks)

    @property
    def batchable(self):
        return all(
            isinstance(t, Transform) and t.batchable for t in self._transforms
        )

    def __call__(self, x):
        if all(isinstance(t, Transform) for t in self._transforms):
            return super().__call__(x)  # one unwrap, raw arrays between
        for transform in self._transforms:
            x = transform(x)
        return x

    def _forward(self, xp, img):
        for transform in self._transforms:
            img = transform._forward(xp, img)
        return img

    def __len__(self):
        return len(self._transforms)

    def __getitem__(self, index):
        return self._transforms[index]

    def __repr__(self):
        body = '\n'.join(
            f'  ({i}): {_indent(repr(t), 2)}'
            for i, t in enumerate(self._transforms)
        )
        return f'{type(self).__name__}(\n{body}\n)'


class HybridSequential(Sequential):
    """:class:`Sequential` under MXNet's hybrid name (``hybridize`` is a
    no-op here)."""


class Compose(Sequential):
    """Apply transforms one after another.

    Parameters
    ----------
    transforms : list of callable

    Examples
    --------
    >>> transformer = transforms.Compose([transforms.Resize(300),
    ...                                   transforms.CenterCrop(256),
    ...                                   transforms.ToTensor()])
    >>> image = mx.nd.random.uniform(0, 255, (224, 224, 3)).astype('uint8')
    >>> transformer(image).shape
    (3, 256, 256)
    """

    def __init__(self, transforms):
        super().__init__()
        self._transforms = list(transforms)


class Cast(Transform):
    """Cast to ``dtype`` (default ``'float32'``)."""

    batchable = True

    def __init__(self, dtype='float32'):
        self._dtype = dtype

    def _forward(self, xp, img):
        return img.astype(self._dtype)


class ToTensor(Transform):
    """``HWC`` image in [0, 255] -> ``CHW`` ``float32`` in [0, 1].

    A batch ``NHWC`` becomes ``NCHW``.  Values are divided by 255 whatever
    the input dtype.

    Examples
    --------
    >>> image = mx.nd.ones((28, 28, 1), dtype='uint8') * 255
    >>> out = transforms.ToTensor()(image)
    >>> out.shape, out.dtype, float(out.max().asscalar())
    ((1, 28, 28), dtype('float32'), 1.0)
    """

    batchable = True

    def _forward(self, xp, img):
        _check_image('ToTensor', img)
        return ops.to_tensor(xp, img)


class Normalize(Transform):
    """``(x - mean) / std`` per channel of a ``CHW`` (or ``NCHW``) tensor.

    Parameters
    ----------
    mean : float or tuple of floats, default 0.0
        One value, or one per channel.
    std : float or tuple of floats, default 1.0
    """

    batchable = True

    def __init__(self, mean=0.0, std=1.0):
        self._mean = mean
        self._std = std

    def _forward(self, xp, img):
        _check_image('Normalize', img)
        return ops.normalize(xp, img, self._mean, self._std)[0]


class Resize(Transform):
    """Resize an ``HWC`` image (or ``NHWC`` batch).

    Parameters
    ----------
    size : int or tuple of (width, height)
        An int means a square, or, with ``keep_ratio``, the length of the
        shorter side.
    keep_ratio : bool, default False
    interpolation : int, default 1
        1 bilinear, 0 nearest neighbour (OpenCV's codes; others are
        treated as bilinear).  Integer images are rounded back to their
        dtype, so results can differ from OpenCV's fixed-point arithmetic
        by one grey level.
    """

    batchable = True

    def __init__(self, size, keep_ratio=False, interpolation=1):
        self._size = size
        self._keep = keep_ratio
        self._interpolation = interpolation

    def _target(self, height, width):
        if isinstance(self._size, numbers.Integral):
            size = int(self._size)
            if not self._keep:
                return size, size
            if height > width:
                return size, int(size * height / width)
            return int(size * width / height), size
        return _pair(self._size)

    def _forward(self, xp, img):
        _check_image('Resize', img)
        width, height = self._target(img.shape[-3], img.shape[-2])
        return ops.resize(xp, img, width, height, self._interpolation)


class CenterCrop(Transform):
    """Crop the centre ``size`` window (resizing up if the image is
    smaller).

    Parameters
    ----------
    size : int or tuple of (width, height)
    interpolation : int, default 1
    """

    batchable = True

    def __init__(self, size, interpolation=1):
        self._size = _pair(size)
        self._interpolation = interpolation

    def _forward(self, xp, img):
        _check_image('CenterCrop', img)
        out = ops.center_crop(xp, img, self._size, self._interpolation)
        return xp.ascontiguousarray(out)


class CropResize(Transform):
    """Crop the window at ``(x, y)`` of ``width x height``, then resize
    to ``size`` if given."""

    batchable = True

    def __init__(self, x, y, width, height, size=None, interpolation=None):
        self._box = (x, y, width, height)
        self._size = None if size is None else _pair(size)
        self._interpolation = 1 if interpolation is None else interpolation

    def _forward(self, xp, img):
        _check_image('CropResize', img)
        out = ops.fixed_crop(
            xp, img, *self._box, self._size, self._interpolation
        )
        return xp.ascontiguousarray(out)


class RandomCrop(Transform):
    """Pad (optionally), then crop a random ``size`` window.

    Parameters
    ----------
    size : int or tuple of (width, height)
    pad : int or tuple, optional
        Pixels added on each side of height and width (CIFAR uses 4).
    pad_value : int, default 0
    interpolation : int, default 1
    """

    def __init__(self, size, pad=None, pad_value=0, interpolation=1):
        self._size = _pair(size)
        self._pad = pad
        self._pad_value = pad_value
        self._interpolation = interpolation

    def _forward(self, xp, img):
        _check_image('RandomCrop', img)
        if self._pad:
            ph, pw = (
                (self._pad, self._pad)
                if isinstance(self._pad, numbers.Integral)
                else self._pad[:2]
            )
            widths = [(0, 0)] * (img.ndim - 3) + [(ph, ph), (pw, pw), (0, 0)]
            img = xp.pad(img, widths, constant_values=self._pad_value)
        h, w = img.shape[-3], img.shape[-2]
        width, height = self._size
        if width > w or height > h:
            return ops.center_crop(xp, img, self._size, self._interpolation)
        rng = _random.numpy_rng()
        x0 = int(rng.randint(0, w - width + 1))
        y0 = int(rng.randint(0, h - height + 1))
        return xp.ascontiguousarray(ops.crop(img, x0, y0, width, height))


class RandomResizedCrop(Transform):
    """Crop a random area and aspect ratio, then resize to ``size``
    (Inception-style augmentation).

    Parameters
    ----------
    size : int or tuple of (width, height)
    scale : tuple of two floats, default (0.08, 1.0)
        Range of the crop's area, as a fraction of the image's.
    ratio : tuple of two floats, default (3/4, 4/3)
        Range of the crop's aspect ratio (width / height).
    interpolation : int, default 1
    """

    def __init__(
        self,
        size,
        scale=(0.08, 1.0),
        ratio=(3.0 / 4.0, 4.0 / 3.0),
        interpolation=1,
    ):
        self._size = _pair(size)
        self._scale = scale
        self._ratio = ratio
        self._interpolation = interpolation

    def _forward(self, xp, img):
        _check_image('RandomResizedCrop', img)
        out = ops.random_size_crop(
            xp,
            _random.numpy_rng(),
            img,
            self._size,
            self._scale,
            self._ratio,
            self._interpolation,
        )
        return xp.ascontiguousarray(out)


class _RandomFlip(Transform):
    operator = None  # nd.image's

    def __init__(self, p=0.5):
        self._p = p

    def _forward(self, xp, img):
        _check_image(type(self).__name__, img)
        return REGISTRY[self.operator](p=self._p).forward(xp, img)


class RandomFlipLeftRight(_RandomFlip):
    """Mirror the image horizontally with probability ``p`` (0.5)."""

    operator = '_image_random_flip_left_right'


class RandomFlipTopBottom(_RandomFlip):
    """Flip the image vertically with probability ``p`` (0.5)."""

    operator = '_image_random_flip_top_bottom'


class _ColorTransform(Transform):
    """Work in floating point, then return to the input dtype."""

    def _forward(self, xp, img):
        _check_image(type(self).__name__, img)
        out = self._adjust(xp, ops.as_float(img), _random.numpy_rng())
        return ops.saturate(xp, out, img.dtype)

    def _adjust(self, xp, img, rng):
        raise NotImplementedError


class RandomBrightness(_ColorTransform):
    """Multiply by a random factor in ``[max(0, 1 - b), 1 + b]``."""

    def __init__(self, brightness):
        self._range = (max(0.0, 1.0 - brightness), 1.0 + brightness)

    def _adjust(self, xp, img, rng):
        return ops.adjust_brightness(xp, img, rng.uniform(*self._range))


class RandomContrast(_ColorTransform):
    """Blend with the mean grey level by a random factor in
    ``[max(0, 1 - c), 1 + c]``."""

    def __init__(self, contrast):
        self._range = (max(0.0, 1.0 - contrast), 1.0 + contrast)

    def _adjust(self, xp, img, rng):
        return ops.adjust_contrast(xp, img, rng.uniform(*self._range))


class RandomSaturation(_ColorTransform):
    """Blend with the per-pixel grey image by a random factor in
    ``[max(0, 1 - s), 1 + s]``."""

    def __init__(self, saturation):
        self._range = (max(0.0, 1.0 - saturation), 1.0 + saturation)

    def _adjust(self, xp, img, rng):
        return ops.adjust_saturation(xp, img, rng.uniform(*self._range))


class RandomHue(_ColorTransform):
    """Rotate the hue by a random fraction in ``[-hue, hue]`` of 180
    degrees."""

    def __init__(self, hue):
        self._hue = hue

    def _adjust(self, xp, img, rng):
        return ops.adjust_hue(xp, img, rng.uniform(-self._hue, self._hue))


class RandomColorJitter(_ColorTransform):
    """Random brightness, contrast, saturation and hue, in random order.

    Parameters
    ----------
    brightness, contrast, saturation, hue : float, default 0
        Strength of each change; 0 leaves it out.
    """

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        self._strengths = (brightness, contrast, saturation, hue)

    def _adjust(self, xp, img, rng):
        return ops.color_jitter(xp, img, rng, *self._strengths)


class RandomLighting(_ColorTransform):
    """AlexNet's PCA lighting noise with standard deviation ``alpha``."""

    def __init__(self, alpha):
        self._alpha = alpha

    def _adjust(self, xp, img, rng):
        return ops.adjust_lighting(xp, img, rng.normal(0, self._alpha, 3))


class _NDArrayTransform:
    """A transform that works on float32 ``CHW``/``NCHW`` NDArrays through
    ``mx.image`` (not on raw arrays, so :class:`Compose` calls it as it
    is).  NumPy input is converted to an NDArray and back."""

    def __call__(self, x):
        if isinstance(x, NDArray):
            return self._apply(x)
        from_numpy = from_raw(numpy.asarray(x), cpu(0))
        return self._apply(from_numpy).asnumpy()

    def forward(self, x):
        """Same as calling the transform."""
        return self(x)

    def hybridize(self, active=True, **kwargs):
        """No-op, for compatibility with MXNet's Block transforms."""

    def _apply(self, x):
        raise NotImplementedError

    def __repr__(self):
        return f'{type(self).__name__}(\n\n)'


def _check_float32(name, x):
    if x.dtype != numpy.float32:
        raise DLBookError(
            f'{name} only supports float32 (C, H, W) or (N, C, H, W) '
            f'tensors, got dtype {numpy.dtype(x.dtype).name} and shape '
            f'{x.shape}; call it after ToTensor'
        )


class Rotate(_NDArrayTransform):
    """Rotate a float32 ``CHW`` image or ``NCHW`` batch by a fixed angle,
    keeping its shape; see :func:`mx.image.imrotate
    <dlbook.image.imrotate>`.

    Parameters
    ----------
    rotation_degrees : float
        Counter-clockwise angle in degrees.
    zoom_in : bool, default False
        Magnify so that no padding shows.
    zoom_out : bool, default False
        Shrink so that the whole rotated image shows.
    """

    def __init__(self, rotation_degrees, zoom_in=False, zoom_out=False):
        self._args = (rotation_degrees, zoom_in, zoom_out)

    def _apply(self, x):
        _check_float32('Rotate', x)
        return imrotate(x, *self._args)


class RandomRotation(_NDArrayTransform):
    """Rotate a float32 ``CHW`` image or ``NCHW`` batch by an angle drawn
    uniformly from ``angle_limits`` (one per image), with probability
    ``rotate_with_proba``; see :func:`mx.image.random_rotate
    <dlbook.image.random_rotate>`.

    Parameters
    ----------
    angle_limits : tuple of (float, float)
        ``(lower, upper)`` in degrees, ``lower < upper``.
    zoom_in, zoom_out : bool, default False
    rotate_with_proba : float, default 1.0
    """

    def __init__(
        self,
        angle_limits,
        zoom_in=False,
        zoom_out=False,
        rotate_with_proba=1.0,
    ):
        lower, upper = angle_limits
        if lower >= upper:
            raise DLBookError(
                f'RandomRotation: angle_limits must be an ordered tuple '
                f'(lower, upper), got {tuple(angle_limits)!r}'
            )
        if not 0 <= rotate_with_proba <= 1:
            raise DLBookError(
                f'RandomRotation: rotate_with_proba must be between 0 and '
                f'1, got {rotate_with_proba!r}'
            )
        self._args = (angle_limits, zoom_in, zoom_out)
        self._rotate_with_proba = rotate_with_proba

    def _apply(self, x):
        if _random.numpy_rng().random_sample() > self._rotate_with_proba:
            return x
        _check_float32('RandomRotation', x)
        return random_rotate(x, *self._args)


class RandomApply(_NDArrayTransform):
    """Apply ``transforms`` (one transform, for example a
    :class:`Sequential` or :class:`Compose`) with probability ``p``,
    else return the input unchanged.

    Parameters
    ----------
    transforms : callable
    p : float, default 0.5
    """

    def __init__(self, transforms, p=0.5):
        if not callable(transforms):
            raise DLBookError(
                f'{type(self).__name__}: transforms must be a transform '
                f'(callable), got {type(transforms).__name__}'
            )
        self.transforms = transforms
        self.p = p

    def __call__(self, x):
        if self.p < _random.numpy_rng().random_sample():
            return x
        return self.transforms(x)

    def __repr__(self):
        inner = _indent(repr(self.transforms), 2)
        return f'{type(self).__name__}(\n  (transforms): {inner}\n)'


class HybridRandomApply(RandomApply):
    """:class:`RandomApply` under MXNet 2's hybrid name (not in MXNet
    1.9.1; ``hybridize`` is a no-op here)."""
