"""The ``mx.test_utils`` helpers added after the first set: NaN-tolerant
and error-rate comparisons, ``same_array``, ``compare_optimizer``, the
matrices of the linalg tests, ``check_speed``,
``check_gluon_hybridize_consistency``, ``DummyIter``, checksum-verified
downloads (served by a fake network) and the MNIST files in ``./data``.

Messages and values marked "MXNet" were printed by MXNet 1.9.1.
"""

import bz2
import hashlib
import io
import os
import zipfile

import numpy as np
import pytest

import dlbook as mx
from dlbook import _download
from dlbook import test_utils as tu
from dlbook.base import DLBookError


# -- comparisons ---------------------------------------------------------------
def test_ignore_nan_and_error_rate_messages_like_mxnet():
    a = np.array([1.0, 2.0, 3.0, 4.0, np.nan])
    b = np.array([1.0, 2.0, 3.5, 4.0, 5.0])
    tu.assert_almost_equal_ignore_nan(np.array([1.0, np.nan]), [1.0, 7.0])
    with pytest.raises(AssertionError) as err:
        tu.assert_almost_equal_ignore_nan(a, b)
    assert (
        'Error 14285.714286 exceeds tolerance rtol=1.000000e-05, '
        'atol=1.000000e-20 (mismatch 20.000000%).\n'
        'Location of maximum error: (2,), a=3.00000000, b=3.50000000'
    ) in str(err.value)
    assert np.isnan(a[4])  # the inputs are not modified
    tu.assert_almost_equal_with_err(a[:4], b[:4], etol=0.3)  # 1 of 4 bad
    with pytest.raises(AssertionError, match=r'mismatch 25\.000000%'):
        tu.assert_almost_equal_with_err(a[:4], b[:4], etol=0.2)
    with pytest.raises(AssertionError):
        tu.assert_almost_equal_with_err(a[:4], b[:4])  # etol 0: exact


def test_same_array():
    x = mx.nd.zeros((2, 3))
    assert tu.same_array(x, x)
    assert not tu.same_array(x, x.copy())
    assert not tu.same_array(x, x[0:1])  # other shape (MXNet: False too)
    assert x.asnumpy().sum() == 0  # restored


def test_compare_ndarray_tuple_and_optimizer():
    tu.compare_ndarray_tuple(
        (mx.nd.ones(2), (mx.nd.zeros(1),)), (mx.nd.ones(2), (mx.nd.zeros(1),))
    )
    tu.compare_ndarray_tuple(None, mx.nd.ones(2))  # nothing to compare
    with pytest.raises(AssertionError):
        tu.compare_ndarray_tuple((mx.nd.ones(2),), (mx.nd.zeros(2),))

    def sgd(**kw):
        return mx.optimizer.SGD(learning_rate=0.1, **kw)

    tu.compare_optimizer(sgd(momentum=0.9), sgd(momentum=0.9), (3, 4), 'f')
    tu.compare_optimizer(
        sgd(wd=0.1), sgd(wd=0.1), [(2,), (3, 2)], np.float32, ntensors=2
    )
    with pytest.raises(AssertionError):
        tu.compare_optimizer(sgd(), sgd(wd=0.5), (5,), np.float32)
    with pytest.raises(ValueError, match='dense'):
        tu.compare_optimizer(sgd(), sgd(), (5,), 'f', w_stype='row_sparse')


# -- test inputs ---------------------------------------------------------------
def test_tensors_and_identities():
    assert tu.create_vector(4).asnumpy().tolist() == [0, 1, 2, 3]
    assert tu.create_vector(4).dtype == np.int64
    assert tu.create_2d_tensor(2, 3).asnumpy().tolist() == [[0] * 3, [1] * 3]
    assert tu.get_identity_mat(3).asnumpy().tolist() == np.eye(3).tolist()
    assert tu.get_identity_mat_batch(2).shape == (2, 2, 2)
    x, y = tu.rand_coord_2d(1, 3, 10, 12)
    assert 1 <= x < 3 and 10 <= y < 12


