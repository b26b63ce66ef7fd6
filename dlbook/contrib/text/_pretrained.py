"""Known pre-trained embedding files and where they are found.

The SHA-1 digests are those MXNet 1.9.1 checks
(``python/mxnet/contrib/text/_constants.py``): every GloVe file, and the
most used fastText files (MXNet lists 294 fastText languages; a file not
listed here can still be loaded with ``CustomEmbedding``).

A pre-trained file ``<file>`` of embedding ``<name>`` (``glove``,
``fasttext``) is looked for, in order, in

1. ``<embedding_root>/<name>/`` and ``<embedding_root>/`` when the
   ``embedding_root`` (or ``root``) argument is given;
2. ``$DLBOOK_DATA/embeddings/<name>/``;
3. the user cache ``~/.dlbook/embeddings/<name>/`` (``$DLBOOK_HOME``
   replaces ``~/.dlbook``), then MXNet's own ``$MXNET_HOME/embeddings/
   <name>/`` (``~/.mxnet``);

and only then downloaded, as an archive whose SHA-1 is checked, from
MXNet's repository (``$MXNET_GLUON_REPO`` overrides it) into the first
writable of ``<embedding_root>/<name>`` or the user cache.  Offline, the
error lists every folder searched.
"""

import os
import warnings
import zipfile

from ..._atomic import atomic_write
from ..._datafiles import data_home, unique_dirs
from ..._download import fetch, file_digests
from ...base import DLBookError

REPO_URL = 'https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/'

GLOVE_ARCHIVES = {
    'glove.42B.300d.zip': 'f8e722b39578f776927465b71b231bae2ae8776a',
    'glove.6B.zip': 'b64e54f1877d2f735bdd000c1d7d771e25c7dfdc',
    'glove.840B.300d.zip': '8084fbacc2dee3b1fd1ca4cc534cbfff3519ed0d',
    'glove.twitter.27B.zip': 'dce69c404025a8312c323197347695e81fd529fc',
}

GLOVE_FILES = {
    'glove.42B.300d.txt': '876767977d6bd4d947c0f84d44510677bc94612a',
    'glove.6B.50d.txt': '21bf566a9d27f84d253e0cd4d4be9dcc07976a6d',
    'glove.6B.100d.txt': '16b1dbfaf35476790bd9df40c83e2dfbd05312f1',
    'glove.6B.200d.txt': '17d0355ddaa253e298ede39877d1be70f99d9148',
    'glove.6B.300d.txt': '646443dd885090927f8215ecf7a677e9f703858d',
    'glove.840B.300d.txt': '294b9f37fa64cce31f9ebb409c266fc379527708',
    'glove.twitter.27B.25d.txt': '767d80889d8c8a22ae7cd25e09d0650a6ff0a502',
    'glove.twitter.27B.50d.txt': '9585f4be97e286339bf0112d0d3aa7c15a3e864d',
    'glove.twitter.27B.100d.txt': '1bbeab8323c72332bd46ada0fc3c99f2faaa8ca8',
    'glove.twitter.27B.200d.txt': '7921c77a53aa5977b1d9ce3a7c4430cbd9d1207a',
}

FASTTEXT_ARCHIVES = {
    'crawl-300d-2M.zip': 'bb40313d15837ceecc1e879bc954e9be04b17c3c',
    'wiki.de.zip': '0d9e4bf80100b46237dcb73cfefe390103e7e827',
    'wiki.en.zip': '7f83d578a31a8168423c77ea25ad381494a5e920',
    'wiki.es.zip': '1b7668b23db26810ea433173ce0c11281e801f74',
    'wiki.fr.zip': 'd906e68760153d771e5982009b0150e913254b2d',
    'wiki.ja.zip': '7940f6c2bc490c04902f0faf0562b92cae7136bf',
    'wiki.ru.zip': 'f8f68aa5792941d7750b545e56f1ff5127e88cc2',
    'wiki.simple.zip': '367737535e39defb0e713a7ff2374cb932c5a9bc',
    'wiki.zh.zip': '2374ec566f6411b9bb570077636695fe9768a5ba',
}

