"""``nd.save`` / ``nd.load``: MXNet's binary NDArray file format, exactly.

A ``.params`` file written here loads in MXNet 1.x and the reverse, so
students can exchange weights with the real framework.  The layout (all
integers little-endian; src/ndarray/ndarray.cc in MXNet 1.9.1)::

    uint64 0x112                 file magic
    uint64 0                     reserved
    uint64 n                     number of arrays, then n times:
        uint32 magic             0xF993fac9 (V2) or 0xF993faca (V3)
        int32  stype             0 = dense; 1 = row_sparse, 2 = csr: see
                                 sparse_serialization.py
        int32  ndim, int64 * ndim      the shape
        int32  dev_type, int32 dev_id  where it was saved from
        int32  type_flag         dtype code, see ``base.DTYPE_TO_FLAG``
        raw data                 C order
    uint64 k                     number of names (0 for a list)
    k times: uint64 length, UTF-8 bytes

Older files are read too: V1 (magic 0xF993fac8) has no ``stype`` field, and
the oldest files have no magic at all: their first word is ``ndim``,
followed by ``uint32`` dimensions.  In V2 (MXNet's "legacy shape" mode) a
shape with ``ndim == 0`` means an empty ("none") array with nothing after
it, so dlbook writes a 0-d array with the V3 magic, where ``ndim == 0`` is a
scalar and ``ndim == -1`` is "none".

Where loaded arrays go: to ``ctx`` when given.  Otherwise MXNet restores the
saved device; dlbook does the same for a GPU that exists here, and puts
everything else (any CPU device, or a GPU this machine lacks) on ``cpu(0)``
-- MXNet also loads every CPU array onto ``cpu(0)``.
"""

__all__ = ['save', 'load', 'load_frombuffer', 'save_to_bytes']

import io
import math
import os
import struct
import sys

import numpy

from .._atomic import atomic_write
from .._np_state import is_np_shape
from ..base import DTYPE_TO_FLAG, FLAG_TO_DTYPE, DLBookError
from ..context import Context, cpu, num_gpus
from .ndarray import NDArray, from_raw

_FILE_MAGIC = 0x112
_V1_MAGIC = 0xF993FAC8
_V2_MAGIC = 0xF993FAC9
_V3_MAGIC = 0xF993FACA
_BFLOAT16_FLAG = 12
_MAX_NDIM = 32  # no real array has more; guards corrupt files


# --------------------------------------------------------------- writing


def _check_data(data):
    """Return ``(arrays, names)`` from what ``save`` accepts, like MXNet."""
    if isinstance(data, NDArray):
        return [data], []
    if isinstance(data, dict):
        if any(not isinstance(k, str) for k in data) or any(
            not isinstance(v, NDArray) for v in data.values()
        ):
            raise TypeError(
                'save only accept dict str->NDArray or list of NDArray'
            )
        return list(data.values()), list(data.keys())
    if isinstance(data, (list, tuple)):
        if any(not isinstance(v, NDArray) for v in data):
            raise TypeError(
                'save only accept dict str->NDArray or list of NDArray'
            )
        return list(data), []
    raise ValueError(
        'data needs to either be a NDArray, dict of str, '
        'NDArray pairs or a list of NDarrays.'
    )


def _host_copy(x):
    """The array's data as a C-contiguous little-endian NumPy array."""
    raw = x._data
    if not isinstance(raw, numpy.ndarray):
        raw = x.asnumpy()  # device memory: copy to host
    if not raw.flags.c_contiguous:  # (ascontiguousarray makes 0-d 1-d)
        raw = raw.copy(order='C')
    if raw.dtype.byteorder == '>' or (
        raw.dtype.byteorder == '=' and sys.byteorder == 'big'
    ):
        raw = raw.astype(raw.dtype.newbyteorder('<'))
    return raw


def _write_array(f, x, index):
    if x.stype != 'default':
        from .sparse_serialization import write_sparse

        return write_sparse(f, x, _V2_MAGIC, index)
    raw = _host_copy(x)
    flag = DTYPE_TO_FLAG.get(raw.dtype.name)
    if flag is None:
        raise DLBookError(
            f'nd.save: array {index} has dtype '
            f'{raw.dtype.name}, which the MXNet file format '
            f'cannot store; use one of '
            f'{sorted(DTYPE_TO_FLAG)}'
        )
    # V2 would read ndim == 0 as "no array", so scalars use V3; in
    # NumPy-shape mode (npx.set_np) MXNet writes V3 for every array.
    magic = _V3_MAGIC if raw.ndim == 0 or is_np_shape() else _V2_MAGIC
    ctx = x.context
    f.write(struct.pack('<Iii', magic, 0, raw.ndim))
    f.write(struct.pack(f'<{raw.ndim}q', *raw.shape))
    f.write(struct.pack('<iii', ctx.device_typeid, ctx.device_id, flag))
    f.write(raw.reshape(-1).view(numpy.uint8).data)


