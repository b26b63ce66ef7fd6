"""``nd.sparse``'s operators: MXNet 1.9.1's output storage types (recorded
with MXNet on the CPU) and values (those of the dense operator)."""

import numpy as np
import pytest

import dlbook as mx

nd = mx.nd
A = np.array([[0, 0.5, 0], [-2, 0, 0], [0, 0, 0], [0, 3, -0.25]], 'float32')
B = np.array([[1, 0.5, 0], [0, 0, 0], [0, 2, 0], [0, 3, 0]], 'float32')
STYPE = {'csr': 'csr', 'rsp': 'row_sparse'}


def make(kind, x):
    if kind == 'dns':
        return nd.array(x)
    return nd.array(x).tostype(STYPE[kind])


# recorded with MXNet 1.9.1: nd.sparse.<name>(csr), (row_sparse)
KEEPS = (
    'abs arcsin arcsinh arctan arctanh cbrt ceil degrees expm1 fix floor '
    'log1p negative radians relu rint round sign sin sinh sqrt square tan '
    'tanh trunc stop_gradient zeros_like make_loss'
).split()
DENSE = (
    'arccos arccosh cos cosh exp gamma gammaln log log10 log2 rsqrt sigmoid'
).split()


@pytest.mark.filterwarnings('ignore::RuntimeWarning')
@pytest.mark.parametrize('name', KEEPS + DENSE)
@pytest.mark.parametrize('kind', ['csr', 'rsp'])
def test_unary(name, kind):
    y = getattr(nd.sparse, name)(make(kind, A))
    assert y.stype == (STYPE[kind] if name in KEEPS else 'default')
    want = getattr(nd, name)(nd.array(A)).asnumpy()
    np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-6, equal_nan=True)


# (name, lhs, rhs) -> MXNet's output stype
BINARY = {
    'elemwise_add': {('csr', 'csr'): 'csr', ('rsp', 'rsp'): 'row_sparse'},
    'elemwise_sub': {('csr', 'csr'): 'csr', ('rsp', 'rsp'): 'row_sparse'},
    'elemwise_mul': {
        ('csr', 'csr'): 'csr',
        ('rsp', 'rsp'): 'row_sparse',
        ('csr', 'dns'): 'csr',
        ('dns', 'csr'): 'csr',
        ('rsp', 'dns'): 'row_sparse',
        ('dns', 'rsp'): 'row_sparse',
    },
    'elemwise_div': {},
}
DENSE_OF = {
    'elemwise_add': np.add,
    'elemwise_sub': np.subtract,
    'elemwise_mul': np.multiply,
}
PAIRS = [
    (n, l, r)
    for n in BINARY
    for l in ('csr', 'rsp', 'dns')
    for r in ('csr', 'rsp', 'dns')
    if n != 'elemwise_div' and (l, r) != ('dns', 'dns')
]


@pytest.mark.parametrize('name,lhs,rhs', PAIRS)
def test_binary(name, lhs, rhs):
    y = getattr(nd.sparse, name)(make(lhs, A), make(rhs, B))
    assert y.stype == BINARY[name].get((lhs, rhs), 'default')
    np.testing.assert_allclose(y.asnumpy(), DENSE_OF[name](A, B), rtol=1e-6)


def test_aliases_and_div():
    assert nd.sparse.subtract(make('csr', A), make('csr', B)).stype == 'csr'
    assert nd.sparse.multiply(make('rsp', A), make('dns', B)).stype == (
        'row_sparse'
    )
    y = nd.sparse.elemwise_div(make('rsp', A), make('dns', B + 1))
    assert y.stype == 'default'
    np.testing.assert_allclose(y.asnumpy(), A / (B + 1), rtol=1e-6)


@pytest.mark.parametrize('name', ['broadcast_mul', 'broadcast_div'])
def test_broadcast_csr(name):
    row = np.array([[1, 2, 4]], 'float32')
    col = np.array([[1], [2], [4], [8]], 'float32')
    f = np.multiply if name == 'broadcast_mul' else np.divide
    for other in (row, col):
        y = getattr(nd.sparse, name)(make('csr', A), nd.array(other))
        assert y.stype == 'csr'
        np.testing.assert_allclose(y.asnumpy(), f(A, other), rtol=1e-6)
        y = getattr(nd.sparse, name)(make('rsp', A), nd.array(other))
        assert y.stype == 'default'


