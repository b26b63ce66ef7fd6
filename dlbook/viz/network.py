"""``plot_network``: MXNet 1.x's drawing of a graph."""

import copy
import json
import warnings

from ._dot import _digraph_class
from ._graph import _as_symbol, _entry_tables, _str2tuple

#: MXNet's colour map: inputs, weight layers, activations, BatchNorm,
#: pooling, shape ops, softmax, everything else.
PALETTE = (
    '#8dd3c7',
    '#fb8072',
    '#ffffb3',
    '#bebada',
    '#80b1d3',
    '#fdb462',
    '#b3de69',
    '#fccde5',
)

#: Variables with these endings are parameters, hidden by ``hide_weights``.
WEIGHT_SUFFIXES = (
    '_weight',
    '_bias',
    '_beta',
    '_gamma',
    '_moving_var',
    '_moving_mean',
    '_running_var',
    '_running_mean',
)


def _join(value):
    """``'(5, 5)'`` -> ``'5x5'``, as MXNet writes kernels and strides."""
    return 'x'.join(_str2tuple(value))


def _convolution_label(attrs):
    stride = attrs.get('stride')
    return 'Convolution\n{}/{}, {}'.format(
        _join(attrs['kernel']),
        _join(stride) if stride else '1',
        attrs['num_filter'],
    )


def _pooling_label(attrs):
    kernel, stride = attrs.get('kernel'), attrs.get('stride')
    # MXNet's own default pool type when the attribute was not given
    return 'Pooling\n{}, {}/{}'.format(
        attrs.get('pool_type', 'max'),
        _join(kernel) if kernel else '[]',
        _join(stride) if stride else '1',
    )


#: How MXNet draws an operator node: ``op -> (index into PALETTE, label
#: function of the node's attributes, or None for the node's name)``.
#: Every key is a registered operator name; other operators get the last
#: colour.  The softmax colour (index 6) is unused, as in MXNet 1.9.1: its
#: drawing keys that colour on the legacy name ``Softmax``, which its JSON
#: never contains, so ``SoftmaxOutput`` nodes come out in the "other"
#: colour there, and pictures here stay identical to MXNet's.
NODE_STYLES = {
    'Convolution': (1, _convolution_label),
    'FullyConnected': (1, lambda a: f'FullyConnected\n{a["num_hidden"]}'),
    'BatchNorm': (3, None),
    'Activation': (2, lambda a: f'Activation\n{a["act_type"]}'),
    'LeakyReLU': (2, lambda a: f'LeakyReLU\n{a.get("act_type", "Leaky")}'),
    'Pooling': (4, _pooling_label),
    'Concat': (5, None),
    'Flatten': (5, None),
    'Reshape': (5, None),
}
OTHER_COLOUR = 7


def _node_style(node, node_attr):
    """Label and attributes of one JSON node, in MXNet's style."""
    op, attrs = node['op'], node.get('attrs', {})
    style = copy.deepcopy(node_attr)
    if op == 'null':
        style['shape'] = 'oval'  # inputs get their own shape
        style['fillcolor'] = PALETTE[0]
        return node['name'], style
    colour, label_of = NODE_STYLES.get(op, (OTHER_COLOUR, None))
    style['fillcolor'] = PALETTE[colour]
    if op == 'Custom':  # a user's operator: its type
        return attrs['op_type'], style
    return (label_of(attrs) if label_of else node['name']), style


def _warn_repeated_names(nodes):
    names = [node['name'] for node in nodes]
    if len(names) != len(set(names)):
        seen, repeated = set(), []
        for name in names:
            if name in seen and name not in repeated:
                repeated.append(name)
            seen.add(name)
        warnings.warn(
            'There are multiple variables with the same name in '
            'your graph, this may result in cyclic graph. '
            'Repeated names: ' + ','.join(repeated),
            RuntimeWarning,
            stacklevel=3,
        )


