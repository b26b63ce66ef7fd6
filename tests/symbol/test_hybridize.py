"""Hybridize, the three ways a HybridBlock runs, export and SymbolBlock.

Every Gluon layer gives the same outputs, input and parameter gradients
and updated running statistics (``atol=1e-6``, float32) when run

* eagerly, hybridized or as a symbol bound to an Executor,
* with and without ``autograd.record()``

(MXNet's ``check_gluon_hybridize_consistency``).  The rest checks what
hybridize means in MXNet: one trace, ``F = mx.sym`` during it, one tape
node, ``export``/``imports``.
"""

import gc
import json

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, gluon, nd, sym
from dlbook.gluon import nn, rnn

ATOL = 1e-6
RTOL = 1e-5


@pytest.fixture(autouse=True)
def fresh_names():
    with mx.name.NameManager():
        yield


# -- parity of every layer ----------------------------------------------------


def _ints(low, high):
    def make(rng, shape):
        return rng.randint(low, high, size=shape).astype('f4')

    return make


# (layer factory, input shapes, options): ``states`` marks a recurrent
# cell called as cell(x, [states]); ``ints`` draws integer indices (no
# input gradient); ``train_only_grad`` etc. are not needed: every layer
# is differentiable in both modes.
LAYERS = [
    ('Dense', lambda: nn.Dense(4, activation='tanh'), [(3, 2, 3)], {}),
    (
        'Dense-noflatten',
        lambda: nn.Dense(4, flatten=False, use_bias=False),
        [(2, 3, 5)],
        {},
    ),
    ('Dropout', lambda: nn.Dropout(0.5), [(4, 6)], {}),
    ('Dropout-axes', lambda: nn.Dropout(0.3, axes=(1,)), [(3, 4, 2)], {}),
    ('BatchNorm', lambda: nn.BatchNorm(), [(4, 3, 2, 2)], {}),
    (
        'BatchNorm-noscale',
        lambda: nn.BatchNorm(scale=False, center=False, axis=-1, momentum=0.5),
        [(5, 3)],
        {},
    ),
    ('BatchNormReLU', lambda: nn.BatchNormReLU(), [(4, 2, 3)], {}),
    ('InstanceNorm', lambda: nn.InstanceNorm(scale=True), [(2, 3, 4)], {}),
    ('LayerNorm', lambda: nn.LayerNorm(), [(3, 5)], {}),
    ('GroupNorm', lambda: nn.GroupNorm(num_groups=2), [(2, 4, 3)], {}),
    ('Embedding', lambda: nn.Embedding(6, 3), [(2, 4)], {'ints': _ints(0, 6)}),
    ('Flatten', lambda: nn.Flatten(), [(2, 3, 2)], {}),
    (
        'HybridLambda',
        lambda: nn.HybridLambda(lambda F, x: F.LeakyReLU(x, slope=0.1) * 2),
        [(3, 4)],
        {},
    ),
    ('HybridLambda-name', lambda: nn.HybridLambda('tanh'), [(3, 4)], {}),
    ('Activation-relu', lambda: nn.Activation('relu'), [(3, 4)], {}),
    ('Activation-sigmoid', lambda: nn.Activation('sigmoid'), [(3, 4)], {}),
    ('Activation-tanh', lambda: nn.Activation('tanh'), [(3, 4)], {}),
    ('Activation-softrelu', lambda: nn.Activation('softrelu'), [(3, 4)], {}),
    ('Activation-softsign', lambda: nn.Activation('softsign'), [(3, 4)], {}),
    ('LeakyReLU', lambda: nn.LeakyReLU(0.1), [(3, 4)], {}),
    ('PReLU', lambda: nn.PReLU(), [(3, 4)], {}),
    ('ELU', lambda: nn.ELU(0.7), [(3, 4)], {}),
    ('SELU', lambda: nn.SELU(), [(3, 4)], {}),
    ('GELU', lambda: nn.GELU(), [(3, 4)], {}),
    ('Swish', lambda: nn.Swish(1.5), [(3, 4)], {}),
    (
        'Conv1D',
        lambda: nn.Conv1D(3, 3, padding=1, activation='relu'),
        [(2, 2, 6)],
        {},
    ),
    (
        'Conv2D',
        lambda: nn.Conv2D(4, (3, 2), strides=(2, 1), padding=(1, 0), groups=2),
        [(2, 2, 5, 4)],
        {},
    ),
    ('Conv3D', lambda: nn.Conv3D(2, 2, use_bias=False), [(1, 2, 3, 3, 3)], {}),
    (
        'Conv1DTranspose',
        lambda: nn.Conv1DTranspose(2, 3, strides=2),
        [(2, 3, 4)],
        {},
    ),
    (
        'Conv2DTranspose',
        lambda: nn.Conv2DTranspose(
            2, (2, 3), strides=(2, 1), padding=(0, 1), output_padding=(1, 0)
        ),
        [(1, 3, 3, 3)],
        {},
    ),
    (
        'Conv3DTranspose',
        lambda: nn.Conv3DTranspose(2, 2),
        [(1, 2, 2, 2, 2)],
        {},
    ),
    ('MaxPool1D', lambda: nn.MaxPool1D(2), [(2, 3, 6)], {}),
    (
        'MaxPool2D',
        lambda: nn.MaxPool2D((2, 2), strides=1, padding=1),
        [(2, 2, 4, 4)],
        {},
    ),
    (
        'MaxPool3D',
        lambda: nn.MaxPool3D(2, ceil_mode=True),
        [(1, 2, 3, 3, 3)],
        {},
    ),
    (
        'AvgPool1D',
        lambda: nn.AvgPool1D(3, strides=2, padding=1),
        [(2, 3, 7)],
        {},
    ),
    (
        'AvgPool2D',
        lambda: nn.AvgPool2D(2, count_include_pad=False, padding=1),
        [(1, 2, 4, 4)],
        {},
    ),
    ('AvgPool3D', lambda: nn.AvgPool3D(2), [(1, 2, 4, 4, 2)], {}),
    ('GlobalMaxPool1D', lambda: nn.GlobalMaxPool1D(), [(2, 3, 5)], {}),
    ('GlobalMaxPool2D', lambda: nn.GlobalMaxPool2D(), [(2, 3, 3, 2)], {}),
    ('GlobalMaxPool3D', lambda: nn.GlobalMaxPool3D(), [(1, 2, 2, 2, 3)], {}),
    ('GlobalAvgPool1D', lambda: nn.GlobalAvgPool1D(), [(2, 3, 5)], {}),
    ('GlobalAvgPool2D', lambda: nn.GlobalAvgPool2D(), [(2, 3, 3, 2)], {}),
    ('GlobalAvgPool3D', lambda: nn.GlobalAvgPool3D(), [(1, 2, 2, 2, 3)], {}),
    ('ReflectionPad2D', lambda: nn.ReflectionPad2D(1), [(1, 2, 3, 3)], {}),
    ('HybridSequential', lambda: _lenet(), [(2, 1, 8, 8)], {}),
    ('RNNCell', lambda: rnn.RNNCell(4), [(3, 5)], {'states': [(3, 4)]}),
    (
        'LSTMCell',
        lambda: rnn.LSTMCell(3),
        [(2, 4)],
        {'states': [(2, 3), (2, 3)]},
    ),
    ('GRUCell', lambda: rnn.GRUCell(3), [(2, 4)], {'states': [(2, 3)]}),
    (
        'SequentialRNNCell',
        lambda: _stacked_cells(),
        [(2, 3)],
        {'states': [(2, 4), (2, 2)]},
    ),
]


