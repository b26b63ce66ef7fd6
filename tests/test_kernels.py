"""Fused GPU kernels (``dlbook/ops/kernels.py``) and their twins.

* On a real GPU each kernel must agree with its twin: the same operator
  is run with the fast path on (kernels) and off (twins) on ``gpu(0)``.
* Without a GPU the strict fake CuPy counts device calls, each kernel as
  one launch, so the tests check that a training step's operators issue
  few launches: a GPU step is bound by them.
"""

import numpy
import pytest

import dlbook as mx
from dlbook import autograd, gluon, nd
from dlbook.backend import fake_cupy, on_host
from dlbook.ops import fastpath, kernels
from dlbook.ops.rnn import rnn_param_size
from dlbook.ops.update_rules.sgd import (
    multi_sgd_update,
    sgd_mom_update,
    sgd_update,
)


def _batch_norm(x, fix_gamma=False):
    c = x.shape[1]
    g = nd.random.uniform(0.5, 1.5, shape=(c,), ctx=x.context)
    b = nd.random.uniform(-1, 1, shape=(c,), ctx=x.context)
    mm = nd.zeros((c,), ctx=x.context)
    mv = nd.ones((c,), ctx=x.context)
    for p in (g, b):
        p.attach_grad()
    return (
        lambda: nd.BatchNorm(x, g, b, mm, mv, fix_gamma=fix_gamma),
        [g, b],
        [mm, mv],
    )


def _conv(stride, kernel):
    def make(x):
        w = nd.random.uniform(-1, 1, shape=(5, x.shape[1], kernel, kernel))
        w = w.as_in_context(x.context)
        w.attach_grad()
        return (
            lambda: nd.Convolution(
                x,
                w,
                kernel=(kernel, kernel),
                stride=(stride, stride),
                pad=(kernel // 2, kernel // 2),
                dilate=(1, 1),
                num_filter=5,
                no_bias=True,
            ),
            [w],
            [],
        )

    return make


def _lstm(clip, mode='lstm'):
    def make(x):
        steps, batch, width = x.shape
        hidden = 6
        size = rnn_param_size(mode, 1, width, hidden)
        ctx = x.context
        params = nd.random.uniform(-0.5, 0.5, shape=(size,), ctx=ctx)
        h0 = nd.random.uniform(-1, 1, shape=(1, batch, hidden), ctx=ctx)
        c0 = nd.random.uniform(-1, 1, shape=(1, batch, hidden), ctx=ctx)
        clip_args = (
            {
                'lstm_state_clip_min': -0.2,
                'lstm_state_clip_max': 0.2,
                'lstm_state_clip_nan': True,
            }
            if clip
            else {}
        )
        states = [h0, c0] if mode == 'lstm' else [h0]
        return (
            lambda: nd.RNN(
                x,
                params,
                *states,
                state_size=hidden,
                num_layers=1,
                mode=mode,
                **clip_args,
            ),
            [params] + states,
            [],
        )

    return make


def _pool(pool_type, kernel, stride, pad, **extra):
    def make(x):
        return (
            lambda: nd.Pooling(
                x,
                kernel=kernel,
                stride=stride,
                pad=pad,
                pool_type=pool_type,
                **extra,
            ),
            [],
            [],
        )

    return make


def _pick(x):
    # out of range and negative: clipped
    index = nd.array([[0, 2, 4, 9, -1]] * 3, ctx=x.context)
    return lambda: nd.pick(x, index, axis=1), [], []


#: name -> (input shape, make(x) -> (forward, [arrays with .grad], [aux]))
CASES = {
    'batch_norm': ((4, 3, 5, 5), _batch_norm),
    'batch_norm_fix_gamma': (
        (4, 3, 5, 5),
        lambda x: _batch_norm(x, fix_gamma=True),
    ),
    'sigmoid': ((3, 4, 5), lambda x: (lambda: nd.sigmoid(x), [], [])),
    'relu': ((3, 4, 5), lambda x: (lambda: nd.relu(x), [], [])),
    'tanh': ((3, 4, 5), lambda x: (lambda: nd.tanh(x), [], [])),
    'dropout': ((3, 4, 5), lambda x: (lambda: nd.Dropout(x, p=0.3), [], [])),
    'dropout_axes': (
        (3, 4, 5),
        lambda x: (lambda: nd.Dropout(x, p=0.3, axes=(1,)), [], []),
    ),
    'col2im_stride2': ((2, 3, 9, 9), _conv(2, 3)),
    'col2im_7x7': ((2, 3, 12, 12), _conv(2, 7)),
    'max_pool_3x3_s2': ((2, 3, 9, 8), _pool('max', (3, 3), (2, 2), (1, 1))),
    'max_pool_full': (
        (2, 3, 7, 8),
        _pool('max', (2, 3), (2, 3), (0, 1), pooling_convention='full'),
    ),
    'avg_pool_exclude_pad': (
        (2, 3, 9, 8),
        _pool('avg', (3, 3), (2, 2), (1, 1), count_include_pad=False),
    ),
    'log_softmax': (
        (3, 4, 5),
        lambda x: (lambda: nd.log_softmax(x, axis=1), [], []),
    ),
    'pick': ((3, 4, 5), _pick),
    'lstm': ((5, 3, 4), _lstm(clip=False)),
    'lstm_clipped': ((5, 3, 4), _lstm(clip=True)),
    'gru': ((5, 3, 4), _lstm(clip=False, mode='gru')),
}


def _set_up(case, ctx):
    """``(x, forward, params, aux)`` of one case on ``ctx``, the input
    and the parameters with gradient buffers."""
    shape, make = CASES[case]
    x = nd.random.uniform(-2, 2, shape=shape, ctx=ctx)
    x.attach_grad()
    forward, params, aux = make(x)
    for p in params:
        p.attach_grad()
    return x, forward, params, aux


def _run(ctx, case):
    """Outputs, gradients and aux states of one case on ``ctx``."""
    mx.random.seed(3)
    x, forward, params, aux = _set_up(case, ctx)
    with autograd.record():
        y = forward()
    cot = nd.random.uniform(-1, 1, shape=y.shape, ctx=ctx, dtype=y.dtype)
    y.backward(cot)
    arrays = [y, x.grad] + [p.grad for p in params] + aux
    return [a.asnumpy() for a in arrays]


@pytest.mark.parametrize('case', sorted(CASES))
def test_kernels_agree_with_twins(ctx, case):
    """Fast path on (kernels on a GPU) == off (twins).  On the CPU the
    switch also changes the convolution code (fast path or reference)."""
    with fastpath.use(True):
        fast = _run(ctx, case)
    with fastpath.use(False):
        slow = _run(ctx, case)
    for a, b in zip(fast, slow):
        # float32; a GPU kernel may round differently (fused multiply-add)
        numpy.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)


