"""Optimizers against independent NumPy versions of MXNet's formulas.

Every reference below is written from MXNet 1.9.1's code (the update
kernels in ``src/operator/optimizer_op-inl.h`` and the Python rules in
``python/mxnet/optimizer/optimizer.py``), in float64, one step at a time,
and compared with several dlbook steps on float64 weights.
"""

import math
import pickle
import warnings

import numpy as np
import pytest

import dlbook as mx
from dlbook import nd
from dlbook import optimizer as opt
from dlbook.base import DLBookError
from dlbook.lr_scheduler import FactorScheduler

RNG = np.random.RandomState(0)
W0 = RNG.uniform(-1, 1, (3, 4))
GRADS = [RNG.uniform(-2, 2, (3, 4)) for _ in range(4)]


def clip(x, c):
    return np.clip(x, -c, c) if c is not None else x


# -- references (float64, plain NumPy) -------------------------------------


def ref_sgd(lr, wd=0.0, momentum=0.0, rescale_grad=1.0, clip_gradient=None):
    w, mom = W0.copy(), np.zeros_like(W0)
    for g in GRADS:
        g = clip(rescale_grad * g, clip_gradient)
        if momentum > 0:
            mom = momentum * mom - lr * wd * w - lr * g
            w = w + mom
        else:
            w = (1 - lr * wd) * w - lr * g
    return w


def ref_nag(lr, wd=0.0, momentum=0.0, rescale_grad=1.0, clip_gradient=None):
    w, mom = W0.copy(), np.zeros_like(W0)
    for g in GRADS:
        g = clip(rescale_grad * g, clip_gradient)
        if momentum == 0:
            w = (1 - lr * wd) * w - lr * g
            continue
        # NAGMomKernel, written as in the kernel; the optimizer passes
        # out=weight, so the momentum line reads the new weight back
        m0 = momentum * mom
        w = w - m0 + (momentum + 1) * (m0 - lr * (g + wd * w))
        mom = m0 - lr * (g + wd * w)
    return w


def ref_signum(
    lr, wd=0.0, momentum=0.9, wd_lh=0.0, rescale_grad=1.0, clip_gradient=None
):
    w, mom = W0.copy(), np.zeros_like(W0)
    for g in GRADS:
        if momentum == 0:
            w = (1 - lr * wd) * w - lr * np.sign(g)
            continue
        mom = (
            momentum * mom
            - (1 - momentum) * wd * w
            - (1 - momentum) * clip(rescale_grad * g, clip_gradient)
        )
        w = (1 - lr * wd_lh) * w + lr * np.sign(mom)
    return w


def ref_adam(
    lr,
    wd=0.0,
    beta1=0.9,
    beta2=0.999,
    epsilon=1e-8,
    rescale_grad=1.0,
    clip_gradient=None,
):
    w, m, v = W0.copy(), np.zeros_like(W0), np.zeros_like(W0)
    for t, g in enumerate(GRADS, 1):
        lr_t = lr * math.sqrt(1 - beta2**t) / (1 - beta1**t)
        g = clip(rescale_grad * g + wd * w, clip_gradient)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        w = w - lr_t * m / (np.sqrt(v) + epsilon)
    return w


def ref_adamw(
    lr,
    wd=0.0,
    beta1=0.9,
    beta2=0.999,
    epsilon=1e-6,
    correct_bias=True,
    rescale_grad=1.0,
    clip_gradient=None,
):
    w, m, v = W0.copy(), np.zeros_like(W0), np.zeros_like(W0)
    for t, g in enumerate(GRADS, 1):
        eta = lr
        if correct_bias:
            eta = lr * math.sqrt(1 - beta2**t) / (1 - beta1**t)
        g = clip(rescale_grad * g, clip_gradient)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        # contrib AdamWUpdate with lr=1, eta=bias-corrected rate
        w = w - eta * (1.0 * m / (np.sqrt(v) + epsilon) + wd * w)
    return w


def ref_adagrad(lr, wd=0.0, eps=1e-7, rescale_grad=1.0, clip_gradient=None):
    w, h = W0.copy(), np.zeros_like(W0)
    for g in GRADS:
        g = clip(rescale_grad * g, clip_gradient)
        h = h + g**2
        w = w + (g / np.sqrt(h + eps) + w * wd) * -lr
    return w


def ref_rmsprop(
    lr,
    wd=0.0,
    gamma1=0.9,
    gamma2=0.9,
    epsilon=1e-8,
    centered=False,
    clip_weights=None,
    rescale_grad=1.0,
    clip_gradient=None,
):
    w = W0.copy()
    n, gm, delta = (np.zeros_like(W0) for _ in range(3))
    for g in GRADS:
        g = clip(rescale_grad * g + wd * w, clip_gradient)
        n = (1 - gamma1) * g * g + gamma1 * n
        if centered:
            gm = (1 - gamma1) * g + gamma1 * gm
            delta = gamma2 * delta - lr * g / np.sqrt(n - gm * gm + epsilon)
            w = w + delta
        else:
            w = w - lr * (g / np.sqrt(n + epsilon))
        w = clip(w, clip_weights)
    return w


