"""Vision data sets: MNIST, Fashion-MNIST, CIFAR-10/100, image folders and
RecordIO image files.

A sample is ``(image, label)``: the image an ``HWC`` ``uint8`` NDArray
(MNIST: ``(28, 28, 1)``; CIFAR: ``(32, 32, 3)``), the label a NumPy
``int32`` scalar, exactly as MXNet 1.9 returns them.  ``transform`` (if
given) is called as ``transform(image, label)`` and returns the new
sample, the old two-argument form; ``dataset.transform_first(fn)`` is the
usual way to transform only the image.

Files are found (or downloaded, checksum-verified) as described in
:mod:`dlbook._datafiles`: ``root`` argument, ``$DLBOOK_DATA``, then
``~/.dlbook/datasets``.  Every file is checked while it is read (gzip CRC,
IDX header against the data length, CIFAR record size and label range);
a damaged file raises an error naming it and is never half loaded.
"""

__all__ = [
    'MNIST',
    'FashionMNIST',
    'CIFAR10',
    'CIFAR100',
    'ImageRecordDataset',
    'ImageFolderDataset',
]

import os
import shutil
import tarfile
import warnings

import numpy

from .... import _datafiles as files
from .... import ndarray as nd
from .... import recordio
from ...._atomic import atomic_write
from ...._datafiles import corrupt_file_error as _corrupt  # noqa: F401
from ...._datafiles import read_idx
from ...._imaging.imread import IMAGE_EXTENSIONS, imdecode, imread
from ...._np_state import is_np_array
from ....base import DLBookError
from ....context import cpu, current_context
from ....ndarray.ndarray import from_raw
from ..dataset import Dataset, RecordFileDataset, _gather

_MXNET_MIRROR = (
    'https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/gluon/dataset/'
)


def _to_ndarray(array):
    """Wrap a NumPy array as ``nd.array(array, dtype=array.dtype)`` would:
    on the current context, dtype kept (no copy on a CPU)."""
    ctx = current_context()
    if ctx.device_type == 'gpu':
        out = nd.array(array, ctx=ctx, dtype=array.dtype)
    else:
        out = from_raw(array, ctx)
    if is_np_array():  # npx.set_np(): samples are mx.np arrays
        from ....numpy._core import to_np

        to_np(out)
    return out


class _DownloadedDataset(Dataset):
    """Base of the data sets held in memory: ``_data`` (an NDArray of
    images) and ``_label`` (a NumPy int32 array)."""

    def __init__(self, root, transform):
        self._transform = transform
        self._root = root
        self._data = None
        self._label = None
        self._get_data()

    def __getitem__(self, idx):
        if self._transform is not None:
            return self._transform(self._data[idx], self._label[idx])
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)

    def _get_data(self):
        raise NotImplementedError

    def _batcher(self):
        # Whole-batch gathering gives the same batch as sample by sample,
        # unless a transform has to see each sample.
        if self._transform is not None:
            return None
        return self._batch

    def _batch(self, indices):
        return [_gather(self._data, indices), _gather(self._label, indices)]


def _remote(name, known, mirrors):
    return files.RemoteFile(name, known, tuple(m + name for m in mirrors))