def test_sgd_kernel_agrees_with_twin(ctx):
    """One fused plain-SGD update (with clipping and weight decay)
    equals the array operations and MXNet's formula."""
    xp = ctx.xp
    rng = numpy.random.RandomState(1)
    w0, g0 = (rng.uniform(-1, 1, 20) for _ in range(2))
    results = []
    for fast in (True, False):
        w, g = (xp.asarray(a.copy()) for a in (w0, g0))
        with fastpath.use(fast):
            sgd_update(xp, w, g, 0.1, 0.01, 2.0, 0.5)
        results.append(ctx.backend.to_numpy(w))
    want = (1 - 0.1 * 0.01) * w0 - 0.1 * numpy.clip(2.0 * g0, -0.5, 0.5)
    for w in results:
        numpy.testing.assert_allclose(w, want, rtol=1e-12)


def test_sgd_momentum_kernel_agrees_with_twin(ctx):
    """One fused SGD-momentum update (with clipping and weight decay)
    equals the array operations; MXNet's values checked by hand."""
    xp = ctx.xp
    rng = numpy.random.RandomState(0)
    w0, g0, m0 = (rng.uniform(-1, 1, 20) for _ in range(3))
    results = []
    for fast in (True, False):
        w, g, m = (xp.asarray(a.copy()) for a in (w0, g0, m0))
        with fastpath.use(fast):
            sgd_mom_update(xp, w, g, m, 0.1, 0.01, 0.9, 2.0, 0.5)
        results.append([ctx.backend.to_numpy(a) for a in (w, m)])
    clipped = numpy.clip(2.0 * g0, -0.5, 0.5)
    mom = 0.9 * m0 - 0.1 * 0.01 * w0 - 0.1 * clipped
    for w, m in results:
        numpy.testing.assert_allclose(m, mom, rtol=1e-12)
        numpy.testing.assert_allclose(w, w0 + mom, rtol=1e-12)


