"""LARS and LBSGD against NumPy versions of MXNet 1.9.1's formulas.

The references below are written from ``python/mxnet/optimizer/
optimizer.py`` (``LARS``, ``LBSGD``) and the ``multi_lars`` kernel
(``src/operator/contrib/multi_lars-inl.h``), in float64, one step at a
time, and compared with dlbook on float64 weights; then the optimizers
run through the registry, the Updater's groups, ``gluon.Trainer`` and the
state files.
"""

import logging
import math

import numpy as np
import pytest

import dlbook as mx
from dlbook import autograd, nd
from dlbook import optimizer as opt
from dlbook.gluon import nn
from dlbook.gluon.loss import L2Loss
from dlbook.lr_scheduler import FactorScheduler

RNG = np.random.RandomState(1)
W0 = RNG.uniform(-1, 1, (3, 4))
GRADS = [RNG.uniform(-2, 2, (3, 4)) for _ in range(8)]


def clip(x, c):
    return np.clip(x, -c, c) if c else x


def sgd_step(w, mom, g, lr, wd, momentum, rescale_grad, clip_gradient):
    """MXNet's sgd_update / sgd_mom_update kernels."""
    g = clip(rescale_grad * g, clip_gradient)
    if momentum > 0:
        mom = momentum * mom - lr * wd * w - lr * g
        return w + mom, mom
    return (1 - lr * wd) * w - lr * g, mom


# -- references --------------------------------------------------------------


def ref_lars(
    lr,
    wd=0.0,
    momentum=0.0,
    rescale_grad=1.0,
    clip_gradient=None,
    eta=0.001,
    eps=0.0,
    lrs=None,
    skip=False,
    w0=W0,
    grads=GRADS,
):
    """``lrs``: the scheduled rate of each step (default ``lr``);
    ``skip``: a bias/gamma/beta parameter (no trust ratio)."""
    w, mom = w0.copy(), np.zeros_like(w0)
    last = None
    for t, g in enumerate(grads):
        base = lrs[t] if lrs else lr
        ratio = 1.0 if last is None or last == 0 else base / last
        last = base
        w_norm = np.sqrt(np.sum(w * w))
        g_norm = np.sqrt(np.sum(g * g))
        if w_norm > 0 and g_norm > 0 and not skip:
            lr_layer = (
                base
                * eta
                * w_norm
                / (g_norm * rescale_grad + wd * w_norm + eps)
            )
        else:
            lr_layer = base
        w, mom = sgd_step(
            w,
            mom,
            g,
            lr_layer,
            wd,
            momentum * ratio,
            rescale_grad,
            clip_gradient,
        )
    return w


def ref_lbsgd(
    lr,
    wd=0.0,
    momentum=0.0,
    rescale_grad=1.0,
    clip_gradient=None,
    warmup_strategy='linear',
    warmup_epochs=5,
    batch_scale=1,
    updates_per_epoch=32,
    begin_epoch=0,
    lrs=None,
    grads=GRADS,
):
    """``lrs``: the rate of each call (default ``lr``)."""
    w, mom = W0.copy(), np.zeros_like(W0)
    nwup = warmup_epochs * updates_per_epoch
    n = begin_epoch * updates_per_epoch
    acc = np.zeros_like(W0)
    for t, g in enumerate(grads):
        base = lrs[t] if lrs else lr
        n += 1
        acc = acc + g
        if n % batch_scale:
            continue
        g_mean, acc = acc / batch_scale, np.zeros_like(W0)
        if warmup_strategy == 'lars':
            w2, g2 = np.sum(w * w), np.sum(g_mean * g_mean)
            mult = min(max(math.sqrt(w2 / (g2 + wd * w2 + 1e-18)), 0.01), 100)
        elif n >= nwup:
            mult = batch_scale
        elif nwup <= 1:
            mult = 1.0
        else:
            frac = n / nwup
            mult = 1 + (batch_scale - 1) * {
                'linear': frac,
                'power2': frac**2,
                'sqrt': math.sqrt(frac),
            }.get(warmup_strategy, 0.0)
        w, mom = sgd_step(
            w,
            mom,
            g_mean,
            base * mult,
            wd,
            momentum,
            rescale_grad,
            clip_gradient,
        )
    return w