def ref_adadelta(
    wd=0.0, rho=0.9, epsilon=1e-5, rescale_grad=1.0, clip_gradient=None
):
    w, acc_g, acc_d = W0.copy(), np.zeros_like(W0), np.zeros_like(W0)
    for g in GRADS:
        g = clip(g * rescale_grad, clip_gradient)
        acc_g = rho * acc_g + (1 - rho) * g * g
        d = np.sqrt(acc_d + epsilon) / np.sqrt(acc_g + epsilon) * g
        acc_d = rho * acc_d + (1 - rho) * d * d
        w = w - (d + wd * w)
    return w


def ref_adamax(
    lr, wd=0.0, beta1=0.9, beta2=0.999, rescale_grad=1.0, clip_gradient=None
):
    w, m, u = W0.copy(), np.zeros_like(W0), np.zeros_like(W0)
    for t, g in enumerate(GRADS, 1):
        lr_t = lr / (1 - beta1**t)
        g = clip(g * rescale_grad + wd * w, clip_gradient)
        m = beta1 * m + (1 - beta1) * g
        u = np.maximum(beta2 * u, np.abs(g))
        w = w - lr_t * m / u
    return w


def ref_nadam(
    lr,
    wd=0.0,
    beta1=0.9,
    beta2=0.999,
    epsilon=1e-8,
    schedule_decay=0.004,
    rescale_grad=1.0,
    clip_gradient=None,
):
    w, m, v = W0.copy(), np.zeros_like(W0), np.zeros_like(W0)
    m_schedule = 1.0
    for t, g in enumerate(GRADS, 1):
        g = clip(g * rescale_grad + wd * w, clip_gradient)
        mu_t = beta1 * (1.0 - 0.5 * 0.96 ** (t * schedule_decay))
        mu_t1 = beta1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * schedule_decay))
        m_schedule = m_schedule * mu_t
        m_schedule_next = m_schedule * mu_t1
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        g_prime = g / (1 - m_schedule)
        m_prime = m / (1 - m_schedule_next)
        v_prime = v / (1 - beta2**t)
        m_bar = (1 - mu_t) * g_prime + mu_t1 * m_prime
        w = w - lr * m_bar / (np.sqrt(v_prime) + epsilon)
    return w


def ref_ftrl(
    lr, wd=0.0, lamda1=0.01, beta=1.0, rescale_grad=1.0, clip_gradient=None
):
    w, z, n = W0.copy(), np.zeros_like(W0), np.zeros_like(W0)
    for g in GRADS:
        g = clip(g * rescale_grad, clip_gradient)
        z = z + g - (np.sqrt(n + g * g) - np.sqrt(n)) * w / lr
        n = n + g * g
        w = (
            (np.sign(z) * lamda1 - z)
            / ((beta + np.sqrt(n)) / lr + wd)
            * (np.abs(z) > lamda1)
        )
    return w


def ref_ftml(
    lr,
    wd=0.0,
    beta1=0.6,
    beta2=0.999,
    epsilon=1e-8,
    rescale_grad=1.0,
    clip_gradient=None,
):
    w = W0.copy()
    d, v, z = (np.zeros_like(W0) for _ in range(3))
    for t, g in enumerate(GRADS, 1):
        g = clip(rescale_grad * g + wd * w, clip_gradient)
        v = beta2 * v + (1 - beta2) * g * g
        d_t = (1 - beta1**t) / lr * (np.sqrt(v / (1 - beta2**t)) + epsilon)
        z = beta1 * z + (1 - beta1) * g - (d_t - beta1 * d) * w
        d = d_t
        w = -z / d_t
    return w


def ref_lamb(
    lr,
    wd=0.0,
    beta1=0.9,
    beta2=0.999,
    epsilon=1e-6,
    lower_bound=None,
    upper_bound=None,
    bias_correction=True,
    rescale_grad=1.0,
    clip_gradient=None,
):
    w, m, v = W0.copy(), np.zeros_like(W0), np.zeros_like(W0)
    for t, g in enumerate(GRADS, 1):
        g = clip(g * rescale_grad, clip_gradient)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        if bias_correction:
            r = (m / (1 - beta1**t)) / (
                np.sqrt(v / (1 - beta2**t)) + epsilon
            ) + wd * w
        else:
            r = m / (np.sqrt(v) + epsilon) + wd * w
        r1, r2 = np.linalg.norm(w), np.linalg.norm(r)
        if lower_bound:
            r1 = max(r1, lower_bound)
        if upper_bound:
            r1 = min(r1, upper_bound)
        ratio = r1 / r2 if r1 != 0 and r2 != 0 else 1.0
        w = w - lr * ratio * r
    return w


