"""Data helpers of ``mx.test_utils``: MNIST, downloads, ``DummyIter``.

The classic MXNet tutorials (Module API, ``NDArrayIter``) start with::

    mnist = mx.test_utils.get_mnist()
    train_iter = mx.io.NDArrayIter(mnist['train_data'],
                                   mnist['train_label'], 100, shuffle=True)

The files are found or downloaded like ``gluon.data.vision.MNIST``'s
(``path``, ``$DLBOOK_DATA``, ``~/.dlbook/datasets/mnist``).

The older ones (``get_mnist_iterator``, ``get_mnist_ubyte``) want the
uncompressed ``*-ubyte`` files in ``./data``: they are written there from
the same verified ``.gz`` files.  ``download``, ``get_zip_data`` and
``get_bz2_data`` fetch arbitrary URLs for tests; give them the file's
SHA-1 (``sha1_hash=``) and a download that does not match is discarded.
"""

__all__ = [
    'get_mnist',
    'get_mnist_ubyte',
    'get_mnist_iterator',
    'download',
    'get_zip_data',
    'get_bz2_data',
    'DummyIter',
]

import bz2
import gzip
import logging
import os
import shutil
import zipfile

import numpy

from . import _datafiles as files
from . import _download
from ._atomic import atomic_write
from ._datafiles import read_idx
from .gluon.data.vision.datasets import MNIST
from .io import DataIter, MNISTIter

#: The four MNIST files, uncompressed names as MXNet's mnist.zip has them.
_MNIST_UBYTE = (
    'train-images-idx3-ubyte',
    'train-labels-idx1-ubyte',
    't10k-images-idx3-ubyte',
    't10k-labels-idx1-ubyte',
)


def _mnist_gz(names, root=None):
    """Paths of the named ``.gz`` MNIST files, found (``root``,
    ``$DLBOOK_DATA/mnist``, the cache) or downloaded, checksums verified;
    the error, offline, lists where they were looked for."""
    remotes = [
        files.RemoteFile(
            n, MNIST._files[n], tuple(m + n for m in MNIST._mirrors)
        )
        for n in names
    ]
    return files.find_or_download('mnist', remotes, root)


def _read(prefix, root):
    names = (
        f'{prefix}-images-idx3-ubyte.gz',
        f'{prefix}-labels-idx1-ubyte.gz',
    )
    paths = _mnist_gz(names, root)
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


def get_mnist_ubyte(path=None):
    """Put the uncompressed MNIST files in ``./data`` (MXNet's
    ``test_utils.get_mnist_ubyte``): ``data/train-images-idx3-ubyte``,
    ``data/train-labels-idx1-ubyte``, ``data/t10k-images-idx3-ubyte``,
    ``data/t10k-labels-idx1-ubyte``.

    MXNet downloads ``mnist.zip``; dlbook decompresses the canonical
    ``.gz`` files, found like :func:`get_mnist`'s (``path``,
    ``$DLBOOK_DATA/mnist``, the cache) or downloaded, checksums verified.
    Files already in ``./data`` are kept.
    """
    os.makedirs('data', exist_ok=True)
    missing = [
        n for n in _MNIST_UBYTE if not os.path.exists(os.path.join('data', n))
    ]
    if not missing:
        return
    paths = _mnist_gz([n + '.gz' for n in missing], path)
    for name in missing:
        with gzip.open(paths[name + '.gz'], 'rb') as src:
            with atomic_write(os.path.join('data', name)) as dst:
                shutil.copyfileobj(src, dst)