def _lenet():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(
            nn.Conv2D(3, 3, activation='relu'),
            nn.BatchNorm(),
            nn.MaxPool2D(2),
            nn.Dropout(0.4),
            nn.Dense(5, 'sigmoid'),
            nn.Dense(2),
        )
    return net


def _stacked_cells():
    cells = rnn.HybridSequentialRNNCell()
    with cells.name_scope():
        cells.add(rnn.RNNCell(4, activation='relu'))
        cells.add(rnn.GRUCell(2))
    return cells


def _flat(out):
    if isinstance(out, (list, tuple)):
        return [y for o in out for y in _flat(o)]
    return [out]


class Case:
    """One layer with fixed inputs, parameters and output gradients."""

    def __init__(self, factory, shapes, options):
        self.layer = factory()
        self.options = options
        rng = np.random.RandomState(0)
        make = options.get('ints', lambda r, s: r.uniform(-1, 1, s))
        self.inputs = [make(rng, s).astype('f4') for s in shapes]
        self.states = [
            rng.uniform(-1, 1, s).astype('f4')
            for s in options.get('states', ())
        ]
        self.layer.initialize(mx.init.Uniform(0.7))
        self.layer(*self._arrays()[0])  # finish deferred init
        self.params = self.layer.collect_params()
        self.values = {}
        for name, p in self.params.items():
            value = rng.uniform(-0.7, 0.7, p.shape).astype('f4')
            if name.endswith('running_var'):
                value = np.abs(value) + 0.5
            self.values[name] = value

    def _arrays(self):
        xs = [nd.array(x) for x in self.inputs]
        states = [nd.array(s) for s in self.states]
        return (xs + [states] if states else xs), xs + states

    def _reset(self):
        for name, p in self.params.items():
            p.set_data(nd.array(self.values[name]))
            if p.grad_req != 'null':
                p.zero_grad()

    def cotangents(self, outputs):
        rng = np.random.RandomState(1)
        return [rng.uniform(-1, 1, o.shape).astype('f4') for o in outputs]

    def gradient_inputs(self):
        return (
            []
            if 'ints' in self.options
            else list(range(len(self.inputs) + len(self.states)))
        )

    def run_gluon(self, hybridize, record):
        """Outputs, gradients and parameter values after one call."""
        self._reset()
        self.layer.hybridize(active=hybridize)
        args, leaves = self._arrays()
        for i in self.gradient_inputs():
            leaves[i].attach_grad()
        mx.random.seed(7)
        if record:
            with autograd.record():
                outs = _flat(self.layer(*args))
            # hybridized, the whole layer is one node of the tape
            ops = {o._node.op.name for o in outs if o._node is not None}
            assert (ops == {'CachedOp'}) == hybridize, ops
            autograd.backward(
                outs, [nd.array(c) for c in self.cotangents(outs)]
            )
        else:
            outs = _flat(self.layer(*args))
        result = {'out': [o.asnumpy() for o in outs]}
        if record:
            for i in self.gradient_inputs():
                result[f'd_input{i}'] = leaves[i].grad.asnumpy()
            for name, p in self.params.items():
                if p.grad_req != 'null':
                    result[f'd_{name}'] = p.grad().asnumpy()
        for name, p in self.params.items():
            result[name] = p.data().asnumpy()
        return result

    def run_symbol(self, record):
        """The same through ``layer(Symbol)`` and an Executor."""
        names = [f'x{i}' for i in range(len(self.inputs))]
        state_names = [f's{i}' for i in range(len(self.states))]
        args = [sym.var(n) for n in names]
        if self.states:
            args.append([sym.var(n) for n in state_names])
        graph = self.layer(*args)
        assert all(isinstance(o, sym.Symbol) for o in _flat(graph))
        graph = sym.Group(_flat(graph))
        values = dict(zip(names + state_names, self.inputs + self.states))
        values.update(self.values)
        arg_names = graph.list_arguments()
        grad_names = [
            names_i
            for i, names_i in enumerate(names + state_names)
            if i in self.gradient_inputs()
        ]
        grad_names += [
            n
            for n, p in self.params.items()
            if p.grad_req != 'null' and n in arg_names
        ]
        exe = graph.bind(
            mx.cpu(),
            {n: nd.array(values[n]) for n in arg_names},
            args_grad={n: nd.zeros(values[n].shape) for n in grad_names},
            grad_req={n: 'write' for n in grad_names},
            aux_states={
                n: nd.array(values[n]) for n in graph.list_auxiliary_states()
            },
        )
        mx.random.seed(7)
        outs = exe.forward(is_train=record)
        result = {'out': [o.asnumpy() for o in outs]}
        if record:
            exe.backward([nd.array(c) for c in self.cotangents(outs)])
            for i in self.gradient_inputs():
                n = (names + state_names)[i]
                result[f'd_input{i}'] = exe.grad_dict[n].asnumpy()
            for n, p in self.params.items():
                if p.grad_req != 'null':
                    result[f'd_{n}'] = (
                        exe.grad_dict[n].asnumpy()
                        if n in exe.grad_dict
                        else np.zeros(p.shape, 'f4')
                    )
        for n in self.params:
            found = exe.arg_dict[n] if n in exe.arg_dict else exe.aux_dict[n]
            result[n] = found.asnumpy()
        return result