class MNIST(_DownloadedDataset):
    """MNIST handwritten digits (http://yann.lecun.com/exdb/mnist).

    Each sample is an image NDArray of shape ``(28, 28, 1)``, ``uint8``,
    and a NumPy ``int32`` label.

    Parameters
    ----------
    root : str, optional
        Folder holding the ``*-ubyte.gz`` files (searched first; downloads
        go there).  By default ``$DLBOOK_DATA/mnist``, then
        ``~/.dlbook/datasets/mnist``.
    train : bool, default True
        Training (60,000) or test (10,000) set.
    transform : callable, optional
        ``transform(data, label) -> (data, label)`` applied to each sample.

    Examples
    --------
    >>> mnist = gluon.data.vision.MNIST(train=False)     # doctest: +SKIP
    >>> image, label = mnist[0]
    >>> image.shape, image.dtype, label
    ((28, 28, 1), dtype('uint8'), 7)
    """

    _namespace = 'mnist'
    _mirrors = (
        'https://ossci-datasets.s3.amazonaws.com/mnist/',
        _MXNET_MIRROR + 'mnist/',
        'http://yann.lecun.com/exdb/mnist/',
    )
    # md5 of the canonical files, and sha1 (MXNet's mirror, same bytes).
    _files = {
        'train-images-idx3-ubyte.gz': (
            'f68b3c2dcbeaaa9fbdd348bbdeb94873',
            '6c95f4b05d2bf285e1bfb0e7960c31bd3b3f8a7d',
        ),
        'train-labels-idx1-ubyte.gz': (
            'd53e105ee54ea40749a09fcbcd1e9432',
            '2a80914081dc54586dbdf242f9805a6b8d2a15fc',
        ),
        't10k-images-idx3-ubyte.gz': (
            '9fb629c4189551a2d022fa330f9573f3',
            'c3a25af1f52dad7f726cce8cacb138654b760d48',
        ),
        't10k-labels-idx1-ubyte.gz': (
            'ec29112dd5afa0611ce80d1b7f02629c',
            '763e7fa3757d93b0cdec073cef058b2004252c17',
        ),
    }

    def __init__(self, root=None, train=True, transform=None):
        self._train = train
        super().__init__(root, transform)

    def _get_data(self):
        prefix = 'train' if self._train else 't10k'
        names = (
            f'{prefix}-images-idx3-ubyte.gz',
            f'{prefix}-labels-idx1-ubyte.gz',
        )
        remotes = [_remote(n, self._files[n], self._mirrors) for n in names]
        paths = files.find_or_download(self._namespace, remotes, self._root)
        images = read_idx(paths[names[0]], 3)
        labels = read_idx(paths[names[1]], 1)
        if len(images) != len(labels):
            raise DLBookError(
                f'{paths[names[0]]} holds {len(images)} '
                f'images but {paths[names[1]]} holds '
                f'{len(labels)} labels'
            )
        self._data = _to_ndarray(images.reshape(images.shape + (1,)))
        self._label = labels.astype(numpy.int32)


class FashionMNIST(MNIST):
    """Fashion-MNIST: Zalando's clothing images, a drop-in replacement
    for MNIST (https://github.com/zalandoresearch/fashion-mnist).

    Same parameters and samples as :class:`MNIST`; the files live in
    ``fashion-mnist/``.  Classes 0-9: t-shirt, trouser, pullover, dress,
    coat, sandal, shirt, sneaker, bag, ankle boot.
    """

    _namespace = 'fashion-mnist'
    _mirrors = (
        'http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/',
        _MXNET_MIRROR + 'fashion-mnist/',
    )
    # md5 and sha1 of the canonical files, then sha1 of MXNet's mirror
    # (re-compressed there, so its bytes differ).
    _files = {
        'train-images-idx3-ubyte.gz': (
            '8d4fb7e6c68d591d4c3dfef9ec88bf0d',
            '95978b76b6897f6ca69a25145d01716efb615989',
            '0cf37b0d40ed5169c6b3aba31069a9770ac9043d',
        ),
        'train-labels-idx1-ubyte.gz': (
            '25c81989df183df01b3e8a0aad5dffbe',
            '09814cfef5a041118ceace42f8dae995319d331a',
            '236021d52f1e40852b06a4c3008d8de8aef1e40b',
        ),
        't10k-images-idx3-ubyte.gz': (
            'bef4ecab320f06d8554ea6380940ec79',
            '5edda96c6d8c36ff915115a0e8136d370a021576',
            '626ed6a7c06dd17c0eec72fa3be1740f146a2863',
        ),
        't10k-labels-idx1-ubyte.gz': (
            'bb300cfdad3c16e7a12a480ee83cd310',
            '9caad14e1aff9adac77d3744963212d36af15bee',
            '17f9ab60e7257a1620f4ad76bbbaf857c3920701',
        ),
    }


def _extract(archive, names, target):
    """Copy the members called ``names`` (in any folder) out of a tar
    archive into ``target``, each file atomically; return name -> path.

    Only regular files with the expected names are written, and only
    into ``target``, so a hostile archive cannot write elsewhere."""
    os.makedirs(target, exist_ok=True)
    written = {}
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            base = os.path.basename(member.name)
            if member.isfile() and base in names:
                path = os.path.join(target, base)
                with tar.extractfile(member) as src, atomic_write(path) as dst:
                    shutil.copyfileobj(src, dst)
                written[base] = path
    return written


