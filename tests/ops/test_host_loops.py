"""The compiled CPU loops (``dlbook/ops/host_loops.py``, compiled by Numba
through ``dlbook/ops/host_jit.py``) against the NumPy code they
replace: max pooling forward and backward, sum pooling, the gradients
of relu, sigmoid and tanh, the convolutions' loops, SGD's and Adam's
updates.

Each loop is also run uncompiled (``Loop.python``, plain Python over
NumPy arrays) on small inputs, so the readable definition is checked
too; the compiled cases skip where Numba is not installed.
"""

import warnings

import numpy as np
import pytest

from dlbook.ops import REGISTRY, host_jit, host_loops, pool_fast
from dlbook.ops.unary import RELU_GRAD, SIGMOID_GRAD, TANH_GRAD
from dlbook.ops.update_rules import adam, sgd

numba_only = pytest.mark.skipif(
    not host_jit.compiled(), reason='Numba is not installed'
)


@pytest.fixture(autouse=True)
def small_arrays_too(monkeypatch):
    """The loops on (whatever ``DLBOOK_HOST_JIT`` says), and for the small
    arrays of these tests as well (by default arrays under
    ``MIN_ELEMENTS`` elements stay with NumPy)."""
    monkeypatch.setitem(host_jit._STATE, 'enabled', True)
    monkeypatch.setattr(host_jit, 'MIN_ELEMENTS', 0)


# (input shape, kernel, stride, pad): tiling windows (LeNet's), tiling
# with rows and columns left over, overlapping (a ResNet stem's 3x3
# stride 2 with padding), gaps (stride > kernel), a wide window
POOLINGS = [
    ((4, 3, 8, 8), (2, 2), (2, 2), (0, 0)),
    ((2, 3, 7, 9), (2, 2), (2, 2), (0, 0)),
    ((3, 2, 9, 9), (3, 3), (2, 2), (1, 1)),
    ((2, 2, 9, 10), (2, 2), (3, 3), (0, 0)),
    ((2, 4, 6, 8), (1, 4), (1, 4), (0, 0)),
]


def _input(shape, dtype, ties, seed=0):
    rng = np.random.RandomState(seed)
    if ties:  # after a relu: whole windows of zeros, and repeated values
        return np.maximum(rng.randint(-3, 3, shape), 0).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _pool(x, dy_seed, kernel, stride, pad, pool_type='max'):
    """Forward and backward of Pooling on NumPy."""
    op = REGISTRY['Pooling'](
        kernel=kernel, stride=stride, pad=pad, pool_type=pool_type
    )
    op.is_train = True
    y = op.forward(np, x)
    dy = np.random.RandomState(dy_seed).standard_normal(y.shape)
    return y, op.backward(np, dy.astype(x.dtype))


@numba_only
@pytest.mark.parametrize('shape,kernel,stride,pad', POOLINGS)
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('ties', [False, True])
def test_max_pooling_loops_match_numpy(
    shape, kernel, stride, pad, dtype, ties
):
    x = _input(shape, dtype, ties)
    old = host_jit.set_enabled(True)
    try:
        y_loop, dx_loop = _pool(x, 1, kernel, stride, pad)
        host_jit.set_enabled(False)
        y_numpy, dx_numpy = _pool(x, 1, kernel, stride, pad)
    finally:
        host_jit.set_enabled(old)
    assert y_loop.dtype == y_numpy.dtype == x.dtype
    np.testing.assert_array_equal(y_loop, y_numpy)
    if pool_fast.non_overlapping(kernel, stride):
        np.testing.assert_array_equal(dx_loop, dx_numpy)
    else:  # windows sharing an element add in another order
        tol = 1e-6 if dtype == 'float32' else 1e-13
        np.testing.assert_allclose(dx_loop, dx_numpy, rtol=tol, atol=tol)


TILES = [case for case in POOLINGS if case[1] == case[2]]


@numba_only
@pytest.mark.parametrize('shape,kernel,stride,pad', TILES)
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('pool_type', ['avg', 'sum'])
def test_sum_pooling_loops_match_numpy(
    shape, kernel, stride, pad, dtype, pool_type
):
    x = _input(shape, dtype, ties=False)
    old = host_jit.set_enabled(True)
    try:
        loop = _pool(x, 1, kernel, stride, pad, pool_type)
        host_jit.set_enabled(False)
        numpy = _pool(x, 1, kernel, stride, pad, pool_type)
    finally:
        host_jit.set_enabled(old)
    for got, expected in zip(loop, numpy):  # forward, backward
        assert got.dtype == expected.dtype == x.dtype
        np.testing.assert_array_equal(got, expected)


