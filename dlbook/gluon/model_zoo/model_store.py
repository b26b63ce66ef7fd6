"""Where pretrained model parameters come from (MXNet's ``model_store``).

Each pretrained model is one MXNet ``.params`` file named
``{name}-{short_hash}.params``, ``short_hash`` being the first 8 hex digits
of the file's SHA-1 (``resnet18_v1-a0666292.params``).  The table
``_model_sha1`` below is MXNet 1.9.1's: a file is used only if its SHA-1
matches, so a copy downloaded by MXNet itself is just as good.

:func:`get_model_file` looks for the file, in order, in

1. the ``root`` folder passed to the model constructor, if any;
2. ``$DLBOOK_MODELS`` (a shared, read-only copy, like ``$DLBOOK_DATA``
   for data sets);
3. the user cache ``~/.dlbook/models`` (``$DLBOOK_HOME`` replaces
   ``~/.dlbook``);
4. MXNet's cache ``$MXNET_HOME/models`` (default ``~/.mxnet/models``),
   read only.

When no good copy is found, the zip archive is downloaded from MXNet's
model repository (``apache_repo_url``, or ``$MXNET_GLUON_REPO`` when set)
into ``root`` (if given) or the user cache, unpacked, checked, and the
``.params`` file is written atomically.  When that fails too, the error
says where it looked, which URL it tried and how to provide the file.
"""

__all__ = [
    'get_model_file',
    'load_pretrained',
    'purge',
    'short_hash',
    'model_url',
    'search_dirs',
    'cache_dir',
]

import hashlib
import logging
import os
import shutil
import tempfile
import warnings

from ..._atomic import atomic_write
from ..._datafiles import data_home
from ...base import DLBookError
from .. import utils as _utils

MODELS_ENV = 'DLBOOK_MODELS'
REPO_ENV = 'MXNET_GLUON_REPO'
_RETRIES = 1
_LOG = logging.getLogger(__name__)

# SHA-1 of each pretrained parameter file (python/mxnet/gluon/model_zoo/
# model_store.py, MXNet 1.9.1).
_model_sha1 = {
    name: checksum
    for checksum, name in [
        ('44335d1f0046b328243b32a26a4fbd62d9057b45', 'alexnet'),
        ('f27dbf2dbd5ce9a80b102d89c7483342cd33cb31', 'densenet121'),
        ('b6c8a95717e3e761bd88d145f4d0a214aaa515dc', 'densenet161'),
        ('2603f878403c6aa5a71a124c4a3307143d6820e9', 'densenet169'),
        ('1cdbc116bc3a1b65832b18cf53e1cb8e7da017eb', 'densenet201'),
        ('ed47ec45a937b656fcc94dabde85495bbef5ba1f', 'inceptionv3'),
        ('9f83e440996887baf91a6aff1cccc1c903a64274', 'mobilenet0.25'),
        ('8e9d539cc66aa5efa71c4b6af983b936ab8701c3', 'mobilenet0.5'),
        ('529b2c7f4934e6cb851155b22c96c9ab0a7c4dc2', 'mobilenet0.75'),
        ('6b8c5106c730e8750bcd82ceb75220a3351157cd', 'mobilenet1.0'),
        ('36da4ff1867abccd32b29592d79fc753bca5a215', 'mobilenetv2_1.0'),
        ('e2be7b72a79fe4a750d1dd415afedf01c3ea818d', 'mobilenetv2_0.75'),
        ('aabd26cd335379fcb72ae6c8fac45a70eab11785', 'mobilenetv2_0.5'),
        ('ae8f9392789b04822cbb1d98c27283fc5f8aa0a7', 'mobilenetv2_0.25'),
        ('a0666292f0a30ff61f857b0b66efc0228eb6a54b', 'resnet18_v1'),
        ('48216ba99a8b1005d75c0f3a0c422301a0473233', 'resnet34_v1'),
        ('0aee57f96768c0a2d5b23a6ec91eb08dfb0a45ce', 'resnet50_v1'),
        ('d988c13d6159779e907140a638c56f229634cb02', 'resnet101_v1'),
        ('671c637a14387ab9e2654eafd0d493d86b1c8579', 'resnet152_v1'),
        ('a81db45fd7b7a2d12ab97cd88ef0a5ac48b8f657', 'resnet18_v2'),
        ('9d6b80bbc35169de6b6edecffdd6047c56fdd322', 'resnet34_v2'),
        ('ecdde35339c1aadbec4f547857078e734a76fb49', 'resnet50_v2'),
        ('18e93e4f48947e002547f50eabbcc9c83e516aa6', 'resnet101_v2'),
        ('f2695542de38cf7e71ed58f02893d82bb409415e', 'resnet152_v2'),
        ('264ba4970a0cc87a4f15c96e25246a1307caf523', 'squeezenet1.0'),
        ('33ba0f93753c83d86e1eb397f38a667eaf2e9376', 'squeezenet1.1'),
        ('dd221b160977f36a53f464cb54648d227c707a05', 'vgg11'),
        ('ee79a8098a91fbe05b7a973fed2017a6117723a8', 'vgg11_bn'),
        ('6bc5de58a05a5e2e7f493e2d75a580d83efde38c', 'vgg13'),
        ('7d97a06c3c7a1aecc88b6e7385c2b373a249e95e', 'vgg13_bn'),
        ('e660d4569ccb679ec68f1fd3cce07a387252a90a', 'vgg16'),
        ('7f01cf050d357127a73826045c245041b0df7363', 'vgg16_bn'),
        ('ad2f660d101905472b83590b59708b71ea22b2e5', 'vgg19'),
        ('f360b758e856f1074a85abd5fd873ed1d98297c3', 'vgg19_bn'),
    ]
}

