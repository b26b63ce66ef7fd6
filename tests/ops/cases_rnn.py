"""Rows for dlbook/ops/rnn.py: the fused ``RNN`` operator.

The reference runs each sequence of the batch on its own, one step at a
time, with the textbook cell formulas (written here again, in NumPy, with
``1 / (1 + exp(-x))`` for the sigmoid) and MXNet's parameter packing.
Variable lengths are handled by cutting each sequence to its length and
padding the outputs with zeros: a different route to the same numbers
than the operator's masks.
"""

import numpy as np

from tests.ops.cases import Case

GATES = {'rnn_relu': 1, 'rnn_tanh': 1, 'lstm': 4, 'gru': 3}


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def unpack(params, mode, layers, width, hidden, dirs, proj=None):
    """``[(W_x, W_h, b_x, b_h, W_r)]`` per layer and direction, by
    counting through MXNet's layout: all weights (with a projection
    ``W_x, W_h (G*H, P), W_r (P, H)`` each time), then all biases."""
    rows = GATES[mode] * hidden
    rec = hidden if proj is None else proj
    per = 2 if proj is None else 3  # weight matrices per direction
    sizes = []
    for layer in range(layers):
        w = width if layer == 0 else dirs * rec
        sizes += (
            [(rows, w), (rows, rec)] + [(proj, hidden)] * (per - 2)
        ) * dirs
    sizes += [(rows,)] * (2 * layers * dirs)
    arrays, offset = [], 0
    for shape in sizes:
        n = int(np.prod(shape))
        arrays.append(params[offset : offset + n].reshape(shape))
        offset += n
    assert offset == params.size
    split = per * layers * dirs
    weights, biases = arrays[:split], arrays[split:]
    return [
        (
            weights[per * k],
            weights[per * k + 1],
            biases[2 * k],
            biases[2 * k + 1],
            weights[per * k + 2] if proj is not None else None,
        )
        for k in range(layers * dirs)
    ]


def step(mode, x, h, c, wx, wh, bx, bh, wr=None, clip=None):
    """One step for one sequence: ``x (1, C)``, ``h``, ``c`` ``(1, H)``;
    ``clip = (low, high)`` clips the LSTM cell state; ``wr`` projects the
    LSTM's new state, ``h`` is then ``(1, P)``."""
    if mode == 'gru':
        xr, xz, xn = np.split(x @ wx.T + bx, 3, axis=1)
        hr, hz, hn = np.split(h @ wh.T + bh, 3, axis=1)
        r, z = sigmoid(xr + hr), sigmoid(xz + hz)
        n = np.tanh(xn + r * hn)
        return (1 - z) * n + z * h, None
    a = x @ wx.T + bx + h @ wh.T + bh
    if mode == 'rnn_relu':
        return np.maximum(a, 0), None
    if mode == 'rnn_tanh':
        return np.tanh(a), None
    i, f, g, o = np.split(a, 4, axis=1)
    c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
    if clip is not None:
        c = np.clip(c, *clip)
    h = sigmoid(o) * np.tanh(c)
    return (h if wr is None else h @ wr.T), c


def reference(
    mode,
    layers,
    hidden,
    bidirectional=False,
    state_outputs=False,
    use_length=False,
    clip=None,
    proj=None,
):
    """``ref(*inputs)`` for one row's attributes."""
    dirs = 2 if bidirectional else 1
    rec = hidden if proj is None else proj

    def ref(data, params, h0, *rest):
        rest = list(rest)
        c0 = rest.pop(0) if mode == 'lstm' else np.zeros_like(h0)
        steps, batch, width = data.shape
        lengths = rest.pop(0).astype(int) if use_length else [steps] * batch
        weights = unpack(
            params.astype(np.float64), mode, layers, width, hidden, dirs, proj
        )
        out = np.zeros((steps, batch, dirs * rec))
        hy, cy = np.zeros(h0.shape), np.zeros(c0.shape)
        for n in range(batch):
            x = data[: lengths[n], n].astype(np.float64)  # (T_n, C)
            for layer in range(layers):
                ys = []
                for d in range(dirs):
                    k = layer * dirs + d
                    h, c = h0[k, n][None], c0[k, n][None]
                    order = range(len(x))[::-1] if d else range(len(x))
                    y = np.zeros((len(x), rec))
                    for t in order:
                        h, c = step(
                            mode, x[t][None], h, c, *weights[k], clip=clip
                        )
                        y[t] = h[0]
                    hy[k, n] = h[0]
                    if mode == 'lstm':
                        cy[k, n] = c[0]
                    ys.append(y)
                x = np.concatenate(ys, axis=1)
            out[: lengths[n], n] = x
        outs = [out]
        if state_outputs:
            outs.append(hy)
            if mode == 'lstm':
                outs.append(cy)
        return tuple(outs) if len(outs) > 1 else out

    return ref


