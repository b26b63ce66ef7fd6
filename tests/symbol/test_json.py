"""Symbol graphs in MXNet 1.x's JSON format and ``.params`` files.

Besides round trips, graphs are written here by hand exactly as MXNet 1.9
writes them (string attributes, ``[node, output, version]`` inputs,
Gluon's ``__shape__``/``__dtype__`` variable attributes), and a ``.params``
file is assembled byte by byte with ``struct``; both must load and give
the numbers a NumPy computation gives.
"""

import json
import os
import struct

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import dlbook as mx
from dlbook import gluon, nd, sym


@pytest.fixture(autouse=True)
def fresh_names():
    with mx.name.NameManager():
        yield


def lenet_symbol():
    data = sym.var('data')
    net = sym.Convolution(data, kernel=(5, 5), num_filter=6, name='conv1')
    net = sym.BatchNorm(net, fix_gamma=False, name='bn1')
    net = sym.Activation(net, act_type='relu')
    net = sym.Pooling(net, kernel=(2, 2), stride=(2, 2), pool_type='max')
    net = sym.Flatten(net)
    net = sym.FullyConnected(net, num_hidden=10, name='fc')
    return sym.SoftmaxOutput(net, name='softmax')


# -- writing -----------------------------------------------------------------


def test_json_has_mxnet_keys_and_string_attributes():
    graph = json.loads(lenet_symbol().tojson())
    assert list(graph) == [
        'nodes',
        'arg_nodes',
        'node_row_ptr',
        'heads',
        'attrs',
    ]
    assert graph['attrs'] == {'mxnet_version': ['int', 10901]}
    nodes = graph['nodes']
    assert nodes[0] == {'op': 'null', 'name': 'data', 'inputs': []}
    conv = next(n for n in nodes if n['name'] == 'conv1')
    assert conv == {
        'op': 'Convolution',
        'name': 'conv1',
        'attrs': {'kernel': '(5, 5)', 'num_filter': '6'},
        'inputs': [[0, 0, 0], [1, 0, 0], [2, 0, 0]],
    }
    bn = next(n for n in nodes if n['op'] == 'BatchNorm')
    assert bn['attrs'] == {'fix_gamma': 'False'}
    # auxiliary states are inputs the operator mutates: version 1
    assert [e[2] for e in bn['inputs']] == [0, 0, 0, 1, 1]
    names = [n['name'] for n in nodes]
    assert graph['arg_nodes'] == [
        i for i, n in enumerate(nodes) if n['op'] == 'null'
    ]
    assert graph['node_row_ptr'] == list(range(len(nodes) + 1))
    assert graph['heads'] == [[names.index('softmax'), 0, 0]]


def test_json_layout_is_mxnet_writers():
    text = sym.FullyConnected(
        sym.var('data'), num_hidden=4, flatten=False, name='fc'
    ).tojson()
    assert text.startswith(
        '{\n  "nodes": [\n    {\n      "op": "null", \n'
        '      "name": "data", \n'
        '      "inputs": []\n    }, \n'
    )
    assert (
        '      "attrs": {\n        "flatten": "False", \n'
        '        "num_hidden": "4"\n      }, \n'
        '      "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]\n'
    ) in text
    assert text.endswith(
        '  "arg_nodes": [0, 1, 2], \n'
        '  "node_row_ptr": [0, 1, 2, 3, 4], \n'
        '  "heads": [[3, 0, 0]], \n'
        '  "attrs": {"mxnet_version": ["int", 10901]}\n}'
    )


