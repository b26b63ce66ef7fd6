"""mx.viz: plot_network and print_summary as in MXNet 1.9, plus
dlbook's plot_tape, the missing-``dot`` fallback and a stable repr.

The pictures are checked through their DOT text (``dot.body``), which
needs only the Python graphviz package; the tests pass with or without
the ``dot`` program installed.
"""

import os
import re
import stat
import subprocess
import sys

import numpy as np
import pytest

graphviz = pytest.importorskip('graphviz')

import dlbook as mx  # noqa: E402
import dlbook.viz as viz  # noqa: E402
import dlbook.viz.tape as viz_tape  # noqa: E402
from dlbook import autograd, nd  # noqa: E402
from dlbook.base import DLBookError  # noqa: E402
from dlbook.gluon import nn  # noqa: E402

# -- reading the DOT text back ------------------------------------------------

_ATTR = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|[^\s\]]+)')


def _attrs(text):
    found = {}
    for key, value in _ATTR.findall(text):
        if value.startswith('"'):
            value = value[1:-1]
        found[key] = value
    return found


def parse(dot):
    """``(nodes, edges)``: ``{name: attrs}`` and ``[(tail, head, attrs)]``
    from a graph's DOT statements."""
    nodes, edges = {}, []
    for line in dot.body:
        line = line.strip('\t\n')
        edge = re.match(r'(\S+) -> (\S+)(?: \[(.*)\])?$', line, re.S)
        if edge:
            edges.append(
                (edge.group(1), edge.group(2), _attrs(edge.group(3) or ''))
            )
            continue
        node = re.match(r'(\S+) \[(.*)\]$', line, re.S)
        if node and node.group(1) not in ('graph', 'node', 'edge'):
            nodes[node.group(1)] = _attrs(node.group(2))
    return nodes, edges


# -- networks -----------------------------------------------------------------


def mlp():
    data = mx.sym.var('data')
    net = mx.sym.FullyConnected(data, num_hidden=128, name='fc1')
    net = mx.sym.Activation(net, act_type='relu', name='relu1')
    net = mx.sym.FullyConnected(net, num_hidden=10, name='fc2')
    return mx.sym.SoftmaxOutput(net, name='softmax')


def lenet():
    data = mx.sym.var('data')
    net = mx.sym.Convolution(data, kernel=(5, 5), num_filter=20, name='conv1')
    net = mx.sym.BatchNorm(net, name='bn1')
    net = mx.sym.Activation(net, act_type='tanh', name='tanh1')
    net = mx.sym.Pooling(
        net, pool_type='max', kernel=(2, 2), stride=(2, 2), name='pool1'
    )
    net = mx.sym.Convolution(
        net, kernel=(5, 5), stride=(1, 1), num_filter=50, name='conv2'
    )
    net = mx.sym.Activation(net, act_type='tanh', name='tanh2')
    net = mx.sym.Pooling(
        net, pool_type='avg', kernel=(2, 2), stride=(2, 2), name='pool2'
    )
    net = mx.sym.Flatten(net, name='flatten')
    net = mx.sym.FullyConnected(net, num_hidden=500, name='fc1')
    net = mx.sym.LeakyReLU(net, act_type='elu', name='elu1')
    net = mx.sym.FullyConnected(net, num_hidden=10, name='fc2')
    return mx.sym.SoftmaxOutput(net, name='softmax')


LENET_LABELS = {
    'data': 'data',
    'conv1': 'Convolution\n5x5/1, 20',  # no stride given: '1'
    'bn1': 'bn1',
    'tanh1': 'Activation\ntanh',
    'pool1': 'Pooling\nmax, 2x2/2x2',
    'conv2': 'Convolution\n5x5/1x1, 50',
    'tanh2': 'Activation\ntanh',
    'pool2': 'Pooling\navg, 2x2/2x2',
    'flatten': 'flatten',
    'fc1': 'FullyConnected\n500',
    'elu1': 'LeakyReLU\nelu',
    'fc2': 'FullyConnected\n10',
    'softmax_label': 'softmax_label',
    'softmax': 'softmax',
}

