"""Max pooling of NaN and infinities: MXNet 1.9.1's rule on every path.

MXNet starts each window at the dtype's lowest finite value and keeps an
element only if it is greater, so NaN and -inf never win, padding never
counts, and a window with nothing above that value gives the value
itself (-3.4028235e38 in float32).  The gradient goes to the first
maximum of each window, and that of a window left at the lowest value to
the window's first position (MXNet's oneDNN kernels, which pip's MXNet
runs for float32).  The expected values below were recorded with MXNet
1.9.1 (pip, float32).

Every way dlbook pools must give them: NumPy passes, compiled loops
(Numba), the reference loop over kernel offsets, global pooling, the
GPU's kernels (their array twins in the fake-GPU run) and the fused
relu + max pooling of hybridized graphs.
"""

import numpy as np
import pytest

# Load the merged table first: cases_<family> modules import from it.
import tests.ops.cases  # noqa: F401
from dlbook import autograd, nd
from dlbook.gluon import nn
from dlbook.ops import fastpath, host_jit
from dlbook.symbol.fusion import ReluMaxPool
from tests.ops.cases_pool import pool_ref
from tests.symbol.test_fusion import fused_kinds

NAN, INF = np.nan, np.inf
LOW = float(np.finfo(np.float32).min)

# name: (input (N, C, ...), Pooling attributes, MXNet's y, MXNet's dx for
# a head gradient of ones)
MXNET_CASES = {
    'NaN passed over': (
        [[[[NAN, 1], [3, 0]]]],
        dict(kernel=(2, 2), stride=(2, 2)),
        [[[[3]]]],
        [[[[0, 0, 1, 0]]]],
    ),
    'NaN only': (
        [[[[NAN, NAN], [NAN, NAN]]]],
        dict(kernel=(2, 2), stride=(2, 2)),
        [[[[LOW]]]],
        [[[[1, 0, 0, 0]]]],
    ),
    '-inf only': (
        [[[[-INF, -INF], [-INF, -INF]]]],
        dict(kernel=(2, 2), stride=(2, 2)),
        [[[[LOW]]]],
        [[[[1, 0, 0, 0]]]],
    ),
    'one number among NaN': (
        [[[[1, NAN], [NAN, NAN]]]],
        dict(kernel=(2, 2), stride=(2, 2)),
        [[[[1]]]],
        [[[[1, 0, 0, 0]]]],
    ),
    'overlapping': (
        [[[[NAN, 2, NAN], [NAN, NAN, NAN], [1, NAN, NAN]]]],
        dict(kernel=(2, 2), stride=(1, 1)),
        [[[[2, 2], [1, LOW]]]],
        [[[[0, 2, 0], [0, 1, 0], [1, 0, 0]]]],
    ),
    'padding, NaN only': (
        [[[[NAN, NAN], [NAN, NAN]]]],
        dict(kernel=(2, 2), stride=(2, 2), pad=(1, 1)),
        [[[[LOW, LOW], [LOW, LOW]]]],
        [[[[0, 0], [0, 1]]]],
    ),
    '3x3 padding 1, NaN only': (
        np.full((1, 1, 3, 3), NAN),
        dict(kernel=(3, 3), stride=(1, 1), pad=(1, 1)),
        np.full((1, 1, 3, 3), LOW),
        [[[[1, 1, 0], [1, 1, 0], [0, 0, 0]]]],
    ),
    "'full' convention, NaN only": (
        np.full((1, 1, 3, 3), NAN),
        dict(kernel=(2, 2), stride=(2, 2), pooling_convention='full'),
        np.full((1, 1, 2, 2), LOW),
        [[[[1, 0, 1], [0, 0, 0], [1, 0, 1]]]],
    ),
    '1-D': (
        [[[NAN, 1, NAN, NAN]]],
        dict(kernel=(2,), stride=(2,)),
        [[[1, LOW]]],
        [[[0, 1, 1, 0]]],
    ),
    '3-D': (
        np.where(np.arange(8) == 7, 5.0, NAN).reshape(1, 1, 2, 2, 2),
        dict(kernel=(2, 2, 2), stride=(2, 2, 2)),
        [[[[[5]]]]],
        np.where(np.arange(8) == 7, 1.0, 0.0).reshape(1, 1, 2, 2, 2),
    ),
    '3-D, NaN only': (
        np.full((1, 1, 2, 2, 2), NAN),
        dict(kernel=(2, 2, 2), stride=(2, 2, 2)),
        [[[[[LOW]]]]],
        np.where(np.arange(8) == 0, 1.0, 0.0).reshape(1, 1, 2, 2, 2),
    ),
    'global': (
        [[[[NAN, 1], [3, 0]]]],
        dict(kernel=(1, 1), global_pool=True),
        [[[[3]]]],
        [[[[0, 0, 1, 0]]]],
    ),
    'global, NaN only': (
        [[[[NAN, NAN], [NAN, NAN]]]],
        dict(kernel=(1, 1), global_pool=True),
        [[[[LOW]]]],
        [[[[1, 0, 0, 0]]]],
    ),
}

BATCH = 2048  # copies of each case: enough elements for compiled loops


class path:
    """``with path(name):`` how the host pools: 'numpy' passes, compiled
    'loops' (for arrays of any size) or the 'reference' loop over kernel
    offsets; on a GPU each runs the GPU's way."""

    def __init__(self, name, monkeypatch):
        self.name, self.monkeypatch = name, monkeypatch

    def __enter__(self):
        if self.name == 'loops' and not host_jit.compiled():
            pytest.skip('Numba is not installed')
        loops = self.name == 'loops'
        self.monkeypatch.setitem(host_jit._STATE, 'enabled', loops)
        self.monkeypatch.setattr(host_jit, 'MIN_ELEMENTS', 0)
        self.fast = fastpath.use(self.name != 'reference')
        self.fast.__enter__()

    def __exit__(self, *exc):
        self.fast.__exit__(*exc)


