"""Fuzzing every file reader with damaged copies of valid files.

Each reader gets seeded mutations of a valid file it wrote (truncations,
bit flips, overwritten words such as huge declared sizes, inserted and
deleted bytes, appended garbage).  A damaged file may load (a flipped bit
in the data is still data) or raise dlbook's own error naming the
problem; it must never raise another exception type, hang, or allocate
much more memory than the file holds.

The default run is short (a few dozen files per reader, well under a
minute in total).  ``DLBOOK_FUZZ_EXAMPLES=5000`` runs that many mutations
per reader; ``DLBOOK_FUZZ_SEED`` changes the seed.
"""

import contextlib
import gzip
import io
import json
import os
import random
import signal
import struct
import tracemalloc

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, nd
from dlbook.base import DLBookError
from dlbook.gluon import Trainer, nn

EXAMPLES = int(os.environ.get('DLBOOK_FUZZ_EXAMPLES', '40'))
SEED = int(os.environ.get('DLBOOK_FUZZ_SEED', '0'))
SECONDS_PER_FILE = 10
# A reader may use this many times the file's size, plus a constant for
# the objects every load makes.
MEMORY_FACTOR = 16
MEMORY_SLACK = 4 << 20


# -- mutations -------------------------------------------------------------------


def _mutations(valid, rng, n):
    """``n`` damaged copies of the bytes ``valid``."""
    words = [
        b'\xff\xff\xff\xff',
        b'\xff\xff\xff\x7f',
        b'\x00\x00\x00\x00',
        struct.pack('<Q', 1 << 62),
        struct.pack('>I', 1 << 30),
        b'\xff' * 8,
        b'-1',
        b'99999999999',
    ]
    for _ in range(n):
        data = bytearray(valid)
        kind = rng.randrange(6)
        if kind == 0 or not data:  # truncate
            data = data[: rng.randrange(len(data) + 1)]
        elif kind == 1:  # flip 1-8 bits
            for _ in range(rng.randint(1, 8)):
                i = rng.randrange(len(data))
                data[i] ^= 1 << rng.randrange(8)
        elif kind == 2:  # a huge or odd word
            word = rng.choice(words)
            i = rng.randrange(len(data))
            if rng.random() < 0.5:
                i -= i % 4
            data[i : i + len(word)] = word
        elif kind == 3:  # insert bytes
            i = rng.randrange(len(data) + 1)
            data[i:i] = bytes(
                rng.randrange(256) for _ in range(rng.randint(1, 16))
            )
        elif kind == 4:  # delete bytes
            i = rng.randrange(len(data))
            del data[i : i + rng.randint(1, 16)]
        else:  # append garbage
            data += bytes(
                rng.randrange(256) for _ in range(rng.randint(1, 64))
            )
        yield bytes(data)


@contextlib.contextmanager
def _deadline(seconds, what):
    """Fail instead of hanging (POSIX main thread only)."""
    if not hasattr(signal, 'setitimer'):
        yield
        return

    def expired(*_):
        raise AssertionError(f'{what} took over {seconds} s (a hang?)')

    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _fuzz(tmp_path, name, valid, read, examples=EXAMPLES, offset=0):
    """Write each mutation of ``valid`` to ``tmp_path/name`` and call
    ``read(path)``: only DLBookError may escape, within time and memory."""
    rng = random.Random(f'{SEED}-{name}-{offset}')
    path = str(tmp_path / name)
    read_ok(path, valid, read)
    failures = []
    for number, data in enumerate(_mutations(valid, rng, examples)):
        with open(path, 'wb') as f:
            f.write(data)
        limit = MEMORY_FACTOR * len(data) + MEMORY_SLACK
        tracemalloc.start()
        try:
            with _deadline(SECONDS_PER_FILE, f'reading mutation {number}'):
                read(path)
        except DLBookError as err:
            assert str(err), 'an error without a message'
        except Exception as err:  # noqa: BLE001 - the point of the test
            failures.append(
                f'mutation {number} ({len(data)} bytes): '
                f'{type(err).__name__}: {err}'
            )
        finally:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        if peak > limit:
            failures.append(
                f'mutation {number} ({len(data)} bytes) allocated {peak} bytes'
            )
    assert not failures, '\n'.join(failures[:10])


