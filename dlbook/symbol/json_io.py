"""Symbol graphs in MXNet's JSON format (``-symbol.json`` files).

The format, as written by MXNet 1.x::

    {"nodes": [{"op": "null", "name": "data", "inputs": []},
               {"op": "FullyConnected", "name": "fc1",
                "attrs": {"num_hidden": "128"},
                "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}, ...],
     "arg_nodes": [0, 1, 2, ...],
     "node_row_ptr": [0, 1, 2, 3, 4, ...],
     "heads": [[4, 0, 0]],
     "attrs": {"mxnet_version": ["int", 10901]}}

Attribute values are strings; ``inputs`` and ``heads`` entries are
``[node index, output index, version]``.  Loading never executes anything
from the file: values are parsed with ``ast.literal_eval``.
"""

import ast
import json

from ..base import DLBookError
from ..ops import REGISTRY
from .symbol import Node, Symbol, json_attr, topological_nodes

__all__ = ['to_json', 'load_json', 'parse_attr']

MXNET_VERSION = 10901


def to_json(symbol):
    """Serialise ``symbol`` as MXNet 1.x does (same keys, sorted string
    attributes and layout)."""
    nodes = topological_nodes(symbol._outputs)
    index = {id(n): i for i, n in enumerate(nodes)}
    entries, row_ptr = [], [0]
    for node in nodes:
        item = {'op': 'null' if node.is_variable else node.op,
                'name': node.name}
        attrs = {k: json_attr(v) for k, v in node.attrs.items()}
        attrs.update(node.extra)
        if attrs:
            item['attrs'] = dict(sorted(attrs.items()))
        # MXNet marks inputs the operator mutates (auxiliary states) with
        # version 1
        n_args = node.num_arguments()
        item['inputs'] = [[index[id(child)], i, int(k >= n_args)]
                          for k, (child, i) in enumerate(node.inputs)]
        entries.append(item)
        row_ptr.append(row_ptr[-1] + node.num_outputs())
    graph = {
        'nodes': entries,
        'arg_nodes': [i for i, n in enumerate(nodes) if n.is_variable],
        'node_row_ptr': row_ptr,
        'heads': [[index[id(n)], i, 0] for n, i in symbol._outputs],
        'attrs': {'mxnet_version': ['int', MXNET_VERSION]},
    }
    return _dmlc_json(graph, 0)


def _dmlc_json(value, depth):
    """JSON laid out as MXNet's writer (dmlc::JSONWriter) lays it out:
    objects with several keys and lists of objects one item per line,
    lists of numbers on one line, items separated by ``', '``."""
    if isinstance(value, dict):
        multi_line = len(value) > 1
        items = [f'{json.dumps(k)}: {_dmlc_json(v, depth + 1)}'
                 for k, v in value.items()]
        return _layout('{', items, '}', multi_line, depth)
    if isinstance(value, list):
        multi_line = any(isinstance(v, dict) for v in value)
        items = [_dmlc_json(v, depth + 1) for v in value]
        return _layout('[', items, ']', multi_line, depth)
    return json.dumps(value)


def _layout(start, items, end, multi_line, depth):
    if not items:
        return start + end
    if not multi_line:
        return start + ', '.join(items) + end
    inner = '\n' + '  ' * (depth + 1)
    return (start + inner + (', ' + inner).join(items) + '\n' +
            '  ' * depth + end)


def parse_attr(text):
    """Turn one JSON attribute string back into a Python value.

    ``'(5, 5)'`` -> ``(5, 5)``, ``'True'`` -> ``True``, ``'64'`` -> ``64``;
    anything that is not a Python literal (``'relu'``) stays a string.
    """
    if not isinstance(text, str):
        return text
    lowered = text.strip()
    if lowered in ('true', 'false'):
        return lowered == 'true'
    try:
        value = ast.literal_eval(lowered)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text
    if isinstance(value, list):
        value = tuple(value)
    return value


def load_json(json_str):
    """Build a Symbol from MXNet's JSON text (graphs saved by MXNet 1.x
    load here)."""
    try:
        graph = json.loads(json_str)
        raw_nodes = graph['nodes']
        heads = graph['heads']
    except (ValueError, KeyError, TypeError) as err:
        raise DLBookError(f'not a symbol JSON graph: {err}') from err
    nodes = []
    for position, raw in enumerate(raw_nodes):
        attrs = {}
        for key in ('param', 'attr', 'attrs'):       # old and new names
            attrs.update(raw.get(key) or {})
        inputs = []
        for entry in raw.get('inputs', []):
            source = entry[0]
            if not 0 <= source < position:
                raise DLBookError(f'node {raw.get("name")!r} has an input '
                                  f'from node {source}, which is not '
                                  f'defined before it')
            inputs.append((nodes[source], entry[1] if len(entry) > 1
                           else 0))
        op_name = raw['op']
        if op_name == 'null':
            nodes.append(Node(None, raw['name'], extra=attrs))
            continue
        if op_name not in REGISTRY:
            raise DLBookError(f'operator {op_name!r} (node '
                              f'{raw["name"]!r}) is not implemented in '
                              f'dlbook')
        cls = REGISTRY[op_name]
        op_attrs, extra = {}, {}
        for key, value in attrs.items():
            if key in cls.defaults or (getattr(cls, 'open_attrs', False)
                                       and not key.startswith('__')):
                op_attrs[key] = parse_attr(value)
            else:
                extra[key] = value
        nodes.append(Node(cls.name, raw['name'], attrs=op_attrs,
                          inputs=inputs, extra=extra))
    return Symbol([(nodes[h[0]], h[1]) for h in heads])
