"""The update operators as graph nodes (``dlbook/ops/update_ops.py``).

Expected values were recorded with MXNet 1.9.1 by loading a graph of one
update node from JSON and running ``forward`` twice (the weight argument
stays as bound; the aux states carry over): MXNet's Python
``sym.sgd_update(...)`` itself fails to compose ("Not enough argument").
"""

import json

import numpy as np
import pytest

import dlbook as mx

W = np.array([1.0, -2.0, 3.0], 'float32')
G = np.array([0.5, 0.25, -1.0], 'float32')

MXNET_JSON = json.dumps(
    {
        'nodes': [
            {'op': 'null', 'name': 'w', 'inputs': []},
            {'op': 'null', 'name': 'g', 'inputs': []},
            {'op': 'null', 'name': 'mom', 'inputs': []},
            {
                'op': 'sgd_mom_update',
                'name': 'up',
                'attrs': {'lr': '0.1', 'momentum': '0.9', 'wd': '0.01'},
                'inputs': [[0, 0, 0], [1, 0, 0], [2, 0, 0]],
            },
        ],
        'arg_nodes': [0, 1, 2],
        'node_row_ptr': [0, 1, 2, 3, 4],
        'heads': [[3, 0, 0]],
        'attrs': {'mxnet_version': ['int', 10901]},
    }
)

# op, state names, attrs, [output of forward 1, of forward 2], final states
CASES = [
    (
        'sgd_mom_update',
        ['mom'],
        {'lr': 0.1, 'momentum': 0.9, 'wd': 0.01},
        [[0.949, -2.023, 3.097], [0.9031, -2.0437, 3.1843]],
        {'mom': [-0.0969, -0.0437, 0.1843]},
    ),
    (
        'sgd_update',
        [],
        {'lr': 0.1, 'wd': 0.01, 'clip_gradient': 0.3},
        [[0.969, -2.023, 3.027], [0.969, -2.023, 3.027]],
        {},
    ),
    (
        'adam_update',
        ['mean', 'var'],
        {'lr': 0.1, 'wd': 0.01},
        [
            [0.68377030, -2.31622934, 3.31622982],
            [0.57503819, -2.42496157, 3.42496181],
        ],
        {
            'mean': [0.0969, 0.0437, -0.1843],
            'var': [0.00051993318, 0.00010574574, 0.0018808350],
        },
    ),
    (
        'ftrl_update',
        ['z', 'n'],
        {'lr': 0.1},
        [
            [0.29933330, -0.41919997, 1.54949999],
            [0.35504913, -0.55860877, 1.83978784],
        ],
        {'z': [-6.0710678, 7.5710678, -44.426407], 'n': [0.5, 0.125, 2.0]},
    ),
    (
        'rmsprop_update',
        ['n'],
        {'lr': 0.1},
        [
            [0.55278659, -2.44721293, 3.44721341],
            [0.67974377, -2.32025599, 3.32025623],
        ],
        {'n': [0.024375007, 0.0060937516, 0.097500026]},
    ),
    (
        'signum_update',
        ['mom'],
        {'lr': 0.1, 'momentum': 0.9},
        [[0.9, -2.1, 3.1], [0.9, -2.1, 3.1]],
        {'mom': [-0.095, -0.0475, 0.19]},
    ),
    (
        'lamb_update_phase1',
        ['mean', 'var'],
        {'t': 1, 'wd': 0.01},
        [
            [1.00999796, 0.97999597, -0.96999907],
            [1.35383689, 1.32383502, -1.31383801],
        ],
        {
            'mean': [0.095, 0.0475, -0.19],
            'var': [0.00049974356, 0.00012493589, 0.0019989742],
        },
    ),
]


def _bind(op, states, attrs, extra=None):
    w, g = mx.sym.var('w'), mx.sym.var('g')
    named = {s: mx.sym.var(s) for s in states}
    sym = getattr(mx.sym, op)(weight=w, grad=g, **named, **attrs)
    aux = {s: mx.nd.zeros(3) for s in states}
    aux.update(extra or {})
    args = {'w': mx.nd.array(W), 'g': mx.nd.array(G)}
    return sym, sym.bind(mx.cpu(), args, aux_states=aux)


@pytest.mark.parametrize('op,states,attrs,outs,final', CASES)
def test_update_node_matches_mxnet(op, states, attrs, outs, final):
    sym, ex = _bind(op, states, attrs)
    assert sym.list_arguments() == ['w', 'g']
    assert sym.list_auxiliary_states() == states
    assert len(sym.list_outputs()) == 1
    for want in outs:
        got = ex.forward()[0].asnumpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    for name, want in final.items():
        np.testing.assert_allclose(
            ex.aux_dict[name].asnumpy(), want, rtol=1e-5, atol=1e-7
        )
    np.testing.assert_array_equal(ex.arg_dict['w'].asnumpy(), W)