def test_attribute_values_are_written_as_mxnet_strings():
    x = sym.var('x')
    cast = sym.Cast(x, dtype=np.float64, name='c')
    pool = sym.Pooling(
        x, kernel=[2, 2], pool_type='avg', count_include_pad=None, name='p'
    )
    clip = sym.clip(x, a_min=np.float32(0.5), a_max=2, name='k')
    attrs = json.loads(sym.Group([cast, pool, clip]).tojson())
    by_name = {n['name']: n.get('attrs') for n in attrs['nodes']}
    assert by_name['c'] == {'dtype': 'float64'}
    assert by_name['p'] == {
        'count_include_pad': 'None',
        'kernel': '(2, 2)',
        'pool_type': 'avg',
    }
    assert by_name['k'] == {'a_max': '2', 'a_min': '0.5'}


# -- round trips -------------------------------------------------------------


def test_round_trip_keeps_structure_and_attributes(tmp_path):
    net = lenet_symbol()
    text = net.tojson()
    back = sym.load_json(text)
    assert back.tojson() == text
    for method in (
        'list_arguments',
        'list_outputs',
        'list_auxiliary_states',
        'list_inputs',
        'attr_dict',
    ):
        assert getattr(back, method)() == getattr(net, method)()
    assert back.infer_shape(data=(2, 1, 12, 12)) == net.infer_shape(
        data=(2, 1, 12, 12)
    )
    fname = str(tmp_path / 'lenet-symbol.json')
    net.save(fname)
    with open(fname) as f:
        assert f.read() == text
    assert sym.load(fname).tojson() == text


def test_round_trip_of_groups_and_multi_output_nodes():
    parts = sym.split(sym.var('x'), num_outputs=3, name='s')
    group = sym.Group([parts[2], sym.relu(parts[0], name='r')])
    back = sym.load_json(group.tojson())
    assert back.list_outputs() == ['s_output2', 'r_output']
    x = np.arange(6, dtype='f4').reshape(1, 6) - 2
    got = back.eval(ctx=mx.cpu(), x=nd.array(x))
    np.testing.assert_array_equal(got[0].asnumpy(), x[:, 4:])
    np.testing.assert_array_equal(got[1].asnumpy(), np.maximum(x[:, :2], 0))
    assert json.loads(group.tojson())['node_row_ptr'] == [0, 1, 4, 5]


def test_loaded_dtype_attribute_runs():
    back = sym.load_json(sym.Cast(sym.var('x'), dtype=np.float64).tojson())
    (y,) = back.eval(ctx=mx.cpu(), x=nd.ones((2,)))
    assert y.dtype == np.float64


def test_loading_rejects_bad_graphs():
    with pytest.raises(mx.MXNetError, match='not a symbol JSON'):
        sym.load_json('{"nodes": []}')
    unknown = {
        'nodes': [
            {'op': 'null', 'name': 'x', 'inputs': []},
            {'op': 'NoSuchOp', 'name': 'y', 'inputs': [[0, 0, 0]]},
        ],
        'arg_nodes': [0],
        'heads': [[1, 0, 0]],
    }
    with pytest.raises(mx.MXNetError, match="'NoSuchOp'"):
        sym.load_json(json.dumps(unknown))
    forward_ref = {
        'nodes': [
            {'op': 'relu', 'name': 'y', 'inputs': [[1, 0, 0]]},
            {'op': 'null', 'name': 'x', 'inputs': []},
        ],
        'arg_nodes': [1],
        'heads': [[0, 0, 0]],
    }
    with pytest.raises(mx.MXNetError, match='not defined before'):
        sym.load_json(json.dumps(forward_ref))


def test_old_mxnet_formats_load():
    # MXNet 0.x wrote "param"/"attr" and two-element inputs
    old = {
        'nodes': [
            {
                'op': 'null',
                'param': {},
                'name': 'data',
                'inputs': [],
                'backward_source_id': -1,
            },
            {
                'op': 'null',
                'param': {},
                'name': 'fc_weight',
                'inputs': [],
                'backward_source_id': -1,
            },
            {
                'op': 'FullyConnected',
                'param': {'no_bias': 'True', 'num_hidden': '2'},
                'attr': {'ctx_group': 'dev1'},
                'name': 'fc',
                'inputs': [[0, 0], [1, 0]],
                'backward_source_id': -1,
            },
        ],
        'arg_nodes': [0, 1],
        'heads': [[2, 0]],
    }
    net = sym.load_json(json.dumps(old))
    assert net.list_arguments() == ['data', 'fc_weight']
    assert net.attr('ctx_group') == 'dev1'
    x, w = np.ones((1, 3), 'f4'), np.arange(6, dtype='f4').reshape(2, 3)
    (y,) = net.eval(ctx=mx.cpu(), data=nd.array(x), fc_weight=nd.array(w))
    np.testing.assert_array_equal(y.asnumpy(), x @ w.T)


