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
        'import sys, dlbook; heavy = [m for m in ("cupy", "matplotlib",'
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
