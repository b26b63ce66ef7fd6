"""Chapter 8 (convolutions): cross-correlation, output sizes, pooling and
LeNet."""

import math

import numpy as np

from .. import gluon
from .compare import as_nd, call, expect_close, matches, rng
from .registry import exercise
from .result import Failure

CORR2D = (
    'Y has shape (n_h - k_h + 1, n_w - k_w + 1); '
    'Y[i, j] = (X[i:i + k_h, j:j + k_w] * K).sum().'
)


def _corr2d_ref(X, K):
    h, w = K.shape
    out = np.zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = (X[i : i + h, j : j + w] * K).sum()
    return out


@exercise('ch08.corr2d', hint=CORR2D)
def _corr2d(student):
    """corr2d(X, K): two-dimensional cross-correlation, written with loops."""
    r = rng(801)
    cases = [
        (np.arange(9.0).reshape(3, 3), np.array([[0.0, 1], [2, 3]])),
        (r.normal(size=(5, 7)), r.normal(size=(2, 3))),
        (r.normal(size=(4, 4)), r.normal(size=(4, 1))),
    ]
    for X, K in cases:
        expected = _corr2d_ref(X, K)

        def diagnose(got, X=X, K=K, expected=expected):
            k_h, k_w = K.shape
            if np.shape(got) == (X.shape[0] - k_h, X.shape[1] - k_w):
                return (
                    'the output is one row and one column too small: '
                    'the kernel fits at n - k + 1 positions.'
                )
            if matches(got, _corr2d_ref(X, K[::-1, ::-1])):
                return (
                    'you flipped the kernel: that is a true '
                    'convolution. Cross-correlation uses K as it is.'
                )
            if np.shape(got) == expected.T.shape and matches(got, expected.T):
                return 'your result is transposed.'
            return None

        inputs = {'X': X, 'K': K}
        got = call(student, as_nd(X), as_nd(K), inputs=inputs, hint=CORR2D)
        expect_close(
            got, expected, inputs, rtol=1e-4, atol=1e-4, diagnose=diagnose
        )
    return 'correct: it matches nn.Conv2D without padding and stride.'


OUTPUT_SIZE = 'floor((n + 2 * p - k) / s) + 1; use // for the floor.'


_SIZE_MISTAKES = [
    (
        lambda n, k, p, s: (n + 2 * p - k) // s,
        'you forgot the + 1 (the first window position).',
    ),
    (
        lambda n, k, p, s: (n + p - k) // s + 1,
        'padding p is added on both sides: n + 2 * p, not n + p.',
    ),
    (
        lambda n, k, p, s: n + 2 * p - k + 1,
        'the stride divides the number of steps: ... // s.',
    ),
    (
        lambda n, k, p, s: (n + 2 * p - k) / s + 1,
        'round down: a window that does not fit is dropped (use //).',
    ),
    (
        lambda n, k, p, s: math.ceil((n + 2 * p - k) / s) + 1,
        'round down: a window that does not fit is dropped (use //).',
    ),
]


@exercise('ch08.output_size', hint=OUTPUT_SIZE)
def _output_size(student):
    """output_size(n, k, p, s): output length of a convolution."""
    cases = [
        (8, 3, 1, 1),
        (8, 3, 0, 1),
        (28, 5, 2, 1),
        (8, 3, 1, 2),
        (8, 3, 0, 3),
        (7, 2, 0, 2),
        (224, 11, 1, 4),
        (10, 5, 0, 2),
    ]
    answers = []
    for n, k, p, s in cases:
        inputs = {'n': n, 'k': k, 'p': p, 's': s}
        got = call(student, n, k, p, s, inputs=inputs, hint=OUTPUT_SIZE)
        if isinstance(got, bool) or not isinstance(
            got, (int, np.integer, float, np.floating)
        ):
            raise Failure(
                f'output_size(n={n}, k={k}, p={p}, s={s}) '
                f'returned a {type(got).__name__}, expected an '
                f'int.'
            )
        answers.append(got)
    # the mistake (if any) that explains every answer
    hint = OUTPUT_SIZE
    for formula, text in _SIZE_MISTAKES:
        if all(
            np.isclose(got, formula(*case))
            for got, case in zip(answers, cases)
        ):
            hint = text
            break
    for got, (n, k, p, s) in zip(answers, cases):
        expected = (n + 2 * p - k) // s + 1
        where = f'output_size(n={n}, k={k}, p={p}, s={s})'
        if got != expected:
            raise Failure(
                f'{where} returned {got}, expected {expected}.', hint
            )
        if not isinstance(got, (int, np.integer)):
            raise Failure(
                f'{where} returned {got!r}, a float; a size is '
                f'an int: use // instead of /.',
                OUTPUT_SIZE,
            )
    return 'correct for every case, including strides that do not divide.'


