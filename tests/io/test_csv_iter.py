"""``mx.io.CSVIter``: batches, padding and epochs as MXNet 1.9.1 gives
them for the example of its documentation (recorded from it)."""

import numpy as np
import pytest

import dlbook as mx
from dlbook.base import DLBookError

ROWS = [[1, 2, 3], [2, 3, 4], [3, 4, 5], [4, 5, 6]]


@pytest.fixture
def files(tmp_path):
    (tmp_path / 'data.csv').write_text('1,2,3\n2,3,4\n3,4,5\n4,5,6\n')
    (tmp_path / 'label.csv').write_text('1\n2\n3\n4\n')
    return tmp_path


def two_epochs(it):
    out = []
    for _ in range(2):
        for batch in it:
            label = batch.label[0].asnumpy().tolist()
            out.append((batch.data[0].asnumpy().tolist(), label, batch.pad))
        it.reset()
    return out


def rows(*indices):
    return [ROWS[i] for i in indices]


def test_round_batch_borrows_from_the_start_and_resumes_after(files):
    it = mx.io.CSVIter(
        data_csv=str(files / 'data.csv'),
        data_shape=(3,),
        label_csv=str(files / 'label.csv'),
        batch_size=3,
    )
    assert two_epochs(it) == [
        (rows(0, 1, 2), [1, 2, 3], 0),
        (rows(3, 0, 1), [4, 1, 2], 2),
        (rows(2, 3, 0), [3, 4, 1], 1),  # the second epoch starts at row 2
    ]
    assert it.provide_data[0].shape == (3, 3)
    assert it.provide_label[0].shape == (3,)


def test_without_round_batch_the_previous_rows_fill_the_last_batch(files):
    it = mx.io.CSVIter(
        data_csv=str(files / 'data.csv'),
        data_shape=(3,),
        batch_size=3,
        round_batch=False,
        dtype='int32',
    )
    epoch = [(rows(0, 1, 2), [0, 0, 0], 0), (rows(3, 1, 2), [0, 0, 0], 2)]
    assert two_epochs(it) == epoch * 2
    batch = next(iter(it))
    assert batch.data[0].dtype == np.int32 and batch.label[0].dtype == np.int32
    assert it.provide_data[0].dtype is np.int32


def test_even_batches_and_reshaped_rows(files):
    it = mx.io.CSVIter(
        data_csv=str(files / 'data.csv'), data_shape=(3,), batch_size=2
    )
    assert [b[2] for b in two_epochs(it)] == [0, 0, 0, 0]
    it = mx.io.CSVIter(
        data_csv=str(files / 'data.csv'), data_shape=(3, 1), batch_size=2
    )
    batch = it.next()
    assert batch.data[0].shape == (2, 3, 1)
    assert batch.label[0].shape == (2,)


def test_a_folder_is_read_file_by_file(files):
    folder = files / 'parts'
    folder.mkdir()
    (folder / 'a.csv').write_text('1,2,3\n2,3,4\n')
    (folder / 'b.csv').write_text('3,4,5\n')
    it = mx.io.CSVIter(data_csv=str(folder), data_shape=(3,), batch_size=3)
    assert it.next().data[0].asnumpy().tolist() == rows(0, 1, 2)


def test_mistakes_are_named(files):
    with pytest.raises(DLBookError, match='3 numbers per line.*needs 4'):
        mx.io.CSVIter(
            data_csv=str(files / 'data.csv'), data_shape=(4,), batch_size=2
        )
    with pytest.raises(DLBookError, match='no CSV file'):
        mx.io.CSVIter(
            data_csv=str(files / 'missing.csv'), data_shape=(3,), batch_size=2
        )
    (files / 'short.csv').write_text('1\n2\n')
    with pytest.raises(DLBookError, match='has 2 lines but'):
        mx.io.CSVIter(
            data_csv=str(files / 'data.csv'),
            data_shape=(3,),
            label_csv=str(files / 'short.csv'),
            batch_size=2,
        )
    with pytest.raises(DLBookError, match='dtype'):
        mx.io.CSVIter(
            data_csv=str(files / 'data.csv'),
            data_shape=(3,),
            batch_size=2,
            dtype='float16',
        )


def test_module_fit_reads_a_csv_iter(files):
    it = mx.io.CSVIter(
        data_csv=str(files / 'data.csv'),
        data_shape=(3,),
        label_csv=str(files / 'label.csv'),
        batch_size=2,
    )
    net = mx.sym.LinearRegressionOutput(
        mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=1), name='softmax'
    )
    mod = mx.mod.Module(net)
    mod.fit(it, num_epoch=2, optimizer_params={'learning_rate': 0.01})
    assert mod.score(it, 'mse')[0][1] < 10