def _assert_same(got, want, what):
    assert sorted(got) == sorted(want), what
    for key in want:
        if key == 'out':
            assert len(got[key]) == len(want[key])
            for g, w in zip(got[key], want[key]):
                np.testing.assert_allclose(
                    g, w, rtol=RTOL, atol=ATOL, err_msg=f'{what}: {key}'
                )
        else:
            np.testing.assert_allclose(
                got[key],
                want[key],
                rtol=RTOL,
                atol=ATOL,
                err_msg=f'{what}: {key}',
            )


@pytest.mark.parametrize(
    'factory,shapes,options',
    [row[1:] for row in LAYERS],
    ids=[row[0] for row in LAYERS],
)
def test_layer_eager_hybridized_and_symbolic_agree(factory, shapes, options):
    case = Case(factory, shapes, options)
    for record in (False, True):
        eager = case.run_gluon(hybridize=False, record=record)
        hybrid = case.run_gluon(hybridize=True, record=record)
        symbolic = case.run_symbol(record=record)
        _assert_same(hybrid, eager, f'hybridized, record={record}')
        _assert_same(symbolic, eager, f'executor, record={record}')
        if record:
            assert any(k.startswith('d_') for k in eager)


def test_parity_catches_a_difference():
    """The comparison above is not vacuous: a changed parameter shows."""
    case = Case(lambda: nn.Dense(3), [(2, 4)], {})
    eager = case.run_gluon(hybridize=False, record=True)
    case.values[case.layer.bias.name] += 1e-3
    hybrid = case.run_gluon(hybridize=True, record=True)
    with pytest.raises(AssertionError):
        _assert_same(hybrid, eager, 'changed bias')


