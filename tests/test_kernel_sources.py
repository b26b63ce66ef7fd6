"""The CUDA C bodies of the fused kernels, compiled and run on the CPU.

A GPU runs each :class:`~dlbook.ops.kernels.Elementwise` and
:class:`~dlbook.ops.kernels.Reduction` kernel from its CUDA C code;
everywhere else its twin runs.  Without a GPU the code would go
unchecked, so this test compiles each kernel as C++ (``g++``) in a
harness that mimics CuPy's:

* ``cupy.ElementwiseKernel``: one loop iteration per element ``i`` of
  the broadcast shape, array arguments read at ``i``, ``raw`` arguments
  indexed by the body itself, outputs written through references;
* ``cupy.ReductionKernel``: for each output element, the map expression
  over the input elements that reduce into it, combined by the reduce
  expression (``REDUCE(a, b)``) from the identity, then the post-map
  expression (``POST_MAP(a)``) with the output bound by reference and
  scalar inputs in scope.

The operators are run on NumPy with every kernel call recorded; each
recorded call is then replayed through the compiled code and the outputs
compared with the twin's (float64, so only rounding differs).
"""

import ctypes
import hashlib
import shutil
import subprocess

import numpy as np
import pytest

from dlbook import autograd, nd
from dlbook.ops import host_jit, kernels
from dlbook.ops.rnn import rnn_param_size
from dlbook.ops.update_rules.adam import (
    adam_update,
    adamax_update,
    adamw_update,
    ftml_update,
    nadam_update,
)
from dlbook.ops.update_rules.adaptive import (
    adadelta_update,
    adagrad_update,
    ftrl_update,
    rmsprop_update,
    rmspropalex_update,
)
from dlbook.ops.update_rules.lamb import lamb_phase2, lamb_update
from dlbook.ops.update_rules.norms import sum_of_squares
from dlbook.ops.update_rules.sgd import (
    dcasgd_update,
    multi_sgd_update,
    nag_mom_update,
    sgd_mom_update,
    sgd_update,
    sgld_update,
    signsgd_update,
    signum_update,
)

pytestmark = pytest.mark.skipif(
    shutil.which('g++') is None, reason='needs a C++ compiler (g++)'
)

HEADER = r"""
#include <cmath>
#include <cstddef>
using std::abs; using std::exp; using std::fmax; using std::fmin;
using std::sqrt; using std::tanh; using std::max; using std::min;
template <typename T> struct Raw {
    T *p;
    T &operator[](long long k) const { return p[k]; }
};
"""

CTYPES = {'T': None, 'int32': 'int', 'int64': 'long long', 'float64': 'double'}


def _params(spec):
    """``'raw T a, int32 n'`` -> ``[(raw, type, name), ...]``, from the
    kernels' own parser."""
    return [
        (kind.startswith('raw '), kind.split()[-1], name)
        for kind, name in kernels._split_params(spec)
    ]


def _source(kernel, ctype, kinds):
    """C++ for ``kernel`` with ``T = ctype``; ``kinds[j]`` says how
    argument ``j`` is passed: ``'raw'``, ``'array'`` or ``'scalar'``."""
    params = _params(kernel.in_params) + _params(kernel.out_params)
    n_in = len(_params(kernel.in_params))
    bind = []
    for j, ((_, typ, name), kind) in enumerate(zip(params, kinds)):
        cty = ctype if typ == 'T' else CTYPES[typ]
        ptr = f'(({cty} *)args[{j}])'
        if kind == 'raw':
            bind.append(f'Raw<{cty}> {name}{{{ptr}}};')
        elif j >= n_in:
            bind.append(f'{cty} &{name} = {ptr}[i];')
        elif kind == 'scalar':
            bind.append(f'const {cty} {name} = {ptr}[0];')
        else:
            bind.append(f'const {cty} {name} = {ptr}[i];')
    return (
        HEADER
        + 'extern "C" void run(long long n, void **args) {\n'
        + f'  typedef {ctype} T;  // as CuPy names the type placeholder\n'
        + '  for (std::ptrdiff_t i = 0; i < n; ++i) {\n    '
        + '\n    '.join(bind)
        + '\n    {\n'
        + kernel.operation
        + '\n    }\n  }\n}\n'
    )


