"""Symbol misuse: every malformed symbol file gives one clear error that
names the file and what is wrong."""

import json
import re

import pytest

import dlbook as mx
from dlbook.base import DLBookError

GOOD = {
    'nodes': [
        {'op': 'null', 'name': 'x', 'inputs': []},
        {'op': 'relu', 'name': 'y', 'inputs': [[0, 0, 0]]},
    ],
    'arg_nodes': [0],
    'heads': [[1, 0, 0]],
}


def _write(tmp_path, content):
    path = str(tmp_path / 'net-symbol.json')
    with open(path, 'wb') as f:
        f.write(
            content
            if isinstance(content, bytes)
            else json.dumps(content).encode()
        )
    return path


def _with(**changes):
    graph = json.loads(json.dumps(GOOD))
    for key, value in changes.items():
        if key == 'node1':
            graph['nodes'][1] = value
        else:
            graph[key] = value
    return graph


@pytest.mark.parametrize(
    'content, problem',
    [
        # head index -1 used to load (Python's negative index), past the end
        # raised IndexError
        (
            _with(heads=[[-1, 0, 0]]),
            'head 0 refers to node -1, which is not '
            'defined before it (valid node indices: 0 to 1)',
        ),
        (
            _with(heads=[[7, 0, 0]]),
            'head 0 refers to node 7, which is not '
            'defined before it (valid node indices: 0 to 1)',
        ),
        # was UnicodeDecodeError
        (
            b'\xff\xfe\x00\x81garbage',
            "not a symbol JSON file (not UTF-8 text: "
            "'utf-8' codec can't decode byte 0xff in position 0: invalid start "
            "byte)",
        ),
        # was KeyError
        (
            _with(node1={'name': 'y', 'inputs': [[0, 0, 0]]}),
            "node 1 ('y') has no \"op\" string",
        ),
        # was TypeError
        (
            _with(nodes=5),
            'not a symbol JSON graph: "nodes" must be a list, got int',
        ),
        (_with(heads=[]), '"heads" is empty: the graph has no output'),
        (
            _with(node1={'op': 'relu', 'name': 'y', 'inputs': [[0, 'a']]}),
            "input 0 of node 1 ('y') must be [node index, output index], got "
            "[0, 'a']",
        ),
        (
            _with(
                node1={
                    'op': 'relu',
                    'name': 'y',
                    'inputs': [[0, 0, 0]],
                    'attrs': {'x': 3},
                }
            ),
            "node 1 ('y'): \"attrs\" must map names to strings",
        ),
        (
            b'{"nodes": [',
            'not a symbol JSON graph: Expecting value: line 1 '
            'column 12 (char 11)',
        ),
    ],
)
def test_malformed_symbol_file(tmp_path, content, problem):
    path = _write(tmp_path, content)
    with pytest.raises(
        DLBookError,
        match=re.escape(f"cannot load symbol file '{path}': {problem}"),
    ):
        mx.sym.load(path)


def test_symbolblock_imports_names_the_symbol_file(tmp_path):
    path = _write(tmp_path, _with(heads=[[9, 0, 0]]))
    with pytest.raises(
        DLBookError,
        match=re.escape(
            f"cannot load symbol file '{path}': head 0 refers to node 9"
        ),
    ):
        mx.gluon.SymbolBlock.imports(path, ['x'])


def test_the_good_file_loads(tmp_path):
    net = mx.sym.load(_write(tmp_path, GOOD))
    assert net.list_arguments() == ['x']