def _write_all(f, arrays, names):
    f.write(struct.pack('<QQQ', _FILE_MAGIC, 0, len(arrays)))
    for index, x in enumerate(arrays):
        _write_array(f, x, index)
    f.write(struct.pack('<Q', len(names)))
    for name in names:
        encoded = name.encode('utf-8')
        f.write(struct.pack('<Q', len(encoded)))
        f.write(encoded)


def save(fname, data):
    """Save NDArrays to a file in MXNet's binary format.

    Parameters
    ----------
    fname : str or os.PathLike
        The file to write.  It is written atomically: a failure part way
        leaves any previous file untouched and no partial file behind.
    data : NDArray, list of NDArray or dict of str to NDArray
        A dict keeps its names (``nd.load`` then returns a dict); a list
        or a single array is stored without names.

    Examples
    --------
    >>> x = mx.nd.ones((2, 3))
    >>> mx.nd.save('x.params', {'weight': x})          # doctest: +SKIP
    >>> mx.nd.load('x.params')                          # doctest: +SKIP
    {'weight':
    [[1. 1. 1.]
     [1. 1. 1.]]
    <NDArray 2x3 @cpu(0)>}
    """
    arrays, names = _check_data(data)
    with atomic_write(fname) as f:
        _write_all(f, arrays, names)


def save_to_bytes(data):
    """The bytes :func:`save` would write for ``data`` (no file)."""
    arrays, names = _check_data(data)
    buf = io.BytesIO()
    _write_all(buf, arrays, names)
    return buf.getvalue()


# --------------------------------------------------------------- reading


class _Reader:
    """Reads a stream, turning short reads into errors that say where."""

    def __init__(self, f, source, size):
        self.f, self.source, self.size = f, source, size
        self.index = None  # the array being read, if any

    def fail(self, what):
        where = '' if self.index is None else f'array {self.index}: '
        raise DLBookError(f'cannot load {self.source}: {where}{what}')

    def remaining(self):
        return self.size - self.f.tell()

    def unpack(self, fmt, what):
        n = struct.calcsize(fmt)
        data = self.f.read(n)
        if len(data) != n:
            self.fail(
                f'file is truncated while reading {what} (needs {n} '
                f'bytes at offset {self.f.tell() - len(data)}, only '
                f'{len(data)} left)'
            )
        return struct.unpack(fmt, data)

    def read_into(self, array, what):
        view = memoryview(array.reshape(-1).view(numpy.uint8))
        n = self.f.readinto(view) if view.nbytes else 0
        if n != view.nbytes:
            self.fail(
                f'file is truncated while reading {what} (needs '
                f'{view.nbytes} bytes, only {n} left)'
            )


def _read_shape(r, magic):
    """The shape, per format version; ``None`` for a "none" array."""
    if magic in (_V2_MAGIC, _V3_MAGIC, _V1_MAGIC):
        (ndim,) = r.unpack('<i', 'ndim')
        if magic == _V3_MAGIC and ndim == -1:
            return None
        if magic != _V3_MAGIC and ndim == 0:
            return None
        if not 0 <= ndim <= _MAX_NDIM:
            r.fail(f'corrupt shape: ndim = {ndim}')
        shape = r.unpack(f'<{ndim}q', 'the shape')
    else:  # no magic: it was ndim, uint32 dims
        ndim = magic
        if ndim == 0:
            return None
        shape = r.unpack(f'<{ndim}I', 'the shape')
    if any(d < 0 for d in shape):
        r.fail(f'corrupt shape {shape}: negative dimension')
    return tuple(shape)


def _target_context(dev_type, dev_id, ctx):
    if ctx is not None:
        return ctx
    if dev_type == Context.devstr2type['gpu'] and 0 <= dev_id < num_gpus():
        return Context('gpu', dev_id)
    return cpu(0)


def _wrap(raw, ctx):
    if ctx.device_type != 'gpu':
        return from_raw(raw, ctx)
    with ctx.backend.scope(ctx.device_id):
        return from_raw(ctx.backend.asarray(raw, ctx.device_id), ctx)


