"""``ImageRecordIter`` and its variants: MXNet's (C++) iterator over a
RecordIO ``.rec`` file of packed images, here built on
:class:`~dlbook.image.ImageIter` (decoding, the augmenters, the label
checks) with MXNet's output and epoch behaviour.

Each record is an ``IRHeader`` (the label) plus an encoded image, as
``mx.recordio.pack_img`` or ``im2rec.py`` write it.  An image is decoded
to RGB and goes through, in this order (each step only when asked for):

1. ``resize``: shorter side to ``resize`` pixels (sizes rounded down);
2. ``max_rotate_angle`` / ``rotate``: rotation about the centre by an
   integer angle drawn from ``[-max_rotate_angle, max_rotate_angle]``
   (or exactly ``rotate``), uncovered corners filled with
   ``fill_value``;
3. ``pad``: a border of ``pad`` pixels of ``fill_value``;
4. an image smaller than ``data_shape`` is enlarged (aspect ratio kept)
   until it covers it;
5. a ``data_shape`` crop, random with ``rand_crop``, else central;
6. ``mirror`` (always) or ``rand_mirror`` (probability 0.5) flips it;
7. float variants only: ``brightness``/``contrast``/``saturation``
   jitter, ``pca_noise`` lighting, then
   ``(pixel - mean_c) * scale / std_c`` per RGB channel.

Batches are ``NCHW``: float32 for ``ImageRecordIter``, uint8 for
``ImageRecordUInt8Iter``, int8 (pixels above 127 saturate to 127) for
``ImageRecordInt8Iter``; labels are float32 ``(batch_size,)`` or
``(batch_size, label_width)``.

The end of an epoch (``round_batch``)
-------------------------------------
With ``round_batch=True`` (the default) a last, incomplete batch is
completed with the first images of the next pass over the data and
``batch.pad`` says how many; the next epoch then *continues* after those
images, so it is one batch shorter or starts in the middle, exactly as
MXNet's.  With ``round_batch=False`` the missing rows are zeros.

Order and partitions
--------------------
Records are read in file order.  ``shuffle=True`` shuffles them at every
pass (with a ``numpy.random.RandomState(seed)`` of the iterator's own)
and needs the index file ``path_imgidx``.  ``num_parts``/``part_index``
split the records into ``num_parts`` consecutive parts of
``ceil(n / num_parts)`` records (the last one shorter), as MXNet's
indexed reader does.

Accepted and ignored (threads and buffers of MXNet's C++ reader):
``preprocess_threads``, ``prefetch_buffer``, ``verbose``, ``ctx``,
``device_id``, ``shuffle_chunk_size``, ``shuffle_chunk_seed``,
``seed_aug``, ``aug_seq='aug_default'``.  Parameters of augmentations
dlbook does not implement (``max_shear_ratio``, ``random_resized_crop``,
``random_h``...) raise an error when set.
"""

__all__ = [
    'ImageRecordIter',
    'ImageRecordUInt8Iter',
    'ImageRecordIter_v1',
    'ImageRecordUInt8Iter_v1',
    'ImageRecordInt8Iter',
]

import numpy

from .. import ndarray as nd
from .. import random as _random
from .. import recordio
from ..base import DLBookError
from ..image.augmenter import (
    Augmenter,
    CastAug,
    CenterCropAug,
    HorizontalFlipAug,
    RandomCropAug,
    ResizeAug,
)
from ..image.color import ColorJitterAug, ColorNormalizeAug, LightingAug
from ..image.create import PCA_EIGVAL, PCA_EIGVEC
from ..image.iterator import ImageIter
from ..image.rotate import imrotate
from ..image.transforms import copyMakeBorder, imresize
from .io import DataBatch, DataDesc

# Parameters of MXNet's reader that change nothing here.
_IGNORED = {
    'preprocess_threads': 4,
    'prefetch_buffer': 4,
    'verbose': True,
    'ctx': 'gpu',
    'device_id': 0,
    'shuffle_chunk_size': 0,
    'shuffle_chunk_seed': 0,
    'seed_aug': None,
    'aug_seq': 'aug_default',
}

# MXNet parameters dlbook does not implement, with their defaults: a
# value other than the default is refused.
_UNSUPPORTED = {
    'path_imglist': '',
    'random_resized_crop': False,
    'max_aspect_ratio': 0.0,
    'min_aspect_ratio': None,
    'max_shear_ratio': 0.0,
    'max_crop_size': -1,
    'min_crop_size': -1,
    'max_random_scale': 1.0,
    'min_random_scale': 1.0,
    'max_random_area': 1.0,
    'min_random_area': 1.0,
    'max_img_size': 1e10,
    'min_img_size': 0.0,
    'random_h': 0,
    'random_s': 0,
    'random_l': 0,
    'mean_img': '',
    'mean_a': 0.0,
    'std_a': 1.0,
    'max_random_contrast': 0.0,
    'max_random_illumination': 0.0,
}

