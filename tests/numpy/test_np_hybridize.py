"""Hybridizing in NumPy mode: ``F.np``/``F.npx`` inside ``hybrid_forward``
and MXNet-2-style ``forward(self, x)`` blocks are traced into one graph;
eager and hybridized runs agree; ``export`` writes MXNet's np-mode names.
"""

import json

import numpy
import pytest

import dlbook as mx
from dlbook import autograd, gluon, np, npx, sym
from dlbook.base import DLBookError
from dlbook.gluon import nn


@pytest.fixture(autouse=True)
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


X = [[-1.5, 0.25, 1.0], [2.0, -0.5, 0.75]]
# MXNet 1.9.1 gives, for C()(np.array(X)) hybridized:
C_OUT = [
    [0.5, 1.0397796630859375, -8.359395980834961],
    [-102.63188171386719, 0.5, -2.2164103984832764],
]
# MXNet 1.9.1 writes these (op, name) nodes in C's exported JSON
C_NODES = [
    ('null', 'data'),
    ('_npi_exp', 'c0_exp0'),
    ('_npi_multiply_scalar', 'c0_multiply_scalar0'),
    ('_npi_add', 'c0_add0'),
    ('_npi_true_divide_scalar', 'c0_true_divide_scalar0'),
    ('_npi_subtract', 'c0_subtract0'),
    ('_npx_relu', 'c0_relu0'),
    ('_npi_tanh', 'c0_tanh0'),
    ('_npi_multiply', 'c0_multiply0'),
    ('_npi_absolute', 'c0_abs0'),
    ('_npi_sqrt', 'c0_sqrt0'),
    ('_npx_sigmoid', 'c0_sigmoid0'),
    ('_npi_add', 'c0_add1'),
    ('_maximum_scalar', 'c0_maximum_scalar0'),
    ('_npi_multiply', 'c0_multiply1'),
    ('_npi_subtract', 'c0_subtract1'),
]


class C(gluon.HybridBlock):
    traced = 0

    def hybrid_forward(self, F, x):
        C.traced += 1
        y = F.np.exp(x) + x * 2 - x / 3.0
        y = F.npx.relu(y) * F.np.tanh(x)
        return (
            F.np.sqrt(F.np.abs(y))
            + F.npx.sigmoid(y)
            - F.np.maximum(y, 0.5) * y
        )


def test_hybrid_forward_with_F_np_is_traced_once():
    net = C(prefix='c0_')
    x = np.array(X)
    eager = net(x).asnumpy()
    net.hybridize()
    C.traced = 0
    first, second = net(x), net(x)
    assert C.traced == 1  # later calls run the graph
    assert isinstance(second, np.ndarray)
    numpy.testing.assert_allclose(eager, C_OUT, rtol=1e-5)
    numpy.testing.assert_allclose(second.asnumpy(), C_OUT, rtol=1e-5)
    numpy.testing.assert_allclose(first.asnumpy(), C_OUT, rtol=1e-5)
    net(np.ones((4, 3)))  # a new shape: traced again
    assert C.traced == 2


def test_export_writes_mxnet_np_names(tmp_path):
    net = C(prefix='c0_')
    net.hybridize()
    net(np.array(X))
    symbol_file, _ = net.export(str(tmp_path / 'c'))
    graph = json.loads(open(symbol_file).read())
    assert [(n['op'], n['name']) for n in graph['nodes']] == C_NODES
    assert graph['attrs']['is_np_shape'] == ['int', 1]
    by_name = {n['name']: n.get('attrs') for n in graph['nodes']}
    # MXNet 1.9.1 writes these attributes
    assert by_name['c0_multiply_scalar0'] == {
        'is_int': 'True',
        'scalar': '2.0',
    }
    assert by_name['c0_true_divide_scalar0'] == {
        'is_int': 'False',
        'scalar': '3.0',
    }
    assert by_name['c0_maximum_scalar0'] == {
        'is_int': 'False',
        'scalar': '0.5',
    }
    # and the file loads and computes MXNet's values
    loaded = gluon.SymbolBlock.imports(symbol_file, ['data'])
    out = loaded(np.array(X))
    numpy.testing.assert_allclose(out.asnumpy(), C_OUT, rtol=1e-5)


class Mlp2(gluon.HybridBlock):
    """MXNet 2 style: forward(self, x), no hybrid_forward."""

    calls = 0

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.hidden = nn.Dense(8, activation='relu')
            self.norm = nn.BatchNorm()
            self.out = nn.Dense(3)

    def forward(self, x):
        Mlp2.calls += 1
        h = self.norm(self.hidden(x))
        return self.out(h * 0.5 + np.tanh(h))


def _train_step(net, x, y, trainer):
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    with autograd.record():
        loss = loss_fn(net(x), y)
    loss.backward()
    trainer.step(x.shape[0])
    return float(loss.mean())


