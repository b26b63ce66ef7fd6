"""cuDNN convolutions (``dlbook/backend/cudnn.py``) without a GPU.

What runs here: the definition the check before first use compares
cuDNN with (against dlbook's own convolution and its gradients), the
shapes and settings handed to cuDNN, the choice of algorithm, where the
library is looked for, the check's verdicts and the warning that turns
cuDNN off.  The calls into the library itself run on a GPU machine
(``benchmarks/gpu/run_all.sh``: the tests on ``gpu(0)`` and the
CPU-against-GPU parity of every operator).
"""

import contextlib
import ctypes
import os

import numpy as np
import pytest

from dlbook import autograd, nd
from dlbook.backend import conv_definition, cudnn, cudnn_library, on_host
from dlbook.ops import fastpath
from dlbook.ops.windows import conv_out_size


def _out_size(x_shape, w_shape, stride, pad, dilate):
    """A convolution's output size per spatial axis (dlbook's formula)."""
    return tuple(
        conv_out_size(n, k, s, d, p)
        for n, k, s, p, d in zip(x_shape[2:], w_shape[2:], stride, pad, dilate)
    )


@pytest.fixture
def fresh_state(monkeypatch):
    """cuDNN's module state as in a new process, restored afterwards."""
    monkeypatch.setattr(
        cudnn_library, 'STATE', {'library': None, 'why_not': None}
    )
    monkeypatch.setattr(cudnn, '_CHECKED', {})
    monkeypatch.setattr(cudnn, '_PLANS', {})
    monkeypatch.setattr(cudnn, '_HANDLES', {})


