"""Convolutions by hand, and the blocks of modern CNNs (chapters 8 and 9).

Chapter 8 (``notebooks/ch08_convolutions_lenet.ipynb``) builds a
convolution out of loops before using ``nn.Conv2D``:

``corr2d``, ``corr2d_multi_in``, ``corr2d_multi_in_out``,
``corr2d_multi_in_out_1x1``, ``pool2d``
    Cross-correlation and pooling written out, slow and clear.
``conv_output_shape``
    The output-size formula, for checking your arithmetic.
``comp_conv2d``
    Run a ``Conv2D``/pooling layer on one single-channel image and return
    the output's height and width.

Chapter 9 (``notebooks/ch09_modern_cnns.ipynb``) assembles modern
networks from repeated blocks:

``vgg_block``, ``vgg``, ``nin_block``, ``batch_norm``, ``BatchNorm``
(from scratch), ``Residual``, ``resnet_block``, ``resnet18``.
"""
import math
import warnings

from .. import autograd, nd
from ..gluon import nn

__all__ = ['corr2d', 'corr2d_multi_in', 'corr2d_multi_in_out',
           'corr2d_multi_in_out_1x1', 'pool2d', 'conv_output_shape',
           'comp_conv2d', 'vgg_block', 'vgg', 'nin_block', 'batch_norm',
           'BatchNorm', 'Residual', 'resnet_block', 'resnet18']


# -- convolution and pooling by hand ---------------------------------------

def corr2d(X, K):
    """Two-dimensional cross-correlation of ``X`` with the kernel ``K``.

    Slide ``K`` over ``X``; each output element is the sum of the
    elementwise product of ``K`` with the window of ``X`` under it:

    .. math:: Y_{i,j} = \\sum_{a=0}^{k_h-1} \\sum_{b=0}^{k_w-1}
              X_{i+a,\\,j+b} \\, K_{a,b}

    Deep-learning "convolution" layers compute exactly this (a true
    convolution would flip ``K`` first; a learned kernel does not care).

    Parameters
    ----------
    X : NDArray, shape ``(n_h, n_w)``
    K : NDArray, shape ``(k_h, k_w)``

    Returns
    -------
    NDArray, shape ``(n_h - k_h + 1, n_w - k_w + 1)``

    Examples
    --------
    >>> X = nd.arange(9).reshape((3, 3))
    >>> d2l.corr2d(X, nd.array([[0, 1], [2, 3]]))      # [[19, 25], [37, 43]]
    """
    h, w = K.shape
    Y = nd.zeros((X.shape[0] - h + 1, X.shape[1] - w + 1), ctx=X.context,
                 dtype=X.dtype)
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            Y[i, j] = (X[i: i + h, j: j + w] * K).sum().asscalar()
    return Y


def corr2d_multi_in(X, K):
    """Cross-correlation with several input channels.

    One 2-D cross-correlation per channel, then the results are summed:
    ``X`` of shape ``(c_i, h, w)`` and ``K`` of shape ``(c_i, k_h, k_w)``
    give one output channel.
    """
    return nd.add_n(*[corr2d(x, k) for x, k in zip(X, K)])


def corr2d_multi_in_out(X, K):
    """Cross-correlation with several input and output channels.

    ``K`` has shape ``(c_o, c_i, k_h, k_w)``: one multi-input kernel per
    output channel. The outputs are stacked into shape ``(c_o, h', w')``.
    """
    return nd.stack(*[corr2d_multi_in(X, k) for k in K])


def corr2d_multi_in_out_1x1(X, K):
    """A 1x1 convolution computed as a matrix product.

    With a 1x1 kernel, every pixel's output is the same linear map of
    that pixel's ``c_i`` channel values: a fully connected layer applied
    at each position. ``X``: ``(c_i, h, w)``, ``K``: ``(c_o, c_i, 1, 1)``;
    returns ``(c_o, h, w)``, equal to ``corr2d_multi_in_out(X, K)``.
    """
    c_i, h, w = X.shape
    c_o = K.shape[0]
    X = X.reshape((c_i, h * w))
    K = K.reshape((c_o, c_i))
    Y = nd.dot(K, X)
    return Y.reshape((c_o, h, w))