def read_ok(path, valid, read):
    with open(path, 'wb') as f:
        f.write(valid)
    read(path)  # the valid file itself loads


def _file_bytes(path):
    with open(path, 'rb') as f:
        return f.read()


# -- readers ---------------------------------------------------------------------


def test_fuzz_nd_load(tmp_path):
    path = str(tmp_path / 'valid.params')
    nd.save(
        path,
        {
            'w': nd.array(np.arange(6).reshape(2, 3)),
            'b': nd.array([1, 2], dtype='int32'),
            'h': nd.ones((2, 2), dtype='float16'),
        },
    )
    _fuzz(tmp_path, 'a.params', _file_bytes(path), nd.load)


def test_fuzz_nd_load_list(tmp_path):
    path = str(tmp_path / 'valid.nd')
    nd.save(path, [nd.ones((3,)), nd.zeros((1, 2, 2), dtype='uint8')])
    _fuzz(tmp_path, 'a.nd', _file_bytes(path), nd.load)


def test_fuzz_load_parameters(tmp_path):
    net = nn.Dense(3, in_units=2)
    net.initialize()
    path = str(tmp_path / 'valid.params')
    net.save_parameters(path)

    def read(p):
        target = nn.Dense(3, in_units=2)
        target.initialize()
        target.load_parameters(p)

    _fuzz(tmp_path, 'net.params', _file_bytes(path), read)


def _trainer():
    net = nn.Dense(3, in_units=2)
    net.initialize()
    trainer = Trainer(net.collect_params(), 'adam', {'learning_rate': 0.1})
    with autograd.record():
        loss = net(nd.ones((2, 2))).sum()
    loss.backward()
    trainer.step(2)
    return trainer


def test_fuzz_trainer_load_states(tmp_path):
    path = str(tmp_path / 'valid.states')
    _trainer().save_states(path)
    trainer = _trainer()
    _fuzz(tmp_path, 'a.states', _file_bytes(path), trainer.load_states)


def _symbol_json():
    data = mx.sym.var('data')
    net = mx.sym.FullyConnected(data, num_hidden=4, name='fc1')
    net = mx.sym.Activation(net, act_type='relu')
    net = mx.sym.FullyConnected(net, num_hidden=2, name='fc2')
    return mx.sym.SoftmaxOutput(net, name='softmax').tojson()


def test_fuzz_symbol_file(tmp_path):
    _fuzz(tmp_path, 'net-symbol.json', _symbol_json().encode(), mx.sym.load)


def test_fuzz_symbol_json_structure(tmp_path):
    # Mutations of the parsed graph (valid JSON, wrong content).
    graph = json.loads(_symbol_json())
    rng = random.Random(f'{SEED}-json')
    odd = [-1, 10**6, 'x', None, [], {}, [[0]], 2.5, True, [[-1, 0, 0]]]
    failures = []
    for number in range(EXAMPLES * 2):
        g = json.loads(json.dumps(graph))
        where = rng.choice(['nodes', 'heads', 'node', 'input', 'attrs', 'top'])
        if where == 'top':
            g = rng.choice(odd)
        elif where in ('nodes', 'heads'):
            g[where] = rng.choice(odd)
        else:
            node = rng.choice(g['nodes'])
            if where == 'node':
                node[rng.choice(['op', 'name', 'inputs'])] = rng.choice(odd)
            elif where == 'input' and node['inputs']:
                entry = rng.choice(node['inputs'])
                entry[rng.randrange(len(entry))] = rng.choice(odd)
            else:
                node['attrs'] = rng.choice(odd + [{'num_hidden': 'x'}])
        try:
            mx.sym.load_json(json.dumps(g))
        except DLBookError:
            pass
        except Exception as err:  # noqa: BLE001
            failures.append(f'{number} ({where}): {type(err).__name__}: {err}')
    assert not failures, '\n'.join(failures[:10])


