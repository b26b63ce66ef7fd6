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

RAGGED = (
    'cannot batch samples of different shapes{field}: sample 0 has '
    'shape (3,) but sample 2 has shape (4,). Resize or pad them to one '
    'shape (e.g. a transform), or pass a batchify_fn such as '
    'gluon.data.batchify.Pad()'
)


def test_ndarrayiter_with_fewer_labels_than_rows():
    # Mistake: 10 data rows, 9 labels (the last batch would be misaligned).
    with pytest.raises(
        ValueError,
        match=re.escape(
            "NDArrayIter: all data and label arrays must have the same "
            "number of rows (samples), got 'data' 10, 'softmax_label' 9"
        ),
    ):
        mx.io.NDArrayIter(np.zeros((10, 2)), np.zeros(9), batch_size=3)


def test_ndarrayiter_batch_size_zero():
    with pytest.raises(
        ValueError,
        match=re.escape(
            'NDArrayIter: batch_size must be a positive integer, got 0'
        ),
    ):
        mx.io.NDArrayIter(np.zeros((10, 2)), batch_size=0)


@pytest.mark.parametrize(
    'kwargs, message',
    [
        ({'batch_size': 0}, 'batch_size must be an integer >= 1, got 0'),
        ({'batch_size': -1}, 'batch_size must be an integer >= 1, got -1'),
        ({'batch_size': 2.5}, 'batch_size must be an integer >= 1, got 2.5'),
        (
            {'batch_size': 2, 'num_workers': -1},
            'num_workers must be an integer >= 0, got -1',
        ),
        (
            {'batch_size': 2, 'prefetch': -2},
            'prefetch must be an integer >= 0, got -2',
        ),
    ],
)
def test_dataloader_rejects_bad_sizes(kwargs, message):
    # Without the check batch_size=0 or -1 gave the whole data set as one
    # batch, and num_workers=-1 was accepted.
    with pytest.raises(ValueError, match=re.escape('DataLoader: ' + message)):
        DataLoader(SimpleDataset(list(range(6))), **kwargs)


@pytest.mark.parametrize('num_workers', [0, 1])
def test_batching_samples_of_different_shapes(num_workers):
    data = SimpleDataset([np.zeros(3), np.zeros(3), np.zeros(4)])
    with pytest.raises(DLBookError, match=re.escape(RAGGED.format(field=''))):
        list(DataLoader(data, batch_size=3, num_workers=num_workers))


def test_batching_ragged_field_of_tuples_names_the_field():
    data = SimpleDataset(
        [(nd.zeros(3), 1), (nd.zeros(3), 0), (nd.zeros(4), 1)]
    )
    with pytest.raises(
        DLBookError, match=re.escape(RAGGED.format(field=' (field 0)'))
    ):
        list(DataLoader(data, batch_size=3))


def test_integer_division_by_zero_raises():
    # NumPy would give -2147483648 (with a warning); MXNet 1.9.1 kills the
    # process with SIGFPE.
    a = nd.array([1, 2], dtype='int32')
    message = (
        'integer division by zero (int32 values); an integer result '
        "cannot hold inf. Cast to float first (x.astype('float32')) "
        'or make sure the divisor has no zero'
    )
    with pytest.raises(
        IntegerDivisionByZero, match=re.escape('_div_scalar: ' + message)
    ):
        a / 0
    with pytest.raises(
        ZeroDivisionError, match=re.escape('broadcast_div: ' + message)
    ):
        a / nd.array([0, 1], dtype='int32')
    np.testing.assert_array_equal((a / 2).asnumpy(), [0, 1])  # MXNet too


def test_out_of_range_index_is_an_index_error():
    # MXNet 1.9.1 and NumPy raise IndexError.
    a = nd.array([1, 2])
    with pytest.raises(
        IndexError,
        match=re.escape(
            '_getitem: cannot index array of shape (2,) with key 5: index 5 '
            'is out of bounds for axis 0 with size 2'
        ),
    ):
        a[5]
    with pytest.raises(DLBookIndexError):
        a[5] = 1


# -- arguments MXNet 1.9.1 checks with an ``assert`` (UsageError is also an
#    AssertionError) ---------------------------------------------------------


def _usage_error(message, fn, *args, **kwargs):
    from dlbook.base import UsageError

    with pytest.raises(UsageError, match=f'^{re.escape(message)}$') as info:
        fn(*args, **kwargs)
    assert isinstance(info.value, AssertionError)


@pytest.mark.parametrize('data, got', [(None, 'None'), ([], 'an empty list')])
def test_ndarrayiter_without_data(data, got):
    _usage_error(
        f'NDArrayIter needs data: an array, a list of arrays or a '
        f'dict of name -> array, got {got}.',
        mx.io.NDArrayIter,
        data,
    )


def test_ndarrayiter_read_after_the_epoch_ended():
    it = mx.io.NDArrayIter(nd.ones((4, 2)), batch_size=2)
    for _ in it:
        pass
    _usage_error(
        'DataIter needs reset: this epoch has no batch left; call '
        'reset() before reading again.',
        it.getdata,
    )


@pytest.mark.parametrize(
    'kwargs, message',
    [
        (
            {'data': nd.ones((2,))},
            'Data must be list of NDArrays, got NDArray: wrap one array as [data].',
        ),
        (
            {'data': [nd.ones((2,))], 'label': nd.ones((2,))},
            'Label must be list of NDArrays, got NDArray: wrap one array as '
            '[label].',
        ),
    ],
    ids=['data', 'label'],
)
def test_databatch_of_a_bare_array(kwargs, message):
    _usage_error(message, mx.io.DataBatch, **kwargs)


def test_prefetching_iter_over_iterators_of_different_lengths():
    it = mx.io.PrefetchingIter(
        [
            mx.io.NDArrayIter(nd.ones((4, 2)), batch_size=2),
            mx.io.NDArrayIter(nd.ones((6, 2)), batch_size=2, data_name='d2'),
        ]
    )
    _usage_error(
        'Number of entry mismatches between iterators: iterator(s) '
        '[0] ended before the others; give PrefetchingIter '
        'iterators with the same number of batches.',
        lambda: [b for b in it],
    )


def test_prefetching_iter_over_iterators_padded_differently():
    it = mx.io.PrefetchingIter(
        [
            mx.io.NDArrayIter(
                nd.ones((4, 2)), batch_size=3, last_batch_handle='pad'
            ),
            mx.io.NDArrayIter(
                nd.ones((6, 2)),
                batch_size=3,
                data_name='d2',
                last_batch_handle='pad',
            ),
        ]
    )
    _usage_error(
        'Number of entry mismatches between iterators: their '
        'batches are padded differently ([2, 0]); give '
        'PrefetchingIter iterators with the same number of '
        'examples.',
        lambda: [b for b in it],
    )


def test_encode_sentences_with_an_unknown_word_and_no_unknown_token():
    _usage_error(
        'Unknown token cat: it is not in the given vocab; pass '
        'unknown_token=... to map unknown words to one id, or '
        'vocab=None to build one.',
        mx.rnn.encode_sentences,
        [['the', 'cat']],
        vocab={'the': 1},
    )