POOL = (
    "for each window X[i:i + p_h, j:j + p_w] take .max() (mode 'max') "
    "or .mean() (mode 'avg'); the output has shape (n_h - p_h + 1, "
    "n_w - p_w + 1)."
)


def _pool_ref(X, size, mode):
    p_h, p_w = size
    out = np.zeros((X.shape[0] - p_h + 1, X.shape[1] - p_w + 1))
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            window = X[i : i + p_h, j : j + p_w]
            out[i, j] = window.max() if mode == 'max' else window.mean()
    return out


@exercise('ch08.pool2d', hint=POOL)
def _pool2d(student):
    """pool2d(X, pool_size, mode='max'): max or average pooling, stride 1."""
    r = rng(802)
    cases = [
        (np.arange(9.0).reshape(3, 3), (2, 2)),
        (r.normal(size=(4, 5)), (2, 3)),
        (r.normal(size=(3, 3)), (1, 1)),
    ]
    for X, size in cases:
        for mode in ('max', 'avg'):
            expected = _pool_ref(X, size, mode)
            other = 'avg' if mode == 'max' else 'max'

            def diagnose(got, X=X, size=size, other=other):
                if matches(got, _pool_ref(X, size, other)):
                    return (
                        f"mode={mode!r} computed the {other} of each window."
                    )
                smaller = (X.shape[0] - size[0], X.shape[1] - size[1])
                strided = (X.shape[0] // size[0], X.shape[1] // size[1])
                if np.shape(got) in (smaller, strided):
                    return (
                        'with stride 1 the windows overlap and '
                        'n - p + 1 of them fit along each axis '
                        '(nn.MaxPool2D instead defaults to a stride '
                        'equal to the window).'
                    )
                return None

            inputs = {'X': X, 'pool_size': size, 'mode': mode}
            got = call(student, as_nd(X), size, mode, inputs=inputs, hint=POOL)
            expect_close(got, expected, inputs, diagnose=diagnose)
    got = call(
        student,
        as_nd(cases[0][0]),
        (2, 2),
        inputs={'X': cases[0][0], 'pool_size': (2, 2)},
        hint=POOL,
    )
    expect_close(
        got,
        _pool_ref(cases[0][0], (2, 2), 'max'),
        {'X': cases[0][0]},
        what="the default mode ('max')",
    )
    return 'correct: max and average pooling.'


LENET = (
    'Conv2D(6, kernel_size=5, padding=2) -> pool 2x2 stride 2 -> '
    'Conv2D(16, kernel_size=5) -> pool 2x2 stride 2 -> Dense(120) -> '
    'Dense(84) -> Dense(10), with sigmoid (or ReLU) activations.'
)
LENET_PARAMS = 61706


def _count(net):
    return sum(int(np.prod(p.shape)) for p in net.collect_params().values())


@exercise('ch08.lenet', hint=LENET)
def _lenet(student):
    """lenet(): the LeNet network of section 8.6 (uninitialized)."""
    if not callable(student) or isinstance(student, gluon.Block):
        raise Failure(
            'pass the function that builds the network: '
            'check(id, lenet), not lenet().'
        )
    try:
        net = student()
    except Exception as err:  # the student's mistake, explained
        raise Failure(
            f'lenet() raised {type(err).__name__}:\n    {err}', LENET
        ) from None
    if not isinstance(net, gluon.Block):
        raise Failure(
            f'lenet() returned a {type(net).__name__}, expected '
            f'an nn.Sequential.'
        )
    net.initialize()
    X = as_nd(rng(803).uniform(size=(2, 1, 28, 28)))
    out = call(net, X, inputs={'X': X.asnumpy()}, hint=LENET)
    if tuple(out.shape) != (2, 10):
        raise Failure(
            f'for a batch of shape (2, 1, 28, 28) the output has '
            f'shape {tuple(out.shape)}, expected (2, 10): one '
            f'score per class.',
            LENET,
        )
    count = _count(net)
    if count == LENET_PARAMS:
        return (
            f'correct: {count:,} parameters, as LeNet-5 (the first '
            f'dense layer holds 48,120 of them).'
        )
    convs = [b for b in _walk(net) if type(b).__name__ == 'Conv2D']
    hint = LENET
    if count == LENET_PARAMS - 400 * 120 + 256 * 120:
        hint = (
            'without padding=2 in the first convolution the 28x28 '
            'input shrinks to 24x24, and the first dense layer sees '
            '16x4x4 = 256 inputs instead of 16x5x5 = 400.'
        )
    elif convs and any(c.weight.shape[2:] != (5, 5) for c in convs):
        hint = 'both convolutions use 5x5 kernels.'
    raise Failure(
        f'the network has {count:,} parameters; LeNet has {LENET_PARAMS:,}.',
        hint,
    )


def _walk(block):
    for child in block._children.values():
        yield child
        yield from _walk(child)
