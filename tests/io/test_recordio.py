"""mx.recordio: MXNet's RecordIO format, byte for byte, and the Gluon
datasets that read it (RecordFileDataset, vision.ImageRecordDataset)."""

import io
import os
import pickle
import struct
import subprocess
import sys
import threading

import numpy as np
import pytest

import dlbook as mx
from dlbook import gluon, recordio
from dlbook.base import DLBookError
from dlbook.gluon.data import DataLoader, RecordFileDataset
from dlbook.gluon.data.vision import ImageRecordDataset

MAGIC = struct.pack('<I', 0xCED7230A)


def _part(cflag, payload, pad=None):
    """One part as dmlc writes it, built by hand."""
    head = MAGIC + struct.pack('<I', cflag << 29 | len(payload))
    pad = -len(payload) % 4 if pad is None else pad
    return head + payload + b'\0' * pad


def _write(path, records):
    with recordio.MXRecordIO(str(path), 'w') as writer:
        for record in records:
            writer.write(record)


def _read_all(path):
    reader = recordio.MXRecordIO(str(path), 'r')
    out = []
    while True:
        record = reader.read()
        if record is None:
            break
        out.append(record)
    reader.close()
    return out


# ----------------------------------------------------------- the format


def test_byte_exact_fixture(tmp_path):
    # What MXNet (dmlc-core RecordIOWriter) writes for b'abcde' and for
    # a 10-byte record holding the magic word at offset 4: the payload is
    # cut there (cflag 1, then 3) and the magic word dropped.
    second = b'\x01\x02\x03\x04' + MAGIC + b'xy'
    expected = (
        MAGIC
        + b'\x05\x00\x00\x00'
        + b'abcde'
        + b'\0\0\0'
        + MAGIC
        + struct.pack('<I', 1 << 29 | 4)
        + b'\x01\x02\x03\x04'
        + MAGIC
        + struct.pack('<I', 3 << 29 | 2)
        + b'xy'
        + b'\0\0'
    )
    path = tmp_path / 'two.rec'
    with recordio.MXIndexedRecordIO(
        str(tmp_path / 'two.idx'), str(path), 'w'
    ) as writer:
        writer.write_idx(0, b'abcde')
        writer.write_idx(1, second)
    assert path.read_bytes() == expected
    assert (tmp_path / 'two.idx').read_text() == '0\t0\n1\t16\n'

    hand = tmp_path / 'hand.rec'
    hand.write_bytes(expected)
    assert _read_all(hand) == [b'abcde', second]


def test_round_trip_sizes_not_multiple_of_4(tmp_path):
    records = [bytes(range(n)) for n in range(10)] + [b'x' * 1001]
    path = tmp_path / 'sizes.rec'
    writer = recordio.MXIndexedRecordIO(
        str(tmp_path / 'sizes.idx'), str(path), 'w'
    )
    assert writer.tell() == 0
    offsets = []
    for i, record in enumerate(records):
        offsets.append(writer.tell())
        writer.write_idx(i, record)
        assert writer.tell() % 4 == 0  # records stay aligned
    writer.close()
    assert os.path.getsize(path) == sum(
        8 + len(r) + -len(r) % 4 for r in records
    )
    assert _read_all(path) == records
    reader = recordio.MXIndexedRecordIO(
        str(tmp_path / 'sizes.idx'), str(path), 'r'
    )
    assert reader.idx == dict(enumerate(offsets))
    reader.close()


def test_read_returns_none_at_end_and_reset_starts_again(tmp_path):
    path = tmp_path / 'r.rec'
    _write(path, [b'record_0', b'', b'record_2'])
    reader = recordio.MXRecordIO(str(path), 'r')
    assert [reader.read() for _ in range(4)] == [
        b'record_0',
        b'',
        b'record_2',
        None,
    ]
    assert reader.read() is None
    reader.reset()
    assert reader.read() == b'record_0'
    reader.close()
    reader.close()  # closing twice is fine


def test_empty_file_has_no_records(tmp_path):
    path = tmp_path / 'empty.rec'
    _write(path, [])
    assert path.read_bytes() == b''
    assert _read_all(path) == []