@numba_only
def test_max_pooling_ties_go_to_the_first_maximum():
    # one 2x2 window of equal values, one with its maximum twice
    x = np.array([[[[0, 0, 1, 5], [0, 0, 5, 2]]]], dtype='float32')
    dy = np.array([[[[3.0, 4.0]]]], dtype='float32')
    op = REGISTRY['Pooling'](kernel=(2, 2), stride=(2, 2), pool_type='max')
    op.is_train = True
    op.forward(np, x)
    dx = op.backward(np, dy)
    expected = [[[[3, 0, 0, 4], [0, 0, 0, 0]]]]
    np.testing.assert_array_equal(dx, expected)
    assert not np.signbit(dx).any()  # zeros are +0, as MXNet's


@pytest.mark.parametrize('shape,kernel,stride,pad', POOLINGS[:4])
def test_uncompiled_pooling_loops_define_the_step(shape, kernel, stride, pad):
    """The loops read as plain Python compute the NumPy code's values."""
    x = _input(shape, 'float64', ties=True, seed=3)
    with host_jit_off():
        y, dx = _pool(x, 2, kernel, stride, pad)
    x_pad = np.pad(
        x,
        ((0, 0), (0, 0), (pad[0],) * 2, (pad[1],) * 2),
        constant_values=np.finfo(x.dtype).min,
    )
    y_loop = np.empty_like(y)
    loop = host_loops.max_pool_2d(*kernel)
    loop.python(x_pad, y_loop, *stride, 0, x.shape[0])
    np.testing.assert_array_equal(y_loop, y)

    dy = np.random.RandomState(2).standard_normal(y.shape)
    tiles = pool_fast.non_overlapping(kernel, stride)
    dx_pad = np.zeros_like(x_pad)
    grad = host_loops.max_pool_2d_grad(*kernel, tiles)
    grad.python(x_pad, y, dy, dx_pad, *stride, 0, x.shape[0])
    crop = dx_pad[
        :, :, pad[0] : pad[0] + x.shape[2], pad[1] : pad[1] + x.shape[3]
    ]
    np.testing.assert_allclose(crop, dx, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize('shape,kernel,stride,pad', TILES[:2])
def test_uncompiled_sum_pooling_loops_define_the_step(
    shape, kernel, stride, pad
):
    x = _input(shape, 'float64', ties=False, seed=4)
    with host_jit_off():
        y, dx = _pool(x, 5, kernel, stride, pad, 'sum')
    y_loop = np.empty_like(y)
    host_loops.sum_pool_2d(*kernel).python(x, y_loop, *kernel, 0, x.shape[0])
    np.testing.assert_array_equal(y_loop, y)
    dy = np.random.RandomState(5).standard_normal(y.shape)
    dx_loop = np.zeros_like(x)
    host_loops.spread_2d(*kernel).python(dy, dx_loop, 0, x.shape[0])
    np.testing.assert_array_equal(dx_loop, dx)


class host_jit_off:
    """``with host_jit_off():`` the NumPy code only."""

    def __enter__(self):
        self.old = host_jit.set_enabled(False)

    def __exit__(self, *exc):
        host_jit.set_enabled(self.old)


#: The activation gradients with a compiled loop: (kernel, loop)
GRADIENT_LOOPS = {
    'relu': (RELU_GRAD, host_loops.relu_grad),
    'sigmoid': (SIGMOID_GRAD, host_loops.sigmoid_grad),
    'tanh': (TANH_GRAD, host_loops.tanh_grad),
}


def _gradient_case(dtype):
    """``dy`` and an output ``y`` with NaN, infinities and zeros in both."""
    rng = np.random.RandomState(0)
    dy = rng.standard_normal((6, 5, 7)).astype(dtype)
    y = np.maximum(rng.standard_normal((6, 5, 7)), 0).astype(dtype)
    dy[0, 0, :3] = [np.nan, np.inf, -np.inf]
    y[0, 0, :3] = 0.0
    y[1, 1, :4] = [np.nan, 1.0, np.inf, -np.inf]
    return dy, y


@numba_only
@pytest.mark.filterwarnings('ignore:invalid value')  # inf * 0 is NaN
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('act', sorted(GRADIENT_LOOPS))
def test_activation_grad_loops_match_numpy(dtype, act):
    """The same bits as the NumPy passes (the same operations in the
    same order and dtype), NaN and the sign of zeros included."""
    kernel, _ = GRADIENT_LOOPS[act]
    dy, y = _gradient_case(dtype)
    with host_jit_off():
        expected = kernel(np, dy, y)
    got = kernel(np, dy, y)
    assert got.dtype == expected.dtype == dy.dtype
    np.testing.assert_array_equal(got, expected)  # NaN where NumPy has it
    np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))
    out = np.empty_like(dy)
    assert kernel(np, dy, y, out) is out
    np.testing.assert_array_equal(out, expected)


