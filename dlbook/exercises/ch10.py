"""Chapter 10 (recurrent networks): the RNN and GRU steps, gradient
clipping and perplexity."""

import math

import numpy as np

from ..ndarray.ndarray import NDArray
from .compare import as_nd, call, expect_close, matches, rng, to_numpy
from .registry import exercise
from .result import Failure


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _unpack(got, name, state_len):
    """Check the ``(outputs, state)`` pair a step function returns."""
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        raise Failure(
            f'{name} should return a pair (outputs, state), got '
            f'{type(got).__name__}.',
            'return nd.concat(*outputs, dim=0), (H,)',
        )
    outputs, state = got
    if isinstance(state, NDArray) or not isinstance(state, (tuple, list)):
        raise Failure(
            f'{name} returned the state as a '
            f'{type(state).__name__}; return a tuple, (H,), so '
            f'that RNN and LSTM states look alike.',
            'return nd.concat(*outputs, dim=0), (H,)',
        )
    if len(state) != state_len:
        raise Failure(
            f'the state returned by {name} has {len(state)} '
            f'arrays, expected {state_len}.'
        )
    return outputs, state


def _step_case(r, num_steps=3, batch=2, vocab=5, hidden=4, gates=1):
    inputs = np.eye(vocab)[r.randint(0, vocab, size=(num_steps, batch))]
    params = []
    for _ in range(gates):
        params += [
            r.normal(0, 0.5, (vocab, hidden)),
            r.normal(0, 0.5, (hidden, hidden)),
            r.normal(0, 0.1, (hidden,)),
        ]
    params += [r.normal(0, 0.5, (hidden, vocab)), r.normal(0, 0.1, (vocab,))]
    H0 = r.normal(0, 0.5, (batch, hidden))
    return inputs, params, H0


def _rnn_ref(inputs, H, params, act=np.tanh, concat_axis=0):
    W_xh, W_hh, b_h, W_hq, b_q = params
    outputs = []
    for X in inputs:
        H = act(X @ W_xh + H @ W_hh + b_h)
        outputs.append(H @ W_hq + b_q)
    return np.concatenate(outputs, axis=concat_axis), H


RNN = (
    'for X in inputs: H = nd.tanh(nd.dot(X, W_xh) + nd.dot(H, W_hh) + '
    'b_h); collect nd.dot(H, W_hq) + b_q; return nd.concat(*outputs, '
    'dim=0), (H,)'
)


@exercise('ch10.rnn', hint=RNN)
def _rnn(student):
    """rnn(inputs, state, params): the RNN step function over all steps."""
    r = rng(1001)
    for num_steps, batch in [(3, 2), (1, 4), (5, 1)]:
        inputs, params, H0 = _step_case(r, num_steps, batch)
        arrays = {'inputs': inputs, 'H': H0}
        got = call(
            student,
            as_nd(inputs),
            (as_nd(H0),),
            [as_nd(p) for p in params],
            inputs=arrays,
            hint=RNN,
        )
        outputs, state = _unpack(got, 'rnn', 1)
        expected, H = _rnn_ref(inputs, H0, params)

        def diagnose(got, inputs=inputs, H0=H0, params=params):
            if matches(got, _rnn_ref(inputs, H0, params, concat_axis=1)[0]):
                return (
                    'concatenate the outputs along dim=0 (one block '
                    'of rows per time step).'
                )
            if matches(got, _rnn_ref(inputs, H0, params, act=lambda x: x)[0]):
                return 'the tanh is missing: H = nd.tanh(...).'
            if matches(
                got,
                _rnn_ref(inputs, H0, params, act=lambda x: np.maximum(x, 0))[
                    0
                ],
            ):
                return 'this RNN uses tanh, not relu.'
            if matches(got, _rnn_ref(inputs, np.zeros_like(H0), params)[0]):
                return (
                    'start from the state you are given: H, = state '
                    '(not from zeros).'
                )
            return None

        expect_close(
            outputs, expected, arrays, what='the outputs', diagnose=diagnose
        )
        expect_close(state[0], H, arrays, what='the final state H')
    return (
        'correct: outputs of shape (num_steps * batch_size, vocab_size) '
        'and the final state.'
    )


GRU = (
    'R = sigmoid(X W_xr + H W_hr + b_r), Z = sigmoid(X W_xz + H W_hz + '
    'b_z), H_tilde = tanh(X W_xh + (R * H) W_hh + b_h), H = Z * H + '
    '(1 - Z) * H_tilde, Y = H W_hq + b_q.'
)


def _gru_ref(
    inputs, H, params, swap_z=False, reset_after=False, no_reset=False
):
    (W_xz, W_hz, b_z, W_xr, W_hr, b_r, W_xh, W_hh, b_h, W_hq, b_q) = params
    outputs = []
    for X in inputs:
        Z = _sigmoid(X @ W_xz + H @ W_hz + b_z)
        R = _sigmoid(X @ W_xr + H @ W_hr + b_r)
        if no_reset:
            R = np.ones_like(R)
        if reset_after:
            H_tilde = np.tanh(X @ W_xh + R * (H @ W_hh) + b_h)
        else:
            H_tilde = np.tanh(X @ W_xh + (R * H) @ W_hh + b_h)
        if swap_z:
            H = (1 - Z) * H + Z * H_tilde
        else:
            H = Z * H + (1 - Z) * H_tilde
        outputs.append(H @ W_hq + b_q)
    return np.concatenate(outputs, axis=0), H