def ref_dcasgd(
    lr, wd=0.0, momentum=0.0, lamda=0.04, rescale_grad=1.0, clip_gradient=None
):
    w, mom, prev = W0.copy(), np.zeros_like(W0), W0.copy()
    for g in GRADS:
        g = clip(g * rescale_grad, clip_gradient)
        step = -lr * (g + wd * w + lamda * g * g * (w - prev))
        mom = momentum * mom + step if momentum else step
        prev = w.copy()
        w = w + mom
    return w


# -- the table: (optimizer name, kwargs, reference) --------------------------


def _case(name, ref, **kw):
    """One row; ``learning_rate`` is passed to the reference as ``lr``."""
    ref_kw = dict(kw)
    if 'learning_rate' in ref_kw:
        ref_kw['lr'] = ref_kw.pop('learning_rate')
    return pytest.param(
        name,
        kw,
        ref,
        ref_kw,
        id=f'{name}-' + '-'.join(f'{k}={v}' for k, v in kw.items()),
    )


COMMON = [
    dict(),
    dict(wd=0.1),
    dict(rescale_grad=0.5, clip_gradient=0.3),
    dict(wd=0.05, rescale_grad=2.0),
]

CASES = []
for extra in COMMON:
    CASES += [
        _case('sgd', ref_sgd, learning_rate=0.1, **extra),
        _case('sgd', ref_sgd, learning_rate=0.1, momentum=0.9, **extra),
        _case('nag', ref_nag, learning_rate=0.1, momentum=0.9, **extra),
        _case('nag', ref_nag, learning_rate=0.1, **extra),
        _case('signum', ref_signum, learning_rate=0.05, **extra),
        _case('adam', ref_adam, learning_rate=0.01, **extra),
        _case('adamw', ref_adamw, learning_rate=0.01, **extra),
        _case('adagrad', ref_adagrad, learning_rate=0.1, **extra),
        _case('rmsprop', ref_rmsprop, learning_rate=0.01, **extra),
        _case(
            'rmsprop', ref_rmsprop, learning_rate=0.01, centered=True, **extra
        ),
        _case('adadelta', ref_adadelta, **extra),
        _case('adamax', ref_adamax, learning_rate=0.01, **extra),
        _case('nadam', ref_nadam, learning_rate=0.01, **extra),
        _case('ftrl', ref_ftrl, learning_rate=0.1, **extra),
        _case('ftml', ref_ftml, learning_rate=0.01, **extra),
        _case('lamb', ref_lamb, learning_rate=0.01, **extra),
        _case('dcasgd', ref_dcasgd, learning_rate=0.1, **extra),
        _case('dcasgd', ref_dcasgd, learning_rate=0.1, momentum=0.5, **extra),
    ]
CASES += [
    _case('signum', ref_signum, learning_rate=0.05, wd_lh=0.1),
    _case('signum', ref_signum, learning_rate=0.05, momentum=0.0, wd=0.1),
    _case('rmsprop', ref_rmsprop, learning_rate=0.1, clip_weights=0.5),
    _case(
        'rmsprop',
        ref_rmsprop,
        learning_rate=0.1,
        centered=True,
        clip_weights=0.5,
        gamma1=0.95,
        gamma2=0.8,
    ),
    _case(
        'adam',
        ref_adam,
        learning_rate=0.01,
        beta1=0.5,
        beta2=0.9,
        epsilon=1e-3,
    ),
    _case('adamw', ref_adamw, learning_rate=0.01, correct_bias=False, wd=0.1),
    _case('adadelta', ref_adadelta, rho=0.5, epsilon=1e-3),
    _case('adagrad', ref_adagrad, learning_rate=0.1, eps=1e-3),
    _case('ftrl', ref_ftrl, learning_rate=0.5, lamda1=0.1, beta=0.5),
    _case(
        'lamb', ref_lamb, learning_rate=0.01, bias_correction=False, wd=0.01
    ),
    _case(
        'lamb', ref_lamb, learning_rate=0.01, lower_bound=0.5, upper_bound=1.0
    ),
    _case('nadam', ref_nadam, learning_rate=0.01, schedule_decay=0.1),
]


def run_steps(optimizer, w0=W0, grads=GRADS, dtype='float64', index=0):
    updater = opt.get_updater(optimizer)
    weight = nd.array(w0, dtype=dtype)
    for g in grads:
        updater(index, nd.array(g, dtype=dtype), weight)
    return weight


@pytest.mark.parametrize('name, kwargs, ref, ref_kwargs', CASES)
def test_update_rule_matches_mxnet_formula(name, kwargs, ref, ref_kwargs):
    got = run_steps(opt.create(name, **kwargs)).asnumpy()
    # LAMB keeps float32 moments (as MXNet), the others float64 here.
    rtol = 1e-6 if name == 'lamb' else 1e-10
    np.testing.assert_allclose(got, ref(**ref_kwargs), rtol=rtol, atol=1e-12)