def pool2d(X, pool_size, mode='max'):
    """Max or average pooling of a 2-D array, written with loops.

    Parameters
    ----------
    X : NDArray, shape ``(n_h, n_w)``
    pool_size : pair of int
        ``(p_h, p_w)``: the window; the stride is 1 here.
    mode : {'max', 'avg'}

    Returns
    -------
    NDArray, shape ``(n_h - p_h + 1, n_w - p_w + 1)``
    """
    if mode not in ('max', 'avg'):
        raise ValueError(f"mode must be 'max' or 'avg', got {mode!r}")
    p_h, p_w = pool_size
    Y = nd.zeros((X.shape[0] - p_h + 1, X.shape[1] - p_w + 1),
                 ctx=X.context, dtype=X.dtype)
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            window = X[i: i + p_h, j: j + p_w]
            value = window.max() if mode == 'max' else window.mean()
            Y[i, j] = value.asscalar()
    return Y


def _pair(value):
    return tuple(value) if isinstance(value, (tuple, list)) \
        else (value, value)


def conv_output_shape(input_shape, kernel_size, padding=0, strides=1):
    """Height and width after a convolution or pooling layer.

    With ``p`` rows of padding on *each* side (MXNet's ``padding``),

    .. math:: n_{out} = \\left\\lfloor \\frac{n + 2p - k}{s}
              \\right\\rfloor + 1

    for the height and the width separately.

    Parameters
    ----------
    input_shape : pair of int
        ``(n_h, n_w)``.
    kernel_size, padding, strides : int or pair of int
        As for ``nn.Conv2D``.

    Returns
    -------
    tuple of int

    Examples
    --------
    >>> d2l.conv_output_shape((8, 8), 3, padding=1, strides=2)
    (4, 4)
    """
    shape = []
    for n, k, p, s in zip(_pair(input_shape), _pair(kernel_size),
                          _pair(padding), _pair(strides)):
        out = math.floor((n + 2 * p - k) / s) + 1
        if out < 1:
            raise ValueError(
                f'a window of {k} with padding {p} does not fit in an '
                f'input of size {n}')
        shape.append(out)
    return tuple(shape)


def comp_conv2d(conv2d, X):
    """Apply a 2-D layer to one single-channel image; return ``(h, w)``'s
    output.

    Layers take a batch of shape ``(batch, channels, h, w)``, so the
    image is reshaped to ``(1, 1, h, w)`` first and the two leading
    dimensions are dropped from the result. The layer is initialized
    (default initializer) if it has not been yet.

    Parameters
    ----------
    conv2d : gluon.Block
        A ``Conv2D`` with one output channel, or a pooling layer.
    X : NDArray, shape ``(h, w)``

    Returns
    -------
    NDArray, shape ``(h', w')``

    Examples
    --------
    >>> conv2d = nn.Conv2D(1, kernel_size=3, padding=1)
    >>> d2l.comp_conv2d(conv2d, nd.random.uniform(shape=(8, 8))).shape
    (8, 8)
    """
    with warnings.catch_warnings():
        # a layer that is already initialized keeps its parameters
        warnings.filterwarnings('ignore', message='.*already initialized')
        conv2d.initialize()
    X = X.reshape((1, 1) + X.shape)
    Y = conv2d(X)
    return Y.reshape(Y.shape[2:])


# -- modern CNN blocks ------------------------------------------------------

def vgg_block(num_convs, num_channels):
    """A VGG block: ``num_convs`` 3x3 convolutions (padding 1, ReLU),
    then a 2x2 max-pooling with stride 2, which halves height and width.
    """
    blk = nn.Sequential()
    for _ in range(num_convs):
        blk.add(nn.Conv2D(num_channels, kernel_size=3, padding=1,
                          activation='relu'))
    blk.add(nn.MaxPool2D(pool_size=2, strides=2))
    return blk


