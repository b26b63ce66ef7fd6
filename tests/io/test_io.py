"""mx.io: DataDesc, DataBatch, NDArrayIter, ResizeIter, PrefetchingIter."""

import numpy as np
import pytest

import dlbook as mx
from dlbook import io, nd


def _epoch(it):
    return [
        (b.data[0].asnumpy(), b.label[0].asnumpy() if b.label else None, b.pad)
        for b in it
    ]


def test_data_desc():
    desc = io.DataDesc('data', (32, 1, 28, 28))
    assert (
        repr(desc)
        == "DataDesc[data,(32, 1, 28, 28),<class 'numpy.float32'>,NCHW]"
    )
    name, shape = desc
    assert name == 'data' and shape == (32, 1, 28, 28)
    assert desc.layout == 'NCHW' and desc.dtype is np.float32
    assert io.DataDesc.get_batch_axis('TNC') == 1
    assert io.DataDesc.get_batch_axis(None) == 0
    descs = io.DataDesc.get_list([('x', (2,))], [('x', np.int32)])
    assert descs[0].dtype is np.int32


def test_data_batch_str():
    batch = io.DataBatch([nd.ones((2, 3))], [nd.ones((2,))], pad=1)
    assert str(batch) == (
        'DataBatch: data shapes: [(2, 3)] label shapes: [(2,)]'
    )
    assert batch.pad == 1 and batch.index is None
    with pytest.raises(AssertionError, match='list of NDArrays'):
        io.DataBatch(nd.ones((2,)))


DATA = np.arange(40).reshape((10, 2, 2))
LABEL = np.arange(10)


def test_ndarray_iter_pad():
    it = io.NDArrayIter(DATA, LABEL, batch_size=3)
    epoch = _epoch(it)
    assert [pad for _, _, pad in epoch] == [0, 0, 0, 2]
    last_data, last_label, _ = epoch[-1]
    np.testing.assert_array_equal(last_label, [9, 0, 1])
    np.testing.assert_array_equal(last_data, DATA[[9, 0, 1]])
    assert last_label.dtype == np.float32  # converted, as MXNet
    assert repr(it.provide_data) == '[DataDesc[data,(3, 2, 2),float32,NCHW]]'
    assert (
        repr(it.provide_label) == '[DataDesc[softmax_label,(3,),float32,NCHW]]'
    )
    assert _epoch(it) == []  # needs reset
    it.reset()
    assert len(_epoch(it)) == 4


def test_ndarray_iter_pad_more_than_the_data():
    it = io.NDArrayIter(np.arange(2), batch_size=5)
    (batch,) = list(it)
    np.testing.assert_array_equal(batch.data[0].asnumpy(), [0, 1, 0, 1, 0])
    assert batch.pad == 3 and batch.label == []


def test_ndarray_iter_discard():
    it = io.NDArrayIter(DATA, LABEL, batch_size=3, last_batch_handle='discard')
    assert [label.tolist() for _, label, _ in _epoch(it)] == [
        [0, 1, 2],
        [3, 4, 5],
        [6, 7, 8],
    ]
    it.reset()
    assert len(_epoch(it)) == 3


def test_ndarray_iter_roll_over():
    it = io.NDArrayIter(
        DATA, LABEL, batch_size=3, last_batch_handle='roll_over'
    )
    assert len(_epoch(it)) == 3
    it.reset()
    epoch = _epoch(it)
    np.testing.assert_array_equal(epoch[0][0], DATA[[9, 0, 1]])
    np.testing.assert_array_equal(epoch[0][1], [9, 0, 1])
    assert epoch[0][2] == 1  # MXNet reports -cursor
    assert [label.tolist() for _, label, _ in epoch[1:]] == [
        [2, 3, 4],
        [5, 6, 7],
    ]
    it.hard_reset()
    assert _epoch(it)[0][1].tolist() == [0, 1, 2]


def test_ndarray_iter_shuffle_keeps_pairs_and_is_seeded():
    mx.random.seed(5)
    it = io.NDArrayIter(DATA, LABEL, batch_size=5, shuffle=True)
    epoch = _epoch(it)
    labels = np.concatenate([label for _, label, _ in epoch])
    assert sorted(labels.tolist()) == list(range(10))
    assert labels.tolist() != list(range(10))
    for data, label, _ in epoch:
        np.testing.assert_array_equal(data, DATA[label.astype(int)])
    mx.random.seed(5)
    again = io.NDArrayIter(DATA, LABEL, batch_size=5, shuffle=True)
    np.testing.assert_array_equal(
        np.concatenate([label for _, label, _ in _epoch(again)]), labels
    )


