"""Vision data sets, file resolution and verified downloads.

Real-data tests read ``$DLBOOK_DATA`` (tests/conftest.py points it at
/work/shared/data when that exists) and skip otherwise.  The network is
never used: downloads go through a fake ``urlopen``.
"""

import gzip
import hashlib
import io
import os
import struct
import tarfile
import urllib.error

import numpy as np
import pytest

import dlbook as mx
from dlbook import _datafiles as files
from dlbook import (
    _download,  # noqa: E402
    gluon,
)
from dlbook.base import DLBookError
from dlbook.gluon.data.vision import (
    CIFAR10,
    CIFAR100,
    MNIST,
    FashionMNIST,
    ImageFolderDataset,
)
from dlbook.test_utils_data import get_mnist

SHARED = os.environ.get('DLBOOK_DATA', '')
HAVE_MNIST = os.path.isfile(
    os.path.join(SHARED, 'mnist', 't10k-labels-idx1-ubyte.gz')
)
HAVE_FASHION = os.path.isfile(
    os.path.join(SHARED, 'fashion-mnist', 't10k-labels-idx1-ubyte.gz')
)
needs_mnist = pytest.mark.skipif(
    not HAVE_MNIST, reason='needs DLBOOK_DATA with mnist/'
)
needs_fashion = pytest.mark.skipif(
    not HAVE_FASHION, reason='needs DLBOOK_DATA with fashion-mnist/'
)


class FakeResponse(io.BytesIO):
    status = 200


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """No shared data, an empty cache and a network that fails loudly."""
    monkeypatch.delenv('DLBOOK_DATA', raising=False)
    monkeypatch.setenv('DLBOOK_HOME', str(tmp_path / 'home'))
    monkeypatch.setattr(_download, '_RETRY_DELAY_S', 0)
    served = {}

    def urlopen(url, timeout=None, context=None):
        if url in served:
            return FakeResponse(served[url])
        raise urllib.error.URLError(f'offline test: {url}')

    monkeypatch.setattr(_download, '_urlopen', urlopen)
    return served


# ------------------------------------------------------------ real data


@needs_mnist
def test_mnist_test_set():
    mnist = MNIST(train=False)
    assert len(mnist) == 10000
    image, label = mnist[0]
    assert isinstance(image, mx.nd.NDArray)
    assert image.shape == (28, 28, 1) and image.dtype == np.uint8
    assert isinstance(label, np.int32) and label == 7
    counts = np.bincount(mnist._label, minlength=10)
    assert counts.tolist() == [
        980,
        1135,
        1032,
        1010,
        982,
        892,
        958,
        1028,
        974,
        1009,
    ]


@needs_mnist
def test_mnist_train_set_and_two_argument_transform():
    mnist = MNIST(
        train=True, transform=lambda x, y: (x.astype('float32') / 255, y + 1)
    )
    assert len(mnist) == 60000
    image, label = mnist[0]
    assert image.dtype == np.float32 and float(image.max().asscalar()) <= 1
    assert label == 6  # the first digit is a 5


@needs_fashion
def test_fashion_mnist_balanced():
    fashion = FashionMNIST(train=False)
    assert len(fashion) == 10000
    assert np.bincount(fashion._label).tolist() == [1000] * 10
    image, label = fashion[0]
    assert image.shape == (28, 28, 1) and label == 9


@needs_fashion
def test_fashion_mnist_through_dataloader():
    trans = gluon.data.vision.transforms.ToTensor()
    data = FashionMNIST(train=False).transform_first(trans)
    X, y = next(iter(gluon.data.DataLoader(data, 256, shuffle=True)))
    assert X.shape == (256, 1, 28, 28) and X.dtype == np.float32
    assert y.shape == (256,) and y.dtype == np.int32