# -- the registry ----------------------------------------------------------------


def test_registry_names_are_unique():
    with pytest.raises(ValueError, match='already registered'):
        kernels.Elementwise('dlbook_sigmoid', 'T x', 'T y', 'y = x;', None)


def test_numpy_runs_the_twin():
    calls = []

    def twin(xp, x, y):
        calls.append(xp)
        y[...] = x + 1

    k = kernels.Elementwise('dlbook_test_twin', 'T x', 'T y', 'y = x+1;', twin)
    try:
        x = numpy.arange(3.0)
        y = numpy.empty(3)
        k(numpy, x, y)
        assert calls == [numpy]
        numpy.testing.assert_array_equal(y, [1, 2, 3])
        assert not kernels.compiled(numpy)
        assert on_host(numpy)
    finally:
        del kernels.KERNELS['dlbook_test_twin']


def test_a_body_that_does_not_compile_falls_back_to_the_twin(monkeypatch):
    """CuPy raises CompileException at a kernel's first call when the
    CUDA toolkit rejects its body: the twin then runs, with a warning,
    and keeps running."""

    class CompileException(Exception):
        pass

    class FakeKernel:
        def __init__(self, *args):
            pass

        def __call__(self, *args):
            raise CompileException('error: identifier "fmax" is undefined\n')

    class FakeCupy:
        __name__ = 'cupy'
        ElementwiseKernel = FakeKernel

    def twin(xp, x, y):
        y[...] = x + 1

    monkeypatch.setattr(kernels, 'compiled', lambda xp: True)
    k = kernels.Elementwise('dlbook_test_broken', 'T x', 'T y', 'y =', twin)
    try:
        x, y = numpy.arange(3.0), numpy.zeros(3)
        with pytest.warns(RuntimeWarning, match='dlbook_test_broken'):
            k(FakeCupy(), x, y)
        numpy.testing.assert_array_equal(y, [1, 2, 3])
        assert 'fmax' in k.failed
        y[...] = 0
        k(FakeCupy(), x, y)  # no second attempt, no second warning
        numpy.testing.assert_array_equal(y, [1, 2, 3])
    finally:
        del kernels.KERNELS['dlbook_test_broken']


def test_one_float_dtype():
    f32 = numpy.zeros(2, 'float32')
    assert kernels._one_float_dtype((f32, 1.0, 3))
    assert not kernels._one_float_dtype((f32, numpy.zeros(2)))
    assert not kernels._one_float_dtype((numpy.zeros(2, 'float16'),))
    assert not kernels._one_float_dtype((numpy.zeros(2, 'int32'),))
    assert not kernels._one_float_dtype((1.0,))


# -- launches per operator on the fake GPU ---------------------------------------


def _launches(fn):
    with fake_cupy.count_calls() as calls:
        fn()
    return sum(calls.values()), calls


def test_fake_gpu_counts_a_kernel_once(fake_gpu):
    assert not kernels.compiled(fake_gpu.xp)
    assert not on_host(fake_gpu.xp)
    x = nd.random.uniform(shape=(4, 5), ctx=fake_gpu)
    n, calls = _launches(lambda: nd.sigmoid(x).wait_to_read())
    # one kernel, which allocates its output
    assert calls == {'dlbook_sigmoid': 1}, calls