# -- graphs written by MXNet 1.9 ---------------------------------------------


def _var(name, **attrs):
    node = {'op': 'null', 'name': name, 'inputs': []}
    if attrs:
        node['attrs'] = attrs
    return node


MXNET_MLP = {
    'nodes': [
        _var('data'),
        _var('fc1_weight'),
        _var('fc1_bias'),
        {
            'op': 'FullyConnected',
            'name': 'fc1',
            'attrs': {'num_hidden': '16'},
            'inputs': [[0, 0, 0], [1, 0, 0], [2, 0, 0]],
        },
        {
            'op': 'Activation',
            'name': 'relu1',
            'attrs': {'act_type': 'relu'},
            'inputs': [[3, 0, 0]],
        },
        _var('fc2_weight'),
        _var('fc2_bias'),
        {
            'op': 'FullyConnected',
            'name': 'fc2',
            'attrs': {'num_hidden': '3'},
            'inputs': [[4, 0, 0], [5, 0, 0], [6, 0, 0]],
        },
        _var('softmax_label'),
        {
            'op': 'SoftmaxOutput',
            'name': 'softmax',
            'inputs': [[7, 0, 0], [8, 0, 0]],
        },
    ],
    'arg_nodes': [0, 1, 2, 5, 6, 8],
    'node_row_ptr': [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    'heads': [[9, 0, 0]],
    'attrs': {'mxnet_version': ['int', 10901]},
}


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_mxnet_mlp_json_binds_trains_and_matches_numpy():
    net = sym.load_json(json.dumps(MXNET_MLP, indent=2))
    assert net.list_arguments() == [
        'data',
        'fc1_weight',
        'fc1_bias',
        'fc2_weight',
        'fc2_bias',
        'softmax_label',
    ]
    assert net.list_outputs() == ['softmax_output']
    exe = net.simple_bind(mx.cpu(), data=(4, 5))
    rng = np.random.RandomState(0)
    values = {
        n: rng.uniform(-1, 1, a.shape).astype('f4')
        for n, a in exe.arg_dict.items()
    }
    values['softmax_label'] = np.array([0, 2, 1, 2], 'f4')
    for n, v in values.items():
        exe.arg_dict[n][:] = v
    (out,) = exe.forward(is_train=True)
    h = np.maximum(
        values['data'] @ values['fc1_weight'].T + values['fc1_bias'], 0
    )
    p = softmax(h @ values['fc2_weight'].T + values['fc2_bias'])
    np.testing.assert_allclose(out.asnumpy(), p, rtol=1e-5, atol=1e-6)
    exe.backward()
    dlogits = p - np.eye(3)[values['softmax_label'].astype(int)]
    np.testing.assert_allclose(
        exe.grad_dict['fc2_weight'].asnumpy(),
        dlogits.T @ h,
        rtol=1e-5,
        atol=1e-6,
    )
    np.testing.assert_allclose(
        exe.grad_dict['fc2_bias'].asnumpy(),
        dlogits.sum(axis=0),
        rtol=1e-5,
        atol=1e-6,
    )


def _gluon_var(name, shape, init=None):
    """A parameter variable as Gluon 1.9's export writes it."""
    attrs = {
        '__dtype__': '0',
        '__lr_mult__': '1.0',
        '__shape__': shape,
        '__storage_type__': '0',
        '__wd_mult__': '1.0',
    }
    if init is not None:
        attrs['__init__'] = init
    return _var(name, **attrs)


# HybridSequential(Conv2D(4, 3), BatchNorm, Activation('relu'),
# MaxPool2D(2), Flatten, Dense(5)) exported by MXNet 1.9 with deferred
# shapes (``in_channels``/``in_units`` unknown, hence the 0s).
MXNET_LENET = {
    'nodes': [
        _var('data'),
        _gluon_var('lenet0_conv0_weight', '(4, 0, 3, 3)'),
        _gluon_var('lenet0_conv0_bias', '(4,)', 'zeros'),
        {
            'op': 'Convolution',
            'name': 'lenet0_conv0_fwd',
            'attrs': {
                'dilate': '(1, 1)',
                'kernel': '(3, 3)',
                'layout': 'NCHW',
                'no_bias': 'False',
                'num_filter': '4',
                'num_group': '1',
                'pad': '(1, 1)',
                'stride': '(1, 1)',
            },
            'inputs': [[0, 0, 0], [1, 0, 0], [2, 0, 0]],
        },
        _gluon_var('lenet0_batchnorm0_gamma', '(0,)', 'ones'),
        _gluon_var('lenet0_batchnorm0_beta', '(0,)', 'zeros'),
        _gluon_var('lenet0_batchnorm0_running_mean', '(0,)', 'zeros'),
        _gluon_var('lenet0_batchnorm0_running_var', '(0,)', 'ones'),
        {
            'op': 'BatchNorm',
            'name': 'lenet0_batchnorm0_fwd',
            'attrs': {
                'axis': '1',
                'eps': '1e-05',
                'fix_gamma': 'False',
                'momentum': '0.9',
                'use_global_stats': 'False',
            },
            'inputs': [[3, 0, 0], [4, 0, 0], [5, 0, 0], [6, 0, 1], [7, 0, 1]],
        },
        {
            'op': 'Activation',
            'name': 'lenet0_relu0_fwd',
            'attrs': {'act_type': 'relu'},
            'inputs': [[8, 0, 0]],
        },
        {
            'op': 'Pooling',
            'name': 'lenet0_pool0_fwd',
            'attrs': {
                'global_pool': 'False',
                'kernel': '(2, 2)',
                'layout': 'NCHW',
                'pad': '(0, 0)',
                'pool_type': 'max',
                'pooling_convention': 'valid',
                'stride': '(2, 2)',
            },
            'inputs': [[9, 0, 0]],
        },
        {
            'op': 'Flatten',
            'name': 'lenet0_flatten0_flatten0',
            'inputs': [[10, 0, 0]],
        },
        _gluon_var('lenet0_dense0_weight', '(5, 0)'),
        _gluon_var('lenet0_dense0_bias', '(5,)', 'zeros'),
        {
            'op': 'FullyConnected',
            'name': 'lenet0_dense0_fwd',
            'attrs': {
                'flatten': 'True',
                'no_bias': 'False',
                'num_hidden': '5',
            },
            'inputs': [[11, 0, 0], [12, 0, 0], [13, 0, 0]],
        },
    ],
    'arg_nodes': [0, 1, 2, 4, 5, 6, 7, 12, 13],
    'node_row_ptr': list(range(16)),
    'heads': [[14, 0, 0]],
    'attrs': {'mxnet_version': ['int', 10901]},
}

LENET_SHAPES = {
    'lenet0_conv0_weight': (4, 2, 3, 3),
    'lenet0_conv0_bias': (4,),
    'lenet0_batchnorm0_gamma': (4,),
    'lenet0_batchnorm0_beta': (4,),
    'lenet0_batchnorm0_running_mean': (4,),
    'lenet0_batchnorm0_running_var': (4,),
    'lenet0_dense0_weight': (5, 4 * 3 * 3),
    'lenet0_dense0_bias': (5,),
}
AUX = ('lenet0_batchnorm0_running_mean', 'lenet0_batchnorm0_running_var')


def lenet_params(seed=0):
    rng = np.random.RandomState(seed)
    params = {
        n: rng.uniform(-1, 1, s).astype('f4') for n, s in LENET_SHAPES.items()
    }
    params['lenet0_batchnorm0_running_var'] = rng.uniform(0.5, 2, 4).astype(
        'f4'
    )
    return params


def lenet_numpy(x, p, train=False):
    """The LeNet above in NumPy (float64)."""
    p = {k: v.astype('f8') for k, v in p.items()}
    xp = np.pad(x.astype('f8'), ((0, 0), (0, 0), (1, 1), (1, 1)))
    windows = sliding_window_view(xp, (3, 3), axis=(2, 3))
    y = np.einsum('ncijkl,fckl->nfij', windows, p['lenet0_conv0_weight'])
    y += p['lenet0_conv0_bias'][None, :, None, None]
    if train:
        mean, var = y.mean(axis=(0, 2, 3)), y.var(axis=(0, 2, 3))
    else:
        mean = p['lenet0_batchnorm0_running_mean']
        var = p['lenet0_batchnorm0_running_var']
    y = (y - mean[None, :, None, None]) / np.sqrt(
        var[None, :, None, None] + 1e-5
    )
    y = (
        y * p['lenet0_batchnorm0_gamma'][None, :, None, None]
        + p['lenet0_batchnorm0_beta'][None, :, None, None]
    )
    y = np.maximum(y, 0)
    n, c, h, w = y.shape
    y = y[:, :, : h // 2 * 2, : w // 2 * 2].reshape(n, c, h // 2, 2, w // 2, 2)
    y = y.max(axis=(3, 5)).reshape(n, -1)
    return y @ p['lenet0_dense0_weight'].T + p['lenet0_dense0_bias']


def write_params_file(fname, arrays):
    """A ``.params`` file as MXNet 1.x's ``nd.save`` writes it (V2
    arrays, all integers little-endian)."""
    blob = struct.pack('<QQ', 0x112, 0)
    blob += struct.pack('<Q', len(arrays))
    for value in arrays.values():
        value = np.ascontiguousarray(value, dtype='<f4')
        blob += struct.pack('<Ii', 0xF993FAC9, 0)  # magic, dense
        blob += struct.pack('<i', value.ndim)
        blob += struct.pack(f'<{value.ndim}q', *value.shape)
        blob += struct.pack('<ii', 1, 0)  # cpu(0)
        blob += struct.pack('<i', 0)  # float32
        blob += value.tobytes()
    blob += struct.pack('<Q', len(arrays))
    for name in arrays:
        encoded = name.encode('utf-8')
        blob += struct.pack('<Q', len(encoded)) + encoded
    with open(fname, 'wb') as f:
        f.write(blob)


def test_hand_written_params_file_loads_with_nd_load(tmp_path):
    fname = str(tmp_path / 'x.params')
    values = {
        'arg:w': np.arange(6, dtype='f4').reshape(2, 3),
        'aux:m': np.array([0.5], 'f4'),
    }
    write_params_file(fname, values)
    loaded = nd.load(fname)
    assert list(loaded) == ['arg:w', 'aux:m']
    for k, v in values.items():
        assert loaded[k].dtype == np.float32
        np.testing.assert_array_equal(loaded[k].asnumpy(), v)


def test_mxnet_lenet_imports_into_a_symbol_block(tmp_path):
    prefix = str(tmp_path / 'lenet')
    with open(prefix + '-symbol.json', 'w') as f:
        json.dump(MXNET_LENET, f, indent=2)
    params = lenet_params()
    write_params_file(
        prefix + '-0000.params',
        {('aux:' if n in AUX else 'arg:') + n: v for n, v in params.items()},
    )
    net = gluon.SymbolBlock.imports(
        prefix + '-symbol.json',
        ['data'],
        prefix + '-0000.params',
        ctx=mx.cpu(),
    )
    assert sorted(net.collect_params()) == sorted(LENET_SHAPES)
    for name in AUX:
        assert net.collect_params()[name].grad_req == 'null'
    x = np.random.RandomState(1).uniform(-1, 1, (2, 2, 6, 6)).astype('f4')
    out = net(nd.array(x))
    assert out.shape == (2, 5)
    np.testing.assert_allclose(
        out.asnumpy(), lenet_numpy(x, params), rtol=1e-4, atol=1e-5
    )


def test_mxnet_lenet_json_runs_through_simple_bind():
    net = sym.load_json(json.dumps(MXNET_LENET))
    assert net.list_auxiliary_states() == list(AUX)
    arg_shapes, out_shapes, aux_shapes = net.infer_shape(data=(3, 2, 7, 7))
    assert dict(zip(net.list_arguments(), arg_shapes)) == {
        'data': (3, 2, 7, 7),
        **{k: v for k, v in LENET_SHAPES.items() if k not in AUX},
    }
    assert out_shapes == [(3, 5)] and aux_shapes == [(4,), (4,)]
    exe = net.simple_bind(mx.cpu(), data=(3, 2, 7, 7))
    params = lenet_params(seed=3)
    x = np.random.RandomState(2).uniform(-1, 1, (3, 2, 7, 7)).astype('f4')
    exe.copy_params_from(
        {k: nd.array(v) for k, v in params.items() if k not in AUX},
        {k: nd.array(params[k]) for k in AUX},
    )
    (out,) = exe.forward(is_train=False, data=nd.array(x))
    np.testing.assert_allclose(
        out.asnumpy(), lenet_numpy(x, params), rtol=1e-4, atol=1e-5
    )
    (out,) = exe.forward(is_train=True)
    np.testing.assert_allclose(
        out.asnumpy(), lenet_numpy(x, params, train=True), rtol=1e-4, atol=1e-4
    )
    # training updated the running statistics with momentum 0.9
    xp = np.pad(x.astype('f8'), ((0, 0), (0, 0), (1, 1), (1, 1)))
    conv = np.einsum(
        'ncijkl,fckl->nfij',
        sliding_window_view(xp, (3, 3), axis=(2, 3)),
        params['lenet0_conv0_weight'].astype('f8'),
    )
    conv += params['lenet0_conv0_bias'][None, :, None, None]
    want = 0.9 * params[AUX[0]] + 0.1 * conv.mean(axis=(0, 2, 3))
    np.testing.assert_allclose(
        exe.aux_dict[AUX[0]].asnumpy(), want, rtol=1e-4, atol=1e-5
    )


def test_exported_files_reimport(tmp_path):
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(4, activation='tanh'), gluon.nn.Dense(2))
    net.initialize(mx.init.Uniform(0.5))
    net.hybridize()
    x = nd.array(np.random.RandomState(0).randn(3, 5))
    y = net(x)
    prefix = str(tmp_path / 'mlp')
    net.export(prefix, epoch=7)
    assert os.path.exists(prefix + '-symbol.json')
    keys = set(nd.load(prefix + '-0007.params'))
    assert keys == {'arg:' + n for n in net.collect_params()}
    with open(prefix + '-symbol.json') as f:
        graph = json.load(f)
    assert graph['nodes'][0] == {'op': 'null', 'name': 'data', 'inputs': []}
    weight = graph['nodes'][1]
    assert weight['name'] == 'dense0_weight'  # made outside a scope
    assert weight['attrs']['__shape__'] == '(4, 0)'
    assert weight['attrs']['__dtype__'] == '0'
    back = gluon.SymbolBlock.imports(
        prefix + '-symbol.json', 'data', prefix + '-0007.params'
    )
    np.testing.assert_allclose(back(x).asnumpy(), y.asnumpy(), rtol=1e-6)