def test_matrices_with_real_eigenvalues():
    m = tu.new_matrix_with_real_eigvals_nd((2, 3, 4, 4))
    assert m.shape == (2, 3, 4, 4)
    eig = np.linalg.eigvals(m)
    assert np.abs(eig.imag).max() < 1e-8 and np.abs(eig.real).max() <= 10
    q = tu.new_orthonormal_matrix_2d(5)
    np.testing.assert_allclose(q.T @ q, np.eye(5), atol=1e-10)
    s = tu.new_sym_matrix_with_real_eigvals_nd((2, 4, 4))
    np.testing.assert_allclose(s, np.swapaxes(s, -1, -2), atol=1e-10)
    assert tu.new_matrix_with_real_eigvals_2d(3).shape == (3, 3)


def test_collapse_sum_like():
    a = np.arange(24.0).reshape(2, 3, 4)
    # MXNet: [[60.0], [92.0], [124.0]]
    assert tu.collapse_sum_like(a, (3, 1)).tolist() == [
        [60.0],
        [92.0],
        [124.0],
    ]
    assert tu.collapse_sum_like(a, (0, 4)).shape == (0, 4)


# -- graphs --------------------------------------------------------------------
def test_check_speed_and_symbol_structure():
    net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc')
    assert tu.check_speed(net, data=(4, 3), N=2) > 0
    loc = {'data': np.ones((4, 3)), 'fc_weight': np.ones((2, 3))}
    loc['fc_bias'] = np.zeros(2)
    assert tu.check_speed(net, location=loc, N=2, typ='forward') > 0
    with pytest.raises(ValueError, match='"whole" or "forward"'):
        tu.check_speed(net, data=(4, 3), typ='backward')
    other = mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=5, name='o')
    assert tu.same_symbol_structure(net, other)
    assert not tu.same_symbol_structure(net, mx.sym.relu(mx.sym.var('x')))