def test_ndarray_iter_dicts_lists_and_ndarrays():
    it = io.NDArrayIter(
        {'b': np.zeros((4, 1)), 'a': np.ones((4, 2))},
        {'y': np.zeros(4)},
        batch_size=2,
    )
    assert [d.name for d in it.provide_data] == ['a', 'b']
    batch = next(it)
    assert [d.shape for d in batch.data] == [(2, 2), (2, 1)]
    it = io.NDArrayIter([np.zeros((4, 1)), np.ones((4, 3))], batch_size=2)
    assert [d.name for d in it.provide_data] == ['_0_data', '_1_data']
    ints = nd.array([1, 2, 3], dtype='int32')
    it = io.NDArrayIter(ints, batch_size=3, data_name='x')
    batch = next(it)
    assert batch.data[0].dtype == np.int32  # NDArrays keep their dtype
    assert it.provide_data[0].name == 'x'
    with pytest.raises(TypeError):
        io.NDArrayIter('not data')


def test_ndarray_iter_layout_batch_axis():
    data = np.arange(24).reshape(3, 4, 2)  # T, N, C
    it = io.NDArrayIter(
        data, batch_size=2, layout='TNC', last_batch_handle='discard'
    )
    assert it.provide_data[0].shape == (3, 2, 2)
    assert it.provide_data[0].layout == 'TNC'
    # As in MXNet, the example count comes from axis 0 even for a TNC
    # layout; the slicing and the batch-size check use the 'N' axis.
    batches = list(it)
    assert [b.data[0].shape for b in batches] == [(3, 2, 2)]
    np.testing.assert_array_equal(batches[0].data[0].asnumpy(), data[:, :2])


def test_resize_iter():
    base = io.NDArrayIter(np.arange(8), batch_size=3)
    short = io.ResizeIter(base, 2)
    assert len(list(short)) == 2
    longer = io.ResizeIter(io.NDArrayIter(np.arange(8), batch_size=4), 5)
    labels = [b.data[0].asnumpy().tolist() for b in longer]
    assert len(labels) == 5 and labels[2] == [0, 1, 2, 3]
    assert longer.provide_data == longer.data_iter.provide_data


def test_prefetching_iter():
    a = io.NDArrayIter({'data': np.arange(12).reshape(6, 2)}, batch_size=3)
    b = io.NDArrayIter({'data': np.arange(6)}, batch_size=3)
    it = io.PrefetchingIter([a, b], rename_data=[{'data': 'x'}, {'data': 'z'}])
    assert [d.name for d in it.provide_data] == ['x', 'z']
    batches = list(it)
    assert len(batches) == 2 and len(batches[0].data) == 2
    np.testing.assert_array_equal(batches[1].data[1].asnumpy(), [3, 4, 5])
    it.reset()
    assert len(list(it)) == 2


def test_custom_data_iter_subclass():
    class Counter(io.DataIter):
        def __init__(self):
            super().__init__(batch_size=2)
            self.provide_data = [io.DataDesc('data', (2,))]
            self.provide_label = []
            self.i = 0

        def iter_next(self):
            self.i += 1
            return self.i <= 3

        def getdata(self):
            return [nd.ones((2,)) * self.i]

        def getlabel(self):
            return []

        def getpad(self):
            return 0

    batches = list(Counter())
    assert len(batches) == 3 and batches[2].data[0].asnumpy()[0] == 3


def test_mnist_iter(tmp_path, monkeypatch):
    import gzip
    import os
    import struct

    rng = np.random.RandomState(0)
    images = rng.randint(0, 256, (7, 28, 28)).astype(np.uint8)
    labels = np.arange(7, dtype=np.uint8)
    (tmp_path / 'img').write_bytes(
        bytes([0, 0, 8, 3]) + struct.pack('>3I', 7, 28, 28) + images.tobytes()
    )
    with gzip.open(tmp_path / 'lbl.gz', 'wb') as f:
        f.write(bytes([0, 0, 8, 1]) + struct.pack('>I', 7) + labels.tobytes())
    it = io.MNISTIter(
        image=str(tmp_path / 'img'),
        label=str(tmp_path / 'lbl'),
        batch_size=3,
        shuffle=False,
    )
    batches = list(it)
    assert len(batches) == 2  # only full batches
    np.testing.assert_allclose(
        batches[1].data[0].asnumpy()[0, 0], images[3] / 255.0, rtol=1e-6
    )
    assert batches[0].data[0].shape == (3, 1, 28, 28)
    assert batches[0].label[0].dtype == np.float32
    flat = io.MNISTIter(
        image=str(tmp_path / 'img'),
        label=str(tmp_path / 'lbl'),
        batch_size=7,
        flat=True,
    )
    (batch,) = list(flat)
    assert batch.data[0].shape == (7, 784)
    assert sorted(batch.label[0].asnumpy().tolist()) == list(range(7))
    with pytest.raises(FileNotFoundError):
        io.MNISTIter(image=str(tmp_path / 'nothing'))
    shared = os.environ.get('DLBOOK_DATA', '')
    if os.path.isfile(
        os.path.join(shared, 'mnist', 't10k-labels-idx1-ubyte.gz')
    ):
        test = io.MNISTIter(
            image='data/t10k-images-idx3-ubyte',
            label='data/t10k-labels-idx1-ubyte',
            batch_size=1000,
            shuffle=False,
        )
        assert next(test).label[0].asnumpy()[:3].tolist() == [7, 2, 1]