@pytest.mark.parametrize(
    'x_shape, w_shape, stride, pad, dilate',
    [
        ((2, 3, 9), (4, 3, 3), (2,), (1,), (1,)),
        ((2, 3, 7, 6), (4, 3, 3, 2), (2, 1), (1, 1), (1, 2)),
        ((1, 2, 5, 4, 6), (3, 2, 2, 3, 2), (1, 2, 1), (0, 1, 1), (2, 1, 1)),
    ],
)
def test_reference_conv_is_dlbooks_convolution_and_its_gradients(
    x_shape, w_shape, stride, pad, dilate
):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(x_shape)
    w = rng.standard_normal(w_shape)
    X, W = nd.array(x, dtype='float64'), nd.array(w, dtype='float64')
    X.attach_grad()
    W.attach_grad()
    with autograd.record():
        Y = nd.Convolution(
            X,
            W,
            kernel=w_shape[2:],
            stride=stride,
            pad=pad,
            dilate=dilate,
            num_filter=w_shape[0],
            no_bias=True,
        )
    dy = rng.standard_normal(Y.shape)
    Y.backward(nd.array(dy, dtype='float64'))
    y, dx, dw = conv_definition.reference_conv(
        np, x, w, dy, stride, pad, dilate
    )
    np.testing.assert_allclose(y, Y.asnumpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(dx, X.grad.asnumpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(dw, W.grad.asnumpy(), rtol=1e-10, atol=1e-10)


def test_one_d_convolutions_are_handed_over_as_two_d_with_height_one():
    got = cudnn.conv_geometry(
        (8, 3, 20), (5, 3, 4), (8, 5, 9), (2,), (1,), (1,)
    )
    assert got == (
        (8, 3, 1, 20),
        (5, 3, 1, 4),
        (8, 5, 1, 9),
        (1, 2),
        (0, 1),
        (1, 1),
    )
    two_d = cudnn.conv_geometry(
        [8, 3, 6, 6], [5, 3, 3, 3], [8, 5, 6, 6], [1, 1], [1, 1], [1, 1]
    )
    assert two_d[0] == (8, 3, 6, 6) and two_d[3] == (1, 1)


def test_the_algorithm_record_has_cudnns_layout():
    # cudnnConvolutionFwdAlgoPerf_t: int, int, float, size_t, int, int,
    # int[3]
    fields = cudnn_library.AlgoPerf
    assert ctypes.sizeof(fields) == 48
    assert [getattr(fields, name).offset for name, _ in fields._fields_] == [
        0,
        4,
        8,
        16,
        24,
        28,
        32,
    ]


def _perf(algo, status, deterministic=1):
    perf = cudnn_library.AlgoPerf()
    perf.algo, perf.status, perf.determinism = algo, status, deterministic
    return perf


def test_the_first_working_algorithm_within_the_workspace_is_chosen():
    ranked = [_perf(6, 0), _perf(1, 3), _perf(2, 0)]
    workspace = {6: 10**9, 1: 0, 2: 4096}.get
    assert cudnn.choose_algorithm(ranked, workspace, 2**20) == (2, 4096)
    assert cudnn.choose_algorithm(ranked, workspace, 2**30) == (6, 10**9)
    # a failed heuristic entry is never chosen, whatever its workspace
    assert cudnn.choose_algorithm(ranked[1:2], workspace, 2**30) is None


def test_a_deterministic_algorithm_is_preferred_to_a_faster_one():
    ranked = [_perf(4, 0, deterministic=0), _perf(1, 0), _perf(0, 0)]
    workspace = {4: 0, 1: 2**21, 0: 0}.get
    assert cudnn.choose_algorithm(ranked, workspace, 2**30) == (1, 2**21)
    # the deterministic one does not fit: the fastest that does
    assert cudnn.choose_algorithm(ranked[:2], workspace, 2**20) == (4, 0)


def test_the_library_is_looked_for_in_the_variable_then_the_wheel(
    tmp_path, monkeypatch
):
    lib = tmp_path / 'nvidia' / 'cudnn' / 'lib'
    lib.mkdir(parents=True)
    for name in ('libcudnn.so.9', 'libcudnn_ops.so.9', 'libcudnn_cnn.so.9'):
        (lib / name).write_bytes(b'')
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv('DLBOOK_CUDNN_LIBRARY', '/opt/cudnn/libcudnn.so.9')
    import importlib

    importlib.invalidate_caches()
    found = cudnn_library.library_candidates()
    assert found[0] == '/opt/cudnn/libcudnn.so.9'
    assert found[1] == str(lib / 'libcudnn.so.9')
    assert not any('_ops' in name or '_cnn' in name for name in found)
    assert found[-2:] == ['libcudnn.so.9', 'libcudnn.so.8']


def test_a_missing_library_says_where_it_looked(fresh_state, monkeypatch):
    monkeypatch.setattr(
        cudnn_library, 'library_candidates', lambda: ['/nowhere/libcudnn.so.9']
    )
    assert cudnn_library.load() is None
    assert '/nowhere/libcudnn.so.9' in cudnn.status()
    assert 'nvidia-cudnn-cu12' in cudnn.status()


def test_no_cudnn_on_the_cpu_the_fake_gpu_or_when_switched_off(
    fresh_state, fake_gpu, monkeypatch
):
    assert not cudnn.usable(np, np.float32)
    assert not cudnn.usable(fake_gpu.backend.xp, np.float32)
    assert cudnn_library.STATE['library'] is None  # not even looked for
    monkeypatch.setenv('DLBOOK_CUDNN', '0')
    assert cudnn.status() == 'cuDNN off (DLBOOK_CUDNN=0)'


def _reference_calls(monkeypatch, damage=None):
    """cudnn.forward/backward_* replaced by the definition
    (``conv_definition.definition_calls``), the forward damaged by ``damage`` when
    given."""
    forward, backward_data, backward_filter = (
        conv_definition.definition_calls()
    )
    if damage is not None:
        undamaged = forward

        def forward(*args):
            return damage(undamaged(*args))

    monkeypatch.setattr(cudnn, 'forward', forward)
    monkeypatch.setattr(cudnn, 'backward_data', backward_data)
    monkeypatch.setattr(cudnn, 'backward_filter', backward_filter)


@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16'])
def test_the_check_passes_a_correct_convolution(monkeypatch, dtype):
    _reference_calls(monkeypatch)
    assert cudnn._self_check(np, dtype) is None


def test_the_check_names_what_differs(monkeypatch):
    _reference_calls(monkeypatch, damage=lambda y: y + 0.01)
    assert 'forward differs' in cudnn._self_check(np, 'float32')
    _reference_calls(monkeypatch, damage=lambda y: y * np.nan)
    assert 'forward differs' in cudnn._self_check(np, 'float32')


def test_the_check_reports_a_failing_call(monkeypatch):
    def fails(*args):
        raise RuntimeError('cuDNN convolution Forward failed: BAD_PARAM')

    monkeypatch.setattr(cudnn, 'forward', fails)
    assert 'BAD_PARAM' in cudnn._self_check(np, 'float32')


def test_a_failed_check_turns_cudnn_off_for_that_dtype_with_a_warning(
    fresh_state, monkeypatch
):
    class Library:
        version = 91000
        name = 'libcudnn.so.9'

    verdicts = {'float32': 'its forward differs', 'float64': None}
    monkeypatch.setattr(cudnn, '_real_cupy', lambda xp: True)
    monkeypatch.setitem(cudnn_library.STATE, 'library', Library())
    monkeypatch.setattr(cudnn, '_self_check', lambda xp, d: verdicts[d])
    with pytest.warns(RuntimeWarning, match='off for float32'):
        assert not cudnn.usable(np, np.dtype('float32'))
    assert cudnn.usable(np, np.dtype('float64'))
    assert not cudnn.usable(np, np.dtype('int32'))  # no integer convolutions
    verdicts['float32'] = None  # checked once: the verdict stays
    assert not cudnn.usable(np, np.dtype('float32'))
    text = cudnn.status()
    assert 'cuDNN 91000 from libcudnn.so.9' in text
    assert 'float32: its forward differs' in text and 'float64: ok' in text


def _installed_library():
    for name in cudnn_library.library_candidates():
        if os.path.sep in name and not os.path.exists(name):
            continue
        try:
            return cudnn_library.Library(name)
        except OSError:
            continue
    return None


def test_an_installed_library_has_every_function_called():
    """Where a cuDNN library is installed (``pip install
    nvidia-cudnn-cu12``; no GPU needed), it has every function with the
    names used, and its host-side descriptors accept the settings."""
    lib = _installed_library()
    if lib is None:
        pytest.skip('no cuDNN library installed')
    assert lib.version >= 8000
    tensor = cudnn._Plan._tensor(lib, 0, (8, 3, 1, 20))
    assert tensor.ptr.value
    conv = cudnn._Descriptor(lib, 'Convolution')
    ints = cudnn._ints
    lib.check(
        lib.cudnnSetConvolutionNdDescriptor(
            conv.ptr, 2, ints((0, 1)), ints((1, 2)), ints((1, 1)), 1, 0
        ),
        'convolution descriptor',
    )
    lib.check(lib.cudnnSetConvolutionGroupCount(conv.ptr, 2), 'groups')
    lib.check(lib.cudnnSetConvolutionMathType(conv.ptr, 3), 'math type')
    with pytest.raises(
        RuntimeError,
        match=r'tensor descriptor \(8, -3, 1, 20\) failed: CUDNN_STATUS_BAD_PARAM',
    ):
        cudnn._Plan._tensor(lib, 0, (8, -3, 1, 20))


@pytest.mark.parametrize(
    'x_shape, w_shape, stride, pad, dilate, groups',
    [
        ((2, 4, 7, 6), (6, 2, 3, 2), (2, 1), (1, 1), (1, 2), 2),
        ((3, 2, 9), (4, 2, 3), (2,), (1,), (1,), 1),
        ((1, 2, 5, 4, 6), (3, 2, 2, 3, 2), (1, 2, 1), (0, 1, 1), (2, 1, 1), 1),
    ],
)
def test_an_installed_library_agrees_on_the_output_shape(
    x_shape, w_shape, stride, pad, dilate, groups
):
    """cuDNN's own answer for the output shape of the descriptors a plan
    makes (host-side, no GPU needed) is the shape dlbook computes: the
    padding, stride, dilation, filter and group settings reach cuDNN as
    meant."""
    lib = _installed_library()
    if lib is None:
        pytest.skip('no cuDNN library installed')
    out = _out_size(x_shape, w_shape, stride, pad, dilate)
    y_shape = (x_shape[0], w_shape[0]) + out
    geometry = cudnn.conv_geometry(
        x_shape, w_shape, y_shape, stride, pad, dilate
    )
    plan = cudnn._Plan.__new__(cudnn._Plan)
    plan.describe(lib, 'float32', geometry, groups)
    nb = len(geometry[0])
    dims = (ctypes.c_int * nb)()
    status = lib.cdll.cudnnGetConvolutionNdForwardOutputDim(
        plan.conv.ptr, plan.x.ptr, plan.w.ptr, nb, dims
    )
    lib.check(status, 'output dimensions')
    assert tuple(dims) == geometry[2]


# -- the Convolution operator's cuDNN path, on a fake GPU -------------------


@pytest.fixture
def fake_cudnn(fake_gpu, monkeypatch):
    """cuDNN "available" on the fake GPU, computing the definition
    (``conv_definition.definition_calls``); the calls it gets are counted."""
    from collections import Counter

    calls = Counter()
    monkeypatch.setattr(cudnn, 'usable', lambda xp, dtype: not on_host(xp))
    names = {'Forward': 'forward', 'BackwardData': 'data'}

    @contextlib.contextmanager
    def counted(kind):
        calls[names.get(kind, 'filter')] += 1
        yield

    forward, backward_data, backward_filter = conv_definition.definition_calls(
        counted
    )

    calls.workspaces = set()  # the operators' workspace limits, in MB

    def with_workspace_limit(call):
        def checked(*args):
            calls.workspaces.add(args[-1])
            return call(*args)

        return checked

    monkeypatch.setattr(cudnn, 'forward', with_workspace_limit(forward))
    monkeypatch.setattr(
        cudnn, 'backward_data', with_workspace_limit(backward_data)
    )
    monkeypatch.setattr(
        cudnn, 'backward_filter', with_workspace_limit(backward_filter)
    )
    return fake_gpu, calls


def _conv_and_grads(ctx, x, w, b, attach_data=True, **attrs):
    X, W, B = (nd.array(a, ctx=ctx) for a in (x, w, b))
    for a in (X, W, B) if attach_data else (W, B):
        a.attach_grad()
    with autograd.record():
        Y = nd.Convolution(X, W, B, workspace=512, **attrs)
    Y.backward(nd.array(np.linspace(-1, 1, Y.size).reshape(Y.shape), ctx=ctx))
    grads = [a.grad.asnumpy() for a in (X, W, B) if a.grad is not None]
    return [Y.asnumpy()] + grads


@pytest.mark.parametrize(
    'x_shape, attrs',
    [
        ((2, 4, 7, 6), dict(kernel=(3, 2), stride=(2, 1), pad=(1, 1))),
        ((2, 4, 9), dict(kernel=(3,), dilate=(2,), num_group=2)),
    ],
)
def test_convolution_runs_on_cudnn_where_it_is_usable(
    fake_cudnn, x_shape, attrs
):
    gpu, calls = fake_cudnn
    rng = np.random.default_rng(1)
    groups = attrs.get('num_group', 1)
    kernel = attrs['kernel']
    x = rng.standard_normal(x_shape).astype('float32')
    w = rng.standard_normal((6, 4 // groups) + kernel).astype('float32')
    b = rng.standard_normal(6).astype('float32')
    on_gpu = _conv_and_grads(gpu, x, w, b, num_filter=6, **attrs)
    assert dict(calls) == {'forward': 1, 'data': 1, 'filter': 1}
    assert calls.workspaces == {512}  # the operator's workspace attribute
    on_cpu = _conv_and_grads(mx_cpu(), x, w, b, num_filter=6, **attrs)
    for got, want in zip(on_gpu, on_cpu):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_the_first_layer_asks_cudnn_for_no_data_gradient(fake_cudnn):
    gpu, calls = fake_cudnn
    x, w, b = np.ones((1, 2, 5, 5)), np.ones((3, 2, 3, 3)), np.zeros(3)
    _conv_and_grads(
        gpu, x, w, b, attach_data=False, kernel=(3, 3), num_filter=3
    )
    assert dict(calls) == {'forward': 1, 'filter': 1}


def test_cudnn_off_and_the_reference_path_keep_cudnn_out(
    fake_cudnn, monkeypatch
):
    gpu, calls = fake_cudnn
    x, w, b = np.ones((1, 2, 5, 5)), np.ones((3, 2, 3, 3)), np.zeros(3)
    args = dict(kernel=(3, 3), num_filter=3)
    want = _conv_and_grads(mx_cpu(), x, w, b, **args)
    got = _conv_and_grads(gpu, x, w, b, cudnn_off=True, **args)
    old = fastpath.set_enabled(False)
    try:
        got_reference = _conv_and_grads(gpu, x, w, b, **args)
    finally:
        fastpath.set_enabled(old)
    assert not calls
    for a, b_, c in zip(want, got, got_reference):
        np.testing.assert_allclose(a, b_, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(a, c, rtol=1e-5, atol=1e-5)


def mx_cpu():
    import dlbook as mx

    return mx.cpu(0)


_DECONV = dict(
    kernel=(3, 3),
    stride=(2, 2),
    pad=(1, 1),
    adj=(1, 0),
    num_filter=6,
    num_group=2,
    no_bias=False,
    workspace=512,
)


def _deconv_and_grads(ctx):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 4, 5, 4)).astype('float32')
    w = rng.standard_normal((4, 3, 3, 3)).astype('float32')
    b = rng.standard_normal(6).astype('float32')
    X, W, B = (nd.array(a, ctx=ctx) for a in (x, w, b))
    for a in (X, W, B):
        a.attach_grad()
    with autograd.record():
        Y = nd.Deconvolution(X, W, B, **_DECONV)
    Y.backward(nd.array(np.cos(np.arange(Y.size)).reshape(Y.shape), ctx=ctx))
    return [a.asnumpy() for a in (Y, X.grad, W.grad, B.grad)]


def test_deconvolution_runs_on_cudnn_the_other_way_round(fake_cudnn):
    gpu, calls = fake_cudnn
    on_gpu = _deconv_and_grads(gpu)
    # forward = cuDNN's data gradient, dx = its forward, dw = its filter
    assert dict(calls) == {'data': 1, 'forward': 1, 'filter': 1}
    for got, want in zip(on_gpu, _deconv_and_grads(mx_cpu())):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('failing', ['backward_data', 'backward_filter'])
def test_deconvolution_falls_back_from_a_cudnn_error(
    fake_cudnn, monkeypatch, failing
):
    gpu, _ = fake_cudnn
    monkeypatch.setattr(cudnn, '_WARNED', set())

    def fails(*args):
        raise cudnn.CudnnError(f'cuDNN {failing} failed: EXECUTION_FAILED')

    monkeypatch.setattr(cudnn, failing, fails)
    with pytest.warns(RuntimeWarning, match='EXECUTION_FAILED'):
        on_gpu = _deconv_and_grads(gpu)
    for got, want in zip(on_gpu, _deconv_and_grads(mx_cpu())):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_deconvolution_keeps_off_cudnn_where_the_shapes_do_not_transpose(
    fake_cudnn,
):
    from dlbook.ops import REGISTRY

    gpu, _ = fake_cudnn
    xp = gpu.backend.xp
    op = REGISTRY['Deconvolution'](kernel=(3, 3), stride=(2, 2), num_filter=2)
    # (4 - 1) * 2 + 3 = 9 maps back onto 4; 11 would not
    assert op._transposes_onto((1, 2, 4, 4), (1, 2, 9, 9), (0, 0))
    assert not op._transposes_onto((1, 2, 4, 4), (1, 2, 11, 9), (0, 0))
    # what cuDNN is handed: stride, pad, dilate, groups, workspace (MB)
    assert op._cudnn_settings(xp, 'float32', (0, 0)) == (
        (2, 2),
        (0, 0),
        (1, 1),
        1,
        512,
    )
    cudnn_off = REGISTRY['Deconvolution'](
        kernel=(3, 3), stride=(2, 2), num_filter=2, cudnn_off=True
    )
    assert cudnn_off._cudnn_settings(xp, 'float32', (0, 0)) is None


def test_the_runtime_feature_says_whether_cudnn_can_run(
    fresh_state, monkeypatch
):
    import dlbook as mx
    from dlbook import runtime

    monkeypatch.setattr(runtime, '_cuda', lambda: True)
    monkeypatch.setitem(cudnn_library.STATE, 'library', object())
    assert mx.runtime.Features().is_enabled('CUDNN')
    monkeypatch.setenv('DLBOOK_CUDNN', '0')
    assert not mx.runtime.Features().is_enabled('CUDNN')
    monkeypatch.setattr(runtime, '_cuda', lambda: False)
    monkeypatch.delenv('DLBOOK_CUDNN')
    assert not mx.runtime.Features().is_enabled('CUDNN')


def test_a_cudnn_error_falls_back_to_im2col_with_one_warning(
    fake_cudnn, monkeypatch
):
    gpu, calls = fake_cudnn
    monkeypatch.setattr(cudnn, '_WARNED', set())

    def not_supported(*args):
        raise cudnn.CudnnError(
            'cuDNN convolution BackwardFilter failed: '
            'CUDNN_STATUS_NOT_SUPPORTED (status 3000)'
        )

    monkeypatch.setattr(cudnn, 'backward_filter', not_supported)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 4, 6, 6)).astype('float32')
    w = rng.standard_normal((6, 2, 3, 3)).astype('float32')
    b = rng.standard_normal(6).astype('float32')
    attrs = dict(kernel=(3, 3), pad=(1, 1), num_filter=6, num_group=2)
    want = _conv_and_grads(mx_cpu(), x, w, b, **attrs)
    with pytest.warns(RuntimeWarning, match='NOT_SUPPORTED.*im2col'):
        got = _conv_and_grads(gpu, x, w, b, **attrs)
    for a, b_ in zip(got, want):
        np.testing.assert_allclose(a, b_, rtol=1e-5, atol=1e-5)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter('error')  # the same failure warns once
        _conv_and_grads(gpu, x, w, b, **attrs)

    def bad_param(*args):
        raise cudnn.CudnnError('cuDNN convolution Forward failed: BAD_PARAM')

    monkeypatch.setattr(cudnn, 'forward', bad_param)
    with pytest.warns(RuntimeWarning, match='Forward failed: BAD_PARAM'):
        got = _conv_and_grads(gpu, x, w, b, **attrs)
    for a, b_ in zip(got, want):
        np.testing.assert_allclose(a, b_, rtol=1e-5, atol=1e-5)


# -- the ctypes layer against a host stand-in for libcudnn ------------------


class _Pointer:
    def __init__(self, ptr):
        self.ptr = ptr


class _HostArray(np.ndarray):
    """A NumPy array with CuPy's ``a.data.ptr``."""

    @property
    def data(self):
        return _Pointer(self.ctypes.data)


class _HostCupy:
    """The few CuPy names the ctypes layer uses, over host memory."""

    __name__ = 'cupy'
    uint8 = np.uint8

    class cuda:  # noqa: N801 (CuPy's name)
        class Device:
            id = 0

        @staticmethod
        def get_current_stream():
            return _Pointer(0)

    random = np.random
    pad = staticmethod(np.pad)
    zeros = staticmethod(np.zeros)
    tensordot = staticmethod(np.tensordot)
    moveaxis = staticmethod(np.moveaxis)
    abs = staticmethod(np.abs)

    @staticmethod
    def empty(shape, dtype):
        return np.empty(shape, dtype=dtype).view(_HostArray)

    @staticmethod
    def ascontiguousarray(a):
        return np.ascontiguousarray(a).view(_HostArray)


@pytest.fixture(scope='module')
def stand_in_library(tmp_path_factory):
    import shutil
    import subprocess

    if shutil.which('g++') is None:
        pytest.skip('needs a C++ compiler (g++)')
    source = os.path.join(os.path.dirname(__file__), 'fake_cudnn.cpp')
    lib = tmp_path_factory.mktemp('cudnn') / 'libcudnn.so.9'
    subprocess.run(
        ['g++', '-O1', '-shared', '-fPIC', '-o', str(lib), source], check=True
    )
    return str(lib)


@pytest.fixture
def host_cudnn(stand_in_library, fresh_state, monkeypatch):
    monkeypatch.setenv('DLBOOK_CUDNN_LIBRARY', stand_in_library)
    return _HostCupy()


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize(
    'x_shape, w_shape, stride, pad, dilate, groups',
    [
        ((2, 4, 7, 6), (6, 2, 3, 2), (2, 1), (1, 1), (1, 2), 2),
        ((3, 2, 9), (4, 2, 3), (2,), (1,), (1,), 1),
        ((1, 3, 5, 5), (2, 3, 5, 5), (1, 1), (0, 0), (1, 1), 1),
    ],
)
def test_the_three_calls_reach_the_library_with_the_right_arguments(
    host_cudnn, dtype, x_shape, w_shape, stride, pad, dilate, groups
):
    xp = host_cudnn
    rng = np.random.default_rng(4)
    x = rng.standard_normal(x_shape).astype(dtype)
    w = rng.standard_normal(w_shape).astype(dtype)
    out = _out_size(x_shape, w_shape, stride, pad, dilate)
    dy = rng.standard_normal((x_shape[0], w_shape[0]) + out).astype(dtype)
    settings = (stride, pad, dilate, groups)
    got = (
        cudnn.forward(xp, x, w, dy.shape, *settings),
        cudnn.backward_data(xp, dy, w, x.shape, *settings),
        cudnn.backward_filter(xp, x, dy, w.shape, *settings),
    )
    want = conv_definition.reference_conv(
        np, x, w, dy, stride, pad, dilate, groups
    )
    for a, b in zip(got, want):
        assert a.dtype == dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    # one plan per geometry, its algorithm the first that works (1)
    (plan,) = cudnn._PLANS.values()
    assert plan.algos == {
        'Forward': (1, 512),
        'BackwardData': (1, 512),
        'BackwardFilter': (1, 512),
    }


def test_the_check_before_first_use_passes_with_a_correct_library(
    host_cudnn, monkeypatch
):
    monkeypatch.setattr(cudnn, '_real_cupy', lambda xp: True)
    assert cudnn.usable(host_cudnn, np.dtype('float32'))
    assert cudnn.status().startswith('cuDNN 90001 from ')
    assert cudnn.status().endswith('(float32: ok)')


def test_a_library_error_names_the_call_and_cudnns_status(
    host_cudnn, monkeypatch
):
    xp = host_cudnn
    x = xp.ascontiguousarray(np.ones((1, 2, 5, 5), dtype='float32'))
    w = xp.ascontiguousarray(np.ones((3, 2, 3, 3), dtype='float32'))
    with pytest.raises(
        cudnn.CudnnError,
        match='Forward algorithm heuristics failed: CUDNN_STATUS_BAD_PARAM',
    ):  # an output shape the convolution does not give
        cudnn.forward(xp, x, w, (1, 3, 4, 4), (1, 1), (0, 0), (1, 1), 1)
    monkeypatch.setattr(cudnn, 'choose_algorithm', lambda *args: None)
    with pytest.raises(cudnn.CudnnError, match='no Forward algorithm within'):
        cudnn.forward(xp, x, w, (1, 3, 3, 3), (1, 1), (0, 0), (1, 1), 1, 0)


def test_an_algorithm_without_workspace_gets_none(host_cudnn):
    # a limit of 0 MB leaves the stand-in's algorithm 0, which needs no
    # workspace: the library is handed a null pointer and 0 bytes
    xp = host_cudnn
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 2, 5, 5)).astype('float32')
    w = rng.standard_normal((3, 2, 3, 3)).astype('float32')
    y = cudnn.forward(xp, x, w, (1, 3, 3, 3), (1, 1), (0, 0), (1, 1), 1, 0)
    want = conv_definition.reference_conv(
        np, x, w, np.zeros((1, 3, 3, 3)), (1, 1), (0, 0), (1, 1)
    )[0]
    np.testing.assert_allclose(y, want, rtol=1e-5)
    (plan,) = cudnn._PLANS.values()
    assert plan.algos['Forward'] == (0, 0)


