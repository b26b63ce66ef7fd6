"""Checkers of chapter 11: references pass, typical mistakes explained."""

import math

import pytest

from dlbook import nd
from dlbook.exercises.checker import run_check

from .failing import fails as _fails


def sgd_momentum(params, states, hyperparams):
    for p, v in zip(params, states):
        v[:] = hyperparams['momentum'] * v + p.grad
        p[:] -= hyperparams['lr'] * v


def plain_sgd(params, states, hyperparams):
    for p in params:
        p[:] -= hyperparams['lr'] * p.grad


def nesterov(params, states, hyperparams):
    for p, v in zip(params, states):
        v[:] = hyperparams['momentum'] * v + p.grad
        p[:] -= hyperparams['lr'] * (p.grad + hyperparams['momentum'] * v)


def adam_like(eps, use_yogi, bias_correction=True):
    def update(params, states, hyperparams):
        beta1, beta2 = 0.9, 0.999
        for p, (v, s) in zip(params, states):
            v[:] = beta1 * v + (1 - beta1) * p.grad
            g2 = nd.square(p.grad)
            if use_yogi:
                s[:] = s + (1 - beta2) * nd.sign(g2 - s) * g2
            else:
                s[:] = beta2 * s + (1 - beta2) * g2
            t = hyperparams['t'] if bias_correction else None
            v_hat = v / (1 - beta1**t) if t else v
            s_hat = s / (1 - beta2**t) if t else s
            p[:] -= hyperparams['lr'] * v_hat / (nd.sqrt(s_hat) + eps)
        hyperparams['t'] += 1

    return update


def cosine_warmup(t):
    if t < 5:
        return 0.3 * t / 5
    if t > 20:
        return 0.01
    return 0.01 + 0.29 * (1 + math.cos(math.pi * (t - 5) / 15)) / 2


# -- ch11.sgd_momentum --------------------------------------------------------


def test_sgd_momentum_reference_passes():
    assert run_check('ch11.sgd_momentum', sgd_momentum).passed


def test_sgd_momentum_plain_sgd_is_explained():
    _fails('ch11.sgd_momentum', plain_sgd, 'step 1', 'state (v)')


def test_sgd_momentum_leaky_average_is_explained():
    def leaky(params, states, hyperparams):
        m = hyperparams['momentum']
        for p, v in zip(params, states):
            v[:] = m * v + (1 - m) * p.grad
            p[:] -= hyperparams['lr'] * v

    _fails('ch11.sgd_momentum', leaky, 'leaky average')


def test_sgd_momentum_rebinding_is_explained():
    def rebinding(params, states, hyperparams):
        for p in params:
            p = p - hyperparams['lr'] * p.grad  # noqa: PLW2901

    _fails('ch11.sgd_momentum', rebinding, 'did not change', 'p[:]')


def test_sgd_momentum_exception_and_not_a_function():
    def broken(params, states, hyperparams):
        raise NotImplementedError

    _fails('ch11.sgd_momentum', broken, 'NotImplementedError')
    _fails('ch11.sgd_momentum', 3, 'expected a function')


# -- ch11.nesterov ------------------------------------------------------------


def test_nesterov_reference_passes():
    assert run_check('ch11.nesterov', nesterov).passed


def test_nesterov_plain_momentum_is_explained():
    _fails('ch11.nesterov', sgd_momentum, 'plain momentum step')


# -- ch11.yogi ----------------------------------------------------------------


def test_yogi_reference_passes():
    assert run_check('ch11.yogi', adam_like(1e-3, use_yogi=True)).passed


@pytest.mark.parametrize(
    'answer, fragment',
    [
        (adam_like(1e-6, use_yogi=True), 'eps = 1e-3'),
        (
            adam_like(1e-3, use_yogi=True, bias_correction=False),
            'bias correction',
        ),
        (adam_like(1e-3, use_yogi=False), 'state (v and s)'),
    ],
)
def test_yogi_mistakes(answer, fragment):
    _fails('ch11.yogi', answer, fragment)


def test_yogi_forgetting_to_count_steps():
    def no_t(params, states, hyperparams):
        adam_like(1e-3, use_yogi=True)(params, states, hyperparams)
        hyperparams['t'] -= 1

    _fails('ch11.yogi', no_t, "hyperparams['t'] is still 1")


# -- ch11.cosine_warmup -------------------------------------------------------


def test_cosine_warmup_reference_passes():
    assert run_check('ch11.cosine_warmup', cosine_warmup).passed


@pytest.mark.parametrize(
    'answer, fragment',
    [
        (lambda t: 0.3, 'lr(0)'),
        (lambda t: cosine_warmup(t) if t <= 20 else 0.0, 'final_lr'),
        (lambda t: 'fast', 'one number'),
    ],
)
def test_cosine_warmup_mistakes(answer, fragment):
    _fails('ch11.cosine_warmup', answer, fragment)