@pytest.mark.parametrize('np_on', [True, False])
def test_forward_style_block_eager_equals_hybridized(np_on):
    if not np_on:
        npx.reset_np()
    array = np.array if np_on else mx.nd.array
    rng = numpy.random.RandomState(0)
    xs = rng.uniform(-1, 1, size=(6, 5)).astype('float32')
    ys = numpy.array([0, 1, 2, 0, 1, 2], dtype='float32')
    nets = []
    for hybrid in (False, True):
        mx.random.seed(1)
        net = Mlp2()
        net.initialize(mx.init.Xavier())
        if hybrid:
            net.hybridize()
        trainer = gluon.Trainer(
            net.collect_params(), 'sgd', {'learning_rate': 0.1}
        )
        losses = [
            _train_step(net, array(xs), array(ys), trainer) for _ in range(3)
        ]
        nets.append((net, losses))
    (eager, l_eager), (hybrid, l_hybrid) = nets
    numpy.testing.assert_allclose(l_eager, l_hybrid, rtol=1e-5)
    for a, b in zip(
        eager.collect_params().values(), hybrid.collect_params().values()
    ):
        numpy.testing.assert_allclose(
            a.data().asnumpy(), b.data().asnumpy(), rtol=1e-5, atol=1e-6
        )
    # inference through the graph too
    x = array(xs)
    numpy.testing.assert_allclose(
        eager(x).asnumpy(), hybrid(x).asnumpy(), rtol=1e-5, atol=1e-6
    )


def test_forward_style_block_runs_python_once_and_exports(tmp_path):
    net = Mlp2(prefix='mlp2_')
    net.initialize()
    net.hybridize()
    x = np.ones((2, 5))
    Mlp2.calls = 0
    for _ in range(3):
        net(x)
    assert Mlp2.calls == 1
    symbol_file, params_file = net.export(str(tmp_path / 'm'))
    nodes = json.loads(open(symbol_file).read())['nodes']
    ops = [n['op'] for n in nodes if n['op'] != 'null']
    assert ops.count('FullyConnected') == 2 and 'BatchNorm' in ops
    assert '_npi_multiply_scalar' in ops and '_npi_tanh' in ops
    names = {n['name'] for n in nodes if n['op'] == 'null'}
    assert 'mlp2_dense0_weight' in names
    assert 'mlp2_batchnorm0_running_mean' in names
    back = gluon.SymbolBlock.imports(symbol_file, ['data'], params_file)
    numpy.testing.assert_allclose(
        back(x).asnumpy(), net(x).asnumpy(), rtol=1e-5
    )


