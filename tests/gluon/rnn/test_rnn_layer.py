"""Fused recurrent layers: against stepped cells, conventions, gradients,
names, dropout, and a small training run."""

import numpy as np
import pytest

from dlbook import autograd, gluon, initializer, nd
from dlbook.base import DLBookError
from dlbook.gluon import rnn
from dlbook.name import NameManager

from ._helpers import close, randomize, uniform

LAYERS = {
    'rnn_relu': lambda h, **kw: rnn.RNN(h, **kw),
    'rnn_tanh': lambda h, **kw: rnn.RNN(h, activation='tanh', **kw),
    'lstm': lambda h, **kw: rnn.LSTM(h, **kw),
    'gru': lambda h, **kw: rnn.GRU(h, **kw),
}

CELLS = {
    'rnn_relu': lambda h, **kw: rnn.RNNCell(h, 'relu', **kw),
    'rnn_tanh': lambda h, **kw: rnn.RNNCell(h, 'tanh', **kw),
    'lstm': lambda h, **kw: rnn.LSTMCell(h, **kw),
    'gru': lambda h, **kw: rnn.GRUCell(h, **kw),
}


def unfused_stack(mode, layer, hidden, num_layers, bidirectional, width):
    """MXNet's ``_unfuse``: the same network as a stack of cells, with the
    layer's parameter values copied in."""
    stack = rnn.SequentialRNNCell()
    for i in range(num_layers):
        if bidirectional:
            stack.add(
                rnn.BidirectionalCell(
                    CELLS[mode](hidden, prefix=f'l{i}_', input_size=width),
                    CELLS[mode](hidden, prefix=f'r{i}_', input_size=width),
                )
            )
        else:
            stack.add(CELLS[mode](hidden, prefix=f'l{i}_', input_size=width))
        width = hidden * (2 if bidirectional else 1)
    stack.initialize()
    for name, param in stack.collect_params().items():
        param.set_data(getattr(layer, name).data())
    return stack


@pytest.mark.parametrize('mode', list(LAYERS))
@pytest.mark.parametrize(
    'num_layers, bidirectional, layout',
    [(1, False, 'TNC'), (2, False, 'NTC'), (1, True, 'NTC'), (2, True, 'TNC')],
)
def test_layer_matches_stepped_cells(
    ctx, mode, num_layers, bidirectional, layout
):
    rng = np.random.RandomState(0)
    T, N, C, H = 5, 3, 4, 6
    layer = LAYERS[mode](
        H, num_layers=num_layers, layout=layout, bidirectional=bidirectional
    )
    layer.initialize()
    shape = (T, N, C) if layout == 'TNC' else (N, T, C)
    x = uniform(rng, shape)
    layer(x)  # infers input_size = C
    randomize(layer, rng)
    states = [uniform(rng, info['shape']) for info in layer.state_info(N)]
    out, new_states = layer(x, states)
    D = 2 if bidirectional else 1
    assert out.shape == shape[:2] + (D * H,)
    assert [s.shape for s in new_states] == [(num_layers * D, N, H)] * len(
        states
    )

    stack = unfused_stack(mode, layer, H, num_layers, bidirectional, C)
    # the cells' begin states: per layer and direction, (h[, c])
    begin = [s[k] for k in range(num_layers * D) for s in states]
    want, want_states = stack.unroll(
        T, x, begin_state=begin, layout=layout, merge_outputs=True
    )
    close(out, want, rtol=1e-4, atol=1e-5)
    ns = len(states)
    for k in range(num_layers * D):
        for j in range(ns):
            close(
                new_states[j][k], want_states[k * ns + j], rtol=1e-4, atol=1e-5
            )


def test_return_convention_and_begin_state(ctx):
    layer = rnn.LSTM(8, num_layers=2, bidirectional=True)
    layer.initialize()
    x = nd.ones((5, 3, 4))
    out = layer(x)
    assert isinstance(out, nd.NDArray) and out.shape == (5, 3, 16)
    states = layer.begin_state(batch_size=3)
    assert [s.shape for s in states] == [(4, 3, 8), (4, 3, 8)]
    assert states[0].context == ctx
    out2, new_states = layer(x, states)
    assert isinstance(new_states, list) and len(new_states) == 2
    close(out, out2)

    gru = rnn.GRU(8, layout='NTC')
    gru.initialize()
    # a single state array is accepted for GRU/RNN; states come back as
    # a list
    out, new_states = gru(nd.ones((3, 5, 4)), nd.zeros((1, 3, 8)))
    assert out.shape == (3, 5, 8)
    assert len(new_states) == 1 and new_states[0].shape == (1, 3, 8)