@pytest.mark.parametrize(
    'payload, parts',
    [
        # aligned magic words are cut out, one part per piece
        (
            b'abcd' + MAGIC + b'efgh' + MAGIC + b'ij',
            [(1, b'abcd'), (2, b'efgh'), (3, b'ij')],
        ),
        (MAGIC, [(1, b''), (3, b'')]),
        (MAGIC + MAGIC, [(1, b''), (2, b''), (3, b'')]),
        (b'abcd' + MAGIC, [(1, b'abcd'), (3, b'')]),
        # unaligned magic words stay in the payload
        (b'z' + MAGIC, [(0, b'z' + MAGIC)]),
        (b'zz' + MAGIC + b'z' + MAGIC, [(0, b'zz' + MAGIC + b'z' + MAGIC)]),
        # one aligned, one not
        (
            b'z' + MAGIC + b'zzz' + MAGIC + b'q',
            [(1, b'z' + MAGIC + b'zzz'), (3, b'q')],
        ),
    ],
)
def test_multi_part_records(tmp_path, payload, parts):
    expected = b''.join(_part(cflag, piece, pad=0) for cflag, piece in parts)
    expected += b'\0' * (-len(payload) % 4)
    path = tmp_path / 'multi.rec'
    _write(path, [payload, b'after'])
    data = path.read_bytes()
    assert data[: len(expected)] == expected
    assert _read_all(path) == [payload, b'after']


def test_multi_part_random_payloads(tmp_path):
    rng = np.random.RandomState(0)
    records = []
    for n in range(40):
        words = rng.randint(0, 2**32, size=n, dtype=np.uint64)
        words[rng.rand(n) < 0.3] = 0xCED7230A
        records.append(words.astype('<u4').tobytes()[: 4 * n - n % 3])
    path = tmp_path / 'random.rec'
    _write(path, records)
    assert _read_all(path) == records


def test_large_record(tmp_path):
    big = np.random.RandomState(1).bytes(3 << 20) + b'abc'
    path = tmp_path / 'big.rec'
    _write(path, [big, b'x'])
    assert _read_all(path) == [big, b'x']


def test_too_large_record_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(recordio.records, '_LENGTH_MASK', 15)
    with recordio.MXRecordIO(str(tmp_path / 'x.rec'), 'w') as writer:
        writer.write(b'x' * 15)
        with pytest.raises(DLBookError, match='16 bytes is too large'):
            writer.write(b'x' * 16)


# ------------------------------------------------------- random access


def test_indexed_random_access(tmp_path):
    idx, rec = str(tmp_path / 'data.idx'), str(tmp_path / 'data.rec')
    with recordio.MXIndexedRecordIO(idx, rec, 'w') as writer:
        for i in (5, 3, 9, 0):
            writer.write_idx(i, b'record_%d' % i + MAGIC * (i % 2))
    reader = recordio.MXIndexedRecordIO(idx, rec, 'r')
    assert reader.keys == [5, 3, 9, 0]
    for i in (9, 0, 5, 3, 9):
        assert reader.read_idx(i) == b'record_%d' % i + MAGIC * (i % 2)
    reader.seek(3)
    assert reader.read() == b'record_3' + MAGIC
    assert reader.read() == b'record_9' + MAGIC  # continues in file order
    assert reader.tell() == reader.idx[0]
    reader.close()


def test_string_keys(tmp_path):
    idx, rec = str(tmp_path / 's.idx'), str(tmp_path / 's.rec')
    with recordio.MXIndexedRecordIO(idx, rec, 'w', key_type=str) as writer:
        writer.write_idx('cat', b'meow')
        writer.write_idx('dog', b'woof')
        with pytest.raises(DLBookError, match='tabs or line breaks'):
            writer.write_idx('a\tb', b'')
    reader = recordio.MXIndexedRecordIO(idx, rec, 'r', key_type=str)
    assert reader.keys == ['cat', 'dog']
    assert reader.read_idx('dog') == b'woof'
    reader.close()