def test_batchnorm_running_statistics_update_identically():
    x = nd.array(np.random.RandomState(0).randn(6, 3, 2))
    stats = []
    for hybridize in (False, True):
        with mx.name.NameManager():
            bn = nn.BatchNorm(momentum=0.7, in_channels=3)
        bn.initialize()
        bn.hybridize(active=hybridize)
        for _ in range(3):
            with autograd.record():
                bn(x)
        with autograd.predict_mode():
            y = bn(x)
        stats.append(
            (
                bn.running_mean.data().asnumpy(),
                bn.running_var.data().asnumpy(),
                y.asnumpy(),
            )
        )
    batch = x.asnumpy()
    mean, var = batch.mean(axis=(0, 2)), batch.var(axis=(0, 2))
    want_mean = mean * (1 - 0.7**3)
    want_var = 0.7**3 + var * (1 - 0.7**3)
    for running_mean, running_var, _ in stats:
        np.testing.assert_allclose(
            running_mean, want_mean, rtol=1e-5, atol=1e-6
        )
        np.testing.assert_allclose(running_var, want_var, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(stats[0][2], stats[1][2])


def test_dropout_with_a_seed_drops_the_same_elements():
    x = nd.ones((50, 40))
    masks = []
    for hybridize in (False, True):
        layer = nn.Dropout(0.5)
        layer.hybridize(active=hybridize)
        mx.random.seed(42)
        with autograd.record():
            first = layer(x).asnumpy()
            second = layer(x).asnumpy()
        masks.append((first, second))
    for a, b in zip(masks[0], masks[1]):
        np.testing.assert_array_equal(a, b)
    first, second = masks[0]
    assert set(np.unique(first)) == {0.0, 2.0}
    assert (first != second).any()  # the generator moved on
    assert 0.4 < (first == 0).mean() < 0.6


# -- what hybridize means ----------------------------------------------------


class Printer(nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.dense = nn.Dense(2, in_units=3)

    def hybrid_forward(self, F, x):
        print('F:', F.__name__, 'x:', x)
        return self.dense(x) * 2


def test_hybrid_forward_runs_python_only_during_the_trace(capsys):
    net = Printer()
    net.initialize()
    x = nd.ones((4, 3))
    net(x)
    eager_line = capsys.readouterr().out
    assert eager_line.startswith('F: dlbook.ndarray x: \n[[1. 1. 1.]')
    net.hybridize()
    first = net(x)
    assert capsys.readouterr().out == 'F: dlbook.symbol x: <Symbol data>\n'
    for _ in range(3):
        again = net(x)
    assert capsys.readouterr().out == ''
    np.testing.assert_array_equal(first.asnumpy(), again.asnumpy())
    # a new input shape reuses the traced graph
    assert net(nd.ones((7, 3))).shape == (7, 2)
    assert capsys.readouterr().out == ''
    # hybridize() again starts a new trace
    net.hybridize()
    net(x)
    assert capsys.readouterr().out.startswith('F: dlbook.symbol')


def test_f_is_the_symbol_module_during_the_trace():
    seen = []

    class Spy(nn.HybridBlock):
        def hybrid_forward(self, F, x, y):
            seen.append((F, x, y))
            return F.broadcast_add(x, y), F.relu(x)

    block = Spy()
    block.hybridize()
    out, relu = block(nd.ones((2, 3)), nd.ones((1, 3)))
    F, x, y = seen[0]
    assert F is mx.sym and F is mx.symbol
    assert isinstance(x, sym.Symbol)
    assert (repr(x), repr(y)) == ('<Symbol data0>', '<Symbol data1>')
    np.testing.assert_array_equal(out.asnumpy(), np.full((2, 3), 2.0))
    np.testing.assert_array_equal(relu.asnumpy(), np.ones((2, 3)))
    assert block._cached_graph.symbol.list_arguments() == ['data0', 'data1']


def test_calling_with_a_symbol_returns_a_symbol():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(8, activation='relu'), nn.Dense(2))
    net.initialize()
    net.hybridize()
    out = net(sym.var('data'))
    assert isinstance(out, sym.Symbol)
    assert out.list_arguments() == [
        'data',
        'hybridsequential0_dense0_weight',
        'hybridsequential0_dense0_bias',
        'hybridsequential0_dense1_weight',
        'hybridsequential0_dense1_bias',
    ]
    assert out.name == 'hybridsequential0_dense1_fwd'
    with pytest.raises(mx.MXNetError):
        net('not an array')


def test_deferred_initialization_through_hybridize():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(4, 3), nn.BatchNorm(), nn.Dense(3))
    net.initialize()
    net.hybridize()
    with pytest.raises(mx.gluon.parameter.DeferredInitializationError):
        net[0].weight.data()
    y = net(nd.ones((2, 2, 5, 5)))
    assert y.shape == (2, 3)
    assert net[0].weight.shape == (4, 2, 3, 3)
    assert net[1].gamma.shape == (4,)
    assert net[1].running_mean.shape == (4,)
    assert net[2].weight.shape == (3, 4 * 3 * 3)
    assert repr(net[2]) == 'Dense(36 -> 3, linear)'