def run_steps(optimizer, w0=W0, grads=GRADS, dtype='float64', index=0):
    updater = opt.get_updater(optimizer)
    weight = nd.array(w0, dtype=dtype)
    for g in grads:
        updater(index, nd.array(g, dtype=dtype), weight)
    return weight


COMMON = [
    dict(),
    dict(wd=0.1),
    dict(rescale_grad=0.5, clip_gradient=0.3),
    dict(wd=0.05, rescale_grad=2.0, clip_gradient=1.0),
]


# -- LARS --------------------------------------------------------------------


@pytest.mark.parametrize('extra', COMMON, ids=str)
@pytest.mark.parametrize(
    'kwargs',
    [
        dict(learning_rate=0.5),
        dict(learning_rate=0.5, momentum=0.9),
        dict(learning_rate=2.0, momentum=0.8, eta=0.02, eps=0.1),
    ],
    ids=str,
)
def test_lars_matches_mxnet_formula(kwargs, extra):
    kwargs = dict(kwargs, **extra)
    got = run_steps(opt.create('lars', **kwargs)).asnumpy()
    ref_kwargs = dict(kwargs)
    ref_kwargs['lr'] = ref_kwargs.pop('learning_rate')
    np.testing.assert_allclose(got, ref_lars(**ref_kwargs), rtol=1e-10)
    assert not np.allclose(got, W0)


def test_lars_in_float32_on_each_device(ctx):
    o = opt.LARS(learning_rate=1.0, momentum=0.9, wd=0.01, eta=0.01)
    updater = opt.get_updater(o)
    weight = nd.array(W0, ctx=ctx)
    for g in GRADS:
        updater(0, nd.array(g, ctx=ctx), weight)
    assert weight.context == ctx and weight.dtype == np.float32
    assert updater.states[0].dtype == np.float32
    np.testing.assert_allclose(
        weight.asnumpy(),
        ref_lars(1.0, wd=0.01, momentum=0.9, eta=0.01),
        rtol=1e-5,
    )


def test_lars_defaults():
    o = opt.LARS()
    assert (o.momentum, o.eta, o.eps, o.lr) == (0.0, 0.001, 0, 0.01)
    assert o.momentum_correction and o.lazy_update
    assert o.aggregate_num == 4
    assert type(opt.create('LARS')) is opt.LARS
    assert (
        opt.create('lars', momentum=0.9).create_state(0, nd.array(W0)).shape
        == W0.shape
    )
    assert opt.create('lars').create_state(0, nd.array(W0)) is None


def test_lars_zero_weight_or_gradient_keeps_the_global_rate():
    zero = np.zeros_like(W0)
    got = run_steps(
        opt.LARS(learning_rate=0.1), w0=zero, grads=GRADS[:1]
    ).asnumpy()
    np.testing.assert_allclose(got, -0.1 * GRADS[0], rtol=1e-12)
    got = run_steps(
        opt.LARS(learning_rate=0.1, wd=0.5), grads=[zero]
    ).asnumpy()
    np.testing.assert_allclose(got, (1 - 0.1 * 0.5) * W0, rtol=1e-12)


def test_lars_names_bias_gamma_beta_skip_the_trust_ratio_and_wd():
    names = {0: 'fc_weight', 1: 'fc_bias', 2: 'bn_gamma', 3: 'bn_beta'}
    o = opt.LARS(learning_rate=0.5, momentum=0.9, wd=0.1, param_idx2name=names)
    # Unlike the other optimizers, LARS decays only ``_weight``s.
    assert [o._get_wd(i) for i in range(4)] == [0.1, 0.0, 0.0, 0.0]
    updater = opt.get_updater(o)
    weights = [nd.array(W0, dtype='float64') for _ in range(4)]
    for g in GRADS:
        updater(list(range(4)), [nd.array(g, dtype='float64')] * 4, weights)
    np.testing.assert_allclose(
        weights[0].asnumpy(), ref_lars(0.5, wd=0.1, momentum=0.9), rtol=1e-10
    )
    for w in weights[1:]:
        np.testing.assert_allclose(
            w.asnumpy(), ref_lars(0.5, momentum=0.9, skip=True), rtol=1e-10
        )