def test_begin_state_names_dtype_and_func(ctx):
    with NameManager():
        layer = rnn.GRU(7, num_layers=3)
    calls = []

    def func(**kwargs):
        calls.append(kwargs)
        return nd.zeros(kwargs['shape'], dtype=kwargs['dtype'])

    layer.begin_state(batch_size=2, func=func)
    assert calls == [
        {
            'name': 'gru0_h0_0',
            'shape': (3, 2, 7),
            '__layout__': 'LNC',
            'dtype': 'float32',
        }
    ]
    lstm = rnn.LSTM(7)
    lstm.cast('float64')
    states = lstm.begin_state(batch_size=2)
    assert [s.dtype for s in states] == [np.float64, np.float64]
    ones = lstm.begin_state(batch_size=2, func=nd.ones)
    assert ones[1].asnumpy().sum() == 14


def test_wrong_state_shape_raises(ctx):
    layer = rnn.LSTM(8)
    layer.initialize()
    with pytest.raises(
        ValueError,
        match=r'Expecting \(1, 3, 8\), got '
        r'\(1, 2, 8\)',
    ):
        layer(nd.ones((5, 3, 4)), [nd.zeros((1, 2, 8))] * 2)


def test_names_shapes_and_reprs():
    with NameManager():
        lstm = rnn.LSTM(256)
        big = rnn.LSTM(
            20, num_layers=2, bidirectional=True, input_size=10, dropout=0.5
        )
        gru = rnn.GRU(16, layout='NTC')
        plain = rnn.RNN(32, 3, 'tanh')
    assert repr(lstm) == 'LSTM(None -> 256, TNC)'
    assert repr(big) == (
        'LSTM(10 -> 20, TNC, num_layers=2, dropout=0.5, bidirectional)'
    )
    assert repr(gru) == 'GRU(None -> 16, NTC)'
    assert repr(plain) == 'RNN(None -> 32, TNC, num_layers=3)'
    assert list(lstm.collect_params()) == [
        'lstm0_l0_i2h_weight',
        'lstm0_l0_h2h_weight',
        'lstm0_l0_i2h_bias',
        'lstm0_l0_h2h_bias',
    ]
    assert list(big.collect_params())[4:8] == [
        'lstm1_r0_i2h_weight',
        'lstm1_r0_h2h_weight',
        'lstm1_r0_i2h_bias',
        'lstm1_r0_h2h_bias',
    ]
    shapes = {k: p.shape for k, p in big.collect_params().items()}
    assert shapes['lstm1_l0_i2h_weight'] == (80, 10)
    assert shapes['lstm1_l1_i2h_weight'] == (80, 40)  # both directions
    assert shapes['lstm1_r1_h2h_weight'] == (80, 20)
    assert shapes['lstm1_l1_h2h_bias'] == (80,)
    assert gru.l0_h2h_weight.shape == (48, 16)
    assert plain.prefix == 'rnn0_' and plain.l2_i2h_bias.shape == (32,)


def test_input_size_is_inferred(ctx):
    layer = rnn.GRU(6, bidirectional=True)
    layer.initialize()
    assert layer.l0_i2h_weight.shape == (18, 0)
    layer(nd.ones((2, 3, 11)))
    assert layer.l0_i2h_weight.shape == (18, 11)
    assert layer.r0_i2h_weight.shape == (18, 11)
    assert repr(layer) == 'GRU(11 -> 6, TNC, bidirectional)'


def test_structural_parameter_names_follow_mxnet():
    layer = rnn.LSTM(4, num_layers=2, input_size=3)
    keys = list(layer._collect_params_with_prefix())
    assert keys[:4] == [
        '_unfused.0.i2h_weight',
        '_unfused.0.h2h_weight',
        '_unfused.0.i2h_bias',
        '_unfused.0.h2h_bias',
    ]
    bi = rnn.GRU(4, bidirectional=True, input_size=3)
    assert (
        list(bi._collect_params_with_prefix('enc'))[4]
        == 'enc._unfused.0.r_cell.i2h_weight'
    )


def test_save_and_load_parameters(ctx, tmp_path):
    rng = np.random.RandomState(1)
    layer = rnn.LSTM(4, num_layers=2, bidirectional=True, input_size=3)
    layer.initialize()
    randomize(layer, rng)
    path = str(tmp_path / 'lstm.params')
    layer.save_parameters(path)
    other = rnn.LSTM(4, num_layers=2, bidirectional=True, input_size=3)
    other.load_parameters(path, ctx=ctx)
    x = uniform(rng, (3, 2, 3))
    close(other(x), layer(x))


