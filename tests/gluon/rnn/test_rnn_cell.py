"""Recurrent cells: one step against NumPy, unroll, wrappers, names."""

import numpy as np
import pytest

from dlbook import autograd, nd
from dlbook.base import DLBookError
from dlbook.gluon import rnn
from dlbook.name import NameManager

from ._helpers import (
    close,
    np_gru_step,
    np_lstm_step,
    np_params,
    np_rnn_step,
    randomize,
    relu,
    uniform,
)

N, C, H, T = 3, 4, 5, 6


def make_cell(kind, **kwargs):
    if kind == 'rnn_tanh':
        return rnn.RNNCell(H, **kwargs)
    if kind == 'rnn_relu':
        return rnn.RNNCell(H, activation='relu', **kwargs)
    if kind == 'lstm':
        return rnn.LSTMCell(H, **kwargs)
    return rnn.GRUCell(H, **kwargs)


def np_step(kind, cell, x, states):
    """One step of ``cell`` computed in NumPy with its own parameters."""
    params = np_params(cell)
    x = x.asnumpy().astype('float64')
    states = [s.asnumpy().astype('float64') for s in states]
    if kind == 'rnn_tanh':
        return np_rnn_step(x, states[0], *params)
    if kind == 'rnn_relu':
        return np_rnn_step(x, states[0], *params, act=relu)
    if kind == 'lstm':
        return np_lstm_step(x, states[0], states[1], *params)
    return np_gru_step(x, states[0], *params)


def ready_cell(kind, rng, **kwargs):
    """An initialized cell with random parameters (input size inferred)."""
    cell = make_cell(kind, **kwargs)
    cell.initialize()
    cell(nd.zeros((N, C)), cell.begin_state(batch_size=N))
    randomize(cell, rng)
    return cell


KINDS = ['rnn_tanh', 'rnn_relu', 'lstm', 'gru']


# -- one step -------------------------------------------------------------


@pytest.mark.parametrize('kind', KINDS)
def test_cell_step_matches_numpy(ctx, kind):
    rng = np.random.RandomState(0)
    cell = ready_cell(kind, rng)
    x = uniform(rng, (N, C))
    states = [uniform(rng, info['shape']) for info in cell.state_info(N)]
    out, new_states = cell(x, states)
    want_out, want_states = np_step(kind, cell, x, states)
    assert out.context == ctx
    close(out, want_out)
    assert len(new_states) == len(want_states)
    for got, want in zip(new_states, want_states):
        close(got, want)


def test_lstm_gate_order_is_i_f_g_o(ctx):
    # Only the bias of one gate block is large: with zero weights and
    # states, the gates are sigmoid(bias) and g = tanh(bias).
    cell = rnn.LSTMCell(1, input_size=1)
    cell.initialize(init='zeros')
    cell.i2h_bias.set_data(nd.array([10.0, -10.0, 0.5, 10.0]))
    h, (h_, c) = cell(nd.ones((1, 1)), [nd.zeros((1, 1)), nd.ones((1, 1))])
    # i = 1, f = 0 (old c forgotten), g = tanh(0.5), o = 1
    close(c, [[np.tanh(0.5)]], atol=1e-4)
    close(h, [[np.tanh(np.tanh(0.5))]], atol=1e-4)


def test_gru_reset_gate_scales_h2h_bias(ctx):
    # With h = 0 only b_hn reaches n through r * (W_hn h + b_hn).
    cell = rnn.GRUCell(1, input_size=1)
    cell.initialize(init='zeros')
    cell.h2h_bias.set_data(nd.array([0.0, -100.0, 2.0]))  # r = 1/2, z = 0
    h, _ = cell(nd.zeros((1, 1)), [nd.zeros((1, 1))])
    close(h, [[np.tanh(0.5 * 2.0)]])