def test_lars_momentum_correction_follows_the_scheduler():
    def sched():
        return FactorScheduler(step=1, factor=0.5, base_lr=0.4)

    rates = [sched()(t) for t in range(1, len(GRADS) + 1)]
    assert len(set(rates)) > 2
    got = run_steps(
        opt.LARS(lr_scheduler=sched(), momentum=0.9, eta=0.05)
    ).asnumpy()
    ref = ref_lars(None, momentum=0.9, eta=0.05, lrs=rates)
    np.testing.assert_allclose(got, ref, rtol=1e-10)

    plain = run_steps(
        opt.LARS(
            lr_scheduler=sched(),
            momentum=0.9,
            eta=0.05,
            momentum_correction=False,
        )
    ).asnumpy()
    w, mom = W0.copy(), np.zeros_like(W0)
    for base, g in zip(rates, GRADS):
        lr_layer = base * 0.05 * np.linalg.norm(w) / np.linalg.norm(g)
        w, mom = sgd_step(w, mom, g, lr_layer, 0.0, 0.9, 1.0, None)
    np.testing.assert_allclose(plain, w, rtol=1e-10)
    assert not np.allclose(plain, got)


def test_lars_corrects_momentum_in_the_first_group_of_a_step_only():
    # As in MXNet: each ``update`` call (a group of aggregate_num weights)
    # reads the rate and remembers it, so in a step whose rate changed,
    # only the first group sees lr_now / lr_before != 1.
    o = opt.LARS(
        lr_scheduler=FactorScheduler(step=1, factor=0.5, base_lr=0.4),
        momentum=0.9,
        eta=0.05,
    )
    updater = opt.get_updater(o)
    weights = [nd.array(W0 * (i + 1), dtype='float64') for i in range(6)]
    steps = GRADS[:3]
    for g in steps:
        updater(list(range(6)), [nd.array(g, dtype='float64')] * 6, weights)
    rates = [0.4, 0.2, 0.1]
    for i, w in enumerate(weights):
        got = w.asnumpy()
        first = ref_lars(
            None,
            momentum=0.9,
            eta=0.05,
            lrs=rates,
            w0=W0 * (i + 1),
            grads=steps,
        )
        if i < 4:
            np.testing.assert_allclose(got, first, rtol=1e-10)
        else:
            wr, mom = W0 * (i + 1), np.zeros_like(W0)
            for base, g in zip(rates, steps):
                lr_layer = base * 0.05 * np.linalg.norm(wr) / np.linalg.norm(g)
                wr, mom = sgd_step(wr, mom, g, lr_layer, 0.0, 0.9, 1.0, None)
            np.testing.assert_allclose(got, wr, rtol=1e-10)
            assert not np.allclose(got, first)


def test_lars_multi_precision_updates_a_float32_master_copy():
    o = opt.LARS(
        learning_rate=1.0, momentum=0.9, eta=0.01, multi_precision=True
    )
    updater = opt.get_updater(o)
    w16 = nd.array(W0, dtype='float16')
    for g in GRADS[:3]:
        updater(0, nd.array(g, dtype='float16'), w16)
    master, mom = updater.states[0]
    assert master.dtype == np.float32 and mom.dtype == np.float32
    ref = ref_lars(
        1.0,
        momentum=0.9,
        eta=0.01,
        w0=W0.astype(np.float16).astype(np.float64),
        grads=[g.astype(np.float16).astype(np.float64) for g in GRADS[:3]],
    )
    np.testing.assert_allclose(master.asnumpy(), ref, rtol=1e-5)
    assert w16.dtype == np.float16
    np.testing.assert_allclose(w16.asnumpy(), ref.astype(np.float16))


# -- LBSGD -------------------------------------------------------------------