@pytest.mark.parametrize('name, kwargs, ref, ref_kwargs', CASES)
def test_update_rule_in_float32_on_each_device(
    ctx, name, kwargs, ref, ref_kwargs
):
    updater = opt.get_updater(opt.create(name, **kwargs))
    weight = nd.array(W0, ctx=ctx)
    for g in GRADS:
        updater(0, nd.array(g, ctx=ctx), weight)
    assert weight.context == ctx and weight.dtype == np.float32
    np.testing.assert_allclose(
        weight.asnumpy(), ref(**ref_kwargs), rtol=1e-3, atol=1e-4
    )


@pytest.mark.parametrize(
    'name',
    ['sgd', 'adam', 'rmsprop', 'adagrad', 'nag', 'adadelta', 'ftml', 'lamb'],
)
def test_float32_weights_and_states_keep_their_dtype(name):
    o = (
        opt.create(name, momentum=0.9)
        if name in ('sgd', 'nag')
        else opt.create(name)
    )
    weight = run_steps(o, dtype='float32')
    assert weight.dtype == np.float32
    updater = opt.get_updater(o)
    w = nd.array(W0, dtype='float32')
    updater(0, nd.array(GRADS[0], dtype='float32'), w)
    states = updater.states[0]
    states = states if isinstance(states, tuple) else (states,)
    for s in states:
        if name != 'lamb':  # LAMB keeps float32 states, like MXNet
            assert s.dtype == np.float32
        assert s.context == w.context


#: MXNet 1.9.1's float32 weight and states after two steps from
#: FLOAT32_WEIGHT with FLOAT32_GRADS (clip_gradient=1.0), as
#: (optimizer, settings, [weight, *states])
MXNET_FLOAT32_STEPS = [
    (
        'adam',
        {'learning_rate': 0.01, 'wd': 0.01},
        [
            [0.48836747, -1.2423211, 1.9809401, 0.75284964],
            [0.007940002, 0.033635005, 0.13199003, 0.09617502],
            [0.0001309943, 0.0011626, 0.0011753009, 0.0010017916],
        ],
    ),
    (
        'ftml',
        {'learning_rate': 0.01, 'wd': 0.01},
        [
            [0.49476334, -1.2472743, 1.9865775, 0.75117123],
            [16.3834, 48.80822, 49.0741, 45.307125],
            [0.0001309943, 0.0011625999, 0.0011753009, 0.0010017916],
            [-8.105906, 60.877235, -97.4895, -34.03341],
        ],
    ),
    (
        'rmsprop',
        {'learning_rate': 0.01, 'gamma1': 0.95, 'wd': 0.01},
        [
            [0.47984686, -1.2423918, 1.9375968, 0.7500358],
            [0.0063286703, 0.05724245, 0.05630124, 0.05008581],
        ],
    ),
    (
        'rmsprop',
        {'learning_rate': 0.01, 'centered': True, 'wd': 0.01},
        [
            [0.4544059, -1.2132604, 1.9226931, 0.7801658],
            [0.012187764, 0.11258889, 0.107612036, 0.10016259],
            [0.007916668, 0.03365834, 0.1319667, 0.09617502],
            [-0.012260791, 0.003406236, -0.04397361, -0.0031664688],
        ],
    ),
    (
        'adadelta',
        {'rho': 0.95, 'wd': 0.01},
        [
            [0.48734072, -1.2278949, 1.9386085, 0.72894627],
            [0.006275, 0.0576, 0.0555, 0.05011875],
            [1.5836238e-05, 2.3550878e-05, 1.2380175e-05, 2.800609e-05],
        ],
    ),
    (
        'adamax',
        {'learning_rate': 0.01, 'wd': 0.01},
        [
            [0.4886285, -1.2419945, 1.9830462, 0.7549381],
            [0.007939998, 0.033635005, 0.13199, 0.096175],
            [0.304695, 0.8876, 0.999, 1.0],
        ],
    ),
    (
        'nadam',
        {'learning_rate': 0.01, 'wd': 0.01},
        [
            [0.49453735, -1.2476795, 1.9848065, 0.75015086],
            [0.007939434, 0.033635564, 0.13198943, 0.096175],
            [0.0001309982, 0.0011626249, 0.0011753113, 0.0010018045],
        ],
    ),
    (
        'signum',
        {'learning_rate': 0.01, 'momentum': 0.95, 'wd': 0.01},
        [
            [0.48000002, -1.25, 1.98, 0.75],
            [-0.0047325017, -0.015286252, -0.069445014, -0.04836126],
        ],
    ),
    (
        'lamb',
        {'learning_rate': 0.01, 'wd': 0.01},
        [
            [0.48427856, -1.2422423, 1.9679831, 0.74741024],
            [0.007000001, 0.036000006, 0.13000003, 0.09550002],
            [0.00012990834, 0.001169625, 0.0011589851, 0.0010024846],
        ],
    ),
    (
        'sgd',
        {
            'learning_rate': 0.1,
            'momentum': 0.9,
            'wd': 0.01,
            'rescale_grad': 0.5,
        },
        [
            [0.4800655, -1.2344062, 1.8127869, 0.69757324],
            [-0.0044345, -0.01565625, -0.100213006, -0.05417675],
        ],
    ),
]
FLOAT32_WEIGHT = [0.5, -1.25, 2.0, 0.75]
FLOAT32_GRADS = [[0.3, -0.6, 1.7, -0.05], [-0.2, 0.9, 0.4, 1.1]]


