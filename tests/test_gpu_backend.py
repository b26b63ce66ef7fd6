"""The GPU backend without a GPU: CuPy names, the strict fake CuPy, the
reasons ``num_gpus()`` gives, and host syncs in a training step."""

import ast
import pathlib
import pickle

import numpy
import pytest

import dlbook as mx
from dlbook import autograd, gluon, nd
from dlbook.backend import cupy_names, fake_cupy, gpu_probe, reset_gpu_backend
from dlbook.gluon import nn

PACKAGE = pathlib.Path(mx.__file__).parent
SUBMODULES = {
    'random': cupy_names.RANDOM,
    'linalg': cupy_names.LINALG,
    'fft': cupy_names.FFT,
}


@pytest.fixture
def fake_gpu(monkeypatch):
    """gpu(0) served by the strict fake CuPy, whatever the environment."""
    monkeypatch.setenv('DLBOOK_FAKE_GPUS', '1')
    monkeypatch.delenv('DLBOOK_FAKE_CUPY', raising=False)
    reset_gpu_backend()
    yield mx.gpu(0).xp
    monkeypatch.undo()
    reset_gpu_backend()


# -- every xp.<name> dlbook uses exists in CuPy ---------------------------------


def _xp_chains(path):
    """``('add', 'at')`` for each ``xp.add.at`` in a file."""
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            parts = []
            cur = node
            while isinstance(cur, ast.Attribute):
                parts.append(cur.attr)
                cur = cur.value
            if isinstance(cur, ast.Name) and cur.id == 'xp':
                yield tuple(reversed(parts)), node.lineno


def _used_names():
    used = {}
    files = sorted((PACKAGE / 'ops').glob('*.py')) + sorted(
        p
        for d in ('optimizer', 'gluon', 'ndarray', 'metric')
        for p in (PACKAGE / d).rglob('*.py')
    )
    for path in files:
        for chain, line in _xp_chains(path):
            used.setdefault(chain[:2], f'{path.relative_to(PACKAGE)}:{line}')
    return used


def _missing(chain, module_names, lookup):
    head = chain[0]
    if head not in module_names:
        return True
    if len(chain) > 1 and head in SUBMODULES:
        return chain[1] not in lookup(head)
    return False


def test_every_xp_name_used_exists_in_cupy():
    used = _used_names()
    assert ('add', 'at') in used  # the scan sees chains
    missing = {
        '.'.join(c): where
        for c, where in used.items()
        if _missing(c, cupy_names.MODULE, SUBMODULES.get)
    }
    assert not missing, f'not in CuPy {cupy_names.VERSION}: {missing}'


def test_every_xp_name_used_exists_in_installed_cupy():
    cupy = pytest.importorskip('cupy')
    for chain in _used_names():
        obj = cupy
        for part in chain:
            assert hasattr(obj, part), f"cupy has no {'.'.join(chain)}"
            obj = getattr(obj, part)


def test_random_state_methods_exist_in_cupy():
    src = (PACKAGE / 'ops' / 'random.py').read_text() + (
        PACKAGE / 'ndarray' / 'random.py'
    ).read_text()
    for method in (
        'normal',
        'uniform',
        'randint',
        'gamma',
        'poisson',
        'exponential',
        'choice',
        'permutation',
        'shuffle',
    ):
        if f'.{method}(' in src:
            assert method in cupy_names.RANDOM_STATE


# -- the strict fake CuPy behaves as CuPy --------------------------------------


@pytest.fixture
def cp():
    return fake_cupy.make_module(1)


def test_fake_refuses_implicit_host_conversion(cp):
    x = cp.arange(6, dtype='float32').reshape(2, 3)
    # CuPy 14 gives exactly this message
    with pytest.raises(
        TypeError, match='Implicit conversion to a NumPy array is not allowed'
    ):
        numpy.asarray(x)
    with pytest.raises(TypeError, match='Unsupported type'):
        x + numpy.ones(3)
    with pytest.raises(TypeError, match='Unsupported type'):
        numpy.ones(3) * x
    with pytest.raises(TypeError, match='Unsupported type'):
        cp.concatenate([x, numpy.ones((1, 3))])