def test_cell_input_size_is_inferred_and_shapes(ctx):
    cell = rnn.LSTMCell(H)
    assert cell.i2h_weight.shape == (4 * H, 0)
    cell.initialize()
    out, states = cell(nd.ones((N, 7)), cell.begin_state(batch_size=N))
    assert cell.i2h_weight.shape == (4 * H, 7)
    assert cell.h2h_weight.shape == (4 * H, H)
    assert out.shape == (N, H)
    assert [s.shape for s in states] == [(N, H), (N, H)]


# -- names, reprs, begin_state -------------------------------------------


def test_cell_names_and_reprs():
    with NameManager():
        cells = [
            rnn.RNNCell(100),
            rnn.RNNCell(100, activation='relu'),
            rnn.LSTMCell(100),
            rnn.GRUCell(100),
            rnn.LSTMCell(100, input_size=10, prefix='enc_'),
        ]
    assert [c.prefix for c in cells] == [
        'rnn0_',
        'rnn1_',
        'lstm0_',
        'gru0_',
        'enc_',
    ]
    assert list(cells[2].collect_params()) == [
        'lstm0_i2h_weight',
        'lstm0_h2h_weight',
        'lstm0_i2h_bias',
        'lstm0_h2h_bias',
    ]
    # MXNet shows the number of i2h rows (gates * hidden) on the right
    assert [repr(c) for c in cells] == [
        'RNNCell(None -> 100, tanh)',
        'RNNCell(None -> 100, relu)',
        'LSTMCell(None -> 400)',
        'GRUCell(None -> 300)',
        'LSTMCell(10 -> 400)',
    ]
    assert cells[2].i2h_bias.shape == (400,)


def test_begin_state_names_shapes_and_kwargs(ctx):
    with NameManager():
        cell = rnn.LSTMCell(H)
    calls = []

    def func(**kwargs):
        calls.append(kwargs)
        return nd.ones(kwargs['shape'], dtype=kwargs.get('dtype'))

    states = cell.begin_state(batch_size=N, func=func, dtype='float64')
    assert [c['name'] for c in calls] == [
        'lstm0_begin_state_0',
        'lstm0_begin_state_1',
    ]
    assert calls[0]['shape'] == (N, H) and calls[0]['__layout__'] == 'NC'
    assert [s.dtype for s in states] == [np.float64, np.float64]
    # the counter goes on until the next unroll/reset
    cell.begin_state(batch_size=N, func=func)
    assert calls[-1]['name'] == 'lstm0_begin_state_3'
    cell.reset()
    zeros = cell.begin_state(batch_size=2)
    assert [z.shape for z in zeros] == [(2, H), (2, H)]
    assert zeros[0].context == ctx
    assert zeros[0].asnumpy().sum() == 0


def test_state_info():
    assert rnn.GRUCell(8).state_info(4) == [
        {'shape': (4, 8), '__layout__': 'NC'}
    ]
    assert len(rnn.LSTMCell(8).state_info()) == 2
    assert rnn.LSTMCell(8).state_info()[0]['shape'] == (0, 8)


# -- unroll ----------------------------------------------------------------


def manual_steps(cell, steps, states):
    outputs = []
    for x in steps:
        out, states = cell(x, states)
        outputs.append(out)
    return outputs, states