PATHS = ['numpy', 'loops', 'reference']


def pooled(x, dy, ctx, **attrs):
    """y and dx of ``nd.Pooling(x, pool_type='max', **attrs)``."""
    data = nd.array(x, ctx=ctx, dtype=x.dtype)
    data.attach_grad()
    with autograd.record():
        y = nd.Pooling(data, pool_type='max', **attrs)
    y.backward(nd.array(dy, ctx=ctx, dtype=x.dtype))
    return y.asnumpy(), data.grad.asnumpy()


@pytest.mark.parametrize('name', sorted(MXNET_CASES))
@pytest.mark.parametrize('how', PATHS)
@pytest.mark.parametrize('copies', [1, BATCH])
def test_max_pooling_of_nan_is_mxnets(ctx, monkeypatch, name, how, copies):
    x, attrs, y_mxnet, dx_mxnet = MXNET_CASES[name]
    x = np.repeat(np.asarray(x, 'float32'), copies, axis=0)
    y_mxnet = np.asarray(y_mxnet)
    dx_mxnet = np.reshape(dx_mxnet, (1,) + x.shape[1:])  # written flat
    with path(how, monkeypatch):
        y, dx = pooled(x, np.ones((copies,) + y_mxnet.shape[1:]), ctx, **attrs)
    np.testing.assert_array_equal(y, np.repeat(y_mxnet, copies, axis=0))
    np.testing.assert_array_equal(dx, np.repeat(dx_mxnet, copies, axis=0))


def keys(x):
    """MXNet's keys: NaN and -inf count as the lowest finite value."""
    return np.fmax(x, np.finfo(x.dtype).min)


# (input shape, attributes): tiling windows, tiling with a remainder,
# overlapping with padding, 'full' convention, 1-D and 3-D
GEOMETRIES = [
    ((4, 3, 8, 8), dict(kernel=(2, 2), stride=(2, 2))),
    ((2, 3, 7, 9), dict(kernel=(2, 2), stride=(2, 2))),
    ((3, 2, 9, 9), dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1))),
    (
        (2, 2, 7, 7),
        dict(kernel=(2, 2), stride=(2, 2), pooling_convention='full'),
    ),
    ((3, 2, 12), dict(kernel=(3,), stride=(2,))),
    ((2, 2, 4, 5, 4), dict(kernel=(2, 2, 2), stride=(2, 2, 2))),
]


def sprinkled(shape, dtype, seed):
    """Integers (ties), with NaN and -inf on a third of the elements."""
    rng = np.random.RandomState(seed)
    x = rng.randint(-3, 4, shape).astype(dtype)
    x[rng.rand(*shape) < 0.2] = np.nan
    x[rng.rand(*shape) < 0.1] = -np.inf
    return x


@pytest.mark.parametrize('shape,attrs', GEOMETRIES)
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_every_path_pools_nan_alike(ctx, monkeypatch, shape, attrs, dtype):
    """All paths agree exactly, and the values are the plain maximum of
    the keys (``pool_ref``, which clips windows to the data)."""
    x = sprinkled(shape, dtype, seed=len(shape))
    shape = nd.Pooling(nd.array(x), pool_type='max', **attrs).shape
    dy = np.random.RandomState(1).randint(1, 9, shape).astype(dtype)
    runs = {}
    for how in PATHS:
        with path(how, monkeypatch):
            runs[how] = pooled(x, dy, ctx, **attrs)
    y, dx = runs['numpy']
    assert y.dtype == np.dtype(dtype)
    assert not np.isnan(y).any() and not np.isnan(dx).any()
    for how in PATHS[1:]:
        np.testing.assert_array_equal(runs[how][0], y)
        np.testing.assert_array_equal(runs[how][1], dx)
    options = dict(attrs)
    convention = options.pop('pooling_convention', 'valid')
    expected = pool_ref(keys(x), convention=convention, **options)
    np.testing.assert_array_equal(y, expected.astype(dtype))


def relu_pool_cnn(ctx):
    net = nn.HybridSequential()
    net.add(nn.Activation('relu'), nn.MaxPool2D(2, 2), nn.Flatten())
    net.initialize(ctx=ctx)
    return net


@pytest.mark.parametrize('size', [1, BATCH])
def test_fused_relu_max_pooling_of_nan_equals_eager(ctx, size):
    """relu then max pooling, fused in a hybridized graph into a pooling
    and a relu of the pooled array: windows of NaN only (lowest value
    eager, 0 if the relu came after), of -inf only and mixed ones."""
    one = np.array(
        [[[[NAN, NAN, -INF, -INF, NAN, 2], [NAN, NAN, -INF, NAN, -1, NAN]]]],
        dtype='float32',
    )
    x = nd.array(np.repeat(one, size, axis=0), ctx=ctx)
    net = relu_pool_cnn(ctx)
    runs = []
    for hybrid in (False, True):
        if hybrid:
            net.hybridize()
        data = x.copy()
        data.attach_grad()
        with autograd.record():
            y = net(data)
        y.backward(nd.ones_like(y))
        runs.append((y.asnumpy(), data.grad.asnumpy()))
    (y_eager, dx_eager), (y_fused, dx_fused) = runs
    np.testing.assert_array_equal(y_eager[0], [LOW, 0, 2])
    np.testing.assert_array_equal(y_fused, y_eager)
    np.testing.assert_array_equal(dx_fused, dx_eager)
    assert ReluMaxPool in fused_kinds(net, ctx)
