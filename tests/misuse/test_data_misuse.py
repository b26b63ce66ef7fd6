"""Data misuse: iterators and loaders check their arguments up front and
name the samples that cannot be batched."""

import re

import numpy as np
import pytest

import dlbook as mx
from dlbook import nd
from dlbook.base import DLBookError, DLBookIndexError
from dlbook.gluon.data import DataLoader, SimpleDataset
from dlbook.ops.binary import IntegerDivisionByZero

RAGGED = ('cannot batch samples of different shapes{field}: sample 0 has '
          'shape (3,) but sample 2 has shape (4,). Resize or pad them to one '
          'shape (e.g. a transform), or pass a batchify_fn such as '
          'gluon.data.batchify.Pad()')


def test_ndarrayiter_with_fewer_labels_than_rows():
    # Mistake: 10 data rows, 9 labels (the last batch would be misaligned).
    with pytest.raises(ValueError, match=re.escape(
            "NDArrayIter: all data and label arrays must have the same "
            "number of rows (samples), got 'data' 10, 'softmax_label' 9")):
        mx.io.NDArrayIter(np.zeros((10, 2)), np.zeros(9), batch_size=3)


def test_ndarrayiter_batch_size_zero():
    with pytest.raises(ValueError, match=re.escape(
            'NDArrayIter: batch_size must be a positive integer, got 0')):
        mx.io.NDArrayIter(np.zeros((10, 2)), batch_size=0)


@pytest.mark.parametrize('kwargs, message', [
    ({'batch_size': 0}, 'batch_size must be an integer >= 1, got 0'),
    ({'batch_size': -1}, 'batch_size must be an integer >= 1, got -1'),
    ({'batch_size': 2.5}, 'batch_size must be an integer >= 1, got 2.5'),
    ({'batch_size': 2, 'num_workers': -1},
     'num_workers must be an integer >= 0, got -1'),
    ({'batch_size': 2, 'prefetch': -2},
     'prefetch must be an integer >= 0, got -2'),
])
def test_dataloader_rejects_bad_sizes(kwargs, message):
    # Without the check batch_size=0 or -1 gave the whole data set as one
    # batch, and num_workers=-1 was accepted.
    with pytest.raises(ValueError, match=re.escape('DataLoader: ' + message)):
        DataLoader(SimpleDataset(list(range(6))), **kwargs)


@pytest.mark.parametrize('num_workers', [0, 1])
def test_batching_samples_of_different_shapes(num_workers):
    data = SimpleDataset([np.zeros(3), np.zeros(3), np.zeros(4)])
    with pytest.raises(DLBookError, match=re.escape(
            RAGGED.format(field=''))):
        list(DataLoader(data, batch_size=3, num_workers=num_workers))


def test_batching_ragged_field_of_tuples_names_the_field():
    data = SimpleDataset([(nd.zeros(3), 1), (nd.zeros(3), 0),
                          (nd.zeros(4), 1)])
    with pytest.raises(DLBookError, match=re.escape(
            RAGGED.format(field=' (field 0)'))):
        list(DataLoader(data, batch_size=3))


def test_integer_division_by_zero_raises():
    # NumPy would give -2147483648 (with a warning); MXNet 1.9.1 kills the
    # process with SIGFPE.
    a = nd.array([1, 2], dtype='int32')
    message = ('integer division by zero (int32 values); an integer result '
               "cannot hold inf. Cast to float first (x.astype('float32')) "
               'or make sure the divisor has no zero')
    with pytest.raises(IntegerDivisionByZero,
                       match=re.escape('_div_scalar: ' + message)):
        a / 0
    with pytest.raises(ZeroDivisionError,
                       match=re.escape('broadcast_div: ' + message)):
        a / nd.array([0, 1], dtype='int32')
    np.testing.assert_array_equal((a / 2).asnumpy(), [0, 1])  # MXNet too


def test_out_of_range_index_is_an_index_error():
    # MXNet 1.9.1 and NumPy raise IndexError.
    a = nd.array([1, 2])
    with pytest.raises(IndexError, match=re.escape(
            '_getitem: cannot index array of shape (2,) with key 5: index 5 '
            'is out of bounds for axis 0 with size 2')):
        a[5]
    with pytest.raises(DLBookIndexError):
        a[5] = 1
