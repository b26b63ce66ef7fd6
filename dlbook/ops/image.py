"""Operators of ``nd.image`` and ``sym.image`` (MXNet's ``_image_*``).

What GluonCV's presets and MXNet's image tutorials call on decoded
images, as operators (so they also run in symbols and hybridized
blocks)::

    img = mx.image.imread('cat.jpg')                 # HWC uint8
    x = mx.nd.image.to_tensor(img)                   # CHW float32 in [0, 1]
    x = mx.nd.image.normalize(x, mean=(0.485, 0.456, 0.406),
                              std=(0.229, 0.224, 0.225))

Images are ``HWC`` (one image) or ``NHWC`` (a batch) until ``to_tensor``
makes them ``CHW``/``NCHW``; ``normalize`` works on the latter.  The
arithmetic is that of the Gluon transforms (``dlbook/_imaging/ops.py``),
which share it.  ``normalize``, the flips and ``crop`` have gradients;
resizing, lighting and the random augmentations do not (as in MXNet).

Where MXNet 1.9.1 is wrong, these are not: its ``flip_left_right``
writes garbage into the middle column of an odd-width image, and its
``normalize`` defaults (four zeros, four ones) fail on three channels;
here the defaults are ``mean=0, std=1``.  Batches (``NHWC``) are
accepted wherever a single image is.
"""

import numbers

from .._imaging import ops as imaging
from ..backend import get_backend
from ..base import DLBookError
from .op import Op, register

__all__ = []


def _check_image(name, img, layout='(H, W, C)'):
    if img.ndim not in (3, 4):
        raise DLBookError(
            f'image.{name} expects an image of shape {layout} or a batch '
            f'(N, {layout[1:]}; got shape {tuple(img.shape)}'
        )


def _host_rng():
    """The CPU's NumPy ``RandomState`` (what the Gluon transforms draw
    from, reproducible under ``mx.random.seed``): the random choices are
    host scalars on any device."""
    return get_backend('cpu').rng(0)


class _Image(Op):
    """Base: one image (or batch) in, one out."""

    arguments = ('data',)
    reads_train_mode = False


class _Undifferentiable(_Image):
    differentiable = False


@register('_image_to_tensor')
class ToTensor(_Undifferentiable):
    """``HWC`` image in [0, 255] -> ``CHW`` float32 in [0, 1] (a batch
    ``NHWC`` -> ``NCHW``): ``y[c, h, w] = x[h, w, c] / 255``."""

    def forward(self, xp, data):
        _check_image('to_tensor', data)
        return imaging.to_tensor(xp, data)


@register('_image_normalize')
class Normalize(_Image):
    """y = (x - mean) / std per channel of a ``CHW`` (or ``NCHW``)
    tensor;   dx = dy / std

    ``mean`` and ``std``: one number, or one per channel.
    """

    defaults = {'mean': 0.0, 'std': 1.0}

    def forward(self, xp, data):
        _check_image('normalize', data, '(C, H, W)')
        y, self.std = imaging.normalize(
            xp, data, self.attrs['mean'], self.attrs['std'], 'image.normalize'
        )
        return y

    def backward(self, xp, dy):
        return dy / self.std


class _Flip(_Image):
    """Reverse one spatial axis; the gradient is ``dy`` reversed back."""

    axis = None

    def forward(self, xp, data):
        _check_image(self.name[len('_image_') :], data)
        return xp.flip(data, axis=self.axis).copy()

    def backward(self, xp, dy):
        return xp.flip(dy, axis=self.axis).copy()


@register('_image_flip_left_right')
class FlipLeftRight(_Flip):
    """y[h, w] = x[h, W - 1 - w] (mirror: the width axis reversed)."""

    axis = -2


@register('_image_flip_top_bottom')
class FlipTopBottom(_Flip):
    """y[h, w] = x[H - 1 - h, w] (the height axis reversed)."""

    axis = -3


@register('_image_crop')
class Crop(_Image):
    """The ``width x height`` window whose top-left corner is ``(x, y)``;
    dx = dy inside the window, 0 elsewhere."""

    defaults = {'x': None, 'y': None, 'width': None, 'height': None}

    def _window(self, shape):
        names = ('x', 'y', 'width', 'height')
        if any(self.attrs[n] is None for n in names):
            raise DLBookError(
                'image.crop needs x, y, width and height, e.g. '
                'nd.image.crop(img, x=0, y=0, width=32, height=32)'
            )
        x, y, width, height = (int(self.attrs[n]) for n in names)
        rows, cols = shape[-3], shape[-2]
        if min(x, y) < 0 or width < 1 or height < 1:
            raise DLBookError(
                f'image.crop: x={x}, y={y} must be >= 0 and width={width}, '
                f'height={height} positive'
            )
        if x + width > cols or y + height > rows:
            raise DLBookError(
                f'image.crop: the window x={x}, y={y}, width={width}, '
                f'height={height} leaves the image of shape {tuple(shape)}'
            )
        return x, y, width, height

    def forward(self, xp, data):
        _check_image('crop', data)
        self.window = self._window(data.shape)
        self.in_shape = data.shape
        return imaging.crop(data, *self.window)

    def backward(self, xp, dy):
        x, y, width, height = self.window
        dx = xp.zeros(self.in_shape, dtype=dy.dtype)
        dx[..., y : y + height, x : x + width, :] = dy
        return dx


