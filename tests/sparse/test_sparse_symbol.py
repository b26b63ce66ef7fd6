"""sym.sparse, executors with sparse arguments and gradients, the Module
API on LibSVM data (MXNet's example/sparse/linear_classification), and
sparse rand_ndarray; expected values recorded from MXNet 1.9.1."""

import json

import numpy as np
import pytest

import dlbook as mx
from dlbook import nd

pytest.importorskip('scipy.sparse')


def csr34():
    return nd.sparse.csr_matrix(
        ([1.0, 2.0, 3.0], [1, 0, 1], [0, 1, 2, 3]), shape=(3, 4)
    )


# ------------------------------------------------------------------ symbols


def test_variable_stype_is_stored_as_mxnet_storage_id():
    # MXNet 1.9.1: {'__storage_type__': '2'} for csr, '1' for row_sparse
    assert mx.sym.var('a', stype='csr').list_attr() == {
        '__storage_type__': '2'
    }
    assert (
        mx.sym.Variable('w', stype='row_sparse').attr('__storage_type__')
        == '1'
    )
    assert mx.sym.var('d', stype='default').attr('__storage_type__') == '0'
    with pytest.raises(mx.base.MXNetError, match='storage type'):
        mx.sym.var('x', stype='dense')


def test_sym_sparse_nodes_names_and_json():
    with mx.name.NameManager():  # numbering as in a fresh MXNet process
        a = mx.sym.var('a', stype='row_sparse')
        r = mx.sym.sparse.retain(a, mx.sym.var('i'))
        c = mx.sym.sparse.cast_storage(a, stype='default')
        e = mx.sym.sparse.elemwise_add(a, a)
        d = mx.sym.sparse.dot(
            mx.sym.var('x', stype='csr'), mx.sym.var('w'), transpose_a=True
        )
    # MXNet 1.9.1: retain0 ['a', 'i'], cast_storage0, elemwise_add0, dot0
    assert (r.name, r.list_arguments()) == ('retain0', ['a', 'i'])
    assert (c.name, e.name, d.name) == (
        'cast_storage0',
        'elemwise_add0',
        'dot0',
    )
    assert c.attr_dict() == {
        'a': {'__storage_type__': '1'},
        'cast_storage0': {'stype': 'default'},
    }
    assert d.attr_dict() == {
        'x': {'__storage_type__': '2'},
        'dot0': {'transpose_a': 'True'},
    }
    ops = [
        n['op']
        for n in json.loads(mx.sym.Group([r, c, e, d]).tojson())['nodes']
    ]
    assert ops == [
        'null',
        'null',
        '_sparse_retain',
        'cast_storage',
        'elemwise_add',
        'null',
        'null',
        'dot',
    ]
    # a loaded graph keeps the storage of its variables
    loaded = mx.sym.load_json(d.tojson())
    exe = loaded.simple_bind(mx.cpu(), x=(3, 4), w=(3, 2))
    assert exe.arg_dict['x'].stype == 'csr'


def linear_symbol(num_features=10):
    x = mx.sym.Variable('data', stype='csr')
    w = mx.sym.Variable(
        'weight',
        shape=(num_features, 2),
        init=mx.init.Normal(sigma=0.01),
        stype='row_sparse',
    )
    b = mx.sym.Variable('bias', shape=(2,))
    pred = mx.sym.broadcast_add(mx.sym.sparse.dot(x, w), b)
    return mx.sym.SoftmaxOutput(
        data=pred,
        label=mx.sym.var('softmax_label'),
        multi_output=True,
        name='out',
    )


def stypes(arrays):
    return {k: (v.stype if v is not None else None) for k, v in arrays.items()}


def test_simple_bind_storage_types():
    model = linear_symbol()
    exe = model.simple_bind(mx.cpu(), data=(4, 10), softmax_label=(4,))
    # MXNet 1.9.1
    assert stypes(exe.arg_dict) == {
        'data': 'csr',
        'weight': 'row_sparse',
        'bias': 'default',
        'softmax_label': 'default',
    }
    assert stypes(exe.grad_dict) == {
        'data': 'default',
        'weight': 'row_sparse',
        'bias': 'default',
        'softmax_label': 'default',
    }
    exe = model.simple_bind(
        mx.cpu(),
        data=(4, 10),
        softmax_label=(4,),
        stype_dict={
            'weight': 'default',
            'data': 'csr',
            'bias': 'default',
            'softmax_label': 'default',
        },
    )
    assert exe.arg_dict['weight'].stype == 'default'
    assert exe.grad_dict['weight'].stype == 'row_sparse'  # MXNet 1.9.1