def test_mixed_precision_updates_weight32():
    sym, ex = _bind(
        'mp_sgd_mom_update',
        ['mom', 'weight32'],
        {'lr': 0.1, 'momentum': 0.9},
        {'weight32': mx.nd.array(W + 0.5)},
    )
    assert sym.list_auxiliary_states() == ['mom', 'weight32']
    ex.forward()
    out = ex.forward()[0].asnumpy()
    np.testing.assert_allclose(out, [1.355, -1.5725, 3.79], rtol=1e-6)
    np.testing.assert_allclose(
        ex.aux_dict['weight32'].asnumpy(), [1.355, -1.5725, 3.79], rtol=1e-6
    )


def test_mxnet_json_loads_and_runs():
    sym = mx.sym.load_json(MXNET_JSON)
    assert sym.list_arguments() == ['w', 'g']
    assert sym.list_auxiliary_states() == ['mom']
    ex = sym.bind(
        mx.cpu(),
        {'w': mx.nd.array(W), 'g': mx.nd.array(G)},
        aux_states={'mom': mx.nd.zeros(3)},
    )
    ex.forward()
    out = ex.forward()[0].asnumpy()
    np.testing.assert_allclose(out, [0.9031, -2.0437, 3.1843], rtol=1e-5)
    again = mx.sym.load_json(sym.tojson())
    assert again.list_auxiliary_states() == ['mom']


def test_required_lr():
    sym, ex = _bind('sgd_update', [], {})
    with pytest.raises(mx.base.DLBookError, match='lr'):
        ex.forward()


def test_norm_helpers():
    a, b = mx.sym.var('a'), mx.sym.var('b')
    s = mx.sym.multi_sum_sq(a, b, num_arrays=2)
    assert s.list_arguments() == ['a', 'b']
    out = s.eval(a=mx.nd.array(W), b=mx.nd.array(G))[0]
    np.testing.assert_allclose(out.asnumpy(), [14.0, 1.3125])
    d = mx.sym.var('d')
    fin = mx.sym.all_finite(d)
    assert fin.eval(d=mx.nd.array([1, np.nan]))[0].asnumpy().tolist() == [0.0]
    assert fin.eval(d=mx.nd.array([1, 2]))[0].asnumpy().tolist() == [1.0]
    multi = mx.sym.multi_all_finite(a, b, num_arrays=2)
    got = multi.eval(a=mx.nd.array([1.0]), b=mx.nd.array([np.inf]))[0]
    assert got.asnumpy().tolist() == [0.0]
    names = ['lrs', 'weights_sum_sq', 'grads_sum_sq', 'wds']
    lars = mx.sym.multi_lars(
        *[mx.sym.var(n) for n in names], eta=0.5, eps=1e-8
    )
    values = [[0.1, 0.2], [4.0, 0.0], [1.0, 1.0], [0.1, 0.1]]
    got = lars.eval(**{n: mx.nd.array(v) for n, v in zip(names, values)})[0]
    np.testing.assert_allclose(got.asnumpy(), [0.08333333, 0.2], rtol=1e-6)
    names = ['weight', 'g', 'r1', 'r2']
    p2 = mx.sym.lamb_update_phase2(*[mx.sym.var(n) for n in names], lr=0.1)
    values = [W, G, [2.0], [4.0]]
    got = p2.eval(**{n: mx.nd.array(v) for n, v in zip(names, values)})[0]
    np.testing.assert_allclose(
        got.asnumpy(), [0.975, -2.0125, 3.05], rtol=1e-6
    )


def test_pow_and_choose_element():
    x = mx.sym.var('x')
    assert json.loads(mx.sym.pow(x, 2).tojson())['nodes'][1]['op'] == (
        '_power_scalar'
    )
    got = mx.sym.pow(x, x).eval(x=mx.nd.array([2.0, 3.0]))[0]
    np.testing.assert_allclose(got.asnumpy(), [4.0, 27.0])
    i = mx.sym.var('i')
    c = mx.sym.choose_element_0index(x, i)
    assert json.loads(c.tojson())['nodes'][2]['op'] == 'pick'
    got = c.eval(x=mx.nd.array([[1, 2], [3, 4]]), i=mx.nd.array([1, 0]))[0]
    assert got.asnumpy().tolist() == [2.0, 3.0]


def test_nd_functions_unchanged():
    # nd keeps its Python update functions (out=, lazy updates)
    w = mx.nd.array(W)
    mx.nd.sgd_update(w, mx.nd.array(G), lr=0.1, out=w)
    np.testing.assert_allclose(w.asnumpy(), W - 0.1 * G, rtol=1e-6)
