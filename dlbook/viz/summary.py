"""``print_summary``: MXNet 1.x's text table of a graph's layers."""

import json
import math

from ._graph import _as_symbol


def _print_row(fields, positions):
    """One table row: field i ends (cut or padded) at column
    ``positions[i]``."""
    line = ''
    for field, end in zip(fields, positions):
        line += str(field)
        line = line[:end]
        line += ' ' * (end - len(line))
    print(line)


def _learned_counts(symbol, entry_shapes):
    """Parameters of each operator node, by its position in the JSON node
    list: the elements of the inputs its operator learns (the registry's
    ``learned_inputs``: weight, bias, gamma, beta...), from their inferred
    shapes.  Inputs whose shape is not known count 0."""
    counts = {}
    for k, node in enumerate(symbol._nodes()):
        if node.is_variable:
            continue
        op = node.op_info()
        names = () if op.variadic else op.list_arguments()
        count = 0
        for name, (source, i) in zip(names, node.inputs):
            shape = entry_shapes.get((id(source), i))
            if name in op.learned_inputs and shape and all(shape):
                count += math.prod(shape)
        counts[k] = count
    return counts


def print_summary(
    symbol, shape=None, line_length=120, positions=[0.44, 0.64, 0.74, 1.0]
):
    """Print a table of the layers of a graph, as MXNet 1.x does.

    Each operator gets a row: ``name(type)``, its output shape without the
    batch axis, its number of parameters and the layer(s) it reads from.
    The last line is ``Total params: N``.

    A layer's parameters are the elements of the inputs its operator
    learns (``weight`` and ``bias`` of FullyConnected and Convolution,
    ``gamma`` and ``beta`` of BatchNorm, ``weight`` of Embedding; the
    registry's ``learned_inputs``), with the shapes shape inference gives
    them, so any operator is counted.  For the standard layers the table
    is MXNet's: ``(fan_in + 1) * num_hidden`` for FullyConnected, ``2 *
    channels`` for BatchNorm (its moving statistics are not parameters).
    MXNet 1.9 parses attributes instead, which differs in three cases:
    a FullyConnected layer reading an input of more than two axes (a
    Dense layer right after a convolution or an Embedding) takes only the
    length of axis 1 as its fan-in there;
    layers it does not know (Deconvolution, LayerNorm, PReLU, RNN) count
    0; and without ``shape`` it counts FullyConnected and Convolution
    biases, whose shapes its inference does not give either.  dlbook
    counts the true number of weights in the first two cases and 0 in the
    last.

    Parameters
    ----------
    symbol : Symbol or gluon.Block
        The graph.  A HybridBlock is traced as in :func:`plot_network`
        (dlbook extension; ``shape`` is then required).
    shape : dict, optional
        Input shapes, e.g. ``{'data': (1, 784)}``.  Without it, output
        shapes are blank and only parameters whose shape is known without
        the data count (Embedding's weight, variables given a shape).
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
    symbol, shape = _as_symbol(
        symbol, shape, None, 'print_summary', 'symbol must be Symbol'
    )
    shape_dict = None
    internals = symbol.get_internals()
    if shape is not None:
        _, out_shapes, _ = internals.infer_shape(**shape)
        if out_shapes is None:
            raise ValueError('Input shape is incomplete')
        shape_dict = dict(zip(internals.list_outputs(), out_shapes))
    else:
        _, out_shapes, _ = internals.infer_shape_partial()
    learned = _learned_counts(
        symbol,
        {
            (id(node), i): found
            for (node, i), found in zip(internals._outputs, out_shapes)
        },
    )

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
        return (
            node['name'] + '_output' if node['op'] != 'null' else node['name']
        )

    def summarize(k, node, out_shape):
        previous = []
        if node['op'] != 'null':
            for source, _, _ in node['inputs']:
                source_node = nodes[source]
                if source_node['op'] != 'null' or source in heads:
                    previous.append(source_node['name'])
        params = learned.get(k, 0)
        _print_row(
            [
                f'{node["name"]}({node["op"]})',
                'x'.join(str(n) for n in out_shape),
                params,
                previous[0] if previous else '',
            ],
            positions,
        )
        for name in previous[1:]:
            _print_row(['', '', '', name], positions)
        return params

    print('_' * line_length)
    _print_row(
        ['Layer (type)', 'Output Shape', 'Param #', 'Previous Layer'],
        positions,
    )
    print('=' * line_length)
    total = 0
    for i, node in enumerate(nodes):
        if node['op'] == 'null' and i > 0:
            continue  # parameters are counted with their layer
        out_shape = []
        if node['op'] != 'null' or i in heads:
            found = out_shape_of(key_of(node))
            if found is not None:
                out_shape = found[1:]
        total += summarize(i, node, out_shape)
        print(('=' if i == len(nodes) - 1 else '_') * line_length)
    print(f'Total params: {total}')
    print('_' * line_length)
