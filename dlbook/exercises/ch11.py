"""Chapter 11 (optimization): update rules written by hand, and schedules.

The update exercises use d2l's calling convention (``train_ch11``):
``update(params, states, hyperparams)`` changes each parameter in place
from its ``.grad``. The checker feeds three steps of known gradients and
compares the parameters (and the states) after each step with the
formulas of the chapter.
"""

import numpy as np

from .. import lr_scheduler, nd
from .compare import call, rng
from .registry import exercise
from .result import Failure

EPS = 1e-6
IN_PLACE = (
    'change the parameters in place, `p[:] = p - lr * ...` (a '
    'plain `p = ...` only rebinds the local name), and keep the '
    'state in `states` the same way: `v[:] = ...`.'
)
SHAPES = ((3, 1), (1,))


def _params(seed):
    """Two parameters, shaped like ``w`` and ``b`` of ``train_ch11``."""
    r = rng(seed)
    return [r.normal(size=shape) for shape in SHAPES]


def _grads(seed, scales=(1, 1, 1)):
    r = rng(seed)
    return [
        [scale * r.normal(size=shape) for shape in SHAPES] for scale in scales
    ]


def _flatten(states):
    """The arrays of a (nested) states structure, in order, as NumPy."""
    if states is None:
        return []
    if isinstance(states, (list, tuple)):
        return [a for item in states for a in _flatten(item)]
    return [_to_numpy(states).astype(np.float64)]


def _as_params(values):
    params = []
    for value in values:
        p = nd.array(value, dtype='float32')
        p.attach_grad()
        params.append(p)
    return params


def _flat(x):
    return '[' + ', '.join(f'{float(v):.6g}' for v in np.ravel(x)) + ']'


def _to_numpy(x):
    return x.asnumpy() if hasattr(x, 'asnumpy') else np.asarray(x)


def _run_steps(
    student,
    name,
    states_of,
    reference,
    hyperparams,
    diagnose=None,
    seed=1100,
    scales=(1, 1, 1),
    state_names=None,
):
    """Drive ``student`` for three steps and compare with ``reference``.

    Parameters
    ----------
    states_of : callable
        ``states_of(shapes) -> states`` as the chapter's ``init_*``
        function builds them (NDArrays of zeros).
    reference : callable
        ``reference(p, g, state, hyperparams, t) -> (new_p, new_state)``
        on NumPy data, one parameter at a time.
    diagnose : callable, optional
        ``diagnose(got, before, g) -> hint``: recognises typical mistakes.
    scales : tuple of float
        Size of the gradients at each step.
    state_names : str, optional
        When given (e.g. ``'v and s'``), the states are compared with the
        reference's too: some mistakes change the parameters too little
        to see in three steps, but change the state at once.
    """
    start = _params(seed)
    params = _as_params(start)
    states = states_of(SHAPES)
    hp = dict(hyperparams)
    expected = [p.astype(np.float64) for p in start]
    ref_states = [None] * len(SHAPES)
    for t, grads in enumerate(_grads(seed + 1, scales), start=1):
        for p, g in zip(params, grads):
            p.grad[:] = nd.array(g, dtype='float32')
        before = [e.copy() for e in expected]
        call(student, params, states, hp, inputs={'hyperparams': dict(hp)})
        for i, g in enumerate(grads):
            expected[i], ref_states[i] = reference(
                expected[i], g, ref_states[i], hyperparams, t
            )
        for i, (p, e) in enumerate(zip(params, expected)):
            got = _to_numpy(p).astype(np.float64)
            if got.shape != e.shape:
                raise Failure(
                    f'after step {t}, parameter {i} has shape '
                    f'{got.shape}; expected {e.shape}.',
                    IN_PLACE,
                )
            if not np.allclose(got, e, rtol=1e-4, atol=1e-5):
                hint = None
                if np.allclose(got, before[i]):
                    hint = 'the parameters did not change: ' + IN_PLACE
                elif diagnose is not None:
                    hint = diagnose(got, before[i], grads[i], hp, t)
                raise Failure(
                    f'after step {t} of {name}, parameter {i} (shape '
                    f'{e.shape}) is {_flat(got)}, expected {_flat(e)} '
                    f'(largest difference {np.abs(got - e).max():.3g}).',
                    hint,
                )
        if state_names:
            _compare_states(states, ref_states, name, t, state_names)
    return params


