"""LSTM with a projection (LSTMP): ``gluon.rnn.LSTM(projection_size=P)``
and the fused ``RNN`` operator's ``projection_size``.

The state fed back and output is ``r_t = W_h2r h_t`` (``P`` features);
the cell state keeps ``H``.  Expected values were recorded with MXNet
1.9.1 on CPU for a 2-layer bidirectional layer with begin states (``H =
3``, ``P = 2``): outputs and final states of the fused layer (MXNet's CPU
kernel runs LSTMP for inference only), and gradients of a weighted sum of
all three outputs through MXNet's own ``contrib.rnn.LSTMPCell``, unrolled
per layer and direction with the same parameters (MXNet's CPU kernel
refuses LSTMP training; the unrolled cells matched its fused forward to
1e-7).  Every parameter, input and state is ``fill(shape, seed)``, the
seed of a parameter being its index in ``collect_params()``.
"""

import json

import numpy as np
import pytest

import tests.ops.cases  # noqa: F401 (loads cases_rnn; no import cycle)
from dlbook import autograd, nd, sym
from dlbook.base import DLBookError
from dlbook.gluon import rnn
from dlbook.name import NameManager
from tests.ops.cases_rnn import reference
from tests.symbol.test_hybridize import Case, _assert_same

T, N, C, H, P, L = 3, 2, 3, 3, 2, 2


def fill(shape, seed):
    n = int(np.prod(shape))
    values = 0.5 * np.sin(np.arange(n) * 0.7 + seed)
    return values.reshape(shape).astype('float32')


def values(text, shape=None):
    array = np.array(text.split(), dtype='float64')
    return array if shape is None else array.reshape(shape)


def make_layer(ctx=None, **kwargs):
    """MXNet's recorded layer, parameters filled in."""
    layer = rnn.LSTM(
        H,
        num_layers=L,
        bidirectional=True,
        projection_size=P,
        input_size=C,
        prefix='lstm0_',
        **kwargs,
    )
    layer.initialize(ctx=ctx)
    for i, param in enumerate(layer.collect_params().values()):
        param.set_data(nd.array(fill(param.shape, i), ctx=ctx))
    return layer


def inputs(ctx=None):
    return (
        nd.array(fill((T, N, C), 100), ctx=ctx),
        nd.array(fill((L * 2, N, P), 200), ctx=ctx),
        nd.array(fill((L * 2, N, H), 300), ctx=ctx),
    )


def close(got, want, atol=2e-6):
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=atol)


# -- recorded with MXNet 1.9.1 ---------------------------------------------

NAMES = [
    f'lstm0_{d}{layer}_{name}'
    for layer in range(L)
    for d in 'lr'
    for name in (
        'i2h_weight',
        'h2h_weight',
        'i2h_bias',
        'h2h_bias',
        'h2r_weight',
    )
]
SHAPES = {
    'i2h_weight': [(4 * H, C), (4 * H, 2 * P)],  # layer 0, layer 1
    'h2h_weight': [(4 * H, P)] * 2,
    'i2h_bias': [(4 * H,)] * 2,
    'h2h_bias': [(4 * H,)] * 2,
    'h2r_weight': [(P, H)] * 2,
}
# the keys of save_parameters (MXNet's structural names)
SAVED = sorted(
    f'_unfused.{layer}.{d}_cell.{name}'
    for layer in range(L)
    for d in 'lr'
    for name in SHAPES
)

OUT = values(
    '''
    -0.1375083 0.0834449 -0.2013431 0.0508023 -0.2201062 0.3289582
    -0.1172885 0.0645254 -0.2992387 0.3136527 -0.1650643 0.0237918
    -0.3335665 0.4290975 -0.046159 0.0458361 -0.3864277 0.4314876 -0.1018594
    -0.0057915 -0.3951938 0.4816301 0.0507665 0.0220342
    ''',
    (3, 2, 4),
)

HN = values(
    '''
    -0.2363153 0.0835275 -0.203158 0.1623874 -0.1052755 0.2394042 -0.141847
    0.1810196 -0.3864277 0.4314876 -0.3951938 0.4816301 -0.2013431 0.0508023
    -0.1172885 0.0645254
    ''',
    (4, 2, 2),
)

