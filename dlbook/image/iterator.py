"""``ImageIter``: an ``mx.io`` data iterator over image files or a RecordIO
file, with augmentation.

Where the images come from
--------------------------
- an image list file (``path_imglist``, MXNet's ``.lst`` format written
  by ``im2rec.py``): one line per image, tab-separated,
  ``index<TAB>label[<TAB>label...]<TAB>relative/path.jpg``, the paths
  relative to ``path_root``;
- a Python list (``imglist``): ``[[label, 'path.jpg'], ...]`` or
  ``[[label1, label2, ..., 'path.jpg'], ...]``;
- a RecordIO file (``path_imgrec``, ``.rec``): records made by
  ``mx.recordio.pack(header, encoded_image_bytes)`` or ``pack_img``, the
  label in the header.  With its index (``path_imgidx``, ``.idx``) the
  records can be shuffled and partitioned; without it they are read in
  file order.

Every image is decoded with :func:`~dlbook.image.imdecode` (RGB,
``uint8``), passed through the augmenter list (by default
``CreateAugmenter(data_shape, **kwargs)``), transposed from ``HWC`` to
``CHW`` and stored into a float32 batch of shape
``(batch_size,) + data_shape``.  (``recordio.unpack_img`` would give BGR,
OpenCV's order; ``ImageIter`` does not use it.)

The end of an epoch
-------------------
``last_batch_handle`` decides what happens when the images do not fill
the last batch, exactly as in MXNet:

- ``'pad'`` (default): fill it with images from the start and set
  ``batch.pad`` to how many were added;
- ``'discard'``: drop it;
- ``'roll_over'``: stop the epoch, and start the first batch of the next
  epoch (after ``reset()``) with the leftover images.  That batch keeps
  ``pad`` = the number of images it was short of at the end of the
  previous epoch, as MXNet reports it.
"""

__all__ = ['ImageIter']

import logging
import numbers
import os

import numpy

from .. import ndarray as nd
from .. import random as _random
from .. import recordio
from ..base import DLBookError
from ..context import cpu
from ..io.io import DataBatch, DataIter
from ..ndarray.ndarray import NDArray, from_raw
from .create import CreateAugmenter
from .io import imdecode

_LABEL_DTYPES = ('int32', 'float32', 'int64', 'float64')
_LAST_BATCH = ('pad', 'discard', 'roll_over')


def _label_array(values, dtype):
    """Labels as an NDArray of ``dtype`` on cpu(0) (numbers or strings
    such as ``'3'`` and ``'1.5'``)."""
    values = numpy.asarray([float(v) for v in values], dtype=numpy.float64)
    return from_raw(values.astype(dtype), cpu(0))


def _read_imglist_file(path, dtype):
    """Parse a ``.lst`` file into ``({index: (label, path)}, [index...])``."""
    imglist, keys = {}, []
    with open(path) as fin:
        for number, line in enumerate(fin, start=1):
            fields = line.strip().split('\t')
            if fields == ['']:
                continue  # blank line
            try:
                if len(fields) < 3:
                    raise ValueError('too few fields')
                key = int(fields[0])
                label = _label_array(fields[1:-1], dtype)
            except ValueError as err:
                raise DLBookError(
                    f'{path}, line {number}: expected '
                    f"'index<TAB>label[<TAB>label...]<TAB>path', got "
                    f'{line.rstrip()!r} ({err})'
                ) from None
            imglist[key] = (label, fields[-1])
            keys.append(key)
    return imglist, keys


def _read_imglist(items, dtype):
    """Index a Python list ``[[label(s)..., path], ...]`` with keys
    ``'1'``, ``'2'``, ... as MXNet does."""
    imglist, keys = {}, []
    for index, item in enumerate(items, start=1):
        if len(item) < 2:
            raise DLBookError(
                f'imglist item {index - 1} must be '
                f'[label, path] or [label1, ..., path], got '
                f'{item!r}'
            )
        if len(item) > 2:
            label = _label_array(item[:-1], dtype)
        elif isinstance(item[0], numbers.Number):
            label = _label_array([item[0]], dtype)
        else:
            label = item[0]
            if isinstance(label, NDArray):
                label = label.asnumpy()
            label = _label_array(numpy.asarray(label).reshape(-1), dtype)
        key = str(index)
        imglist[key] = (label, item[-1])
        keys.append(key)
    return imglist, keys