def test_fake_converts_what_cupy_converts(cp):
    x = cp.arange(6, dtype='float32').reshape(2, 3)
    total = x.sum()
    assert isinstance(total, cp.ndarray) and total.shape == ()
    with fake_cupy.count_syncs() as syncs:
        assert float(total) == 15.0
        assert int(x[1, 2]) == 5
        assert bool(x[0, 1])
        assert x.max().item() == 5.0
        assert x.tolist()[1] == [3.0, 4.0, 5.0]
        host = x.get()
        assert cp.asnumpy(x).sum() == 15.0
    assert type(host) is numpy.ndarray
    assert syncs == {
        'float': 1,
        'int': 1,
        'bool': 1,
        'item': 1,
        'tolist': 1,
        'get': 2,
    }
    assert not hasattr(x, '__index__')  # as in CuPy
    with pytest.raises(TypeError):
        len(total)


def test_fake_allows_explicit_transfers(cp):
    x = cp.asarray(numpy.arange(4.0))  # host -> device
    x[numpy.array([0, 2])] = numpy.array([9.0, 8.0])
    assert x.get().tolist() == [9.0, 1.0, 8.0, 3.0]
    cp.add.at(x, cp.asarray([1, 1]), 1.0)
    assert x.get().tolist() == [9.0, 3.0, 8.0, 3.0]
    assert isinstance(numpy.exp(x), cp.ndarray)  # NumPy dispatches to CuPy
    y = pickle.loads(pickle.dumps(x))
    assert isinstance(y, cp.ndarray) and y.get().tolist() == x.get().tolist()
    with cp.cuda.Device(0):
        pass
    with fake_cupy.count_syncs() as syncs:
        x[x > 5]
    assert syncs == {'mask': 1}


def test_fake_has_only_cupy_names(cp):
    for name in ('insert', 'matrix', 'nditer', 'errstate', 'seterr'):
        assert name in dir(numpy) and name not in cupy_names.MODULE
        with pytest.raises(AttributeError, match=name):
            getattr(cp, name)
    assert cp.float32 is numpy.float32 and cp.newaxis is None
    x = cp.ones(3)
    with pytest.raises(AttributeError, match='resize'):
        x.resize((4,))  # NumPy-only method
    rs = cp.random.RandomState(0)
    assert isinstance(rs.normal(size=3), cp.ndarray)
    with pytest.raises(AttributeError):
        rs.integers  # Generator-only name


def test_fuse_is_identity_and_raw_kernels_refused(cp):
    def f(a):
        return a * 2

    assert cp.fuse(f) is f
    with pytest.raises(NotImplementedError, match='cannot compile CUDA C'):
        cp.ElementwiseKernel('T x', 'T y', 'y = x', 'copy')


# -- why there is no GPU -------------------------------------------------------


class _CudaError(RuntimeError):
    def __init__(self, status, msg):
        super().__init__(msg)
        self.status = status


def test_reason_without_cupy():
    err = ModuleNotFoundError("No module named 'cupy'")
    reason = gpu_probe.import_error_reason(err, packages=[])
    assert reason.startswith(
        "CuPy is not installed (No module named "
        "'cupy'); install the GPU extra: pip install "
        "'dlbook[gpu-cuda12]' or 'dlbook[gpu-cuda13]'"
    )


def test_reason_two_cupy_packages():
    reason = gpu_probe.import_error_reason(
        ImportError('x'), packages=['cupy-cuda12x', 'cupy-cuda13x']
    )
    assert (
        'several CuPy packages are installed (cupy-cuda12x, '
        'cupy-cuda13x)' in reason
    )


def test_reason_no_driver_old_driver_no_device():
    err = _CudaError(35, 'cudaErrorInsufficientDriver')
    assert 'no NVIDIA driver' in gpu_probe.cuda_error_reason(
        err, 13020, 0, packages=['cupy-cuda13x']
    )
    reason = gpu_probe.cuda_error_reason(
        err, 13020, 12040, packages=['cupy-cuda13x']
    )
    assert reason.startswith(
        'the NVIDIA driver supports CUDA 12.4, but cupy-cuda13x needs CUDA 13'
    )
    assert 'gpu-cuda12' in reason
    assert 'found no GPU' in gpu_probe.cuda_error_reason(
        _CudaError(100, 'cudaErrorNoDevice'), 13020, 13020, packages=[]
    )


def test_gpu_error_says_why(monkeypatch):
    monkeypatch.setenv('DLBOOK_FAKE_GPUS', '0')
    monkeypatch.delenv('DLBOOK_FAKE_CUPY', raising=False)
    reset_gpu_backend()
    try:
        if mx.context.num_gpus():
            pytest.skip('a real GPU is present')
        reason = mx.backend.gpu_unavailable_reason()
        with pytest.raises(
            mx.base.DLBookError,
            match='no GPU is available: ' + reason.split('(')[0],
        ):
            nd.ones(2, ctx=mx.gpu(0))
    finally:
        monkeypatch.undo()
        reset_gpu_backend()