def test_forward_reading_a_constant_runs_but_does_not_export(tmp_path):
    class Shift(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.offset = np.array([1.0, 2.0, 3.0])

        def forward(self, x):
            return x + self.offset

    net = Shift()
    net.hybridize()
    x = np.zeros((2, 3))
    net(x)
    numpy.testing.assert_allclose(net(x).asnumpy(), [[1, 2, 3]] * 2)
    with pytest.raises(DLBookError, match='neither inputs nor parameters'):
        net.export(str(tmp_path / 's'))


def test_hybridized_gradient_is_one_tape_node():
    net = C()
    net.hybridize()
    x = np.array([[0.5, 1.0, 1.5], [2.0, 0.25, 0.75]])
    x.attach_grad()
    net(x)  # trace
    with autograd.record():
        y = net(x)
    y.backward()
    g_graph = x.grad.asnumpy().copy()
    with autograd.record():
        y = C().hybrid_forward(mx.nd, x)
    y.backward()
    numpy.testing.assert_allclose(g_graph, x.grad.asnumpy(), rtol=1e-5)


def test_sym_np_builds_np_named_nodes():
    x = sym.var('x')
    y = sym.np.maximum(sym.np.exp(sym.np.add(sym.npx.relu(x), 2)), 0.5)
    ops = [n['op'] for n in json.loads(y.tojson())['nodes']]
    assert ops == [
        'null',
        '_npx_relu',
        '_npi_add_scalar',
        '_npi_exp',
        '_maximum_scalar',
    ]
    out = y.eval(x=mx.nd.array([-1.0, 1.0]))[0]
    numpy.testing.assert_allclose(
        out.asnumpy(), numpy.exp([2.0, 3.0]), rtol=1e-6
    )


class D(gluon.HybridBlock):
    """Shape functions, joins, dot, reductions and where under F.np."""

    def hybrid_forward(self, F, x, y):
        a, b = F.np.split(x, 2, axis=1)
        z = F.np.concatenate([b, a], axis=1)
        w = F.np.dot(z, F.np.transpose(y))
        s = F.np.sum(w, axis=1, keepdims=True)
        return F.np.where(w > 0, w, s * 0.5) + F.np.expand_dims(
            F.np.argmax(w, axis=1), 1
        ).astype('float32')


D_X = numpy.arange(12, dtype='float32').reshape(3, 4) / 10 - 0.5
D_Y = numpy.arange(8, dtype='float32').reshape(2, 4) / 7 - 0.4
# MXNet 1.9.1: D(prefix='d0_') hybridized on (D_X, D_Y)
D_OUT = [
    [0.21714286506175995, -0.18285715579986572],
    [0.977142870426178, 1.0342857837677002],
    [1.1371428966522217, 1.6514285802841187],
]
# ... and the nodes of its exported JSON
D_NODES = [
    ('null', 'data0'),
    ('_split_v2', 'd0_split0'),
    ('_npi_concatenate', 'd0_concatenate0'),
    ('null', 'data1'),
    ('_np_transpose', 'd0_transpose0'),
    ('_np_dot', 'd0_dot0'),
    ('_npi_greater_scalar', 'd0_greater_scalar0'),
    ('_np_sum', 'd0_sum0'),
    ('_npi_multiply_scalar', 'd0_multiply_scalar0'),
    ('_npi_where', 'd0_where0'),
    ('_npi_argmax', 'd0_argmax0'),
    ('expand_dims', 'd0_expand_dims0'),
    ('Cast', 'd0_cast0'),
    ('_npi_add', 'd0_add0'),
]
# MXNet's own file (its attributes spelled out as MXNet writes them)
D_MXNET_JSON = {
    'nodes': [
        {'op': 'null', 'name': 'data0', 'inputs': []},
        {
            'op': '_split_v2',
            'name': 'd0_split0',
            'attrs': {
                'axis': '1',
                'indices': '[]',
                'sections': '2',
                'squeeze_axis': 'False',
            },
            'inputs': [[0, 0, 0]],
        },
        {
            'op': '_npi_concatenate',
            'name': 'd0_concatenate0',
            'attrs': {'axis': '1', 'num_args': '2'},
            'inputs': [[1, 1, 0], [1, 0, 0]],
        },
        {'op': 'null', 'name': 'data1', 'inputs': []},
        {
            'op': '_np_transpose',
            'name': 'd0_transpose0',
            'inputs': [[3, 0, 0]],
        },
        {'op': '_np_dot', 'name': 'd0_dot0', 'inputs': [[2, 0, 0], [4, 0, 0]]},
        {
            'op': '_npi_greater_scalar',
            'name': 'd0_greater_scalar0',
            'attrs': {'is_int': 'True', 'scalar': '0.0'},
            'inputs': [[5, 0, 0]],
        },
        {
            'op': '_np_sum',
            'name': 'd0_sum0',
            'attrs': {'axis': '1', 'keepdims': 'True'},
            'inputs': [[5, 0, 0]],
        },
        {
            'op': '_npi_multiply_scalar',
            'name': 'd0_multiply_scalar0',
            'attrs': {'is_int': 'False', 'scalar': '0.5'},
            'inputs': [[7, 0, 0]],
        },
        {
            'op': '_npi_where',
            'name': 'd0_where0',
            'inputs': [[6, 0, 0], [5, 0, 0], [8, 0, 0]],
        },
        {
            'op': '_npi_argmax',
            'name': 'd0_argmax0',
            'attrs': {'axis': '1', 'keepdims': 'False'},
            'inputs': [[5, 0, 0]],
        },
        {
            'op': 'expand_dims',
            'name': 'd0_expand_dims0',
            'attrs': {'axis': '1'},
            'inputs': [[10, 0, 0]],
        },
        {
            'op': 'Cast',
            'name': 'd0_cast0',
            'attrs': {'dtype': 'float32'},
            'inputs': [[11, 0, 0]],
        },
        {
            'op': '_npi_add',
            'name': 'd0_add0',
            'inputs': [[9, 0, 0], [12, 0, 0]],
        },
    ],
    'arg_nodes': [0, 3],
    'node_row_ptr': [0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    'heads': [[13, 0, 0]],
    'attrs': {'is_np_shape': ['int', 1], 'mxnet_version': ['int', 10901]},
}


def test_shape_and_join_functions_export_mxnet_names(tmp_path):
    net = D(prefix='d0_')
    net.hybridize()
    out = net(np.array(D_X), np.array(D_Y))
    numpy.testing.assert_allclose(out.asnumpy(), D_OUT, rtol=1e-6)
    symbol_file, _ = net.export(str(tmp_path / 'd'))
    graph = json.loads(open(symbol_file).read())
    assert [(n['op'], n['name']) for n in graph['nodes']] == D_NODES
    by_name = {n['name']: n.get('attrs') for n in graph['nodes']}
    assert by_name['d0_greater_scalar0'] == {'is_int': 'True', 'scalar': '0.0'}
    loaded = gluon.SymbolBlock.imports(symbol_file, ['data0', 'data1'])
    numpy.testing.assert_allclose(
        loaded(np.array(D_X), np.array(D_Y)).asnumpy(), D_OUT, rtol=1e-6
    )


def test_mxnet_exported_np_graph_loads(tmp_path):
    path = tmp_path / 'mx-symbol.json'
    path.write_text(json.dumps(D_MXNET_JSON))
    loaded = gluon.SymbolBlock.imports(str(path), ['data0', 'data1'])
    out = loaded(np.array(D_X), np.array(D_Y))
    assert type(out) is np.ndarray
    numpy.testing.assert_allclose(out.asnumpy(), D_OUT, rtol=1e-6)