def test_idx_file_is_written_on_close_and_never_stale(tmp_path):
    idx, rec = tmp_path / 'a.idx', tmp_path / 'a.rec'
    idx.write_text('0\t0\n1\t999\n')  # an old index
    writer = recordio.MXIndexedRecordIO(str(idx), str(rec), 'w')
    assert not idx.exists()  # no stale index
    writer.write_idx(0, b'new')
    assert not idx.exists()
    writer.close()
    assert idx.read_text() == '0\t0\n'
    assert [
        p.name for p in tmp_path.iterdir() if p.name.startswith('.')
    ] == []  # no temporary left

    # An error inside the block: the index lists what was written.
    with (
        pytest.raises(RuntimeError, match='interrupted'),
        recordio.MXIndexedRecordIO(str(idx), str(rec), 'w') as writer,
    ):
        writer.write_idx(7, b'seven')
        raise RuntimeError('interrupted')
    reader = recordio.MXIndexedRecordIO(str(idx), str(rec), 'r')
    assert reader.keys == [7] and reader.read_idx(7) == b'seven'
    reader.close()


def test_unclosed_writer_writes_its_index_at_exit(tmp_path):
    code = (
        'import dlbook as mx\n'
        'w = mx.recordio.MXIndexedRecordIO("a.idx", "a.rec", "w")\n'
        'w.write_idx(0, b"zero")\n'
        'w.write_idx(1, b"one")\n'
    )
    out = subprocess.run(
        [sys.executable, '-c', code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stderr == ''
    assert (tmp_path / 'a.idx').read_text() == '0\t0\n1\t12\n'


def test_threads_read_concurrently(tmp_path):
    idx, rec = str(tmp_path / 't.idx'), str(tmp_path / 't.rec')
    with recordio.MXIndexedRecordIO(idx, rec, 'w') as writer:
        for i in range(200):
            writer.write_idx(i, bytes([i % 256]) * (i + 1))
    reader = recordio.MXIndexedRecordIO(idx, rec, 'r')
    errors = []

    def work(seed):
        order = np.random.RandomState(seed).permutation(200)
        for i in order:
            if reader.read_idx(int(i)) != bytes([i % 256]) * (i + 1):
                errors.append(i)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    reader.close()


def test_pickle_reader_continues_where_it_was(tmp_path):
    path = tmp_path / 'p.rec'
    _write(path, [b'a', b'b', b'c'])
    reader = recordio.MXRecordIO(str(path), 'r')
    assert reader.read() == b'a'
    copy = pickle.loads(pickle.dumps(reader))
    assert copy.read() == b'b' and copy.read() == b'c'
    assert reader.read() == b'b'  # independent
    reader.close()
    closed = pickle.loads(pickle.dumps(reader))
    assert not closed.is_open
    closed.open()
    assert closed.read() == b'a'


def test_pickle_open_writer_is_refused(tmp_path):
    writer = recordio.MXRecordIO(str(tmp_path / 'w.rec'), 'w')
    writer.write(b'keep me')
    with pytest.raises(DLBookError, match='empty it'):
        pickle.dumps(writer)
    writer.close()
    pickle.loads(pickle.dumps(writer))  # closed: harmless
    assert _read_all(tmp_path / 'w.rec') == [b'keep me']


def test_reader_after_fork_reopens_the_file(tmp_path):
    path = tmp_path / 'f.rec'
    _write(path, [b'first', b'second', b'third'])
    reader = recordio.MXRecordIO(str(path), 'r')
    assert reader.read() == b'first'
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        try:
            os.close(read_end)
            got = reader.read() + b',' + reader.read()
            os.write(write_end, got)
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, 'rb') as pipe:
        child = pipe.read()
    os.waitpid(pid, 0)
    assert child == b'second,third'
    assert reader.read() == b'second'  # parent unaffected
    reader.close()


# ------------------------------------------------------------- errors


def test_mode_errors(tmp_path):
    path = str(tmp_path / 'm.rec')
    with pytest.raises(ValueError, match='Invalid flag'):
        recordio.MXRecordIO(path, 'a')
    writer = recordio.MXRecordIO(path, 'w')
    with pytest.raises(TypeError, match='bytes, not str'):
        writer.write('text')
    with pytest.raises(DLBookError, match='open for writing'):
        writer.read()
    writer.close()
    with pytest.raises(DLBookError, match='closed'):
        writer.write(b'x')
    reader = recordio.MXRecordIO(path, 'r')
    with pytest.raises(DLBookError, match='open for reading'):
        reader.write(b'x')
    reader.close()
    with pytest.raises(
        DLBookError,
        match='cannot open RecordIO file .*missing.rec for reading',
    ):
        recordio.MXRecordIO(str(tmp_path / 'missing.rec'), 'r')


def test_truncated_file(tmp_path):
    path = tmp_path / 't.rec'
    _write(path, [b'abcde', b'0123456789'])
    data = path.read_bytes()  # 16 + 20 bytes
    path.write_bytes(data[:-3])
    reader = recordio.MXRecordIO(str(path), 'r')
    assert reader.read() == b'abcde'
    with pytest.raises(
        DLBookError,
        match=r't\.rec: truncated record: the '
        r'header promises 10 bytes .* at offset 16',
    ):
        reader.read()
    reader.close()
    path.write_bytes(data[:21])  # inside a header
    reader = recordio.MXRecordIO(str(path), 'r')
    reader.read()
    with pytest.raises(
        DLBookError, match='only 5 of the 8 header bytes .* at offset 16'
    ):
        reader.read()
    reader.close()


def test_truncated_multi_part_record(tmp_path):
    path = tmp_path / 'mp.rec'
    path.write_bytes(_part(1, b'abcd'))
    reader = recordio.MXRecordIO(str(path), 'r')
    with pytest.raises(
        DLBookError,
        match='starts at offset 0 has no last part .* at offset 12',
    ):
        reader.read()
    reader.close()
    path.write_bytes(_part(2, b'abcd'))
    reader = recordio.MXRecordIO(str(path), 'r')
    with pytest.raises(
        DLBookError,
        match='bad continuation flag 2 '
        r'\(expected 0 or 1\) at offset 0',
    ):
        reader.read()
    reader.close()


def test_damaged_length_does_not_allocate(tmp_path):
    path = tmp_path / 'len.rec'
    path.write_bytes(MAGIC + struct.pack('<I', (1 << 29) - 1) + b'abcd')
    reader = recordio.MXRecordIO(str(path), 'r')
    with pytest.raises(DLBookError, match='promises 536870911 bytes'):
        reader.read()
    reader.close()


def test_bad_magic(tmp_path):
    path = tmp_path / 'bad.rec'
    _write(path, [b'abcde', b'fgh'])
    data = bytearray(path.read_bytes())
    data[16] ^= 0xFF
    path.write_bytes(bytes(data))
    reader = recordio.MXRecordIO(str(path), 'r')
    assert reader.read() == b'abcde'
    with pytest.raises(
        DLBookError,
        match=r'bad\.rec: bad magic number '
        r'0xced723f5 .* at offset 16',
    ):
        reader.read()
    reader.close()
    text = tmp_path / 'notes.rec'
    text.write_text('hello world\n')
    with pytest.raises(DLBookError, match='bad magic number'):
        _read_all(text)


def test_index_errors(tmp_path):
    idx, rec = tmp_path / 'i.idx', tmp_path / 'i.rec'
    with recordio.MXIndexedRecordIO(str(idx), str(rec), 'w') as writer:
        writer.write_idx(1, b'one')
    reader = recordio.MXIndexedRecordIO(str(idx), str(rec), 'r')
    with pytest.raises(KeyError, match='key 2 is not in the index'):
        reader.read_idx(2)
    with pytest.raises(DLBookError, match=r'i\.idx of .*i\.rec'):
        reader.seek(2)
    reader.close()

    idx.write_text('1\t0\n2\t12\n')  # 12 is the end
    reader = recordio.MXIndexedRecordIO(str(idx), str(rec), 'r')
    with pytest.raises(
        DLBookError, match='no record for key 2 .* at offset 12'
    ):
        reader.read_idx(2)
    reader.close()
    idx.write_text('1\t4\n')  # not a record start
    reader = recordio.MXIndexedRecordIO(str(idx), str(rec), 'r')
    with pytest.raises(DLBookError, match='bad magic number .* at offset 4'):
        reader.read_idx(1)
    reader.close()

    idx.write_text('0\t0\n1 oops\n')
    with pytest.raises(
        DLBookError,
        match=r"i\.idx, line 2: expected "
        r"\"key<TAB>offset\".*'1 oops'",
    ):
        recordio.MXIndexedRecordIO(str(idx), str(rec), 'r')
    idx.unlink()
    with pytest.raises(
        DLBookError,
        match=r'index file .*i\.idx of .*i\.rec '
        r'not found',
    ):
        recordio.MXIndexedRecordIO(str(idx), str(rec), 'r')


# ------------------------------------------------------ IRHeader, pack


def test_pack_unpack_scalar_label():
    header = recordio.IRHeader(5, 4, 2574, 0)  # flag is set by pack
    s = recordio.pack(header, b'payload')
    assert s == struct.pack('<IfQQ', 0, 4.0, 2574, 0) + b'payload'
    got, payload = recordio.unpack(s)
    assert got == (0, 4.0, 2574, 0) and payload == b'payload'
    assert repr(got) == 'HEADER(flag=0, label=4.0, id=2574, id2=0)'
    assert isinstance(got.label, float)
    # float32 precision
    assert recordio.unpack(recordio.pack((0, 0.1, 0, 0), b''))[
        0
    ].label == float(np.float32(0.1))


@pytest.mark.parametrize(
    'label', [[1, 2.5, -3], np.array([1, 2.5, -3]), (1, 2.5, -3)]
)
def test_pack_unpack_vector_label(label):
    s = recordio.pack(recordio.IRHeader(0, label, 7, 1), b'xyz')
    assert s == (
        struct.pack('<IfQQ', 3, 0.0, 7, 1)
        + np.array([1, 2.5, -3], '<f4').tobytes()
        + b'xyz'
    )
    header, payload = recordio.unpack(s)
    assert header.flag == 3 and header.id == 7 and header.id2 == 1
    assert header.label.dtype == np.float32
    np.testing.assert_array_equal(header.label, [1, 2.5, -3])
    assert payload == b'xyz'


def test_unpack_errors():
    with pytest.raises(DLBookError, match='too short for the 24-byte'):
        recordio.unpack(b'abc')
    with pytest.raises(DLBookError, match='announces 3 float32 labels'):
        recordio.unpack(struct.pack('<IfQQ', 3, 0, 0, 0) + b'\0' * 8)


def _pixels(h=6, w=7, seed=0):
    return (
        np.random.RandomState(seed).randint(0, 256, (h, w, 3)).astype(np.uint8)
    )


def test_pack_img_png_round_trip_is_exact():
    pytest.importorskip('PIL.Image')
    img = _pixels()
    s = recordio.pack_img(
        recordio.IRHeader(0, 3, 1, 0), img, quality=9, img_fmt='.png'
    )
    assert s[24:32] == b'\x89PNG\r\n\x1a\n'
    header, out = recordio.unpack_img(s)
    assert header.label == 3.0
    assert out.shape == (6, 7, 3) and out.dtype == np.uint8
    np.testing.assert_array_equal(out, img)  # BGR in, BGR out
    # The file holds the true colours, as OpenCV writes them from BGR.
    from PIL import Image

    stored = np.asarray(Image.open(io.BytesIO(s[24:])))
    np.testing.assert_array_equal(stored, img[:, :, ::-1])
    grey = recordio.unpack_img(s, iscolor=0)[1]
    assert grey.shape == (6, 7)
    expected = np.rint(img[:, :, ::-1] @ np.array([0.299, 0.587, 0.114]))
    assert np.abs(grey - expected).max() <= 1
    # greyscale and RGBA PNGs, and NDArray input
    g = img[:, :, 0]
    assert_same = np.testing.assert_array_equal
    assert_same(
        recordio.unpack_img(
            recordio.pack_img(
                (0, 0, 0, 0),
                mx.nd.array(g[:, :, None], dtype='uint8'),
                img_fmt='.png',
            )
        )[1],
        g,
    )
    assert_same(
        recordio.unpack_img(
            recordio.pack_img((0, 0, 0, 0), g, img_fmt='.png'), iscolor=1
        )[1],
        np.repeat(g[:, :, None], 3, axis=2),
    )
    rgba = np.concatenate([img, g[:, :, None]], axis=2)
    assert_same(
        recordio.unpack_img(
            recordio.pack_img((0, 0, 0, 0), rgba, img_fmt='png')
        )[1],
        rgba,
    )


def test_pack_img_jpeg_is_close():
    pytest.importorskip('PIL.Image')
    y, x = np.mgrid[0:32, 0:40]
    img = np.stack([x * 6, y * 7, (x + y) * 3], axis=2).astype(np.uint8)
    s = recordio.pack_img(recordio.IRHeader(0, [1, 2], 9, 0), img)
    assert s[32:35] == b'\xff\xd8\xff'  # after 2 labels
    header, out = recordio.unpack_img(s, iscolor=1)
    np.testing.assert_array_equal(header.label, [1, 2])
    assert out.shape == img.shape
    assert np.abs(out.astype(int) - img).mean() < 3
    small = recordio.pack_img((0, 0, 0, 0), img, quality=10)
    assert len(small) < len(s)


def test_image_errors(monkeypatch):
    pytest.importorskip('PIL.Image')
    with pytest.raises(DLBookError, match='needs a uint8 image'):
        recordio.pack_img((0, 0, 0, 0), np.zeros((2, 2, 3)))
    with pytest.raises(DLBookError, match=r'shape .* got \(2, 2, 2\)'):
        recordio.pack_img((0, 0, 0, 0), np.zeros((2, 2, 2), np.uint8))
    with pytest.raises(DLBookError, match='cannot encode .* as JPEG'):
        recordio.pack_img((0, 0, 0, 0), np.zeros((2, 2, 4), np.uint8))
    with pytest.raises(DLBookError, match='unknown image format'):
        recordio.pack_img(
            (0, 0, 0, 0), np.zeros((2, 2), np.uint8), 95, '.nope'
        )
    with pytest.raises(DLBookError, match='cannot decode the image'):
        recordio.unpack_img(recordio.pack((0, 1, 2, 0), b'not an image'))


def test_without_pillow(monkeypatch):
    monkeypatch.setitem(sys.modules, 'PIL', None)
    with pytest.raises(
        DLBookError, match='pack_img needs Pillow, which is not installed'
    ):
        recordio.pack_img((0, 0, 0, 0), np.zeros((2, 2), np.uint8))
    with pytest.raises(DLBookError, match='unpack_img needs Pillow'):
        recordio.unpack_img(recordio.pack((0, 0, 0, 0), b''))


def test_import_does_not_load_pillow():
    code = 'import sys, dlbook; print("PIL" in sys.modules)'
    out = subprocess.run(
        [sys.executable, '-c', code],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == 'False'
    assert mx.recordio is recordio


# ------------------------------------------------------- Gluon datasets


def _int_records(tmp_path, n=23):
    rec = str(tmp_path / 'ints.rec')
    with recordio.MXIndexedRecordIO(
        str(tmp_path / 'ints.idx'), rec, 'w'
    ) as writer:
        for i in range(n):
            # Some records hold the magic word (multi-part on disk).
            words = np.array([i, i * i, 0xCED7230A if i % 3 else 7], '<u4')
            writer.write_idx(i, words.tobytes())
    return rec


def _decode_ints(record):
    return np.frombuffer(record, '<u4').astype(np.int64)


@pytest.mark.parametrize(
    'num_workers, thread_pool', [(0, False), (2, False), (2, True)]
)
def test_record_file_dataset_in_data_loader(
    tmp_path, num_workers, thread_pool
):
    rec = _int_records(tmp_path)
    ds = RecordFileDataset(rec)
    assert ds.idx_file == str(tmp_path / 'ints.idx')
    assert len(ds) == 23 and isinstance(ds[4], bytes)
    assert list(_decode_ints(ds[4])) == [4, 16, 0xCED7230A]
    with pytest.raises(IndexError):
        ds[23]
    loader = DataLoader(
        ds.transform(_decode_ints),
        batch_size=5,
        shuffle=True,
        num_workers=num_workers,
        thread_pool=thread_pool,
    )
    for _ in range(2):  # two epochs
        seen = np.concatenate([b.asnumpy() for b in loader])
        assert sorted(seen[:, 0]) == list(range(23))
        np.testing.assert_array_equal(seen[:, 1], seen[:, 0] ** 2)
    assert ds[22] == ds._record.read_idx(22)  # parent still fine


def test_record_file_dataset_pickles(tmp_path):
    ds = RecordFileDataset(_int_records(tmp_path))
    copy = pickle.loads(pickle.dumps(ds))
    assert len(copy) == len(ds) and copy[5] == ds[5]


def test_record_file_dataset_needs_idx(tmp_path):
    rec = _int_records(tmp_path)
    os.remove(tmp_path / 'ints.idx')
    with pytest.raises(
        DLBookError,
        match=r'index file .*ints\.idx of '
        r'.*ints\.rec not found',
    ):
        gluon.data.RecordFileDataset(rec)


def _image_records(tmp_path, labels, fmt='.png'):
    rec = str(tmp_path / 'images.rec')
    images = [_pixels(5, 4, seed=i) for i in range(len(labels))]
    with recordio.MXIndexedRecordIO(
        str(tmp_path / 'images.idx'), rec, 'w'
    ) as writer:
        for i, (img, label) in enumerate(zip(images, labels)):
            # pack_img takes OpenCV's BGR order; the data set gives RGB.
            writer.write_idx(
                i,
                recordio.pack_img(
                    recordio.IRHeader(0, label, i, 0),
                    img[:, :, ::-1],
                    img_fmt=fmt,
                ),
            )
    return rec, images


def _scale(data, label):
    return data.astype('float32') / 255, label


@pytest.mark.parametrize('num_workers', [0, 2])
def test_image_record_dataset_in_data_loader(tmp_path, num_workers):
    pytest.importorskip('PIL.Image')
    labels = [i % 4 for i in range(11)]
    rec, images = _image_records(tmp_path, labels)
    ds = ImageRecordDataset(rec)
    image, label = ds[3]
    assert isinstance(image, mx.nd.NDArray) and image.context == mx.cpu(0)
    assert image.shape == (5, 4, 3) and image.dtype == np.uint8
    np.testing.assert_array_equal(image.asnumpy(), images[3])
    assert label == 3.0 and isinstance(label, float)
    loader = DataLoader(ds, batch_size=4, num_workers=num_workers)
    X = np.concatenate([x.asnumpy() for x, _ in loader])
    y = np.concatenate([y.asnumpy() for _, y in loader])
    np.testing.assert_array_equal(X, np.stack(images))
    np.testing.assert_array_equal(y, labels)
    loader = DataLoader(
        ImageRecordDataset(rec, transform=_scale),
        batch_size=4,
        num_workers=num_workers,
    )
    X = np.concatenate([x.asnumpy() for x, _ in loader])
    assert X.dtype == np.float32
    np.testing.assert_allclose(X, np.stack(images) / 255, rtol=1e-6)


def test_image_record_dataset_flag_and_vector_labels(tmp_path):
    pytest.importorskip('PIL.Image')
    rec, _ = _image_records(tmp_path, [[1, 2, 3], [4, 5, 6]], fmt='.jpg')
    image, label = ImageRecordDataset(rec, flag=0)[1]
    assert image.shape == (5, 4, 1) and image.dtype == np.uint8
    assert label.dtype == np.float32
    np.testing.assert_array_equal(label, [4, 5, 6])
    image = ImageRecordDataset(rec)[0][0]
    assert image.shape == (5, 4, 3)


def test_image_record_dataset_errors(tmp_path):
    pytest.importorskip('PIL.Image')
    rec = str(tmp_path / 'bad.rec')
    with recordio.MXIndexedRecordIO(
        str(tmp_path / 'bad.idx'), rec, 'w'
    ) as writer:
        writer.write_idx(0, b'short')
        writer.write_idx(1, recordio.pack((0, 1, 1, 0), b'not an image'))
    ds = ImageRecordDataset(rec)
    with pytest.raises(
        DLBookError,
        match=r'bad\.rec, record 0: a record '
        r'of 5 bytes is too short',
    ):
        ds[0]
    with pytest.raises(
        DLBookError,
        match=r'cannot decode the image of '
        r'record 1 in .*bad\.rec',
    ):
        ds[1]
