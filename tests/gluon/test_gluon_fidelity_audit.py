"""Regressions from a Gluon-layer fidelity audit against MXNet 1.9.1.

Expected values were recorded by running the same code under MXNet 1.9.1.
"""

import hashlib
import json

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, gluon, nd
from dlbook.gluon import nn, rnn

_HEAD = (
    '--------------------------------------------------------------------------------\n'
    '        Layer (type)                                Output Shape         Param #\n'
    '================================================================================\n'
)


def _tail(total, trainable, shared):
    return (
        '================================================================================\n'
        'Parameters in forward computation graph, duplicate included\n'
        f'   Total params: {total}\n'
        f'   Trainable params: {trainable}\n'
        f'   Non-trainable params: {total - trainable}\n'
        f'Shared params in forward computation graph: {shared}\n'
        f'Unique parameters in model: {total - shared}\n'
        '--------------------------------------------------------------------------------\n'
    )


def test_summary_layout_and_nested_activation(capsys):
    # MXNet hooks the Dense block itself and its Activation child, with the
    # '{:>20}  {:>42} {:>15}' column layout
    with mx.name.NameManager():
        net = nn.Dense(5, flatten=False, activation='relu')
    net.initialize()
    net.summary(nd.ones((2, 3, 4)))
    expected = (
        _HEAD
        + '               Input                                   (2, 3, 4)               0\n'
        + '        Activation-1                                   (2, 3, 5)               0\n'
        + '             Dense-2                                   (2, 3, 5)              25\n'
        + _tail(25, 25, 0)
    )
    assert capsys.readouterr().out == expected


def test_summary_concurrent_and_shared_params(capsys):
    with mx.name.NameManager():
        net = gluon.contrib.nn.Concurrent(axis=-1)
        with net.name_scope():
            net.add(nn.Dense(3), nn.Dense(2), gluon.contrib.nn.Identity())
    net.initialize()
    net.summary(nd.ones((2, 4)))
    expected = (
        _HEAD
        + '               Input                                      (2, 4)               0\n'
        + '             Dense-1                                      (2, 3)              15\n'
        + '             Dense-2                                      (2, 2)              10\n'
        + '          Identity-3                                      (2, 4)               0\n'
        + _tail(25, 25, 0)
    )
    assert capsys.readouterr().out == expected

    with mx.name.NameManager():
        seq = nn.HybridSequential()
        with seq.name_scope():
            d = nn.Dense(3, in_units=3)
            seq.add(d, nn.Dense(3, in_units=3, params=d.params))
    seq.initialize()
    seq.summary(nd.ones((2, 3)))
    expected = (
        _HEAD
        + '               Input                                      (2, 3)               0\n'
        + '             Dense-1                                      (2, 3)              12\n'
        + '             Dense-2                                      (2, 3)              12\n'
        + _tail(24, 24, 12)
    )
    assert capsys.readouterr().out == expected


def test_summary_nested_outputs(capsys):
    layer = rnn.LSTM(4, input_size=5)
    layer.initialize()
    layer.summary(nd.ones((3, 2, 5)), layer.begin_state(batch_size=2))
    expected = (
        _HEAD
        + '               Input           (3, 2, 5), [(1, 2, 4), (1, 2, 4)]               0\n'
        + '              LSTM-1           (3, 2, 4), [(1, 2, 4), (1, 2, 4)]             176\n'
        + _tail(176, 176, 0)
    )
    assert capsys.readouterr().out == expected


def test_summary_refuses_hybridized_block():
    with mx.name.NameManager():
        net = nn.Dense(2)
    net.initialize()
    net.hybridize()
    with pytest.raises(
        AssertionError, match='"dense0" must not be hybridized'
    ):
        net.summary(nd.ones((1, 3)))


def _audit_net():
    with mx.name.NameManager():
        net = nn.HybridSequential()
        with net.name_scope():
            net.add(
                nn.Conv2D(3, 3, in_channels=2),
                nn.BatchNorm(in_channels=3),
                nn.Flatten(),
                nn.Dense(2, in_units=27),
            )
    net.initialize()
    rng = np.random.RandomState(11)
    for name, p in net.collect_params().items():
        lo, hi = (0.5, 1.5) if 'var' in name else (-0.5, 0.5)
        p.set_data(nd.array(rng.uniform(lo, hi, p.shape)))
    return net