@needs_mnist
def test_get_mnist():
    mnist = get_mnist()
    assert mnist['train_data'].shape == (60000, 1, 28, 28)
    assert mnist['test_data'].shape == (10000, 1, 28, 28)
    assert mnist['train_data'].dtype == np.float32
    assert 0 <= mnist['train_data'].min() and mnist['train_data'].max() == 1
    assert mnist['train_label'].shape == (60000,)
    assert mnist['test_label'][:3].tolist() == [7, 2, 1]
    assert isinstance(mnist['train_data'], np.ndarray)


# ------------------------------------------------------------ resolution


def _idx_gz(array, path, header=None):
    array = np.asarray(array, dtype=np.uint8)
    if header is None:
        header = bytes([0, 0, 8, array.ndim]) + struct.pack(
            f'>{array.ndim}I', *array.shape
        )
    with open(path, 'wb') as f:
        f.write(gzip.compress(header + array.tobytes()))


def _fake_mnist(folder, n=5, prefix='t10k'):
    os.makedirs(folder, exist_ok=True)
    images = np.arange(n * 28 * 28).reshape(n, 28, 28) % 256
    labels = np.arange(n) % 10
    _idx_gz(images, os.path.join(folder, f'{prefix}-images-idx3-ubyte.gz'))
    _idx_gz(labels, os.path.join(folder, f'{prefix}-labels-idx1-ubyte.gz'))
    return images, labels


def test_search_order(isolated, tmp_path, monkeypatch):
    data = tmp_path / 'shared'
    monkeypatch.setenv('DLBOOK_DATA', str(data))
    dirs = files.search_dirs('mnist', root=str(tmp_path / 'mine'))
    assert dirs == [
        str(tmp_path / 'mine'),
        str(data / 'mnist'),
        str(data),
        str(tmp_path / 'home' / 'datasets' / 'mnist'),
    ]


def test_files_in_root_are_used_with_a_checksum_warning(isolated, tmp_path):
    images, _ = _fake_mnist(tmp_path / 'mine')
    with pytest.warns(UserWarning, match='does not match the checksum'):
        mnist = MNIST(root=str(tmp_path / 'mine'), train=False)
    assert len(mnist) == 5
    np.testing.assert_array_equal(mnist[3][0].asnumpy()[:, :, 0], images[3])
    assert mnist[3][1] == 3


def test_files_directly_in_dlbook_data(isolated, tmp_path, monkeypatch):
    _fake_mnist(tmp_path / 'flat')
    monkeypatch.setenv('DLBOOK_DATA', str(tmp_path / 'flat'))
    with pytest.warns(UserWarning):
        assert len(MNIST(train=False)) == 5


def test_offline_error_lists_every_place(isolated, tmp_path, monkeypatch):
    monkeypatch.setenv('DLBOOK_DATA', str(tmp_path / 'shared'))
    with pytest.raises(DLBookError) as info:
        MNIST(train=False)
    message = str(info.value)
    assert 't10k-images-idx3-ubyte.gz' in message
    assert str(tmp_path / 'shared' / 'mnist') in message
    assert str(tmp_path / 'home' / 'datasets' / 'mnist') in message
    assert 'ossci-datasets' in message and 'offline test' in message
    assert 'DLBOOK_DATA' in message and 'root=' in message
    assert not os.path.exists(
        tmp_path / 'home' / 'datasets' / 'mnist' / 't10k-images-idx3-ubyte.gz'
    )


@needs_mnist
def test_download_is_verified_and_cached(isolated, tmp_path):
    for name in ('t10k-images-idx3-ubyte.gz', 't10k-labels-idx1-ubyte.gz'):
        with open(os.path.join(SHARED, 'mnist', name), 'rb') as f:
            isolated[
                'https://ossci-datasets.s3.amazonaws.com/mnist/' + name
            ] = f.read()
    mnist = MNIST(train=False)
    assert len(mnist) == 10000
    cache = tmp_path / 'home' / 'datasets' / 'mnist'
    assert sorted(os.listdir(cache)) == [
        't10k-images-idx3-ubyte.gz',
        't10k-labels-idx1-ubyte.gz',
    ]
    isolated.clear()  # offline again: the cache
    assert len(MNIST(train=False)) == 10000
    # A corrupt cached file is detected and fetched again.
    (cache / 't10k-labels-idx1-ubyte.gz').write_bytes(b'garbage')
    with pytest.raises(DLBookError, match='corrupt'):
        MNIST(train=False)


