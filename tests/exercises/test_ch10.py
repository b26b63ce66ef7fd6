"""Checkers of chapter 10: references pass, typical mistakes explained."""

import math

from dlbook import nd
from dlbook.book import text
from dlbook.exercises.checker import run_check


def _fails(exercise_id, answer, *fragments):
    result = run_check(exercise_id, answer)
    assert not result.passed, result.report()
    text_ = result.message + ' ' + (result.hint or '')
    for fragment in fragments:
        assert fragment in text_, result.report()
    return result


# -- ch10.rnn ----------------------------------------------------------------


def make_rnn(act=nd.tanh, dim=0, zero_start=False, state_as_array=False):
    def rnn(inputs, state, params):
        W_xh, W_hh, b_h, W_hq, b_q = params
        (H,) = state
        if zero_start:
            H = nd.zeros_like(H)
        outputs = []
        for X in inputs:
            H = act(nd.dot(X, W_xh) + nd.dot(H, W_hh) + b_h)
            outputs.append(nd.dot(H, W_hq) + b_q)
        return nd.concat(*outputs, dim=dim), (H if state_as_array else (H,))

    return rnn


def test_rnn_reference_passes():
    result = run_check('ch10.rnn', make_rnn())
    assert result.passed, result.report()


def test_rnn_typical_mistakes():
    _fails('ch10.rnn', make_rnn(act=lambda x: x), 'tanh is missing')
    _fails('ch10.rnn', make_rnn(act=nd.relu), 'not relu')
    _fails('ch10.rnn', make_rnn(dim=1), 'dim=0')
    _fails('ch10.rnn', make_rnn(zero_start=True), 'not from zeros')
    _fails('ch10.rnn', make_rnn(state_as_array=True), 'return a tuple')


def test_rnn_returning_outputs_only():
    _fails(
        'ch10.rnn', lambda *args: make_rnn()(*args)[0], 'should return a pair'
    )


# -- ch10.gru ----------------------------------------------------------------


def make_gru(swap=False, reset_after=False, no_reset=False):
    def gru(inputs, state, params):
        (W_xz, W_hz, b_z, W_xr, W_hr, b_r, W_xh, W_hh, b_h, W_hq, b_q) = params
        (H,) = state
        outputs = []
        for X in inputs:
            Z = nd.sigmoid(nd.dot(X, W_xz) + nd.dot(H, W_hz) + b_z)
            R = nd.sigmoid(nd.dot(X, W_xr) + nd.dot(H, W_hr) + b_r)
            if no_reset:
                R = nd.ones_like(R)
            if reset_after:
                H_tilde = nd.tanh(nd.dot(X, W_xh) + R * nd.dot(H, W_hh) + b_h)
            else:
                H_tilde = nd.tanh(nd.dot(X, W_xh) + nd.dot(R * H, W_hh) + b_h)
            H = (
                (1 - Z) * H + Z * H_tilde
                if swap
                else Z * H + (1 - Z) * H_tilde
            )
            outputs.append(nd.dot(H, W_hq) + b_q)
        return nd.concat(*outputs, dim=0), (H,)

    return gru


def test_gru_reference_passes():
    result = run_check('ch10.gru', make_gru())
    assert result.passed, result.report()


def test_gru_typical_mistakes():
    _fails('ch10.gru', make_gru(swap=True), 'swapped')
    _fails('ch10.gru', make_gru(reset_after=True), 'nd.dot(R * H, W_hh)')
    _fails('ch10.gru', make_gru(no_reset=True), 'reset gate R is not used')


def test_gru_with_the_rnn_step_reports_the_unpacking_error():
    _fails('ch10.gru', make_rnn(), 'raised ValueError')


# -- ch10.grad_clipping ------------------------------------------------------


def test_grad_clipping_reference_and_library_pass():
    result = run_check('ch10.grad_clipping', text.grad_clipping)
    assert result.passed, result.report()


def _clip_variant(kind):
    def grad_clipping(net, theta):
        params = net.params
        norm = math.sqrt(
            sum(float((p.grad**2).sum().asscalar()) for p in params)
        )
        for p in params:
            if kind == 'per_param':
                own = float(nd.norm(p.grad).asscalar())
                if own > theta:
                    p.grad[:] *= theta / own
            elif kind == 'always':
                p.grad[:] *= theta / norm
            elif kind == 'rebind' and norm > theta:
                g = p.grad
                g = g * theta / norm  # noqa: F841 (the mistake)
            elif kind == 'unit' and norm > theta:
                p.grad[:] /= norm

    return grad_clipping


def test_grad_clipping_typical_mistakes():
    _fails('ch10.grad_clipping', _clip_variant('per_param'), 'its own norm')
    _fails(
        'ch10.grad_clipping', _clip_variant('always'), 'must stay unchanged'
    )
    _fails('ch10.grad_clipping', _clip_variant('rebind'), 'in place')
    _fails('ch10.grad_clipping', _clip_variant('unit'), 'theta / norm')


# -- ch10.perplexity ---------------------------------------------------------


def test_perplexity_reference_passes():
    def perplexity(losses):
        return math.exp(losses.mean().asscalar())

    result = run_check('ch10.perplexity', perplexity)
    assert result.passed, result.report()


def test_perplexity_typical_mistakes():
    _fails(
        'ch10.perplexity',
        lambda l: float(l.exp().mean().asscalar()),
        'mean of exp(loss)',
    )
    _fails(
        'ch10.perplexity',
        lambda l: math.exp(l.sum().asscalar()),
        'average the losses',
    )
    _fails(
        'ch10.perplexity',
        lambda l: float(l.mean().asscalar()),
        'that is the mean loss',
    )
    _fails(
        'ch10.perplexity',
        lambda l: math.exp(-l.mean().asscalar()),
        'without a minus sign',
    )
    _fails('ch10.perplexity', lambda l: l.mean().exp(), 'Python float')
