"""``print_summary``: MXNet 1.x's text table of a graph's layers."""

import json

from ._graph import _as_symbol, _str2tuple

def _print_row(fields, positions):
    """One table row: field i ends (cut or padded) at column
    ``positions[i]``."""
    line = ''
    for field, end in zip(fields, positions):
        line += str(field)
        line = line[:end]
        line += ' ' * (end - len(line))
    print(line)


def _input_width(op, attrs, shape):
    """How much one input adds to a layer's fan-in: its channels
    (``shape[1]``), or for FullyConnected with ``flatten=True`` all its
    non-batch elements."""
    if len(shape) < 2:
        return 0
    if op == 'FullyConnected':
        if attrs.get('flatten', 'True') == 'False':
            return int(shape[-1])
        width = 1
        for n in shape[1:]:
            width *= int(n)
        return width
    return int(shape[1])


def _layer_params(node, width, out_shape_of):
    """Parameter count of one layer, by MXNet's rules: weights and biases
    of FullyConnected/Convolution from the input width, 2 per channel for
    BatchNorm (gamma, beta), input_dim x output_dim for Embedding."""
    op, attrs = node['op'], node.get('attrs', {})
    no_bias = attrs.get('no_bias') == 'True'
    if op == 'Convolution':
        num_filter = int(attrs['num_filter'])
        count = width * num_filter // int(attrs.get('num_group', '1'))
        for k in _str2tuple(attrs['kernel']):
            count *= int(k)
        return count if no_bias else count + num_filter
    if op == 'FullyConnected':
        num_hidden = int(attrs['num_hidden'])
        return (width + (0 if no_bias else 1)) * num_hidden
    if op == 'BatchNorm':
        shape = out_shape_of(node['name'] + '_output')
        return 0 if shape is None else int(shape[1]) * 2
    if op == 'Embedding':
        return int(attrs['input_dim']) * int(attrs['output_dim'])
    return 0


def print_summary(symbol, shape=None, line_length=120,
                  positions=[.44, .64, .74, 1.]):
    """Print a table of the layers of a graph, as MXNet 1.x does.

    Each operator gets a row: ``name(type)``, its output shape without the
    batch axis, its number of parameters and the layer(s) it reads from.
    The last line is ``Total params: N``.

    Parameters are counted from the shapes that reach each layer:
    ``(fan_in + 1) * num_hidden`` for FullyConnected, ``fan_in * k_h * k_w
    * num_filter / num_group + num_filter`` for Convolution, ``2 *
    channels`` (gamma, beta) for BatchNorm.  One difference from MXNet
    1.9: there, a FullyConnected layer reading a 4-D input (a Dense layer
    right after a convolution) takes the number of channels as its fan-in;
    dlbook multiplies all non-batch axes, as the layer itself does, so the
    total is the true number of weights.  Tables of MLPs and of networks
    with an explicit Flatten are identical to MXNet's.

    Parameters
    ----------
    symbol : Symbol or gluon.Block
        The graph.  A HybridBlock is traced as in :func:`plot_network`
        (dlbook extension; ``shape`` is then required).
    shape : dict, optional
        Input shapes, e.g. ``{'data': (1, 784)}``.  Without it, shapes are
        blank and parameter counts only use what the attributes say
        (e.g. a FullyConnected layer counts ``num_hidden`` biases).
    line_length : int, optional
        Width of the table in characters.
    positions : list of float or int, optional
        Where each column ends, as fractions of ``line_length`` (if the
        last is at most 1) or as character positions.

    Examples
    --------
    >>> net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=10,
    ...                             name='fc1')
    >>> mx.viz.print_summary(net, shape={'data': (1, 784)}, line_length=72,
    ...                      positions=[.4, .6, .75, 1.])  # doctest: +SKIP
    ________________________________________________________________________
    Layer (type)                Output Shape   Param #    Previous Layer
    ========================================================================
    data(null)                  784            0
    ________________________________________________________________________
    fc1(FullyConnected)         10             7850       data
    ========================================================================
    Total params: 7850
    ________________________________________________________________________
    """
    symbol, shape = _as_symbol(symbol, shape, None, 'print_summary',
                               'symbol must be Symbol')
    shape_dict = None
    if shape is not None:
        internals = symbol.get_internals()
        _, out_shapes, _ = internals.infer_shape(**shape)
        if out_shapes is None:
            raise ValueError('Input shape is incomplete')
        shape_dict = dict(zip(internals.list_outputs(), out_shapes))

    def out_shape_of(key):
        return None if shape_dict is None else shape_dict.get(key)

    conf = json.loads(symbol.tojson())
    nodes = conf['nodes']
    # MXNet's quirk, kept for identical tables: the set of the first
    # head's [node, output, version] numbers, so variable 0 ('data')
    # counts as "in heads" and is listed with its shape.
    heads = set(conf['heads'][0])
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]

    def key_of(node):
        return node['name'] + '_output' if node['op'] != 'null' \
            else node['name']

    def summarize(node, out_shape):
        previous, width = [], 0
        if node['op'] != 'null':
            for source, _, _ in node['inputs']:
                source_node = nodes[source]
                if source_node['op'] != 'null' or source in heads:
                    previous.append(source_node['name'])
                    found = out_shape_of(key_of(source_node))
                    if found is not None:
                        width += _input_width(node['op'],
                                              node.get('attrs', {}), found)
        params = _layer_params(node, width, out_shape_of)
        _print_row([f'{node["name"]}({node["op"]})',
                    'x'.join(str(n) for n in out_shape), params,
                    previous[0] if previous else ''], positions)
        for name in previous[1:]:
            _print_row(['', '', '', name], positions)
        return params

    print('_' * line_length)
    _print_row(['Layer (type)', 'Output Shape', 'Param #',
                'Previous Layer'], positions)
    print('=' * line_length)
    total = 0
    for i, node in enumerate(nodes):
        if node['op'] == 'null' and i > 0:
            continue          # parameters are counted with their layer
        out_shape = []
        if node['op'] != 'null' or i in heads:
            found = out_shape_of(key_of(node))
            if found is not None:
                out_shape = found[1:]
        total += summarize(node, out_shape)
        print(('=' if i == len(nodes) - 1 else '_') * line_length)
    print(f'Total params: {total}')
    print('_' * line_length)
