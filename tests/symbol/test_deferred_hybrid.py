"""Deferred parameter shapes that symbolic inference cannot reach are
completed by one eager pass when a hybridized model first runs."""

import numpy as np

from dlbook import autograd, nd
from dlbook.gluon import nn, rnn


def _model():
    net = nn.HybridSequential()
    net.add(rnn.LSTM(8), nn.Dense(3, flatten=False))
    return net


def test_hybridized_lstm_without_input_size_matches_eager(ctx):
    x = nd.random.normal(shape=(5, 2, 7))
    eager = _model()
    eager.initialize()
    hybrid = _model()
    hybrid.initialize()
    hybrid.hybridize()
    out = hybrid(x)  # first call: shapes inferred
    weights = [
        p
        for p in hybrid.collect_params().values()
        if p.name.endswith('l0_i2h_weight')
    ]
    assert weights[0].shape == (32, 7)
    eager(x)  # give the eager copy its shapes
    for (_, a), (_, b) in zip(
        sorted(eager.collect_params().items()),
        sorted(hybrid.collect_params().items()),
    ):
        a.set_data(b.data())
    np.testing.assert_allclose(
        eager(x).asnumpy(), out.asnumpy(), rtol=1e-5, atol=1e-6
    )
    with autograd.record():
        loss = hybrid(x).sum()
    loss.backward()
    assert np.abs(weights[0].grad().asnumpy()).sum() > 0