LENET_COLORS = {
    'data': '#8dd3c7',
    'conv1': '#fb8072',
    'bn1': '#bebada',
    'tanh1': '#ffffb3',
    'pool1': '#80b1d3',
    'flatten': '#fdb462',
    'fc1': '#fb8072',
    'elu1': '#ffffb3',
    'softmax_label': '#8dd3c7',
    'softmax': '#fccde5',
}


def gluon_lenet():
    net = nn.HybridSequential()
    net.add(
        nn.Conv2D(6, kernel_size=5, activation='sigmoid'),
        nn.MaxPool2D(pool_size=2, strides=2),
        nn.Conv2D(16, kernel_size=5, activation='sigmoid'),
        nn.MaxPool2D(pool_size=2, strides=2),
        nn.Dense(120, activation='sigmoid'),
        nn.Dense(84, activation='sigmoid'),
        nn.Dense(10),
    )
    return net


# -- plot_network -------------------------------------------------------------


def test_mlp_nodes_edges_and_styles():
    dot = viz.plot_network(mlp())
    assert isinstance(dot, graphviz.Digraph)
    assert dot.name == 'plot' and dot.format == 'pdf'
    nodes, edges = parse(dot)
    assert list(nodes) == [
        'data',
        'fc1',
        'relu1',
        'fc2',
        'softmax_label',
        'softmax',
    ]
    assert {n: a['label'] for n, a in nodes.items()} == {
        'data': 'data',
        'fc1': 'FullyConnected\n128',
        'relu1': 'Activation\nrelu',
        'fc2': 'FullyConnected\n10',
        'softmax_label': 'softmax_label',
        'softmax': 'softmax',
    }
    assert nodes['data']['shape'] == 'oval'
    assert nodes['fc1']['shape'] == 'box'
    assert nodes['fc1']['style'] == 'filled'
    assert nodes['fc1']['fixedsize'] == 'true'
    assert nodes['fc1']['width'] == '1.3'
    assert nodes['fc1']['height'] == '0.8034'
    assert nodes['fc1']['fillcolor'] == '#fb8072'
    assert nodes['relu1']['fillcolor'] == '#ffffb3'
    assert nodes['softmax']['fillcolor'] == '#fccde5'  # 'other' ops
    # consumer -> producer, drawn backwards with an open arrow
    assert [(t, h) for t, h, _ in edges] == [
        ('fc1', 'data'),
        ('relu1', 'fc1'),
        ('fc2', 'relu1'),
        ('softmax', 'fc2'),
        ('softmax', 'softmax_label'),
    ]
    for _, _, attrs in edges:
        assert attrs == {'label': '', 'arrowtail': 'open', 'dir': 'back'}


def test_mlp_shape_and_dtype_labels_on_edges():
    dot = viz.plot_network(mlp(), shape={'data': (100, 784)})
    _, edges = parse(dot)
    assert [a['label'] for _, _, a in edges] == ['784', '128', '128', '10', '']
    dot = viz.plot_network(
        mlp(), shape={'data': (100, 784)}, dtype={'data': np.float32}
    )
    _, edges = parse(dot)
    assert edges[0][2]['label'] == '784(float32)'


def test_lenet_labels_colors_and_hidden_weights():
    dot = viz.plot_network(lenet(), shape={'data': (2, 1, 28, 28)})
    nodes, edges = parse(dot)
    assert {n: a['label'] for n, a in nodes.items()} == LENET_LABELS
    for name, color in LENET_COLORS.items():
        assert nodes[name]['fillcolor'] == color, name
    # weights, biases, gamma/beta and moving statistics are hidden
    heads = {h for _, h, _ in edges}
    assert not any(h.endswith(viz.WEIGHT_SUFFIXES) for h in heads)
    shapes = {(t, h): a['label'] for t, h, a in edges}
    assert shapes == {
        ('conv1', 'data'): '1x28x28',
        ('bn1', 'conv1'): '20x24x24',
        ('tanh1', 'bn1'): '20x24x24',
        ('pool1', 'tanh1'): '20x24x24',
        ('conv2', 'pool1'): '20x12x12',
        ('tanh2', 'conv2'): '50x8x8',
        ('pool2', 'tanh2'): '50x8x8',
        ('flatten', 'pool2'): '50x4x4',
        ('fc1', 'flatten'): '800',
        ('elu1', 'fc1'): '500',
        ('fc2', 'elu1'): '500',
        ('softmax', 'fc2'): '10',
        ('softmax', 'softmax_label'): '',
    }