def _read_array(r, ctx):
    (magic,) = r.unpack('<I', 'the array magic number')
    if magic in (_V2_MAGIC, _V3_MAGIC):
        (stype,) = r.unpack('<i', 'the storage type')
        if stype != 0:
            from .sparse_serialization import read_sparse

            return read_sparse(
                r,
                stype,
                lambda dev_type, dev_id: _target_context(
                    dev_type, dev_id, ctx
                ),
            )
    elif magic != _V1_MAGIC and magic > _MAX_NDIM:
        r.fail(
            f'bad array magic number 0x{magic:08x} (expected '
            f'0x{_V2_MAGIC:08x}); the file is corrupt or not an MXNet '
            f'NDArray file'
        )
    shape = _read_shape(r, magic)
    if shape is None:  # MXNet's uninitialised array
        return from_raw(numpy.zeros((0,), numpy.float32), ctx or cpu(0))
    dev_type, dev_id, flag = r.unpack('<iii', 'the context and dtype')
    if flag == _BFLOAT16_FLAG:
        dtype = numpy.dtype('<u2')
    elif flag in FLAG_TO_DTYPE:
        dtype = numpy.dtype(FLAG_TO_DTYPE[flag]).newbyteorder('<')
    else:
        r.fail(f'unknown dtype flag {flag}')
    count = math.prod(shape)  # exact: int64 would wrap around
    if count * dtype.itemsize > r.remaining():
        r.fail(
            f'file is truncated: shape {shape} of {dtype.name} needs '
            f'{count * dtype.itemsize} bytes of data, only '
            f'{max(r.remaining(), 0)} left'
        )
    try:
        raw = numpy.empty(shape, dtype)
    except (ValueError, MemoryError):
        r.fail(f'corrupt shape {shape}: too large for an array')
    r.read_into(raw, 'the data')
    if flag == _BFLOAT16_FLAG:  # NumPy has no bfloat16: widen
        raw = (raw.astype(numpy.uint32) << 16).view(numpy.float32)
    raw = raw.astype(raw.dtype.newbyteorder('='), copy=False)
    return _wrap(raw, _target_context(dev_type, dev_id, ctx))


def _read_all(f, source, size, ctx):
    r = _Reader(f, source, size)
    if size < 24:
        r.fail(
            f'file is truncated or not an MXNet NDArray file ({size} bytes)'
        )
    header, _reserved = r.unpack('<QQ', 'the header')
    if header != _FILE_MAGIC:
        r.fail(
            f'not an MXNet NDArray file (header 0x{header:x}, '
            f'expected 0x{_FILE_MAGIC:x})'
        )
    (count,) = r.unpack('<Q', 'the number of arrays')
    if count > size:  # each array takes bytes
        r.fail(f'corrupt array count {count}')
    arrays = []
    for index in range(count):
        r.index = index
        arrays.append(_read_array(r, ctx))
    r.index = None
    (num_names,) = r.unpack('<Q', 'the number of names')
    if num_names not in (0, count):
        r.fail(f'{num_names} names for {count} arrays')
    names = []
    for index in range(num_names):
        (length,) = r.unpack('<Q', f'the length of name {index}')
        if length > r.remaining():
            r.fail(f'file is truncated while reading name {index}')
        try:
            names.append(f.read(length).decode('utf-8'))
        except UnicodeDecodeError:
            r.fail(f'name {index} is not valid UTF-8')
    if not names:
        return arrays
    return dict(zip(names, arrays))


def load(fname, ctx=None):
    """Load NDArrays saved by :func:`save` or by MXNet's ``nd.save``.

    Parameters
    ----------
    fname : str or os.PathLike
        The file to read.
    ctx : Context, optional
        Put every array here.  By default an array saved from a GPU that
        exists here returns to it; everything else goes to ``cpu(0)``.

    Returns
    -------
    list of NDArray or dict of str to NDArray
        A dict if names were stored (``save`` was given a dict), else a
        list.

    Raises
    ------
    DLBookError
        If the file is truncated or corrupt; the message names the file,
        the array index and what was wrong.
    """
    if not isinstance(fname, (str, os.PathLike)):
        raise TypeError('fname required to be a string')
    fname = os.fspath(fname)
    with open(fname, 'rb') as f:
        return _read_all(f, repr(fname), os.fstat(f.fileno()).st_size, ctx)


def load_frombuffer(buf, ctx=None):
    """Load NDArrays from the bytes of a saved file (see :func:`load`)."""
    if not isinstance(buf, (bytes, bytearray, memoryview)):
        raise TypeError('buf required to be a bytes-like object')
    buf = bytes(buf)
    return _read_all(io.BytesIO(buf), 'buffer', len(buf), ctx)
