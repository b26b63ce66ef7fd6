"""nd.sparse: CSR and row-sparse NDArrays against MXNet 1.9.1."""

import numpy as np
import pytest

import dlbook as mx
from dlbook.base import DLBookError
from dlbook.ndarray.serialization import save_to_bytes

nd = mx.nd
scipy_sparse = pytest.importorskip('scipy.sparse')

DENSE = [[0, 1, 0], [2, 0, 0], [0, 0, 0], [0, 3, 4]]


def csr():
    return nd.sparse.csr_matrix(
        ([1.0, 2.0, 3.0], [1, 0, 2], [0, 1, 2, 3]), shape=(3, 4)
    )


def test_csr_from_parts_and_repr():
    a = csr()
    # MXNet 1.9.1 gives '\n<CSRNDArray 3x4 @cpu(0)>' for repr and str
    assert repr(a) == '\n<CSRNDArray 3x4 @cpu(0)>'
    assert str(a) == repr(a)
    assert a.stype == 'csr' and a.shape == (3, 4)
    assert a.dtype == np.float32
    assert a.data.asnumpy().tolist() == [1, 2, 3]
    assert a.indices.asnumpy().tolist() == [1, 0, 2]
    assert a.indices.dtype == np.int64 and a.indptr.dtype == np.int64
    assert a.asnumpy().tolist() == [[0, 1, 0, 0], [2, 0, 0, 0], [0, 0, 3, 0]]


def test_dense_tostype_and_cast_storage():
    d = nd.array(DENSE)
    c = d.tostype('csr')
    assert repr(c) == '\n<CSRNDArray 4x3 @cpu(0)>'
    assert c.indptr.asnumpy().tolist() == [0, 1, 2, 2, 4]  # MXNet 1.9.1
    r = d.tostype('row_sparse')
    assert repr(r) == '\n<RowSparseNDArray 4x3 @cpu(0)>'
    assert r.indices.asnumpy().tolist() == [0, 1, 3]  # MXNet 1.9.1
    assert r.data.asnumpy().tolist() == [[0, 1, 0], [2, 0, 0], [0, 3, 4]]
    assert nd.cast_storage(c, stype='default').stype == 'default'
    assert nd.sparse.cast_storage(d, 'row_sparse').stype == 'row_sparse'
    np.testing.assert_array_equal(c.tostype('default').asnumpy(), DENSE)
    with pytest.raises(DLBookError, match='csr to row_sparse'):
        c.tostype('row_sparse')  # MXNet refuses this conversion too


def test_zeros_empty_and_other_constructors():
    assert repr(nd.sparse.zeros('csr', (2, 3))) == '\n<CSRNDArray 2x3 @cpu(0)>'
    z = nd.zeros((2, 3), stype='row_sparse')
    assert repr(z) == '\n<RowSparseNDArray 2x3 @cpu(0)>'
    assert z.indices.shape == (0,) and z.asnumpy().sum() == 0
    assert nd.sparse.empty('csr', (2, 2)).shape == (2, 2)
    assert nd.sparse.csr_matrix((2, 3)).stype == 'csr'
    assert nd.sparse.row_sparse_array((2, 3)).stype == 'row_sparse'
    assert nd.sparse.csr_matrix(nd.array(DENSE)).shape == (4, 3)
    r = nd.sparse.row_sparse_array(([[1, 2], [3, 4]], [1, 3]), shape=(5, 2))
    assert repr(r) == '\n<RowSparseNDArray 5x2 @cpu(0)>'
    assert r.asnumpy().tolist() == [[0, 0], [1, 2], [0, 0], [3, 4], [0, 0]]
    r = nd.sparse.row_sparse_array(
        (nd.array([[1, 2]]), nd.array([1])), shape=(5, 2)
    )
    assert r.indices.dtype == np.int64


def test_scipy_round_trip_keeps_dtype():
    m = scipy_sparse.csr_matrix(np.eye(3, dtype=np.float64))
    a = nd.sparse.array(m)
    assert a.stype == 'csr' and a.dtype == np.float64
    back = a.asscipy()
    assert isinstance(back, scipy_sparse.csr_matrix)
    np.testing.assert_array_equal(back.toarray(), np.eye(3))
    coo = nd.sparse.csr_matrix(scipy_sparse.coo_matrix(np.eye(2)))
    assert coo.stype == 'csr'


def test_dot_storage_rules():
    c = nd.array(DENSE).tostype('csr')
    w = nd.array(np.arange(9).reshape(3, 3))
    out = nd.sparse.dot(c, w)
    assert out.stype == 'default'
    np.testing.assert_allclose(out.asnumpy(), np.dot(DENSE, w.asnumpy()))
    assert nd.dot(c, w).stype == 'default'
    t = nd.sparse.dot(c, nd.ones((4, 2)), transpose_a=True)
    # MXNet 1.9.1: row_sparse, indices [0 1 2], data [[2 2] [4 4] [4 4]]
    assert t.stype == 'row_sparse'
    assert t.indices.asnumpy().tolist() == [0, 1, 2]
    assert t.data.asnumpy().tolist() == [[2, 2], [4, 4], [4, 4]]
    # MXNet 1.9.1: dot(dense, csr) is csr, also with transpose_b
    assert nd.sparse.dot(nd.ones((2, 4)), c).stype == 'csr'
    dt = nd.sparse.dot(nd.ones((2, 3)), c, transpose_b=True)
    assert dt.stype == 'csr'
    np.testing.assert_allclose(
        dt.asnumpy(), np.ones((2, 3)) @ np.array(DENSE).T
    )
    # MXNet 1.9.1: dot(csr, row_sparse) is dense
    rsp = nd.ones((3, 2)).tostype('row_sparse')
    assert nd.sparse.dot(c, rsp).stype == 'default'