@pytest.mark.parametrize('kind', KINDS)
@pytest.mark.parametrize('layout', ['NTC', 'TNC'])
def test_unroll_matches_manual_steps(ctx, kind, layout):
    rng = np.random.RandomState(1)
    cell = ready_cell(kind, rng)
    shape = (N, T, C) if layout == 'NTC' else (T, N, C)
    x = uniform(rng, shape)
    begin = [uniform(rng, info['shape']) for info in cell.state_info(N)]
    axis = layout.find('T')
    steps = [x[:, t] if axis == 1 else x[t] for t in range(T)]
    want, want_states = manual_steps(cell, steps, begin)

    outputs, states = cell.unroll(T, x, begin_state=begin, layout=layout)
    assert isinstance(outputs, list) and len(outputs) == T
    for got, w in zip(outputs, want):
        close(got, w)
    for got, w in zip(states, want_states):
        close(got, w)

    merged, _ = cell.unroll(
        T, x, begin_state=begin, layout=layout, merge_outputs=True
    )
    assert merged.shape == ((N, T, H) if layout == 'NTC' else (T, N, H))
    close(merged, np.stack([w.asnumpy() for w in want], axis=axis))

    # a list of steps is accepted as input too
    listed, _ = cell.unroll(
        T, steps, begin_state=begin, layout=layout, merge_outputs=False
    )
    close(listed[-1], want[-1])


def test_unroll_default_state_is_zeros(ctx):
    rng = np.random.RandomState(2)
    cell = ready_cell('lstm', rng)
    x = uniform(rng, (N, T, C))
    zeros = [nd.zeros((N, H)), nd.zeros((N, H))]
    got, got_states = cell.unroll(T, x, merge_outputs=True)
    want, want_states = cell.unroll(
        T, x, begin_state=zeros, merge_outputs=True
    )
    close(got, want)
    close(got_states[1], want_states[1])


def test_unroll_checks_length(ctx):
    cell = rnn.GRUCell(H)
    cell.initialize()
    with pytest.raises(DLBookError, match='length=3'):
        cell.unroll(3, nd.ones((N, T, C)))


@pytest.mark.parametrize('kind', ['lstm', 'gru'])
def test_unroll_valid_length(ctx, kind):
    rng = np.random.RandomState(3)
    cell = ready_cell(kind, rng)
    x = uniform(rng, (N, T, C))
    lengths = [2, T, 4]
    outputs, states = cell.unroll(
        T, x, layout='NTC', valid_length=nd.array(lengths)
    )
    # with valid_length, the default is one merged array
    assert outputs.shape == (N, T, H)
    steps = [x[:, t] for t in range(T)]
    want, _ = manual_steps(cell, steps, cell.begin_state(batch_size=N))
    want = np.stack([w.asnumpy() for w in want], axis=1)  # (N, T, H)
    all_states = []
    s = cell.begin_state(batch_size=N)
    for step in steps:
        _, s = cell(step, s)
        all_states.append([a.asnumpy() for a in s])
    got = outputs.asnumpy()
    for n, length in enumerate(lengths):
        close(got[n, :length], want[n, :length])
        assert np.all(got[n, length:] == 0)
        for k, state in enumerate(states):
            close(state.asnumpy()[n], all_states[length - 1][k][n])
    as_list, _ = cell.unroll(
        T, x, valid_length=nd.array(lengths), merge_outputs=False
    )
    assert len(as_list) == T and as_list[0].shape == (N, H)


# -- containers and modifiers ----------------------------------------------


def test_sequential_cell_steps_and_unrolls(ctx):
    rng = np.random.RandomState(4)
    with NameManager():
        stack = rnn.SequentialRNNCell()
        with stack.name_scope():
            stack.add(rnn.LSTMCell(H))
            stack.add(rnn.GRUCell(H))
    assert (
        list(stack.collect_params())[0]
        == 'sequentialrnncell0_lstm0_i2h_weight'
    )
    assert repr(stack) == (
        'SequentialRNNCell(\n(0): LSTMCell(None -> 20)\n'
        '(1): GRUCell(None -> 15)\n)'
    )
    assert len(stack) == 2 and isinstance(stack[1], rnn.GRUCell)
    stack.initialize()
    begin = stack.begin_state(batch_size=N)
    assert [s.shape for s in begin] == [(N, H)] * 3
    x = uniform(rng, (N, T, C))
    stack.unroll(T, x, begin_state=begin)  # infer the input sizes
    randomize(stack, rng)

    outputs, states = stack.unroll(T, x, begin_state=begin, merge_outputs=True)
    assert outputs.shape == (N, T, H) and len(states) == 3
    # the same by hand: first cell over all steps, then the second
    lstm_out, lstm_states = stack[0].unroll(T, x, begin_state=begin[:2])
    gru_out, gru_states = stack[1].unroll(
        T, lstm_out, begin_state=begin[2:], merge_outputs=True
    )
    close(outputs, gru_out)
    for got, want in zip(states, lstm_states + gru_states):
        close(got, want)
    # stepping the stack gives the same last output
    out, s = None, begin
    for t in range(T):
        out, s = stack(x[:, t], s)
    close(out, gru_out[:, T - 1])


