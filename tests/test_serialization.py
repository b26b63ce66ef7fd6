"""nd.save / nd.load: MXNet's binary format, byte for byte.

The fixture files here are assembled with ``struct.pack`` straight from
the documented layout (mxnet-semantics.md section 2, MXNet's
src/ndarray/ndarray.cc), independently of dlbook's writer, so a bug that
the writer and reader share cannot hide.
"""

import os
import struct

import numpy as np
import pytest

import dlbook as mx
from dlbook import nd
from dlbook.base import DTYPE_TO_FLAG, DLBookError
from dlbook.ndarray import serialization
from dlbook.ndarray.ndarray import from_raw

V1, V2, V3 = 0xF993FAC8, 0xF993FAC9, 0xF993FACA


def _array_v2(values, dev_type=1, dev_id=0, magic=V2):
    values = np.ascontiguousarray(values)
    flag = DTYPE_TO_FLAG[values.dtype.name]
    return (
        struct.pack('<Iii', magic, 0, values.ndim)
        + struct.pack(f'<{values.ndim}q', *values.shape)
        + struct.pack('<iii', dev_type, dev_id, flag)
        + values.astype(values.dtype.newbyteorder('<')).tobytes()
    )


def _names(*names):
    out = struct.pack('<Q', len(names))
    for name in names:
        out += struct.pack('<Q', len(name)) + name.encode()
    return out


def _file(*arrays, names=()):
    return (
        struct.pack('<QQQ', 0x112, 0, len(arrays))
        + b''.join(arrays)
        + _names(*names)
    )


WEIGHT = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
BIAS = np.array([1, -2, 3, 2**31 - 1], dtype=np.int32)


def _fixture_dict():
    return _file(
        _array_v2(WEIGHT),
        _array_v2(BIAS, dev_type=2, dev_id=0),
        names=('arg:weight', 'arg:bias'),
    )


# ------------------------------------------------------------ fixture files


def test_load_hand_written_dict_file(tmp_path):
    path = tmp_path / 'net.params'
    path.write_bytes(_fixture_dict())
    loaded = nd.load(str(path))
    assert isinstance(loaded, dict)
    assert list(loaded) == ['arg:weight', 'arg:bias']
    w, b = loaded['arg:weight'], loaded['arg:bias']
    assert w.shape == (2, 3) and w.dtype == np.float32
    np.testing.assert_array_equal(w.asnumpy(), WEIGHT)
    assert b.dtype == np.int32
    np.testing.assert_array_equal(b.asnumpy(), BIAS)
    # Saved from cpu(0) and from a GPU this machine may lack: both on cpu(0)
    # unless that GPU exists.
    assert w.context == mx.cpu(0)
    if mx.context.num_gpus() == 0:
        assert b.context == mx.cpu(0)


def test_save_writes_the_documented_bytes(tmp_path):
    path = tmp_path / 'net.params'
    nd.save(
        str(path),
        {
            'arg:weight': nd.array(WEIGHT),
            'arg:bias': nd.array(BIAS, dtype='int32'),
        },
    )
    expected = _file(
        _array_v2(WEIGHT), _array_v2(BIAS), names=('arg:weight', 'arg:bias')
    )
    assert path.read_bytes() == expected


def test_list_file_has_no_names(tmp_path):
    path = tmp_path / 'list.nd'
    nd.save(str(path), [nd.array(WEIGHT)])
    assert path.read_bytes() == _file(_array_v2(WEIGHT))
    loaded = nd.load(str(path))
    assert isinstance(loaded, list) and len(loaded) == 1


def test_single_ndarray_is_saved_as_a_list(tmp_path):
    path = tmp_path / 'one.nd'
    nd.save(str(path), nd.ones((2,)))
    loaded = nd.load(str(path))
    assert isinstance(loaded, list)
    np.testing.assert_array_equal(loaded[0].asnumpy(), [1, 1])


def test_load_v1_file(tmp_path):
    # V1: magic, int32 ndim + int64 dims, no storage type field.
    body = (
        struct.pack('<Ii', V1, 2)
        + struct.pack('<2q', 2, 3)
        + struct.pack('<iii', 1, 0, 0)
        + WEIGHT.tobytes()
    )
    path = tmp_path / 'v1.params'
    path.write_bytes(_file(body))
    (w,) = nd.load(str(path))
    np.testing.assert_array_equal(w.asnumpy(), WEIGHT)