CN = values(
    '''
    0.2980571 0.5583886 0.2947667 0.0755415 0.4171525 0.6152023 -0.5834929
    -0.2069123 0.2080281 -0.7210372 0.040277 0.241962 -0.7004794 -0.7566468
    -0.6250151 -0.6179082 -0.8048332 -0.839062 -0.0053662 -0.4229372
    -0.6421577 0.2105278 -0.1465063 -0.4410228
    ''',
    (4, 2, 3),
)

DX = values(
    '''
    0.0613576 0.0574495 0.026522 -0.1873074 -0.0951228 0.0417995 -0.020173
    0.0150285 0.0431618 -0.1017325 -0.0911396 -0.0376823 0.0296164 0.1099037
    0.1385016 -0.0661408 -0.113064 -0.1068114
    ''',
    (3, 2, 3),
)

DH0 = values(
    '''
    0.0089501 0.0111002 0.0009084 0.0055205 0.0185122 -0.0070941 -0.0005456
    0.0297063 -0.0770192 -0.1132678 0.0606546 0.063314 -0.1103181 -0.0846053
    0.0430595 0.0095645
    ''',
    (4, 2, 2),
)

DC0 = values(
    '''
    -0.0067851 -0.0127705 -0.0345109 -0.0065123 -0.0014756 0.0167072
    0.034857 0.0141305 0.003549 -0.0281887 -0.0311243 -0.0239492 -0.1706172
    0.0420231 0.1407402 0.1371806 0.032703 -0.0188075 -0.0700077 -0.2347555
    -0.2415377 -0.049734 0.0898636 0.1384169
    ''',
    (4, 2, 3),
)

OUT2 = values(
    '''
    0.0022918 -0.0017357 0.0091033 0.0310057 -0.0026032 0.0117276 0.0303609
    0.0177843
    ''',
    (2, 4, 1),
)

