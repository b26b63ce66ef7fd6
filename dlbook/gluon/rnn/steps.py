"""The step functions of the recurrent cells of ``basic_cells.py``.

The fused layers of ``rnn_layer.py`` run the same rules, with their
gradients, inside the ``RNN`` operator (``dlbook/ops/rnn.py``), on raw
arrays over whole sequences.

Each takes the two projections of one time step, ``i2h = x_t W_i2h^T +
b_i2h`` and ``h2h = h_{t-1} W_h2h^T + b_h2h`` (``(N, gates * H)`` each),
and the previous states, and returns ``(output, new_states)``.  ``F`` is
``nd`` or ``sym``.
"""

__all__ = ['rnn_step', 'lstm_step', 'gru_step']


def _nn():
    # imported on use, to keep imports one-way; LeakyReLU is looked up
    # with getattr because gluon.nn may not define it
    from .. import nn

    return nn


def _activate(F, x, activation, **kwargs):
    """Apply ``activation``: a name (``'tanh'``), a LeakyReLU block or any
    callable."""
    func = {
        'tanh': F.tanh,
        'relu': F.relu,
        'sigmoid': F.sigmoid,
        'softsign': F.softsign,
    }.get(activation)
    if func is not None:
        return func(x, **kwargs)
    if isinstance(activation, str):
        return F.Activation(x, act_type=activation, **kwargs)
    leaky_relu = getattr(_nn(), 'LeakyReLU', None)
    if leaky_relu is not None and isinstance(activation, leaky_relu):
        return F.LeakyReLU(
            x, act_type='leaky', slope=activation._alpha, **kwargs
        )
    return activation(x, **kwargs)


def rnn_step(F, i2h, h2h, states, activation='tanh', prefix=''):
    """Elman RNN step: ``h_t = act(i2h + h2h)``; output and state are h_t."""
    total = F.elemwise_add(i2h, h2h, name=prefix + 'plus0')
    output = _activate(F, total, activation, name=prefix + 'out')
    return output, [output]


def lstm_step(
    F,
    i2h,
    h2h,
    states,
    activation='tanh',
    recurrent_activation='sigmoid',
    prefix='',
):
    """LSTM step; the 4H gate columns are in the order i, f, g, o.

    ::

        i, f, o = sigmoid(slices 0, 1, 3 of i2h + h2h)    # gates in (0, 1)
        g = tanh(slice 2 of i2h + h2h)                    # candidate cell
        c_t = f * c_{t-1} + i * g
        h_t = o * tanh(c_t)

    ``states`` is ``[h_{t-1}, c_{t-1}]``; returns ``h_t, [h_t, c_t]``.
    """
    gates = F.elemwise_add(i2h, h2h, name=prefix + 'plus0')
    slices = F.SliceChannel(gates, num_outputs=4, name=prefix + 'slice')
    in_gate = _activate(F, slices[0], recurrent_activation, name=prefix + 'i')
    forget_gate = _activate(
        F, slices[1], recurrent_activation, name=prefix + 'f'
    )
    in_transform = _activate(F, slices[2], activation, name=prefix + 'c')
    out_gate = _activate(F, slices[3], recurrent_activation, name=prefix + 'o')
    next_c = F.elemwise_add(
        F.elemwise_mul(forget_gate, states[1], name=prefix + 'mul0'),
        F.elemwise_mul(in_gate, in_transform, name=prefix + 'mul1'),
        name=prefix + 'state',
    )
    next_h = F.elemwise_mul(
        out_gate,
        F.Activation(next_c, act_type=activation, name=prefix + 'activation0'),
        name=prefix + 'out',
    )
    return next_h, [next_h, next_c]


def gru_step(F, i2h, h2h, states, prefix=''):
    """GRU step (cuDNN's variant); the 3H gate columns are r, z, n.

    ::

        r = sigmoid(i2h_r + h2h_r)              # reset gate
        z = sigmoid(i2h_z + h2h_z)              # update gate
        n = tanh(i2h_n + r * h2h_n)             # candidate; h2h_n includes
                                                # b_hn, so r scales it too
        h_t = (1 - z) * n + z * h_{t-1}

    Returns ``h_t, [h_t]``.
    """
    prev_h = states[0]
    i2h_r, i2h_z, i2h_n = F.SliceChannel(
        i2h, num_outputs=3, name=prefix + 'i2h_slice'
    )
    h2h_r, h2h_z, h2h_n = F.SliceChannel(
        h2h, num_outputs=3, name=prefix + 'h2h_slice'
    )
    reset_gate = F.Activation(
        F.elemwise_add(i2h_r, h2h_r, name=prefix + 'plus0'),
        act_type='sigmoid',
        name=prefix + 'r_act',
    )
    update_gate = F.Activation(
        F.elemwise_add(i2h_z, h2h_z, name=prefix + 'plus1'),
        act_type='sigmoid',
        name=prefix + 'z_act',
    )
    candidate = F.Activation(
        F.elemwise_add(
            i2h_n,
            F.elemwise_mul(reset_gate, h2h_n, name=prefix + 'mul0'),
            name=prefix + 'plus2',
        ),
        act_type='tanh',
        name=prefix + 'h_act',
    )
    # (1 - z) * n + z * h  ==  n + z * (h - n): the same value, two
    # operators fewer per step
    next_h = F.elemwise_add(
        candidate,
        F.elemwise_mul(
            update_gate,
            F.elemwise_sub(prev_h, candidate, name=prefix + 'minus0'),
            name=prefix + 'mul1',
        ),
        name=prefix + 'out',
    )
    return next_h, [next_h]