def test_shown_weights_are_empty_ovals():
    dot = viz.plot_network(lenet(), hide_weights=False)
    nodes, edges = parse(dot)
    # as in MXNet: no node statement, only edges (graphviz then draws a
    # plain ellipse labelled with the name)
    assert 'conv1_weight' not in nodes
    heads = [h for t, h, _ in edges if t == 'bn1']
    assert heads == [
        'conv1',
        'bn1_gamma',
        'bn1_beta',
        'bn1_moving_mean',
        'bn1_moving_var',
    ]
    assert ('fc1', 'fc1_weight') in [(t, h) for t, h, _ in edges]


def test_title_format_and_node_attrs():
    dot = viz.plot_network(
        mlp(),
        title='mlp',
        save_format='png',
        node_attrs={'fixedsize': 'false', 'shape': 'oval'},
    )
    nodes, _ = parse(dot)
    assert dot.name == 'mlp' and dot.format == 'png'
    assert nodes['fc1']['fixedsize'] == 'false'
    assert nodes['fc1']['shape'] == 'oval'


def test_incomplete_shape_and_wrong_type():
    data = mx.sym.var('data')
    other = mx.sym.var('other')
    net = mx.sym.FullyConnected(data + other, num_hidden=4, name='fc')
    with pytest.warns(UserWarning, match='Cannot decide shape'):
        with pytest.raises(ValueError, match='Input shape is incomplete'):
            viz.plot_network(net, shape={'other': (0, 0)})
    with pytest.raises(TypeError, match='symbol must be a Symbol'):
        viz.plot_network('not a symbol')
    with pytest.raises(TypeError, match='symbol must be Symbol'):
        viz.print_summary(42)


def test_gluon_block_with_deferred_shapes():
    with mx.name.NameManager():
        net = gluon_lenet()
    net.initialize()
    dot = viz.plot_network(net, shape=(1, 1, 28, 28))
    nodes, edges = parse(dot)
    labels = [a['label'] for a in nodes.values()]
    assert labels == [
        'data',
        'Convolution\n5x5/1x1, 6',
        'Activation\nsigmoid',
        'Pooling\nmax, 2x2/2x2',
        'Convolution\n5x5/1x1, 16',
        'Activation\nsigmoid',
        'Pooling\nmax, 2x2/2x2',
        'FullyConnected\n120',
        'Activation\nsigmoid',
        'FullyConnected\n84',
        'Activation\nsigmoid',
        'FullyConnected\n10',
    ]
    assert [a['label'] for _, _, a in edges] == [
        '1x28x28',
        '6x24x24',
        '6x24x24',
        '6x12x12',
        '16x8x8',
        '16x8x8',
        '16x4x4',
        '120',
        '120',
        '84',
        '84',
    ]
    # the forward pass on zeros settled the deferred shapes
    assert net[4].weight.shape == (120, 256)
    assert net[0].weight.data().shape == (6, 1, 5, 5)


def test_gluon_block_shape_forms():
    net = nn.HybridSequential()
    net.add(nn.Dense(8, in_units=4), nn.Dense(2, in_units=8))
    # initialized parameters, shape as a dict; no forward pass needed
    net.initialize()
    nodes, edges = parse(viz.plot_network(net, shape={'data': (3, 4)}))
    assert [a['label'] for _, _, a in edges] == ['4', '8']
    # never initialized: the graph is still traced
    fresh = nn.HybridSequential()
    fresh.add(nn.Dense(5))
    nodes, edges = parse(viz.plot_network(fresh, shape=(2, 7)))
    assert [a['label'] for a in nodes.values()] == [
        'data',
        'FullyConnected\n5',
    ]
    with pytest.raises(ValueError, match='shape'):
        viz.plot_network(net)