def _recordio(tmp_path):
    rec, idx = str(tmp_path / 'v.rec'), str(tmp_path / 'v.idx')
    writer = mx.recordio.MXIndexedRecordIO(idx, rec, 'w')
    for i in range(5):
        payload = bytes(range(i * 7, i * 7 + 13))
        if i == 2:
            payload += struct.pack('<I', 0xCED7230A) + b'tail'  # multipart
        header = mx.recordio.IRHeader(0, float(i), i, 0)
        writer.write_idx(i, mx.recordio.pack(header, payload))
    writer.close()
    return _file_bytes(rec), _file_bytes(idx)


def _read_recordio(rec, idx):
    reader = mx.recordio.MXIndexedRecordIO(idx, rec, 'r')
    try:
        for key in reader.keys:
            item = reader.read_idx(key)
            if item is not None:
                mx.recordio.unpack(item)
    finally:
        reader.close()
    reader = mx.recordio.MXRecordIO(rec, 'r')
    try:
        while reader.read() is not None:
            pass
    finally:
        reader.close()


def test_fuzz_recordio_rec(tmp_path):
    rec, idx = _recordio(tmp_path)
    idx_path = str(tmp_path / 'a.idx')
    with open(idx_path, 'wb') as f:
        f.write(idx)
    _fuzz(tmp_path, 'a.rec', rec, lambda p: _read_recordio(p, idx_path))


def test_fuzz_recordio_idx(tmp_path):
    rec, idx = _recordio(tmp_path)
    rec_path = str(tmp_path / 'b.rec')
    with open(rec_path, 'wb') as f:
        f.write(rec)
    _fuzz(tmp_path, 'b.idx', idx, lambda p: _read_recordio(rec_path, p))


def _idx_bytes():
    images = np.arange(5 * 4 * 4, dtype=np.uint8).reshape(5, 4, 4)
    return b'\x00\x00\x08\x03' + struct.pack('>3I', 5, 4, 4) + images.tobytes()


def test_fuzz_idx_plain(tmp_path):
    from dlbook._datafiles import read_idx

    _fuzz(
        tmp_path, 'images-idx3-ubyte', _idx_bytes(), lambda p: read_idx(p, 3)
    )


def test_fuzz_idx_gzip(tmp_path):
    from dlbook._datafiles import read_idx

    _fuzz(
        tmp_path,
        'images-idx3-ubyte.gz',
        gzip.compress(_idx_bytes()),
        lambda p: read_idx(p, 3),
    )


def test_fuzz_cifar_batch(tmp_path):
    from dlbook.gluon.data.vision.datasets import CIFAR10

    rng = np.random.RandomState(0)
    records = np.concatenate(
        [rng.randint(0, 10, (3, 1)), rng.randint(0, 256, (3, 3072))], axis=1
    ).astype(np.uint8)
    reader = CIFAR10.__new__(CIFAR10)
    reader._train = True
    _fuzz(
        tmp_path,
        'data_batch_1.bin',
        records.tobytes(),
        reader._read_batch,
        examples=max(EXAMPLES // 4, 5),
    )


def test_fuzz_npy_image(tmp_path):
    from dlbook._imaging.imread import imread

    buf = io.BytesIO()
    np.save(buf, np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3))
    _fuzz(tmp_path, 'img.npy', buf.getvalue(), imread)


def test_fuzz_png_image(tmp_path):
    pil = pytest.importorskip('PIL.Image')
    from dlbook._imaging.imread import imread

    buf = io.BytesIO()
    pil.fromarray(np.arange(6 * 7 * 3, dtype=np.uint8).reshape(6, 7, 3)).save(
        buf, format='PNG'
    )
    _fuzz(tmp_path, 'img.png', buf.getvalue(), imread)