DPARAMS = {
    'l0_i2h_weight': values(
        '''
        0.0051072 -0.0008204 -0.006362 -0.0169622 -0.0054753 0.0085867
        -0.0211302 -0.016109 -0.0035115 0.0078387 0.0123215 0.0110093
        -0.008552 -0.0019469 0.0055738 -0.0325564 -0.0235694 -0.0034973
        0.0723856 0.0873991 0.0613075 -0.0110392 0.0052156 0.0190174
        -0.0499454 -0.0377736 -0.0078363 0.003439 0.001074 -0.0017961
        -0.0038274 -0.0071909 -0.0071725 -0.0060647 -0.0066172 -0.0040575
        '''
    ),
    'l0_h2h_weight': values(
        '''
        0.000427 0.0006328 0.0216971 -0.0104153 0.0051618 -0.0002856
        0.0073595 -0.0033674 0.0066822 -0.0058719 0.0058238 -0.0063499
        0.0451172 -0.013042 0.0279727 -0.01297 0.0202504 -0.0073288
        -0.0012079 0.0018524 -0.0031674 0.0020519 -0.0014648 0.0000007
        '''
    ),
    'l0_i2h_bias': values(
        '''
        0.0006579 -0.1139052 -0.0387035 -0.033704 -0.0420956 -0.0433479
        -0.1833015 -0.1498688 -0.1010414 0.0098346 0.0162141 0.0045633
        '''
    ),
    'l0_h2h_bias': values(
        '''
        0.0006579 -0.1139052 -0.0387035 -0.033704 -0.0420956 -0.0433479
        -0.1833015 -0.1498688 -0.1010414 0.0098346 0.0162141 0.0045633
        '''
    ),
    'l0_h2r_weight': values(
        '''
        -0.0545768 -0.1269814 -0.1175167 -0.0714959 -0.1373903 -0.0719124
        '''
    ),
    'r0_i2h_weight': values(
        '''
        0.0042586 -0.001413 -0.00642 -0.0043227 -0.0020601 0.0011714
        -0.0230468 -0.0157272 -0.0010108 0.0146809 0.005065 -0.0069331
        0.0119768 0.004132 -0.0056562 -0.0158105 -0.0109713 -0.0009721
        -0.0438391 -0.0159426 0.019452 -0.1922811 -0.1258163 -0.0001782
        -0.171713 -0.1185796 -0.0096764 -0.0005516 0.0068004 0.010954
        -0.0039409 -0.001038 0.002353 -0.0034455 -0.0029704 -0.0010984
        '''
    ),
    'r0_h2h_weight': values(
        '''
        -0.004437 -0.0122413 0.0023258 -0.0104862 0.0048264 -0.0071185
        0.0065323 -0.0058228 -0.003356 0.0035571 0.0032064 -0.0087216
        0.0016698 0.0624032 0.0528687 -0.0569548 0.0379388 -0.0683603
        -0.0065799 0.0075315 -0.001378 0.0004598 0.0028316 -0.0038776
        '''
    ),
    'r0_i2h_bias': values(
        '''
        -0.0499246 -0.0230559 -0.0417952 -0.0273604 0.0293823 -0.0269141
        0.2902094 -0.2367359 -0.2615717 0.0406365 0.0113899 -0.0225964
        '''
    ),
    'r0_h2h_bias': values(
        '''
        -0.0499246 -0.0230559 -0.0417952 -0.0273604 0.0293823 -0.0269141
        0.2902094 -0.2367359 -0.2615717 0.0406365 0.0113899 -0.0225964
        '''
    ),
    'r0_h2r_weight': values(
        '''
        -0.3432176 -0.0374803 0.1219313 -0.42367 -0.0862795 0.1410403
        '''
    ),
    'l1_i2h_weight': values(
        '''
        0.0013052 0.0005115 0.0064433 -0.0040865 0.0223755 -0.0143167
        0.0185257 -0.0298423 0.0307131 -0.0189546 0.0185116 -0.0332676
        -0.0061305 0.0004821 0.0037467 -0.0050697 0.0179565 -0.0127891
        0.015342 -0.0232569 0.0207206 -0.0129739 0.0111665 -0.0167686
        -0.0052527 0.0022456 -0.0158003 0.0169213 -0.0547367 0.0341864
        -0.0438805 0.070412 -0.0985535 0.0610529 -0.0618476 0.1134614
        -0.0012303 0.004434 -0.0077139 0.0105075 0.0043615 -0.0018284
        -0.0027176 0.0024157 0.0018161 -0.0044688 -0.0001362 0.0000071
        '''
    ),
    'l1_h2h_weight': values(
        '''
        -0.0172995 -0.0388784 0.0337742 -0.03138 0.0490917 -0.030222
        0.0015116 0.0064777 0.0238013 -0.0392964 0.0194995 -0.0579547
        0.0104707 0.0496994 -0.0760192 0.0856633 -0.1725376 0.06337
        -0.0083908 0.0035577 0.0062739 0.0003416 0.0074735 -0.0064669
        '''
    ),
    'l1_i2h_bias': values(
        '''
        0.0308597 -0.1117668 -0.1626208 0.0184433 -0.0829116 -0.0803583
        -0.0151489 0.2635408 0.5496237 0.0165758 -0.0238992 -0.0180533
        '''
    ),
    'l1_h2h_bias': values(
        '''
        0.0308597 -0.1117668 -0.1626208 0.0184433 -0.0829116 -0.0803583
        -0.0151489 0.2635408 0.5496237 0.0165758 -0.0238992 -0.0180533
        '''
    ),
    'l1_h2r_weight': values(
        '''
        0.221796 0.2252394 0.1263815 0.3886174 0.3636743 0.1537319
        '''
    ),
    'r1_i2h_weight': values(
        '''
        0.007689 -0.0028937 0.0042301 -0.0067055 -0.0077661 0.0060111
        -0.0073298 0.0138254 -0.0082636 0.0101124 -0.0065694 0.0182601
        0.0043857 -0.0011075 0.0033355 -0.0047931 -0.0168089 0.0094362
        -0.0092154 0.0180805 -0.0152499 0.0109842 -0.013031 0.0255604
        0.044914 -0.0168772 0.0234891 -0.0375386 0.046546 -0.0262445
        0.0229895 -0.0488287 0.0291124 -0.0213825 0.005588 -0.0277788
        -0.0123083 0.0054709 -0.0056817 0.0096694 -0.0083574 0.0065155
        -0.0055665 0.0112446 -0.0024999 0.004443 -0.0037904 0.009771
        '''
    ),
    'r1_h2h_weight': values(
        '''
        -0.0008162 -0.0017377 -0.0134099 0.0014489 -0.0138789 0.0196644
        0.0023524 0.0032613 0.0088644 0.0140334 -0.0014449 0.0045881
        -0.0114113 -0.0150664 0.00474 -0.0541471 -0.0101254 -0.0866367
        0.0092103 0.008574 0.0043972 0.0072024 -0.0048715 0.0038955
        '''
    ),
    'r1_i2h_bias': values(
        '''
        -0.0323697 0.0651734 0.1109911 -0.016024 0.0959992 0.110252
        -0.1882812 -0.3022572 -0.2580407 0.0540401 0.0566702 0.0447846
        '''
    ),
    'r1_h2h_bias': values(
        '''
        -0.0323697 0.0651734 0.1109911 -0.016024 0.0959992 0.110252
        -0.1882812 -0.3022572 -0.2580407 0.0540401 0.0566702 0.0447846
        '''
    ),
    'r1_h2r_weight': values(
        '''
        0.1710782 0.2207799 0.1764897 0.1538552 0.0973761 -0.0083444
        '''
    ),
}