def _reduction_source(kernel, ctype, kinds):
    """C++ for the Reduction ``kernel`` with ``T = ctype``: inputs are
    ``(n_out, n_red)`` arrays (the reduced axes last) or scalars."""
    inputs = _params(kernel.in_params)
    ((_, out_type, out_name),) = _params(kernel.out_params)
    bind, scalars = [], []
    for j, ((_, typ, name), kind) in enumerate(zip(inputs, kinds)):
        cty = ctype if typ == 'T' else CTYPES[typ]
        ptr = f'(({cty} *)args[{j}])'
        if kind == 'scalar':
            scalars.append(f'const {cty} {name} = {ptr}[0];')
        else:
            bind.append(f'const {cty} {name} = {ptr}[o * n_red + r];')
    out_cty = ctype if out_type == 'T' else CTYPES[out_type]
    return (
        HEADER
        + f'#define REDUCE(a, b) ({kernel.reduce_expr})\n'
        + f'#define POST_MAP(a) ({kernel.post_map_expr})\n'
        + 'extern "C" void run(long long n_out, long long n_red, '
        + 'void **args) {\n'
        + f'  typedef {ctype} T;\n'
        + '  '
        + '\n  '.join(scalars)
        + '\n'
        + '  for (long long o = 0; o < n_out; ++o) {\n'
        + f'    T _s = T({kernel.identity});\n'
        + '    for (long long r = 0; r < n_red; ++r) {\n      '
        + '\n      '.join(bind)
        + f'\n      T _a = ({kernel.map_expr});\n'
        + '      _s = REDUCE(_s, _a);\n    }\n'
        + f'    {out_cty} &{out_name} = (({out_cty} *)args[{len(inputs)}])[o];\n'
        + '    POST_MAP(_s);\n  }\n}\n'
    )


_LIBRARIES = {}


#: ``T`` of the kernels, as C++ names it
_C_TYPES = {np.dtype('float32'): 'float', np.dtype('float64'): 'double'}


def _run(tmp_dir, source, passed, *counts):
    """Compile ``source`` and call its ``run(*counts, args)`` on the
    arrays ``passed`` (updated in place)."""
    lib = _compiled(tmp_dir, source)
    pointers = (ctypes.c_void_p * len(passed))(
        *(b.ctypes.data for b in passed)
    )
    lib.run(*(ctypes.c_longlong(c) for c in counts), pointers)