def test_hybridized_block_records_exactly_one_tape_node():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(5, activation='relu'), nn.BatchNorm(), nn.Dense(2))
    net.initialize()
    net.hybridize()
    # rows that differ: with equal rows BatchNorm's output, and so every
    # gradient before it, would not depend on the input at all
    x = nd.arange(12).reshape((3, 4)) / 10
    net(x)  # trace outside the count

    def nodes():
        # type(), not isinstance: a dead weak proxy among the objects raises
        return sum(1 for o in gc.get_objects() if type(o) is autograd.Node)

    gc.collect()
    before = nodes()
    with autograd.record():
        y = net(x)
    gc.collect()
    assert nodes() - before == 1
    assert y._node.op.name == 'CachedOp'
    assert all(p._node is None for p in y._node.inputs)
    y.backward()
    assert net[0].weight.grad().abs().sum().asscalar() > 0


def test_hybridized_backward_in_predict_mode():
    """``record(train_mode=False)`` records, but BatchNorm and Dropout
    behave as in prediction."""
    results = []
    for hybridize in (False, True):
        with mx.name.NameManager():
            net = nn.HybridSequential()
            net.add(
                nn.Dense(4, in_units=3),
                nn.BatchNorm(in_channels=4),
                nn.Dropout(0.5),
            )
        net.initialize(mx.init.Xavier())
        net[0].weight.set_data(nd.array(np.arange(12).reshape(4, 3) / 10))
        net.hybridize(active=hybridize)
        x = nd.array(np.arange(6).reshape(2, 3))
        x.attach_grad()
        with autograd.record(train_mode=False):
            y = net(x)
        y.backward()
        results.append(
            (
                y.asnumpy(),
                x.grad.asnumpy(),
                net[1].running_mean.data().asnumpy(),
            )
        )
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(results[1][2], np.zeros(4))