@pytest.mark.filterwarnings('ignore:invalid value')
@pytest.mark.parametrize('act', sorted(GRADIENT_LOOPS))
def test_uncompiled_activation_grad_loops_define_the_step(act):
    kernel, loop = GRADIENT_LOOPS[act]
    dy, y = _gradient_case('float64')
    with host_jit_off():
        expected = kernel(np, dy, y)
    dx = np.empty_like(dy)
    loop.python(dy.reshape(-1), y.reshape(-1), dx.reshape(-1), 0, dy.size)
    np.testing.assert_array_equal(dx, expected)
    np.testing.assert_array_equal(np.signbit(dx), np.signbit(expected))


def _spy(monkeypatch, owner, name, note):
    """Replace ``owner.name`` by a wrapper that records ``note(*args)`` of
    each call before calling the original; returns the list of notes."""
    calls = []
    original = getattr(owner, name)

    def spy(*args):
        calls.append(note(*args))
        return original(*args)

    monkeypatch.setattr(owner, name, spy)
    return calls


@pytest.fixture
def pool_loop_calls(monkeypatch):
    """The kernels each max pooling loop was asked for, in order (a spy
    on the loop factory)."""
    return _spy(monkeypatch, host_loops, 'max_pool_2d', lambda *k: k)


@numba_only
def test_loops_run_where_they_apply(pool_loop_calls):
    """Used for float NumPy data, not for integers, not with the switch
    off, not with the fast path off."""
    from dlbook.ops import fastpath

    calls = pool_loop_calls
    x = _input((2, 3, 8, 8), 'float32', ties=False)
    _pool(x, 0, (2, 2), (2, 2), (0, 0))
    assert calls == [(2, 2)]
    _pool(x.astype('int32'), 0, (2, 2), (2, 2), (0, 0))
    with host_jit_off():
        _pool(x, 0, (2, 2), (2, 2), (0, 0))
    with fastpath.use(False):
        _pool(x, 0, (2, 2), (2, 2), (0, 0))
    assert calls == [(2, 2)]


@numba_only
def test_small_arrays_stay_with_numpy(pool_loop_calls, monkeypatch):
    calls = pool_loop_calls
    monkeypatch.setattr(host_jit, 'MIN_ELEMENTS', 8192)
    small = _input((2, 3, 8, 8), 'float32', ties=False)
    _pool(small, 0, (2, 2), (2, 2), (0, 0))
    assert calls == []
    _pool(
        _input((8, 16, 8, 8), 'float32', ties=False), 0, (2, 2), (2, 2), (0, 0)
    )
    assert calls == [(2, 2)]
    relu_calls = _spy(monkeypatch, RELU_GRAD, 'host', lambda dy, *_: dy.size)
    for size in (100, 10000):
        dy = np.ones(size, 'float32')
        np.testing.assert_array_equal(RELU_GRAD(np, dy, dy), dy)
    assert relu_calls == [10000]


@numba_only
def test_a_loop_numba_cannot_compile_falls_back(recwarn):
    def needs_objects(out, start, stop):
        out[start] = len({object(): 1})

    loop = host_jit.Loop(needs_objects)
    out = np.zeros(3)
    with pytest.raises(host_jit.NotCompiled):
        loop(out, 0, 3)
    assert any('could not compile' in str(w.message) for w in recwarn)
    assert loop.failed
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # warned once only
        with pytest.raises(host_jit.NotCompiled):
            loop(out, 0, 3)
    with pytest.raises(host_jit.NotCompiled):
        loop(out, 0, 3)
    # what the callers ask: False, for their NumPy code
    assert host_jit.ran(loop, out, 0, 3) is False


