"""NumPy references for the recurrent cells and small test utilities."""

import numpy as np

import dlbook as mx

nd = mx.nd


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def relu(x):
    return np.maximum(x, 0)


def np_params(cell):
    """The cell's (i2h_weight, h2h_weight, i2h_bias, h2h_bias) in NumPy."""
    return [
        getattr(cell, name).data().asnumpy().astype('float64')
        for name in ('i2h_weight', 'h2h_weight', 'i2h_bias', 'h2h_bias')
    ]


def np_rnn_step(x, h, wi, wh, bi, bh, act=np.tanh):
    """h_t = act(x W_i^T + b_i + h W_h^T + b_h)."""
    out = act(x @ wi.T + bi + h @ wh.T + bh)
    return out, [out]


def np_lstm_step(x, h, c, wi, wh, bi, bh):
    """Gates i, f, g, o in this order along the 4H axis."""
    gates = x @ wi.T + bi + h @ wh.T + bh
    i, f, g, o = np.split(gates, 4, axis=1)
    i, f, g, o = sigmoid(i), sigmoid(f), np.tanh(g), sigmoid(o)
    c_new = f * c + i * g
    h_new = o * np.tanh(c_new)
    return h_new, [h_new, c_new]


def np_gru_step(x, h, wi, wh, bi, bh):
    """cuDNN GRU: the reset gate multiplies (W_hn h + b_hn)."""
    xr, xz, xn = np.split(x @ wi.T + bi, 3, axis=1)
    hr, hz, hn = np.split(h @ wh.T + bh, 3, axis=1)
    r = sigmoid(xr + hr)
    z = sigmoid(xz + hz)
    n = np.tanh(xn + r * hn)
    h_new = (1 - z) * n + z * h
    return h_new, [h_new]


def randomize(block, rng, scale=0.5):
    """Give every parameter (biases too) random values, so that a mix-up
    of biases or gate blocks shows."""
    for param in block.collect_params().values():
        data = param.data()
        value = rng.uniform(-scale, scale, size=data.shape)
        param.set_data(nd.array(value, ctx=data.context, dtype=data.dtype))


def uniform(rng, shape, dtype='float32', scale=1.0):
    return nd.array(rng.uniform(-scale, scale, size=shape), dtype=dtype)


def close(a, b, rtol=1e-5, atol=1e-6):
    a = a.asnumpy() if hasattr(a, 'asnumpy') else a
    b = b.asnumpy() if hasattr(b, 'asnumpy') else b
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
