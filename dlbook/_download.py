"""Downloading files with checksums: ``download``, ``fetch``, ``check_sha1``.

Every file dlbook fetches (data sets, pretrained models, embeddings) comes
through here: written atomically (a temporary file renamed into place)
and kept only if its SHA-1 (or MD5) matches the known value.  It sits
below ``gluon``, ``mx.io`` and ``mx.image`` so that all of them import
downward; ``gluon.utils`` re-exports MXNet's names ``download`` and
``check_sha1``.
"""

import hashlib
import os
import ssl
import time
import urllib.request
import warnings

from ._atomic import atomic_write
from .base import DLBookError

# Indirection so tests can replace the network with a fake.
_urlopen = urllib.request.urlopen
_RETRY_DELAY_S = 1.0
_CHUNK = 1 << 20


# --------------------------------------------------------------- hashing


def file_digests(filename):
    """``(md5, sha1)`` hex digests of a file, read once in chunks."""
    md5, sha1 = hashlib.md5(), hashlib.sha1()
    with open(filename, 'rb') as f:
        for chunk in iter(lambda: f.read(_CHUNK), b''):
            md5.update(chunk)
            sha1.update(chunk)
    return md5.hexdigest(), sha1.hexdigest()


def check_sha1(filename, sha1_hash):
    """Whether the SHA-1 of ``filename`` equals ``sha1_hash`` (hex).

    Parameters
    ----------
    filename : str
    sha1_hash : str
        Expected hex digest (MXNet's model-zoo files are named by it).

    Returns
    -------
    bool
    """
    sha1 = hashlib.sha1()
    with open(filename, 'rb') as f:
        for chunk in iter(lambda: f.read(_CHUNK), b''):
            sha1.update(chunk)
    return sha1.hexdigest() == sha1_hash


def digest_matches(known, md5, sha1):
    """Whether a file with these digests is one of ``known`` (hex MD5s or
    SHA-1s; an empty ``known`` accepts anything)."""
    if not known:
        return True
    return any(k.lower() in (md5, sha1) for k in known)


# --------------------------------------------------------------- download


def _ssl_context(verify_ssl):
    if verify_ssl:
        return None
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def _fetch_once(url, fname, known, verify_ssl):
    """Stream ``url`` into ``fname`` atomically; check the hash first."""
    md5, sha1 = hashlib.md5(), hashlib.sha1()
    kwargs = {'timeout': 60}
    if url.startswith('https:') and not verify_ssl:
        kwargs['context'] = _ssl_context(verify_ssl)
    with _urlopen(url, **kwargs) as response, atomic_write(fname) as f:
        status = getattr(response, 'status', None)
        if status is not None and status != 200:
            raise DLBookError(
                f'Failed downloading url {url} (HTTP status {status})'
            )
        for chunk in iter(lambda: response.read(_CHUNK), b''):
            md5.update(chunk)
            sha1.update(chunk)
            f.write(chunk)
        if not digest_matches(known, md5.hexdigest(), sha1.hexdigest()):
            raise DLBookError(
                f'File {fname} is downloaded but the content hash does not '
                f'match (md5 {md5.hexdigest()}, sha1 {sha1.hexdigest()}, '
                f'expected one of {", ".join(known)}). The mirror may be '
                f'outdated or the download incomplete.'
            )


def fetch(url, fname, known=(), retries=5, verify_ssl=True):
    """Download ``url`` to ``fname``, retrying, keeping only a verified
    complete file.  Raises :class:`DLBookError` after the last failure.

    Parameters
    ----------
    url : str
    fname : str
        Destination; its directory is created if missing.
    known : sequence of str
        Acceptable MD5 or SHA-1 hex digests (empty: accept any).
    retries : int
        Further attempts after the first.
    verify_ssl : bool
    """
    if retries < 0:
        raise ValueError(
            f'Number of retries should be at least 0, '
            f"currently it's {retries}"
        )
    os.makedirs(os.path.dirname(os.path.abspath(fname)), exist_ok=True)
    for attempt in range(retries + 1):
        try:
            print(f'Downloading {fname} from {url}...')
            _fetch_once(url, fname, tuple(known), verify_ssl)
            return fname
        except Exception as err:  # network, HTTP, hash
            left = retries - attempt
            if left <= 0:
                raise DLBookError(
                    f'cannot download {url}: {type(err).__name__}: {err}'
                ) from err
            print(
                f'download failed due to {err!r}, retrying, {left} '
                f'attempt{"s" if left > 1 else ""} left'
            )
            time.sleep(_RETRY_DELAY_S)
    return fname


def download(
    url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True
):
    """Download a file, unless a good copy is already there.

    Parameters
    ----------
    url : str
    path : str, optional
        Destination file or directory (default: the URL's file name in the
        current directory).
    overwrite : bool, default False
        Download even if the file exists.
    sha1_hash : str, optional
        Expected SHA-1; an existing file that does not match is fetched
        again, and a download that does not match is discarded.
    retries : int, default 5
    verify_ssl : bool, default True

    Returns
    -------
    str
        The file name.
    """
    if path is None:
        fname = url.split('/')[-1]
        if not fname:
            raise ValueError(
                "Can't construct file-name from this URL. "
                'Please set the `path` option manually.'
            )
    else:
        path = os.path.expanduser(path)
        if os.path.isdir(path):
            fname = os.path.join(path, url.split('/')[-1])
        else:
            fname = path
    if not verify_ssl:
        warnings.warn(
            'Unverified HTTPS request is being made '
            '(verify_ssl=False). Adding certificate verification '
            'is strongly advised.'
        )
    if (
        overwrite
        or not os.path.exists(fname)
        or (sha1_hash and not check_sha1(fname, sha1_hash))
    ):
        fetch(
            url, fname, (sha1_hash,) if sha1_hash else (), retries, verify_ssl
        )
    return fname
