"""Gluon helpers: data parallelism, gradient clipping, downloads.

``split_and_load`` cuts a batch into one slice per device (the heart of
multi-GPU training, and testable on ``cpu(0)``/``cpu(1)``);
``clip_global_norm`` rescales gradients whose joint norm is too large
(RNN training); ``download`` fetches a file atomically and checks its hash.
"""

__all__ = ['split_data', 'split_and_load', 'clip_global_norm', 'check_sha1',
           'download']

import hashlib
import math
import os
import ssl
import time
import urllib.request
import warnings

import numpy

from .. import ndarray as nd
from .._atomic import atomic_write
from ..base import DLBookError
from ..ndarray.ndarray import NDArray

# Indirection so tests can replace the network with a fake.
_urlopen = urllib.request.urlopen
_RETRY_DELAY_S = 1.0
_CHUNK = 1 << 20


def _slice_axis(data, axis, begin, end):
    if axis == 0:
        return data[begin:end]
    index = (slice(None),) * axis + (slice(begin, end),)
    return data[index]


def split_data(data, num_slice, batch_axis=0, even_split=True):
    """Split an NDArray into ``num_slice`` slices along ``batch_axis``.

    Parameters
    ----------
    data : NDArray
        A batch of data.
    num_slice : int
        Number of slices wanted.
    batch_axis : int, default 0
        The axis to cut.
    even_split : bool, default True
        Require equal slices (raise if ``num_slice`` does not divide the
        axis).  Otherwise the last slice takes the remainder, and fewer
        slices are made when there are fewer samples than slices.

    Returns
    -------
    list of NDArray
        Always a list, even for one slice.
    """
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise ValueError(
            f'data with shape {data.shape} cannot be evenly split into '
            f'{num_slice} slices along axis {batch_axis}. Use a batch size '
            f"that's multiple of {num_slice} or set even_split=False to "
            f'allow uneven partitioning of data.')
    step = size // num_slice
    if not even_split and size < num_slice:
        step, num_slice = 1, size
    return [_slice_axis(data, batch_axis, i * step,
                        (i + 1) * step if i < num_slice - 1 else size)
            for i in range(num_slice)]


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    """Split ``data`` into one slice per context and copy each there.

    Parameters
    ----------
    data : NDArray or array-like
        A batch (NumPy input is first made an NDArray on ``ctx_list[0]``).
    ctx_list : list of Context
        One slice per context, in order.
    batch_axis : int, default 0
    even_split : bool, default True
        See :func:`split_data`.

    Returns
    -------
    list of NDArray
        Slice ``i`` lives on ``ctx_list[i]``.

    Examples
    --------
    >>> X = mx.nd.arange(8).reshape((4, 2))
    >>> [x.context for x in split_and_load(X, [mx.cpu(0), mx.cpu(1)])]
    [cpu(0), cpu(1)]
    """
    if not isinstance(data, NDArray):
        data = nd.array(data, ctx=ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [s.as_in_context(ctx) for s, ctx in zip(slices, ctx_list)]


def _sum_of_squares(array):
    raw = array._data
    xp = array.context.xp
    flat = raw.reshape(-1)
    if flat.dtype.kind != 'f':
        flat = flat.astype('float64')
    return float(xp.dot(flat, flat))


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Rescale ``arrays`` in place so their joint 2-norm is at most
    ``max_norm``.

    The norm is ``sqrt(sum over arrays of sum(x ** 2))``; when it exceeds
    ``max_norm`` every array is multiplied by ``max_norm / norm``.

    Parameters
    ----------
    arrays : list of NDArray
        Usually the gradients of all parameters.
    max_norm : float
    check_isfinite : bool, default True
        Warn if the norm is NaN or infinite.

    Returns
    -------
    float or NDArray
        The norm before clipping: a NumPy float32 when
        ``check_isfinite`` is True (as MXNet), else a 1-element NDArray.
    """
    if not arrays:
        raise ValueError('clip_global_norm needs at least one array')
    total = math.sqrt(sum(_sum_of_squares(a) for a in arrays))
    total_norm = numpy.float32(total)
    if check_isfinite and not numpy.isfinite(total_norm):
        warnings.warn(UserWarning('nan or inf is detected. Clipping results '
                                  'will be undefined.'), stacklevel=2)
    scale = max_norm / (total + 1e-8)
    if scale < 1.0:
        for array in arrays:
            array *= scale
    if check_isfinite:
        return total_norm
    return nd.array([total_norm], ctx=arrays[0].context)


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
            raise DLBookError(f'Failed downloading url {url} (HTTP status '
                              f'{status})')
        for chunk in iter(lambda: response.read(_CHUNK), b''):
            md5.update(chunk)
            sha1.update(chunk)
            f.write(chunk)
        if not digest_matches(known, md5.hexdigest(), sha1.hexdigest()):
            raise DLBookError(
                f'File {fname} is downloaded but the content hash does not '
                f'match (md5 {md5.hexdigest()}, sha1 {sha1.hexdigest()}, '
                f'expected one of {", ".join(known)}). The mirror may be '
                f'outdated or the download incomplete.')


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
        raise ValueError(f'Number of retries should be at least 0, '
                         f"currently it's {retries}")
    os.makedirs(os.path.dirname(os.path.abspath(fname)), exist_ok=True)
    for attempt in range(retries + 1):
        try:
            print(f'Downloading {fname} from {url}...')
            _fetch_once(url, fname, tuple(known), verify_ssl)
            return fname
        except Exception as err:                 # network, HTTP, hash
            left = retries - attempt
            if left <= 0:
                raise DLBookError(f'cannot download {url}: '
                                  f'{type(err).__name__}: {err}') from err
            print(f'download failed due to {err!r}, retrying, {left} '
                  f'attempt{"s" if left > 1 else ""} left')
            time.sleep(_RETRY_DELAY_S)
    return fname


def download(url, path=None, overwrite=False, sha1_hash=None, retries=5,
             verify_ssl=True):
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
            raise ValueError("Can't construct file-name from this URL. "
                             'Please set the `path` option manually.')
    else:
        path = os.path.expanduser(path)
        if os.path.isdir(path):
            fname = os.path.join(path, url.split('/')[-1])
        else:
            fname = path
    if not verify_ssl:
        warnings.warn('Unverified HTTPS request is being made '
                      '(verify_ssl=False). Adding certificate verification '
                      'is strongly advised.')
    if overwrite or not os.path.exists(fname) or \
            (sha1_hash and not check_sha1(fname, sha1_hash)):
        fetch(url, fname, (sha1_hash,) if sha1_hash else (), retries,
              verify_ssl)
    return fname
