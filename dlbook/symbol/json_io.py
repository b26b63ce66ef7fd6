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
from .node import SUBGRAPH_OPS, Node, json_attr, topological_nodes

__all__ = ['to_json', 'read_outputs', 'parse_attr']

MXNET_VERSION = 10901


def to_json(symbol):
    """Serialise ``symbol`` as MXNet 1.x does (same keys, sorted string
    attributes and layout)."""
    nodes = topological_nodes(symbol._outputs)
    index = {id(n): i for i, n in enumerate(nodes)}
    entries, row_ptr = [], [0]
    for node in nodes:
        if node.op in SUBGRAPH_OPS:
            raise DLBookError(
                f"cannot save the graph as JSON: node '{node.name}' is a "
                f'{node.op} (foreach, while_loop or cond), whose subgraph '
                f'dlbook keeps as Python objects; save the parameters '
                f'(save_parameters) and rebuild the block in code instead'
            )
        item = {
            'op': 'null' if node.is_variable else node.op,
            'name': node.name,
        }
        attrs = {k: json_attr(v) for k, v in node.attrs.items()}
        attrs.update(node.extra)
        if attrs:
            item['attrs'] = dict(sorted(attrs.items()))
        # MXNet marks inputs the operator mutates (auxiliary states) with
        # version 1
        n_args = node.num_arguments()
        item['inputs'] = [
            [index[id(child)], i, int(k >= n_args)]
            for k, (child, i) in enumerate(node.inputs)
        ]
        entries.append(item)
        row_ptr.append(row_ptr[-1] + node.num_outputs())
    graph = {
        'nodes': entries,
        'arg_nodes': [i for i, n in enumerate(nodes) if n.is_variable],
        'node_row_ptr': row_ptr,
        'heads': [[index[id(n)], i, 0] for n, i in symbol._outputs],
        'attrs': {'mxnet_version': ['int', MXNET_VERSION]},
    }
    if getattr(symbol, '_np_shape', False):
        # a graph traced under npx.set_np(), as MXNet marks it
        graph['attrs'] = {'is_np_shape': ['int', 1], **graph['attrs']}
    return _dmlc_json(graph, 0)


def _dmlc_json(value, depth):
    """JSON laid out as MXNet's writer (dmlc::JSONWriter) lays it out:
    objects with several keys and lists of objects one item per line,
    lists of numbers on one line, items separated by ``', '``."""
    if isinstance(value, dict):
        multi_line = len(value) > 1
        items = [
            f'{json.dumps(k)}: {_dmlc_json(v, depth + 1)}'
            for k, v in value.items()
        ]
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
    return (
        start + inner + (', ' + inner).join(items) + '\n' + '  ' * depth + end
    )


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


def read_outputs(json_str, source='symbol JSON'):
    """The output entries ``[(node, index), ...]`` of MXNet's JSON text
    (``symbol.load_json`` wraps them in a Symbol).

    Any malformed graph raises one :class:`~dlbook.base.DLBookError`
    whose message starts with ``source``.
    """

    def fail(what):
        raise DLBookError(f'cannot load {source}: {what}')

    try:
        graph = json.loads(json_str)
    except (ValueError, RecursionError) as err:
        fail(f'not a symbol JSON graph: {err}')
    if not isinstance(graph, dict):
        fail(
            f'not a symbol JSON graph: the top level is a '
            f'{type(graph).__name__}, not an object'
        )
    raw_nodes, heads = graph.get('nodes'), graph.get('heads')
    for key, value in (('nodes', raw_nodes), ('heads', heads)):
        if not isinstance(value, list):
            fail(
                f'not a symbol JSON graph: "{key}" must be a list, got '
                f'{"nothing" if value is None else type(value).__name__}'
            )
    if not heads:
        fail('"heads" is empty: the graph has no output')
    nodes = []
    for position, raw in enumerate(raw_nodes):
        nodes.append(_load_node(raw, position, nodes, fail))
    outputs = []
    for i, head in enumerate(heads):
        index, out = _entry(head, len(nodes), f'head {i}', fail)
        outputs.append((nodes[index], out))
    return outputs


def _entry(entry, limit, where, fail):
    """``[node, output(, version)]`` with ``0 <= node < limit``."""
    if (
        not isinstance(entry, list)
        or not 1 <= len(entry) <= 3
        or not all(type(v) is int for v in entry)
    ):
        fail(f'{where} must be [node index, output index], got {entry!r}')
    index, out = entry[0], entry[1] if len(entry) > 1 else 0
    if not 0 <= index < limit:
        fail(
            f'{where} refers to node {index}, which is not defined before '
            f'it (valid node indices: 0 to {limit - 1})'
            if limit
            else f'{where} refers to node {index}, which is not defined before '
            f'it (no node is)'
        )
    if out < 0:
        fail(f'{where} has a negative output index {out}')
    return index, out


def _load_node(raw, position, nodes, fail):
    if not isinstance(raw, dict):
        fail(f'node {position} must be an object, got {type(raw).__name__}')
    name, op_name = raw.get('name'), raw.get('op')
    where = f'node {position} ({name!r})'
    if not isinstance(name, str):
        fail(f'node {position} has no "name" string')
    if not isinstance(op_name, str):
        fail(f'{where} has no "op" string')
    attrs = {}
    for key in ('param', 'attr', 'attrs'):  # old and new names
        value = raw.get(key) or {}
        if not isinstance(value, dict) or not all(
            isinstance(v, str) for v in value.values()
        ):
            fail(f'{where}: "{key}" must map names to strings')
        attrs.update(value)
    raw_inputs = raw.get('inputs', [])
    if not isinstance(raw_inputs, list):
        fail(f'{where}: "inputs" must be a list')
    inputs = []
    for k, entry in enumerate(raw_inputs):
        index, out = _entry(entry, position, f'input {k} of {where}', fail)
        inputs.append((nodes[index], out))
    if op_name == 'null':
        if inputs:
            fail(f'{where} is a variable ("op": "null") but has inputs')
        return Node(None, name, extra=attrs)
    if op_name not in REGISTRY:
        raise DLBookError(
            f'operator {op_name!r} (node {name!r}) is not '
            f'implemented in dlbook'
        )
    cls = REGISTRY[op_name]
    op_attrs, extra = {}, {}
    for key, value in attrs.items():
        if key in cls.defaults or (
            getattr(cls, 'open_attrs', False) and not key.startswith('__')
        ):
            op_attrs[key] = parse_attr(value)
        else:
            extra[key] = value
    try:
        return Node(cls.name, name, attrs=op_attrs, inputs=inputs, extra=extra)
    except (ValueError, TypeError, KeyError, IndexError) as err:
        fail(f'{where}: {type(err).__name__}: {err}')
