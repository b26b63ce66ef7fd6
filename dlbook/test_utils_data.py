"""``mx.test_utils.get_mnist()``: all of MNIST as NumPy arrays.

The classic MXNet tutorials (Module API, ``NDArrayIter``) start with::

    mnist = mx.test_utils.get_mnist()
    train_iter = mx.io.NDArrayIter(mnist['train_data'],
                                   mnist['train_label'], 100, shuffle=True)

The files are found or downloaded like ``gluon.data.vision.MNIST``'s
(``path``, ``$DLBOOK_DATA``, ``~/.dlbook/datasets/mnist``).
"""

__all__ = ['get_mnist']

import numpy

from . import _datafiles as files
from ._datafiles import read_idx
from .gluon.data.vision.datasets import MNIST


def _read(prefix, root):
    names = (
        f'{prefix}-images-idx3-ubyte.gz',
        f'{prefix}-labels-idx1-ubyte.gz',
    )
    remotes = [
        files.RemoteFile(
            n, MNIST._files[n], tuple(m + n for m in MNIST._mirrors)
        )
        for n in names
    ]
    paths = files.find_or_download('mnist', remotes, root)
    images = read_idx(paths[names[0]], 3)
    labels = read_idx(paths[names[1]], 1)
    images = images.reshape(images.shape[0], 1, 28, 28)
    return (images.astype(numpy.float32) / 255, labels.view(numpy.int8))


def get_mnist(path=None, root=None):
    """Load MNIST as NumPy arrays (MXNet's ``test_utils.get_mnist``).

    Parameters
    ----------
    path : str, optional
        Folder holding (or to receive) the ``*-ubyte.gz`` files.  MXNet
        downloads into ``./data``; dlbook searches ``path``, then
        ``$DLBOOK_DATA/mnist`` and ``~/.dlbook/datasets/mnist``.
    root : str, optional
        Same as ``path`` (the name the vision data sets use).

    Returns
    -------
    dict
        ``train_data`` (60000, 1, 28, 28) and ``test_data``
        (10000, 1, 28, 28), float32 in [0, 1]; ``train_label`` (60000,)
        and ``test_label`` (10000,), int8 as MXNet reads them.
    """
    path = root if path is None else path
    train_data, train_label = _read('train', path)
    test_data, test_label = _read('t10k', path)
    return {
        'train_data': train_data,
        'train_label': train_label,
        'test_data': test_data,
        'test_label': test_label,
    }
