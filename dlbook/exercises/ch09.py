"""Chapter 9 (modern CNNs): VGG blocks, batch normalization, residual
blocks."""

import warnings

import numpy as np

from .. import autograd, gluon
from .compare import as_nd, call, expect_close, matches, rng, to_numpy
from .registry import exercise
from .result import Failure


def _walk(block):
    """Every descendant block, depth first."""
    for child in block._children.values():
        yield child
        yield from _walk(child)


def _kind(block):
    return type(block).__name__


def _initialize(block):
    with warnings.catch_warnings():
        warnings.filterwarnings('ignore', message='.*already initialized')
        block.initialize()


def _build(student, name, *args, **kwargs):
    """Call a student's builder or class; a Failure says what went wrong."""
    if not callable(student) or isinstance(student, gluon.Block):
        raise Failure(
            f'pass {name} itself: check(id, {name}), not {name}(...).'
        )
    shown = ', '.join(
        [repr(a) for a in args] + [f'{k}={v!r}' for k, v in kwargs.items()]
    )
    try:
        block = student(*args, **kwargs)
    except Exception as err:  # the student's mistake, explained
        raise Failure(
            f'{name}({shown}) raised {type(err).__name__}:\n    {err}'
        ) from None
    if not isinstance(block, gluon.Block):
        raise Failure(
            f'{name}({shown}) returned a {type(block).__name__}, '
            f'expected a Block.'
        )
    return block, shown


# -- VGG block ---------------------------------------------------------------

VGG = (
    'num_convs times nn.Conv2D(num_channels, kernel_size=3, padding=1, '
    "activation='relu'), then nn.MaxPool2D(pool_size=2, strides=2)."
)


@exercise('ch09.vgg_block', hint=VGG)
def _vgg_block(student):
    """vgg_block(num_convs, num_channels): 3x3 convolutions, then pooling."""
    r = rng(901)
    for num_convs, channels in [(1, 4), (2, 6), (3, 2)]:
        blk, shown = _build(student, 'vgg_block', num_convs, channels)
        _initialize(blk)
        X = r.normal(size=(2, 3, 16, 16))
        out = to_numpy(call(blk, as_nd(X), inputs={'X': X}, hint=VGG))
        want = (2, channels, 8, 8)
        if out.shape != want:
            hint = VGG
            if out.shape[2:] == (16, 16):
                hint = (
                    'the pooling layer is missing: MaxPool2D(pool_size=2,'
                    ' strides=2) halves height and width.'
                )
            elif out.shape[2:] < (8, 8):
                hint = (
                    'padding=1 keeps the height and width of a 3x3 '
                    'convolution; without it every convolution removes '
                    'two rows and two columns.'
                )
            raise Failure(
                f'vgg_block({shown}) turned a (2, 3, 16, 16) batch '
                f'into shape {out.shape}, expected {want}.',
                hint,
            )
        convs = [b for b in _walk(blk) if _kind(b) == 'Conv2D']
        if len(convs) != num_convs:
            raise Failure(
                f'vgg_block({shown}) has {len(convs)} Conv2D '
                f'layers, expected {num_convs}.',
                VGG,
            )
        for conv in convs:
            if tuple(conv.weight.shape[2:]) != (3, 3):
                raise Failure(
                    f'a convolution has a '
                    f'{conv.weight.shape[2]}x{conv.weight.shape[3]}'
                    f' kernel; VGG uses 3x3 kernels only.',
                    VGG,
                )
        if out.min() < 0:
            raise Failure(
                f'vgg_block({shown}) returned negative values: '
                f'the ReLU after each convolution is missing.',
                "use activation='relu' in every Conv2D.",
            )
    return (
        'correct: each block keeps the channels it is given and halves '
        'the resolution.'
    )


# -- batch normalization -----------------------------------------------------

BN = (
    'in training (autograd.is_training()) use the batch mean and '
    'variance, over axis 0 for 2-D input and over axes (0, 2, 3) with '
    'keepdims=True for 4-D input, and update moving_mean = momentum * '
    'moving_mean + (1 - momentum) * mean (the same for the variance); in '
    'prediction use moving_mean and moving_var. Y = gamma * X_hat + beta.'
)


def _bn_ref(
    X,
    gamma,
    beta,
    mm,
    mv,
    eps,
    momentum,
    training,
    axes,
    ddof=0,
    swapped=False,
):
    if not training:
        X_hat = (X - mm) / np.sqrt(mv + eps)
        return gamma * X_hat + beta, mm, mv
    mean = X.mean(axis=axes, keepdims=True)
    var = X.var(axis=axes, keepdims=True, ddof=ddof)
    X_hat = (X - mean) / np.sqrt(var + eps)
    m = 1.0 - momentum if swapped else momentum
    return (
        gamma * X_hat + beta,
        m * mm + (1 - m) * mean,
        m * mv + (1 - m) * var,
    )