def vgg(conv_arch, num_classes=10, fc_units=4096, dropout=0.5):
    """A VGG network: VGG blocks, then two dense layers and the output.

    Parameters
    ----------
    conv_arch : sequence of (num_convs, num_channels)
        One pair per block; VGG-11 is ``((1, 64), (1, 128), (2, 256),
        (2, 512), (2, 512))``.
    num_classes : int, optional
    fc_units : int, optional
        Width of the two hidden dense layers (4096 in the paper; much
        less is enough for 10 classes of small images).
    dropout : float, optional

    Returns
    -------
    nn.Sequential
    """
    net = nn.Sequential()
    for num_convs, num_channels in conv_arch:
        net.add(vgg_block(num_convs, num_channels))
    net.add(nn.Dense(fc_units, activation='relu'), nn.Dropout(dropout),
            nn.Dense(fc_units, activation='relu'), nn.Dropout(dropout),
            nn.Dense(num_classes))
    return net


def nin_block(num_channels, kernel_size, strides, padding):
    """A Network-in-Network block: one ordinary convolution, then two
    1x1 convolutions (per-pixel dense layers), all with ReLU."""
    blk = nn.Sequential()
    blk.add(nn.Conv2D(num_channels, kernel_size, strides, padding,
                      activation='relu'),
            nn.Conv2D(num_channels, kernel_size=1, activation='relu'),
            nn.Conv2D(num_channels, kernel_size=1, activation='relu'))
    return blk


def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
    """Batch normalization from scratch.

    In training (``autograd.is_training()``, true inside
    ``autograd.record()``), normalize with the statistics of *this*
    minibatch and update the running averages:

    .. math:: \\hat{x} = \\frac{x - \\mu_B}{\\sqrt{\\sigma_B^2 + \\epsilon}},
              \\quad y = \\gamma \\hat{x} + \\beta,
              \\quad \\mu \\leftarrow m \\mu + (1 - m) \\mu_B

    In prediction, use the running averages instead, so that the output
    for one example does not depend on the rest of its batch.

    Parameters
    ----------
    X : NDArray, shape ``(n, c)`` (after a dense layer) or
        ``(n, c, h, w)`` (after a convolution: statistics per channel,
        over the batch and all positions)
    gamma, beta : NDArray
        Learned scale and shift, broadcastable to ``X``.
    moving_mean, moving_var : NDArray
        Running statistics, same shape as ``gamma``.
    eps : float
        Keeps the denominator away from zero.
    momentum : float
        Weight ``m`` of the old running average (0.9 in d2l).

    Returns
    -------
    Y, moving_mean, moving_var : NDArray
    """
    if not autograd.is_training():
        X_hat = (X - moving_mean) / nd.sqrt(moving_var + eps)
    else:
        if len(X.shape) not in (2, 4):
            raise ValueError(f'batch_norm expects 2-D or 4-D input, got '
                             f'shape {X.shape}')
        if len(X.shape) == 2:
            mean = X.mean(axis=0, keepdims=True)
            var = ((X - mean) ** 2).mean(axis=0, keepdims=True)
        else:
            mean = X.mean(axis=(0, 2, 3), keepdims=True)
            var = ((X - mean) ** 2).mean(axis=(0, 2, 3), keepdims=True)
        X_hat = (X - mean) / nd.sqrt(var + eps)
        moving_mean = momentum * moving_mean + (1.0 - momentum) * mean
        moving_var = momentum * moving_var + (1.0 - momentum) * var
    Y = gamma * X_hat + beta
    return Y, moving_mean, moving_var