def test_load_legacy_file_without_magic(tmp_path):
    # Oldest files: the first word is ndim, then uint32 dimensions.
    body = (
        struct.pack('<I', 2)
        + struct.pack('<2I', 2, 3)
        + struct.pack('<iii', 1, 0, 0)
        + WEIGHT.tobytes()
    )
    path = tmp_path / 'v0.params'
    path.write_bytes(_file(body, names=('w',)))
    loaded = nd.load(str(path))
    np.testing.assert_array_equal(loaded['w'].asnumpy(), WEIGHT)


def test_load_v3_scalar_and_none_arrays():
    scalar = (
        struct.pack('<Iii', V3, 0, 0)
        + struct.pack('<iii', 1, 0, 1)
        + struct.pack('<d', 2.5)
    )
    none_v2 = struct.pack('<Iii', V2, 0, 0)  # nothing follows
    none_v3 = struct.pack('<Iii', V3, 0, -1)
    out = (
        nd.load_frombuffer(_file(scalar, none_v2, none_v3))
        if hasattr(nd, 'load_frombuffer')
        else serialization.load_frombuffer(_file(scalar, none_v2, none_v3))
    )
    assert out[0].shape == () and out[0].dtype == np.float64
    assert float(out[0].asnumpy()) == 2.5
    assert out[1].size == 0 and out[2].size == 0


def test_load_bfloat16_widens_to_float32():
    values = np.array([1.0, -2.5, 3.140625], dtype=np.float32)
    bits = (values.view(np.uint32) >> 16).astype('<u2')
    body = (
        struct.pack('<Iii', V2, 0, 1)
        + struct.pack('<q', 3)
        + struct.pack('<iii', 1, 0, 12)
        + bits.tobytes()
    )
    (x,) = serialization.load_frombuffer(_file(body))
    assert x.dtype == np.float32
    np.testing.assert_array_equal(x.asnumpy(), values)


# ------------------------------------------------------------ round trips


@pytest.mark.parametrize('dtype', sorted(DTYPE_TO_FLAG))
def test_round_trip_every_dtype(tmp_path, dtype):
    values = (np.arange(24) % 7).reshape(2, 3, 4).astype(dtype)
    path = tmp_path / f'{dtype}.params'
    nd.save(str(path), {'x': nd.array(values, dtype=dtype)})
    x = nd.load(str(path))['x']
    assert x.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(x.asnumpy(), values)


@pytest.mark.parametrize('shape', [(0,), (2, 0, 3), (5,), (2, 3, 4, 5)])
def test_round_trip_shapes(tmp_path, shape):
    values = np.random.RandomState(0).randn(*shape).astype(np.float32)
    path = tmp_path / 'x.params'
    nd.save(str(path), [nd.array(values), nd.array(values * 2)])
    a, b = nd.load(str(path))
    assert a.shape == shape and b.shape == shape
    np.testing.assert_array_equal(a.asnumpy(), values)
    np.testing.assert_array_equal(b.asnumpy(), values * 2)


def test_round_trip_0d_array_uses_v3():
    x = from_raw(np.array(7.0, dtype=np.float32), mx.cpu(0))
    data = serialization.save_to_bytes([x])
    assert struct.unpack('<I', data[24:28])[0] == V3
    (y,) = serialization.load_frombuffer(data)
    assert y.shape == () and float(y.asnumpy()) == 7.0


def test_non_contiguous_and_dict_order(tmp_path):
    base = nd.array(np.arange(12).reshape(3, 4))
    view = from_raw(base._data.T, mx.cpu(0))  # not C-contiguous
    path = tmp_path / 'x.params'
    nd.save(str(path), {'b': view, 'a': base})
    loaded = nd.load(str(path))
    assert list(loaded) == ['b', 'a']
    np.testing.assert_array_equal(
        loaded['b'].asnumpy(), np.arange(12).reshape(3, 4).T
    )


def test_contexts_on_load(tmp_path):
    path = tmp_path / 'x.params'
    nd.save(str(path), [nd.ones((2,), ctx=mx.cpu(1))])
    (x,) = nd.load(str(path))
    assert x.context == mx.cpu(0)  # MXNet loads CPU data on cpu(0)
    (y,) = nd.load(str(path), ctx=mx.cpu(1))
    assert y.context == mx.cpu(1)
    header = path.read_bytes()[24 + 12 + 8 : 24 + 12 + 8 + 8]
    assert struct.unpack('<ii', header) == (1, 1)  # saved as cpu(1)