class CIFAR10(_DownloadedDataset):
    """CIFAR-10: 60,000 32x32 colour images in 10 classes
    (https://www.cs.toronto.edu/~kriz/cifar.html).

    Each sample is an image NDArray ``(32, 32, 3)`` ``uint8`` and a NumPy
    ``int32`` label.  Reads the *binary* version (``data_batch_1.bin`` ...
    ``test_batch.bin``: records of 1 label byte and 3072 pixel bytes), in
    the folder or its ``cifar-10-batches-bin/`` sub-folder.

    Parameters
    ----------
    root : str, optional
        Folder holding the files; default ``$DLBOOK_DATA/cifar10``, then
        ``~/.dlbook/datasets/cifar10``.
    train : bool, default True
    transform : callable, optional
        ``transform(data, label) -> (data, label)``.
    """

    _namespace = 'cifar10'
    _subdirs = ('', 'cifar-10-batches-bin')
    _label_bytes = 1
    _num_classes = (10,)
    _archive = files.RemoteFile(
        'cifar-10-binary.tar.gz',
        (
            'c32a1d4ab5d03f1284b67883e8d87530',  # md5, Toronto
            'fab780a1e191a7eda0f345501ccd62d20f7ed891',
        ),  # sha1, MXNet mirror
        (
            'https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz',
            _MXNET_MIRROR + 'cifar10/cifar-10-binary.tar.gz',
        ),
    )
    _train_files = (
        ('data_batch_1.bin', 'aadd24acce27caa71bf4b10992e9e7b2d74c2540'),
        ('data_batch_2.bin', 'c0ba65cce70568cd57b4e03e9ac8d2a5367c1795'),
        ('data_batch_3.bin', '1dd00a74ab1d17a6e7d73e185b69dbf31242f295'),
        ('data_batch_4.bin', 'aab85764eb3584312d3c7f65fd2fd016e36a258e'),
        ('data_batch_5.bin', '26e2849e66a845b7f1e4614ae70f4889ae604628'),
    )
    _test_files = (
        ('test_batch.bin', '67eb016db431130d61cd03c7ad570b013799c88c'),
    )

    def __init__(self, root=None, train=True, transform=None):
        self._train = train
        super().__init__(root, transform)

    def _label_column(self):
        return 0

    def _read_batch(self, path):
        record = self._label_bytes + 3072
        raw = numpy.fromfile(path, dtype=numpy.uint8)
        if raw.size == 0 or raw.size % record:
            raise _corrupt(
                path,
                f'its size, {raw.size} bytes, is not a '
                f'multiple of the {record}-byte record '
                f'({self._label_bytes} label byte(s) + '
                f'3072 pixel bytes)',
            )
        raw = raw.reshape(-1, record)
        labels = raw[:, : self._label_bytes]
        for column, classes in enumerate(self._num_classes):
            if labels[:, column].max() >= classes:
                raise _corrupt(
                    path,
                    f'label byte {column} has value '
                    f'{labels[:, column].max()}, but there '
                    f'are only {classes} classes',
                )
        images = raw[:, self._label_bytes :].reshape(-1, 3, 32, 32)
        return (
            numpy.ascontiguousarray(images.transpose(0, 2, 3, 1)),
            labels[:, self._label_column()].astype(numpy.int32),
        )

    def _get_data(self):
        wanted = self._train_files if self._train else self._test_files
        every = self._train_files + self._test_files
        remotes = [files.RemoteFile(n, (h,), ()) for n, h in wanted]
        found, missing, _ = files.locate(
            self._namespace, remotes, self._root, self._subdirs
        )
        if missing:
            archive = files.fetch_archive(
                self._namespace,
                self._archive,
                missing,
                self._root,
                self._subdirs,
            )
            # The archive's checksum vouches for what comes out of it.
            found.update(
                _extract(
                    archive,
                    {n for n, _ in every},
                    files.download_dir(self._namespace, self._root),
                )
            )
            absent = [r.name for r in missing if r.name not in found]
            if absent:
                raise DLBookError(f'{archive} does not contain {absent}')
        parts = [self._read_batch(found[n]) for n, _ in wanted]
        self._data = _to_ndarray(numpy.concatenate([p[0] for p in parts]))
        self._label = numpy.concatenate([p[1] for p in parts])


class CIFAR100(CIFAR10):
    """CIFAR-100: 100 fine classes grouped into 20 coarse ones.

    Reads ``train.bin`` / ``test.bin`` of the binary version (records of
    a coarse label byte, a fine label byte and 3072 pixel bytes), in the
    folder or its ``cifar-100-binary/`` sub-folder.

    Parameters
    ----------
    root : str, optional
        Default ``$DLBOOK_DATA/cifar100``, then
        ``~/.dlbook/datasets/cifar100``.
    fine_label : bool, default False
        Return the 100 fine labels instead of the 20 coarse ones.
    train : bool, default True
    transform : callable, optional
    """

    _namespace = 'cifar100'
    _subdirs = ('', 'cifar-100-binary')
    _label_bytes = 2
    _num_classes = (20, 100)
    _archive = files.RemoteFile(
        'cifar-100-binary.tar.gz',
        (
            '03b5dce01913d631647c71ecec9e9cb8',  # md5, Toronto
            'a0bb982c76b83111308126cc779a992fa506b90b',
        ),  # sha1, MXNet mirror
        (
            'https://www.cs.toronto.edu/~kriz/cifar-100-binary.tar.gz',
            _MXNET_MIRROR + 'cifar100/cifar-100-binary.tar.gz',
        ),
    )
    _train_files = (('train.bin', 'e207cd2e05b73b1393c74c7f5e7bea451d63e08e'),)
    _test_files = (('test.bin', '8fb6623e830365ff53cf14adec797474f5478006'),)

    def __init__(
        self, root=None, fine_label=False, train=True, transform=None
    ):
        self._fine_label = fine_label
        super().__init__(root, train, transform)

    def _label_column(self):
        return 1 if self._fine_label else 0