# -- the tests ---------------------------------------------------------------


def test_names_shapes_and_repr():
    layer = make_layer()
    params = layer.collect_params()
    assert list(params) == NAMES
    for name, param in params.items():
        kind, layer_index = name[9:], int(name[7])
        assert param.shape == SHAPES[kind][layer_index], name
    assert repr(layer) == 'LSTM(3 -> 3, TNC, num_layers=2, bidirectional)'
    assert layer.state_info(5)[0]['shape'] == (4, 5, P)
    assert layer.state_info(5)[1]['shape'] == (4, 5, H)
    assert [s.shape for s in layer.begin_state(5)] == [(4, 5, P), (4, 5, H)]
    single = rnn.LSTM(2, projection_size=1, layout='NTC', prefix='lstm1_')
    assert repr(single) == 'LSTM(None -> 2, NTC)'
    assert list(single.collect_params()) == [
        'lstm1_l0_i2h_weight',
        'lstm1_l0_h2h_weight',
        'lstm1_l0_i2h_bias',
        'lstm1_l0_h2h_bias',
        'lstm1_l0_h2r_weight',
    ]
    # as MXNet, projection_size=0 means no projection
    plain = rnn.LSTM(2, projection_size=0)
    assert not any('h2r' in n for n in plain.collect_params())


@pytest.mark.parametrize('hybridize', [False, True])
def test_forward_matches_mxnet(ctx, hybridize):
    layer = make_layer(ctx)
    layer.hybridize(active=hybridize)
    x, h0, c0 = inputs(ctx)
    out, (hn, cn) = layer(x, [h0, c0])
    assert out.shape == (T, N, 2 * P)
    close(out, OUT)
    close(hn, HN)
    close(cn, CN)
    # the top layer's last states are the ends of its output sequence
    close(hn[2], OUT[-1, :, :P])
    close(hn[3], OUT[0, :, P:])


@pytest.mark.parametrize('hybridize', [False, True])
def test_gradients_match_mxnet(ctx, hybridize):
    layer = make_layer(ctx)
    layer.hybridize(active=hybridize)
    x, h0, c0 = inputs(ctx)
    for array in (x, h0, c0):
        array.attach_grad()
    weights = [
        nd.array(fill(shape, seed), ctx=ctx)
        for shape, seed in [
            ((T, N, 2 * P), 400),
            ((L * 2, N, P), 500),
            ((L * 2, N, H), 600),
        ]
    ]
    with autograd.record():
        out, states = layer(x, [h0, c0])
        loss = sum((y * w).sum() for y, w in zip([out] + states, weights))
    loss.backward()
    close(x.grad, DX)
    close(h0.grad, DH0)
    close(c0.grad, DC0)
    for name, param in layer.collect_params().items():
        want = DPARAMS[name[len('lstm0_') :]].reshape(param.shape)
        close(param.grad(), want)


