"""Architecture rules: operators compute through ``xp`` only, and
``import dlbook`` stays light."""

import ast
import pathlib
import subprocess
import sys

OPS = pathlib.Path(__file__).resolve().parents[2] / 'dlbook' / 'ops'


def test_no_numpy_or_cupy_import_under_ops():
    offenders = []
    for path in OPS.glob('*.py'):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [
                f'{path.name}: {n}'
                for n in names
                if n.split('.')[0] in ('numpy', 'cupy')
            ]
    assert not offenders, offenders


def test_import_dlbook_is_light():
    code = (
        'import sys, dlbook; heavy = [m for m in ("cupy", "numba", "matplotlib",'
        ' "ipywidgets", "graphviz", "IPython") if m in sys.modules];'
        ' print(",".join(heavy))'
    )
    out = subprocess.run(
        [sys.executable, '-c', code],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == ''
    assert out.stderr.strip() == ''


def test_bare_operators_are_their_classes_defaults():
    """For every registered operator whose class keeps ``Op.__init__``
    (``bare``), ``object.__new__(cls)`` (what the front ends make for
    ``x + y`` or ``nd.relu(x)``) is the instance ``cls()`` makes: its
    ``attrs`` are the class's own defaults.  Classes with an
    ``__init__`` of their own are never bare."""
    from dlbook.ops import REGISTRY
    from dlbook.ops.op import Op

    seen = 0
    for cls in set(REGISTRY.values()):
        assert cls.bare == (cls.__init__ is Op.__init__), cls.__name__
        if not cls.bare:
            continue
        made = object.__new__(cls)
        assert made.attrs is cls.defaults, cls.__name__
        assert cls().attrs == made.attrs, cls.__name__
        seen += 1
    assert seen > 100


def test_operators_that_skip_train_mode_never_read_it():
    """The front end leaves ``is_train`` unset for operators whose
    ``reads_train_mode`` is False: none of their methods (their class's
    or an inherited one below ``Op``) may mention it."""
    import inspect

    from dlbook.ops import REGISTRY
    from dlbook.ops.op import Op

    skipping = [c for c in set(REGISTRY.values()) if not c.reads_train_mode]
    assert len(skipping) > 20  # the arithmetic families
    for cls in skipping:
        for klass in cls.__mro__:
            if klass is Op or not issubclass(klass, Op):
                continue
            # method by method: some classes are made by a factory
            for name, value in vars(klass).items():
                if inspect.isfunction(value):
                    source = inspect.getsource(value)
                    assert 'is_train' not in source, f'{klass.__name__}.{name}'