def _bn_case(r, shape):
    per = (1, shape[1]) + (1,) * (len(shape) - 2)
    X = r.normal(2.0, 3.0, size=shape)
    gamma, beta = r.uniform(0.5, 2.0, per), r.normal(size=per)
    mm, mv = r.normal(size=per), r.uniform(0.5, 2.0, per)
    return X, gamma, beta, mm, mv


def _run_bn(student, arrays, training):
    X, gamma, beta, mm, mv = arrays
    inputs = {'X': X, 'mode': 'training' if training else 'prediction'}
    scope = autograd.train_mode() if training else autograd.predict_mode()
    with scope:
        got = call(
            student,
            *[as_nd(a) for a in arrays],
            1e-5,
            0.9,
            inputs=inputs,
            hint=BN,
        )
    if not isinstance(got, (tuple, list)) or len(got) != 3:
        raise Failure(
            'batch_norm should return three arrays: (Y, '
            'moving_mean, moving_var).',
            BN,
        )
    return [
        to_numpy(g, what=name)
        for g, name in zip(got, ('Y', 'moving_mean', 'moving_var'))
    ], inputs


@exercise('ch09.batch_norm', hint=BN)
def _batch_norm(student):
    """batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum)."""
    r = rng(902)
    eps, momentum = 1e-5, 0.9
    for shape, axes in [((8, 5), (0,)), ((4, 3, 2, 2), (0, 2, 3))]:
        arrays = _bn_case(r, shape)
        X, gamma, beta, mm, mv = arrays
        for training in (True, False):
            (Y, new_mm, new_mv), inputs = _run_bn(student, arrays, training)
            ref = _bn_ref(*arrays, eps, momentum, training, axes)
            mode = 'training' if training else 'prediction'

            def diagnose(got, training=training, arrays=arrays, axes=axes):
                if not training and matches(
                    got, _bn_ref(*arrays, eps, momentum, True, axes)[0]
                ):
                    return (
                        'in prediction mode (autograd.is_training() is '
                        'False) normalize with moving_mean and '
                        'moving_var, not with the batch statistics.'
                    )
                if training and matches(
                    got, _bn_ref(*arrays, eps, momentum, False, axes)[0]
                ):
                    return (
                        'in training mode (autograd.is_training() is '
                        'True) normalize with the batch statistics.'
                    )
                if (
                    training
                    and len(axes) == 3
                    and matches(
                        got, _bn_ref(*arrays, eps, momentum, True, (0,))[0]
                    )
                ):
                    return (
                        'after a convolution, average over the batch '
                        'and all positions: axes (0, 2, 3), '
                        'keepdims=True.'
                    )
                if training and matches(
                    got, _bn_ref(*arrays, eps, momentum, True, axes, ddof=1)[0]
                ):
                    return (
                        'divide by n, not n - 1: var = ((X - mean) ** '
                        '2).mean(...).'
                    )
                gam, bet = arrays[1], arrays[2]
                swapped = (arrays[0], bet, gam) + tuple(arrays[3:])
                if matches(
                    got, _bn_ref(*swapped, eps, momentum, training, axes)[0]
                ):
                    return (
                        'gamma scales and beta shifts: gamma * X_hat + beta.'
                    )
                return None

            expect_close(
                Y,
                ref[0],
                inputs,
                what=f'Y ({mode} mode)',
                rtol=1e-3,
                atol=1e-4,
                diagnose=diagnose,
            )
            for got, want, name in [
                (new_mm, ref[1], 'moving_mean'),
                (new_mv, ref[2], 'moving_var'),
            ]:

                def diagnose_stat(
                    got, name=name, arrays=arrays, axes=axes, training=training
                ):
                    if training and matches(
                        got, arrays[3 if name == 'moving_mean' else 4]
                    ):
                        return (
                            f'{name} did not change in training mode: '
                            f'return the updated running average.'
                        )
                    if training:
                        idx = 1 if name == 'moving_mean' else 2
                        if matches(
                            got,
                            _bn_ref(
                                *arrays,
                                eps,
                                momentum,
                                True,
                                axes,
                                swapped=True,
                            )[idx],
                        ):
                            return (
                                f'momentum weighs the old value: {name} '
                                f'= momentum * {name} + (1 - momentum) '
                                f'* batch statistic.'
                            )
                    if not training:
                        return (
                            f'in prediction mode {name} must be returned '
                            f'unchanged.'
                        )
                    return None

                got = (
                    np.reshape(got, want.shape)
                    if np.size(got) == np.size(want)
                    else got
                )
                expect_close(
                    got,
                    want,
                    inputs,
                    what=f'{name} ({mode} mode)',
                    rtol=1e-3,
                    atol=1e-4,
                    diagnose=diagnose_stat,
                )
    # a feature with zero variance needs eps
    X = np.ones((4, 2))
    X[:, 1] = r.normal(size=4)
    arrays = (
        X,
        np.ones((1, 2)),
        np.zeros((1, 2)),
        np.zeros((1, 2)),
        np.ones((1, 2)),
    )
    (Y, _, _), inputs = _run_bn(student, arrays, True)
    if not np.isfinite(Y).all():
        raise Failure(
            'for a feature whose values are all equal (variance '
            '0) the output contains inf or nan.',
            'add eps inside the square root: sqrt(var + eps).',
        )
    return (
        'correct in both modes, for dense (2-D) and convolutional (4-D) '
        'inputs.'
    )


