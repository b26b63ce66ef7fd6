"""Where data set files come from: local folders first, then the network.

A data set needs a few named files (``train-images-idx3-ubyte.gz`` ...).
Each is looked for, in order, in

1. the ``root`` folder passed to the data set, if any;
2. ``$DLBOOK_DATA/<name>`` and ``$DLBOOK_DATA`` itself (a shared,
   read-only copy: ``DLBOOK_DATA=/work/shared/data`` on the course
   machines);
3. the user cache ``~/.dlbook/datasets/<name>`` (``$DLBOOK_HOME``
   replaces ``~/.dlbook``).

A file found locally is checked against the known MD5/SHA-1 digests of
the canonical files.  A mismatch in the cache means a corrupt download: it
is fetched again.  A mismatch in a folder the user chose only warns (the
loader still checks the file's structure), since a re-compressed copy of
the same data is fine.  Missing files are downloaded from the canonical
mirrors into ``root`` (if given) or the cache, hash-checked and written
atomically.  When that fails too, the error lists every place searched and
how to provide the files.
"""

__all__ = [
    'RemoteFile',
    'data_home',
    'cache_dir',
    'search_dirs',
    'locate',
    'find_or_download',
    'fetch_archive',
    'download_dir',
    'read_idx',
    'corrupt_file_error',
]

import collections
import gzip
import math
import os
import struct
import warnings
import zlib

import numpy

from . import _download as _utils
from .base import DLBookError

DATA_ENV = 'DLBOOK_DATA'
HOME_ENV = 'DLBOOK_HOME'

RemoteFile = collections.namedtuple('RemoteFile', ['name', 'known', 'urls'])
RemoteFile.__doc__ = """One file of a data set.

name : str
    File name, e.g. ``'train-images-idx3-ubyte.gz'``.
known : tuple of str
    Hex MD5 or SHA-1 digests of acceptable copies.
urls : tuple of str
    Mirrors to download it from, tried in order.
"""

# (path, size, mtime) -> (md5, sha1): hash each file once per process.
_DIGESTS = {}


def data_home():
    """``$DLBOOK_HOME``, else ``~/.dlbook``."""
    return os.path.expanduser(os.environ.get(HOME_ENV) or '~/.dlbook')


def cache_dir(name):
    """The user cache folder of data set ``name``."""
    return os.path.join(data_home(), 'datasets', name)


def search_dirs(name, root=None):
    """The folders searched for data set ``name``, in order."""
    dirs = []
    if root is not None:
        dirs.append(os.path.expanduser(os.fspath(root)))
    env = os.environ.get(DATA_ENV)
    if env:
        env = os.path.expanduser(env)
        dirs += [os.path.join(env, name), env]
    dirs.append(cache_dir(name))
    return unique_dirs(dirs)


def unique_dirs(dirs):
    """``dirs`` without repeats (compared as absolute paths), in order."""
    unique = []
    for d in dirs:
        if os.path.abspath(d) not in map(os.path.abspath, unique):
            unique.append(d)
    return unique


def _digests(path):
    stat = os.stat(path)
    key = (os.path.abspath(path), stat.st_size, stat.st_mtime_ns)
    if key not in _DIGESTS:
        _DIGESTS[key] = _utils.file_digests(path)
    return _DIGESTS[key]


def _verified(path, remote):
    md5, sha1 = _digests(path)
    return _utils.digest_matches(remote.known, md5, sha1)


def _find_local(remote, dirs, subdirs, cache, notes):
    """The first good local copy of ``remote``, or None."""
    for d in dirs:
        for sub in subdirs:
            path = os.path.join(d, sub, remote.name)
            if not os.path.isfile(path):
                continue
            if _verified(path, remote):
                return path
            if os.path.abspath(d) == os.path.abspath(cache):
                notes.append(
                    f'{path} is corrupt (checksum mismatch); it '
                    f'will be downloaded again'
                )
                continue
            warnings.warn(
                f'{path} does not match the checksum of the '
                f'canonical {remote.name}; using it anyway (its '
                f'structure is checked when it is read)',
                stacklevel=4,
            )
            return path
    return None


def _offline_error(name, missing, dirs, subdirs, target, notes, failures):
    lines = [
        f'cannot find the {name} data file(s) '
        f'{", ".join(r.name for r in missing)}.',
        'Looked in:',
    ]
    for d in dirs:
        lines += [f'  {os.path.join(d, sub)}' for sub in subdirs]
    lines += notes
    if failures:
        lines.append('Download failed:')
        lines += [f'  {url}: {err}' for url, err in failures]
    lines += [
        'To provide the files, do one of:',
        f'  * set the environment variable {DATA_ENV} to a folder holding '
        f'{name}/{missing[0].name} (e.g. {DATA_ENV}=/work/shared/data);',
        '  * pass root=<folder holding the files> to the data set;',
        f'  * copy the files into {target}.',
    ]
    return DLBookError('\n'.join(lines))