def test_hybrid_sequential_cell(ctx):
    stack = rnn.HybridSequentialRNNCell()
    stack.add(rnn.RNNCell(H))
    stack.add(rnn.RNNCell(H))
    stack.initialize()
    out, states = stack(nd.ones((N, C)), stack.begin_state(batch_size=N))
    assert out.shape == (N, H) and len(states) == 2


def test_bidirectional_cell(ctx):
    rng = np.random.RandomState(5)
    with NameManager():
        cell = rnn.BidirectionalCell(
            rnn.LSTMCell(H, prefix='l0_'), rnn.LSTMCell(H, prefix='r0_')
        )
    assert repr(cell) == (
        'BidirectionalCell(forward=LSTMCell(None -> 20), '
        'backward=LSTMCell(None -> 20))'
    )
    assert list(cell.collect_params())[:1] == ['l0_i2h_weight']
    cell.initialize()
    x = uniform(rng, (T, N, C))
    cell.unroll(T, x, layout='TNC')
    randomize(cell, rng)
    begin = [uniform(rng, (N, H)) for _ in range(4)]
    outputs, states = cell.unroll(
        T, x, begin_state=begin, layout='TNC', merge_outputs=True
    )
    assert outputs.shape == (T, N, 2 * H) and len(states) == 4

    l_cell, r_cell = cell._children.values()
    fwd, fwd_states = manual_steps(l_cell, [x[t] for t in range(T)], begin[:2])
    bwd, bwd_states = manual_steps(
        r_cell, [x[t] for t in reversed(range(T))], begin[2:]
    )
    bwd = bwd[::-1]
    want = np.concatenate(
        [
            np.stack([o.asnumpy() for o in fwd]),
            np.stack([o.asnumpy() for o in bwd]),
        ],
        axis=2,
    )
    close(outputs, want)
    for got, w in zip(states, fwd_states + bwd_states):
        close(got, w)
    with pytest.raises(NotImplementedError):
        cell(x[0], begin)


def test_bidirectional_cell_valid_length(ctx):
    rng = np.random.RandomState(6)
    cell = rnn.BidirectionalCell(rnn.GRUCell(H), rnn.GRUCell(H))
    cell.initialize()
    x = uniform(rng, (N, T, C))
    lengths = [3, T, 1]
    outputs, states = cell.unroll(
        T, x, valid_length=nd.array(lengths), merge_outputs=True
    )
    got = outputs.asnumpy()
    for n, length in enumerate(lengths):
        # sequence n alone, cut to its length, gives the same outputs
        alone, alone_states = cell.unroll(
            length, x[n : n + 1, :length], merge_outputs=True
        )
        close(got[n : n + 1, :length], alone)
        assert np.all(got[n, length:] == 0)
        for s, a in zip(states, alone_states):
            close(s[n : n + 1], a)


def test_dropout_cell_only_in_training(ctx):
    cell = rnn.DropoutCell(0.5)
    assert repr(cell) == 'DropoutCell(rate=0.5, axes=())'
    x = nd.ones((100, 50))
    out, states = cell(x, [])
    assert states == [] and (out.asnumpy() == 1).all()
    with autograd.record():
        out, _ = cell(x, [])
    values = np.unique(out.asnumpy())
    assert set(values) == {0.0, 2.0}
    with autograd.train_mode():
        merged, _ = cell.unroll(5, nd.ones((4, 5, 6)), merge_outputs=True)
    assert merged.shape == (4, 5, 6)


