"""grade_notebook and the command line, on a small generated notebook."""

import os

import pytest

nbformat = pytest.importorskip('nbformat')
pytest.importorskip('nbclient')
pytest.importorskip('ipykernel')

from dlbook.exercises import grade_notebook
from dlbook.exercises.__main__ import main

ROOT = os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
)

CELLS = [
    'from dlbook import nd\n'
    'from dlbook import book as d2l\n'
    'from dlbook.exercises import check',
    'assert d2l.fast_mode(), "grade_notebook runs in fast mode"',
    'def relu(X):\n    return nd.maximum(X, 0)\n\ncheck("ch05.relu", relu)',
    'check("ch05.l2_penalty", lambda w: (w ** 2).sum())',
    'undefined_name + 1',
    'def softmax(X):\n'
    '    X_exp = X.exp()\n'
    '    return X_exp / X_exp.sum(axis=1, keepdims=True)\n\n'
    'check("ch04.softmax", softmax)',
]


@pytest.fixture
def student_notebook(tmp_path, monkeypatch):
    # The kernel must import this checkout of dlbook.
    path = os.environ.get('PYTHONPATH')
    monkeypatch.setenv(
        'PYTHONPATH', ROOT + (os.pathsep + path if path else '')
    )
    monkeypatch.delenv('DLBOOK_FAST', raising=False)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    nb.metadata['kernelspec'] = {
        'name': 'python3',
        'language': 'python',
        'display_name': 'Python 3',
    }
    notebook = tmp_path / 'alice.ipynb'
    nbformat.write(nb, str(notebook))
    return notebook


def test_grade_notebook_collects_every_check(student_notebook, capsys):
    before = student_notebook.read_text()
    report = grade_notebook(str(student_notebook), timeout=120)
    table = capsys.readouterr().out
    assert [(r.exercise_id, r.passed) for r in report.results] == [
        ('ch05.relu', True),
        ('ch05.l2_penalty', False),
        ('ch04.softmax', True),
    ]
    assert report.passed == 2 and report.total == 3
    assert report.errors == [
        (5, "NameError: name 'undefined_name' is not defined")
    ]
    assert repr(report) == (
        "GradeReport('alice.ipynb', passed=2, total=3, errors=1)"
    )
    assert table.splitlines()[0] == (
        'alice.ipynb: 2 of 3 exercises passed, 1 cell error'
    )
    assert '  ch05.l2_penalty  \u2717' in table
    assert 'cell 5' in table and 'NameError' in table
    # the student's file is not modified, and the log is cleaned up
    assert student_notebook.read_text() == before
    assert 'DLBOOK_CHECK_LOG' not in os.environ


def test_cli_grade_exit_code(student_notebook, capsys):
    assert main(['grade', '--timeout', '120', str(student_notebook)]) == 1
    assert 'alice.ipynb: 2 of 3 exercises passed' in capsys.readouterr().out


def test_cli_list(capsys):
    assert main(['list', 'ch03']) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        'ch03.linreg: linreg(X, w, b): the linear model Xw + b.',
        'ch03.sgd: sgd(params, lr, batch_size): one in-place minibatch SGD '
        'step.',
        'ch03.squared_loss: squared_loss(y_hat, y): (y_hat - y)^2 / 2 for '
        'each example.',
    ]
