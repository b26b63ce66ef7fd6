"""Data for the first chapters.

Fast mode (``_fast.py``)
    Under ``DLBOOK_FAST=1`` the loaders here use a small, fixed subset of
    Fashion-MNIST.

Fashion-MNIST
    ``load_data_fashion_mnist`` finds the files through ``$DLBOOK_DATA``,
    then ``~/.dlbook/datasets`` (see ``dlbook._datafiles``); it
    never needs a path in the notebook.

Linear regression data
    ``synthetic_data`` and ``load_array``; the model, loss and optimizer
    that chapter 3 writes by hand are in ``scratch.py``.
"""
import os

from .. import nd
from ..context import current_context
from ..gluon.data import ArrayDataset, DataLoader
from ..gluon.data.vision import FashionMNIST, transforms
from ..widgets import show_images
from ._fast import FAST_ENV, fast_mode  # noqa: F401

FAST_TRAIN_SIZE = 2000
FAST_TEST_SIZE = 1000

FASHION_MNIST_LABELS = (
    't-shirt', 'trouser', 'pullover', 'dress', 'coat', 'sandal', 'shirt',
    'sneaker', 'bag', 'ankle boot')


def get_dataloader_workers():
    """Number of loader workers the helpers use: 0 (load in-process).

    d2l returns 4. dlbook's loaders gather whole batches with one NumPy
    indexing operation, which is faster than sending batches between
    processes for data this small, and avoids the shared-memory and
    pickling problems that worker processes bring (Docker, Windows).
    """
    return 0


_datasets = {}


def _fashion_mnist(train, size=None):
    """Fashion-MNIST, or its first ``size`` images, read once per process.

    Reading the files takes about half a second, so the sets are kept.
    A subset is stored as one ``ArrayDataset`` (stacked once), whose
    batches are gathered in one indexing operation like the full set's,
    instead of image by image as ``dataset.take(size)`` would.
    """
    key = (train, size, os.environ.get('DLBOOK_DATA'),
           str(current_context()))
    if key not in _datasets:
        dataset = FashionMNIST(train=train)
        if size is not None and size < len(dataset):
            subset = dataset.take(size)
            images, labels = next(iter(DataLoader(subset, size)))
            dataset = ArrayDataset(images, labels)
        _datasets[key] = dataset
    return _datasets[key]


def load_data_fashion_mnist(batch_size, resize=None):
    """Load Fashion-MNIST into two ``DataLoader``s, as d2l does.

    Parameters
    ----------
    batch_size : int
        Examples per mini-batch.
    resize : int or pair of int, optional
        Resize the 28x28 images first (e.g. 224 for AlexNet).

    Returns
    -------
    train_iter, test_iter : gluon.data.DataLoader
        Batches ``X`` of shape ``(batch_size, 1, H, W)``, float32 in
        [0, 1] (``ToTensor``), and labels ``y`` of shape ``(batch_size,)``,
        int32. The training loader is shuffled, the test loader is not.
        In fast mode (``DLBOOK_FAST=1``) only the first 2,000 training and
        1,000 test images are used, always the same ones.

    Examples
    --------
    >>> train_iter, test_iter = d2l.load_data_fashion_mnist(32, resize=64)
    >>> X, y = next(iter(train_iter))
    >>> X.shape, X.dtype, y.shape
    ((32, 1, 64, 64), dtype('float32'), (32,))
    """
    trans = [transforms.ToTensor()]
    if resize:
        trans.insert(0, transforms.Resize(resize))
    trans = transforms.Compose(trans)
    fast = fast_mode()
    mnist_train = _fashion_mnist(True, FAST_TRAIN_SIZE if fast else None)
    mnist_test = _fashion_mnist(False, FAST_TEST_SIZE if fast else None)
    workers = get_dataloader_workers()
    return (DataLoader(mnist_train.transform_first(trans), batch_size,
                       shuffle=True, num_workers=workers),
            DataLoader(mnist_test.transform_first(trans), batch_size,
                       shuffle=False, num_workers=workers))


def get_fashion_mnist_labels(labels):
    """Return the text labels of Fashion-MNIST class numbers.

    Parameters
    ----------
    labels : iterable of int (an NDArray, a NumPy array or a list)

    Returns
    -------
    list of str
        For example ``['ankle boot', 't-shirt']`` for ``[9, 0]``.
    """
    if hasattr(labels, 'asnumpy'):
        labels = labels.asnumpy()
    return [FASHION_MNIST_LABELS[int(i)] for i in labels]


def show_fashion_mnist(images, labels, scale=1.5):
    """Show Fashion-MNIST images in one row with their labels as titles.

    Parameters
    ----------
    images : NDArray or list of NDArray
        ``n`` images of 28x28 pixels, in any layout with 784 values per
        image (``(n, 1, 28, 28)`` from ``ToTensor``, ``(n, 28, 28, 1)``
        from the data set).
    labels : list of str
        Titles, e.g. ``get_fashion_mnist_labels(y)``.
    scale : float, optional
        Size of one image in inches.

    Returns
    -------
    numpy array of matplotlib Axes
    """
    if isinstance(images, (list, tuple)):
        images = nd.stack(*images)
    images = images.reshape((-1, 28, 28))
    return show_images(images, 1, images.shape[0], titles=list(labels),
                       scale=scale)


def synthetic_data(w, b, num_examples):
    """Generate ``y = Xw + b + noise`` for linear regression.

    Parameters
    ----------
    w : NDArray, shape ``(d,)``
        True weights.
    b : float
        True bias.
    num_examples : int
        Number of rows of ``X``.

    Returns
    -------
    X : NDArray, shape ``(num_examples, d)``
        Features drawn from the standard normal distribution.
    y : NDArray, shape ``(num_examples, 1)``
        Labels, with Gaussian noise of standard deviation 0.01.
    """
    X = nd.random.normal(0, 1, (num_examples, len(w)))
    y = nd.dot(X, w) + b
    y += nd.random.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))


def load_array(data_arrays, batch_size, is_train=True):
    """Wrap arrays in a ``DataLoader`` (shuffled when ``is_train``).

    Parameters
    ----------
    data_arrays : tuple of NDArray
        Arrays with the same first dimension, e.g. ``(features, labels)``.
    batch_size : int
    is_train : bool, optional
        Shuffle every epoch (training) or keep the order (evaluation).

    Returns
    -------
    gluon.data.DataLoader
    """
    dataset = ArrayDataset(*data_arrays)
    return DataLoader(dataset, batch_size, shuffle=is_train)