apache_repo_url = 'https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/'
_url_format = '{repo_url}gluon/models/{file_name}.zip'


def short_hash(name):
    """The first 8 hex digits of the SHA-1 of model ``name``'s file."""
    if name not in _model_sha1:
        raise ValueError(f'Pretrained model for {name} is not available.')
    return _model_sha1[name][:8]


def model_url(file_name):
    """URL of the zip archive holding ``file_name + '.params'``: MXNet's
    repository, or ``$MXNET_GLUON_REPO`` when set."""
    repo_url = os.environ.get(REPO_ENV, apache_repo_url)
    if not repo_url.endswith('/'):
        repo_url += '/'
    return _url_format.format(repo_url=repo_url, file_name=file_name)


def cache_dir():
    """The user cache of model files: ``~/.dlbook/models``."""
    return os.path.join(data_home(), 'models')


def _mxnet_cache():
    home = os.environ.get('MXNET_HOME') or os.path.join('~', '.mxnet')
    return os.path.expanduser(os.path.join(home, 'models'))


def _download_dir(root):
    if root is not None:
        return os.path.expanduser(os.fspath(root))
    return cache_dir()


def search_dirs(root=None):
    """The folders searched for model files, in order (see the module
    docstring)."""
    dirs = []
    if root is not None:
        dirs.append(os.path.expanduser(os.fspath(root)))
    env = os.environ.get(MODELS_ENV)
    if env:
        dirs.append(os.path.expanduser(env))
    dirs += [cache_dir(), _mxnet_cache()]
    unique = []
    for d in dirs:
        if os.path.abspath(d) not in map(os.path.abspath, unique):
            unique.append(d)
    return unique


def _find_local(file_name, sha1_hash, dirs, target, notes):
    """The first copy of ``file_name`` whose SHA-1 matches, or None."""
    for d in dirs:
        path = os.path.join(d, file_name)
        if not os.path.isfile(path):
            continue
        if _utils.check_sha1(path, sha1_hash):
            return path
        if os.path.abspath(d) == os.path.abspath(target):
            _LOG.warning(
                'Mismatch in the content of model file detected. '
                'Downloading again.'
            )
            notes.append(
                f'{path} is corrupt (SHA-1 mismatch); it will be '
                f'downloaded again'
            )
        else:
            warnings.warn(
                f'Ignoring {path}: its SHA-1 does not match {sha1_hash}',
                stacklevel=4,
            )
            notes.append(f'{path} was ignored (SHA-1 mismatch)')
    return None