def test_nested_inputs_and_outputs_keep_their_structure():
    class Pair(nn.HybridBlock):
        def hybrid_forward(self, F, x, states):
            h, c = states
            return x + h, [h * c, c]

    block = Pair()
    block.hybridize()
    x, h, c = nd.ones((2,)), nd.full((2,), 2.0), nd.full((2,), 3.0)
    out, (hc, c2) = block(x, [h, c])
    assert block._cached_graph.symbol.list_arguments() == [
        'data0',
        'data1',
        'data2',
    ]
    np.testing.assert_array_equal(out.asnumpy(), [3, 3])
    np.testing.assert_array_equal(hc.asnumpy(), [6, 6])
    np.testing.assert_array_equal(c2.asnumpy(), [3, 3])


def test_a_block_returning_its_input_gives_a_new_array():
    class PassThrough(nn.HybridBlock):
        def hybrid_forward(self, F, x, y):
            return x, y * 2

    block = PassThrough()
    block.hybridize()
    x, y = nd.ones((2,)), nd.ones((2,))
    x.attach_grad()
    with autograd.record():
        same, double = block(x, y)
    assert same is not x and same._data is not x._data
    same.backward(nd.array([2.0, 3.0]))
    np.testing.assert_array_equal(x.grad.asnumpy(), [2, 3])
    np.testing.assert_array_equal(double.asnumpy(), [2, 2])


def test_hybridized_block_runs_on_another_device():
    net = nn.Dense(3, in_units=2)
    net.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    net.hybridize()
    x = np.array([[1.0, -2.0]], 'f4')
    y0 = net(nd.array(x, ctx=mx.cpu(0)))
    y1 = net(nd.array(x, ctx=mx.cpu(1)))
    assert y1.context == mx.cpu(1)
    np.testing.assert_array_equal(y0.asnumpy(), y1.asnumpy())


def test_training_hybridized_matches_eager():
    def train(hybridize):
        with mx.name.NameManager():
            net = nn.HybridSequential()
            with net.name_scope():
                net.add(
                    nn.Dense(8, activation='relu'), nn.BatchNorm(), nn.Dense(3)
                )
        mx.random.seed(1)
        net.initialize(mx.init.Xavier())
        net.hybridize(active=hybridize)
        trainer = gluon.Trainer(
            net.collect_params(),
            'sgd',
            {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-3},
        )
        loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
        rng = np.random.RandomState(0)
        for _ in range(5):
            x = nd.array(rng.randn(6, 4))
            label = nd.array(rng.randint(0, 3, 6))
            with autograd.record():
                loss = loss_fn(net(x), label)
            loss.backward()
            trainer.step(6)
        return {
            k[len('hybridsequential0_') :]: v.data().asnumpy()
            for k, v in net.collect_params().items()
        }

    eager, hybrid = train(False), train(True)
    assert sorted(eager) == sorted(hybrid)
    for name in eager:
        np.testing.assert_allclose(
            hybrid[name], eager[name], rtol=1e-5, atol=1e-6, err_msg=name
        )