def test_broadcast_add_is_dense():
    y = nd.sparse.broadcast_add(make('csr', A), nd.array([[1, 2, 3]]))
    assert y.stype == 'default'
    np.testing.assert_allclose(y.asnumpy(), A + [[1, 2, 3]])


def test_reductions_are_dense():
    # MXNet: sum(csr, axis=1) = [0.5, -2, 0, 2.75]; norm(csr, axis=1) =
    # [0.5, 2, 0, 3.0103986]; mean(rsp, axis=0) = [-0.5, 0.875, -0.0625]
    y = nd.sparse.sum(make('csr', A), axis=1)
    assert y.stype == 'default'
    np.testing.assert_allclose(y.asnumpy(), [0.5, -2, 0, 2.75])
    y = nd.sparse.norm(make('csr', A), axis=1)
    np.testing.assert_allclose(y.asnumpy(), [0.5, 2, 0, 3.0103986], rtol=1e-6)
    y = nd.sparse.mean(make('rsp', A), axis=0)
    np.testing.assert_allclose(y.asnumpy(), [-0.5, 0.875, -0.0625])
    assert nd.sparse.sum(make('rsp', A)).shape == (1,)


def test_clip():
    for kind in ('csr', 'rsp'):
        y = nd.sparse.clip(make(kind, A), -1, 1)
        assert y.stype == STYPE[kind]
        np.testing.assert_allclose(y.asnumpy(), np.clip(A, -1, 1))
        with pytest.raises(mx.base.DLBookError):
            nd.sparse.clip(make(kind, A), 0.1, 1)


def test_add_n_concat_where():
    assert nd.sparse.add_n(make('rsp', A), make('rsp', B)).stype == (
        'row_sparse'
    )
    assert nd.sparse.ElementWiseSum(make('csr', A), make('csr', B)).stype == (
        'default'
    )
    y = nd.sparse.add_n(make('rsp', A), make('rsp', B), make('dns', B))
    assert y.stype == 'default'
    np.testing.assert_allclose(y.asnumpy(), A + 2 * B)
    y = nd.sparse.concat(make('csr', A), make('csr', B), dim=0)
    assert y.stype == 'csr' and y.shape == (8, 3)
    np.testing.assert_allclose(y.asnumpy(), np.concatenate([A, B]))
    assert nd.sparse.concat(make('csr', A), make('csr', B), dim=1).stype == (
        'default'
    )
    assert nd.sparse.concat(make('rsp', A), make('rsp', B), dim=0).stype == (
        'default'
    )
    y = nd.sparse.where(make('csr', A), nd.array(B), nd.ones((4, 3)))
    assert y.stype == 'default'
    np.testing.assert_allclose(y.asnumpy(), np.where(A, B, 1))


def test_layers_take_sparse_and_are_dense():
    y = nd.sparse.FullyConnected(
        make('csr', A), nd.ones((2, 3)), nd.ones(2), num_hidden=2
    )
    assert y.stype == 'default'
    np.testing.assert_allclose(
        y.asnumpy(), A.sum(1, keepdims=True) + 1 + 0 * np.ones((4, 2))
    )
    y = nd.sparse.Embedding(
        nd.array([0, 2]), make('rsp', A), input_dim=4, output_dim=3
    )
    assert y.stype == 'default'
    np.testing.assert_allclose(y.asnumpy(), A[[0, 2]])
    y = nd.sparse.LinearRegressionOutput(nd.array(A), make('csr', B))
    assert y.stype == 'default'


def test_gradient_through_kept_storage():
    x = make('csr', A)
    x.attach_grad()
    with mx.autograd.record():
        y = nd.sparse.square(x)
    assert y.stype == 'csr'
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * A)


def test_updates_with_row_sparse_grad():
    # MXNet: sgd_update(row_sparse weight, row_sparse grad) is row_sparse
    w = nd.ones((4, 3)).tostype('row_sparse')
    assert nd.sparse.sgd_update(w, make('rsp', A), lr=0.1).stype == (
        'row_sparse'
    )
    y = nd.sparse.sgd_update(nd.ones((4, 3)), make('rsp', A), lr=0.1)
    np.testing.assert_allclose(y.asnumpy(), 1 - 0.1 * A, rtol=1e-6)