def test_ran_and_applies():
    def double(x, out, start, stop):
        for k in range(start, stop):
            out[k] = 2 * x[k]

    x, out = np.arange(4.0), np.zeros(4)
    assert host_jit.ran(double, x, out, 0, 4) is True
    np.testing.assert_array_equal(out, 2 * x)
    # (MIN_ELEMENTS is 0 in this module)
    assert host_jit.applies(np, x, out) == host_jit.compiled()
    assert not host_jit.applies(np, x.astype('float16'))
    assert not host_jit.applies(np, x.astype('int64'))
    assert not host_jit.applies(np, x, x.astype('float32'))  # two dtypes


def test_switch_from_the_environment(monkeypatch):
    monkeypatch.setenv('DLBOOK_HOST_JIT', '0')
    assert host_jit._from_environment() is False
    monkeypatch.setenv('DLBOOK_HOST_JIT', '1')
    assert host_jit._from_environment() is True
    old = host_jit.set_enabled(False)
    try:
        assert not host_jit.enabled(np)
    finally:
        host_jit.set_enabled(old)
    assert host_jit.enabled(np) == (old and host_jit.compiled())


@numba_only
def test_a_read_only_cache_compiles_without_it(monkeypatch):
    """Numba raises RuntimeError when no cache directory is writable:
    the loop is then compiled without a cache."""
    numba = host_jit._numba()
    njit = numba.njit
    asked = []

    def no_cache_place(*args, **options):
        asked.append(options.get('cache', False))
        if options.get('cache'):
            raise RuntimeError('cannot cache function: no locator available')
        return njit(*args, **options)

    monkeypatch.setattr(numba, 'njit', no_cache_place)

    def double(x, out, start, stop):
        for k in range(start, stop):
            out[k] = 2 * x[k]

    loop = host_jit.Loop(double)
    x = np.arange(4.0)
    out = np.empty(4)
    loop(x, out, 0, 4)
    np.testing.assert_array_equal(out, 2 * x)
    assert asked == [True, False]


# whole-row convolutions (conv_wide_rows.forward): (input, weight) shapes
WIDE_ROWS = [
    ((3, 3, 12, 12), (6, 3, 5, 5)),
    ((2, 2, 9, 11), (4, 2, 3, 2)),
]


@numba_only
@pytest.mark.parametrize('x_shape,w_shape', WIDE_ROWS)
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('with_bias', [True, False])
def test_whole_row_shifted_sum_loop_matches_numpy(
    x_shape, w_shape, dtype, with_bias
):
    from dlbook.ops import conv_wide_rows

    rng = np.random.RandomState(0)
    x = rng.standard_normal(x_shape).astype(dtype)
    w = rng.standard_normal(w_shape).astype(dtype)
    bias = rng.standard_normal(w_shape[0]).astype(dtype) if with_bias else None
    out = tuple(s - k + 1 for s, k in zip(x_shape[2:], w_shape[2:]))
    got = conv_wide_rows.forward(np, x, w, bias, out)
    with host_jit_off():
        expected = conv_wide_rows.forward(np, x, w, bias, out)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_uncompiled_shifted_sum_defines_the_step():
    rng = np.random.RandomState(1)
    kw, f, ho, wo = 3, 2, 4, 5
    p = rng.standard_normal((2, kw, f, ho, wo + kw - 1))
    bias = rng.standard_normal(f)
    out = np.empty((2, f, ho, wo))
    host_loops.shifted_sum(kw).python(p, bias, out, True, 0, 2)
    expected = sum(p[:, k, :, :, k : k + wo] for k in range(kw))
    np.testing.assert_allclose(out, expected + bias[:, None, None], rtol=1e-12)


@numba_only
@pytest.mark.parametrize('x_shape,w_shape', WIDE_ROWS)
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_whole_row_gradients_with_the_fill_loop_match_numpy(
    x_shape, w_shape, dtype
):
    """The weight and data gradients, whose shifted copies of ``dy`` the
    compiled ``fill_shifted`` writes, equal the NumPy copies' results."""
    from dlbook.ops import conv_wide_rows

    rng = np.random.RandomState(2)
    x = rng.standard_normal(x_shape).astype(dtype)
    w = rng.standard_normal(w_shape).astype(dtype)
    out = tuple(s - k + 1 for s, k in zip(x_shape[2:], w_shape[2:]))
    dy = rng.standard_normal((x_shape[0], w_shape[0]) + out).astype(dtype)

    def both():
        return (
            conv_wide_rows.weight_grad(np, x, dy, w_shape),
            conv_wide_rows.data_grad(np, dy, w, (0, 0), x_shape),
        )

    got = both()
    with host_jit_off():
        expected = both()
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)