def make(
    mode,
    steps,
    batch,
    width,
    hidden,
    layers=1,
    bidirectional=False,
    lengths=None,
    proj=None,
):
    """``make_inputs`` drawing data, parameters (small, so that gates stay
    away from saturation) and states; ``lengths`` adds sequence_length,
    ``proj`` a projection (the state ``h`` then has ``proj`` features)."""
    dirs = 2 if bidirectional else 1
    rows = GATES[mode] * hidden
    rec = hidden if proj is None else proj
    size = sum(
        dirs * rows * ((width if layer == 0 else dirs * rec) + rec + 2)
        for layer in range(layers)
    )
    if proj is not None:
        size += layers * dirs * proj * hidden
    state = (layers * dirs, batch, rec)
    cell = (layers * dirs, batch, hidden)

    def make_inputs(rng, dtype):
        arrays = [
            rng.uniform(-1, 1, (steps, batch, width)),
            rng.uniform(-0.6, 0.6, (size,)),
            rng.uniform(-1, 1, state),
        ]
        if mode == 'lstm':
            arrays.append(rng.uniform(-1, 1, cell))
        arrays = [a.astype(dtype) for a in arrays]
        if lengths is not None:
            arrays.append(np.array(lengths, dtype='int32'))
        return arrays

    return make_inputs


def row(
    mode,
    steps=3,
    batch=2,
    width=3,
    hidden=2,
    layers=1,
    bidirectional=False,
    state_outputs=True,
    lengths=None,
    clip=None,
    proj=None,
):
    attrs = {
        'state_size': hidden,
        'num_layers': layers,
        'mode': mode,
        'bidirectional': bidirectional,
        'state_outputs': state_outputs,
    }
    if lengths is not None:
        attrs['use_sequence_length'] = True
    if clip is not None:
        attrs['lstm_state_clip_min'], attrs['lstm_state_clip_max'] = clip
    if proj is not None:
        attrs['projection_size'] = proj
    return Case(
        [],
        attrs=attrs,
        make_inputs=make(
            mode,
            steps,
            batch,
            width,
            hidden,
            layers,
            bidirectional,
            lengths,
            proj,
        ),
        ref=reference(
            mode,
            layers,
            hidden,
            bidirectional,
            state_outputs,
            lengths is not None,
            clip,
            proj,
        ),
    )


def dropout_check(outs, inputs):
    """Training with dropout between two layers: the first layer's final
    states are untouched, the second layer sees a masked input."""
    out, hy, cy = outs
    want_out, want_hy, want_cy = reference('lstm', 2, 2, state_outputs=True)(
        *inputs
    )
    assert out.shape == want_out.shape and out.dtype == inputs[0].dtype
    np.testing.assert_allclose(hy[0], want_hy[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cy[0], want_cy[0], rtol=1e-5, atol=1e-6)
    assert not np.allclose(out, want_out, atol=1e-3)


CASES = {
    'RNN': [
        # each mode, one layer, final states as outputs
        row('rnn_relu'),
        row('rnn_tanh'),
        row('lstm'),
        row('gru'),
        # two layers: the second reads the first's outputs
        row('lstm', layers=2),
        row('gru', layers=2, state_outputs=False),
        # bidirectional, one and two layers
        row('rnn_tanh', bidirectional=True),
        row('rnn_relu', layers=2, bidirectional=True),
        row('lstm', layers=2, bidirectional=True),
        row('gru', layers=2, bidirectional=True, batch=1),
        # variable lengths: outputs past the end are 0, final states are
        # those of each sequence's last step, backward runs start there
        row('lstm', steps=4, batch=3, bidirectional=True, lengths=[4, 2, 1]),
        row('lstm', steps=3, batch=2, layers=2, lengths=[3, 1]),
        # cell states clipped to [-0.4, 0.4] (no gradient where clipped)
        row('lstm', steps=4, clip=(-0.4, 0.4)),
        # LSTMP: the state fed back and output is r_t = W_r h_t (P < H
        # features); W_r follows W_h in the flat vector
        row('lstm', hidden=3, proj=2),
        row('lstm', hidden=3, proj=2, layers=2, bidirectional=True),
        row('lstm', hidden=3, proj=3, layers=2, state_outputs=False),
        row(
            'lstm',
            steps=4,
            batch=3,
            hidden=3,
            proj=2,
            bidirectional=True,
            lengths=[4, 2, 1],
        ),
        row('lstm', steps=4, hidden=3, proj=1, clip=(-0.4, 0.4)),
        # dropout between the layers in training; the harness reseeds the
        # random state, so the gradient check sees one fixed mask
        Case(
            [],
            attrs={
                'state_size': 2,
                'num_layers': 2,
                'mode': 'lstm',
                'p': 0.5,
                'state_outputs': True,
            },
            make_inputs=make('lstm', 3, 2, 3, 2, layers=2),
            is_train=True,
            check=dropout_check,
        ),
    ],
}