def test_residual_cell_adds_inputs(ctx):
    rng = np.random.RandomState(7)
    base = rnn.GRUCell(C)
    cell = rnn.ResidualCell(base)
    cell.initialize()
    x = uniform(rng, (N, T, C))
    outputs, _ = cell.unroll(T, x, merge_outputs=True)
    base._modified = False
    plain, _ = base.unroll(T, x, merge_outputs=True)
    base._modified = True
    close(outputs, plain.asnumpy() + x.asnumpy())
    step, _ = cell(x[:, 0], cell.begin_state(batch_size=N))
    close(step, plain[:, 0].asnumpy() + x[:, 0].asnumpy())
    assert repr(cell) == f'ResidualCell({base!r})'


def test_modified_cell_cannot_be_used_directly(ctx):
    base = rnn.LSTMCell(H)
    zone = rnn.ZoneoutCell(base, zoneout_outputs=0.5, zoneout_states=0.5)
    with pytest.raises(DLBookError, match='modifier cell'):
        base.begin_state(batch_size=2)
    with pytest.raises(DLBookError, match='already modified'):
        rnn.ResidualCell(base)
    assert len(zone.begin_state(batch_size=2)) == 2
    assert list(zone.collect_params()) == list(base.collect_params())


def test_zoneout_cell(ctx):
    rng = np.random.RandomState(8)
    base = rnn.LSTMCell(H)
    cell = rnn.ZoneoutCell(base, zoneout_outputs=0.5, zoneout_states=0.5)
    assert repr(cell).startswith('ZoneoutCell(p_out=0.5, p_state=0.5, ')
    cell.initialize()
    x = uniform(rng, (N, T, C))
    # outside training nothing is zoned out: the base cell's results
    outputs, _ = cell.unroll(T, x, merge_outputs=True)
    base._modified = False
    plain, _ = base.unroll(T, x, merge_outputs=True)
    base._modified = True
    close(outputs, plain)
    # in training each unit is the new value or the previous one
    with autograd.train_mode():
        zoned, _ = cell.unroll(T, x, merge_outputs=True)
    zoned = zoned.asnumpy()
    assert np.all(
        zoned[:, 0][zoned[:, 0] != 0]
        == plain.asnumpy()[:, 0][zoned[:, 0] != 0]
    )
    assert not np.allclose(zoned, plain.asnumpy())


def test_float64_cell_gradients_match_finite_differences(ctx):
    rng = np.random.RandomState(9)
    cell = rnn.GRUCell(2, input_size=3)
    cell.initialize()
    cell.cast('float64')
    randomize(cell, rng)
    x = uniform(rng, (2, 4, 3), dtype='float64')
    weight = rng.uniform(-1, 1, size=(2, 4, 2))

    def loss_value():
        out, _ = cell.unroll(4, x, merge_outputs=True)
        return float((out.asnumpy() * weight).sum())

    with autograd.record():
        out, _ = cell.unroll(4, x, merge_outputs=True)
        loss = (out * nd.array(weight, dtype='float64')).sum()
    loss.backward()
    param = cell.h2h_weight
    grad = param.grad().asnumpy()
    data = param.data()
    base = data.asnumpy()
    eps = 1e-6
    for idx in np.ndindex(*base.shape):
        bumped = base.copy()
        bumped[idx] += eps
        data[:] = nd.array(bumped, dtype='float64')
        up = loss_value()
        bumped[idx] -= 2 * eps
        data[:] = nd.array(bumped, dtype='float64')
        down = loss_value()
        data[:] = nd.array(base, dtype='float64')
        assert abs((up - down) / (2 * eps) - grad[idx]) < 1e-7