FASTTEXT_FILES = {
    'crawl-300d-2M.vec': '9b556504d099a6c01f3dd76b88775d02cb2f1946',
    'wiki.de.vec': '2ed2696afe55f023b0040b238d9a47e5fedfe48b',
    'wiki.en.vec': 'c1e418f144ceb332b4328d27addf508731fa87df',
    'wiki.es.vec': '2f41401aa0925167176bcd7a6770423d891dfef5',
    'wiki.fr.vec': 'b092229005a65d8683a4112852fe6eb8161a6917',
    'wiki.ja.vec': '7a2b1af1e46d795410692a002e40fa3085135f69',
    'wiki.ru.vec': '7514a2c60ee4118abb451ed32a0d61cb52dec384',
    'wiki.simple.vec': '55267c50fbdf4e4ae0fbbda5c73830a379d68795',
    'wiki.zh.vec': '117ab34faa80e381641fbabf3a24bc8cfba44050',
}


def search_dirs(name, root=None):
    """The folders searched for embedding ``name``'s files, in order."""
    dirs = []
    if root is not None:
        root = os.path.expanduser(os.fspath(root))
        dirs += [os.path.join(root, name), root]
    data = os.environ.get('DLBOOK_DATA')
    if data:
        dirs.append(os.path.join(os.path.expanduser(data), 'embeddings', name))
    dirs.append(cache_dir(name))
    mxnet_home = os.path.expanduser(os.environ.get('MXNET_HOME', '~/.mxnet'))
    dirs.append(os.path.join(mxnet_home, 'embeddings', name))
    return unique_dirs(dirs)


def cache_dir(name):
    """The user cache folder of embedding ``name``."""
    return os.path.join(data_home(), 'embeddings', name)


def _sha1(path):
    return file_digests(path)[1]


def _download(url, path, sha1):
    """Download ``url`` to ``path`` (SHA-1 checked; raises on failure)."""
    return fetch(url, path, (sha1,), retries=1)


def _extract(archive, member, target):
    """Write ``member`` of the zip ``archive`` to ``target`` atomically."""
    with zipfile.ZipFile(archive) as zf:
        names = {os.path.basename(n): n for n in zf.namelist()}
        if member not in names:
            raise DLBookError(
                f'{archive} does not contain {member} (it '
                f'holds {sorted(names)})'
            )
        with zf.open(names[member]) as src, atomic_write(target) as dst:
            while True:
                chunk = src.read(1 << 20)
                if not chunk:
                    break
                dst.write(chunk)
    return target


def find_or_download(
    name, file_name, file_sha1, archive_name, archive_sha1, root=None
):
    """Path of pre-trained file ``file_name`` of embedding ``name``."""
    dirs = search_dirs(name, root)
    cache = cache_dir(name)
    notes = []
    for d in dirs:
        path = os.path.join(d, file_name)
        if not os.path.isfile(path):
            continue
        if _sha1(path) == file_sha1:
            return path
        if os.path.abspath(d) == os.path.abspath(cache):
            notes.append(
                f'{path} is corrupt (checksum mismatch); it will be '
                f'downloaded again'
            )
            continue
        warnings.warn(
            f'{path} does not match the SHA-1 of the canonical '
            f'{file_name}; using it anyway',
            stacklevel=4,
        )
        return path
    target = (
        os.path.join(os.path.expanduser(os.fspath(root)), name)
        if root is not None
        else cache
    )
    repo = os.environ.get('MXNET_GLUON_REPO', REPO_URL)
    if not repo.endswith('/'):
        repo += '/'
    url = f'{repo}gluon/embeddings/{name}/{archive_name}'
    archive = os.path.join(target, archive_name)
    try:
        if not (os.path.isfile(archive) and _sha1(archive) == archive_sha1):
            _download(url, archive, archive_sha1)
        return _extract(archive, file_name, os.path.join(target, file_name))
    except (DLBookError, OSError, zipfile.BadZipFile) as err:
        lines = (
            [
                f'cannot find the pre-trained {name} file {file_name}.',
                'Looked in:',
            ]
            + [f'  {d}' for d in dirs]
            + notes
            + [
                f'Download of {url} failed: {err}',
                'To provide the file, do one of:',
                f'  * pass embedding_root=<folder holding {name}/{file_name}>;',
                f'  * set DLBOOK_DATA to a folder holding '
                f'embeddings/{name}/{file_name};',
                f'  * copy it into {cache}.',
            ]
        )
        raise DLBookError('\n'.join(lines)) from err
