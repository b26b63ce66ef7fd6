"""Datasets and samplers (mxnet.gluon.data.dataset / sampler)."""

import pickle

import numpy as np
import pytest

import dlbook as mx
from dlbook import gluon, nd
from dlbook.gluon.data import (
    ArrayDataset,
    BatchSampler,
    IntervalSampler,
    RandomSampler,
    SequentialSampler,
    SimpleDataset,
)


def double(x):
    return x * 2


def add_label(x, y):
    return x, y + 100


def test_simple_dataset_wraps_a_list():
    ds = SimpleDataset([3, 1, 4])
    assert len(ds) == 3 and ds[2] == 4


def test_array_dataset_item_types():
    X = nd.array(np.arange(12).reshape(4, 3))
    y = nd.array([0, 1, 2, 3], dtype='int32')
    Z = np.arange(8, dtype=np.float64).reshape(4, 2)
    names = ['a', 'b', 'c', 'd']
    ds = ArrayDataset(X, y, Z, names)
    x, label, z, name = ds[1]
    assert isinstance(x, nd.NDArray) and x.shape == (3,)
    # 1-d NDArrays become NumPy, as in MXNet: labels are NumPy scalars.
    assert isinstance(label, np.int32) and label == 1
    assert isinstance(z, np.ndarray) and z.dtype == np.float64
    assert name == 'b'
    assert len(ds) == 4
    single = ArrayDataset(X)
    assert isinstance(single[0], nd.NDArray)


def test_array_dataset_length_mismatch():
    with pytest.raises(
        ValueError,
        match=r'array\[0\] has length 4 while '
        r'array\[1\] has 3',
    ):
        ArrayDataset(np.zeros(4), np.zeros(3))
    with pytest.raises(ValueError, match='at least 1'):
        ArrayDataset()


def test_transform_lazy_and_eager():
    calls = []

    def fn(x, y):
        calls.append(1)
        return x, y * 10

    ds = ArrayDataset(np.arange(3), np.arange(3))
    lazy = ds.transform(fn)
    assert not calls
    assert lazy[2] == (2, 20) and len(calls) == 1
    eager = ds.transform(fn, lazy=False)
    assert isinstance(eager, SimpleDataset) and len(calls) == 4
    assert [eager[i][1] for i in range(3)] == [0, 10, 20]


def test_transform_first_keeps_the_label():
    ds = ArrayDataset(np.arange(4.0), np.arange(4)).transform_first(double)
    assert ds[3] == (6.0, 3)
    plain = SimpleDataset([1.0, 2.0]).transform_first(double)
    assert plain[1] == 4.0


def test_transformed_datasets_pickle():
    ds = ArrayDataset(np.arange(4.0), np.arange(4))
    for t in (ds.transform_first(double), ds.transform(add_label)):
        clone = pickle.loads(pickle.dumps(t))
        assert clone[2] == t[2]


def test_filter_shard_take_sample():
    ds = SimpleDataset(list(range(10)))
    assert list(ds.filter(lambda x: x % 3 == 0)) == [0, 3, 6, 9]
    shards = [list(ds.shard(3, i)) for i in range(3)]
    assert shards == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]
    assert list(ds.take(2)) == [0, 1]
    assert len(ds.take(None)) == 10 and len(ds.take(50)) == 10
    assert list(ds.sample(IntervalSampler(10, 4, rollover=False))) == [0, 4, 8]
    with pytest.raises(TypeError, match='Invalid sampler'):
        ds.sample([1, 2])
    with pytest.raises(ValueError, match='Shard index'):
        ds.shard(2, 2)


def test_sequential_and_random_samplers():
    assert list(SequentialSampler(4)) == [0, 1, 2, 3]
    assert list(SequentialSampler(3, start=5)) == [5, 6, 7]
    mx.random.seed(42)
    first = list(RandomSampler(20))
    mx.random.seed(42)
    again = list(RandomSampler(20))
    assert first == again
    assert sorted(first) == list(range(20)) and first != list(range(20))
    assert list(RandomSampler(20)) != first  # a new epoch order
    assert len(RandomSampler(7)) == 7


def test_batch_sampler_last_batch_modes():
    sampler = SequentialSampler(10)
    keep = BatchSampler(sampler, 3, 'keep')
    assert list(keep) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert len(keep) == 4
    discard = BatchSampler(sampler, 3, 'discard')
    assert list(discard) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    assert len(discard) == 3
    roll = BatchSampler(sampler, 3, 'rollover')
    assert len(roll) == 3
    assert list(roll) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    assert len(roll) == 3  # (1 + 10) // 3
    assert list(roll) == [[9, 0, 1], [2, 3, 4], [5, 6, 7]]
    assert list(roll) == [[8, 9, 0], [1, 2, 3], [4, 5, 6], [7, 8, 9]]
    with pytest.raises(ValueError, match="last_batch must be one of"):
        BatchSampler(sampler, 3, 'pad')


def test_interval_sampler():
    assert list(IntervalSampler(7, 3)) == [0, 3, 6, 1, 4, 2, 5]
    assert len(IntervalSampler(7, 3)) == 7
    assert list(IntervalSampler(7, 3, rollover=False)) == [0, 3, 6]
    with pytest.raises(ValueError):
        IntervalSampler(3, 3)


def test_record_file_dataset_missing_file(tmp_path):
    # Reading RecordIO files is tested in tests/io/test_recordio.py.
    with pytest.raises(
        mx.DLBookError,
        match=r'cannot open RecordIO file '
        r'.*train\.rec for reading',
    ):
        gluon.data.RecordFileDataset(str(tmp_path / 'train.rec'))
