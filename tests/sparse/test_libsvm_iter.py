"""mx.io.LibSVMIter against MXNet 1.9.1."""

import pytest

import dlbook as mx
from dlbook.base import DLBookError

pytest.importorskip('scipy.sparse')

LINES = '1 0:1.5 3:2\n0 1:1\n1 2:0.5 4:1\n0\n1 0:2 4:3\n'


def test_batches_wrap_around_like_mxnet(tmp_path):
    path = tmp_path / 'd.libsvm'
    path.write_text(LINES)
    it = mx.io.LibSVMIter(data_libsvm=str(path), data_shape=(5,), batch_size=2)
    assert it.provide_data[0].shape == (2, 5)
    assert it.provide_label[0].name == 'softmax_label'
    got = []
    for _ in range(2):
        for b in it:
            assert b.data[0].stype == 'csr'
            got.append(
                (
                    b.data[0].asnumpy().tolist(),
                    b.label[0].asnumpy().tolist(),
                    b.pad,
                )
            )
        it.reset()
    # MXNet 1.9.1 gives these batches (epoch 2 starts after the wrap)
    assert got == [
        ([[1.5, 0, 0, 2, 0], [0, 1, 0, 0, 0]], [1, 0], 0),
        ([[0, 0, 0.5, 0, 1], [0, 0, 0, 0, 0]], [1, 0], 0),
        ([[2, 0, 0, 0, 3], [1.5, 0, 0, 2, 0]], [1, 1], 1),
        ([[0, 1, 0, 0, 0], [0, 0, 0.5, 0, 1]], [0, 1], 0),
        ([[0, 0, 0, 0, 0], [2, 0, 0, 0, 3]], [0, 1], 0),
    ]


def test_errors(tmp_path):
    path = tmp_path / 'd.libsvm'
    path.write_text(LINES)
    with pytest.raises(DLBookError, match='round_batch == false'):
        mx.io.LibSVMIter(
            data_libsvm=str(path),
            data_shape=(5,),
            batch_size=2,
            round_batch=False,
        )
    with pytest.raises(DLBookError, match='outside data_shape'):
        mx.io.LibSVMIter(data_libsvm=str(path), data_shape=(3,), batch_size=2)