def test_fake_modes(monkeypatch):
    try:
        monkeypatch.setenv('DLBOOK_FAKE_GPUS', '2')
        monkeypatch.setenv('DLBOOK_FAKE_CUPY', '0')
        reset_gpu_backend()
        assert mx.context.num_gpus() == 2
        assert type(nd.ones(2, ctx=mx.gpu(1))._data) is numpy.ndarray
        monkeypatch.delenv('DLBOOK_FAKE_GPUS')
        monkeypatch.setenv('DLBOOK_FAKE_CUPY', '1')
        reset_gpu_backend()
        assert mx.context.num_gpus() == 1
        assert fake_cupy.is_fake(mx.gpu(0).xp)
        assert mx.gpu(0).backend.name == 'cupy (fake)'
    finally:
        monkeypatch.undo()
        reset_gpu_backend()


@pytest.mark.parametrize('gpus', [1, 2])
def test_operators_enter_the_device_scope_only_with_several_gpus(
    monkeypatch, gpus
):
    """With one GPU it is always the current device: entering its scope
    around every operator would only cost host time."""
    try:
        monkeypatch.setenv('DLBOOK_FAKE_GPUS', str(gpus))
        monkeypatch.delenv('DLBOOK_FAKE_CUPY', raising=False)
        reset_gpu_backend()
        ctx = mx.gpu(gpus - 1)
        assert ctx.backend.switches_device == (gpus > 1)
        assert (ctx._switch is not None) == (gpus > 1)
        y = nd.ones((2, 3), ctx=ctx) * 2
        assert y.asnumpy().tolist() == [[2.0] * 3] * 2
    finally:
        monkeypatch.undo()
        reset_gpu_backend()


# -- host syncs in a training step ---------------------------------------------


def _lenet():
    net = nn.HybridSequential()
    net.add(
        nn.Conv2D(6, kernel_size=5, padding=2, activation='sigmoid'),
        nn.AvgPool2D(pool_size=2, strides=2),
        nn.Conv2D(16, kernel_size=5, activation='sigmoid'),
        nn.AvgPool2D(pool_size=2, strides=2),
        nn.Dense(120, activation='sigmoid'),
        nn.Dense(84, activation='sigmoid'),
        nn.Dense(10),
    )
    return net


@pytest.mark.parametrize('hybridize', [False, True])
@pytest.mark.parametrize('optimizer', ['sgd', 'adam', 'lamb', 'lars'])
def test_training_step_has_no_host_sync(fake_gpu, optimizer, hybridize):
    """A ``train_ch6`` step on gpu(0): forward, backward and the update
    never wait for the device; d2l's per-batch metric line waits twice
    (``l.sum().asscalar()`` and ``accuracy``), MXNet's ``Accuracy.update``
    twice (it reads labels and predictions on the host, as in MXNet)."""
    from dlbook.book.training import accuracy

    ctx = mx.gpu(0)
    net = _lenet()
    net.initialize(ctx=ctx, init=mx.init.Xavier())
    if hybridize:
        net.hybridize()
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(
        net.collect_params(),
        optimizer,
        {'learning_rate': 0.1, 'wd': 1e-4, 'clip_gradient': 1.0},
    )
    X = nd.random.uniform(shape=(4, 1, 28, 28))
    y = nd.array([0, 1, 2, 3])
    metric = mx.metric.Accuracy()
    for _ in range(2):  # the first step allocates state
        with fake_cupy.count_syncs() as step_syncs:
            Xg, yg = X.as_in_context(ctx), y.as_in_context(ctx)
            with autograd.record():
                y_hat = net(Xg)
                l = loss(y_hat, yg)
            l.backward()
            trainer.step(X.shape[0])
        with fake_cupy.count_syncs() as d2l_syncs:
            l.sum().asscalar(), accuracy(y_hat, yg)
        with fake_cupy.count_syncs() as metric_syncs:
            metric.update([yg], [y_hat])
    assert isinstance(y_hat._data, fake_cupy.ndarray)
    assert sum(step_syncs.values()) == 0, step_syncs
    assert d2l_syncs == {'get': 2}
    assert metric_syncs == {'get': 2}