# -- export and imports -------------------------------------------------------

EXPORT_MESSAGE = (
    'Please first call block.hybridize() and then run forward '
    'with this block at least once before calling export.'
)


def test_export_before_forward_raises_mxnets_error(tmp_path):
    net = nn.Dense(2, in_units=3)
    net.initialize()
    with pytest.raises(RuntimeError) as err:
        net.export(str(tmp_path / 'net'))
    assert str(err.value) == EXPORT_MESSAGE
    net.hybridize()
    with pytest.raises(RuntimeError, match='Please first call'):
        net.export(str(tmp_path / 'net'))
    net(nd.ones((1, 3)))
    prefix = str(tmp_path / 'net')
    assert net.export(prefix) == (
        prefix + '-symbol.json',
        prefix + '-0000.params',
    )
    assert sorted(nd.load(prefix + '-0000.params')) == [
        'arg:dense0_bias',
        'arg:dense0_weight',
    ]


def test_export_and_imports_reproduce_outputs(tmp_path):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(
            nn.Conv2D(3, 3, padding=1),
            nn.BatchNorm(),
            nn.Flatten(),
            nn.Dense(4),
        )
    net.initialize(mx.init.Xavier())
    net.hybridize()
    x = nd.array(np.random.RandomState(0).randn(2, 2, 4, 4))
    with autograd.record():  # move the running stats
        net(x)
    y = net(x)
    symbol_file, params_file = net.export(str(tmp_path / 'model'), epoch=3)
    assert symbol_file == str(tmp_path / 'model-symbol.json')
    assert params_file == str(tmp_path / 'model-0003.params')
    saved = nd.load(params_file)
    prefix = 'hybridsequential0_'
    assert sorted(saved) == sorted(
        [
            'arg:' + prefix + n
            for n in (
                'conv0_weight',
                'conv0_bias',
                'batchnorm0_gamma',
                'batchnorm0_beta',
                'dense0_weight',
                'dense0_bias',
            )
        ]
        + [
            'aux:' + prefix + n
            for n in ('batchnorm0_running_mean', 'batchnorm0_running_var')
        ]
    )
    np.testing.assert_array_equal(
        saved['aux:' + prefix + 'batchnorm0_running_mean'].asnumpy(),
        net[1].running_mean.data().asnumpy(),
    )
    with open(symbol_file) as f:
        graph = json.load(f)
    assert graph['heads'] == [[len(graph['nodes']) - 1, 0, 0]]
    assert graph['nodes'][-1]['name'] == prefix + 'dense0_fwd'
    back = gluon.SymbolBlock.imports(
        symbol_file, ['data'], params_file, ctx=mx.cpu()
    )
    np.testing.assert_allclose(
        back(x).asnumpy(), y.asnumpy(), rtol=1e-5, atol=1e-6
    )
    # the imported block trains: gradients reach every argument
    x.attach_grad()
    with autograd.record():
        back(x).sum().backward()
    assert x.grad.abs().sum().asscalar() > 0
    assert back.collect_params()[prefix + 'conv0_weight'].grad_req == 'write'