def test_symbol_with_tuple_shape_means_data():
    dot = viz.plot_network(mlp(), shape=(100, 784))
    _, edges = parse(dot)
    assert edges[0][2]['label'] == '784'


def test_repeated_names_warn():
    a = mx.sym.var('x')
    b = mx.sym.var('x')
    with pytest.warns(RuntimeWarning, match='Repeated names: x'):
        viz.plot_network(a + b)


# -- print_summary ------------------------------------------------------------


def _row(*fields, positions=(52, 76, 88, 120)):
    line = ''
    for field, end in zip(fields, positions):
        line += str(field)
        line = line[:end].ljust(end)
    return line


def test_print_summary_mlp(capsys):
    viz.print_summary(mlp(), shape={'data': (100, 784)})
    lines = capsys.readouterr().out.split('\n')
    fc1 = (784 + 1) * 128
    fc2 = (128 + 1) * 10
    assert lines == [
        '_' * 120,
        _row('Layer (type)', 'Output Shape', 'Param #', 'Previous Layer'),
        '=' * 120,
        _row('data(null)', '784', 0, ''),
        '_' * 120,
        _row('fc1(FullyConnected)', '128', fc1, 'data'),
        '_' * 120,
        _row('relu1(Activation)', '128', 0, 'fc1'),
        '_' * 120,
        _row('fc2(FullyConnected)', '10', fc2, 'relu1'),
        '_' * 120,
        _row('softmax(SoftmaxOutput)', '10', 0, 'fc2'),
        '=' * 120,
        f'Total params: {fc1 + fc2}',
        '_' * 120,
        '',
    ]
    assert lines[1].startswith('Layer (type)' + ' ' * 40 + 'Output Shape')


def test_print_summary_lenet(capsys):
    viz.print_summary(lenet(), shape={'data': (2, 1, 28, 28)})
    out = capsys.readouterr().out
    rows = {
        line.split()[0]: line.split()[1:]
        for line in out.split('\n')
        if '(' in line and not line.startswith('Layer')
    }
    conv1 = (1 * 5 * 5) * 20 + 20
    bn1 = 2 * 20  # gamma and beta
    conv2 = (20 * 5 * 5) * 50 + 50
    fc1 = (50 * 4 * 4 + 1) * 500
    fc2 = (500 + 1) * 10
    assert rows['conv1(Convolution)'] == ['20x24x24', str(conv1), 'data']
    assert rows['bn1(BatchNorm)'] == ['20x24x24', str(bn1), 'conv1']
    assert rows['pool1(Pooling)'] == ['20x12x12', '0', 'tanh1']
    assert rows['conv2(Convolution)'] == ['50x8x8', str(conv2), 'pool1']
    assert rows['flatten(Flatten)'] == ['800', '0', 'pool2']
    assert rows['fc1(FullyConnected)'] == ['500', str(fc1), 'flatten']
    assert rows['fc2(FullyConnected)'] == ['10', str(fc2), 'elu1']
    total = conv1 + bn1 + conv2 + fc1 + fc2
    assert out.split('\n')[-3] == f'Total params: {total}'


def test_print_summary_gluon_block_counts_every_weight(capsys):
    with mx.name.NameManager():
        net = gluon_lenet()
    net.initialize()
    viz.print_summary(net, shape=(1, 1, 28, 28))
    out = capsys.readouterr().out
    expected = sum(
        int(np.prod(p.shape)) for p in net.collect_params().values()
    )
    assert expected == (6 * 25 + 6) + (6 * 16 * 25 + 16) + (
        256 * 120 + 120
    ) + (120 * 84 + 84) + (84 * 10 + 10)
    assert f'Total params: {expected}\n' in out
    assert 'dense0_fwd(FullyConnected)' in out