class ImageRecordDataset(RecordFileDataset):
    """Images in a RecordIO file, as MXNet's ``im2rec`` tool makes them.

    Each record is an :data:`~dlbook.recordio.IRHeader` followed by a
    JPEG or PNG file (what :func:`~dlbook.recordio.pack_img` writes).
    Sample ``i`` is ``(image, label)``: the image an ``HWC`` ``uint8``
    NDArray, RGB, decoded when it is read; the label ``header.label``, a
    float (the stored float32 value), or a float32 NumPy array for
    records with several labels (``header.flag > 0``), as in MXNet.

    Parameters
    ----------
    filename : str
        Path of the ``.rec`` file; its ``.idx`` file must be beside it.
    flag : {0, 1}, default 1
        0: greyscale ``(H, W, 1)``; 1: colour ``(H, W, 3)``, RGB.
    transform : callable, optional
        ``transform(data, label) -> (data, label)``.

    Notes
    -----
    Decoding needs Pillow.  Images of different sizes need a transform
    (``Resize``) before a DataLoader can stack them.

    Examples
    --------
    >>> ds = gluon.data.vision.ImageRecordDataset('a.rec')  # doctest: +SKIP
    >>> image, label = ds[0]                              # doctest: +SKIP
    """

    def __init__(self, filename, flag=1, transform=None):
        super().__init__(filename)
        self._flag = flag
        self._transform = transform

    def __getitem__(self, idx):
        key = self._record.keys[idx]
        source = f'the image of record {key!r} in {self.filename}'
        record = self._record.read_idx(key)
        try:
            header, img = recordio.unpack(record)
        except DLBookError as err:
            raise DLBookError(
                f'{self.filename}, record {key!r}: {err}'
            ) from err
        img = from_raw(imdecode(img, self._flag, source), cpu(0))
        if self._transform is not None:
            return self._transform(img, header.label)
        return img, header.label


class ImageFolderDataset(Dataset):
    """Images stored one folder per class::

        root/car/0001.jpg
        root/car/xxxa.png
        root/bus/123.jpg

    Parameters
    ----------
    root : str
        The folder of class folders.
    flag : {0, 1}, default 1
        0: greyscale ``(H, W, 1)``; 1: colour ``(H, W, 3)``, RGB.
    transform : callable, optional
        ``transform(data, label) -> (data, label)``.

    Attributes
    ----------
    synsets : list of str
        Class names; ``synsets[i]`` is the name of label ``i``.
    items : list of (str, int)
        Every image as ``(file name, label)``.

    Notes
    -----
    JPEG and PNG need Pillow; ``.npy`` files (``uint8``, ``HW`` or
    ``HWC``) need nothing more.
    """

    def __init__(self, root, flag=1, transform=None):
        self._root = os.path.expanduser(root)
        self._flag = flag
        self._transform = transform
        self._exts = list(IMAGE_EXTENSIONS)
        self._list_images(self._root)

    def _list_images(self, root):
        self.synsets = []
        self.items = []
        for folder in sorted(os.listdir(root)):
            path = os.path.join(root, folder)
            if not os.path.isdir(path):
                warnings.warn(
                    f'Ignoring {path}, which is not a directory.', stacklevel=3
                )
                continue
            label = len(self.synsets)
            self.synsets.append(folder)
            for filename in sorted(os.listdir(path)):
                filename = os.path.join(path, filename)
                ext = os.path.splitext(filename)[1]
                if ext.lower() not in self._exts:
                    warnings.warn(
                        f'Ignoring {filename} of type {ext}. Only '
                        f'support {", ".join(self._exts)}'
                    )
                    continue
                self.items.append((filename, label))

    def __getitem__(self, idx):
        filename, label = self.items[idx]
        img = from_raw(imread(filename, self._flag), cpu(0))
        if self._transform is not None:
            return self._transform(img, label)
        return img, label

    def __len__(self):
        return len(self.items)