def test_default_states_and_ntc_match_mxnet(ctx):
    layer = rnn.LSTM(2, projection_size=1, layout='NTC', prefix='lstm1_')
    layer.initialize(ctx=ctx)
    x = nd.array(fill((2, 4, 3), 700), ctx=ctx)
    layer(x)  # the input size is inferred: (8, 3)
    assert layer.l0_i2h_weight.shape == (8, 3)
    for i, param in enumerate(layer.collect_params().values()):
        param.set_data(nd.array(fill(param.shape, 10 + i), ctx=ctx))
    for hybridize in (False, True):
        layer.hybridize(active=hybridize)
        close(layer(x), OUT2)


PARITY = [
    (
        'LSTMP',
        lambda: rnn.LSTM(4, projection_size=2, input_size=3),
        [(5, 2, 3)],
        {'states': [(1, 2, 2), (1, 2, 4)]},
    ),
    (
        'LSTMP-2-bi-NTC',
        lambda: rnn.LSTM(
            3,
            num_layers=2,
            bidirectional=True,
            projection_size=2,
            layout='NTC',
            input_size=3,
        ),
        [(2, 4, 3)],
        {'states': [(4, 2, 2), (4, 2, 3)]},
    ),
]


@pytest.mark.parametrize(
    'factory,shapes,options',
    [row[1:] for row in PARITY],
    ids=[row[0] for row in PARITY],
)
def test_eager_hybridized_and_symbolic_agree(factory, shapes, options):
    """Outputs, final states and all gradients; hybridized, the layer is
    one ``RNN`` node with ``projection_size``."""
    with NameManager():
        case = Case(factory, shapes, options)
    for record in (False, True):
        eager = case.run_gluon(hybridize=False, record=record)
        hybrid = case.run_gluon(hybridize=True, record=record)
        symbolic = case.run_symbol(record=record)
        _assert_same(hybrid, eager, f'hybridized, record={record}')
        _assert_same(symbolic, eager, f'executor, record={record}')
    nodes = json.loads(case.layer._cached_graph.symbol.tojson())['nodes']
    rnn_nodes = [n for n in nodes if n['op'] == 'RNN']
    assert len(rnn_nodes) == 1
    assert rnn_nodes[0]['attrs']['projection_size'] == '2'


def test_symbolic_layer_infers_shapes():
    layer = make_layer()
    out, states = layer(sym.var('data'), [sym.var('h0'), sym.var('c0')])
    group = sym.Group([out] + states)
    _, shapes, _ = group.infer_shape(
        data=(T, N, C), h0=(L * 2, N, P), c0=(L * 2, N, H)
    )
    assert shapes == [(T, N, 2 * P), (L * 2, N, P), (L * 2, N, H)]


def test_save_and_load_parameters(tmp_path):
    layer = make_layer()
    path = str(tmp_path / 'lstmp.params')
    layer.save_parameters(path)
    assert sorted(nd.load(path)) == SAVED
    fresh = rnn.LSTM(
        H, num_layers=L, bidirectional=True, projection_size=P, input_size=C
    )
    fresh.load_parameters(path)
    x, h0, c0 = inputs()
    out, (hn, cn) = fresh(x, [h0, c0])
    close(out, OUT)
    close(hn, HN)
    close(cn, CN)


