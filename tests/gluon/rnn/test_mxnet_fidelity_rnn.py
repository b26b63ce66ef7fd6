"""Recurrent layers and cells compared with MXNet 1.9.1 (expected values
printed by MXNet 1.9.1 for the same code)."""

import numpy as np
import pytest

import dlbook as mx
from dlbook import nd
from dlbook.gluon import rnn

X = nd.array(np.arange(24).reshape(4, 3, 2) / 10.0)
# MXNet 1.9.1: LSTM(3, input_size=2), weights 0.1: output[:, 0, 0]
STEPS = [0.00252, 0.03825, 0.1034, 0.19557]


def test_sequence_length_is_ignored_without_use_sequence_length():
    layer = rnn.LSTM(3, input_size=2)
    layer.initialize(mx.init.Constant(0.1))
    out = layer(X, sequence_length=nd.array([2, 4, 3]))
    np.testing.assert_allclose(out.asnumpy()[:, 0, 0], STEPS, atol=1e-5)


@pytest.mark.parametrize('hybridize', [False, True])
def test_use_sequence_length_masks_like_a_cell_with_valid_length(hybridize):
    layer = rnn.LSTM(3, input_size=2, use_sequence_length=True)
    layer.initialize(mx.init.Constant(0.1))
    if hybridize:
        layer.hybridize()
    lengths = nd.array([2, 4, 3])
    out, (h, c) = layer(X, layer.begin_state(3), sequence_length=lengths)
    # the valid steps are MXNet's; MXNet's CPU build ignores the lengths,
    # its GPU (cuDNN) kernel stops each sequence as here
    np.testing.assert_allclose(out.asnumpy()[:2, 0, 0], STEPS[:2], atol=1e-5)
    assert out.asnumpy()[2:, 0].tolist() == [[0.0] * 3] * 2
    cell = rnn.LSTMCell(3, input_size=2)
    cell.initialize(mx.init.Constant(0.1))
    ref, states = cell.unroll(
        4, X, layout='TNC', merge_outputs=True, valid_length=lengths
    )
    np.testing.assert_allclose(out.asnumpy(), ref.asnumpy(), atol=1e-6)
    np.testing.assert_allclose(h.asnumpy()[0], states[0].asnumpy(), atol=1e-6)


def test_unfuse_gives_the_same_network_as_cells():
    layer = rnn.LSTM(
        3, num_layers=2, bidirectional=True, input_size=2, prefix='lstm0_'
    )
    stack = layer._unfuse()
    # MXNet 1.9.1 repr and parameter names
    assert repr(stack) == (
        'HybridSequentialRNNCell(\n'
        '(0): BidirectionalCell(forward=LSTMCell(2 -> 12), '
        'backward=LSTMCell(2 -> 12))\n'
        '(1): BidirectionalCell(forward=LSTMCell(6 -> 12), '
        'backward=LSTMCell(6 -> 12))\n)'
    )
    assert sorted(stack.collect_params().keys()) == sorted(
        f'lstm0_{d}{k}_{p}_{w}'
        for d in 'lr'
        for k in '01'
        for p in ('i2h', 'h2h')
        for w in ('weight', 'bias')
    )
    layer.initialize(mx.init.Xavier())
    out, _ = layer._unfuse().unroll(4, X, layout='TNC', merge_outputs=True)
    np.testing.assert_allclose(out.asnumpy(), layer(X).asnumpy(), atol=1e-5)
    assert repr(
        rnn.RNN(
            4, num_layers=3, dropout=0.5, input_size=2, activation='tanh'
        )._unfuse()
    ) == (
        'HybridSequentialRNNCell(\n(0): RNNCell(2 -> 4, tanh)\n'
        '(1): DropoutCell(rate=0.5, axes=())\n(2): RNNCell(4 -> 4, tanh)\n'
        '(3): DropoutCell(rate=0.5, axes=())\n(4): RNNCell(4 -> 4, tanh)\n)'
    )


def test_residual_and_bidirectional_cells_unroll_symbols():
    x = mx.sym.var('x')
    out, _ = rnn.ResidualCell(rnn.GRUCell(2, prefix='g_')).unroll(
        3, x, merge_outputs=True
    )
    # MXNet 1.9.1
    assert out.list_arguments() == [
        'x',
        'g_i2h_weight',
        'g_i2h_bias',
        'g_h2h_weight',
        'g_h2h_bias',
    ]
    assert out.infer_shape(x=(4, 3, 2))[1] == [(4, 3, 2)]
    bi = rnn.BidirectionalCell(
        rnn.LSTMCell(2, prefix='l_'), rnn.LSTMCell(2, prefix='r_')
    )
    out, states = bi.unroll(3, x, merge_outputs=True)
    assert out.list_arguments() == [
        'x',
        'l_i2h_weight',
        'l_i2h_bias',
        'l_h2h_weight',
        'l_h2h_bias',
        'r_i2h_weight',
        'r_i2h_bias',
        'r_h2h_weight',
        'r_h2h_bias',
    ]
    assert out.infer_shape(x=(4, 3, 2))[1] == [(4, 3, 4)]
    assert len(states) == 4
