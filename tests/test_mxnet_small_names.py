"""Small MXNet 1.9.1 names MXNet-era code uses: ``gluon.nn.SymbolBlock``,
``mx.util``, ``mx.runtime``, ``mx.base`` helpers, legacy ``nd`` helpers,
``sym.make_loss`` and ``Symbol.infer_type_partial``.  Expected values were
recorded from MXNet 1.9.1."""

import os

import numpy as np
import pytest

import dlbook as mx


def test_symbolblock_in_nn():
    # MXNet 1.9.1: mx.gluon.nn.SymbolBlock is mx.gluon.SymbolBlock -> True
    assert mx.gluon.nn.SymbolBlock is mx.gluon.SymbolBlock


# -- mx.util -------------------------------------------------------------------


def test_util_reports_classic_semantics():
    # MXNet 1.9.1 (no set_np): is_np_array() False, is_np_shape() False,
    # set_np_shape(False) returns the previous state, False
    assert mx.util.is_np_array() is False
    assert mx.util.is_np_shape() is False
    assert mx.util.set_np_shape(False) is False
    with mx.util.np_shape(False), mx.util.np_array(False):
        assert not mx.util.is_np_shape()


def test_getenv_setenv():
    # MXNet 1.9.1: getenv of an unset name is None; setenv returns None
    name = 'DLBOOK_TEST_UTIL_ENV'
    assert mx.util.getenv(name) is None
    assert mx.util.setenv(name, '1') is None
    assert mx.util.getenv(name) == '1' and os.environ[name] == '1'
    mx.util.setenv(name, None)
    assert mx.util.getenv(name) is None


# -- mx.runtime ----------------------------------------------------------------

MXNET_FEATURES = [
    'CUDA',
    'CUDNN',
    'NCCL',
    'CUDA_RTC',
    'TENSORRT',
    'CPU_SSE',
    'CPU_SSE2',
    'CPU_SSE3',
    'CPU_SSE4_1',
    'CPU_SSE4_2',
    'CPU_SSE4A',
    'CPU_AVX',
    'CPU_AVX2',
    'OPENMP',
    'SSE',
    'F16C',
    'JEMALLOC',
    'BLAS_OPEN',
    'BLAS_ATLAS',
    'BLAS_MKL',
    'BLAS_APPLE',
    'LAPACK',
    'MKLDNN',
    'OPENCV',
    'CAFFE',
    'PROFILER',
    'DIST_KVSTORE',
    'CXX14',
    'INT64_TENSOR_SIZE',
    'SIGNAL_HANDLER',
    'DEBUG',
    'TVM_OP',
]  # MXNet 1.9.1's list(Features())


def test_features_names_and_truth():
    features = mx.runtime.Features()
    assert list(features.keys()) == MXNET_FEATURES
    assert features.is_enabled('CUDA') == (
        mx.backend._load_gpu_backend() is not None
        and mx.backend._load_gpu_backend().device_count() > 0
    )
    from dlbook.backend import cudnn_library

    has_cudnn = (
        features.is_enabled('CUDA') and cudnn_library.load() is not None
    )
    assert features.is_enabled('cudnn') is has_cudnn
    assert features.is_enabled('MKLDNN') is False
    # the dist_* kvstores span processes when mpi4py is installed; NCCL
    # needs CUDA first
    import importlib.util

    assert features.is_enabled('DIST_KVSTORE') == (
        importlib.util.find_spec('mpi4py') is not None
    )
    if not features.is_enabled('CUDA'):
        assert features.is_enabled('NCCL') is False
    # MXNet 1.9.1: repr(feature) is '✖ CUDA' or '✔ CUDA'
    assert repr(features['CUDNN']) == ('✔' if has_cudnn else '✖') + ' CUDNN'
    assert repr(features)[:9] in ('[✖ CUDA, ', '[✔ CUDA, ')


def test_feature_list_and_unknown():
    fl = mx.runtime.feature_list()
    assert [f.name for f in fl] == MXNET_FEATURES
    # MXNet 1.9.1: RuntimeError "Feature 'FOO' is unknown, known features
    # are: ['CUDA', ..."
    with pytest.raises(
        RuntimeError,
        match="Feature 'FOO' is unknown, "
        r"known features are: \['CUDA'",
    ):
        mx.runtime.Features().is_enabled('foo')


def test_fake_gpus_are_not_cuda(monkeypatch):
    monkeypatch.setenv('DLBOOK_FAKE_GPUS', '2')
    assert mx.runtime.Features().is_enabled('CUDA') == (
        mx.backend._load_gpu_backend() is not None
    )


# -- mx.base -------------------------------------------------------------------


def test_base_helpers():
    # MXNet 1.9.1: py_str(b'abc') == 'abc'; NotImplementedForSymbol
    # subclasses MXNetError
    assert mx.base.py_str(b'abc') == 'abc'
    assert issubclass(mx.base.NotImplementedForSymbol, mx.base.MXNetError)
    assert mx.MXNetError is mx.base.MXNetError

    def var():
        pass

    e = mx.base.NotImplementedForSymbol(var, 'foo', 1, 2)
    # MXNet 1.9.1 (with its mx.sym.var) gives exactly this message
    assert str(e) == (
        'Function var (namely operator "foo") with arguments '
        "(<class 'int'>, <class 'int'>) is not implemented "
        'for Symbol and only available in NDArray.'
    )