@pytest.mark.parametrize(
    'case, forward_most, backward_most',
    [
        ('batch_norm', 5, 7),
        ('batch_norm_fix_gamma', 6, 8),
        ('log_softmax', 3, 4),
        ('pick', 1, 4),
        ('sigmoid', 1, 3),
        ('relu', 1, 3),
        ('tanh', 1, 3),
        ('dropout', 2, 3),
        ('col2im_7x7', 8, 10),
        ('max_pool_3x3_s2', 2, 4),
        ('avg_pool_exclude_pad', 2, 4),
        ('lstm', 5 * 2 + 13, 5 * 4 + 22),
        ('gru', 5 * 3 + 13, 5 * 5 + 22),
    ],
)
def test_launches_per_operator(fake_gpu, case, forward_most, backward_most):
    """Upper bounds on the device calls of one forward and one backward
    (with the tape's own writes of the gradients): a step that grows back
    to one launch per array operation fails here."""
    x, forward, params, _ = _set_up(case, fake_gpu)
    with autograd.record():
        forward()  # warm: parameters, buffers
    with autograd.record():
        n_forward, calls_f = _launches(lambda: forward())
        y = forward()
    n_backward, calls_b = _launches(lambda: y.backward())
    assert n_forward <= forward_most, calls_f
    assert n_backward <= backward_most, calls_b


def _mlp_trainer(ctx, sgd_momentum, optimizer='sgd', **options):
    """Three dense layers (six parameters) and their trainer (SGD by
    default, with ``sgd_momentum``; other optimizers take ``options``),
    after one backward.

    The layers are named afresh (dense0, dense1, dense2) on every call:
    the Trainer takes the parameters in sorted name order, as MXNet does,
    and Nadam's momentum schedule advances with every weight it updates,
    so its results depend on that order (dense10 sorts before dense9)."""
    mx.random.seed(5)
    with mx.name.NameManager():
        net = gluon.nn.HybridSequential()
        net.add(
            gluon.nn.Dense(5, in_units=4),
            gluon.nn.Dense(4, in_units=5),
            gluon.nn.Dense(3, in_units=4),
        )
    net.initialize(mx.init.Uniform(0.5), ctx=ctx)
    params = {'learning_rate': 0.1, 'wd': 0.01, 'clip_gradient': 0.3}
    params.update(options)
    if optimizer in ('sgd', 'nag'):
        params['momentum'] = sgd_momentum
    trainer = gluon.Trainer(net.collect_params(), optimizer, params)
    x = nd.array(numpy.arange(8.0).reshape(2, 4) / 8, ctx=ctx)

    def backward():
        with autograd.record():
            loss = net(x).sum()
        loss.backward()

    backward()
    return net, trainer, backward


#: Update rules with one fused kernel per weight: (optimizer, options,
#: the kernel, or the calls of one weight's update by name)
UPDATE_RULES = {
    'nag': ('nag', {}, 'dlbook_nag_mom_update'),
    'adam': ('adam', {}, 'dlbook_adam_update'),
    'adamw': ('adamw', {}, 'dlbook_adamw_update'),
    'adagrad': ('adagrad', {}, 'dlbook_adagrad_update'),
    'rmsprop': ('rmsprop', {'clip_weights': 0.4}, 'dlbook_rmsprop_update'),
    'rmsprop_centered': (
        'rmsprop',
        {'centered': True},
        'dlbook_rmspropalex_update',
    ),
    'adadelta': ('adadelta', {}, 'dlbook_adadelta_update'),
    'signum': ('signum', {'momentum': 0.9}, 'dlbook_signum_update'),
    'signsgd': ('signum', {'momentum': 0.0}, 'dlbook_signsgd_update'),
    'ftml': ('ftml', {}, 'dlbook_ftml_update'),
    'ftrl': ('ftrl', {}, 'dlbook_ftrl_update'),
    'adamax': ('adamax', {}, 'dlbook_adamax_update'),
    'nadam': ('nadam', {}, 'dlbook_nadam_update'),
    'dcasgd': ('dcasgd', {}, 'dlbook_dcasgd_update'),
    'dcasgd_momentum': (
        'dcasgd',
        {'momentum': 0.9},
        'dlbook_dcasgd_mom_update',
    ),
    # SGLD draws its noise (CuPy's RandomState.normal) for its kernel
    'sgld': ('sgld', {}, {'normal': 1, 'dlbook_sgld_update': 1}),
    # LAMB per parameter: its two phases, the two norms between them (of
    # the weight and of the direction) and the direction's allocation
    'lamb': (
        'lamb',
        {},
        {
            'empty_like': 1,
            'dlbook_lamb_phase1': 1,
            'dlbook_l2_norm': 2,
            'dlbook_lamb_phase2': 1,
        },
    ),
}