# Normalisation parameters (float variants only), with their defaults.
_NORMALISE = {
    'mean_r': 0.0,
    'mean_g': 0.0,
    'mean_b': 0.0,
    'std_r': 1.0,
    'std_g': 1.0,
    'std_b': 1.0,
    'scale': 1.0,
    'brightness': 0.0,
    'contrast': 0.0,
    'saturation': 0.0,
    'pca_noise': 0.0,
}


class _RotateAug(Augmenter):
    """Rotate an ``HWC`` image about its centre by ``rotate`` degrees, or
    by a random integer angle in ``[-max_angle, max_angle]``, through
    :func:`~dlbook.image.imrotate`; what the rotation uncovers becomes
    ``fill_value``."""

    def __init__(self, max_angle, rotate, fill_value):
        super().__init__(
            max_angle=max_angle, rotate=rotate, fill_value=fill_value
        )
        self.max_angle = max_angle
        self.rotate = rotate
        self.fill_value = fill_value

    def __call__(self, src):
        if self.rotate > 0:
            angle = self.rotate
        else:
            rng = _random.numpy_rng()
            angle = int(rng.randint(-self.max_angle, self.max_angle + 1))
        dtype = src.dtype
        chw = src.astype('float32').transpose((2, 0, 1))
        out = imrotate(chw, angle)
        ones = nd.ones((1,) + chw.shape[1:], ctx=src.context)
        covered = imrotate(ones, angle)
        out = out + self.fill_value * (1 - covered)
        out = out.transpose((1, 2, 0))
        if numpy.dtype(dtype).kind in 'iu':
            out = out.round().clip(0, 255)
        return out.astype(dtype)


class _PadAug(Augmenter):
    """A constant border of ``pad`` pixels of ``fill_value``."""

    def __init__(self, pad, fill_value):
        super().__init__(pad=pad, fill_value=fill_value)
        self.pad = pad
        self.fill_value = fill_value

    def __call__(self, src):
        p = self.pad
        return copyMakeBorder(src, p, p, p, p, type=0, value=self.fill_value)


class _CoverAug(Augmenter):
    """Enlarge an image smaller than ``(height, width)`` (aspect ratio
    kept, sizes rounded down) until it covers that size."""

    def __init__(self, height, width, interp):
        super().__init__(height=height, width=width, interp=interp)
        self.height = height
        self.width = width
        self.interp = interp

    def __call__(self, src):
        h, w = src.shape[:2]
        if h >= self.height and w >= self.width:
            return src
        s = max(self.height / h, self.width / w)
        new_h = max(self.height, int(h * s))
        new_w = max(self.width, int(w * s))
        return imresize(src, new_w, new_h, interp=self.interp)


def _number(name, value, kind=float):
    try:
        return kind(value)
    except (TypeError, ValueError):
        raise DLBookError(
            f'ImageRecordIter: {name} must be a number, got {value!r}'
        ) from None


