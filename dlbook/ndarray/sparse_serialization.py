"""Sparse arrays in MXNet's ``nd.save`` format (``NDArray::Save`` in
apache/mxnet@1.9.1:src/ndarray/ndarray.cc).

After the array magic comes the storage type (1 = row_sparse, 2 = csr);
a sparse array then stores::

    storage shape               int32 ndim, int64 * ndim  (shape of data)
    shape                       int32 ndim, int64 * ndim
    int32 dev_type, dev_id      where it was saved from
    int32 type_flag             dtype of the values
    per auxiliary array:        int32 type_flag, then its shape
    values                      raw, C order
    auxiliary arrays            raw, in the same order

The auxiliary arrays are ``indptr, indices`` for csr and ``indices`` for
row_sparse, int64 as MXNet writes them.
"""

import struct

import numpy

from ..base import DTYPE_TO_FLAG, FLAG_TO_DTYPE, DLBookError

__all__ = ['STYPE_CODES', 'write_sparse', 'read_sparse']

STYPE_CODES = {'row_sparse': 1, 'csr': 2}
_AUX = {'row_sparse': ('indices',), 'csr': ('indptr', 'indices')}


def _write_shape(f, shape):
    f.write(struct.pack('<i', len(shape)))
    f.write(struct.pack(f'<{len(shape)}q', *shape))


def _le(a):
    a = numpy.ascontiguousarray(a)
    return a.astype(a.dtype.newbyteorder('<'), copy=False)


def write_sparse(f, x, magic, index):
    """Write the sparse NDArray ``x`` (after ``magic``)."""
    stype = x.stype
    values = _le(x.data.asnumpy())
    aux = [
        _le(getattr(x, name).asnumpy().astype('int64')) for name in _AUX[stype]
    ]
    flag = DTYPE_TO_FLAG.get(values.dtype.name)
    if flag is None:
        raise DLBookError(
            f'nd.save: array {index} has dtype '
            f'{values.dtype.name}, which the MXNet file format '
            f'cannot store'
        )
    f.write(struct.pack('<Ii', magic, STYPE_CODES[stype]))
    _write_shape(f, values.shape)
    _write_shape(f, x.shape)
    ctx = x.context
    f.write(struct.pack('<iii', ctx.device_typeid, ctx.device_id, flag))
    for a in aux:
        f.write(struct.pack('<i', DTYPE_TO_FLAG['int64']))
        _write_shape(f, a.shape)
    for a in (values, *aux):
        f.write(a.reshape(-1).view(numpy.uint8).data)


def _read_shape(r, what):
    (ndim,) = r.unpack('<i', f'the {what} ndim')
    if not 0 <= ndim <= 32:
        r.fail(f'corrupt {what}: ndim = {ndim}')
    return tuple(r.unpack(f'<{ndim}q', f'the {what}'))


def _read_raw(r, flag, shape, what):
    if flag not in FLAG_TO_DTYPE:
        r.fail(f'unknown dtype flag {flag} for the {what}')
    dtype = numpy.dtype(FLAG_TO_DTYPE[flag]).newbyteorder('<')
    count = int(numpy.prod(shape, dtype=numpy.int64))
    if count * dtype.itemsize > r.remaining():
        r.fail(f'file is truncated while reading the {what}')
    raw = numpy.empty(shape, dtype)
    r.read_into(raw, f'the {what}')
    return raw.astype(raw.dtype.newbyteorder('='), copy=False)


def read_sparse(r, code, target_context):
    """Read a sparse array whose storage code ``code`` was just read;
    ``target_context(dev_type, dev_id)`` says where it goes."""
    stype = {v: k for k, v in STYPE_CODES.items()}.get(code)
    if stype is None:
        r.fail(f'unknown storage type {code}')
    storage_shape = _read_shape(r, 'storage shape')
    shape = _read_shape(r, 'shape')
    dev_type, dev_id, flag = r.unpack('<iii', 'the context and dtype')
    aux_meta = []
    for name in _AUX[stype]:
        (aux_flag,) = r.unpack('<i', f'the {name} dtype')
        aux_meta.append((name, aux_flag, _read_shape(r, f'{name} shape')))
    values = _read_raw(r, flag, storage_shape, 'values')
    aux = {name: _read_raw(r, f_, s, name) for name, f_, s in aux_meta}
    ctx = target_context(dev_type, dev_id)
    from . import sparse

    try:
        if stype == 'csr':
            if (
                len(shape) != 2
                or aux['indptr'].shape != (shape[0] + 1,)
                or aux['indices'].shape != values.shape
            ):
                raise ValueError(
                    f'shape {shape}, {values.size} values, '
                    f'indptr of shape {aux["indptr"].shape}'
                )
            x = sparse.csr_matrix(
                (values, aux['indices'], aux['indptr']), shape=shape, ctx=ctx
            )
        else:
            if (
                not shape
                or values.shape[1:] != shape[1:]
                or aux['indices'].shape != values.shape[:1]
            ):
                raise ValueError(
                    f'shape {shape}, rows of shape {values.shape}'
                )
            x = sparse.row_sparse_array(
                (values, aux['indices']), shape=shape, ctx=ctx
            )
        x.check_format()
    except (ValueError, DLBookError) as err:
        r.fail(f'corrupt {stype} array: {err}')
    return x