def test_save_parameters_bytes_match_mxnet(tmp_path):
    net = _audit_net()
    f = str(tmp_path / 'net.params')
    net.save_parameters(f)
    data = open(f, 'rb').read()
    assert len(data) == 952
    assert hashlib.sha256(data).hexdigest() == (
        '999e48519058567a1d95ec7b8f87c55e03230ac237a121a9a47ce37f40f0d690'
    )


def test_export_variable_attrs_and_imports_param_order(tmp_path):
    net = _audit_net()
    net.hybridize()
    x = nd.array(np.random.RandomState(0).uniform(size=(1, 2, 5, 5)))
    net(x)
    prefix = str(tmp_path / 'net')
    net.export(prefix, epoch=3)
    graph = json.load(open(prefix + '-symbol.json'))
    weight = graph['nodes'][1]
    assert weight['name'] == 'hybridsequential0_conv0_weight'
    # MXNet's Parameter.var() passes stype, so every parameter variable
    # carries __storage_type__
    assert weight['attrs'] == {
        '__dtype__': '0',
        '__lr_mult__': '1.0',
        '__shape__': '(3, 2, 3, 3)',
        '__storage_type__': '0',
        '__wd_mult__': '1.0',
    }
    assert 'attrs' not in graph['nodes'][0]
    block = gluon.SymbolBlock.imports(
        prefix + '-symbol.json', ['data'], prefix + '-0003.params'
    )
    # arguments first, then auxiliary states
    assert list(block.collect_params().keys()) == [
        'hybridsequential0_conv0_weight',
        'hybridsequential0_conv0_bias',
        'hybridsequential0_batchnorm0_gamma',
        'hybridsequential0_batchnorm0_beta',
        'hybridsequential0_dense0_weight',
        'hybridsequential0_dense0_bias',
        'hybridsequential0_batchnorm0_running_mean',
        'hybridsequential0_batchnorm0_running_var',
    ]
    np.testing.assert_allclose(block(x).asnumpy(), net(x).asnumpy(), rtol=1e-5)


def test_sparse_embedding():
    with mx.name.NameManager():
        emb = gluon.contrib.nn.SparseEmbedding(10, 4)
    assert repr(emb) == 'SparseEmbedding(10 -> 4, float32)'
    assert [(k, p.shape) for k, p in emb.collect_params().items()] == [
        ('sparseembedding0_weight', (10, 4))
    ]
    emb.initialize()
    rng = np.random.RandomState(7)
    emb.weight.set_data(
        nd.array(rng.uniform(-0.5, 0.5, (10, 4))).tostype('row_sparse')
    )
    x = nd.array(np.random.RandomState(2).randint(0, 10, (2, 3)))
    with autograd.record():
        y = emb(x)
    y.backward()
    assert y.shape == (2, 3, 4)
    # the same rows nn.Embedding reads (recorded from MXNet's Embedding)
    np.testing.assert_allclose(
        y.asnumpy().ravel()[:4],
        [
            -0.1276153177022934,
            -0.02259884588420391,
            -0.13410961627960205,
            0.3379179835319519,
        ],
        rtol=1e-6,
    )
    grad = emb.weight.grad()
    assert grad.stype == 'row_sparse'
    dense = grad.tostype('default').asnumpy()
    counts = np.bincount(x.asnumpy().astype(int).ravel(), minlength=10)
    np.testing.assert_allclose(dense.sum(axis=1), counts * 4.0)


def _unroll(cell, x, layout='TNC', merge=True):
    return cell.unroll(
        x.shape[0 if layout == 'TNC' else 1],
        x,
        layout=layout,
        merge_outputs=merge,
    )