class ImageRecordIter(ImageIter):
    """Iterate over a RecordIO ``.rec`` file of images in ``NCHW`` float32
    batches, with MXNet's augmentation parameters (see the module
    documentation for the order of the steps and the epoch rules).

    Parameters
    ----------
    path_imgrec : str
        The ``.rec`` file.
    data_shape : tuple of int
        ``(3, height, width)`` of every output image.
    batch_size : int
    label_width : int, default 1
    path_imgidx : str, optional
        The ``.idx`` file; needed for ``shuffle``.
    shuffle : bool, default False
    seed : int, default 0
        Seed of the shuffling.
    round_batch : bool, default True
    num_parts, part_index : int, default 1, 0
    resize : int, default -1
        Shorter side first resized to this (-1: no resize).
    rand_crop, rand_mirror, mirror : bool, default False
    max_rotate_angle : int, default 0
    rotate : int, default -1
        A fixed angle (> 0) instead of a random one.
    fill_value : int, default 255
    pad : int, default 0
    inter_method : int, default 1
        Interpolation code (``help(mx.image.transforms)``); 1 bilinear.
    mean_r, mean_g, mean_b, std_r, std_g, std_b, scale : float
        ``(pixel - mean) * scale / std`` per channel (defaults 0, 1, 1).
    brightness, contrast, saturation, pca_noise : float, default 0
    data_name, label_name : str, default 'data', 'softmax_label'
    dtype : None or 'float32'

    Examples
    --------
    >>> it = mx.io.ImageRecordIter(path_imgrec='train.rec',
    ...                            data_shape=(3, 224, 224), batch_size=32,
    ...                            resize=256, rand_crop=True,
    ...                            rand_mirror=True)
    >>> batch = it.next()
    >>> batch.data[0].shape
    (32, 3, 224, 224)
    """

    _out_dtype = 'float32'

    def __init__(
        self,
        path_imgrec=None,
        data_shape=None,
        batch_size=None,
        label_width=1,
        path_imgidx=None,
        shuffle=False,
        seed=0,
        round_batch=True,
        num_parts=1,
        part_index=0,
        resize=-1,
        rand_crop=False,
        rand_mirror=False,
        mirror=False,
        max_rotate_angle=0,
        rotate=-1,
        fill_value=255,
        pad=0,
        inter_method=1,
        data_name='data',
        label_name='softmax_label',
        dtype=None,
        **kwargs,
    ):
        name = type(self).__name__
        if not path_imgrec:
            raise DLBookError(f'{name}: path_imgrec (a .rec file) is required')
        if data_shape is None or batch_size is None:
            raise DLBookError(
                f'{name}: data_shape and batch_size are required'
            )
        data_shape = tuple(int(d) for d in data_shape)
        if len(data_shape) != 3 or data_shape[0] != 3:
            raise DLBookError(
                f'{name}: data_shape must be (3, height, width), got '
                f'{data_shape}'
            )
        batch_size = _number('batch_size', batch_size, int)
        if batch_size < 1:
            raise DLBookError(
                f'{name}: batch_size must be >= 1, got {batch_size}'
            )
        num_parts = _number('num_parts', num_parts, int)
        part_index = _number('part_index', part_index, int)
        if num_parts < 1 or not 0 <= part_index < num_parts:
            raise DLBookError(
                f'{name}: part_index must be in [0, num_parts), got '
                f'part_index={part_index}, num_parts={num_parts}'
            )
        if shuffle and not path_imgidx:
            raise DLBookError(
                f'{name}: shuffle=True needs path_imgidx, the .idx file of '
                f'{path_imgrec}'
            )
        if dtype not in (None, 'float32', self._out_dtype):
            raise DLBookError(
                f'{name}: dtype {dtype!r} is not supported; the batches '
                f'are {self._out_dtype}'
            )
        normalise = {}
        for key, value in kwargs.items():
            if key in _IGNORED:
                continue
            if key in _NORMALISE:
                normalise[key] = _number(key, value)
                if (
                    self._out_dtype != 'float32'
                    and normalise[key] != _NORMALISE[key]
                ):
                    raise DLBookError(
                        f'{name}: {key} is a parameter of ImageRecordIter '
                        f'(float32 batches); {name} gives raw '
                        f'{self._out_dtype} pixels'
                    )
            elif key in _UNSUPPORTED:
                if value != _UNSUPPORTED[key]:
                    raise DLBookError(
                        f'{name}: parameter {key}={value!r} is not '
                        f'supported by dlbook'
                    )
            else:
                raise DLBookError(f'{name}: unknown parameter {key!r}')
        settings = dict(_NORMALISE, **normalise)

        height, width = data_shape[1:]
        augs = []
        if resize is not None and int(resize) > 0:
            augs.append(ResizeAug(int(resize), inter_method))
        if max_rotate_angle > 0 or rotate > 0:
            augs.append(_RotateAug(int(max_rotate_angle), rotate, fill_value))
        if pad > 0:
            augs.append(_PadAug(int(pad), fill_value))
        augs.append(_CoverAug(height, width, inter_method))
        if rand_crop:
            augs.append(RandomCropAug((width, height), inter_method))
        else:
            augs.append(CenterCropAug((width, height), inter_method))
        if mirror:
            augs.append(HorizontalFlipAug(1.0))
        elif rand_mirror:
            augs.append(HorizontalFlipAug(0.5))
        if self._out_dtype == 'float32':
            augs.append(CastAug())
            jitter = [
                settings[k] for k in ('brightness', 'contrast', 'saturation')
            ]
            if any(jitter):
                augs.append(ColorJitterAug(*jitter))
            if settings['pca_noise'] > 0:
                augs.append(
                    LightingAug(
                        settings['pca_noise'],
                        PCA_EIGVAL.copy(),
                        PCA_EIGVEC.copy(),
                    )
                )
            mean = [settings[k] for k in ('mean_r', 'mean_g', 'mean_b')]
            std = [settings[k] for k in ('std_r', 'std_g', 'std_b')]
            if settings['scale'] == 0 or 0 in std:
                raise DLBookError(
                    f'{name}: scale and std_r/std_g/std_b must not be 0'
                )
            if any(mean) or std != [1.0] * 3 or settings['scale'] != 1:
                augs.append(
                    ColorNormalizeAug(
                        nd.array(mean),
                        nd.array([s / settings['scale'] for s in std]),
                    )
                )

        self.round_batch = bool(round_batch)
        self._rng = numpy.random.RandomState(_number('seed', seed, int))
        self._ready = False
        super().__init__(
            batch_size,
            data_shape,
            label_width=label_width,
            path_imgrec=path_imgrec,
            path_imgidx=path_imgidx,
            shuffle=False,
            aug_list=augs,
            data_name=data_name,
            label_name=label_name,
        )
        self.shuffle = bool(shuffle)
        self.provide_data = [
            DataDesc(
                data_name,
                (batch_size,) + data_shape,
                numpy.dtype(self._out_dtype).type,
            )
        ]
        self.provide_label = [
            DataDesc(label_name, self.provide_label[0][1], numpy.float32)
        ]

        # which records this part reads
        if self.imgidx is not None:
            total = len(self.imgidx)
        elif num_parts > 1:
            total = self._count_records()
        else:
            total = None
        if num_parts > 1:
            step = -(-total // num_parts)
            begin = min(total, part_index * step)
            end = min(total, (part_index + 1) * step)
        else:
            begin, end = 0, total
        self._begin, self._end = begin, end
        self._carry = False
        self._ready = True
        self.reset()

    # -- the records ----------------------------------------------------------
    def _count_records(self):
        self.imgrec.reset()
        count = 0
        while self.imgrec.read() is not None:
            count += 1
        self.imgrec.reset()
        return count

    def _start_pass(self):
        """Go back to the first record of this part (shuffling)."""
        self._pos = 0
        if self.imgidx is not None:
            self._keys = list(self.imgidx[self._begin : self._end])
            if self.shuffle:
                self._rng.shuffle(self._keys)
        else:
            self.imgrec.reset()
            for _ in range(self._begin):
                self.imgrec.read()

    def _read_record(self):
        """``(label, image bytes)`` of the next record, None at the end of
        the pass."""
        if self._end is not None and self._pos >= self._end - self._begin:
            return None
        if self.imgidx is not None:
            key = self._keys[self._pos]
            record = self.imgrec.read_idx(key)
            self._source = f'record {key} of {self.imgrec.uri}'
        else:
            record = self.imgrec.read()
            if record is None:
                return None
            self._source = (
                f'record {self._begin + self._pos} of {self.imgrec.uri}'
            )
        self._pos += 1
        header, img = recordio.unpack(record)
        return header.label, img

    # -- epochs ---------------------------------------------------------------
    def reset(self):
        """Start the next epoch: after a batch completed with images of a
        new pass, continue that pass; otherwise start a new one."""
        if not getattr(self, '_ready', False):
            return
        if not self._carry:
            self._start_pass()
        self._carry = False
        self._epoch_over = False

    def hard_reset(self):
        """Start a new epoch at the first record (after shuffling)."""
        self._carry = False
        self.reset()

    def postprocess_data(self, datum):
        """``HWC`` -> ``CHW`` (and saturation to int8 for the int8
        iterator)."""
        datum = datum.transpose((2, 0, 1))
        if self._out_dtype == 'int8':
            datum = datum.astype('int32').clip(0, 127).astype('int8')
        return datum

    def _fill(self, data, label, start):
        i = start
        while i < self.batch_size:
            sample = self._read_record()
            if sample is None:
                break
            image = self.imdecode(sample[1])
            try:
                self.check_valid_image(image)
            except RuntimeError:
                continue
            image = self.augmentation_transform(image)
            self._store(
                data, label, i, self.postprocess_data(image), sample[0]
            )
            i += 1
        return i

    def next(self):
        """The next :class:`~dlbook.io.DataBatch` (``StopIteration`` at
        the end of the epoch)."""
        if self._epoch_over:
            raise StopIteration
        data = nd.zeros(self.provide_data[0][1], dtype=self._out_dtype)
        label = nd.zeros(self.provide_label[0][1])
        filled = self._fill(data, label, 0)
        if filled == 0:
            self._epoch_over = True
            raise StopIteration
        pad = self.batch_size - filled
        if pad:
            self._epoch_over = True
            if self.round_batch:
                self._start_pass()
                self._fill(data, label, filled)
                self._carry = True
        return DataBatch([data], [label], pad=pad)


class ImageRecordUInt8Iter(ImageRecordIter):
    """:class:`ImageRecordIter` giving the cropped pixels as ``uint8``
    ``NCHW`` batches (no normalisation)."""

    _out_dtype = 'uint8'


class ImageRecordInt8Iter(ImageRecordIter):
    """:class:`ImageRecordIter` giving ``int8`` ``NCHW`` batches: pixels
    above 127 saturate to 127, as in MXNet."""

    _out_dtype = 'int8'


class ImageRecordIter_v1(ImageRecordIter):
    """MXNet's older implementation of :class:`ImageRecordIter`; the same
    iterator here."""


class ImageRecordUInt8Iter_v1(ImageRecordUInt8Iter):
    """MXNet's older implementation of :class:`ImageRecordUInt8Iter`; the
    same iterator here."""