def test_add_scalar_mul_slice_retain():
    d = nd.array(DENSE)
    c, r = d.tostype('csr'), d.tostype('row_sparse')
    # MXNet 1.9.1: csr+csr csr, csr+dense default, rsp+rsp row_sparse
    assert (c + c).stype == 'csr' and nd.sparse.elemwise_add(
        c, c
    ).stype == 'csr'
    assert (c + nd.ones(c.shape)).stype == 'default'
    assert (r + r).stype == 'row_sparse' and nd.sparse.add(
        r, r
    ).stype == 'row_sparse'
    np.testing.assert_array_equal((c + c).asnumpy(), 2 * np.array(DENSE))
    assert (c * 2).stype == 'csr' and (r * 2).stype == 'row_sparse'
    s = c[1:3]
    assert repr(s) == '\n<CSRNDArray 2x3 @cpu(0)>'
    assert s.indptr.asnumpy().tolist() == [0, 1, 1]  # MXNet 1.9.1
    s2 = nd.sparse.slice(c, begin=(1, 1), end=(3, 3))
    assert repr(s2) == '\n<CSRNDArray 2x2 @cpu(0)>'
    kept = nd.sparse.retain(r, nd.array([0, 1]))
    assert kept.indices.asnumpy().tolist() == [0, 1]  # MXNet 1.9.1
    assert kept.data.asnumpy().tolist() == [[0, 1, 0], [2, 0, 0]]
    assert nd.exp(c).stype == 'default'  # storage fallback


def test_copyto_and_contexts():
    c = csr()
    moved = c.copyto(mx.cpu(1))
    assert repr(moved) == '\n<CSRNDArray 3x4 @cpu(1)>'
    assert repr(c.as_in_context(mx.cpu(1))) == repr(moved)
    assert c.as_in_context(mx.cpu(0)) is c
    target = nd.zeros((3, 4))
    c.copyto(target)
    np.testing.assert_array_equal(target.asnumpy(), c.asnumpy())
    with pytest.raises(DLBookError, match='different contexts'):
        nd.sparse.dot(moved, nd.ones((4, 2)))


MX_CSR_FILE = bytes.fromhex(  # nd.save of csr() by MXNet 1.9.1
    '120100000000000000000000000000000100000000000000c9fa93f902000000'
    '0100000003000000000000000200000003000000000000000400000000000000'
    '0100000000000000000000000600000001000000040000000000000006000000'
    '0100000003000000000000000000803f00000040000040400000000000000000'
    '0100000000000000020000000000000003000000000000000100000000000000'
    '000000000000000002000000000000000000000000000000'
)
MX_RSP_FILE = bytes.fromhex(  # row_sparse_array(([[1,2],[3,4]],[1,3]),(5,2))
    '120100000000000000000000000000000100000000000000c9fa93f901000000'
    '0200000002000000000000000200000000000000020000000500000000000000'
    '0200000000000000010000000000000000000000060000000100000002000000'
    '000000000000803f000000400000404000008040010000000000000003000000'
    '000000000000000000000000'
)


def test_load_files_written_by_mxnet_and_save_identically(tmp_path):
    (c,) = nd.load_frombuffer(MX_CSR_FILE)
    assert (
        c.stype == 'csr' and c.asnumpy().tolist() == csr().asnumpy().tolist()
    )
    (r,) = nd.load_frombuffer(MX_RSP_FILE)
    assert r.stype == 'row_sparse'
    assert r.indices.asnumpy().tolist() == [1, 3]
    assert save_to_bytes([c]) == MX_CSR_FILE
    assert save_to_bytes([r]) == MX_RSP_FILE
    path = tmp_path / 'mixed.params'
    nd.save(
        str(path),
        {'c': c, 'r': r, 'd': nd.ones(2), 'z': nd.sparse.zeros('csr', (2, 3))},
    )
    back = nd.load(str(path))
    assert back['c'].stype == 'csr' and back['d'].stype == 'default'
    assert back['z'].shape == (2, 3) and back['z'].data.shape == (0,)
    np.testing.assert_array_equal(back['r'].asnumpy(), r.asnumpy())


def test_import_dlbook_does_not_import_scipy():
    import subprocess
    import sys

    code = 'import sys, dlbook; print("scipy" in sys.modules)'
    out = subprocess.run(
        [sys.executable, '-c', code],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == 'False'