def test_print_summary_several_inputs_and_no_shape(capsys):
    data = mx.sym.var('data')
    a = mx.sym.FullyConnected(data, num_hidden=3, name='a')
    b = mx.sym.FullyConnected(data, num_hidden=3, name='b')
    net = mx.sym.Concat(a, b, dim=1, name='cat')
    viz.print_summary(net, shape={'data': (1, 2)}, line_length=80)
    lines = capsys.readouterr().out.split('\n')
    i = next(
        k for k, line in enumerate(lines) if line.startswith('cat(Concat)')
    )
    assert lines[i].split() == ['cat(Concat)', '6', '0', 'a']
    assert lines[i + 1] == ' ' * 59 + 'b'.ljust(21)
    # Without shapes no weight's shape is known: 0 parameters.  (MXNet 1.9
    # prints 6 here: it parses num_hidden and counts the two biases.)
    viz.print_summary(net)
    out = capsys.readouterr().out
    assert 'Total params: 0\n' in out
    assert out.split('\n')[3].split() == ['data(null)', '0']


def _summary_nets():
    """The networks whose tables were recorded from MXNet 1.9.1."""
    nets = {}
    data = mx.sym.var('data')
    net = mx.sym.FullyConnected(data, num_hidden=64, name='fc1')
    net = mx.sym.Activation(net, act_type='relu', name='relu1')
    net = mx.sym.FullyConnected(net, num_hidden=10, name='fc2')
    nets['mlp'] = (
        mx.sym.SoftmaxOutput(net, name='softmax'),
        {'data': (32, 784)},
    )
    net = mx.sym.Convolution(
        data, kernel=(3, 3), num_filter=8, pad=(1, 1), name='conv1'
    )
    net = mx.sym.BatchNorm(net, fix_gamma=False, name='bn1')
    net = mx.sym.Activation(net, act_type='relu', name='relu1')
    net = mx.sym.Pooling(
        net, kernel=(2, 2), stride=(2, 2), pool_type='max', name='pool1'
    )
    net = mx.sym.Convolution(
        net, kernel=(3, 3), num_filter=16, num_group=2, name='conv2'
    )
    net = mx.sym.BatchNorm(net, name='bn2')
    net = mx.sym.Flatten(net, name='flat')
    net = mx.sym.FullyConnected(net, num_hidden=10, name='fc')
    nets['convbn'] = (
        mx.sym.SoftmaxOutput(net, name='softmax'),
        {'data': (4, 3, 16, 16)},
    )
    net = mx.sym.Embedding(data, input_dim=1000, output_dim=32, name='embed')
    net = mx.sym.mean(net, axis=1, name='pool')
    nets['embedding'] = (
        mx.sym.FullyConnected(net, num_hidden=5, name='fc'),
        {'data': (8, 20)},
    )
    net = mx.sym.Convolution(
        data, kernel=(5, 5), num_filter=6, no_bias=True, name='conv'
    )
    net = mx.sym.Flatten(net, name='flat')
    net = mx.sym.FullyConnected(net, num_hidden=7, no_bias=True, name='fc1')
    nets['nobias'] = (
        mx.sym.FullyConnected(net, num_hidden=3, name='fc2'),
        {'data': (2, 1, 12, 12)},
    )
    return nets