LBSGD_CASES = [
    dict(),
    dict(momentum=0.9),
    dict(batch_scale=2, warmup_epochs=1, updates_per_epoch=6),
    dict(
        batch_scale=2,
        warmup_epochs=1,
        updates_per_epoch=6,
        warmup_strategy='power2',
        momentum=0.9,
    ),
    dict(
        batch_scale=4,
        warmup_epochs=2,
        updates_per_epoch=4,
        warmup_strategy='sqrt',
    ),
    dict(
        batch_scale=3,
        warmup_epochs=1,
        updates_per_epoch=3,
        begin_epoch=1,
        momentum=0.5,
    ),
    dict(batch_scale=2, warmup_strategy='lars', momentum=0.9),
    dict(warmup_strategy='lars'),
    dict(
        batch_scale=2,
        warmup_strategy='unknown',
        warmup_epochs=1,
        updates_per_epoch=100,
    ),
    dict(batch_scale=2, warmup_epochs=1, updates_per_epoch=1),
]


@pytest.mark.parametrize('extra', COMMON, ids=str)
@pytest.mark.parametrize('kwargs', LBSGD_CASES, ids=str)
def test_lbsgd_matches_mxnet_formula(kwargs, extra):
    kwargs = dict(kwargs, **extra)
    got = run_steps(opt.create('lbsgd', learning_rate=0.1, **kwargs)).asnumpy()
    np.testing.assert_allclose(got, ref_lbsgd(0.1, **kwargs), rtol=1e-10)
    assert not np.allclose(got, W0)


def test_lbsgd_warmup_multipliers():
    o = opt.LBSGD(batch_scale=5, warmup_epochs=2, updates_per_epoch=10)
    assert o._get_lbmult(0) == 1.0
    assert o._get_lbmult(5) == pytest.approx(1 + 4 * 5 / 20)
    assert o._get_lbmult(20) == o._get_lbmult(50) == 5.0
    o.warmup_strategy = 'power2'
    assert o._get_lbmult(10) == pytest.approx(1 + 4 * 0.25)
    o.warmup_strategy = 'sqrt'
    assert o._get_lbmult(5) == pytest.approx(1 + 4 * 0.5)
    o.warmup_strategy = 'other'
    assert o._get_lbmult(5) == 1.0
    assert opt.LBSGD(batch_scale=5, warmup_epochs=0)._get_lbmult(0) == 5.0
    assert (
        opt.LBSGD(
            batch_scale=5, warmup_epochs=1, updates_per_epoch=1
        )._get_lbmult(0)
        == 1.0
    )


def test_lbsgd_weight_waits_for_batch_scale_gradients():
    o = opt.LBSGD(learning_rate=0.1, batch_scale=3, warmup_epochs=0)
    updater = opt.get_updater(o)
    w = nd.array(W0, dtype='float64')
    for g in GRADS[:2]:
        updater(0, nd.array(g, dtype='float64'), w)
        np.testing.assert_array_equal(w.asnumpy(), W0)
    updater(0, nd.array(GRADS[2], dtype='float64'), w)
    mean = (GRADS[0] + GRADS[1] + GRADS[2]) / 3
    np.testing.assert_allclose(w.asnumpy(), W0 - 0.1 * 3 * mean, rtol=1e-12)
    assert o.cumgrads[0] == {'cum_grad': 0, 'num_cums': 3}


def test_lbsgd_accumulates_copies_of_a_reused_gradient_buffer():
    # Trainer and Module pass the same gradient array every step.
    o = opt.LBSGD(learning_rate=0.1, batch_scale=2, warmup_epochs=0)
    updater = opt.get_updater(o)
    w = nd.array(W0, dtype='float64')
    buf = nd.array(GRADS[0], dtype='float64')
    updater(0, buf, w)
    buf[:] = nd.array(GRADS[1], dtype='float64')
    updater(0, buf, w)
    np.testing.assert_allclose(
        w.asnumpy(), W0 - 0.1 * 2 * (GRADS[0] + GRADS[1]) / 2, rtol=1e-12
    )