def test_executor_dot_csr_forward_and_row_sparse_gradient():
    e = mx.sym.sparse.dot(mx.sym.var('x', stype='csr'), mx.sym.var('w'))
    exe = e.simple_bind(mx.cpu(), x=(3, 4), w=(4, 2))
    exe.arg_dict['x'][:] = csr34()
    exe.arg_dict['w'][:] = 1
    out = exe.forward(is_train=True)[0]
    assert out.stype == 'default'
    assert out.asnumpy().tolist() == [[1, 1], [2, 2], [3, 3]]
    exe.backward(nd.ones((3, 2)))
    g = exe.grad_dict['w']
    # MXNet 1.9.1: row_sparse, indices [0, 1], data [[2, 2], [4, 4]]
    assert g.stype == 'row_sparse'
    assert g.indices.asnumpy().tolist() == [0, 1]
    assert g.data.asnumpy().tolist() == [[2, 2], [4, 4]]


def test_bind_transposed_dot_and_retain():
    d = mx.sym.sparse.dot(
        mx.sym.var('x', stype='csr'), mx.sym.var('w'), transpose_a=True
    )
    exe = d.bind(mx.cpu(), {'x': csr34(), 'w': nd.ones((3, 2))})
    out = exe.forward()[0]
    # MXNet 1.9.1: RowSparseNDArray, indices [0, 1], data [[2, 2], [4, 4]]
    assert isinstance(out, nd.sparse.RowSparseNDArray)
    assert out.indices.asnumpy().tolist() == [0, 1]
    assert out.data.asnumpy().tolist() == [[2, 2], [4, 4]]
    exe = d.bind(
        mx.cpu(),
        {'x': csr34(), 'w': nd.ones((3, 2))},
        args_grad={'w': nd.zeros((3, 2))},
    )
    exe.forward(is_train=True)
    exe.backward(nd.ones((4, 2)).tostype('row_sparse'))
    # MXNet 1.9.1
    assert exe.grad_dict['w'].asnumpy().tolist() == [[1, 1], [2, 2], [3, 3]]
    r = mx.sym.sparse.retain(
        mx.sym.var('a', stype='row_sparse'), mx.sym.var('i')
    )
    exe = r.bind(
        mx.cpu(),
        {
            'a': nd.arange(8).reshape(4, 2).tostype('row_sparse'),
            'i': nd.array([0, 2]),
        },
    )
    out = exe.forward()[0]
    # MXNet 1.9.1: indices [0, 2], data [[0, 1], [4, 5]]
    assert out.indices.asnumpy().tolist() == [0, 2]
    assert out.data.asnumpy().tolist() == [[0, 1], [4, 5]]


def test_dense_operators_see_dense_values_of_sparse_arguments():
    x = mx.sym.var('x', stype='csr')
    y = mx.sym.sum(mx.sym.exp(x) * 2, axis=1)
    out = y.bind(mx.cpu(), {'x': csr34()}).forward()[0]
    np.testing.assert_allclose(
        out.asnumpy(), 2 * np.exp(csr34().asnumpy()).sum(axis=1), rtol=1e-6
    )


def test_embedding_executor_gradient_is_row_sparse():
    e = mx.sym.Embedding(
        mx.sym.var('data'),
        input_dim=5,
        output_dim=2,
        sparse_grad=True,
        name='emb',
    )
    exe = e.simple_bind(
        mx.cpu(), data=(3,), grad_req={'data': 'null', 'emb_weight': 'write'}
    )
    assert exe.grad_dict['emb_weight'].stype == 'row_sparse'
    exe.arg_dict['data'][:] = nd.array([1, 3, 1])
    exe.arg_dict['emb_weight'][:] = 1
    exe.forward(is_train=True)
    exe.backward(nd.ones((3, 2)))
    g = exe.grad_dict['emb_weight']
    # MXNet 1.9.1: indices [1, 3], data [[2, 2], [1, 1]]
    assert g.indices.asnumpy().tolist() == [1, 3]
    assert g.data.asnumpy().tolist() == [[2, 2], [1, 1]]


@pytest.mark.parametrize('hybridize', [False, True])
def test_hybridized_embedding_sparse_grad(hybridize):
    net = mx.gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(
            mx.gluon.nn.Embedding(6, 2, sparse_grad=True),
            mx.gluon.nn.Dense(1, flatten=True),
        )
    net.initialize(mx.init.Constant(0.5))
    if hybridize:
        net.hybridize()
    x = nd.array([[1, 3, 1], [4, 4, 0]])
    for _ in range(2):
        with mx.autograd.record():
            out = net(x).sum()
        out.backward()
    g = net[0].weight.grad()
    # MXNet 1.9.1 (hybridized or not)
    assert g.stype == 'row_sparse'
    assert g.indices.asnumpy().tolist() == [0, 1, 3, 4]
    assert g.data.asnumpy().tolist() == [
        [0.5, 0.5],
        [1, 1],
        [0.5, 0.5],
        [1, 1],
    ]
    mx.gluon.Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.1, 'wd': 0.1}
    ).step(1)
    np.testing.assert_allclose(
        net[0].weight.data().asnumpy()[:, 0],
        [0.445, 0.395, 0.5, 0.445, 0.395, 0.5],
        rtol=1e-6,
    )
    # rows looked up with an all-zero gradient are still stored
    e = mx.gluon.nn.Embedding(6, 2, sparse_grad=True)
    e.initialize()
    if hybridize:
        e.hybridize()
    with mx.autograd.record():
        y = (e(nd.array([2, 5])) * 0).sum()
    y.backward()
    assert e.weight.grad().indices.asnumpy().tolist() == [2, 5]  # MXNet