@exercise('ch10.gru', hint=GRU)
def _gru(student):
    """gru(inputs, state, params): the GRU step function over all steps."""
    r = rng(1002)
    for num_steps, batch in [(3, 2), (4, 3)]:
        inputs, params, H0 = _step_case(r, num_steps, batch, gates=3)
        arrays = {'inputs': inputs, 'H': H0}
        got = call(
            student,
            as_nd(inputs),
            (as_nd(H0),),
            [as_nd(p) for p in params],
            inputs=arrays,
            hint=GRU,
        )
        outputs, state = _unpack(got, 'gru', 1)
        expected, H = _gru_ref(inputs, H0, params)

        def diagnose(got, inputs=inputs, H0=H0, params=params):
            if matches(got, _gru_ref(inputs, H0, params, swap_z=True)[0]):
                return (
                    'Z and 1 - Z are swapped: H = Z * H + (1 - Z) * '
                    'H_tilde keeps the old state when Z is near 1.'
                )
            if matches(got, _gru_ref(inputs, H0, params, reset_after=True)[0]):
                return (
                    'apply the reset gate to the state before the '
                    'product: nd.dot(R * H, W_hh).'
                )
            if matches(got, _gru_ref(inputs, H0, params, no_reset=True)[0]):
                return 'the reset gate R is not used in H_tilde.'
            return None

        expect_close(
            outputs, expected, arrays, what='the outputs', diagnose=diagnose
        )
        expect_close(state[0], H, arrays, what='the final state H')
    return (
        'correct: the same as gluon.rnn.GRU computes (up to where the '
        'reset gate is applied).'
    )


CLIP = (
    'norm = sqrt of the sum of (p.grad ** 2).sum() over all params; if '
    'norm > theta: p.grad[:] *= theta / norm for every p.'
)


class _Scratch:
    """A stand-in for ``RNNModelScratch``: only ``params`` is used."""

    def __init__(self, arrays):
        self.params = []
        for value, grad in arrays:
            p = as_nd(value)
            p.attach_grad()
            p.grad[:] = as_nd(grad)
            self.params.append(p)


@exercise('ch10.grad_clipping', hint=CLIP)
def _grad_clipping(student):
    """grad_clipping(net, theta): rescale all gradients to norm <= theta."""
    r = rng(1003)
    for scale, theta in [(3.0, 1.0), (0.01, 1.0), (2.0, 0.5)]:
        arrays = [
            (r.normal(size=s), r.normal(0, scale, s))
            for s in [(4, 3), (3,), (3, 2)]
        ]
        grads = [g for _, g in arrays]
        norm = math.sqrt(sum((g**2).sum() for g in grads))
        factor = min(1.0, theta / norm)
        net = _Scratch(arrays)
        originals = [p.grad for p in net.params]
        call(
            student,
            net,
            theta,
            inputs={'theta': theta, 'gradient norm': round(norm, 3)},
            hint=CLIP,
        )
        for i, (p, g, original) in enumerate(
            zip(net.params, grads, originals)
        ):
            got = to_numpy(p.grad, what=f'params[{i}].grad')

            def diagnose(got, g=g, i=i):
                per = math.sqrt((g**2).sum())
                if norm > theta and matches(got, g * min(1.0, theta / per)):
                    return (
                        'you clipped each parameter by its own norm; '
                        'clip by the norm of all gradients together.'
                    )
                if matches(got, g * theta / norm) and norm <= theta:
                    return (
                        'the gradients were small enough (norm '
                        f'{norm:.3f} <= theta) and must stay unchanged.'
                    )
                if matches(got, g) and norm > theta:
                    return (
                        'the gradients did not change: write into them '
                        'in place, p.grad[:] *= theta / norm (p.grad = '
                        '... only rebinds a name).'
                    )
                if matches(got, g / norm):
                    return 'multiply by theta / norm, not 1 / norm.'
                return None

            expect_close(
                got,
                g * factor,
                {'theta': theta},
                what=f'params[{i}].grad after clipping',
                diagnose=diagnose,
            )
    return 'correct: one joint norm, in place, and only when it exceeds theta.'


PPL = 'perplexity = exp(mean of the losses), as a Python float.'


@exercise('ch10.perplexity', hint=PPL)
def _perplexity(student):
    """perplexity(losses): exp of the mean cross-entropy per token."""
    r = rng(1004)
    cases = [
        r.uniform(0.1, 3.0, size=20),
        np.full(7, math.log(28.0)),
        np.zeros(3),
        r.uniform(0, 1, size=(4, 5)),
    ]
    for losses in cases:
        expected = float(np.exp(losses.mean()))
        got = call(student, as_nd(losses), inputs={'losses': losses}, hint=PPL)

        def diagnose(got, losses=losses):
            if np.isclose(got, np.exp(losses).mean()):
                return (
                    'that is the mean of exp(loss); take the exp of '
                    'the mean loss.'
                )
            if np.isclose(got, np.exp(losses.sum())):
                return 'average the losses before the exp (not the sum).'
            if np.isclose(got, losses.mean()):
                return 'that is the mean loss; perplexity is its exp.'
            if np.isclose(got, np.exp(-losses.mean())):
                return (
                    'the losses are already negative log-likelihoods: '
                    'exp(mean), without a minus sign.'
                )
            return None

        value = to_numpy(got, what='perplexity', scalar=True)
        expect_close(
            value,
            np.array(expected),
            {'losses': losses},
            what='the perplexity',
            diagnose=diagnose,
        )
        if not isinstance(got, (float, int)) and isinstance(got, NDArray):
            raise Failure(
                'perplexity returned an NDArray; return a Python '
                'float (e.g. with .asscalar() and math.exp).',
                PPL,
            )
    return 'correct: 28.0 for a model guessing uniformly among 28 tokens.'