class ImageIter(DataIter):
    """Image data iterator with augmentation, reading ``.lst`` + image
    files or a RecordIO ``.rec`` file (see the module documentation).

    Parameters
    ----------
    batch_size : int
        Images per batch.
    data_shape : tuple of int
        ``(3, height, width)``: every augmented image must have this shape
        (only 3-channel images are supported, as in MXNet).
    label_width : int, default 1
        Labels per image; the label batch is ``(batch_size,)`` for 1,
        ``(batch_size, label_width)`` otherwise.
    path_imgrec : str, optional
        RecordIO file of packed images.
    path_imglist : str, optional
        Image list file (``.lst``).
    path_root : str, optional
        Folder the image paths are relative to.
    path_imgidx : str, optional
        Index file of ``path_imgrec``; needed to shuffle or partition it.
    shuffle : bool, default False
        Shuffle the images at every ``reset()``.
    part_index, num_parts : int, default 0, 1
        Read only part ``part_index`` of ``num_parts`` equal parts (for
        distributed training).
    aug_list : list of Augmenter, optional
        The augmenters; default ``CreateAugmenter(data_shape, **kwargs)``.
    imglist : list, optional
        ``[[label(s)..., path], ...]`` instead of a list file.
    data_name, label_name : str, default 'data', 'softmax_label'
        Names in ``provide_data`` / ``provide_label``.
    dtype : str, default 'float32'
        Type in which labels are parsed (``'int32'``, ``'float32'``,
        ``'int64'``, ``'float64'``); the label batch is float32, as in
        MXNet.
    last_batch_handle : {'pad', 'discard', 'roll_over'}, default 'pad'
    **kwargs
        Passed to :func:`~dlbook.image.CreateAugmenter` (``resize=``,
        ``rand_crop=``, ``rand_mirror=``, ``mean=``, ...) when
        ``aug_list`` is None.

    Attributes
    ----------
    provide_data, provide_label : list of (str, tuple)
        ``[('data', (batch_size, 3, h, w))]`` and
        ``[('softmax_label', (batch_size,))]``.
    auglist : list of Augmenter

    Examples
    --------
    >>> it = mx.image.ImageIter(batch_size=4, data_shape=(3, 224, 224),
    ...                         path_imglist='train.lst', path_root='images',
    ...                         resize=256, rand_crop=True, rand_mirror=True)
    >>> batch = it.next()
    >>> batch.data[0].shape, batch.label[0].shape
    ((4, 3, 224, 224), (4,))
    """

    def __init__(
        self,
        batch_size,
        data_shape,
        label_width=1,
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
        label_name='softmax_label',
        dtype='float32',
        last_batch_handle='pad',
        **kwargs,
    ):
        super().__init__()
        if not (path_imgrec or path_imglist or isinstance(imglist, list)):
            raise ValueError(
                'ImageIter needs images: give path_imgrec (a '
                '.rec file), path_imglist (a .lst file) or '
                'imglist (a list of [label, path])'
            )
        if dtype not in _LABEL_DTYPES:
            raise ValueError(
                f'{dtype} label not supported; use one of '
                f'{", ".join(_LABEL_DTYPES)}'
            )
        if last_batch_handle not in _LAST_BATCH:
            raise ValueError(
                f'last_batch_handle must be one of '
                f'{", ".join(_LAST_BATCH)}; got '
                f'{last_batch_handle!r}'
            )
        class_name = type(self).__name__
        if path_imgrec:
            logging.info('%s: loading recordio %s...', class_name, path_imgrec)
            if path_imgidx:
                self.imgrec = recordio.MXIndexedRecordIO(
                    path_imgidx, path_imgrec, 'r'
                )
                self.imgidx = list(self.imgrec.keys)
            else:
                self.imgrec = recordio.MXRecordIO(path_imgrec, 'r')
                self.imgidx = None
        else:
            self.imgrec = None

        imgkeys = None
        if path_imglist:
            logging.info(
                '%s: loading image list %s...', class_name, path_imglist
            )
            self.imglist, imgkeys = _read_imglist_file(path_imglist, dtype)
        elif isinstance(imglist, list):
            logging.info('%s: loading image list...', class_name)
            self.imglist, imgkeys = _read_imglist(imglist, dtype)
        else:
            self.imglist = None
        self.path_root = path_root

        data_shape = tuple(data_shape)
        self.check_data_shape(data_shape)
        self.provide_data = [(data_name, (batch_size,) + data_shape)]
        if label_width > 1:
            self.provide_label = [(label_name, (batch_size, label_width))]
        else:
            self.provide_label = [(label_name, (batch_size,))]
        self.batch_size = batch_size
        self.data_shape = data_shape
        self.label_width = label_width
        self.shuffle = shuffle
        if self.imgrec is None:
            self.seq = imgkeys
        elif shuffle or num_parts > 1 or path_imgidx:
            if self.imgidx is None:
                raise ValueError(
                    'shuffle=True and num_parts > 1 need '
                    'path_imgidx, the .idx file of the .rec '
                    'file, to find the records'
                )
            self.seq = self.imgidx
        else:
            self.seq = None

        if num_parts > 1:
            if not 0 <= part_index < num_parts:
                raise ValueError(
                    f'part_index must be in [0, num_parts), got '
                    f'part_index={part_index}, '
                    f'num_parts={num_parts}'
                )
            part = len(self.seq) // num_parts
            self.seq = self.seq[part_index * part : (part_index + 1) * part]
        if aug_list is None:
            self.auglist = CreateAugmenter(data_shape, **kwargs)
        else:
            self.auglist = aug_list
        self.cur = 0
        self._allow_read = True
        self.last_batch_handle = last_batch_handle
        self.num_image = len(self.seq) if self.seq is not None else None
        self._cache_data = None
        self._cache_label = None
        self._cache_idx = None
        self._source = None
        self.reset()

    # -- epochs ---------------------------------------------------------------
    def reset(self):
        """Start a new epoch (shuffling first if ``shuffle``).  With
        ``'roll_over'`` and leftover images, reading continues where it
        stopped so they start the next batch."""
        if self.seq is not None and self.shuffle:
            _random.numpy_rng().shuffle(self.seq)
        if self.last_batch_handle != 'roll_over' or self._cache_data is None:
            if self.imgrec is not None:
                self.imgrec.reset()
            self.cur = 0
            self._allow_read = True

    def hard_reset(self):
        """Start a new epoch and forget any rolled-over images."""
        if self.seq is not None and self.shuffle:
            _random.numpy_rng().shuffle(self.seq)
        if self.imgrec is not None:
            self.imgrec.reset()
        self.cur = 0
        self._allow_read = True
        self._cache_data = None
        self._cache_label = None
        self._cache_idx = None

    # -- reading one image ----------------------------------------------------
    def next_sample(self):
        """The next ``(label, encoded image bytes)``; ``StopIteration`` at
        the end of the images (rewinding unless ``'discard'``)."""
        if self._allow_read is False:
            raise StopIteration
        if self.seq is not None:
            if self.cur < self.num_image:
                idx = self.seq[self.cur]
            else:
                if self.last_batch_handle != 'discard':
                    self.cur = 0
                raise StopIteration
            self.cur += 1
            if self.imgrec is not None:
                self._source = f'index: {idx}'
                header, img = recordio.unpack(self.imgrec.read_idx(idx))
                if self.imglist is None:
                    return header.label, img
                return self.imglist[idx][0], img
            label, fname = self.imglist[idx]
            self._source = f'filename: {fname}'
            return label, self.read_image(fname)
        record = self.imgrec.read()
        if record is None:
            if self.last_batch_handle != 'discard':
                self.imgrec.reset()
            raise StopIteration
        self._source = f'a record of {self.imgrec.uri}'
        header, img = recordio.unpack(record)
        return header.label, img

    def read_image(self, fname):
        """The bytes of image file ``fname`` (relative to ``path_root``)."""
        path = os.path.join(self.path_root or '', fname)
        try:
            with open(path, 'rb') as fin:
                return fin.read()
        except FileNotFoundError:
            raise FileNotFoundError(
                f'ImageIter: image file {path!r} not found (path_root='
                f'{self.path_root!r}, path in the list: {fname!r})'
            ) from None

    def imdecode(self, s):
        """Decode image bytes with :func:`~dlbook.image.imdecode`; a
        broken image raises an error naming it."""
        try:
            return imdecode(s)
        except Exception as err:
            raise DLBookError(f'Broken image {self._source}, {err}') from err

    def check_data_shape(self, data_shape):
        """``data_shape`` must be ``(3, height, width)``."""
        if not len(data_shape) == 3:
            raise ValueError(
                'data_shape should have length 3, with dimensions CxHxW'
            )
        if not data_shape[0] == 3:
            raise ValueError(
                'This iterator expects inputs to have 3 channels.'
            )

    def check_valid_image(self, data):
        """Refuse empty images (they are skipped)."""
        if data is None or data.ndim != 3 or data.size == 0:
            raise RuntimeError('Data shape is wrong')

    def augmentation_transform(self, data):
        """Apply every augmenter of ``auglist`` in order."""
        for aug in self.auglist:
            data = aug(data)
        return data

    def postprocess_data(self, datum):
        """``HWC`` -> ``CHW``, the last step before batching."""
        return datum.transpose((2, 0, 1))

    # -- batches --------------------------------------------------------------
    def _store(self, batch_data, batch_label, i, datum, label):
        if datum.shape != self.data_shape:
            raise DLBookError(
                f'ImageIter: the augmented image ({self._source}) has shape '
                f'{datum.shape} after postprocess_data, but data_shape is '
                f'{self.data_shape}; the augmenters must produce images of '
                f'that size (CreateAugmenter crops to it)'
            )
        batch_data[i] = datum
        if isinstance(label, NDArray):
            label = label.asnumpy()
        values = numpy.asarray(label, dtype=numpy.float32).reshape(-1)
        if values.size not in (1, self.label_width):
            raise DLBookError(
                f'ImageIter: the label of {self._source} has '
                f'{values.size} values but label_width is '
                f'{self.label_width}'
            )
        row = values[0] if self.label_width == 1 else values
        batch_label[i] = row

    def _batchify(self, batch_data, batch_label, start=0):
        """Fill the batch from position ``start``; return how many
        positions are filled (``StopIteration`` if none could be)."""
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
                data = self.augmentation_transform(data)
                self._store(
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

    def next(self):
        """The next :class:`~dlbook.io.DataBatch`: ``data`` is
        ``[(batch_size, 3, h, w) float32]``, ``label`` is
        ``[(batch_size,) float32]`` (or ``(batch_size, label_width)``)."""
        batch_size = self.batch_size
        if self._cache_data is not None:  # images rolled over
            batch_data = self._cache_data
            batch_label = self._cache_label
            i = self._cache_idx
        else:
            batch_data = nd.zeros((batch_size,) + self.data_shape)
            batch_label = nd.zeros(self.provide_label[0][1])
            i = self._batchify(batch_data, batch_label)
        pad = batch_size - i
        if pad != 0:
            if self.last_batch_handle == 'discard':
                raise StopIteration
            if (
                self.last_batch_handle == 'roll_over'
                and self._cache_data is None
            ):
                self._cache_data = batch_data
                self._cache_label = batch_label
                self._cache_idx = i
                raise StopIteration
            self._batchify(batch_data, batch_label, i)
            if self.last_batch_handle == 'pad':
                self._allow_read = False
            else:
                self._cache_data = None
                self._cache_label = None
                self._cache_idx = None
        return DataBatch([batch_data], [batch_label], pad=pad)