def _compiled(tmp_dir, source):
    key = hashlib.sha1(source.encode()).hexdigest()[:16]
    if key not in _LIBRARIES:
        src = tmp_dir / f'{key}.cpp'
        lib = tmp_dir / f'{key}.so'
        src.write_text(source)
        # -ffp-contract=off: every operation rounded on its own, as the
        # twins round, whatever multiply-adds the machine has
        command = ['g++', '-O1', '-ffp-contract=off', '-shared', '-fPIC']
        done = subprocess.run(
            [*command, '-o', str(lib), str(src)],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, f'{done.stderr}\n{source}'
        _LIBRARIES[key] = ctypes.CDLL(str(lib))
    return _LIBRARIES[key]


def _replay(tmp_dir, kernel, args, size=None):
    """Run ``kernel``'s C++ body on copies of ``args`` (outputs included,
    or allocated when the call passed inputs only); returns the outputs.
    ``size`` is the index space of a kernel whose arrays are all raw."""
    params = _params(kernel.in_params) + _params(kernel.out_params)
    n_in = len(_params(kernel.in_params))
    args = list(args)
    arrays = [
        np.asarray(a)
        for (raw, _, _), a in zip(params, args)
        if not raw and isinstance(a, np.ndarray)
    ]
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    if size is not None:
        shape = (size,)
    dtype = next(
        a.dtype
        for (_, typ, _), a in zip(params, args)
        if typ == 'T' and isinstance(a, np.ndarray)
    )
    if len(args) == n_in:  # outputs allocated by the kernel
        args += [np.zeros(shape, dtype) for _ in params[n_in:]]
    passed, kinds, outputs = [], [], []
    for j, ((raw, typ, _), a) in enumerate(zip(params, args)):
        item = dtype if typ == 'T' else np.dtype(typ)
        if raw:
            buf = np.ascontiguousarray(a, dtype=item).copy()
            kinds.append('raw')
        elif isinstance(a, np.ndarray):
            buf = np.ascontiguousarray(
                np.broadcast_to(a, shape), dtype=item
            ).copy()
            kinds.append('array')
        else:
            buf = np.array([a], dtype=item)
            kinds.append('scalar')
        passed.append(buf)
        if j >= n_in:
            outputs.append(buf)
    source = _source(kernel, _C_TYPES[dtype], kinds)
    _run(tmp_dir, source, passed, int(np.prod(shape)))
    return outputs


def _replay_reduction(tmp_dir, kernel, args, axis):
    """Run the Reduction ``kernel``'s C++ on ``args`` reduced over
    ``axis``; returns its one output, the reduced axes removed."""
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    dtype = arrays[0].dtype
    axis = tuple(a % len(shape) for a in axis)
    kept = [a for a in range(len(shape)) if a not in axis]
    out_shape = tuple(shape[a] for a in kept)
    n_out = int(np.prod(out_shape))
    n_red = int(np.prod([shape[a] for a in axis]))
    passed, kinds = [], []
    for a in args:
        if isinstance(a, np.ndarray):
            full = np.broadcast_to(a, shape).transpose(kept + list(axis))
            passed.append(np.ascontiguousarray(full, dtype=dtype).copy())
            kinds.append('array')
        else:
            passed.append(np.array([a], dtype=dtype))
            kinds.append('scalar')
    out = np.zeros(out_shape, dtype)
    passed.append(out)
    source = _reduction_source(kernel, _C_TYPES[dtype], kinds)
    _run(tmp_dir, source, passed, n_out, n_red)
    return [out]


@pytest.fixture
def recorded(monkeypatch):
    """Every kernel call on NumPy: ``(kernel, inputs, outputs,
    options)``, the arguments copied before the twin runs and the outputs
    after (``options``: a Reduction's ``axis``)."""
    calls = []
    call = kernels._Kernel.__call__

    def recording(self, xp, *args, **options):
        before = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        result = call(self, xp, *args, **options)
        n_in = len(_params(self.in_params))
        if len(args) == n_in:
            outs = result if isinstance(result, tuple) else (result,)
        else:
            outs = args[n_in:]
        calls.append((self, before, [np.array(o) for o in outs], options))
        return result

    monkeypatch.setattr(kernels._Kernel, '__call__', recording)
    # the twins, not the compiled CPU loops some kernels have (those are
    # checked against the twins in tests/ops/test_host_loops.py)
    monkeypatch.setitem(host_jit._STATE, 'enabled', False)
    return calls


def _batch_norm(fix_gamma):
    x = nd.random.uniform(-2, 2, shape=(3, 4, 5, 5), dtype='float64')
    g = nd.random.uniform(0.5, 1.5, shape=(4,), dtype='float64')
    b = nd.random.uniform(-1, 1, shape=(4,), dtype='float64')
    mm = nd.zeros((4,), dtype='float64')
    mv = nd.ones((4,), dtype='float64')
    for a in (x, g, b):
        a.attach_grad()
    with autograd.record():
        y = nd.BatchNorm(x, g, b, mm, mv, fix_gamma=fix_gamma)
    y.backward(nd.random.uniform(-1, 1, shape=y.shape, dtype='float64'))


def _batch_norm_device():
    """The BatchNorm kernels that only a GPU calls (NumPy stores
    ``x - mean`` instead): called directly on NumPy data."""
    from dlbook.ops import batch_norm_steps

    rng = np.random.RandomState(2)
    x = rng.uniform(-2, 2, size=(3, 4, 5, 5))
    dy = rng.uniform(-1, 1, size=x.shape)
    shape, axes, count = (1, 4, 1, 1), (0, 2, 3), 75.0
    mean = batch_norm_steps.CHANNEL_MEAN(np, x, count, axis=axes)
    var = batch_norm_steps.CHANNEL_VARIANCE(
        np, x, mean.reshape(shape), count, axis=axes
    )
    invstd = (1 / np.sqrt(var + 1e-3)).reshape(shape)
    gamma = rng.uniform(0.5, 1.5, size=shape)
    xhat, _ = batch_norm_steps.BN_NORMALIZE(
        np, x, mean.reshape(shape), invstd, gamma, -gamma
    )
    # with the relu of a fused BatchNorm + relu: about half the outputs
    # negative before it
    batch_norm_steps.BN_NORMALIZE_RELU(
        np, x, mean.reshape(shape), invstd, gamma, -gamma
    )
    dy_xhat = batch_norm_steps.SUM_OF_PRODUCTS(np, dy, xhat, axis=axes)
    dbeta = dy.sum(axis=axes)
    batch_norm_steps.BN_GRAD(
        np,
        dy,
        xhat,
        dbeta.reshape(shape),
        dy_xhat.reshape(shape),
        gamma,
        invstd,
        count,
    )


def _lstm(clip, mode='lstm'):
    steps, batch, width, hidden = 4, 3, 5, 6
    x = nd.random.uniform(-1, 1, shape=(steps, batch, width), dtype='float64')
    size = rnn_param_size(mode, 1, width, hidden)
    params = nd.random.uniform(-0.5, 0.5, shape=(size,), dtype='float64')
    h0 = nd.random.uniform(-1, 1, shape=(1, batch, hidden), dtype='float64')
    c0 = nd.random.uniform(-1, 1, shape=(1, batch, hidden), dtype='float64')
    extra = (
        {
            'lstm_state_clip_min': -0.3,
            'lstm_state_clip_max': 0.3,
            'lstm_state_clip_nan': True,
        }
        if clip
        else {}
    )
    states = (h0, c0) if mode == 'lstm' else (h0,)
    for a in (x, params) + states:
        a.attach_grad()
    with autograd.record():
        y = nd.RNN(
            x,
            params,
            *states,
            state_size=hidden,
            num_layers=1,
            mode=mode,
            **extra,
        )
    y.backward(nd.random.uniform(-1, 1, shape=y.shape, dtype='float64'))


def _col2im(stride, kernel):
    """The GPU's col2im kernel is called on GPUs only: call it directly
    on the dcols of a NumPy convolution."""
    from dlbook.ops.col2im import col2im_2d

    rng = np.random.RandomState(0)
    out = (9 + 2 - kernel) // stride + 1
    dcols = rng.uniform(-1, 1, size=(2, 3, kernel, kernel, out, out))
    col2im_2d(
        np,
        dcols,
        (2, 3, 9, 9),
        (kernel, kernel),
        (stride, stride),
        (1, 1),
        (1, 1),
        (out, out),
    )


def _im2col():
    """The GPU's im2col kernel is called on GPUs only: call it directly,
    both layouts, with padding, stride and dilation."""
    from dlbook.ops.im2col import im2col_2d

    x = np.random.RandomState(0).uniform(-1, 1, size=(2, 3, 7, 6))
    for stride, dilate, pad in (
        ((1, 1), (1, 1), (1, 1)),
        ((2, 1), (1, 2), (2, 0)),
    ):
        out = tuple(
            (n + 2 * p - d * 2 - 1) // s + 1
            for n, p, d, s in zip((7, 6), pad, dilate, stride)
        )
        for last in (False, True):
            im2col_2d(np, x, (3, 3), stride, dilate, pad, out, last)


def _pool2d():
    """The GPU's pooling kernels are called on GPUs only: call them
    directly, on data with ties (small integers) so the first maximum of
    a window matters."""
    from dlbook.ops import pool2d

    rng = np.random.RandomState(3)
    x = rng.randint(0, 4, size=(2, 3, 7, 8)).astype(np.float64)
    lowest = -np.inf
    for pool_type, kernel, stride, pad, include, out in [
        ('max', (3, 3), (2, 2), (1, 1), True, (4, 4)),
        ('max', (2, 2), (2, 2), (0, 0), True, (3, 4)),
        ('max', (2, 3), (2, 3), (0, 1), True, (4, 3)),  # 'full': past the end
        ('avg', (2, 3), (2, 3), (0, 1), True, (4, 3)),
        ('avg', (3, 3), (2, 2), (1, 1), True, (4, 4)),
        ('avg', (3, 3), (1, 2), (1, 1), False, (7, 4)),
        ('sum', (2, 3), (1, 1), (0, 1), True, (6, 8)),
    ]:
        geometry = (lowest, kernel, stride, pad, out, pool_type, include)
        y = pool2d.forward(np, x, *geometry)
        dy = rng.uniform(-1, 1, size=y.shape)
        pool2d.backward(np, x, y, dy, *geometry)


def _log_softmax():
    """The operator's backward (all backends) and the GPU's forward
    kernels, called directly on NumPy data."""
    from dlbook.ops import activation

    x = nd.random.uniform(-5, 5, shape=(4, 7), dtype='float64')
    x.attach_grad()
    with autograd.record():
        y = nd.log_softmax(x)
    y.backward(nd.random.uniform(-1, 1, shape=y.shape, dtype='float64'))
    raw = np.random.RandomState(5).uniform(-5, 5, size=(3, 6, 2))
    top = raw.max(axis=1, keepdims=True)
    lse = activation.LOG_SUM_EXP(np, raw, top, axis=(1,)).reshape(top.shape)
    activation.LOG_SOFTMAX_OUT(np, raw, top, lse)


def _pick():
    """The GPU's pick kernels on NumPy data: indices in and out of range,
    negative and fractional (truncated), both modes."""
    from dlbook.ops import index as index_ops

    rng = np.random.RandomState(6)
    data = rng.uniform(-1, 1, size=(3, 5, 4))
    idx = np.array(
        [[-7.5, -1.2, 0.0, 0.9], [1.5, 4.0, 4.7, 5.0], [6.0, 9.9, 2.2, 3.0]]
    )
    for wrap in (0, 1):
        y = index_ops.PICK(np, data, idx.reshape(3, 1, 4), 5, 4, wrap)
        dx = np.empty_like(data)
        dy = rng.uniform(-1, 1, size=y.shape)
        index_ops.PICK_GRAD(np, dy, idx.reshape(3, 1, 4), 5, 4, wrap, dx)


def _pad_channels_last():
    """The GPU's padded channels-last copy, called directly."""
    from dlbook.ops.windows import PAD_CHANNELS_LAST_2D

    x = np.random.RandomState(7).uniform(-1, 1, size=(2, 3, 4, 5))
    for ph, pw in ((1, 1), (2, 0), (0, 3)):
        out = np.empty((2, 4 + 2 * ph, 5 + 2 * pw, 3))
        PAD_CHANNELS_LAST_2D(np, x, 3, 4, 5, ph, pw, out)


def _grad_writes():
    from dlbook.ops.grad_writes import write_gradients

    rng = np.random.RandomState(4)
    shapes = [(3, 4), (5,), (2, 2, 2), (1,), (6,)]
    for req in ('write', 'add'):
        pairs = [
            (rng.uniform(-1, 1, shape), rng.uniform(-1, 1, shape))
            for shape in shapes
        ]
        write_gradients(np, pairs, req)


def _uniform(rng, dtype):
    """``rng.uniform`` with its values cast to ``dtype`` (the float64
    draws of the float64 workloads unchanged)."""
    return lambda low, high, size: rng.uniform(low, high, size).astype(dtype)


def _optimizers(dtype='float64', size=10):
    uniform = _uniform(np.random.RandomState(1), dtype)
    w, g, m = (uniform(-1, 1, size) for _ in range(3))
    sgd_mom_update(np, w, g, m, 0.1, 0.01, 0.9, 2.0, 0.5)
    sgd_mom_update(np, w, g, m, 0.1, 0.0, 0.9, 1.0, None)
    sgd_update(np, w, g, 0.1, 0.01, 2.0, 0.5)
    sgd_update(np, w, g, 0.1, 0.0, 1.0, None)
    # five weights: a full group of four, then one with three empty slots
    shapes = [(3, 4), (5,), (2, 2, 2), (1,), (6,)]
    ws, gs, ms = (
        [uniform(-1, 1, shape) for shape in shapes] for _ in range(3)
    )
    lrs, wds = [0.1, 0.2, 0.3, 0.1, 0.05], [0.01, 0.0, 0.02, 0.0, 0.1]
    multi_sgd_update(np, ws, gs, ms, lrs, wds, 0.9, 2.0, 0.5)
    multi_sgd_update(np, ws, gs, None, lrs, wds, 0.0, 1.0, None)


def _adaptive_optimizers(dtype='float64', size=10):
    """Each rule with weight decay and both clips, then with neither."""
    rng = np.random.RandomState(2)
    uniform = _uniform(rng, dtype)
    for clip, wd, clip_weights in ((0.5, 0.01, 0.9), (None, 0.0, None)):
        w, g = uniform(-1, 1, size), uniform(-3, 3, size)
        m, v = uniform(-1, 1, size), uniform(0, 1, size)
        d = np.zeros(size, dtype)
        nag_mom_update(np, w, g, m, 0.1, wd, 0.9, 2.0, clip)
        adam_update(np, w, g, m, v, 0.1, wd, 0.9, 0.999, 1e-8, 2.0, clip)
        adamw_update(np, w, g, m, v, 0.1, 0.5, wd, 0.9, 0.999, 1e-6, 2.0, clip)
        adagrad_update(np, w, g, v, 0.1, wd, 1e-7, 2.0, clip)
        rmsprop_update(
            np, w, g, v, 0.1, wd, 0.9, 1e-8, 2.0, clip, clip_weights
        )
        # n >= g_avg**2, as the running means keep it: no sqrt of < 0
        rmspropalex_update(
            np,
            w,
            g,
            v + m * m,
            m,
            d,
            0.1,
            wd,
            0.9,
            0.8,
            1e-8,
            2.0,
            clip,
            clip_weights,
        )
        adadelta_update(
            np, w, g, np.abs(v), np.abs(d), wd, 0.9, 1e-5, 2.0, clip
        )
        signsgd_update(np, w, g, 0.1, wd)
        signum_update(np, w, g, m, 0.1, wd, 0.9, 0.01, 2.0, clip)
        ftml_update(
            np, w, g, v + 0.5, v, d, 0.1, wd, 3, 0.6, 0.999, 1e-8, 2.0, clip
        )
        ftrl_update(np, w, g, m, np.abs(v), 0.1, wd, 0.01, 1.0, 2.0, clip)
        adamax_update(np, w, g, m, np.abs(v), 0.1, wd, 0.9, 0.999, 2.0, clip)
        # Nadam at step 3: mu_t, mu_t1, m_schedule, m_schedule_next
        schedule = (0.88, 0.89, 0.6, 0.55)
        nadam_update(
            np, w, g, m, v, 0.1, wd, 3, 0.9, 0.999, 1e-8, *schedule, 2.0, clip
        )
        previous = w + uniform(-0.1, 0.1, size)
        dcasgd_update(np, w, g, None, previous, 0.1, wd, 0.0, 0.04, 2.0, clip)
        dcasgd_update(np, w, g, m, previous, 0.1, wd, 0.9, 0.04, 2.0, clip)
        sgld_update(np, rng, w, g, 0.1, wd, 2.0, clip)


def _lamb(dtype='float64', size=5):
    """LAMB with bias correction, both bounds and clipping, then with
    none; phase 2 with a bound moving ``r1`` and with ``r1`` or ``r2``
    at 0; the sum of squares of ``multi_sum_sq``."""
    uniform = _uniform(np.random.RandomState(3), dtype)
    for clip, bias, lower, upper in (
        (0.5, True, 0.1, 5.0),
        (None, 0, None, None),
    ):
        w, g = uniform(-1, 1, (2, size)), uniform(-3, 3, (2, size))
        m, v = uniform(-1, 1, (2, size)), uniform(0, 1, (2, size))
        lamb_update(
            np,
            w,
            g,
            m,
            v,
            0.01,
            0.01,
            3,
            0.9,
            0.999,
            1e-6,
            bias,
            lower,
            upper,
            2.0,
            clip,
        )
    w, d = uniform(-1, 1, 6), uniform(-1, 1, 6)
    for r1, r2, lower, upper in (
        (10.0, 0.5, 0.0, 2.0),
        (0.0, 0.5, 1.0, None),
        (0.0, 0.5, None, None),
        (3.0, 0.0, None, None),
    ):
        r1, r2 = np.array(r1, dtype), np.array(r2, dtype)
        lamb_phase2(np, w, d, r1, r2, 0.1, lower, upper)
    sum_of_squares(np, uniform(-1, 1, (2, 3, 4)))


def _activations():
    x = nd.random.uniform(-30, 30, shape=(4, 5), dtype='float64')
    x.attach_grad()
    with autograd.record():
        y = nd.relu(x) + nd.sigmoid(x) + nd.tanh(x / 10)
    y.backward()


def _dropout():
    for dtype in ('float64', 'float32'):
        x = nd.random.uniform(-1, 1, shape=(4, 5), dtype=dtype)
        with autograd.record():  # training: the mask is drawn
            nd.Dropout(x, p=0.3)


WORKLOADS = {
    'batch_norm': lambda: _batch_norm(False),
    'batch_norm_fix_gamma': lambda: _batch_norm(True),
    'batch_norm_device': _batch_norm_device,
    'lstm': lambda: _lstm(False),
    'lstm_clipped': lambda: _lstm(True),
    'gru': lambda: _lstm(False, mode='gru'),
    'col2im_stride2': lambda: _col2im(2, 3),
    'col2im_stride1': lambda: _col2im(1, 3),
    'im2col': _im2col,
    'optimizers': _optimizers,
    'adaptive_optimizers': _adaptive_optimizers,
    'lamb': _lamb,
    'grad_writes': _grad_writes,
    'log_softmax': _log_softmax,
    'pick': _pick,
    'pad_channels_last': _pad_channels_last,
    'pool2d': _pool2d,
    'activations': _activations,
    'dropout': _dropout,
}


def _replayed(tmp_path, recorded):
    """``(kernel, the body's outputs, the twin's outputs)`` of every
    recorded call."""
    for kernel, args, twin_outputs, options in recorded:
        if isinstance(kernel, kernels.Reduction):
            outputs = _replay_reduction(tmp_path, kernel, args, **options)
        else:
            outputs = _replay(tmp_path, kernel, args, **options)
        yield kernel, outputs, twin_outputs


@pytest.mark.parametrize('workload', sorted(WORKLOADS))
def test_kernel_bodies_compute_what_their_twins_compute(
    workload, recorded, tmp_path
):
    WORKLOADS[workload]()
    assert recorded, 'the workload called no kernel'
    for kernel, outputs, twin_outputs in _replayed(tmp_path, recorded):
        for got, want in zip(outputs, twin_outputs):
            np.testing.assert_allclose(
                got.reshape(want.shape),
                want,
                rtol=1e-12,
                atol=1e-12,
                err_msg=kernel.name,
            )


#: The update rules on float32 data, 100 elements per weight
FLOAT32_WORKLOADS = {
    'optimizers': lambda: _optimizers('float32', 100),
    'adaptive_optimizers': lambda: _adaptive_optimizers('float32', 100),
    'lamb': lambda: _lamb('float32', 50),
}


@pytest.mark.parametrize('workload', sorted(FLOAT32_WORKLOADS))
def test_float32_update_rules_round_as_their_twins(
    workload, recorded, tmp_path
):
    """In float32 the body and the twin agree to the last bit, not just
    to float32's precision.

    The body computes ``1 - beta2`` and the like in ``T``, on scalars
    CuPy cast to float (as MXNet's kernels compute them in ``DType``);
    the twins take their scalars the same way (``kernels.as_t``), and
    the rules MXNet writes in Python pass such coefficients from the
    host, rounded once from float64, to body and twin alike.  A twin
    computing ``1 - 0.999`` in float64 instead moves Adam's ``var`` by
    1.3e-5 relative, thousands of ulps.  The reductions (norms, sums of
    squares) add in another order than NumPy's: a few ulps there.
    """
    FLOAT32_WORKLOADS[workload]()
    for kernel, outputs, twin_outputs in _replayed(tmp_path, recorded):
        for got, want in zip(outputs, twin_outputs):
            if want.dtype != np.float32:
                continue
            # a NaN compares equal to a NaN: it would hide what follows it
            assert np.isfinite(want).all(), kernel.name
            try:
                np.testing.assert_array_max_ulp(
                    got.reshape(want.shape),
                    want,
                    maxulp=4 if isinstance(kernel, kernels.Reduction) else 0,
                )
            except AssertionError as err:
                raise AssertionError(f'{kernel.name}: {err}') from None


def test_every_kernel_is_covered(recorded, tmp_path):
    """A new kernel needs a workload above."""
    for workload in WORKLOADS.values():
        workload()
    seen = {kernel.name for kernel, *_ in recorded}
    assert seen == set(kernels.KERNELS), set(kernels.KERNELS) - seen


def test_the_harness_fails_a_wrong_body(tmp_path):
    wrong = kernels.Elementwise(
        'dlbook_test_wrong', 'T x', 'T y', 'y = x * 2;', None
    )
    try:
        x = np.arange(4.0)
        (y,) = _replay(tmp_path, wrong, (x, np.empty(4)))
        np.testing.assert_array_equal(y, 2 * x)
        with pytest.raises(AssertionError):
            np.testing.assert_array_equal(y, x + 1)
    finally:
        del kernels.KERNELS['dlbook_test_wrong']


def test_the_harness_reduces_over_the_given_axes(tmp_path):
    total = kernels.Reduction(
        'dlbook_test_sum',
        'T x, T scale',
        'T y',
        'x * scale',
        'a + b',
        'y = a + 1',
        '0',
        None,
    )
    try:
        x = np.random.RandomState(0).uniform(size=(2, 3, 4))
        (y,) = _replay_reduction(tmp_path, total, (x, 2.0), axis=(0, 2))
        np.testing.assert_allclose(y, (2 * x).sum(axis=(0, 2)) + 1)
    finally:
        del kernels.KERNELS['dlbook_test_sum']