def _compare_states(states, ref_states, name, t, state_names):
    got, expected = _flatten(states), _flatten(ref_states)
    if len(got) != len(expected):
        raise Failure(
            f'the states hold {len(got)} arrays, expected '
            f'{len(expected)} ({state_names} per parameter).'
        )
    for g, e in zip(got, expected):
        if g.shape != e.shape or not np.allclose(g, e, rtol=1e-4, atol=1e-9):
            raise Failure(
                f'after step {t} of {name} the parameters are '
                f'right but the state ({state_names}) is '
                f'{_flat(g)}, expected {_flat(e)}.'
            )


def _sgd_like(got, before, g, hp, t):
    if np.allclose(got, before - hp['lr'] * g, rtol=1e-4, atol=1e-5):
        return (
            'that is a plain SGD step: the state (momentum or '
            'accumulated squares) was not used or not updated.'
        )
    return None


# -- momentum -----------------------------------------------------------------


def _zeros_states(shapes):
    return [nd.zeros(shape) for shape in shapes]


def _momentum_ref(p, g, v, hp, t):
    v = np.zeros_like(p) if v is None else v
    v = hp['momentum'] * v + g
    return p - hp['lr'] * v, v


@exercise(
    'ch11.sgd_momentum',
    hint='v[:] = momentum * v + p.grad, then p[:] -= lr * v.',
)
def _sgd_momentum(student):
    """sgd_momentum(params, states, hyperparams): SGD with momentum."""

    def diagnose(got, before, g, hp, t):
        hint = _sgd_like(got, before, g, hp, t)
        if (
            hint is None
            and t == 1
            and np.allclose(
                got,
                before - hp['lr'] * (1 - hp['momentum']) * g,
                rtol=1e-4,
                atol=1e-5,
            )
        ):
            hint = (
                'you used v = momentum * v + (1 - momentum) * g (a '
                'leaky average); this chapter uses v = momentum * v + g.'
            )
        return hint

    _run_steps(
        student,
        'sgd_momentum',
        _zeros_states,
        _momentum_ref,
        {'lr': 0.1, 'momentum': 0.9},
        diagnose,
        state_names='v',
    )
    return 'correct: three steps match v <- beta v + g, w <- w - lr v.'


# -- Nesterov momentum --------------------------------------------------------


def _nesterov_ref(p, g, v, hp, t):
    v = np.zeros_like(p) if v is None else v
    v = hp['momentum'] * v + g
    return p - hp['lr'] * (g + hp['momentum'] * v), v


@exercise(
    'ch11.nesterov',
    hint='v[:] = momentum * v + p.grad, then '
    'p[:] -= lr * (p.grad + momentum * v).',
)
def _nesterov(student):
    """nesterov(params, states, hyperparams): Nesterov momentum (nag)."""

    def diagnose(got, before, g, hp, t):
        if t == 1 and np.allclose(
            got, before - hp['lr'] * g, rtol=1e-4, atol=1e-5
        ):
            return (
                'that is the plain momentum step, w - lr * v; '
                'Nesterov steps by lr * (g + momentum * v).'
            )
        return _sgd_like(got, before, g, hp, t)

    _run_steps(
        student,
        'nesterov',
        _zeros_states,
        _nesterov_ref,
        {'lr': 0.1, 'momentum': 0.9},
        diagnose,
        state_names='v',
    )
    return (
        'correct: three steps match v <- beta v + g, w <- w - lr (g + beta v).'
    )


# -- Yogi ---------------------------------------------------------------------

YOGI_EPS = 1e-3


def _adam_states(shapes):
    return [(nd.zeros(shape), nd.zeros(shape)) for shape in shapes]


def _yogi_ref(p, g, state, hp, t):
    beta1, beta2 = 0.9, 0.999
    v, s = (np.zeros_like(p), np.zeros_like(p)) if state is None else state
    v = beta1 * v + (1 - beta1) * g
    s = s + (1 - beta2) * np.sign(g**2 - s) * g**2
    v_hat = v / (1 - beta1**t)
    s_hat = s / (1 - beta2**t)
    return p - hp['lr'] * v_hat / (np.sqrt(s_hat) + YOGI_EPS), (v, s)