def test_bool_of_symbol():
    # MXNet 1.9.1: NotImplementedForSymbol 'Function __bool__ (namely
    # operator "bool") is not implemented for Symbol and only available in
    # NDArray.'
    with pytest.raises(mx.base.NotImplementedForSymbol) as info:
        bool(mx.sym.var('x'))
    assert str(info.value) == (
        'Function __bool__ (namely operator "bool") is not implemented '
        'for Symbol and only available in NDArray.'
    )


# -- legacy nd helpers -----------------------------------------------------------


def test_from_numpy():
    # MXNet 1.9.1: from_numpy keeps float64; zero_copy makes the NumPy
    # array read-only; a transposed array raises ValueError
    a = np.arange(6, dtype='float64').reshape(2, 3)
    x = mx.nd.from_numpy(a)
    assert x.dtype == np.float64 and x.context == mx.cpu(0)
    assert not a.flags['WRITEABLE']
    np.testing.assert_array_equal(x.asnumpy(), np.arange(6).reshape(2, 3))
    b = np.arange(4, dtype='float32')
    y = mx.nd.from_numpy(b, zero_copy=False)
    b[0] = 7
    assert y.asnumpy().tolist() == [0, 1, 2, 3] and b.flags['WRITEABLE']
    with pytest.raises(ValueError, match='c-contiguous'):
        mx.nd.from_numpy(np.ones((2, 3)).T)


def test_onehot_encode_writes_out():
    # MXNet 1.9.1: [[0,1,0,0],[1,0,0,0],[0,0,1,0]], returns out itself
    out = mx.nd.zeros((3, 4))
    r = mx.nd.onehot_encode(mx.nd.array([1, 0, 2]), out)
    assert r is out
    assert out.asnumpy().tolist() == [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0]]


def test_choose_and_fill_element_0index():
    lhs = mx.nd.array([[1, 2, 3], [4, 5, 6]])
    rhs = mx.nd.array([2, 0])
    # MXNet 1.9.1: choose -> [3, 4]; fill -> [[1,2,9],[8,5,6]], lhs kept
    assert mx.nd.choose_element_0index(lhs, rhs).asnumpy().tolist() == [3, 4]
    r = mx.nd.fill_element_0index(lhs, mx.nd.array([9, 8]), rhs)
    assert r.asnumpy().tolist() == [[1, 2, 9], [8, 5, 6]]
    assert lhs.asnumpy().tolist() == [[1, 2, 3], [4, 5, 6]]
    out = mx.nd.zeros((2, 3))
    assert (
        mx.nd.fill_element_0index(lhs, mx.nd.array([9, 8]), rhs, out=out)
        is out
    )


def test_rcbrt_value_and_gradient():
    # MXNet 1.9.1: rcbrt([1, 8, 27, -8]) = [1, 0.5, 0.33333334, -0.5],
    # gradient [-0.33333334, -0.02083333, -0.00411523, -0.02083333]
    x = mx.nd.array([1, 8, 27, -8])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.rcbrt(x)
    y.backward()
    np.testing.assert_allclose(
        y.asnumpy(), [1, 0.5, 0.33333334, -0.5], rtol=1e-6
    )
    np.testing.assert_allclose(
        x.grad.asnumpy(),
        [-0.33333334, -0.02083333, -0.00411523, -0.02083333],
        rtol=1e-5,
    )


# -- sym.make_loss, infer_type_partial ------------------------------------------


def test_make_loss_symbol():
    # MXNet 1.9.1: make_loss(d, name='l').list_outputs() == ['l_loss'];
    # MakeLoss(d, name='m').list_outputs() == ['m_output']; automatic
    # names make_loss0 / makeloss0; op "make_loss" in the JSON
    d = mx.sym.var('d')
    assert mx.sym.make_loss(d, name='l').list_outputs() == ['l_loss']
    assert mx.sym.MakeLoss(d, name='m').list_outputs() == ['m_output']
    assert '"op": "make_loss"' in mx.sym.make_loss(d, name='l').tojson()


def test_make_loss_gradient_is_ones():
    # MXNet 1.9.1: y = make_loss(x * 2) gives y = 2x, x.grad = 2 everywhere
    x = mx.nd.array([[1, 2], [3, 4]])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.make_loss(x * 2)
    y.backward()
    assert y.asnumpy().tolist() == [[2, 4], [6, 8]]
    assert x.grad.asnumpy().tolist() == [[2, 2], [2, 2]]
    # MXNet 1.9.1: MakeLoss(grad_scale=2, normalization='batch') on a
    # (2, 3) input gives gradient 1.0 everywhere
    d = mx.sym.var('d')
    ex = mx.sym.MakeLoss(d, grad_scale=2.0, normalization='batch').simple_bind(
        mx.cpu(), d=(2, 3)
    )
    ex.forward(is_train=True, d=mx.nd.ones((2, 3)) * 3)
    ex.backward()
    assert ex.grad_dict['d'].asnumpy().tolist() == [[1, 1, 1]] * 2


def test_infer_type_partial():
    # MXNet 1.9.1: Group([a + b, c * 2]).infer_type_partial(a='float64')
    # == ([float64, float64, None], [float64, None], [])
    a, b, c = mx.sym.var('a'), mx.sym.var('b'), mx.sym.var('c')
    s = mx.sym.Group([a + b, c * 2])
    assert s.infer_type_partial(a='float64') == (
        [np.float64, np.float64, None],
        [np.float64, None],
        [],
    )
    assert s.infer_type_partial() == ([None] * 3, [None] * 2, [])
    with pytest.warns(UserWarning):
        assert s.infer_type(a='float64') == (None, None, None)