@register('_image_resize')
class Resize(_Undifferentiable):
    """Bilinear (``interp=1``) or nearest-neighbour (``interp=0``) resize
    to ``size``: ``(width, height)``, or one int for a square (with
    ``keep_ratio``, the shorter side).  Integer images are rounded back
    to their dtype."""

    defaults = {'size': None, 'keep_ratio': False, 'interp': 1}

    def forward(self, xp, data):
        _check_image('resize', data)
        size = self.attrs['size']
        if size is None or size == ():
            raise DLBookError('image.resize needs size=(width, height)')
        height, width = data.shape[-3], data.shape[-2]
        if isinstance(size, numbers.Integral) or len(size) == 1:
            side = int(size if isinstance(size, numbers.Integral) else size[0])
            new = (side, side)
            if self.attrs['keep_ratio'] in (True, 'True', 1):
                if height > width:
                    new = (side, int(side * height / width))
                else:
                    new = (int(side * width / height), side)
        else:
            new = (int(size[0]), int(size[1]))
        return imaging.resize(xp, data, *new, int(self.attrs['interp']))


class _Color(_Undifferentiable):
    """A colour change computed in floating point, then returned to the
    input's dtype (rounded and saturated for integers)."""

    def forward(self, xp, data):
        _check_image(self.name[len('_image_') :], data)
        out = self.adjust(xp, imaging.as_float(data), _host_rng())
        return imaging.saturate(xp, out, data.dtype)


@register('_image_adjust_lighting')
class AdjustLighting(_Color):
    """AlexNet's PCA lighting: ``y = x + V (alpha * lambda)`` per pixel,
    ``V``, ``lambda`` the eigenvectors and eigenvalues of ImageNet's RGB
    covariance, ``alpha`` three numbers."""

    defaults = {'alpha': None}

    def adjust(self, xp, img, rng):
        alpha = self.attrs['alpha']
        if alpha is None or len(alpha) != 3:
            raise DLBookError(
                f'image.adjust_lighting needs alpha, three numbers; '
                f'got {alpha!r}'
            )
        return imaging.adjust_lighting(xp, img, [float(a) for a in alpha])


@register('_image_random_lighting')
class RandomLighting(_Color):
    """``adjust_lighting`` with ``alpha`` drawn from N(0, alpha_std^2)."""

    defaults = {'alpha_std': 0.05}

    def adjust(self, xp, img, rng):
        alphas = rng.normal(0, float(self.attrs['alpha_std']), 3)
        return imaging.adjust_lighting(xp, img, alphas)


class _RandomFactor(_Color):
    """A colour change by a factor drawn uniformly from
    ``[min_factor, max_factor]``."""

    defaults = {'min_factor': None, 'max_factor': None}
    change = None  # the function of dlbook/_imaging/ops.py

    def adjust(self, xp, img, rng):
        lo, hi = self.attrs['min_factor'], self.attrs['max_factor']
        if lo is None or hi is None:
            raise DLBookError(
                f'image.{self.name[len("_image_") :]} needs min_factor and '
                f'max_factor'
            )
        return type(self).change(xp, img, rng.uniform(float(lo), float(hi)))


@register('_image_random_brightness')
class RandomBrightness(_RandomFactor):
    """y = x * a, a ~ U[min_factor, max_factor]."""

    change = staticmethod(imaging.adjust_brightness)


@register('_image_random_contrast')
class RandomContrast(_RandomFactor):
    """y = a x + (1 - a) mean grey level, a ~ U[min_factor, max_factor]."""

    change = staticmethod(imaging.adjust_contrast)


@register('_image_random_saturation')
class RandomSaturation(_RandomFactor):
    """y = a x + (1 - a) grey(x) per pixel, a ~ U[min_factor,
    max_factor]."""

    change = staticmethod(imaging.adjust_saturation)


@register('_image_random_hue')
class RandomHue(_RandomFactor):
    """The hue turned by ``a * 180`` degrees (in YIQ space), a ~
    U[min_factor, max_factor]."""

    change = staticmethod(imaging.adjust_hue)


@register('_image_random_color_jitter')
class RandomColorJitter(_Color):
    """Brightness, contrast, saturation and hue changes of random
    strength, in random order (as ``transforms.RandomColorJitter``)."""

    defaults = {'brightness': 0, 'contrast': 0, 'saturation': 0, 'hue': 0}

    def adjust(self, xp, img, rng):
        a = self.attrs
        strengths = (a['brightness'], a['contrast'], a['saturation'], a['hue'])
        return imaging.color_jitter(xp, img, rng, *map(float, strengths))


class _RandomFlip(_Undifferentiable):
    """Flip with probability ``p`` (0.5), else copy."""

    defaults = {'p': 0.5}
    axis = None

    def forward(self, xp, data):
        _check_image(self.name[len('_image_') :], data)
        if _host_rng().random_sample() < float(self.attrs['p']):
            return xp.flip(data, axis=self.axis).copy()
        return data.copy()


@register('_image_random_flip_left_right')
class RandomFlipLeftRight(_RandomFlip):
    """``flip_left_right`` with probability ``p``."""

    axis = -2


@register('_image_random_flip_top_bottom')
class RandomFlipTopBottom(_RandomFlip):
    """``flip_top_bottom`` with probability ``p``."""

    axis = -3