@exercise(
    'ch11.yogi',
    hint="s[:] = s + (1 - beta2) * nd.sign(nd.square(p.grad) - s) * "
    "nd.square(p.grad); the rest as in adam, with eps = 1e-3, "
    "and hyperparams['t'] += 1 once per step.",
)
def _yogi(student):
    """yogi(params, states, hyperparams): Yogi, beta1 0.9, beta2 0.999."""

    def diagnose(got, before, g, hp, t):
        beta1, beta2 = 0.9, 0.999
        v, s = (1 - beta1) * g, (1 - beta2) * g**2
        if t == 1 and np.allclose(
            got,
            before - hp['lr'] * v / (np.sqrt(s) + YOGI_EPS),
            rtol=1e-3,
            atol=1e-5,
        ):
            return (
                'no bias correction: divide v by 1 - beta1 ** t and s '
                'by 1 - beta2 ** t.'
            )
        v_hat, s_hat = v / (1 - beta1), s / (1 - beta2)
        if t == 1 and np.allclose(
            got,
            before - hp['lr'] * v_hat / (np.sqrt(s_hat) + 1e-6),
            rtol=1e-6,
            atol=1e-7,
        ):
            return 'Yogi uses eps = 1e-3, not 1e-6 as Adam.'

        if t > 1 and hp.get('t') == 1:
            return (
                "hyperparams['t'] is still 1: increase it once per "
                "step (after the loop over the parameters)."
            )
        return _sgd_like(got, before, g, hp, t)

    # Small gradients, where eps matters; then a large first gradient
    # and small ones, since g ** 2 < s is where Yogi differs from Adam.
    for scales in ((0.01, 0.01, 0.01), (10, 0.01, 0.01)):
        _run_steps(
            student,
            'yogi',
            _adam_states,
            _yogi_ref,
            {'lr': 0.01, 't': 1},
            diagnose,
            scales=scales,
            state_names='v and s',
        )
    return 'correct: Adam with the additive, sign-controlled update of s.'


# -- a warm-up + cosine schedule ----------------------------------------------

COSINE = {
    'max_update': 20,
    'base_lr': 0.3,
    'final_lr': 0.01,
    'warmup_steps': 5,
}


@exercise(
    'ch11.cosine_warmup',
    hint='for t < warmup_steps: base_lr * t / warmup_steps; then '
    'final_lr + (base_lr - final_lr) * (1 + cos(pi * '
    '(t - warmup_steps) / (max_update - warmup_steps))) / 2, '
    'and final_lr after max_update.',
)
def _cosine_warmup(student):
    """lr(t): cosine schedule, 5 warm-up steps, 0.3 -> 0.01 over 20."""
    reference = lr_scheduler.CosineScheduler(**COSINE)
    steps = list(range(31))
    expected = np.array([reference(t) for t in steps])
    got = []
    for t in steps:
        value = call(student, t, inputs={'t': t})
        try:
            got.append(float(_to_numpy(value).reshape(())))
        except (TypeError, ValueError):
            raise Failure(
                f'lr({t}) returned {value!r:.60}; expected one number.'
            ) from None
    got = np.array(got)
    wrong = ~np.isclose(got, expected, rtol=1e-5, atol=1e-8)
    if wrong.any():
        t = steps[int(np.argmax(wrong))]
        hint = None
        if t < COSINE['warmup_steps']:
            hint = (
                'during the warm-up the rate grows linearly from 0 to '
                'base_lr: base_lr * t / warmup_steps.'
            )
        elif t > COSINE['max_update']:
            hint = 'after max_update the rate stays at final_lr.'
        raise Failure(
            f'lr({t}) = {got[steps.index(t)]:.5g}, expected '
            f'{expected[steps.index(t)]:.5g} '
            f'(as mx.lr_scheduler.CosineScheduler(**'
            f'{COSINE})).',
            hint,
        )
    return (
        'correct: the same rates as mx.lr_scheduler.CosineScheduler for '
        't = 0..30.'
    )