def get_mnist_iterator(batch_size, input_shape, num_parts=1, part_index=0):
    """``(train_iter, val_iter)``: two ``mx.io.MNISTIter`` over the files
    :func:`get_mnist_ubyte` puts in ``./data``.

    Parameters
    ----------
    batch_size : int
    input_shape : tuple
        ``(1, 28, 28)`` for images; any other length (``(784,)``) gives
        flat vectors.
    num_parts, part_index : int
        Use only part ``part_index`` of ``num_parts`` of each set.

    Both iterators are shuffled once (the validation one too: MXNet
    leaves MNISTIter's ``shuffle=True`` default there) and drop the last
    incomplete batch.
    """
    get_mnist_ubyte()
    flat = len(input_shape) != 3
    train = MNISTIter(
        image='data/train-images-idx3-ubyte',
        label='data/train-labels-idx1-ubyte',
        input_shape=input_shape,
        batch_size=batch_size,
        shuffle=True,
        flat=flat,
        num_parts=num_parts,
        part_index=part_index,
    )
    val = MNISTIter(
        image='data/t10k-images-idx3-ubyte',
        label='data/t10k-labels-idx1-ubyte',
        input_shape=input_shape,
        batch_size=batch_size,
        flat=flat,
        num_parts=num_parts,
        part_index=part_index,
    )
    return train, val


def download(
    url, fname=None, dirname=None, overwrite=False, retries=5, sha1_hash=None
):
    """Download ``url`` unless the file is already there; returns its name.

    Parameters
    ----------
    url : str
    fname : str, optional
        File name (default: the URL's last part).
    dirname : str, optional
        Folder for ``fname`` (created if missing).
    overwrite : bool, default False
        Download even if the file exists.
    retries : int, default 5
    sha1_hash : str, optional
        The file's SHA-1 (dlbook's addition): a download that does not
        match is discarded, and an existing file that does not match is
        fetched again.  Without it the file is not verified.
    """
    if retries < 0:
        raise ValueError('Number of retries should be at least 0')
    if fname is None:
        fname = url.split('/')[-1]
    if dirname is None:
        dirname = os.path.dirname(fname)
    else:
        fname = os.path.join(dirname, fname)
    if dirname and not os.path.exists(dirname):
        logging.info('create directory %s', dirname)
        os.makedirs(dirname, exist_ok=True)
    if (
        not overwrite
        and os.path.exists(fname)
        and (sha1_hash is None or _download.check_sha1(fname, sha1_hash))
    ):
        logging.info('%s exists, skipping download', fname)
        return fname
    _download.fetch(url, fname, (sha1_hash,) if sha1_hash else (), retries)
    logging.info('downloaded %s into %s successfully', url, fname)
    return fname


def get_zip_data(data_dir, url, data_origin_name, sha1_hash=None):
    """Download the zip file ``data_origin_name`` from ``url`` into
    ``data_dir`` and extract it there; nothing happens if the zip file is
    already in ``data_dir``.  ``sha1_hash`` verifies the download."""
    data_origin_name = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(data_origin_name):
        download(url, dirname=data_dir, sha1_hash=sha1_hash)
        with zipfile.ZipFile(data_origin_name) as zip_file:
            zip_file.extractall(path=data_dir)


def get_bz2_data(data_dir, data_name, url, data_origin_name, sha1_hash=None):
    """Download ``data_origin_name`` (bz2) from ``url`` into ``data_dir``,
    decompress it to ``data_dir/data_name`` and delete the bz2 file;
    nothing happens if ``data_name`` exists.  ``sha1_hash`` verifies the
    (compressed) download."""
    data_name = os.path.join(data_dir, data_name)
    data_origin_name = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(data_name):
        download(
            url, fname=data_origin_name, dirname=data_dir, sha1_hash=sha1_hash
        )
        with bz2.BZ2File(data_origin_name, 'rb') as src:
            with atomic_write(data_name) as dst:
                shutil.copyfileobj(src, dst)
        os.remove(data_origin_name)


class DummyIter(DataIter):
    """An endless iterator repeating the first batch of ``real_iter``:
    for speed tests that should not measure data loading.

    Parameters
    ----------
    real_iter : DataIter
        Its first batch is taken at creation.

    Examples
    --------
    >>> it = mx.test_utils.DummyIter(train_iter)           # doctest: +SKIP
    >>> next(it) is next(it)
    True
    """

    def __init__(self, real_iter):
        super().__init__()
        self.real_iter = real_iter
        self.provide_data = real_iter.provide_data
        self.provide_label = real_iter.provide_label
        self.batch_size = real_iter.batch_size
        self.the_batch = next(real_iter)

    def __iter__(self):
        return self

    def next(self):
        """The first batch of the real iterator, always (never
        StopIteration)."""
        return self.the_batch