def _unpack(zip_path, member, path, sha1_hash):
    """Copy ``member`` of the zip to ``path`` atomically, keeping it only
    if its SHA-1 is ``sha1_hash``."""
    import zipfile  # only needed to download

    try:
        archive = zipfile.ZipFile(zip_path)
    except zipfile.BadZipFile as err:
        raise DLBookError(f'{zip_path} is not a zip archive: {err}') from err
    with archive:
        if member not in archive.namelist():
            raise DLBookError(f'{zip_path} does not contain {member}')
        sha1 = hashlib.sha1()
        with archive.open(member) as src, atomic_write(path) as dst:
            for chunk in iter(lambda: src.read(1 << 20), b''):
                sha1.update(chunk)
                dst.write(chunk)
            if sha1.hexdigest() != sha1_hash:
                raise ValueError(
                    'Downloaded file has different hash. Please try again.'
                )


def _download(url, file_name, target, sha1_hash):
    """Download and unpack ``url`` into ``target``; return the path."""
    os.makedirs(target, exist_ok=True)
    path = os.path.join(target, file_name)
    work = tempfile.mkdtemp(prefix='.download-', dir=target)
    try:
        zip_path = os.path.join(work, os.path.basename(url))
        _utils.download(url, path=zip_path, overwrite=True, retries=_RETRIES)
        _unpack(zip_path, file_name, path, sha1_hash)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return path


def _offline_error(name, file_name, sha1_hash, dirs, target, url, notes, err):
    lines = [
        f"cannot find the pretrained parameters of model '{name}' "
        f'({file_name}, SHA-1 {sha1_hash}).',
        'Looked in:',
    ]
    lines += [f'  {d}' for d in dirs]
    lines += notes
    lines += [
        'Download failed:',
        f'  {url}: {err}',
        'To provide the file, do one of:',
        f'  * download {url} where the network is reachable, unzip it '
        f'and copy {file_name} into {target};',
        f'  * pass root=<folder holding {file_name}> to the model;',
        f'  * set the environment variable {MODELS_ENV} to a folder '
        f'holding {file_name};',
        f'  * set {REPO_ENV} to a reachable mirror of the MXNet '
        f'model repository.',
    ]
    return DLBookError('\n'.join(lines))


def get_model_file(name, root=None):
    r"""Return the path of the pretrained parameter file of model ``name``,
    downloading it from the online model zoo when no good copy is found.

    Parameters
    ----------
    name : str
        Model name as in the table (``'resnet18_v1'``, ``'mobilenet0.25'``,
        ``'squeezenet1.1'`` ...).
    root : str, optional
        Folder searched first and where the file is downloaded to (created
        if needed).  Default: the user cache ``~/.dlbook/models``; see the
        module docstring for every folder searched.

    Returns
    -------
    str
        Path to ``{name}-{short_hash}.params``.

    Raises
    ------
    ValueError
        For a name with no pretrained file, or a download whose SHA-1 does
        not match.
    DLBookError
        When the file is nowhere and cannot be downloaded.
    """
    file_name = f'{name}-{short_hash(name)}.params'
    sha1_hash = _model_sha1[name]
    dirs = search_dirs(root)
    target = _download_dir(root)
    notes = []
    path = _find_local(file_name, sha1_hash, dirs, target, notes)
    if path is not None:
        return path
    if not notes:
        _LOG.info(
            'Model file not found. Downloading to %s.',
            os.path.join(target, file_name),
        )
    url = model_url(file_name[: -len('.params')])
    try:
        return _download(url, file_name, target, sha1_hash)
    except (DLBookError, OSError) as err:
        raise _offline_error(
            name, file_name, sha1_hash, dirs, target, url, notes, err
        ) from err


def load_pretrained(net, name, ctx=None, root=None):
    """Load MXNet's pretrained ImageNet weights of model ``name`` into
    ``net`` (a ``pretrained=True`` constructor's last step)."""
    net.load_parameters(get_model_file(name, root=root), ctx=ctx)
    return net


def purge(root=None):
    r"""Delete every ``.params`` file in ``root`` (default: the user cache
    ``~/.dlbook/models``)."""
    root = _download_dir(root)
    if not os.path.isdir(root):
        return
    for f in os.listdir(root):
        if f.endswith('.params'):
            os.remove(os.path.join(root, f))
