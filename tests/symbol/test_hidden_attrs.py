"""lr_mult / wd_mult / ctx_group as symbol attributes, as MXNet 1.9.1
stores, serializes and uses them (expected values printed by MXNet 1.9.1
for the same graph)."""

import contextlib
import io
import json

import numpy as np

import dlbook as mx
from dlbook.io import DataBatch


def graph():
    data = mx.sym.var('data')
    w = mx.sym.var('fc1_weight', lr_mult=2.0, wd_mult=0.5)
    fc1 = mx.sym.FullyConnected(data, weight=w, num_hidden=3, name='fc1')
    fc2 = mx.sym.FullyConnected(
        fc1, num_hidden=2, name='fc2', lr_mult=0.1, attr={'__wd_mult__': '0'}
    )
    return mx.sym.SoftmaxOutput(fc2, name='softmax')


def test_op_call_attributes_reach_node_and_its_variables():
    out = graph()
    # MXNet 1.9.1
    assert out.attr_dict() == {
        'fc1_weight': {
            '__wd_mult__': '0.5',
            'wd_mult': '0.5',
            '__lr_mult__': '2.0',
            'lr_mult': '2.0',
        },
        'fc1_bias': {'num_hidden': '3'},
        'fc1': {'num_hidden': '3'},
        'fc2_weight': {
            'num_hidden': '2',
            '__wd_mult__': '0',
            'wd_mult': '0',
            '__lr_mult__': '0.1',
            'lr_mult': '0.1',
        },
        'fc2_bias': {
            'num_hidden': '2',
            '__wd_mult__': '0',
            'wd_mult': '0',
            '__lr_mult__': '0.1',
            'lr_mult': '0.1',
        },
        'fc2': {
            'num_hidden': '2',
            '__wd_mult__': '0',
            'wd_mult': '0',
            '__lr_mult__': '0.1',
            'lr_mult': '0.1',
        },
    }
    nodes = json.loads(out.tojson())['nodes']
    assert nodes[4] == {
        'attrs': {'__lr_mult__': '0.1', '__wd_mult__': '0', 'num_hidden': '2'},
        'inputs': [],
        'name': 'fc2_weight',
        'op': 'null',
    }
    assert nodes[1]['attrs'] == {'__lr_mult__': '2.0', '__wd_mult__': '0.5'}
    fc2 = out.get_internals()['fc2_output']
    assert fc2.attr('lr_mult') == fc2.attr('__lr_mult__') == '0.1'
    assert mx.sym.load_json(out.tojson()).attr_dict() == out.attr_dict()


def test_ctx_group_is_stored_as_a_hidden_key():
    with mx.AttrScope(ctx_group='dev1'):
        v = mx.sym.var('v', attr={'mood': 'x'})
        f = mx.sym.FullyConnected(v, num_hidden=2, name='f')
    nodes = json.loads(f.tojson())['nodes']
    # MXNet 1.9.1
    assert nodes[0]['attrs'] == {'__ctx_group__': 'dev1', 'mood': 'x'}
    assert nodes[1]['attrs'] == {'__ctx_group__': 'dev1', 'num_hidden': '2'}
    assert f.attr('ctx_group') == 'dev1'
    assert v.list_attr() == {
        'mood': 'x',
        '__ctx_group__': 'dev1',
        'ctx_group': 'dev1',
    }
    exe = f.simple_bind(mx.cpu(), group2ctx={'dev1': mx.cpu(1)}, v=(1, 3))
    assert exe.arg_dict['f_weight'].context == mx.cpu(1)


def test_module_optimizer_uses_the_multipliers():
    mod = mx.mod.Module(graph(), context=mx.cpu())
    mod.bind(
        data_shapes=[('data', (4, 5))], label_shapes=[('softmax_label', (4,))]
    )
    mod.init_params(mx.init.Constant(0.1))
    mod.init_optimizer(
        optimizer='sgd', optimizer_params={'learning_rate': 1.0, 'wd': 0.1}
    )
    opt = mod._optimizer
    # MXNet 1.9.1
    assert sorted(opt.lr_mult.items()) == [
        ('fc1_weight', 2.0),
        ('fc2_bias', 0.1),
        ('fc2_weight', 0.1),
    ]
    assert sorted(opt.wd_mult.items()) == [
        ('fc1_bias', 0.0),
        ('fc1_weight', 0.5),
        ('fc2_bias', 0.0),
        ('fc2_weight', 0.0),
    ]
    rng = np.random.RandomState(0)
    batch = DataBatch(
        [mx.nd.array(rng.uniform(size=(4, 5)))], [mx.nd.array([0, 1, 0, 1])]
    )
    mod.forward(batch, is_train=True)
    mod.backward()
    mod.update()
    args, _ = mod.get_params()
    # MXNet 1.9.1: fc1_weight 0.09, fc2_weight 0.099763, biases 0
    np.testing.assert_allclose(
        args['fc1_weight'].asnumpy().ravel()[:3], [0.09] * 3, rtol=1e-5
    )
    np.testing.assert_allclose(
        args['fc2_weight'].asnumpy().ravel()[:3], [0.099763] * 3, rtol=1e-5
    )
    assert args['fc2_bias'].asnumpy().tolist() == [0.0, 0.0]


def test_print_summary_of_a_graph_with_multipliers():
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        mx.viz.print_summary(graph(), shape={'data': (4, 5)})
    lines = [line.rstrip() for line in buffer.getvalue().splitlines()]
    # MXNet 1.9.1's rows
    assert (
        'fc1(FullyConnected)                                 3'
        '                       18          data' in lines
    )
    assert 'Total params: 26' in lines
