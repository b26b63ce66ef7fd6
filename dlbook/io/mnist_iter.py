"""``mx.io.MNISTIter``: MXNet's built-in MNIST iterator, in Python.

Older MXNet tutorials feed the Module API with::

    train = mx.io.MNISTIter(image='data/train-images-idx3-ubyte',
                            label='data/train-labels-idx1-ubyte',
                            batch_size=100, flat=True)

Images are scaled to [0, 1] float32, labels are float32, only full
batches are produced, and ``shuffle`` (on by default, as in MXNet) mixes
the examples once, with ``seed``.  A file that is not at the given path
is looked for as ``<path>.gz`` and then, by name, where
``gluon.data.vision.MNIST`` looks (``$DLBOOK_DATA/mnist``, the cache), and
downloaded if need be.
"""

__all__ = ['MNISTIter']

import os

import numpy

from .ndarray_iter import NDArrayIter

# Names the IDX files go by, to the canonical compressed name.
_ALIASES = {
    f'{prefix}-{kind}{sep}idx{dim}-ubyte': f'{prefix}-{kind}-idx{dim}-ubyte.gz'
    for prefix in ('train', 't10k')
    for kind, dim in (('images', 3), ('labels', 1))
    for sep in ('-', '.')
}


def _resolve(path):
    """``path``, ``path.gz``, or the MNIST file of that name."""
    for candidate in (path, path + '.gz'):
        if os.path.isfile(candidate):
            return candidate
    from .. import _datafiles as files
    from ..gluon.data.vision.datasets import MNIST

    base = os.path.basename(path)
    name = _ALIASES.get(base[:-3] if base.endswith('.gz') else base)
    if name is None:
        raise FileNotFoundError(f'MNISTIter: no such file {path!r}')
    remote = files.RemoteFile(
        name, MNIST._files[name], tuple(m + name for m in MNIST._mirrors)
    )
    return files.find_or_download('mnist', [remote])[name]


class MNISTIter(NDArrayIter):
    """Batches of MNIST from IDX files.

    Parameters
    ----------
    image, label : str
        IDX files (plain or ``.gz``).
    batch_size : int, default 128
    shuffle : bool, default True
        Shuffle the examples once, with ``seed``.
    flat : bool, default False
        Images as ``(784,)`` vectors instead of ``(1, 28, 28)``.
    seed : int, default 0
    silent : bool, default False
        Accepted for compatibility.
    num_parts, part_index : int
        Use only part ``part_index`` of ``num_parts`` (distributed jobs).
    data_name, label_name : str
    """

    def __init__(
        self,
        image='./train-images-idx3-ubyte',
        label='./train-labels-idx1-ubyte',
        batch_size=128,
        shuffle=True,
        flat=False,
        seed=0,
        silent=False,
        num_parts=1,
        part_index=0,
        data_name='data',
        label_name='softmax_label',
        **kwargs,
    ):
        from .._datafiles import read_idx

        images = read_idx(_resolve(image), 3)
        labels = read_idx(_resolve(label), 1)
        count = len(labels) // num_parts
        part = slice(part_index * count, (part_index + 1) * count)
        images, labels = images[part], labels[part]
        if shuffle:
            order = numpy.random.RandomState(seed).permutation(len(labels))
            images, labels = images[order], labels[order]
        shape = (
            (-1, images.shape[1] * images.shape[2])
            if flat
            else (-1, 1) + images.shape[1:]
        )
        data = images.reshape(shape).astype(numpy.float32) / 255
        super().__init__(
            data,
            labels.astype(numpy.float32),
            batch_size,
            shuffle=False,
            last_batch_handle='discard',
            data_name=data_name,
            label_name=label_name,
        )