@pytest.mark.parametrize('name, kwargs, want', MXNET_FLOAT32_STEPS)
def test_float32_steps_round_as_mxnet(name, kwargs, want):
    """MXNet's update kernels compute ``1 - beta2`` and the like in the
    weight's dtype, its Python rules in float64: float32 results then
    differ in far more than the last bit (``1 - 0.999f`` is 1.3e-5 off
    0.001).  dlbook's rules round as MXNet's, within a couple of ulps."""
    o = opt.create(name, clip_gradient=1.0, **kwargs)
    weight = nd.array(FLOAT32_WEIGHT)
    state = o.create_state(0, weight)
    for g in FLOAT32_GRADS:
        o.update(0, weight, nd.array(g), state)
    states = state if isinstance(state, (list, tuple)) else [state]
    arrays = [weight] + [s for s in states if s is not None]
    assert len(arrays) == len(want)
    for got, expected in zip(arrays, want):
        np.testing.assert_array_max_ulp(
            got.asnumpy(), np.float32(expected), maxulp=2
        )


def test_defaults_of_each_optimizer():
    assert opt.SGD().lr == 0.01 and opt.SGD().momentum == 0.0
    assert opt.Adam().lr == 0.001
    assert (opt.Adam().beta1, opt.Adam().beta2, opt.Adam().epsilon) == (
        0.9,
        0.999,
        1e-8,
    )
    assert opt.RMSProp().lr == 0.001 and opt.RMSProp().gamma1 == 0.9
    assert opt.AdaGrad().float_stable_eps == 1e-7
    assert (opt.AdaDelta().rho, opt.AdaDelta().epsilon) == (0.9, 1e-5)
    assert opt.Adamax().lr == 0.002
    assert opt.Ftrl().lr == 0.1
    assert opt.Signum().momentum == 0.9
    assert opt.AdamW().epsilon == 1e-6
    assert opt.LAMB().epsilon == 1e-6


def test_updates_are_in_place_on_the_raw_array():
    weight = nd.array(W0)
    raw = weight._data
    view = raw[0]
    before = view.copy()
    updater = opt.get_updater(opt.SGD(learning_rate=0.1, momentum=0.9))
    updater(0, nd.array(GRADS[0]), weight)
    assert weight._data is raw
    assert not np.allclose(view, before)


def test_grad_is_not_modified():
    for name in ['sgd', 'adam', 'adadelta', 'adagrad', 'rmsprop']:
        grad = nd.array(GRADS[0])
        updater = opt.get_updater(opt.create(name, rescale_grad=0.5))
        updater(0, grad, nd.array(W0))
        np.testing.assert_array_equal(
            grad.asnumpy(), GRADS[0].astype(np.float32)
        )


# -- clip_gradient semantics -----------------------------------------------


def test_clip_zero_or_negative_means_no_clip_for_kernel_optimizers():
    # MXNet passes clip_gradient to its C++ kernels only when truthy, and
    # the kernels ignore negative values.
    for clip_value in (0, -1.0):
        got = run_steps(
            opt.SGD(learning_rate=0.1, clip_gradient=clip_value)
        ).asnumpy()
        np.testing.assert_allclose(got, ref_sgd(0.1), rtol=1e-12)


@pytest.mark.parametrize(
    'name, kwargs',
    [
        ('adagrad', {}),
        ('adadelta', {}),
        ('adamax', {}),
        ('nadam', {}),
        ('dcasgd', {}),
        ('dcasgd', {'momentum': 0.9}),
        ('sgld', {}),
    ],
)
def test_negative_clip_clips_for_python_rules(ctx, name, kwargs):
    """MXNet's Python rules clip with any bound but None: with -0.5 every
    gradient becomes -0.5 (NumPy's clip, its bounds crossed), where a
    kernel would read -0.5 as no clipping."""
    results = []
    for clip_value, grads in ((-0.5, GRADS), (None, [np.full_like(W0, -0.5)])):
        mx.random.seed(1)  # SGLD's noise
        o = opt.create(
            name, learning_rate=0.1, clip_gradient=clip_value, **kwargs
        )
        results.append(run_steps(o, grads=grads[:1]).asnumpy())
    np.testing.assert_allclose(*results, rtol=1e-12)


def test_clip_zero_clips_everything_for_python_rules():
    got = run_steps(
        opt.AdaGrad(learning_rate=0.1, wd=0.1, clip_gradient=0)
    ).asnumpy()
    np.testing.assert_allclose(
        got, W0 * (1 - 0.1 * 0.1) ** len(GRADS), rtol=1e-12
    )