def test_symbol_block_from_symbols():
    data = sym.var('data')
    out = sym.FullyConnected(data, num_hidden=3, name='fc')
    out = sym.Activation(out, act_type='tanh')
    block = gluon.SymbolBlock(out, data)
    assert sorted(block.collect_params()) == ['fc_bias', 'fc_weight']
    block.initialize(mx.init.Uniform(0.5))
    x = np.random.RandomState(0).randn(2, 4).astype('f4')
    y = block(nd.array(x))
    w = block.collect_params()['fc_weight'].data().asnumpy()
    b = block.collect_params()['fc_bias'].data().asnumpy()
    np.testing.assert_allclose(
        y.asnumpy(), np.tanh(x @ w.T + b), rtol=1e-5, atol=1e-6
    )
    # called on a symbol, it splices its graph in
    composed = block(sym.relu(sym.var('raw')))
    assert composed.list_arguments() == ['raw', 'fc_weight', 'fc_bias']
    # a two-output graph
    two = gluon.SymbolBlock(
        [out, sym.sigmoid(data)], [data], params=block.collect_params()
    )
    first, second = two(nd.array(x))
    np.testing.assert_allclose(first.asnumpy(), y.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(
        second.asnumpy(), 1 / (1 + np.exp(-x)), rtol=1e-6
    )
    # on symbols a multi-output block gives one symbol per output
    outs = two(sym.var('other'))
    assert [o.list_outputs() for o in outs] == [
        ['activation0_output'],
        ['sigmoid0_output'],
    ]
    with pytest.raises(mx.MXNetError, match='takes 1 input'):
        two(nd.array(x), nd.array(x))


def test_backward_twice_with_retain_graph():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(3, activation='sigmoid'), nn.Dense(2))
    net.initialize()
    net.hybridize(static_alloc=True, static_shape=True)
    x = nd.array(np.random.RandomState(0).randn(4, 5))
    x.attach_grad()
    with autograd.record():
        y = net(x)
    y.backward(retain_graph=True)
    first = x.grad.asnumpy().copy()
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), first, rtol=1e-6)
    with pytest.raises(mx.MXNetError, match='retain_graph'):
        y.backward()


def test_symbol_block_parameters_save_and_load_inside_a_parent(tmp_path):
    class Net(nn.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            data = sym.var('data')
            out = sym.FullyConnected(data, num_hidden=3, name='feat_fc1')
            out = sym.FullyConnected(out, num_hidden=2, name='feat_fc2')
            with self.name_scope():
                self.head = nn.Dense(1)
            self.backbone = gluon.SymbolBlock(out, data)

        def hybrid_forward(self, F, x):
            return self.head(self.backbone(x))

    net = Net()
    net.initialize(mx.init.Uniform(1.0))
    x = nd.ones((2, 4))
    y = net(x)
    fname = str(tmp_path / 'net.params')
    net.save_parameters(fname)
    # MXNet strips the parameters' common prefix ('feat_fc') in the keys
    assert sorted(nd.load(fname)) == [
        'backbone.1_bias',
        'backbone.1_weight',
        'backbone.2_bias',
        'backbone.2_weight',
        'head.bias',
        'head.weight',
    ]
    with mx.name.NameManager():
        again = Net()
    again.initialize()
    again(x)
    again.load_parameters(fname)
    np.testing.assert_array_equal(again(x).asnumpy(), y.asnumpy())


class _OptionalScale(gluon.HybridBlock):
    """y = x * scale, where ``scale`` may be left out (None)."""

    def hybrid_forward(self, F, x, scale=None):
        y = F.relu(x)
        return y if scale is None else F.broadcast_mul(y, scale)


def test_none_inputs_are_left_out_of_the_graph():
    x = nd.array([[-1.0, 2.0], [3.0, -4.0]])
    scale = nd.array([[2.0], [3.0]])
    block = _OptionalScale()
    block.hybridize()
    np.testing.assert_array_equal(
        block(x, None).asnumpy(), np.maximum(x.asnumpy(), 0)
    )
    assert block._cached_graph.input_names == ['data']
    # left-out trailing inputs count as None
    np.testing.assert_array_equal(
        block(x).asnumpy(), np.maximum(x.asnumpy(), 0)
    )
    with pytest.raises(
        mx.DLBookError,
        match='argument structure does not '
        r'match the traced graph \(input format \[0, 0\], '
        r'traced \[0, -1\]',
    ):
        block(x, scale)
    block.hybridize()  # a new trace takes the new form
    np.testing.assert_array_equal(
        block(x, scale).asnumpy(), np.maximum(x.asnumpy(), 0) * [[2], [3]]
    )
    fresh = _OptionalScale()
    fresh.hybridize()
    with pytest.raises(
        mx.DLBookError, match='expects NDArray or Symbol input, got NoneType'
    ):
        fresh(None)