def download_dir(name, root):
    """Where downloads go: ``root`` if given, else the cache."""
    if root is not None:
        return os.path.expanduser(os.fspath(root))
    return cache_dir(name)


def _download(remote, target, failures):
    path = os.path.join(target, remote.name)
    for url in remote.urls:
        try:
            return _utils.fetch(url, path, remote.known, retries=1)
        except (DLBookError, OSError) as err:
            failures.append((url, err))
    return None


def locate(name, remotes, root=None, subdirs=('',)):
    """Find local copies only.

    Returns
    -------
    found : dict
        File name -> path of each good local copy.
    missing : list of RemoteFile
        Files with no good local copy.
    notes : list of str
        Problems seen (corrupt cached files).
    """
    dirs = search_dirs(name, root)
    cache = cache_dir(name)
    found, missing, notes = {}, [], []
    for remote in remotes:
        path = _find_local(remote, dirs, subdirs, cache, notes)
        if path is None:
            missing.append(remote)
        else:
            found[remote.name] = path
    return found, missing, notes


def find_or_download(name, remotes, root=None, subdirs=('',)):
    """Paths of the files of data set ``name``, downloading missing ones.

    Parameters
    ----------
    name : str
        Data set folder name (``'mnist'``, ``'fashion-mnist'`` ...).
    remotes : sequence of RemoteFile
        The files needed.
    root : str, optional
        A folder chosen by the user: searched first, and where downloads
        go (else the user cache).
    subdirs : sequence of str
        Sub-folders of each searched folder that may hold the files (CIFAR
        archives unpack into ``cifar-10-batches-bin/``).

    Returns
    -------
    dict
        File name -> path.
    """
    found, missing, notes = locate(name, remotes, root, subdirs)
    target = download_dir(name, root)
    for remote in missing:
        failures = []
        path = _download(remote, target, failures)
        if path is None:
            raise _offline_error(
                name,
                [remote],
                search_dirs(name, root),
                subdirs,
                target,
                notes,
                failures,
            )
        found[remote.name] = path
    return found


def fetch_archive(name, archive, missing, root=None, subdirs=('',)):
    """Download ``archive`` (a RemoteFile holding the ``missing`` files)
    into the download folder of data set ``name`` and return its path;
    raise an error listing every place searched if that fails."""
    target = download_dir(name, root)
    path = os.path.join(target, archive.name)
    if os.path.isfile(path) and _verified(path, archive):
        return path
    failures = []
    path = _download(archive, target, failures)
    if path is None:
        raise _offline_error(
            name,
            missing,
            search_dirs(name, root),
            subdirs,
            target,
            [],
            failures,
        )
    return path


# -- IDX files (MNIST, Fashion-MNIST) ----------------------------------------


def corrupt_file_error(path, problem):
    return DLBookError(
        f'{path}: {problem}. The file is damaged or is not what its name '
        f'says; delete it (a file in the dlbook cache is downloaded again) '
        f'or replace it with a good copy.'
    )


def _open_maybe_gzip(path):
    with open(path, 'rb') as f:
        compressed = f.read(2) == b'\x1f\x8b'
    return gzip.open(path, 'rb') if compressed else open(path, 'rb')


def read_idx(path, ndim):
    """Read an IDX file of ``uint8`` with ``ndim`` axes (gzip-compressed
    as distributed, or plain).

    The whole file is checked: the magic number, the dimensions against
    the amount of data, and gzip's CRC.  Raises :class:`DLBookError`
    naming the file otherwise.
    """
    try:
        with _open_maybe_gzip(path) as f:
            head = f.read(4)
            if (
                len(head) != 4
                or head[:3] != b'\x00\x00\x08'
                or head[3] != ndim
            ):
                raise corrupt_file_error(
                    path,
                    f'not a {ndim}-d uint8 IDX file '
                    f'(header {head.hex() or "empty"})',
                )
            dims = struct.unpack(f'>{ndim}I', f.read(4 * ndim))
            size = math.prod(dims)
            # Read in pieces, never trusting the header's size: a damaged
            # header must not allocate more than the file really holds.
            buf = bytearray()
            while len(buf) <= size:
                piece = f.read(min(1 << 16, size + 1 - len(buf)))
                if not piece:
                    break
                buf += piece
            got = len(buf)
            if got < size:
                raise corrupt_file_error(
                    path,
                    f'holds {got} bytes of data but its '
                    f'header promises {dims} = '
                    f'{size} bytes',
                )
            if got > size:
                raise corrupt_file_error(
                    path, f'has more data than its header {dims} says'
                )
            data = numpy.frombuffer(buf, numpy.uint8).reshape(dims)
    except (EOFError, OSError, zlib.error, struct.error) as err:
        raise corrupt_file_error(
            path, f'cannot be decompressed ({err})'
        ) from err
    return data