def test_download_with_wrong_bytes_is_rejected(isolated, tmp_path):
    for mirror in MNIST._mirrors:
        for name in ('t10k-images-idx3-ubyte.gz', 't10k-labels-idx1-ubyte.gz'):
            isolated[mirror + name] = b'not the real file'
    with pytest.raises(DLBookError, match='hash does not match'):
        MNIST(train=False)
    cache = tmp_path / 'home' / 'datasets' / 'mnist'
    assert not cache.exists() or os.listdir(cache) == []


def test_truncated_and_inconsistent_idx_files(isolated, tmp_path):
    root = tmp_path / 'mine'
    _fake_mnist(root)
    path = root / 't10k-images-idx3-ubyte.gz'
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.warns(UserWarning), pytest.raises(DLBookError) as info:
        MNIST(root=str(root), train=False)
    assert 't10k-images-idx3-ubyte.gz' in str(info.value)
    # A header that promises more images than there are.
    images = np.zeros((5, 28, 28), np.uint8)
    header = bytes([0, 0, 8, 3]) + struct.pack('>3I', 6, 28, 28)
    _idx_gz(images, path, header=header)
    with (
        pytest.warns(UserWarning),
        pytest.raises(DLBookError, match='header promises'),
    ):
        MNIST(root=str(root), train=False)
    # Labels and images of different lengths.
    _idx_gz(np.zeros((4, 28, 28)), path)
    with (
        pytest.warns(UserWarning),
        pytest.raises(DLBookError, match='4 images'),
    ):
        MNIST(root=str(root), train=False)


# ------------------------------------------------------------ CIFAR


def _cifar_records(n, label_bytes, seed):
    rng = np.random.RandomState(seed)
    images = rng.randint(0, 256, (n, 32, 32, 3)).astype(np.uint8)
    labels = rng.randint(0, 10, (n, label_bytes)).astype(np.uint8)
    planes = images.transpose(0, 3, 1, 2).reshape(n, 3072)  # R, G, B planes
    return images, labels, np.hstack([labels, planes]).tobytes()


def _write_cifar10(folder):
    os.makedirs(folder, exist_ok=True)
    truth = {}
    names = [f'data_batch_{i}.bin' for i in range(1, 6)] + ['test_batch.bin']
    for seed, name in enumerate(names):
        images, labels, raw = _cifar_records(3, 1, seed)
        (folder / name).write_bytes(raw)
        truth[name] = (images, labels[:, 0])
    return truth


def test_cifar10_binary_format(isolated, tmp_path):
    truth = _write_cifar10(tmp_path / 'c10' / 'cifar-10-batches-bin')
    with pytest.warns(UserWarning):
        train = CIFAR10(root=str(tmp_path / 'c10'))
        test = CIFAR10(root=str(tmp_path / 'c10'), train=False)
    assert len(train) == 15 and len(test) == 3
    image, label = train[4]  # data_batch_2, record 1
    assert image.shape == (32, 32, 3) and image.dtype == np.uint8
    assert isinstance(label, np.int32)
    np.testing.assert_array_equal(
        image.asnumpy(), truth['data_batch_2.bin'][0][1]
    )
    assert label == truth['data_batch_2.bin'][1][1]
    np.testing.assert_array_equal(
        test[2][0].asnumpy(), truth['test_batch.bin'][0][2]
    )