@pytest.mark.parametrize('rule', sorted(UPDATE_RULES))
def test_update_rule_is_one_launch_per_parameter(fake_gpu, rule):
    """Six parameters: six launches of the rule's kernel, nothing else
    (written with array operations, Adam was about fifteen per weight);
    SGLD: its noise and its kernel; LAMB: five calls per parameter."""
    optimizer, options, kernel = UPDATE_RULES[rule]
    per_weight = kernel if isinstance(kernel, dict) else {kernel: 1}
    net, trainer, backward = _mlp_trainer(fake_gpu, 0.9, optimizer, **options)
    trainer.step(2)
    backward()
    n, calls = _launches(lambda: trainer.step(2))
    assert calls == {name: 6 * k for name, k in per_weight.items()}, calls


@pytest.mark.parametrize('rule', sorted(UPDATE_RULES))
def test_update_rule_kernel_agrees_with_twin(ctx, rule):
    """Three training steps with the fast path on (the kernels, on a GPU)
    and off (array operations) give the same weights."""
    optimizer, options, _ = UPDATE_RULES[rule]
    results = []
    for fast in (True, False):
        with fastpath.use(fast):
            net, trainer, backward = _mlp_trainer(
                ctx, 0.9, optimizer, **options
            )
            for _ in range(3):
                trainer.step(2)
                backward()
        results.append(
            [p.data().asnumpy() for p in net.collect_params().values()]
        )
    for a, b in zip(*results):
        # float32: kernels and twins compute the same operations on the same
        # scalars (kernels.as_t), but a GPU fuses multiply-adds; compiled
        # with fma (g++ -mfma), the bodies move these weights by 2.4e-7 at
        # most.  (A twin that rounded 1 - beta2 in float64 was 2e-6 off.)
        numpy.testing.assert_allclose(a, b, rtol=1e-6, atol=5e-7)


@pytest.mark.parametrize('momentum', [0.0, 0.9])
def test_sgd_step_is_one_launch_per_four_parameters(fake_gpu, momentum):
    """Six parameters, MXNet's groups of four: two launches."""
    net, trainer, backward = _mlp_trainer(fake_gpu, momentum)
    trainer.step(2)
    backward()
    n, calls = _launches(lambda: trainer.step(2))
    name = (
        'dlbook_multi_sgd_mom_update'
        if momentum
        else 'dlbook_multi_sgd_update'
    )
    assert calls == {name: 2}, calls


@pytest.mark.parametrize('momentum', [0.0, 0.9])
def test_grouped_sgd_on_a_gpu_matches_the_cpu(fake_gpu, momentum):
    """Three steps of the grouped kernels (fake GPU) give the weights the
    one-weight-at-a-time updates give on the CPU."""
    results = []
    for ctx in (mx.cpu(), fake_gpu):
        net, trainer, backward = _mlp_trainer(ctx, momentum)
        for _ in range(3):
            trainer.step(2)
            backward()
        results.append(
            [p.data().asnumpy() for p in net.collect_params().values()]
        )
    for a, b in zip(*results):
        numpy.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_grouped_sgd_kernel_agrees_with_one_weight_updates(ctx):
    """:func:`multi_sgd_update` (the kernel on a GPU, its twin elsewhere)
    against :func:`sgd_mom_update` weight by weight, five weights."""
    xp = ctx.xp
    rng = numpy.random.RandomState(2)
    shapes = [(3, 4), (5,), (2, 2, 2), (1,), (6,)]
    lrs, wds = [0.1, 0.2, 0.3, 0.1, 0.05], [0.01, 0.0, 0.02, 0.0, 0.1]
    start = [[rng.uniform(-1, 1, shape) for shape in shapes] for _ in range(3)]
    grouped = [[xp.asarray(a.copy()) for a in arrays] for arrays in start]
    ws, gs, ms = grouped
    multi_sgd_update(xp, ws, gs, ms, lrs, wds, 0.9, 2.0, 0.5)
    for k in range(len(shapes)):
        w, g, m = (a[k].copy() for a in start)
        sgd_mom_update(numpy, w, g, m, lrs[k], wds[k], 0.9, 2.0, 0.5)
        numpy.testing.assert_allclose(
            ctx.backend.to_numpy(ws[k]), w, rtol=1e-12
        )
        numpy.testing.assert_allclose(
            ctx.backend.to_numpy(ms[k]), m, rtol=1e-12
        )