# -- residual block ----------------------------------------------------------

RESIDUAL = (
    'conv1 (3x3, padding 1, strides) -> BatchNorm -> relu -> conv2 '
    '(3x3, padding 1) -> BatchNorm, plus the input X (through a 1x1 '
    'convolution with the same strides when use_1x1conv=True), then '
    'relu.'
)


def _set_conv_weights_to_zero(block):
    for b in _walk(block):
        if _kind(b) == 'Conv2D':
            for p in b.collect_params().values():
                p.set_data(p.data() * 0)


@exercise('ch09.residual', hint=RESIDUAL)
def _residual(student):
    """Residual(num_channels, use_1x1conv=False, strides=1)."""
    r = rng(903)
    X = r.normal(size=(2, 3, 6, 6))
    cases = [
        ((3,), {}, (2, 3, 6, 6)),
        ((6,), {'use_1x1conv': True, 'strides': 2}, (2, 6, 3, 3)),
        ((5,), {'use_1x1conv': True}, (2, 5, 6, 6)),
    ]
    for args, kwargs, want in cases:
        blk, shown = _build(student, 'Residual', *args, **kwargs)
        _initialize(blk)
        strides = kwargs.get('strides', 1)

        def hint(err, strides=strides):
            if 'shape' in str(err) or 'broadcast' in str(err):
                return (
                    'Y and the shortcut must have the same shape: with '
                    'use_1x1conv=True the shortcut is '
                    f'nn.Conv2D(num_channels, kernel_size=1, '
                    f'strides={strides}).'
                )
            return RESIDUAL

        out = to_numpy(call(blk, as_nd(X), inputs={'X': X}, hint=hint))
        if out.shape != want:
            raise Failure(
                f'Residual({shown}) turned a (2, 3, 6, 6) batch '
                f'into shape {out.shape}, expected {want}.',
                RESIDUAL,
            )
        kinds = [_kind(b) for b in _walk(blk)]
        convs = kinds.count('Conv2D')
        norms = sum('BatchNorm' in k for k in kinds)
        expected_convs = 3 if kwargs.get('use_1x1conv') else 2
        if convs != expected_convs:
            raise Failure(
                f'Residual({shown}) has {convs} Conv2D layers, '
                f'expected {expected_convs}.',
                RESIDUAL,
            )
        if norms < 2:
            raise Failure(
                f'Residual({shown}) has {norms} batch '
                f'normalization layers, expected 2 (one after '
                f'each 3x3 convolution).',
                RESIDUAL,
            )
    # with zero convolutions the block must reduce to relu(X)
    blk, shown = _build(student, 'Residual', 3)
    _initialize(blk)
    call(blk, as_nd(X), inputs={'X': X})
    _set_conv_weights_to_zero(blk)
    got = call(blk, as_nd(X), inputs={'X': X})

    def diagnose(got):
        if matches(got, np.zeros_like(X)):
            return 'the output ignores X: add the shortcut, relu(Y + X).'
        if matches(got, X):
            return 'apply relu after adding the shortcut: relu(Y + X).'
        return None

    expect_close(
        got,
        np.maximum(X, 0),
        {'X': X},
        what='the output with all convolution weights set to zero',
        diagnose=diagnose,
    )
    return (
        'correct: with zero weights the block is relu(X), so the '
        'shortcut carries the input through.'
    )
