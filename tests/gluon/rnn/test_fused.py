"""The fused ``RNN`` operator behind ``rnn.RNN/LSTM/GRU``: against the
cells, eager == hybridized == symbol, export and imports, shape inference.
"""

import json

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, gluon, nd, sym
from dlbook.base import DLBookError
from dlbook.gluon import nn, rnn
from dlbook.name import NameManager
from tests.symbol.test_hybridize import Case, _assert_same

from ._helpers import close, randomize, uniform
from .test_rnn_layer import CELLS, LAYERS

MODES = list(LAYERS)


def packed(cells_by_slot, num_layers, dirs):
    """The flat parameter vector of MXNet's ``RNN`` operator from cells:
    every weight (layer, direction, i2h then h2h), then every bias."""
    parts = []
    for kind in ('weight', 'bias'):
        for k in range(num_layers * dirs):
            cell = cells_by_slot[k]
            for proj in ('i2h', 'h2h'):
                value = getattr(cell, f'{proj}_{kind}').data()
                parts.append(value.reshape((-1,)))
    return nd.concat(*parts, dim=0)


@pytest.mark.parametrize('mode', MODES)
@pytest.mark.parametrize(
    'num_layers, bidirectional', [(1, False), (2, False), (1, True), (2, True)]
)
def test_operator_matches_unrolled_cells(ctx, mode, num_layers, bidirectional):
    rng = np.random.RandomState(0)
    T, N, C, H = 4, 3, 5, 6
    dirs = 2 if bidirectional else 1
    stack = rnn.SequentialRNNCell()
    slots = []  # cell of state row k
    width = C
    for i in range(num_layers):
        cells = [
            CELLS[mode](H, prefix=f'{d}{i}_', input_size=width)
            for d in 'lr'[:dirs]
        ]
        stack.add(rnn.BidirectionalCell(*cells) if bidirectional else cells[0])
        slots += cells
        width = H * dirs
    stack.initialize()
    randomize(stack, rng)
    x = uniform(rng, (T, N, C))
    states = [
        uniform(rng, (num_layers * dirs, N, H))
        for _ in range(2 if mode == 'lstm' else 1)
    ]
    out = nd.RNN(
        x,
        packed(slots, num_layers, dirs),
        *states,
        state_size=H,
        num_layers=num_layers,
        bidirectional=bidirectional,
        mode=mode,
        state_outputs=True,
    )
    begin = [s[k] for k in range(num_layers * dirs) for s in states]
    want, want_states = stack.unroll(
        T, x, begin_state=begin, layout='TNC', merge_outputs=True
    )
    close(out[0], want, rtol=1e-5, atol=1e-5)
    for k in range(num_layers * dirs):
        for j in range(len(states)):
            close(
                out[1 + j][k],
                want_states[k * len(states) + j],
                rtol=1e-5,
                atol=1e-5,
            )


def test_operator_interface_follows_mxnet():
    data = sym.var('data')
    lstm = sym.RNN(
        data,
        state_size=4,
        num_layers=2,
        mode='lstm',
        bidirectional=True,
        state_outputs=True,
        name='rnn',
    )
    assert lstm.list_arguments() == [
        'data',
        'rnn_parameters',
        'rnn_state',
        'rnn_state_cell',
    ]
    assert lstm.list_outputs() == [
        'rnn_output',
        'rnn_state_output',
        'rnn_statecell_output',
    ]
    gru = sym.RNN(data, state_size=4, num_layers=1, mode='gru', name='gru')
    assert gru.list_arguments() == ['data', 'gru_parameters', 'gru_state']
    assert gru.list_outputs() == ['gru_output']
    with pytest.raises(DLBookError, match='mode must be one of'):
        nd.RNN(
            nd.ones((2, 1, 3)),
            nd.ones(5),
            nd.ones((1, 1, 2)),
            state_size=2,
            num_layers=1,
            mode='lstmp',
        )
    with pytest.raises(DLBookError, match='parameters has shape'):
        nd.RNN(
            nd.ones((2, 1, 3)),
            nd.ones(5),
            nd.ones((1, 1, 2)),
            state_size=2,
            num_layers=1,
            mode='rnn_tanh',
        )


