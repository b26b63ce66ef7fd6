"""``import mxnet`` as dlbook, opt-in: ``dlbook.as_mxnet`` and
``python -m dlbook.mxnet_shim install``; the d2l 0.17 package on top."""

import importlib.util
import os
import subprocess
import sys
import types

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(code, target, timeout=240):
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([ROOT, str(target)]),
        MPLBACKEND='Agg',
    )
    return subprocess.run(
        [sys.executable, '-c', code],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _install(target):
    return subprocess.run(
        [
            sys.executable,
            '-m',
            'dlbook.mxnet_shim',
            'install',
            '--target',
            str(target),
        ],
        env=dict(os.environ, PYTHONPATH=ROOT),
        cwd=ROOT,
        capture_output=True,
        text=True,
    )


def test_install_aliases_mxnet_and_uninstall(tmp_path):
    assert _install(tmp_path).returncode == 0
    result = _run(
        'import mxnet as mx, dlbook, dlbook.gluon.nn\n'
        'from mxnet import np, npx, gluon\n'
        'from mxnet.gluon import nn\n'
        'from mxnet.gluon.data.vision import transforms\n'
        'assert mx is dlbook and nn is dlbook.gluon.nn\n'
        'assert transforms is dlbook.gluon.data.vision.transforms\n'
        'print(mx.nd.ones((2,)).sum().asscalar())\n',
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == '2.0'
    removed = subprocess.run(
        [
            sys.executable,
            '-m',
            'dlbook.mxnet_shim',
            'uninstall',
            '--target',
            str(tmp_path),
        ],
        env=dict(os.environ, PYTHONPATH=ROOT),
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert removed.returncode == 0
    assert not (tmp_path / 'mxnet').exists()


def test_install_refuses_next_to_a_real_mxnet(tmp_path):
    (tmp_path / 'mxnet').mkdir()
    (tmp_path / 'mxnet' / '__init__.py').write_text('"""real MXNet"""\n')
    result = _install(tmp_path)
    assert result.returncode != 0 and 'refusing' in result.stderr
    assert (
        tmp_path / 'mxnet' / '__init__.py'
    ).read_text() == '"""real MXNet"""\n'


def test_as_mxnet_refuses_an_imported_real_mxnet(monkeypatch):
    monkeypatch.setitem(sys.modules, 'mxnet', types.ModuleType('mxnet'))
    monkeypatch.delitem(sys.modules, 'dlbook.as_mxnet', raising=False)
    with pytest.raises(ImportError, match='real MXNet'):
        import dlbook.as_mxnet  # noqa: F401


D2L_SCRIPT = '''
import sys, types
try:
    import pandas  # noqa: F401
except ImportError:             # d2l imports pandas only for data files
    sys.modules['pandas'] = types.ModuleType('pandas')
from d2l import mxnet as d2l
from mxnet import autograd, gluon, init, np, npx
from mxnet.gluon import nn
npx.set_np()
import mxnet as mx
mx.random.seed(0)

# linear regression from scratch (d2l 3.2)
true_w, true_b = np.array([2, -3.4]), 4.2
features, labels = d2l.synthetic_data(true_w, true_b, 1000)
w = np.random.normal(0, 0.01, (2, 1)); b = np.zeros(1)
w.attach_grad(); b.attach_grad()
for epoch in range(3):
    for X, y in d2l.load_array((features, labels), 10):
        with autograd.record():
            l = d2l.squared_loss(d2l.linreg(X, w, b), y)
        l.backward()
        d2l.sgd([w, b], 0.03, 10)
print('linreg', float(abs(w.reshape(-1) - true_w).max()),
      float(abs(b - true_b)[0]))

# softmax regression with train_epoch_ch3 / evaluate_accuracy (d2l 3.7)
X = np.random.normal(0, 1, (120, 4))
y = (X[:, 0] > 0).astype('int32') + 2 * (X[:, 1] > 0).astype('int32')
it = d2l.load_array((X, y), 20)
net = nn.Sequential(); net.add(nn.Dense(4)); net.initialize(init.Normal(0.1))
loss = gluon.loss.SoftmaxCrossEntropyLoss()
trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.5})
for epoch in range(8):
    metrics = d2l.train_epoch_ch3(net, it, loss, trainer)
print('softmax', metrics[0], metrics[1], d2l.evaluate_accuracy(net, it))
print('accuracy', d2l.accuracy(net(X), y) / len(y))
'''


@pytest.mark.skipif(
    importlib.util.find_spec('d2l') is None,
    reason='d2l is not installed (pip install --no-deps d2l==0.17.6)',
)
def test_d2l_package_runs_on_dlbook(tmp_path):
    assert _install(tmp_path).returncode == 0
    result = _run(D2L_SCRIPT, tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = dict(
        line.split(' ', 1) for line in result.stdout.strip().splitlines()
    )
    err_w, err_b = map(float, lines['linreg'].split())
    assert err_w < 0.05 and err_b < 0.05
    train_loss, train_acc, eval_acc = map(float, lines['softmax'].split())
    assert train_loss < 0.6 and train_acc > 0.8 and eval_acc > 0.8