def test_cifar100_coarse_and_fine(isolated, tmp_path):
    images, labels, raw = _cifar_records(4, 2, 0)
    (tmp_path / 'train.bin').write_bytes(raw)
    with pytest.warns(UserWarning):
        coarse = CIFAR100(root=str(tmp_path))
        fine = CIFAR100(root=str(tmp_path), fine_label=True)
    assert [coarse[i][1] for i in range(4)] == labels[:, 0].tolist()
    assert [fine[i][1] for i in range(4)] == labels[:, 1].tolist()
    np.testing.assert_array_equal(fine[3][0].asnumpy(), images[3])


def test_cifar_damaged_file(isolated, tmp_path):
    _write_cifar10(tmp_path)
    path = tmp_path / 'test_batch.bin'
    path.write_bytes(path.read_bytes()[:-10])
    with (
        pytest.warns(UserWarning),
        pytest.raises(DLBookError, match='not a multiple of the 3073'),
    ):
        CIFAR10(root=str(tmp_path), train=False)


def test_cifar10_archive_download(isolated, tmp_path, monkeypatch):
    truth = _write_cifar10(tmp_path / 'src' / 'cifar-10-batches-bin')
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w:gz') as tar:
        tar.add(
            tmp_path / 'src' / 'cifar-10-batches-bin',
            arcname='cifar-10-batches-bin',
        )
    archive = buf.getvalue()
    url = 'https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz'
    isolated[url] = archive
    monkeypatch.setattr(
        CIFAR10,
        '_archive',
        files.RemoteFile(
            'cifar-10-binary.tar.gz',
            (hashlib.md5(archive).hexdigest(),),
            (url,),
        ),
    )
    test = CIFAR10(train=False)
    np.testing.assert_array_equal(
        test[0][0].asnumpy(), truth['test_batch.bin'][0][0]
    )
    cache = tmp_path / 'home' / 'datasets' / 'cifar10'
    assert 'test_batch.bin' in os.listdir(cache)
    isolated.clear()  # offline: the cached archive serves
    assert len(CIFAR10(train=True)) == 15


def test_cifar10_offline_error(isolated):
    with pytest.raises(DLBookError) as info:
        CIFAR10(train=False)
    assert 'test_batch.bin' in str(info.value)
    assert 'cifar-10-binary.tar.gz' in str(info.value)


# ------------------------------------------------------------ image folders


def test_image_folder_dataset_npy(tmp_path):
    rng = np.random.RandomState(0)
    for cls in ('cat', 'dog'):
        (tmp_path / cls).mkdir()
        for i in range(2):
            np.save(
                tmp_path / cls / f'{i}.npy',
                rng.randint(0, 256, (5, 4, 3)).astype(np.uint8),
            )
    (tmp_path / 'dog' / 'notes.txt').write_text('ignore me')
    (tmp_path / 'README').write_text('ignore me too')
    with pytest.warns(UserWarning, match='Ignoring'):
        ds = ImageFolderDataset(str(tmp_path))
    assert ds.synsets == ['cat', 'dog'] and len(ds) == 4
    image, label = ds[3]
    assert image.shape == (5, 4, 3) and image.dtype == np.uint8
    assert label == 1
    np.testing.assert_array_equal(
        image.asnumpy(), np.load(tmp_path / 'dog' / '1.npy')
    )
    with pytest.warns(UserWarning):
        grey = ImageFolderDataset(str(tmp_path), flag=0)
    assert grey[0][0].shape == (5, 4, 1)


def test_image_folder_dataset_png(tmp_path):
    Image = pytest.importorskip('PIL.Image')
    (tmp_path / 'a').mkdir()
    pixels = np.random.RandomState(0).randint(0, 256, (6, 7, 3))
    Image.fromarray(pixels.astype(np.uint8)).save(tmp_path / 'a' / 'x.png')
    ds = ImageFolderDataset(str(tmp_path), transform=lambda x, y: (x.shape, y))
    assert ds[0] == ((6, 7, 3), 0)
    np.testing.assert_array_equal(
        ImageFolderDataset(str(tmp_path))[0][0].asnumpy(), pixels
    )