class BatchNorm(nn.Block):
    """The batch-normalization layer built on ``batch_norm``.

    Parameters
    ----------
    num_features : int
        Outputs of a dense layer, or channels of a convolution.
    num_dims : {2, 4}
        2 after a dense layer, 4 after a convolutional layer.

    ``gamma`` and ``beta`` are Parameters (learned, initialized to 1 and
    0); the running mean and variance are plain arrays updated by the
    forward pass, not by the optimizer.
    """

    def __init__(self, num_features, num_dims, **kwargs):
        super().__init__(**kwargs)
        if num_dims not in (2, 4):
            raise ValueError(f'num_dims must be 2 or 4, got {num_dims}')
        shape = (1, num_features) if num_dims == 2 \
            else (1, num_features, 1, 1)
        self.gamma = self.params.get('gamma', shape=shape, init='ones')
        self.beta = self.params.get('beta', shape=shape, init='zeros')
        self.moving_mean = nd.zeros(shape)
        self.moving_var = nd.ones(shape)

    def forward(self, X):
        if self.moving_mean.context != X.context:
            self.moving_mean = self.moving_mean.copyto(X.context)
            self.moving_var = self.moving_var.copyto(X.context)
        Y, self.moving_mean, self.moving_var = batch_norm(
            X, self.gamma.data(X.context), self.beta.data(X.context),
            self.moving_mean, self.moving_var, eps=1e-5, momentum=0.9)
        # the running statistics are data, not part of the graph
        self.moving_mean = self.moving_mean.detach()
        self.moving_var = self.moving_var.detach()
        return Y


class Residual(nn.HybridBlock):
    """The ResNet residual block: ``relu(F(X) + X)``.

    ``F`` is conv 3x3 -> BatchNorm -> ReLU -> conv 3x3 -> BatchNorm. When
    the block changes the number of channels or the resolution
    (``strides=2``), ``X`` is reshaped to match by a 1x1 convolution
    (``use_1x1conv=True``).

    Parameters
    ----------
    num_channels : int
    use_1x1conv : bool, optional
    strides : int, optional
    """

    def __init__(self, num_channels, use_1x1conv=False, strides=1,
                 **kwargs):
        super().__init__(**kwargs)
        self.conv1 = nn.Conv2D(num_channels, kernel_size=3, padding=1,
                               strides=strides)
        self.conv2 = nn.Conv2D(num_channels, kernel_size=3, padding=1)
        if use_1x1conv:
            self.conv3 = nn.Conv2D(num_channels, kernel_size=1,
                                   strides=strides)
        else:
            self.conv3 = None
        self.bn1 = nn.BatchNorm()
        self.bn2 = nn.BatchNorm()

    def hybrid_forward(self, F, X):
        Y = F.Activation(self.bn1(self.conv1(X)), act_type='relu')
        Y = self.bn2(self.conv2(Y))
        if self.conv3 is not None:
            X = self.conv3(X)
        return F.Activation(Y + X, act_type='relu')


def resnet_block(num_channels, num_residuals, first_block=False):
    """A stage of ResNet: ``num_residuals`` residual blocks.

    Every stage but the first starts with a block that doubles the
    channels and halves height and width (``strides=2`` and a 1x1
    convolution on the shortcut).
    """
    blk = nn.HybridSequential()
    for i in range(num_residuals):
        if i == 0 and not first_block:
            blk.add(Residual(num_channels, use_1x1conv=True, strides=2))
        else:
            blk.add(Residual(num_channels))
    return blk


def resnet18(num_classes, base_channels=64):
    """ResNet-18 for small images, as d2l's ``resnet18``.

    A 3x3 stem without max-pooling (CIFAR-style, so that 32x32 inputs
    keep enough resolution), four stages of two residual blocks with
    ``base_channels`` x 1, 2, 4, 8 channels, global average pooling and
    a dense output layer.

    Parameters
    ----------
    num_classes : int
    base_channels : int, optional
        64 as in the paper; 16 or 8 trains far faster on a CPU.

    Returns
    -------
    nn.HybridSequential
    """
    net = nn.HybridSequential()
    net.add(nn.Conv2D(base_channels, kernel_size=3, strides=1, padding=1),
            nn.BatchNorm(), nn.Activation('relu'))
    for i in range(4):
        net.add(resnet_block(base_channels * 2 ** i, 2,
                             first_block=(i == 0)))
    net.add(nn.GlobalAvgPool2D(), nn.Dense(num_classes))
    return net