def test_uncompiled_fill_shifted_defines_the_step():
    from dlbook.ops import conv_wide_rows

    dy = np.random.RandomState(3).standard_normal((2, 3, 4, 5))
    kw, wp = 3, 7
    loop = np.zeros((2, kw, 3, 4, wp))
    host_loops.fill_shifted.python(loop, dy, 0, 2)
    copies = np.zeros_like(loop)
    with host_jit_off():
        conv_wide_rows._fill_shifted(np, copies, dy)
    np.testing.assert_array_equal(loop, copies)


# (input, weight, stride, dilate, pad) whose data gradient takes the
# batched col2im (rows of at least conv_fast_data_grad.MIN_ROW_FOR_BATCHED_COL2IM outputs)
COL2IM = [
    ((2, 3, 26, 26), (16, 3, 3, 3), (1, 1), (1, 1), (1, 1)),
    ((2, 2, 50, 50), (5, 2, 3, 3), (2, 2), (1, 1), (1, 1)),
    ((2, 2, 30, 30), (6, 2, 3, 3), (1, 1), (2, 2), (0, 0)),
]


@numba_only
@pytest.mark.parametrize('x_shape,w_shape,stride,dilate,pad', COL2IM)
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_col2im_loop_matches_numpy(
    x_shape, w_shape, stride, dilate, pad, dtype, monkeypatch
):
    calls = _spy(monkeypatch, host_loops, 'col2im_2d', lambda d, *_: d.shape)
    rng = np.random.RandomState(4)
    x = rng.standard_normal(x_shape).astype(dtype)
    w = rng.standard_normal(w_shape).astype(dtype)

    def data_grad():
        op = REGISTRY['Convolution'](
            kernel=w_shape[2:],
            num_filter=w_shape[0],
            stride=stride,
            dilate=dilate,
            pad=pad,
            no_bias=True,
        )
        op.is_train = True
        y = op.forward(np, x, w)
        dy = np.random.RandomState(5).standard_normal(y.shape).astype(dtype)
        return op.backward(np, dy)[0]

    got = data_grad()
    assert calls, 'the compiled col2im did not run'
    with host_jit_off():
        expected = data_grad()
    np.testing.assert_array_equal(got, expected)


def test_uncompiled_col2im_defines_the_step():
    rng = np.random.RandomState(6)
    dcols = rng.standard_normal((2, 3, 2, 3, 4, 5))  # (N, C, KH, KW, Ho, Wo)
    sh, sw, dh, dw = 2, 1, 1, 2
    dx = np.zeros((2, 3, (4 - 1) * sh + (2 - 1) * dh + 1, 5 - 1 + 2 * 2 + 1))
    host_loops.col2im_2d.python(dcols, dx, sh, sw, dh, dw, 0, 2)
    expected = np.zeros_like(dx)
    for a in range(2):
        for b in range(3):
            rows = slice(a * dh, a * dh + sh * 3 + 1, sh)
            cols = slice(b * dw, b * dw + sw * 4 + 1, sw)
            expected[:, :, rows, cols] += dcols[:, :, a, b]
    np.testing.assert_array_equal(dx, expected)


# -- SGD's updates ------------------------------------------------------------


def _sgd_case(dtype):
    rng = np.random.RandomState(7)
    weight, grad, mom = (
        rng.standard_normal((40, 60)).astype(dtype) for _ in range(3)
    )
    grad[0, :3] = [np.nan, np.inf, -np.inf]
    return weight, grad, mom


def _sgd_run(momentum, weight, grad, mom, wd, clip, lr=0.01):
    """The updated (weight, mom) copies: SGD with or without momentum."""
    weight, mom = weight.copy(), mom.copy()
    with np.errstate(invalid='ignore', over='ignore'):
        if momentum:
            sgd.sgd_mom_update(
                np, weight, grad, mom, lr, wd, 0.9, 1 / 32, clip
            )
        else:
            sgd.sgd_update(np, weight, grad, lr, wd, 1 / 32, clip)
    return weight, mom