def test_lbsgd_reads_the_rate_before_counting_the_step():
    def sched():
        return FactorScheduler(step=1, factor=0.5, base_lr=0.4)

    o = opt.LBSGD(lr_scheduler=sched(), momentum=0.9)
    got = run_steps(o).asnumpy()
    # Call t (from 1) sees the schedule at t - 1 updates.
    rates = [sched()(t) for t in range(len(GRADS))]
    np.testing.assert_allclose(
        got, ref_lbsgd(None, momentum=0.9, lrs=rates), rtol=1e-10
    )


def test_lbsgd_defaults_and_log(caplog):
    with caplog.at_level(logging.INFO):
        o = opt.create('LBSGD', batch_scale=2)
    assert type(o) is opt.LBSGD
    assert 'Running Large-Batch SGD Algorithm' in caplog.text
    assert (
        'Batch_scale=2.000000, warmup_epochs=5, warmup_strategy='
        'linear, updates_per_epoch=32' in caplog.text
    )
    o = opt.LBSGD()
    assert (
        o.momentum,
        o.warmup_strategy,
        o.warmup_epochs,
        o.batch_scale,
        o.updates_per_epoch,
        o.init_updates,
        o.num_epochs,
        o.lr,
    ) == (0.0, 'linear', 5, 1, 32, 0, 60, 0.01)
    assert opt.LBSGD(begin_epoch=3, updates_per_epoch=10).init_updates == 30
    assert o.create_state(0, nd.array(W0)) is None
    assert (
        opt.LBSGD(momentum=0.9).create_state(0, nd.array(W0)).shape == W0.shape
    )


def test_lbsgd_multi_precision_updates_a_float32_master_copy():
    o = opt.LBSGD(learning_rate=0.1, momentum=0.9, multi_precision=True)
    updater = opt.get_updater(o)
    w16 = nd.array(W0, dtype='float16')
    for g in GRADS[:3]:
        updater(0, nd.array(g, dtype='float16'), w16)
    master, mom = updater.states[0]
    assert master.dtype == np.float32 and mom.dtype == np.float32
    np.testing.assert_allclose(
        w16.asnumpy(), master.asnumpy().astype(np.float16)
    )


# -- Trainer, Module, states -------------------------------------------------

BATCH = 6
X = RNG.normal(size=(BATCH, 4))
Y = RNG.normal(size=(BATCH, 2))
NET_W = RNG.normal(size=(2, 4)) * 0.5
NET_B = RNG.normal(size=(2,)) * 0.5


def _net_and_trainer(name, params):
    net = nn.Dense(2, in_units=4)
    net.initialize()
    net.weight.set_data(nd.array(NET_W))
    net.bias.set_data(nd.array(NET_B))
    return net, mx.gluon.Trainer(net.collect_params(), name, params)


def _grads(w, b):
    """Gradients of the summed L2Loss of the Dense layer."""
    residual = X @ w.T + b - Y
    return residual.T @ X / 2, residual.sum(axis=0) / 2


def _train(net, trainer, steps):
    for _ in range(steps):
        with autograd.record():
            loss = L2Loss()(net(nd.array(X)), nd.array(Y))
        loss.backward()
        trainer.step(BATCH)


def test_lars_through_gluon_trainer():
    net, trainer = _net_and_trainer(
        'lars',
        {'learning_rate': 1.0, 'momentum': 0.9, 'wd': 0.01, 'eta': 0.02},
    )
    assert isinstance(trainer._optimizer, opt.LARS)
    _train(net, trainer, 3)
    # Gluon names no parameter, so the bias gets the trust ratio too.
    w, b = NET_W.copy(), NET_B.copy()
    mw, mb = np.zeros_like(w), np.zeros_like(b)
    for _ in range(3):
        dw, db = _grads(w, b)
        lrs = [
            1.0
            * 0.02
            * np.linalg.norm(p)
            / (np.linalg.norm(d) / BATCH + 0.01 * np.linalg.norm(p))
            for p, d in ((w, dw), (b, db))
        ]
        w, mw = sgd_step(w, mw, dw, lrs[0], 0.01, 0.9, 1 / BATCH, None)
        b, mb = sgd_step(b, mb, db, lrs[1], 0.01, 0.9, 1 / BATCH, None)
    np.testing.assert_allclose(net.weight.data().asnumpy(), w, rtol=1e-5)
    np.testing.assert_allclose(net.bias.data().asnumpy(), b, rtol=1e-5)