# ------------------------------------------- Module on LibSVM data (example)

F, N, B = 30, 96, 16


def write_libsvm(path):
    rng = np.random.RandomState(0)
    w_true = rng.randn(F)
    with open(path, 'w') as f:
        for _ in range(N):
            cols = np.sort(rng.choice(F, 4, replace=False))
            vals = rng.rand(4).round(3)
            label = int(vals @ w_true[cols] > 0)
            f.write(
                f'{label} '
                + ' '.join(f'{c}:{v}' for c, v in zip(cols, vals))
                + '\n'
            )
    return str(path)


def linear_model(num_features, sparse=True):
    """example/sparse/linear_classification/linear_model.py (with
    SoftmaxOutput); ``sparse=False`` is the dense reference."""
    x = mx.symbol.Variable('data', stype='csr' if sparse else None)
    norm_init = mx.initializer.Normal(sigma=0.01)
    weight = mx.symbol.Variable(
        'weight',
        shape=(num_features, 2),
        init=norm_init,
        stype='row_sparse' if sparse else None,
    )
    bias = mx.symbol.Variable('bias', shape=(2,))
    dot = (mx.symbol.sparse.dot if sparse else mx.symbol.dot)(x, weight)
    pred = mx.symbol.broadcast_add(dot, bias)
    y = mx.symbol.Variable('softmax_label')
    return mx.sym.SoftmaxOutput(
        data=pred, label=y, multi_output=True, name='out'
    )


def train_example(path, kvstore, wd=0.01, sparse=True, arg_params=None):
    train = mx.io.LibSVMIter(data_libsvm=path, data_shape=(F,), batch_size=B)
    kv = mx.kvstore.create(kvstore) if kvstore else None
    mod = mx.mod.Module(
        symbol=linear_model(F, sparse),
        data_names=['data'],
        label_names=['softmax_label'],
    )
    mod.bind(data_shapes=train.provide_data, label_shapes=train.provide_label)
    mod.init_params(arg_params=arg_params)
    optim = mx.optimizer.create(
        'sgd', learning_rate=0.5, wd=wd, rescale_grad=1.0 / B
    )
    mod.init_optimizer(optimizer=optim, kvstore=kv)
    metric = mx.metric.create(['acc'])
    weight_index = mod._exec_group.param_names.index('weight')
    weight_param = mod._exec_group.param_arrays[weight_index]
    all_row_ids = nd.arange(0, F, dtype='int64')
    history = []
    for _ in range(3):
        metric.reset()
        train.reset()
        for batch in train:
            if kv:
                kv.row_sparse_pull(
                    'weight',
                    weight_param,
                    row_ids=[batch.data[0].indices],
                    priority=-weight_index,
                )
            mod.forward_backward(batch)
            mod.update()
            mod.update_metric(metric, batch.label)
        if kv:
            kv.row_sparse_pull(
                'weight',
                weight_param,
                row_ids=[all_row_ids],
                priority=-weight_index,
            )
        history.append((metric.get()[1][0], mod.score(train, ['acc'])[0][1]))
    return mod, history


def given_params():
    w0 = np.random.RandomState(1).randn(F, 2).astype('float32') * 0.1
    return {
        'weight': nd.array(w0).tostype('row_sparse'),
        'bias': nd.zeros((2,)),
    }


# MXNet 1.9.1, kvstore None and 'local' (the same to float32 rounding)
MX_HISTORY = [
    (0.75, 0.7916666666666666),
    (0.7916666666666666,) * 2,
    (0.7916666666666666,) * 2,
]
MX_WEIGHT = [
    [0.04995369538664818, 0.04397093877196312],
    [0.000422697514295578, -0.14672289788722992],
    [-0.023406201973557472, -0.10781671106815338],
]
MX_BIAS = [-0.5857129693031311, 0.5857130289077759]


