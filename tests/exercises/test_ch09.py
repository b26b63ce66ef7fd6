"""Checkers of chapter 9: references pass, typical mistakes explained."""

from dlbook import autograd, nd
from dlbook.book import cnn
from dlbook.exercises.checker import run_check
from dlbook.gluon import nn

from .failing import fails as _fails

# -- ch09.vgg_block ----------------------------------------------------------


def vgg_block(
    num_convs, num_channels, padding=1, pool=True, act='relu', kernel=3
):
    blk = nn.Sequential()
    for _ in range(num_convs):
        blk.add(
            nn.Conv2D(
                num_channels,
                kernel_size=kernel,
                padding=padding,
                activation=act,
            )
        )
    if pool:
        blk.add(nn.MaxPool2D(pool_size=2, strides=2))
    return blk


def test_vgg_block_reference_and_library_pass():
    assert run_check('ch09.vgg_block', vgg_block).passed
    assert run_check('ch09.vgg_block', cnn.vgg_block).passed


def test_vgg_block_without_padding():
    _fails(
        'ch09.vgg_block', lambda n, c: vgg_block(n, c, padding=0), 'padding=1'
    )


def test_vgg_block_without_pooling():
    _fails(
        'ch09.vgg_block',
        lambda n, c: vgg_block(n, c, pool=False),
        'pooling layer is missing',
    )


def test_vgg_block_without_relu():
    _fails(
        'ch09.vgg_block',
        lambda n, c: vgg_block(n, c, act=None),
        'ReLU',
        "activation='relu'",
    )


def test_vgg_block_one_convolution_only():
    _fails(
        'ch09.vgg_block',
        lambda n, c: vgg_block(1, c),
        'has 1 Conv2D layers, expected 2',
    )


def test_vgg_block_5x5_kernel():
    _fails(
        'ch09.vgg_block',
        lambda n, c: vgg_block(n, c, padding=2, kernel=5),
        '3x3',
    )


def test_vgg_block_called_instead_of_passed():
    _fails('ch09.vgg_block', vgg_block(1, 2), 'not vgg_block(...)')


# -- ch09.batch_norm ---------------------------------------------------------


def test_batch_norm_reference_passes():
    result = run_check('ch09.batch_norm', cnn.batch_norm)
    assert result.passed, result.report()


def _variant(**change):
    """d2l.batch_norm with one typical mistake."""

    def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
        training = autograd.is_training() or change.get('always_train')
        if change.get('never_train'):
            training = False
        if not training:
            X_hat = (X - moving_mean) / nd.sqrt(moving_var + eps)
        else:
            axes = (0,) if len(X.shape) == 2 else change.get('axes', (0, 2, 3))
            mean = X.mean(axis=axes, keepdims=True)
            var = ((X - mean) ** 2).mean(axis=axes, keepdims=True)
            if change.get('unbiased'):
                n = X.size / mean.size
                var = var * n / (n - 1)
            eps_ = 0 if change.get('no_eps') else eps
            X_hat = (X - mean) / nd.sqrt(var + eps_)
            m = 1 - momentum if change.get('swapped') else momentum
            if not change.get('no_update'):
                moving_mean = m * moving_mean + (1.0 - m) * mean
                moving_var = m * moving_var + (1.0 - m) * var
        if change.get('gamma_beta'):
            return beta * X_hat + gamma, moving_mean, moving_var
        return gamma * X_hat + beta, moving_mean, moving_var

    return batch_norm


def test_batch_norm_typical_mistakes():
    _fails(
        'ch09.batch_norm',
        _variant(always_train=True),
        'moving_mean and moving_var',
    )
    _fails('ch09.batch_norm', _variant(never_train=True), 'batch statistics')
    _fails('ch09.batch_norm', _variant(axes=(0,)), 'axes (0, 2, 3)')
    _fails('ch09.batch_norm', _variant(unbiased=True), 'not n - 1')
    _fails(
        'ch09.batch_norm',
        _variant(swapped=True),
        'momentum weighs the old value',
    )
    _fails('ch09.batch_norm', _variant(no_update=True), 'did not change')
    _fails(
        'ch09.batch_norm', _variant(gamma_beta=True), 'gamma * X_hat + beta'
    )
    _fails('ch09.batch_norm', _variant(no_eps=True), 'sqrt(var + eps)')


def test_batch_norm_returning_only_y():
    _fails(
        'ch09.batch_norm',
        lambda *args: cnn.batch_norm(*args)[0],
        'three arrays',
    )


# -- ch09.residual -----------------------------------------------------------


def test_residual_reference_passes():
    result = run_check('ch09.residual', cnn.Residual)
    assert result.passed, result.report()


class _Residual(nn.Block):
    def __init__(
        self,
        num_channels,
        use_1x1conv=False,
        strides=1,
        shortcut=True,
        last_relu=True,
        shortcut_strides=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.conv1 = nn.Conv2D(
            num_channels, kernel_size=3, padding=1, strides=strides
        )
        self.conv2 = nn.Conv2D(num_channels, kernel_size=3, padding=1)
        self.conv3 = (
            nn.Conv2D(
                num_channels,
                kernel_size=1,
                strides=shortcut_strides or strides,
            )
            if use_1x1conv
            else None
        )
        self.bn1, self.bn2 = nn.BatchNorm(), nn.BatchNorm()
        self.shortcut, self.last_relu = shortcut, last_relu

    def forward(self, X):
        Y = nd.relu(self.bn1(self.conv1(X)))
        Y = self.bn2(self.conv2(Y))
        if self.conv3 is not None:
            X = self.conv3(X)
        if self.shortcut:
            Y = Y + X
        return nd.relu(Y) if self.last_relu else Y


def test_residual_block_of_my_own_passes():
    assert run_check('ch09.residual', _Residual).passed


def test_residual_without_shortcut():
    _fails(
        'ch09.residual',
        lambda *a, **k: _Residual(*a, shortcut=False, **k),
        'add the shortcut',
    )


def test_residual_without_final_relu():
    _fails(
        'ch09.residual',
        lambda *a, **k: _Residual(*a, last_relu=False, **k),
        'apply relu after adding',
    )


def test_residual_shortcut_without_stride():
    _fails(
        'ch09.residual',
        lambda *a, **k: _Residual(*a, shortcut_strides=1, **k),
        'same shape',
        'strides=2',
    )


def test_residual_without_batch_norm():
    class NoBN(nn.Block):
        def __init__(self, num_channels, use_1x1conv=False, strides=1):
            super().__init__()
            self.conv1 = nn.Conv2D(
                num_channels, kernel_size=3, padding=1, strides=strides
            )
            self.conv2 = nn.Conv2D(num_channels, kernel_size=3, padding=1)
            self.conv3 = (
                nn.Conv2D(num_channels, kernel_size=1, strides=strides)
                if use_1x1conv
                else None
            )

        def forward(self, X):
            Y = self.conv2(nd.relu(self.conv1(X)))
            if self.conv3 is not None:
                X = self.conv3(X)
            return nd.relu(Y + X)

    _fails('ch09.residual', NoBN, 'batch normalization layers')