def test_a_hybridized_cnn_trains_the_same_on_the_cudnn_path(fake_cudnn):
    """Compiled graphs run the same operators: a hybridized CNN (with the
    fused relu + pooling step) takes two SGD steps on the cuDNN path, to
    the weights the CPU reaches."""
    import dlbook as mx
    from dlbook import gluon
    from dlbook.gluon import nn

    gpu, calls = fake_cudnn
    rng = np.random.default_rng(6)
    x = rng.standard_normal((4, 2, 8, 8)).astype('float32')
    y = np.array([0, 1, 2, 1], dtype='float32')

    def train(ctx):
        net = nn.HybridSequential()
        net.add(
            nn.Conv2D(4, 3, padding=1, activation='relu', in_channels=2),
            nn.MaxPool2D(2),
            nn.Conv2D(3, 3, strides=2, in_channels=4),  # 4x4 -> 1x1
            nn.Flatten(),
            nn.Dense(3, in_units=3),
        )
        net.initialize(mx.init.Xavier(rnd_type='gaussian'), ctx=ctx)
        for name, p in sorted(net.collect_params().items()):
            p.set_data(
                nd.array(
                    np.sin(np.arange(p.data().size)).reshape(p.shape), ctx=ctx
                )
            )
        net.hybridize()
        loss = gluon.loss.SoftmaxCrossEntropyLoss()
        trainer = gluon.Trainer(
            net.collect_params(), 'sgd', {'learning_rate': 0.1}
        )
        X, Y = nd.array(x, ctx=ctx), nd.array(y, ctx=ctx)
        for _ in range(2):
            with autograd.record():
                l = loss(net(X), Y)
            l.backward()
            trainer.step(4)
        return [
            p.data().asnumpy() for _, p in sorted(net.collect_params().items())
        ]

    on_gpu = train(gpu)
    # two convolutions, two steps: forward 4 calls; the first layer's
    # data gradient is not asked for
    assert dict(calls) == {'forward': 4, 'filter': 4, 'data': 2}
    assert calls.workspaces == {1024}  # Conv2D's default, as in MXNet
    for got, want in zip(on_gpu, train(mx_cpu())):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