# -- learning rate, multipliers, counters ------------------------------------


class _Param:
    def __init__(self, lr_mult=1.0, wd_mult=1.0):
        self.lr_mult, self.wd_mult = lr_mult, wd_mult


def test_param_dict_lr_mult_and_wd_mult():
    o = opt.SGD(
        learning_rate=0.1,
        wd=0.1,
        param_dict={0: _Param(lr_mult=0.5, wd_mult=0.0)},
    )
    got = run_steps(o).asnumpy()
    np.testing.assert_allclose(got, ref_sgd(0.05), rtol=1e-12)
    assert o._get_lr(0) == 0.05 and o._get_wd(0) == 0.0
    assert o._get_lr(1) == 0.1 and o._get_wd(1) == 0.1
    assert o._get_lrs([0, 1]) == [0.05, 0.1]
    assert o._get_wds([0, 1]) == [0.0, 0.1]


def test_param_idx2name_turns_off_wd_for_non_weights():
    o = opt.SGD(
        learning_rate=0.1,
        wd=0.1,
        param_idx2name={
            0: 'fc_weight',
            1: 'fc_bias',
            2: 'bn_gamma',
            3: 'bn_beta',
        },
    )
    assert [o._get_wd(i) for i in range(4)] == [0.1, 0.0, 0.1, 0.0]
    o.set_wd_mult({'fc_weight': 2.0})
    assert o._get_wd(0) == pytest.approx(0.2)
    o.set_lr_mult({'fc_bias': 3.0, 0: 0.5})
    assert o._get_lr(1) == pytest.approx(0.3)
    assert o._get_lr(0) == pytest.approx(0.05)  # index beats name


def test_sym_attributes_set_multipliers():
    class FakeSym:
        def attr_dict(self):
            return {'w': {'__lr_mult__': '0.5', '__wd_mult__': '2'}}

        def list_arguments(self):
            return ['data', 'w']

    o = opt.SGD(
        learning_rate=0.1, wd=0.1, sym=FakeSym(), param_idx2name={0: 'w'}
    )
    assert o._get_lr(0) == pytest.approx(0.05)
    assert o._get_wd(0) == pytest.approx(0.2)


def test_update_counts_and_num_update():
    o = opt.SGD(begin_num_update=5)
    updater = opt.get_updater(o)
    w0, w1 = nd.array(W0), nd.array(W0)
    g = nd.array(GRADS[0])
    updater(0, g, w0)
    updater(0, g, w0)
    updater(1, g, w1)
    assert o._index_update_count == {0: 7, 1: 6}
    assert o.num_update == 7