def test_check_gluon_hybridize_consistency():
    def build(prefix=None):
        net = mx.gluon.nn.HybridSequential(prefix=prefix)
        with net.name_scope():
            net.add(
                mx.gluon.nn.Dense(3, activation='tanh'), mx.gluon.nn.Dense(2)
            )
        return net

    x = mx.nd.array(np.arange(8).reshape(2, 4) / 8.0)
    tu.check_gluon_hybridize_consistency(build, [x])

    class Relu2(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.relu(x) * 2

    tu.check_gluon_hybridize_consistency(
        lambda prefix=None: Relu2(prefix=prefix),
        [x - 0.5],
        numpy_func=lambda a: np.maximum(a, 0) * 2,
    )
    with pytest.raises(AssertionError):
        tu.check_gluon_hybridize_consistency(
            lambda prefix=None: Relu2(prefix=prefix),
            [x - 0.5],
            numpy_func=lambda a: a,
        )


def test_dummy_iter_repeats_the_first_batch():
    real = mx.io.NDArrayIter(np.arange(6.0).reshape(3, 2), np.zeros(3), 2)
    it = tu.DummyIter(real)
    assert it.batch_size == 2 and it.provide_data == real.provide_data
    batches = [b for _, b in zip(range(5), it)]  # endless
    assert all(b is batches[0] for b in batches)
    assert batches[0].data[0].asnumpy().tolist() == [[0, 1], [2, 3]]


# -- downloads (a fake network) ------------------------------------------------
class _Response(io.BytesIO):
    status = 200


@pytest.fixture
def served(monkeypatch):
    """URL -> bytes the fake network serves; records the URLs asked."""
    files, asked = {}, []

    def urlopen(url, **kwargs):
        asked.append(url)
        if url not in files:
            raise OSError(f'no network in tests ({url})')
        return _Response(files[url])

    monkeypatch.setattr(_download, '_urlopen', urlopen)
    monkeypatch.setattr(_download, '_RETRY_DELAY_S', 0)
    return files, asked


def sha1(data):
    return hashlib.sha1(data).hexdigest()


def test_download_verifies_the_checksum(tmp_path, served):
    files, asked = served
    files['http://x/a.txt'] = b'hello'
    fname = tu.download('http://x/a.txt', dirname=str(tmp_path / 'd'))
    assert fname == str(tmp_path / 'd' / 'a.txt')
    assert open(fname, 'rb').read() == b'hello'
    tu.download('http://x/a.txt', dirname=str(tmp_path / 'd'))  # kept
    assert len(asked) == 1
    # an existing file with the wrong checksum is fetched again
    with open(fname, 'wb') as f:
        f.write(b'stale')
    tu.download('http://x/a.txt', fname, sha1_hash=sha1(b'hello'))
    assert open(fname, 'rb').read() == b'hello' and len(asked) == 2
    with pytest.raises(DLBookError, match='hash does not match'):
        tu.download(
            'http://x/a.txt',
            str(tmp_path / 'b.txt'),
            retries=0,
            sha1_hash=sha1(b'other'),
        )
    assert not os.path.exists(tmp_path / 'b.txt')


def test_get_zip_and_bz2_data(tmp_path, served):
    files, _ = served
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w') as z:
        z.writestr('inner/data.csv', '1,2\n')
    files['http://x/set.zip'] = buf.getvalue()
    files['http://x/kdd.t.bz2'] = bz2.compress(b'line1\nline2\n')
    d = str(tmp_path)
    tu.get_zip_data(d, 'http://x/set.zip', 'set.zip', sha1(buf.getvalue()))
    assert open(tmp_path / 'inner' / 'data.csv').read() == '1,2\n'
    tu.get_bz2_data(d, 'kdd.t', 'http://x/kdd.t.bz2', 'kdd.t.bz2')
    assert open(tmp_path / 'kdd.t', 'rb').read() == b'line1\nline2\n'
    assert not os.path.exists(tmp_path / 'kdd.t.bz2')  # removed


# -- MNIST ---------------------------------------------------------------------
def _mnist_dir():
    root = os.environ.get('DLBOOK_DATA')
    path = os.path.join(root or '', 'mnist', 't10k-labels-idx1-ubyte.gz')
    if not root or not os.path.isfile(path):
        pytest.skip('MNIST not found: set DLBOOK_DATA to a folder with mnist/')
    return root


def test_get_mnist_iterator(tmp_path, monkeypatch):
    _mnist_dir()
    monkeypatch.chdir(tmp_path)
    train, val = tu.get_mnist_iterator(100, (1, 28, 28))
    assert sorted(os.listdir('data')) == [
        't10k-images-idx3-ubyte',
        't10k-labels-idx1-ubyte',
        'train-images-idx3-ubyte',
        'train-labels-idx1-ubyte',
    ]
    assert os.path.getsize('data/train-images-idx3-ubyte') == 47040016
    assert train.provide_data[0].shape == (100, 1, 28, 28)
    assert val.provide_label[0].shape == (100,)
    # MXNet: 600 and 100 batches; with 2 parts of batch 50: 600 and 100
    assert (sum(1 for _ in train), sum(1 for _ in val)) == (600, 100)
    train, val = tu.get_mnist_iterator(50, (784,), num_parts=2, part_index=1)
    assert train.provide_data[0].shape == (50, 784)
    assert (sum(1 for _ in train), sum(1 for _ in val)) == (600, 100)


def test_get_mnist_ubyte_offline_says_where_it_looked(
    tmp_path, monkeypatch, served
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv('DLBOOK_DATA', str(tmp_path / 'shared'))
    monkeypatch.setenv('DLBOOK_HOME', str(tmp_path / 'home'))
    with pytest.raises(DLBookError) as err:
        tu.get_mnist_ubyte()
    msg = str(err.value)
    assert 'cannot find the mnist data file(s)' in msg
    assert str(tmp_path / 'shared' / 'mnist') in msg
    assert str(tmp_path / 'home' / 'datasets' / 'mnist') in msg
    assert 'DLBOOK_DATA' in msg