def test_unfused_cells_match_the_fused_layer(ctx):
    """dlbook's ``_unfuse`` builds gluon.contrib's LSTMPCell (MXNet's
    asserts that it does not support projection)."""
    layer = make_layer(ctx)
    x, h0, c0 = inputs(ctx)
    stack = layer._unfuse()
    begin = [s for k in range(L * 2) for s in (h0[k], c0[k])]
    out, states = stack.unroll(
        T, x, begin_state=begin, layout='TNC', merge_outputs=True
    )
    close(out, OUT)
    close(nd.stack(*states[0::2]), HN)
    close(nd.stack(*states[1::2]), CN)


def test_operator_packing_and_reference():
    """The flat vector: per layer and direction W_x, W_h (4H, P), W_r
    (P, H), then all biases; the NumPy loop of tests/ops agrees."""
    layer = make_layer()
    params = {k[6:]: v.data() for k, v in layer.collect_params().items()}
    flat = nd.concat(
        *[
            params[f'{d}{layer}_{name}'].reshape((-1,))
            for kind in ('weight', 'bias')
            for layer in range(L)
            for d in 'lr'
            for name in (f'i2h_{kind}', f'h2h_{kind}', 'h2r_weight')
            if kind == 'weight' or name != 'h2r_weight'
        ],
        dim=0,
    )
    assert flat.shape == (384,)
    x, h0, c0 = inputs()
    out, hn, cn = nd.RNN(
        x,
        flat,
        h0,
        c0,
        state_size=H,
        num_layers=L,
        bidirectional=True,
        mode='lstm',
        projection_size=P,
        state_outputs=True,
    )
    close(out, OUT)
    close(hn, HN)
    close(cn, CN)
    ref = reference('lstm', L, H, True, True, proj=P)
    want = ref(*(a.asnumpy() for a in (x, flat, h0, c0)))
    for got, expected in zip((out, hn, cn), want):
        close(got, expected)


def test_state_clipping_in_the_layer(ctx):
    """``state_clip_min/max`` reach the operator (MXNet runs them only
    with cuDNN); the cell state stays inside the range."""
    layer = make_layer(ctx, state_clip_min=-0.2, state_clip_max=0.2)
    x, h0, c0 = inputs(ctx)
    for hybridize in (False, True):
        layer.hybridize(active=hybridize)
        out, (hn, cn) = layer(x, [h0, c0])
        assert np.abs(cn.asnumpy()).max() <= 0.2 + 1e-7
        assert not np.allclose(out.asnumpy(), OUT, atol=1e-3)
        ref = reference('lstm', L, H, True, True, clip=(-0.2, 0.2), proj=P)
        flat = _flat_params(layer)
        want = ref(*(a.asnumpy() for a in (x, flat, h0, c0)))
        for got, expected in zip((out, hn, cn), want):
            close(got, expected)


def _flat_params(layer):
    prefix = layer.prefix
    params = {
        k[len(prefix) :]: v.data().asnumpy()
        for k, v in layer.collect_params().items()
    }
    return nd.array(
        np.concatenate(
            [
                params[f'{d}{i}_{name}'].ravel()
                for kind in ('weight', 'bias')
                for i in range(L)
                for d in 'lr'
                for name in (f'i2h_{kind}', f'h2h_{kind}', 'h2r_weight')
                if kind == 'weight' or name != 'h2r_weight'
            ]
        )
    )


def test_errors():
    data = nd.zeros((2, 1, 3))
    # MXNet's checks (cuDNN): LSTM only, P <= H
    with pytest.raises(DLBookError, match='only supported for LSTM'):
        nd.RNN(
            data,
            nd.zeros((100,)),
            nd.zeros((1, 1, 2)),
            state_size=3,
            num_layers=1,
            mode='gru',
            projection_size=2,
        )
    with pytest.raises(DLBookError, match='larger than projection size'):
        nd.RNN(
            data,
            nd.zeros((100,)),
            nd.zeros((1, 1, 4)),
            nd.zeros((1, 1, 3)),
            state_size=3,
            num_layers=1,
            mode='lstm',
            projection_size=4,
        )
    # the begin state h has P features, not H
    layer = make_layer()
    x, _, c0 = inputs()
    with pytest.raises(ValueError, match='Invalid recurrent state shape'):
        layer(x, [nd.zeros((L * 2, N, H)), c0])