def test_scheduler_gives_the_learning_rate():
    sched = FactorScheduler(step=2, factor=0.5, base_lr=0.4)
    o = opt.SGD(lr_scheduler=sched)
    assert o.lr is None and o.learning_rate == 0.4
    got = run_steps(o).asnumpy()
    w = W0.copy()
    for t, g in enumerate(GRADS, 1):
        w = w - 0.4 * 0.5 ** ((t - 1) // 2) * g
    np.testing.assert_allclose(got, w, rtol=1e-12)
    assert o.learning_rate == pytest.approx(0.2)
    with pytest.raises(UserWarning):
        o.set_learning_rate(0.1)


def test_learning_rate_overrides_scheduler_base_lr(capsys):
    sched = FactorScheduler(step=10, base_lr=0.5)
    o = opt.SGD(learning_rate=0.1, lr_scheduler=sched)
    assert sched.base_lr == 0.1 and o.learning_rate == 0.1
    assert 'overwritten by ``learning_rate``' in capsys.readouterr().out


def test_default_learning_rate_and_set_learning_rate():
    o = opt.SGD()
    assert o.learning_rate == 0.01
    o.set_learning_rate(0.5)
    assert o.learning_rate == 0.5 and o.lr == 0.5


def test_adam_step_count_is_per_index():
    o = opt.Adam(learning_rate=0.01)
    updater = opt.get_updater(o)
    a, b = nd.array(W0, dtype='float64'), nd.array(W0, dtype='float64')
    for g in GRADS:
        updater(0, nd.array(g, dtype='float64'), a)
    updater(1, nd.array(GRADS[0], dtype='float64'), b)  # t = 1 for index 1
    ref = ref_adam(0.01)
    np.testing.assert_allclose(a.asnumpy(), ref, rtol=1e-12)
    one = W0 - 0.01 * math.sqrt(1 - 0.999) / (1 - 0.9) * (0.1 * GRADS[0]) / (
        np.sqrt(0.001 * GRADS[0] ** 2) + 1e-8
    )
    np.testing.assert_allclose(b.asnumpy(), one, rtol=1e-12)


# -- list updates, aggregation, multi precision -------------------------------


def test_update_accepts_lists():
    o1, o2 = opt.Adam(), opt.Adam()
    ws1 = [nd.array(W0), nd.array(W0 * 2)]
    ws2 = [nd.array(W0), nd.array(W0 * 2)]
    gs = [nd.array(GRADS[0]), nd.array(GRADS[1])]
    s1 = [o1.create_state(i, w) for i, w in enumerate(ws1)]
    s2 = [o2.create_state(i, w) for i, w in enumerate(ws2)]
    o1.update([0, 1], ws1, gs, s1)
    for i in range(2):
        o2.update(i, ws2[i], gs[i], s2[i])
    for a, b in zip(ws1, ws2):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_updater_aggregates_sgd_like_mxnet():
    o = opt.SGD(learning_rate=0.1, momentum=0.9)
    assert o.aggregate_num == 4
    updater = opt.get_updater(o)
    assert updater.aggregate_updates
    ws = [nd.array(W0 + i) for i in range(6)]
    gs = [nd.array(GRADS[i % 4]) for i in range(6)]
    updater(list(range(6)), gs, ws)
    for i in range(6):
        ref = W0 + i - 0.1 * GRADS[i % 4]
        np.testing.assert_allclose(ws[i].asnumpy(), ref, rtol=1e-6)
    assert o._index_update_count == {i: 1 for i in range(6)}


@pytest.mark.parametrize('momentum', [0.0, 0.9])
@pytest.mark.parametrize('clip', [None, 0.05])
def test_sgd_group_update_matches_weight_by_weight(momentum, clip):
    """A list of weights (the Updater's groups) is counted once and
    updated weight by weight on the CPU: the same float32 values, counts
    and per-weight rates as one ``update`` call per weight."""
    settings = dict(
        learning_rate=0.1,
        momentum=momentum,
        wd=0.01,
        rescale_grad=0.5,
        clip_gradient=clip,
    )
    grouped, single = opt.SGD(**settings), opt.SGD(**settings)
    for o in (grouped, single):
        o.set_lr_mult({1: 0.5})
        o.set_wd_mult({2: 0.0})
    rng = np.random.RandomState(3)
    shapes = [(4, 3), (5,), (2, 2, 2)]
    start = [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]
    grads = [
        nd.array(rng.uniform(-1, 1, s).astype(np.float32)) for s in shapes
    ]
    ws_group = [nd.array(w) for w in start]
    ws_single = [nd.array(w) for w in start]
    st_group = [grouped.create_state(i, w) for i, w in enumerate(ws_group)]
    st_single = [single.create_state(i, w) for i, w in enumerate(ws_single)]
    for _ in range(2):
        grouped.update([0, 1, 2], ws_group, grads, st_group)
        for i in range(3):
            single.update(i, ws_single[i], grads[i], st_single[i])
    for a, b in zip(ws_group, ws_single):
        assert a.dtype == np.float32
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert grouped._index_update_count == single._index_update_count
    assert grouped.num_update == single.num_update == 2


def test_multi_precision_updates_a_float32_master_copy():
    w16 = nd.array(W0, dtype='float16')
    o = opt.SGD(learning_rate=0.1, multi_precision=True)
    updater = opt.get_updater(o)
    updater(0, nd.array(GRADS[0], dtype='float16'), w16)
    master, inner = updater.states[0]
    assert master.dtype == np.float32 and inner is None
    ref = W0.astype(np.float16).astype(np.float32) - 0.1 * GRADS[0].astype(
        np.float16
    ).astype(np.float32)
    np.testing.assert_allclose(master.asnumpy(), ref, rtol=1e-6)
    assert w16.dtype == np.float16
    np.testing.assert_allclose(w16.asnumpy(), ref.astype(np.float16))


def test_float16_without_multi_precision_warns():
    with pytest.warns(UserWarning, match='multi_precision'):
        opt.Adam().create_state_multi_precision(
            0, nd.array(W0, dtype='float16')
        )


# -- registry ---------------------------------------------------------------


def test_create_is_case_insensitive():
    assert type(opt.create('SGD')) is opt.SGD
    assert type(opt.create('Adam', learning_rate=0.1)) is opt.Adam
    assert type(opt.Optimizer.create_optimizer('rmsProp')) is opt.RMSProp
    assert opt.create('adam', learning_rate=0.1).lr == 0.1
    for name in [
        'nag',
        'adagrad',
        'adadelta',
        'adamax',
        'nadam',
        'ftrl',
        'signum',
        'lamb',
        'adamw',
        'dcasgd',
        'sgld',
        'ftml',
        'ccsgd',
        'test',
    ]:
        assert isinstance(opt.create(name), opt.Optimizer)
    with pytest.raises(ValueError, match='Cannot find optimizer foo'):
        opt.create('foo')


def test_user_optimizer_registration():
    @opt.register
    class MyHalfStep(opt.Optimizer):
        def create_state(self, index, weight):
            return None

        def update(self, index, weight, grad, state):
            self._update_count(index)
            weight[:] = weight - 0.5 * self._get_lr(index) * grad

    o = opt.create('myhalfstep', learning_rate=1.0)
    assert type(o) is MyHalfStep and o.aggregate_num == 0
    w = run_steps(o, grads=GRADS[:1])
    np.testing.assert_allclose(w.asnumpy(), W0 - 0.5 * GRADS[0])
    with pytest.warns(UserWarning, match='overriding'):
        opt.Optimizer.register(MyHalfStep)


def test_base_update_is_abstract():
    with pytest.raises(NotImplementedError):
        opt.Optimizer().update(0, nd.array(W0), nd.array(W0), None)


# -- SGLD, Test ---------------------------------------------------------------


def test_sgld_noise_is_seeded():
    def run():
        mx.random.seed(7)
        return run_steps(opt.SGLD(learning_rate=0.01)).asnumpy()

    a, b = run(), run()
    np.testing.assert_array_equal(a, b)
    # Without noise the rule is w -= lr/2 * g; the noise has std sqrt(lr).
    w = W0.copy()
    for g in GRADS:
        w = w - 0.01 / 2 * g
    noise = a - w
    assert 0 < np.abs(noise).max() < 6 * math.sqrt(0.01) * 2


def test_test_optimizer():
    w = run_steps(opt.Test(rescale_grad=2.0), grads=GRADS[:2])
    np.testing.assert_allclose(w.asnumpy(), W0 + 2 * (GRADS[0] + GRADS[1]))


# -- state serialisation ------------------------------------------------------


def test_get_states_round_trip_continues_training():
    def fresh():
        return opt.Adam(learning_rate=0.01, wd=0.01)

    straight = run_steps(fresh()).asnumpy()

    updater = opt.get_updater(fresh())
    w = nd.array(W0, dtype='float64')
    for g in GRADS[:2]:
        updater(0, nd.array(g, dtype='float64'), w)
    blob = updater.get_states(dump_optimizer=True)
    assert isinstance(blob, bytes) and blob[:2] == b'PK'  # a zip (.npz)

    other = opt.get_updater(opt.SGD())
    other.set_states(blob)
    assert type(other.optimizer) is opt.Adam
    assert other.optimizer._index_update_count == {0: 2}
    for g in GRADS[2:]:
        other(0, nd.array(g, dtype='float64'), w)
    np.testing.assert_allclose(w.asnumpy(), straight, rtol=1e-12)


def test_get_states_without_optimizer_keeps_current_optimizer():
    o = opt.SGD(learning_rate=0.1, momentum=0.9)
    updater = opt.get_updater(o)
    updater(0, nd.array(GRADS[0]), nd.array(W0))
    updater('name', nd.array(GRADS[1]), nd.array(W0))
    other = opt.get_updater(opt.SGD(momentum=0.9))
    other.set_states(updater.get_states())
    assert set(other.states) == {0, 'name'}
    np.testing.assert_array_equal(
        other.states[0].asnumpy(), updater.states[0].asnumpy()
    )
    assert other.optimizer is not o


def test_states_with_scheduler_and_nested_tuples_round_trip():
    o = opt.RMSProp(
        centered=True, lr_scheduler=FactorScheduler(step=1, factor=0.9)
    )
    updater = opt.get_updater(o)
    w = nd.array(W0)
    updater(3, nd.array(GRADS[0]), w)
    other = opt.get_updater(opt.SGD())
    other.set_states(updater.get_states(dump_optimizer=True))
    assert isinstance(other.optimizer.lr_scheduler, FactorScheduler)
    assert isinstance(other.states[3], tuple) and len(other.states[3]) == 3
    w2 = w.copy()
    updater(3, nd.array(GRADS[1]), w)
    other(3, nd.array(GRADS[1]), w2)
    np.testing.assert_array_equal(w.asnumpy(), w2.asnumpy())


def test_set_states_refuses_pickles_and_garbage():
    updater = opt.get_updater(opt.SGD())
    with pytest.raises(DLBookError, match='not a dlbook states file'):
        updater.set_states(pickle.dumps({0: None}))
    with pytest.raises(DLBookError):
        updater.set_states(b'garbage')


def test_unserialisable_state_is_a_clear_error():
    updater = opt.get_updater(opt.SGD())
    updater.states[0] = object()
    with pytest.raises(DLBookError, match='cannot save optimizer state'):
        updater.get_states()


def test_sync_state_context_moves_loaded_states():
    updater = opt.get_updater(opt.SGD(momentum=0.9))
    w = nd.array(W0, ctx=mx.cpu(1))
    updater(0, nd.array(GRADS[0], ctx=mx.cpu(1)), w)
    assert updater.states[0].context == mx.cpu(1)
    other = opt.get_updater(opt.SGD(momentum=0.9))
    other.set_states(updater.get_states())
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        other(0, nd.array(GRADS[1], ctx=mx.cpu(1)), w)
    assert other.states[0].context == mx.cpu(1)


def test_deepcopy_drops_param_dict():
    import copy

    o = opt.SGD(param_dict={0: _Param()})
    assert copy.deepcopy(o).param_dict == {}