#: ``mx.viz.print_summary(net, shape=..., line_length=80)`` printed by
#: MXNet 1.9.1 (trailing spaces of each row stripped)
MXNET_SUMMARIES = {
    'mlp': '''\
________________________________________________________________________________
Layer (type)                       Output Shape    Param # Previous Layer
================================================================================
data(null)                         784             0
________________________________________________________________________________
fc1(FullyConnected)                64              50240   data
________________________________________________________________________________
relu1(Activation)                  64              0       fc1
________________________________________________________________________________
fc2(FullyConnected)                10              650     relu1
________________________________________________________________________________
softmax(SoftmaxOutput)             10              0       fc2
================================================================================
Total params: 50890
________________________________________________________________________________''',
    'convbn': '''\
________________________________________________________________________________
Layer (type)                       Output Shape    Param # Previous Layer
================================================================================
data(null)                         3x16x16         0
________________________________________________________________________________
conv1(Convolution)                 8x16x16         224     data
________________________________________________________________________________
bn1(BatchNorm)                     8x16x16         16      conv1
________________________________________________________________________________
relu1(Activation)                  8x16x16         0       bn1
________________________________________________________________________________
pool1(Pooling)                     8x8x8           0       relu1
________________________________________________________________________________
conv2(Convolution)                 16x6x6          592     pool1
________________________________________________________________________________
bn2(BatchNorm)                     16x6x6          32      conv2
________________________________________________________________________________
flat(Flatten)                      576             0       bn2
________________________________________________________________________________
fc(FullyConnected)                 10              5770    flat
________________________________________________________________________________
softmax(SoftmaxOutput)             10              0       fc
================================================================================
Total params: 6634
________________________________________________________________________________''',
    'embedding': '''\
________________________________________________________________________________
Layer (type)                       Output Shape    Param # Previous Layer
================================================================================
data(null)                         20              0
________________________________________________________________________________
embed(Embedding)                   20x32           32000   data
________________________________________________________________________________
pool(mean)                         32              0       embed
________________________________________________________________________________
fc(FullyConnected)                 5               165     pool
================================================================================
Total params: 32165
________________________________________________________________________________''',
    'nobias': '''\
________________________________________________________________________________
Layer (type)                       Output Shape    Param # Previous Layer
================================================================================
data(null)                         1x12x12         0
________________________________________________________________________________
conv(Convolution)                  6x8x8           150     data
________________________________________________________________________________
flat(Flatten)                      384             0       conv
________________________________________________________________________________
fc1(FullyConnected)                7               2688    flat
________________________________________________________________________________
fc2(FullyConnected)                3               24      fc1
================================================================================
Total params: 2862
________________________________________________________________________________''',
}


@pytest.mark.parametrize('name', sorted(MXNET_SUMMARIES))
def test_print_summary_is_mxnets(capsys, name):
    net, shape = _summary_nets()[name]
    viz.print_summary(net, shape=shape, line_length=80)
    out = capsys.readouterr().out
    assert [
        line.rstrip() for line in out.rstrip('\n').split('\n')
    ] == MXNET_SUMMARIES[name].split('\n')


def test_print_summary_counts_layers_mxnet_does_not_know(capsys):
    # MXNet 1.9 prints 0 for these; their learned inputs are counted here
    data = mx.sym.var('data')
    # 3 -> 4 channels, 2x2 kernel; Deconvolution has no bias by default
    net = mx.sym.Deconvolution(data, kernel=(2, 2), num_filter=4, name='up')
    net = mx.sym.LayerNorm(net, axis=1, name='ln')
    net = mx.sym.LeakyReLU(net, act_type='prelu', name='prelu')
    viz.print_summary(net, shape={'data': (1, 3, 5, 5)})
    rows = {
        line.split()[0]: line.split()[2]
        for line in capsys.readouterr().out.split('\n')
        if '(' in line and not line.startswith('Layer')
    }
    assert rows == {
        'data(null)': '0',
        'up(Deconvolution)': str(3 * 4 * 2 * 2),
        'ln(LayerNorm)': str(2 * 4),
        'prelu(LeakyReLU)': '4',
    }


def test_learned_inputs_are_arguments_of_their_operator():
    from dlbook.ops import REGISTRY

    learned = {cls for cls in REGISTRY.values() if cls.learned_inputs}
    assert {'FullyConnected', 'Convolution', 'BatchNorm', 'Embedding'} <= {
        cls.name for cls in learned
    }
    for cls in learned:
        assert set(cls.learned_inputs) <= set(cls.arguments), cls.name


# -- plot_tape ----------------------------------------------------------------


def _tape_example():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    c = nd.array([3.0, 4.0])  # a constant
    with autograd.record():
        y = ((x * x + c) * 2).sum()
    return x, c, y