@numba_only
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('wd', [0.0, 5e-4])
@pytest.mark.parametrize('clip', [None, 0.05])
@pytest.mark.parametrize('momentum', [False, True])
def test_sgd_loops_match_numpy(monkeypatch, dtype, wd, clip, momentum):
    """The one-pass updates give the twins' bits (the settings cast to
    the weight's dtype as the twins cast them), NaN and infinities in
    the gradient included; the loop ran."""
    kernel = sgd.SGD_MOM_KERNEL if momentum else sgd.SGD_KERNEL
    calls = _spy(monkeypatch, kernel, 'host', lambda *a: a[0].size)
    case = _sgd_case(dtype)
    got = _sgd_run(momentum, *case, wd, clip)
    assert calls == [case[0].size]
    with host_jit_off():
        expected = _sgd_run(momentum, *case, wd, clip)
    for a, b in zip(got, expected):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


@numba_only
def test_sgd_loops_leave_other_numbers_to_numpy(monkeypatch):
    """A setting that is not a Python number (a NumPy float64 learning
    rate, say) follows NumPy's own casting rules: the twin runs."""
    calls = _spy(monkeypatch, sgd.SGD_MOM_KERNEL, 'host', lambda *a: 1)
    case = _sgd_case('float32')
    got = _sgd_run(True, *case, 0.0, None, lr=np.float64(0.01))
    assert calls == []
    with host_jit_off():
        expected = _sgd_run(True, *case, 0.0, None, lr=np.float64(0.01))
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize('momentum', [False, True])
@pytest.mark.parametrize('clip', [None, 0.05])
def test_uncompiled_sgd_loops_define_the_step(momentum, clip):
    weight, grad, mom = _sgd_case('float64')
    with host_jit_off():
        expected = _sgd_run(momentum, weight, grad, mom, 5e-4, clip)
    bound = -1.0 if clip is None else clip
    weight, mom = weight.copy(), mom.copy()
    flat = [a.reshape(-1) for a in (grad, weight, mom)]
    with np.errstate(invalid='ignore', over='ignore'):
        if momentum:
            host_loops.sgd_mom_update.python(
                flat[0],
                0.01,
                5e-4,
                0.9,
                1 / 32,
                bound,
                flat[1],
                flat[2],
                0,
                weight.size,
            )
        else:
            host_loops.sgd_update.python(
                flat[0], 0.01, 5e-4, 1 / 32, bound, flat[1], 0, weight.size
            )
    np.testing.assert_array_equal(weight, expected[0])
    np.testing.assert_array_equal(mom, expected[1])


def _adam_run(weight, grad, mean, var, wd, clip):
    weight, mean, var = weight.copy(), mean.copy(), var.copy()
    with np.errstate(invalid='ignore', over='ignore'):
        adam.adam_update(
            np,
            weight,
            grad,
            mean,
            var,
            0.001,
            wd,
            0.9,
            0.999,
            1e-8,
            1 / 32,
            clip,
        )
    return weight, mean, var


def _adam_case(dtype):
    weight, grad, mean = _sgd_case(dtype)
    var = np.abs(np.random.RandomState(8).standard_normal(weight.shape))
    return weight, grad, mean, var.astype(dtype)


@numba_only
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('wd', [0.0, 1e-3])
@pytest.mark.parametrize('clip', [None, 0.05])
def test_adam_loop_matches_numpy(monkeypatch, dtype, wd, clip):
    calls = _spy(monkeypatch, adam.ADAM_KERNEL, 'host', lambda *a: 1)
    case = _adam_case(dtype)
    got = _adam_run(*case, wd, clip)
    assert calls == [1]
    with host_jit_off():
        expected = _adam_run(*case, wd, clip)
    for a, b in zip(got, expected):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize('clip', [None, 0.05])
def test_uncompiled_adam_loop_defines_the_step(clip):
    weight, grad, mean, var = _adam_case('float64')
    with host_jit_off():
        expected = _adam_run(weight, grad, mean, var, 1e-3, clip)
    bound = -1.0 if clip is None else clip
    weight, mean, var = weight.copy(), mean.copy(), var.copy()
    with np.errstate(invalid='ignore', over='ignore'):
        host_loops.adam_update.python(
            *[a.reshape(-1) for a in (grad,)],
            0.001,
            1e-3,
            0.9,
            0.999,
            1e-8,
            1 / 32,
            bound,
            *[a.reshape(-1) for a in (weight, mean, var)],
            0,
            weight.size,
        )
    for a, b in zip((weight, mean, var), expected):
        np.testing.assert_array_equal(a, b)