@pytest.mark.parametrize('kvstore', [None, 'local'])
def test_linear_classification_example_matches_mxnet(tmp_path, kvstore):
    path = write_libsvm(tmp_path / 'train.libsvm')
    mod, history = train_example(path, kvstore, arg_params=given_params())
    np.testing.assert_allclose(history, MX_HISTORY)
    args, _ = mod.get_params()
    assert args['weight'].stype == 'row_sparse'  # MXNet
    grads = mod._exec_group.grad_arrays
    assert (
        grads[mod._exec_group.param_names.index('weight')][0].stype
        == 'row_sparse'
    )
    np.testing.assert_allclose(
        args['weight'].asnumpy()[:3], MX_WEIGHT, rtol=1e-5, atol=1e-6
    )
    np.testing.assert_allclose(args['bias'].asnumpy(), MX_BIAS, rtol=1e-5)


def test_linear_classification_matches_dense_reference(tmp_path):
    """Without weight decay a lazy update equals the dense one, so the
    sparse model and its dense twin, from the same seed, learn the same
    weights."""
    path = write_libsvm(tmp_path / 'train.libsvm')
    runs = []
    for sparse in (True, False):
        mx.random.seed(7)
        mod, history = train_example(path, None, wd=0.0, sparse=sparse)
        runs.append((mod.get_params()[0], history))
    (sparse_args, sparse_hist), (dense_args, dense_hist) = runs
    assert dense_args['weight'].stype == 'default'
    np.testing.assert_allclose(sparse_hist, dense_hist)
    for name in ('weight', 'bias'):
        np.testing.assert_allclose(
            sparse_args[name].asnumpy(),
            dense_args[name].asnumpy(),
            rtol=1e-5,
            atol=1e-7,
        )


def test_linear_classification_with_module_fit(tmp_path):
    path = write_libsvm(tmp_path / 'train.libsvm')
    train = mx.io.LibSVMIter(data_libsvm=path, data_shape=(F,), batch_size=B)
    mod = mx.mod.Module(
        symbol=linear_model(F),
        data_names=['data'],
        label_names=['softmax_label'],
    )
    mod.fit(
        train,
        num_epoch=3,
        kvstore=None,
        optimizer='sgd',
        optimizer_params={
            'learning_rate': 0.5,
            'wd': 0.01,
            'rescale_grad': 1.0 / B,
        },
        arg_params=given_params(),
        eval_metric='acc',
    )
    # MXNet 1.9.1
    assert mod.score(train, 'acc')[0][1] == pytest.approx(0.7916666666666666)
    args, _ = mod.get_params()
    np.testing.assert_allclose(
        args['weight'].asnumpy()[:3],
        [
            [0.0575726144015789, 0.04368629306554794],
            [-0.0006519181188195944, -0.1594621241092682],
            [-0.020344065502285957, -0.12326905131340027],
        ],
        rtol=1e-5,
        atol=1e-6,
    )
    np.testing.assert_allclose(
        args['bias'].asnumpy(),
        [-0.603361189365387, 0.6033612489700317],
        rtol=1e-5,
    )


# ------------------------------------------------------------- rand_ndarray


def test_rand_ndarray_sparse_draws_as_mxnet():
    np.random.seed(3)
    a = mx.test_utils.rand_ndarray((5, 3), stype='row_sparse', density=0.5)
    # MXNet 1.9.1 after np.random.seed(3)
    assert isinstance(a, nd.sparse.RowSparseNDArray) and a.dtype == np.float32
    assert a.indices.asnumpy().tolist() == [2]
    np.testing.assert_allclose(
        a.data.asnumpy(), [[0.896293, 0.125585, 0.207243]], rtol=1e-5
    )
    b = mx.test_utils.rand_ndarray(
        (4, 6), stype='csr', density=0.5, distribution='powerlaw'
    )
    assert isinstance(b, nd.sparse.CSRNDArray)
    assert b.indptr.asnumpy().tolist() == [0, 2, 6, 11, 12]
    assert b.indices.asnumpy().tolist() == [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 0]
    np.testing.assert_allclose(
        b.data.asnumpy()[:3], [1.10388, 2.29864, 1.88218], rtol=1e-5
    )
    c = mx.test_utils.rand_ndarray(
        (6,), stype='row_sparse', density=0.0, dtype='float64'
    )
    assert c.dtype == np.float64 and c.indices.shape == (0,)
    np.random.seed(5)
    d = mx.test_utils.rand_ndarray((4, 2), stype='row_sparse')
    assert d.indices.asnumpy().tolist() == [1]  # MXNet 1.9.1


def test_rand_ndarray_uniform_csr():
    x = mx.test_utils.rand_ndarray(
        (20, 30), stype='csr', density=0.25, dtype='float64'
    )
    assert isinstance(x, nd.sparse.CSRNDArray) and x.shape == (20, 30)
    assert x.dtype == np.float64
    assert x.data.shape == (150,)  # density * rows * columns
    values = x.data.asnumpy()
    assert ((values >= 0) & (values < 1)).all()
    x.check_format()
    with pytest.raises(ValueError, match='density'):
        mx.test_utils.rand_ndarray((2, 3), stype='csr', density=1.5)