def test_infer_shape_fills_parameters_and_states():
    data = sym.var('data')
    lstm = sym.RNN(
        data,
        state_size=4,
        num_layers=2,
        mode='lstm',
        bidirectional=True,
        state_outputs=True,
        name='rnn',
    )
    args, outs, aux = lstm.infer_shape(data=(7, 3, 5))
    shapes = dict(zip(lstm.list_arguments(), args))
    # per direction: layer 0 has 4H * (5 + 4 + 2), layer 1 4H * (8 + 4 + 2)
    assert shapes['rnn_parameters'] == (2 * 16 * 11 + 2 * 16 * 14,)
    assert shapes['rnn_state'] == shapes['rnn_state_cell'] == (4, 3, 4)
    assert outs == [(7, 3, 8), (4, 3, 4), (4, 3, 4)] and aux == []

    # a symbolic LSTM layer (input size given): every parameter is known
    with NameManager():
        layer = rnn.LSTM(6, num_layers=2, input_size=5)
    out = layer(data)
    args, outs, _ = out.infer_shape(data=(7, 3, 5))
    shapes = dict(zip(out.list_arguments(), args))
    assert shapes['lstm0_l0_i2h_weight'] == (24, 5)
    assert shapes['lstm0_l1_i2h_weight'] == (24, 6)
    assert outs == [(7, 3, 6)]
    nodes = json.loads(out.tojson())['nodes']
    assert [n['op'] for n in nodes].count('RNN') == 1


# -- eager, hybridized and symbolic runs agree --------------------------------

PARITY = [
    (
        'RNN-relu',
        lambda: rnn.RNN(4, input_size=3),
        [(5, 2, 3)],
        {'states': [(1, 2, 4)]},
    ),
    (
        'RNN-tanh-2-bi',
        lambda: rnn.RNN(
            3,
            num_layers=2,
            activation='tanh',
            bidirectional=True,
            input_size=3,
        ),
        [(4, 2, 3)],
        {'states': [(4, 2, 3)]},
    ),
    (
        'LSTM',
        lambda: rnn.LSTM(4, input_size=3),
        [(5, 2, 3)],
        {'states': [(1, 2, 4), (1, 2, 4)]},
    ),
    (
        'LSTM-2-bi-NTC',
        lambda: rnn.LSTM(
            3, num_layers=2, bidirectional=True, layout='NTC', input_size=3
        ),
        [(2, 4, 3)],
        {'states': [(4, 2, 3), (4, 2, 3)]},
    ),
    (
        'GRU-2',
        lambda: rnn.GRU(4, num_layers=2, input_size=3),
        [(5, 2, 3)],
        {'states': [(2, 2, 4)]},
    ),
    (
        'GRU-bi-NTC',
        lambda: rnn.GRU(3, bidirectional=True, layout='NTC', input_size=3),
        [(2, 5, 3)],
        {'states': [(2, 2, 3)]},
    ),
]


@pytest.mark.parametrize(
    'factory,shapes,options',
    [row[1:] for row in PARITY],
    ids=[row[0] for row in PARITY],
)
def test_eager_hybridized_and_symbolic_agree(factory, shapes, options):
    """Outputs, states, input, state and parameter gradients (the harness
    of ``tests/symbol/test_hybridize.py``); hybridized, the layer is one
    tape node."""
    with NameManager():
        case = Case(factory, shapes, options)
    for record in (False, True):
        eager = case.run_gluon(hybridize=False, record=record)
        hybrid = case.run_gluon(hybridize=True, record=record)
        symbolic = case.run_symbol(record=record)
        _assert_same(hybrid, eager, f'hybridized, record={record}')
        _assert_same(symbolic, eager, f'executor, record={record}')
    assert case.layer._cached_graph is not None
    ops = [
        n['op']
        for n in json.loads(case.layer._cached_graph.symbol.tojson())['nodes']
    ]
    assert ops.count('RNN') == 1 and 'FullyConnected' not in ops


@pytest.mark.parametrize('mode', MODES)
def test_hybridized_equals_eager_without_states(ctx, mode):
    """Default (zero) begin states; the input size is inferred by the
    first, hybridized, call."""
    rng = np.random.RandomState(1)
    x = uniform(rng, (6, 3, 5))
    cotangent = uniform(rng, (6, 3, 14))
    layer = LAYERS[mode](7, num_layers=2, bidirectional=True)
    layer.initialize(mx.init.Uniform(0.5))
    params = list(layer.collect_params().values())
    results = []
    for hybridize in (True, False):
        layer.hybridize(active=hybridize)
        x.attach_grad()
        with autograd.record():
            y = layer(x)
        y.backward(cotangent)
        assert layer.l0_i2h_weight.shape == (layer._gates * 7, 5)
        results.append([y, x.grad] + [p.grad() for p in params])
    hybrid, eager = results
    for got, want in zip(hybrid, eager):
        close(got, want, atol=1e-5)