@pytest.mark.parametrize('drops', [(0.3, 0.3, 0.3), (0.4, 0.0, 0.5)])
def test_variational_dropout_cell_inference_is_base_cell(drops):
    with mx.name.NameManager():
        cell = gluon.contrib.rnn.VariationalDropoutCell(
            rnn.LSTMCell(4), *drops
        )
    # MXNet 1.9.1: repr, prefix and the base cell's parameter names
    assert repr(cell) == (
        f'VariationalDropoutCell(p_out = {drops[2]}, p_state = {drops[1]})'
    )
    assert cell.prefix == 'lstm0_vardrop'
    x = nd.array(np.random.RandomState(4).uniform(-1, 1, (3, 2, 5)))
    cell.initialize()
    out, states = _unroll(cell, x)
    assert list(cell.collect_params().keys()) == [
        'lstm0_i2h_weight',
        'lstm0_h2h_weight',
        'lstm0_i2h_bias',
        'lstm0_h2h_bias',
    ]
    base = cell.base_cell
    base._modified = False
    try:
        ref, ref_states = _unroll(base, x)
    finally:
        base._modified = True
    np.testing.assert_allclose(out.asnumpy(), ref.asnumpy(), rtol=1e-6)
    for s, r in zip(states, ref_states):
        np.testing.assert_allclose(s.asnumpy(), r.asnumpy(), rtol=1e-6)
    outs, _ = _unroll(cell, x, merge=False)
    assert isinstance(outs, list) and len(outs) == 3


def test_variational_dropout_cell_shares_mask_over_time():
    cell = gluon.contrib.rnn.VariationalDropoutCell(
        rnn.RNNCell(50, activation='relu'), drop_outputs=0.5
    )
    cell.initialize(mx.init.Constant(0.1))
    x = nd.ones((2, 6, 3))
    with autograd.record():
        out, _ = cell.unroll(6, x, layout='NTC', merge_outputs=True)
    zeros = out.asnumpy() == 0
    assert zeros.any() and not zeros.all()
    assert (zeros == zeros[:, :1, :]).all()


def test_lstmp_cell_matches_mxnet():
    with mx.name.NameManager():
        cell = gluon.contrib.rnn.LSTMPCell(4, 3, input_size=2)
    assert repr(cell) == 'LSTMPCell(2 -> 16 -> 3)'
    assert [(k, p.shape) for k, p in cell.collect_params().items()] == [
        ('lstmp0_i2h_weight', (16, 2)),
        ('lstmp0_h2h_weight', (16, 3)),
        ('lstmp0_h2r_weight', (3, 4)),
        ('lstmp0_i2h_bias', (16,)),
        ('lstmp0_h2h_bias', (16,)),
    ]
    cell.initialize()
    rng = np.random.RandomState(7)
    for p in cell.collect_params().values():
        p.set_data(nd.array(rng.uniform(-0.5, 0.5, p.shape)))
    x = nd.array(np.random.RandomState(1).uniform(-1, 1, (3, 2, 2)))
    x.attach_grad()
    with autograd.record():
        out, states = cell.unroll(3, x, layout='TNC', merge_outputs=True)
        loss = (out * nd.arange(18).reshape((3, 2, 3)) / 10).sum() + states[
            1
        ].sum()
    loss.backward()
    assert [s.shape for s in states] == [(2, 3), (2, 4)]
    tol = dict(rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(
        out.asnumpy().ravel(),
        [
            0.017603,
            -0.055128,
            -0.067590,
            0.018544,
            -0.038680,
            -0.069895,
            0.010658,
            -0.087681,
            -0.126801,
            0.019777,
            -0.075993,
            -0.122379,
            0.009458,
            -0.112268,
            -0.157431,
            0.019442,
            -0.105743,
            -0.151520,
        ],
        **tol,
    )
    np.testing.assert_allclose(
        states[1].asnumpy().ravel(),
        [
            -0.365595,
            -0.522785,
            0.264810,
            -0.325971,
            -0.373304,
            -0.644197,
            0.291416,
            -0.285772,
        ],
        **tol,
    )
    np.testing.assert_allclose(
        x.grad.asnumpy().ravel(),
        [
            0.018191,
            0.005058,
            -0.133644,
            0.007088,
            -0.037538,
            -0.050703,
            -0.042172,
            -0.023008,
            0.191389,
            -0.091052,
            0.179362,
            -0.085691,
        ],
        **tol,
    )
    np.testing.assert_allclose(
        cell.h2r_weight.grad().asnumpy().ravel(),
        [
            -0.454054,
            -0.947833,
            0.380991,
            -0.602023,
            -0.807994,
            -1.705126,
            0.650380,
            -0.992932,
            -0.894528,
            -1.881581,
            0.715897,
            -1.096756,
        ],
        **tol,
    )