def plot_network(
    symbol,
    title='plot',
    save_format='pdf',
    shape=None,
    dtype=None,
    node_attrs={},
    hide_weights=True,
):
    """Draw a computation graph with graphviz, as MXNet 1.x does.

    Operators are filled boxes coloured by kind (weight layers red,
    activations yellow, pooling blue, ...) and labelled with their key
    settings: ``FullyConnected\\n64``, ``Convolution\\n5x5/1x1, 20``
    (kernel/stride, number of filters), ``Activation\\nrelu``,
    ``Pooling\\nmax, 2x2/2x2``.  Inputs are ovals.  Arrows point from each
    operator back to the node it reads from.

    Parameters
    ----------
    symbol : Symbol or gluon.Block
        The graph to draw.  A HybridBlock (or a Sequential of them) is
        traced by calling it on ``mx.sym.var('data')`` (dlbook extension;
        ``shape`` is then required, and a block with deferred parameter
        shapes first runs one forward pass on zeros).
    title : str, optional
        Name of the graph (and of the file ``render`` writes).
    save_format : str, optional
        Output format of ``render``/``view`` (``'pdf'``, ``'png'``...).
    shape : dict, optional
        Input shapes, e.g. ``{'data': (1, 1, 28, 28)}``; each edge is then
        labelled with the shape it carries, without the batch axis
        (``20x24x24``).  For a block, one tuple is the shape of ``data``.
    dtype : dict, optional
        Input types, e.g. ``{'data': numpy.float32}``; edges also show the
        type, ``(float32)``.
    node_attrs : dict, optional
        graphviz node attributes overriding the defaults, e.g.
        ``{'shape': 'oval', 'fixedsize': 'false'}``.
    hide_weights : bool, optional
        Hide parameter inputs (names ending in ``_weight``, ``_bias``,
        ``_gamma``, ``_beta``, ``_moving_mean``, ...).  With False they
        appear as empty ovals.

    Returns
    -------
    graphviz.Digraph
        Shown as a picture in a notebook; ``.source`` is the DOT text,
        ``.render()``/``.view()`` write a file.  Displaying it without the
        ``dot`` program shows how to install ``dot`` and the DOT source.

    Examples
    --------
    >>> net = mx.sym.Variable('data')
    >>> net = mx.sym.FullyConnected(data=net, name='fc1', num_hidden=128)
    >>> net = mx.sym.Activation(data=net, name='relu1', act_type='relu')
    >>> net = mx.sym.FullyConnected(data=net, name='fc2', num_hidden=10)
    >>> dot = mx.viz.plot_network(net, shape={'data': (100, 200)},
    ...                           node_attrs={'fixedsize': 'false'})
    """
    digraph_class = _digraph_class()  # fails early without graphviz
    symbol, shape = _as_symbol(
        symbol, shape, dtype, 'plot_network', 'symbol must be a Symbol'
    )
    shape_of = (
        _entry_tables(symbol, shape=shape) if shape is not None else None
    )
    type_of = (
        _entry_tables(symbol, dtype=dtype, message='Input type')
        if dtype is not None
        else None
    )
    nodes = json.loads(symbol.tojson())['nodes']
    _warn_repeated_names(nodes)
    node_attr = {
        'shape': 'box',
        'fixedsize': 'true',
        'width': '1.3',
        'height': '0.8034',
        'style': 'filled',
    }
    node_attr.update(node_attrs)
    dot = digraph_class(name=title, format=save_format)

    hidden = set()
    for node in nodes:
        if node['op'] == 'null' and node['name'].endswith(WEIGHT_SUFFIXES):
            # Hidden weights get no node and no edge.  Shown weights get
            # no node either: their edges create plain (empty) ovals.
            if hide_weights:
                hidden.add(node['name'])
            continue
        label, style = _node_style(node, node_attr)
        dot.node(name=node['name'], label=label, **style)

    for node in nodes:
        if node['op'] == 'null':
            continue
        inputs = node['inputs']
        if node['op'] == '_contrib_BilinearResize2D':
            inputs = inputs[:1]  # as MXNet: data only
        for source, out_index, _ in inputs:
            source_name = nodes[source]['name']
            if source_name in hidden:
                continue
            # dir=back: the arrow is drawn from producer to consumer while
            # graphviz ranks the consumer first, so data sits at the bottom
            edge = {'dir': 'back', 'arrowtail': 'open', 'label': ''}
            if shape_of is not None:
                edge['label'] = 'x'.join(
                    str(n) for n in shape_of[(source, out_index)][1:]
                )
            if (
                type_of is not None
                and type_of.get((source, out_index)) is not None
            ):
                edge['label'] += f'({type_of[(source, out_index)].__name__})'
            dot.edge(tail_name=node['name'], head_name=source_name, **edge)
    return dot