def test_loaded_arrays_are_writable(tmp_path):
    path = tmp_path / 'x.params'
    nd.save(str(path), [nd.ones((3,))])
    (x,) = nd.load(str(path))
    x[:] = 5
    np.testing.assert_array_equal(x.asnumpy(), [5, 5, 5])


def test_save_rejects_bad_input(tmp_path):
    with pytest.raises(TypeError, match='dict str->NDArray'):
        nd.save(str(tmp_path / 'x'), {'a': np.ones(2)})
    with pytest.raises(TypeError, match='list of NDArray'):
        nd.save(str(tmp_path / 'x'), [np.ones(2)])
    with pytest.raises(ValueError, match='data needs to either'):
        nd.save(str(tmp_path / 'x'), 3)
    with pytest.raises(TypeError, match='fname required'):
        nd.load(3)
    x = from_raw(np.ones(2, dtype=np.complex64), mx.cpu(0))
    with pytest.raises(DLBookError, match='complex64'):
        nd.save(str(tmp_path / 'x'), [x])
    assert not os.path.exists(tmp_path / 'x')


# ------------------------------------------------------------ damaged files


@pytest.mark.parametrize(
    'cut, where',
    [
        (10, 'header'),
        (24 + 6, 'array 0'),  # inside the first header
        (24 + 40, 'array 0'),  # inside the first data
        (24 + 64 + 40, 'array 1'),  # inside the second data
        (len(_fixture_dict()) - 5, 'name 1'),  # inside the last name
    ],
)
def test_truncated_file_errors_name_file_and_array(tmp_path, cut, where):
    path = tmp_path / 'cut.params'
    path.write_bytes(_fixture_dict()[:cut])
    with pytest.raises(DLBookError) as info:
        nd.load(str(path))
    message = str(info.value)
    assert 'cut.params' in message
    assert 'truncated' in message
    if where.startswith('array'):
        assert where in message
    if where.startswith('name'):
        assert where in message


def test_corrupt_files(tmp_path):
    path = tmp_path / 'bad.params'
    path.write_bytes(b'PK\x03\x04' + bytes(40))
    with pytest.raises(DLBookError, match='not an MXNet NDArray file'):
        nd.load(str(path))
    good = _fixture_dict()
    bad_magic = good[:24] + struct.pack('<I', 0xDEADBEEF) + good[28:]
    path.write_bytes(bad_magic)
    with pytest.raises(DLBookError, match='array 0: bad array magic'):
        nd.load(str(path))
    bad_flag = bytearray(good)
    offset = 24 + 12 + 16 + 8  # the type flag of array 0
    bad_flag[offset : offset + 4] = struct.pack('<i', 99)
    path.write_bytes(bytes(bad_flag))
    with pytest.raises(DLBookError, match='unknown dtype flag 99'):
        nd.load(str(path))
    sparse = _file(struct.pack('<Iii', V2, 2, 1) + bytes(40))
    path.write_bytes(sparse)
    with pytest.raises(DLBookError, match='csr'):
        nd.load(str(path))
    huge = _file(
        struct.pack('<Iii', V2, 0, 1)
        + struct.pack('<q', 10**12)
        + struct.pack('<iii', 1, 0, 0)
    )
    path.write_bytes(huge)
    with pytest.raises(DLBookError, match='truncated'):
        nd.load(str(path))


# ------------------------------------------------------------ atomic writes


def test_failed_save_leaves_no_partial_file(tmp_path, monkeypatch):
    path = tmp_path / 'model.params'

    def broken(f, x, index):
        f.write(b'partial data')
        raise OSError('disk full')

    monkeypatch.setattr(serialization, '_write_array', broken)
    with pytest.raises(OSError, match='disk full'):
        nd.save(str(path), [nd.ones((2,))])
    assert os.listdir(tmp_path) == []


def test_failed_save_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / 'model.params'
    nd.save(str(path), {'w': nd.ones((2,))})
    before = path.read_bytes()

    def broken(f, x, index):
        raise KeyboardInterrupt

    monkeypatch.setattr(serialization, '_write_array', broken)
    with pytest.raises(KeyboardInterrupt):
        nd.save(str(path), {'w': nd.zeros((2,))})
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ['model.params']


def test_saved_file_has_normal_permissions(tmp_path):
    path = tmp_path / 'x.params'
    nd.save(str(path), [nd.ones((1,))])
    umask = os.umask(0)
    os.umask(umask)
    assert (path.stat().st_mode & 0o777) == (0o666 & ~umask)