def test_dropout_only_between_layers_and_in_training(ctx):
    rng = np.random.RandomState(2)
    x = uniform(rng, (6, 4, 5))
    with_dropout = rnn.LSTM(8, num_layers=2, dropout=0.5, input_size=5)
    without = rnn.LSTM(8, num_layers=2, input_size=5)
    with_dropout.initialize()
    without.initialize()
    for name, param in without.collect_params().items():
        twin = getattr(with_dropout, name[len(without.prefix) :])
        param.set_data(twin.data())
    # predict mode: dropout is the identity
    close(with_dropout(x), without(x))
    with autograd.record():
        trained = with_dropout(x)
    assert not np.allclose(trained.asnumpy(), without(x).asnumpy())
    # one layer: nothing between layers, so no dropout even in training
    single = rnn.GRU(8, dropout=0.5, input_size=5)
    single.initialize()
    with autograd.record():
        a = single(x)
    close(a, single(x))


def check_layer_gradients(layer, x, states, rng):
    """Autograd against float64 central differences for every parameter
    element and the inputs."""
    out_w = rng.uniform(-1, 1, size=layer(x, states)[0].shape)
    state_w = [rng.uniform(-1, 1, size=s.shape) for s in states]

    def loss_fn(out, new_states):
        loss = (out * nd.array(out_w, dtype='float64')).sum()
        for s, w in zip(new_states, state_w):
            loss = loss + (s * nd.array(w, dtype='float64')).sum()
        return loss

    x.attach_grad()
    with autograd.record():
        loss = loss_fn(*layer(x, states))
    loss.backward()
    arrays = [
        (p.data(), p.grad().asnumpy()) for p in layer.collect_params().values()
    ]
    arrays.append((x, x.grad.asnumpy()))
    eps = 1e-6
    for data, grad in arrays:
        base = data.asnumpy()
        numeric = np.zeros_like(base)
        for idx in np.ndindex(*base.shape):
            values = []
            for sign in (1, -1):
                bumped = base.copy()
                bumped[idx] += sign * eps
                data[:] = nd.array(bumped, dtype='float64')
                values.append(loss_fn(*layer(x, states)).asscalar())
            numeric[idx] = (values[0] - values[1]) / (2 * eps)
        data[:] = nd.array(base, dtype='float64')
        np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize(
    'mode, num_layers, bidirectional',
    [('lstm', 1, True), ('gru', 2, False), ('rnn_tanh', 2, True)],
)
def test_gradients_match_finite_differences(
    ctx, mode, num_layers, bidirectional
):
    rng = np.random.RandomState(3)
    layer = LAYERS[mode](
        2, num_layers=num_layers, bidirectional=bidirectional, input_size=3
    )
    layer.initialize()
    layer.cast('float64')
    randomize(layer, rng)
    x = uniform(rng, (3, 2, 3), dtype='float64')
    states = [
        uniform(rng, info['shape'], dtype='float64')
        for info in layer.state_info(2)
    ]
    check_layer_gradients(layer, x, states, rng)


class SineModel(gluon.HybridBlock):
    """LSTM + a linear read-out predicting the next value at each step."""

    def __init__(self, hidden, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.lstm = rnn.LSTM(hidden, input_size=1)
            self.weight = self.params.get('weight', shape=(1, hidden))
            self.bias = self.params.get('bias', shape=(1,), init='zeros')

    def hybrid_forward(self, F, x, weight, bias):
        return F.FullyConnected(
            self.lstm(x), weight, bias, num_hidden=1, flatten=False
        )


def test_lstm_learns_a_sine_wave(ctx):
    rng = np.random.RandomState(0)
    T, N, hidden, lr = 12, 32, 16, 0.02
    series = np.sin(0.3 * np.arange(3000))
    model = SineModel(hidden)
    model.initialize(initializer.Uniform(0.3))
    params = list(model.collect_params().values())
    moments = [(nd.zeros(p.shape), nd.zeros(p.shape)) for p in params]
    losses = []
    for step in range(1, 301):
        start = rng.randint(0, len(series) - T - 1, size=N)
        window = np.stack([series[s : s + T + 1] for s in start], axis=1)
        x = nd.array(window[:-1, :, None])  # (T, N, 1)
        y = nd.array(window[1:, :, None])
        with autograd.record():
            loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        losses.append(loss.asscalar())
        for p, (m, v) in zip(params, moments):  # Adam
            g = p.grad()
            m[:] = 0.9 * m + 0.1 * g
            v[:] = 0.999 * v + 0.001 * g * g
            m_hat = m / (1 - 0.9**step)
            v_hat = v / (1 - 0.999**step)
            p.data()[:] = p.data() - lr * m_hat / (nd.sqrt(v_hat) + 1e-8)
    first, last = np.mean(losses[:10]), np.mean(losses[-10:])
    assert last < first / 30, (first, last)


def test_hybridized_layer_runs_and_wrong_input_raises(ctx):
    layer = rnn.GRU(5)
    layer.initialize()
    x = nd.ones((3, 2, 4))
    want = layer(x)
    layer.hybridize()
    close(layer(x), want)
    with pytest.raises(DLBookError, match='expects NDArray or Symbol'):
        layer(np.ones((3, 2, 4)))