@pytest.mark.parametrize('req', ['write', 'add'])
def test_gradients_are_written_four_per_launch(fake_gpu, req):
    """The six gradients of a backward reach their buffers in two
    launches, with the values the CPU writes one by one."""
    results = []
    for ctx in (mx.cpu(), fake_gpu):
        net, trainer, backward = _mlp_trainer(ctx, 0.0)
        params = list(net.collect_params().values())
        for p in params:
            p.grad_req = req
        with fake_cupy.count_calls() as calls:
            backward()  # with 'add', on top of the first backward's
        results.append([p.grad().asnumpy() for p in params])
        if ctx is fake_gpu:
            name = 'dlbook_grad_add' if req == 'add' else 'dlbook_grad_copy'
            assert calls[name] == 2, calls
            # not one copy (setitem) or addition per parameter
            assert calls['setitem'] + calls['add'] < len(params), calls
    for a, b in zip(*results):
        numpy.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize('size', [20, 6])  # (N, C*K, P) and channels-last
@pytest.mark.parametrize('keep_cols', [True, False])
def test_conv2d_windows_are_one_kernel(fake_gpu, monkeypatch, size, keep_cols):
    """A padded 2-D convolution gathers its windows with one kernel from
    the input (no padded copy), in forward and, when the forward's
    windows were not kept, again in backward; the values are the CPU's."""
    from dlbook.ops import convolution

    if not keep_cols:
        monkeypatch.setattr(convolution, 'KEEP_COLS_BYTES', 0)
    rng = numpy.random.RandomState(0)
    x_np = rng.uniform(-1, 1, (2, 3, size, size)).astype('float32')
    w_np = rng.uniform(-1, 1, (4, 3, 3, 3)).astype('float32')
    results = []
    for ctx in (mx.cpu(), fake_gpu):
        x, w = nd.array(x_np, ctx=ctx), nd.array(w_np, ctx=ctx)
        x.attach_grad()
        w.attach_grad()
        args = dict(kernel=(3, 3), pad=(1, 1), num_filter=4, no_bias=True)
        with autograd.record():
            if ctx is fake_gpu:
                n, calls = _launches(
                    lambda: nd.Convolution(x, w, **args).wait_to_read()
                )
                assert calls['dlbook_im2col_2d'] == 1, calls
                assert not {'zeros', 'setitem'} & set(calls), calls
                assert 'dlbook_pad_channels_last_2d' not in calls, calls
            y = nd.Convolution(x, w, **args)
        y.backward(nd.ones_like(y))
        results.append([a.asnumpy() for a in (y, x.grad, w.grad)])
    for cpu, gpu in zip(*results):
        numpy.testing.assert_allclose(gpu, cpu, rtol=1e-5, atol=1e-5)


def test_as_t_casts_settings_for_float32_data_only():
    from dlbook.ops.kernels import as_t

    f32, f64 = numpy.ones(2, numpy.float32), numpy.ones(2)
    norm = numpy.array(2.5, numpy.float32)  # a 0-d array: passed as it is
    for _ in range(2):  # the second call is answered from memory
        lr, rescale = as_t(f32, 0.1, 1)
        assert type(lr) is numpy.float32 and lr == numpy.float32(0.1)
        assert type(rescale) is numpy.float32 and rescale == 1
    assert as_t(f64, 0.1, 1) == (0.1, 1)
    lr, got = as_t(f32, 0.1, norm)
    assert got is norm and type(lr) is numpy.float32
    # 1 - 0.999 rounds in float32, as a kernel's T arithmetic does
    one, beta = as_t(f32, 1.0, 0.999)
    assert one - beta == numpy.float32(1) - numpy.float32(0.999) != 1 - 0.999
