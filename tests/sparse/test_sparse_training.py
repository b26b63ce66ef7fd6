"""Row-sparse gradients, lazy optimizer updates and row_sparse weights,
against MXNet 1.9.1."""

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, gluon, nd

pytest.importorskip('scipy.sparse')

TARGET = [[[1, 2], [3, 4], [5, 6]]]


def train_embedding(optimizer, **kwargs):
    net = gluon.nn.Embedding(5, 2, sparse_grad=True)
    net.initialize(mx.init.Constant(1.0))
    trainer = gluon.Trainer(net.collect_params(), optimizer, kwargs)
    grads = []
    for x in ([[1, 3, 1]], [[0, 1, 0]]):
        with autograd.record():
            loss = (net(nd.array(x)) * nd.array(TARGET)).sum()
        loss.backward()
        grads.append(net.weight.grad().copy())
        trainer.step(1)
    return grads[0], net.weight.data().asnumpy()


def test_embedding_sparse_grad_is_row_sparse():
    g, _ = train_embedding('sgd', learning_rate=0.1)
    # MXNet 1.9.1: row_sparse, indices [1, 3], data [[6, 8], [3, 4]]
    assert g.stype == 'row_sparse'
    assert g.indices.asnumpy().tolist() == [1, 3]
    assert g.data.asnumpy().tolist() == [[6, 8], [3, 4]]


# MXNet 1.9.1 weights after the two steps of train_embedding
EXPECTED = {
    ('sgd', False, None): [
        [0.39, 0.19],
        [0.0861, -0.2119],
        [1.0, 1.0],
        [0.69, 0.59],
        [1.0, 1.0],
    ],
    ('sgd', False, 0.9): [
        [0.39, 0.19],
        [-0.4629, -0.9409],
        [1.0, 1.0],
        [0.69, 0.59],
        [1.0, 1.0],
    ],
    ('sgd', True, None): [
        [0.3801, 0.1801],
        [0.0861, -0.2119],
        [0.9801, 0.9801],
        [0.6831, 0.5841],
        [0.9801, 0.9801],
    ],
    ('adam', False, None): [
        [0.9255858, 0.9255858],
        [0.8065906, 0.8066372],
        [1.0, 1.0],
        [0.8999994, 0.8999994],
        [1.0, 1.0],
    ],
    ('adam', True, None): [
        [0.8244959, 0.8247634],
        [0.8065906, 0.8066372],
        [0.8004114, 0.8004114],
        [0.8308608, 0.8313754],
        [0.8004114, 0.8004114],
    ],
}


@pytest.mark.parametrize('optimizer,dense_update,momentum', list(EXPECTED))
def test_lazy_and_standard_updates_match_mxnet(
    optimizer, dense_update, momentum
):
    kwargs = {'learning_rate': 0.1, 'wd': 0.1}
    if momentum:
        kwargs['momentum'] = momentum
    if dense_update:
        kwargs['lazy_update'] = False
    _, weight = train_embedding(optimizer, **kwargs)
    np.testing.assert_allclose(
        weight,
        EXPECTED[(optimizer, dense_update, momentum)],
        rtol=1e-5,
        atol=2e-6,
    )


def test_dot_csr_gradient_is_row_sparse():
    c = nd.sparse.csr_matrix(
        ([1.0, 2.0, 3.0], [1, 0, 1], [0, 1, 2, 3]), shape=(3, 4)
    )
    w = nd.ones((4, 2))
    w.attach_grad(stype='row_sparse')
    with autograd.record():
        y = nd.sparse.dot(c, w)
    y.backward()
    # MXNet 1.9.1: row_sparse, indices [0, 1], data [[2, 2], [4, 4]]
    assert w.grad.stype == 'row_sparse'
    assert w.grad.indices.asnumpy().tolist() == [0, 1]
    assert w.grad.data.asnumpy().tolist() == [[2, 2], [4, 4]]
    w2 = nd.ones((4, 2))
    w2.attach_grad()
    with autograd.record():
        y = nd.dot(c, w2)
    y.backward()
    assert w2.grad.stype == 'default'
    assert w2.grad.asnumpy().tolist() == [[2, 2], [4, 4], [0, 0], [0, 0]]


def test_row_sparse_parameter_with_trainer():
    c = nd.sparse.csr_matrix(
        ([1.0, 2.0, 3.0], [1, 0, 1], [0, 1, 2, 3]), shape=(3, 4)
    )
    p = gluon.Parameter(
        'w', shape=(4, 2), stype='row_sparse', grad_stype='row_sparse'
    )
    p.initialize(mx.init.Constant(2.0))
    with pytest.raises(mx.base.DLBookError, match='row_sparse_data'):
        p.data()
    trainer = gluon.Trainer([p], 'sgd', {'learning_rate': 1.0})
    d = p.row_sparse_data(nd.array([0, 2]))
    assert repr(d) == '\n<RowSparseNDArray 4x2 @cpu(0)>'
    assert d.indices.asnumpy().tolist() == [0, 2]
    with autograd.record():
        y = nd.sparse.dot(c, d)
    y.backward()
    g = p.grad()
    assert g.indices.asnumpy().tolist() == [0, 1]  # MXNet 1.9.1
    trainer.step(1)
    after = p.row_sparse_data(nd.array([0, 1, 2, 3])).asnumpy()
    # MXNet 1.9.1: [[0, 0], [-2, -2], [2, 2], [2, 2]]
    assert after.tolist() == [[0, 0], [-2, -2], [2, 2], [2, 2]]


def test_kvstore_row_sparse_pull():
    kv = mx.kv.create('local')
    kv.init('w', nd.arange(8).reshape(4, 2).tostype('row_sparse'))
    out = nd.sparse.zeros('row_sparse', (4, 2))
    kv.row_sparse_pull('w', out=out, row_ids=nd.array([2, 0, 2]))
    # MXNet 1.9.1: indices [0, 2], data [[0, 1], [4, 5]]
    assert out.indices.asnumpy().tolist() == [0, 2]
    assert out.data.asnumpy().tolist() == [[0, 1], [4, 5]]


def test_zero_grad_and_dense_embedding_unchanged():
    net = gluon.nn.Embedding(5, 2, sparse_grad=True)
    net.initialize()
    with autograd.record():
        net(nd.array([1, 2])).sum().backward()
    net.weight.zero_grad()
    assert net.weight.grad().indices.shape == (0,)
    dense = gluon.nn.Embedding(5, 2)
    dense.initialize()
    with autograd.record():
        dense(nd.array([1, 2])).sum().backward()
    assert dense.weight.grad().stype == 'default'