def test_hybridized_layer_inside_a_model_with_default_states():
    """A hybridized model whose LSTM makes its own zero begin states."""
    rng = np.random.RandomState(2)
    x = uniform(rng, (5, 4, 3))
    with NameManager():
        net = nn.HybridSequential()
        with net.name_scope():
            net.add(rnn.LSTM(6, input_size=3), nn.Dense(2, flatten=False))
    net.initialize(mx.init.Uniform(0.5))
    want = net(x)
    net.hybridize()
    close(net(x), want, atol=1e-5)
    ops = [
        n['op'] for n in json.loads(net._cached_graph.symbol.tojson())['nodes']
    ]
    assert 'RNN' in ops and '_zeros' not in ops


def test_dropout_between_layers_in_a_hybridized_layer():
    x = nd.ones((5, 3, 4))
    layer = rnn.LSTM(8, num_layers=2, dropout=0.5, input_size=4)
    layer.initialize()
    plain = layer(x)
    layer.hybridize()
    close(layer(x), plain, atol=1e-5)  # inference: no dropout
    with autograd.record():
        trained = layer(x)
    assert not np.allclose(trained.asnumpy(), plain.asnumpy(), atol=1e-4)


# -- export and imports -------------------------------------------------------


class Tagger(gluon.HybridBlock):
    """LSTM over (N, T, C) plus a per-step read-out."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.lstm = rnn.LSTM(
                6, num_layers=2, layout='NTC', bidirectional=True
            )
            self.out = nn.Dense(3, flatten=False)

    def hybrid_forward(self, F, x):
        return self.out(self.lstm(x))


def test_export_and_imports_an_lstm_model(tmp_path):
    rng = np.random.RandomState(3)
    with NameManager():
        net = Tagger()
    net.initialize(mx.init.Uniform(0.3))
    x = uniform(rng, (2, 5, 4))
    net(x)  # infer the input size
    net.hybridize()
    y = net(x)
    symbol_file, params_file = net.export(str(tmp_path / 'tagger'))
    saved = nd.load(params_file)
    assert 'arg:tagger0_lstm0_l0_i2h_weight' in saved
    assert saved['arg:tagger0_lstm0_r1_i2h_weight'].shape == (24, 12)
    with open(symbol_file) as f:
        ops = [n['op'] for n in json.load(f)['nodes']]
    assert ops.count('RNN') == 1
    back = gluon.SymbolBlock.imports(
        symbol_file, ['data'], params_file, ctx=mx.cpu()
    )
    close(back(x), y, atol=1e-6)
    z = uniform(rng, (3, 7, 4))  # other batch and length
    close(back(z), net(z), atol=1e-6)
    # the imported model trains: gradients reach the LSTM weights
    with autograd.record():
        back(x).sum().backward()
    grad = back.collect_params()['tagger0_lstm0_l0_h2h_weight'].grad()
    assert grad.abs().sum().asscalar() > 0


# -- variable lengths ---------------------------------------------------------


@pytest.mark.parametrize('mode', MODES)
def test_sequence_length_matches_a_bidirectional_cell(ctx, mode):
    """The operator with ``use_sequence_length`` against
    ``BidirectionalCell.unroll(layout='NTC', merge_outputs=None,
    valid_length=...)`` (which used to fail with a Concat shape error).

    ``sequence_length`` is the fifth input of LSTM but the fourth of the
    other modes; ``nd.RNN`` names positional inputs after the full list
    (``data, parameters, state, state_cell, sequence_length``), so those
    pass it by keyword."""
    rng = np.random.RandomState(5)
    T, N, C, H = 5, 3, 2, 4
    cells = [CELLS[mode](H, prefix=f'{d}0_', input_size=C) for d in 'lr']
    cell = rnn.BidirectionalCell(*cells)
    cell.initialize()
    randomize(cell, rng)
    x = uniform(rng, (N, T, C))
    lengths = nd.array([2, 5, 3])
    states = [uniform(rng, (2, N, H)) for _ in cells[0].state_info()]
    begin = [s[k] for k in range(2) for s in states]
    want, want_states = cell.unroll(
        T,
        x,
        begin_state=begin,
        layout='NTC',
        merge_outputs=None,
        valid_length=lengths,
    )
    assert want.shape == (N, T, 2 * H)
    inputs = [x.swapaxes(0, 1), packed(cells, 1, 2)] + states
    if mode == 'lstm':
        inputs.append(lengths)
        kwargs = {}
    else:
        kwargs = {'sequence_length': lengths}
    out = nd.RNN(
        *inputs,
        use_sequence_length=True,
        state_size=H,
        num_layers=1,
        bidirectional=True,
        mode=mode,
        state_outputs=True,
        **kwargs,
    )
    close(out[0].swapaxes(0, 1), want, atol=1e-6)
    for k in range(2):
        for j in range(len(states)):
            close(out[1 + j][k], want_states[k * len(states) + j], atol=1e-6)