def test_lbsgd_through_gluon_trainer():
    net, trainer = _net_and_trainer(
        'lbsgd',
        {
            'learning_rate': 0.1,
            'momentum': 0.9,
            'batch_scale': 2,
            'warmup_epochs': 1,
            'updates_per_epoch': 4,
        },
    )
    _train(net, trainer, 4)
    # Steps 2 and 4 update with the mean of two gradients taken at the
    # same weights; warmup multipliers 1 + (2 - 1) * 2/4 and 2.
    w, b = NET_W.copy(), NET_B.copy()
    mw, mb = np.zeros_like(w), np.zeros_like(b)
    for mult in (1.5, 2.0):
        dw, db = _grads(w, b)
        w, mw = sgd_step(w, mw, dw, 0.1 * mult, 0.0, 0.9, 1 / BATCH, None)
        b, mb = sgd_step(b, mb, db, 0.1 * mult, 0.0, 0.9, 1 / BATCH, None)
    np.testing.assert_allclose(net.weight.data().asnumpy(), w, rtol=1e-5)
    np.testing.assert_allclose(net.bias.data().asnumpy(), b, rtol=1e-5)


def test_lars_in_the_module_api_skips_biases():
    data = mx.sym.var('data')
    out = mx.sym.LinearRegressionOutput(
        mx.sym.FullyConnected(data, num_hidden=2, name='fc'), name='lro'
    )
    mod = mx.mod.Module(out, label_names=('lro_label',))
    mod.bind(
        data_shapes=[('data', (BATCH, 4))],
        label_shapes=[('lro_label', (BATCH, 2))],
    )
    mod.init_params(
        arg_params={'fc_weight': nd.array(NET_W), 'fc_bias': nd.array(NET_B)}
    )
    mod.init_optimizer(
        optimizer='lars',
        optimizer_params={'learning_rate': 1.0, 'wd': 0.01, 'eta': 0.02},
    )
    batch = mx.io.DataBatch([nd.array(X)], [nd.array(Y)])
    mod.forward_backward(batch)
    mod.update()
    # LinearRegressionOutput's gradient (out - label) / num_output is
    # L2Loss's here.
    dw, db = _grads(NET_W, NET_B)
    lr_w = (
        0.02
        * np.linalg.norm(NET_W)
        / (np.linalg.norm(dw) / BATCH + 0.01 * np.linalg.norm(NET_W))
    )
    args, _ = mod.get_params()
    np.testing.assert_allclose(
        args['fc_weight'].asnumpy(),
        (1 - lr_w * 0.01) * NET_W - lr_w * dw / BATCH,
        rtol=1e-5,
    )
    # fc_bias: plain rate, no weight decay.
    np.testing.assert_allclose(
        args['fc_bias'].asnumpy(), NET_B - 1.0 * db / BATCH, rtol=1e-5
    )


@pytest.mark.parametrize(
    'make',
    [
        lambda: opt.LARS(
            learning_rate=0.5,
            momentum=0.9,
            eta=0.05,
            lr_scheduler=FactorScheduler(step=1, factor=0.5, base_lr=0.5),
        ),
        lambda: opt.LBSGD(
            learning_rate=0.1,
            momentum=0.9,
            batch_scale=3,
            warmup_epochs=1,
            updates_per_epoch=6,
        ),
    ],
    ids=['lars', 'lbsgd'],
)
def test_states_round_trip_continues_training(make):
    straight = run_steps(make()).asnumpy()
    updater = opt.get_updater(make())
    w = nd.array(W0, dtype='float64')
    for g in GRADS[:4]:
        updater(0, nd.array(g, dtype='float64'), w)
    blob = updater.get_states(dump_optimizer=True)
    other = opt.get_updater(opt.SGD())
    other.set_states(blob)
    assert type(other.optimizer) is type(updater.optimizer)
    for g in GRADS[4:]:
        other(0, nd.array(g, dtype='float64'), w)
    np.testing.assert_allclose(w.asnumpy(), straight, rtol=1e-12)
