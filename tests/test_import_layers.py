"""The import graph of ``dlbook``: circles, and layers that import upward.

Every ``import`` statement under ``dlbook/`` counts, at module level or
inside a function (a function-level import that closes a circle still
ties two modules together; it only hides it from Python's loader).

``LAYERS`` lists the package from the bottom up; a module may import its
own layer and the ones below.  ``KNOWN_CIRCLES`` and ``KNOWN_UPWARD``
record what is still tangled: the tests fail when a new circle or a new
upward import appears, and when a recorded one has been untangled (then
delete its line), so the lists only shrink.
"""

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = 'dlbook'

#: From the bottom up.  A module belongs to the first entry that is its
#: name or a prefix of it (``dlbook.gluon.nn`` belongs to ``dlbook.gluon``).
LAYERS = [
    ['dlbook.widgets'],  # imports nothing from dlbook: plain floats in
    [
        'dlbook.base',
        'dlbook._atomic',
        'dlbook._write_clock',
        'dlbook._profile_state',
        'dlbook._gc_policy',
        'dlbook._np_state',
        'dlbook.name',
        'dlbook.attribute',
        'dlbook.registry',
    ],
    # image arithmetic on raw arrays: the nd.image operators and the
    # Gluon transforms share it
    ['dlbook.backend', 'dlbook.context', 'dlbook._imaging'],
    ['dlbook.ops'],
    ['dlbook._tape'],
    ['dlbook.ndarray', 'dlbook.random'],
    ['dlbook.autograd'],
    ['dlbook.symbol'],
    ['dlbook.executor'],
    ['dlbook.numpy', 'dlbook.numpy_extension'],
    [
        'dlbook.initializer',
        'dlbook.optimizer',
        'dlbook.lr_scheduler',
        'dlbook.metric',
        'dlbook.kvstore',
        'dlbook._download',
        'dlbook._datafiles',
        'dlbook.recordio',
    ],
    ['dlbook.io', 'dlbook.image', 'dlbook.gluon'],
    [
        'dlbook.module',
        'dlbook.model',
        'dlbook.callback',
        'dlbook.rnn',
        'dlbook.util',
        'dlbook.contrib',
        'dlbook.profiler',
        'dlbook.runtime',
        'dlbook.engine',
        'dlbook.log',
        'dlbook.test_utils',
        'dlbook.test_utils_compare',
        'dlbook.test_utils_data',
        'dlbook.test_utils_stats',
        'dlbook.test_utils_symbolic',
        'dlbook.test_utils_sparse',
    ],
    [
        'dlbook.viz',
        'dlbook.book',
        'dlbook.exercises',
        'dlbook.launch',
        'dlbook.as_mxnet',
        'dlbook.mxnet_shim',
        'dlbook',
    ],
]

#: Circles still to untangle, each as its sorted module names.
KNOWN_CIRCLES = set()

#: Upward imports still to remove: (importer, imported module).
KNOWN_UPWARD = set()

#: Upward imports that stay, each with its reason.  Not a debt: these are
#: facades MXNet's API asks for, made by one function-level import.
FACADES = {
    # Symbol.bind / simple_bind hand the graph to the Executor (MXNet's
    # Symbol API); the Executor itself never imports Symbol.
    ('dlbook.symbol.symbol', 'dlbook.executor'),
}


def _modules():
    found = {}
    for path in (ROOT / PACKAGE).rglob('*.py'):
        parts = path.relative_to(ROOT).with_suffix('').parts
        name = '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)
        found[name] = path
    return found


def _imports(name, path, modules):
    """Modules of ``dlbook`` that ``name`` imports anywhere in its file."""
    is_package = path.name == '__init__.py'
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'))):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split('.')
                if not is_package:
                    base = base[:-1]
                base = base[: len(base) - node.level + 1]
                module = '.'.join(
                    base + ([node.module] if node.module else [])
                )
            else:
                module = node.module or ''
            targets = [
                f'{module}.{a.name}'
                if f'{module}.{a.name}' in modules
                else module
                for a in node.names
            ]
        for target in targets:
            while target not in modules and '.' in target:
                target = target.rsplit('.', 1)[0]
            if (
                target in modules
                and target != name
                and target.startswith(PACKAGE)
            ):
                out.add(target)
    return out


def _graph():
    modules = _modules()
    return {
        name: _imports(name, path, modules) for name, path in modules.items()
    }


def _circles(graph):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(tuple(sorted(component)))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return set(found)


def _layer(name):
    best = None
    for level, members in enumerate(LAYERS):
        for prefix in members:
            if name == prefix or name.startswith(prefix + '.'):
                if best is None or len(prefix) > best[1]:
                    best = (level, len(prefix))
    return None if best is None else best[0]


def test_every_module_has_a_layer():
    assert [m for m in _modules() if _layer(m) is None] == []


def test_no_new_import_circles():
    circles = _circles(_graph())
    assert circles - KNOWN_CIRCLES == set(), 'new import circle'
    assert KNOWN_CIRCLES - circles == set(), (
        'untangled: remove it from KNOWN_CIRCLES'
    )


def test_no_new_upward_imports():
    upward = {
        (m, t)
        for m, targets in _graph().items()
        for t in targets
        if _layer(t) > _layer(m) and t != PACKAGE
    } - FACADES
    assert upward - KNOWN_UPWARD == set(), 'new upward import'
    assert KNOWN_UPWARD - upward == set(), (
        'removed: delete it from KNOWN_UPWARD'
    )


def test_each_facade_is_one_upward_import():
    graph = _graph()
    for importer, imported in FACADES:
        assert imported in graph[importer], f'{importer}: facade gone'
        assert _layer(imported) > _layer(importer)


def test_the_checker_finds_a_circle():
    assert _circles({'a': {'b'}, 'b': {'c'}, 'c': {'a'}, 'd': {'a'}}) == {
        ('a', 'b', 'c')
    }