def test_plot_tape_nodes_labels_and_grad_norms():
    x, c, y = _tape_example()
    y.backward(retain_graph=True)
    dot = viz.plot_tape(y, names={'x': x})
    nodes, edges = parse(dot)
    arrays = {n: a for n, a in nodes.items() if n.startswith('a')}
    ops = {n: a for n, a in nodes.items() if n.startswith('op')}
    assert len(ops) == 4 and len(arrays) == 6
    assert all(a['shape'] == 'box' for a in ops.values())
    assert all(a['shape'] == 'oval' for a in arrays.values())
    labels = [a['label'] for a in ops.values()]
    assert labels[2] == '_mul_scalar\nscalar=2'
    assert labels[3] == 'sum'
    # the variable: named, highlighted, with the norm of dy/dx = 4x
    norm = float(np.linalg.norm(4 * np.array([1.0, 2.0])))
    assert arrays['a0']['label'] == f'x\n(2,)\n‖grad‖={norm:.4g}'
    assert arrays['a0']['fillcolor'] == viz_tape.VARIABLE_COLOR
    constant = [
        a for a in arrays.values() if a['label'].startswith('constant')
    ]
    assert len(constant) == 1 and 'dashed' in constant[0]['style']
    head = [a for a in arrays.values() if a.get('peripheries') == '2']
    assert len(head) == 1 and head[0]['label'] == '(1,)\nvalue=24'
    # data -> op -> output; x feeds the first multiplication twice
    for tail, head_, _ in edges:
        assert (tail[0], head_[0]) in (('a', 'o'), ('o', 'a'))
    assert [(t, h) for t, h, _ in edges].count(('a0', 'op0')) == 2
    assert len(edges) == 10


def test_plot_tape_before_backward_and_without_grads():
    x, c, y = _tape_example()
    nodes, _ = parse(viz.plot_tape(y))
    assert nodes['a0']['label'] == 'variable\n(2,)\n‖grad‖=0'
    nodes, _ = parse(viz.plot_tape(y, show_grads=False))
    assert nodes['a0']['label'] == 'variable\n(2,)'
    y.backward()  # the tape was still there
    np.testing.assert_allclose(x.grad.asnumpy(), [4.0, 8.0])


def test_plot_tape_freed_and_unrecorded():
    x, c, y = _tape_example()
    y.backward()
    with pytest.raises(DLBookError, match='retain_graph=True'):
        viz.plot_tape(y)
    with pytest.raises(DLBookError, match='autograd.record'):
        viz.plot_tape(nd.ones((2,)))
    with pytest.raises(TypeError):
        viz.plot_tape('y')


def test_plot_tape_multi_output_gluon_params_and_function():
    class Square(autograd.Function):
        def forward(self, x):
            self.save_for_backward(x)
            return x * x

        def backward(self, dy):
            (x,) = self.saved_tensors
            return 2 * x * dy

    with mx.name.NameManager():
        dense = nn.Dense(2, in_units=3)
    dense.initialize()
    x = nd.arange(6).reshape((2, 3))
    x.attach_grad()
    with autograd.record():
        top, bottom = nd.split(x, num_outputs=2, axis=0)
        h = dense(Square()(top) + bottom)
        loss = h.sum()
    loss.backward(retain_graph=True)
    nodes, edges = parse(viz.plot_tape(loss, names=dense.collect_params()))
    labels = [a['label'] for a in nodes.values()]
    assert any(
        label.startswith('dense0_weight\n(2, 3)\n‖grad‖=') for label in labels
    )
    assert 'Square' in labels
    assert any(
        label.startswith('split\nnum_outputs=2')
        or label.startswith('SliceChannel\nnum_outputs=2')
        for label in labels
    )
    assert sorted(a['label'] for _, _, a in edges if 'label' in a) == [
        '[0]',
        '[1]',
    ]


# -- display without dot, repr, lazy import -----------------------------------


def _hide_dot(monkeypatch, tmp_path):
    empty = tmp_path / 'empty'
    empty.mkdir()
    monkeypatch.setenv('PATH', str(empty))


def _fake_dot(monkeypatch, tmp_path):
    """A stand-in ``dot`` that answers every request with a tiny SVG."""
    folder = tmp_path / 'bin'
    folder.mkdir()
    script = folder / 'dot'
    script.write_text(
        '#!/bin/sh\ncat > /dev/null\n'
        'echo \'<svg xmlns="http://www.w3.org/2000/svg"/>\'\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv('PATH', f'{folder}{os.pathsep}/bin{os.pathsep}/usr/bin')


@pytest.mark.parametrize('make', ['network', 'tape'])
def test_display_without_dot_shows_hint_and_source(
    monkeypatch, tmp_path, make
):
    if make == 'network':
        dot = viz.plot_network(mlp(), shape={'data': (1, 784)})
    else:
        dot = viz.plot_tape(_tape_example()[2])
    _hide_dot(monkeypatch, tmp_path)
    with pytest.raises(graphviz.ExecutableNotFound):
        dot.pipe(format='svg')
    bundle = dot._repr_mimebundle_()
    assert set(bundle) == {'text/plain', 'text/markdown'}
    for text in bundle.values():
        assert 'Install the `dot` program' in text
        assert 'apt-get install graphviz' in text
        assert 'conda install graphviz' in text
        assert dot.source in text
    assert '```dot\n' in bundle['text/markdown']


def test_display_without_dot_when_pipe_is_patched(monkeypatch):
    dot = viz.plot_network(mlp())

    def no_dot(self, *args, **kwargs):
        raise graphviz.ExecutableNotFound(['dot'])

    monkeypatch.setattr(graphviz.Digraph, 'pipe', no_dot)
    bundle = dot._repr_mimebundle_()
    assert 'text/plain' in bundle and 'image/svg+xml' not in bundle


def test_display_with_dot_is_svg(monkeypatch, tmp_path):
    _fake_dot(monkeypatch, tmp_path)
    bundle = viz.plot_network(mlp())._repr_mimebundle_()
    assert list(bundle) == ['image/svg+xml']
    assert bundle['image/svg+xml'].startswith('<svg')


def test_ipython_display_formatter(monkeypatch, tmp_path):
    formatters = pytest.importorskip('IPython.core.formatters')
    dot = viz.plot_network(mlp())
    _hide_dot(monkeypatch, tmp_path)
    data, _ = formatters.DisplayFormatter().format(dot)
    assert 'Install the `dot` program' in data['text/plain']
    assert 'text/markdown' in data
    _fake_dot(monkeypatch, tmp_path)
    data, _ = formatters.DisplayFormatter().format(dot)
    assert data['text/plain'] == "<Digraph 'plot' with 6 nodes and 5 edges>"
    assert 'image/svg+xml' in data


def test_repr_is_short_and_deterministic():
    first = viz.plot_network(mlp())
    second = viz.plot_network(mlp())
    assert (
        repr(first)
        == repr(second)
        == "<Digraph 'plot' with 6 nodes and 5 edges>"
    )
    assert '0x' not in repr(first)
    assert first.source == second.source
    x, c, y = _tape_example()
    assert (
        repr(viz.plot_tape(y)) == "<Digraph 'tape' with 10 nodes and 10 edges>"
    )
    assert repr(first.copy()) == repr(first)


def test_missing_graphviz_package(monkeypatch):
    import dlbook.viz._dot as dot_module

    monkeypatch.setattr(dot_module, '_DIGRAPH_CLASS', None)
    monkeypatch.setitem(sys.modules, 'graphviz', None)
    with pytest.raises(ImportError, match='pip install graphviz'):
        viz.plot_network(mlp())


def test_import_dlbook_does_not_import_graphviz():
    code = (
        'import sys, dlbook, dlbook.viz; '
        'assert "graphviz" not in sys.modules, "graphviz imported"'
    )
    subprocess.run([sys.executable, '-c', code], check=True)


def test_node_styles_name_registered_operators():
    from dlbook.ops import REGISTRY
    from dlbook.viz.network import NODE_STYLES

    for op in NODE_STYLES:
        assert op in REGISTRY and REGISTRY[op].name == op, op
