"""MobileNet (Howard et al., 2017, "MobileNets: Efficient Convolutional
Neural Networks for Mobile Vision Applications",
https://arxiv.org/abs/1704.04861) and MobileNetV2 (Sandler et al., 2018,
"MobileNetV2: Inverted Residuals and Linear Bottlenecks",
https://arxiv.org/abs/1801.04381).

MobileNet's idea: split a 3x3 convolution into a *depthwise* 3x3 (one
filter per channel, ``groups = channels``) and a *pointwise* 1x1 that
mixes channels, about 8-9x cheaper.  A width ``multiplier`` (1.0, 0.75,
0.5, 0.25) thins every layer to trade accuracy for speed.

MobileNetV2's idea: the *inverted residual* block expands the channels by
``t`` with a 1x1, filters depthwise, then projects back down with a
*linear* 1x1 (no ReLU, so the narrow representation loses no
information); the shortcut joins the narrow ends.  It uses ReLU6,
``min(max(x, 0), 6)``, which behaves well in low precision.
"""

__all__ = [
    'MobileNet',
    'MobileNetV2',
    'mobilenet1_0',
    'mobilenet_v2_1_0',
    'mobilenet0_75',
    'mobilenet_v2_0_75',
    'mobilenet0_5',
    'mobilenet_v2_0_5',
    'mobilenet0_25',
    'mobilenet_v2_0_25',
    'get_mobilenet',
    'get_mobilenet_v2',
]

from ....context import cpu
from ... import nn
from ...block import HybridBlock
from ..model_store import load_pretrained


class RELU6(nn.HybridBlock):
    """Relu6 used in MobileNetV2: ``y = clip(x, 0, 6)``."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)

    def hybrid_forward(self, F, x):
        return F.clip(x, 0, 6, name='relu6')


def _add_conv(
    out,
    channels=1,
    kernel=1,
    stride=1,
    pad=0,
    num_group=1,
    active=True,
    relu6=False,
):
    """Append convolution (no bias), BatchNorm and, if ``active``, ReLU
    (or ReLU6) to ``out``."""
    out.add(
        nn.Conv2D(
            channels, kernel, stride, pad, groups=num_group, use_bias=False
        )
    )
    out.add(nn.BatchNorm(scale=True))
    if active:
        out.add(RELU6() if relu6 else nn.Activation('relu'))


def _add_conv_dw(out, dw_channels, channels, stride, relu6=False):
    """Depthwise 3x3 (one group per channel), then pointwise 1x1."""
    _add_conv(
        out,
        channels=dw_channels,
        kernel=3,
        stride=stride,
        pad=1,
        num_group=dw_channels,
        relu6=relu6,
    )
    _add_conv(out, channels=channels, relu6=relu6)


class LinearBottleneck(nn.HybridBlock):
    r"""LinearBottleneck used in MobileNetV2 model from the
    `"Inverted Residuals and Linear Bottlenecks: Mobile Networks for
    Classification, Detection and Segmentation"
    <https://arxiv.org/abs/1801.04381>`_ paper.

    1x1 expansion to ``in_channels * t`` (ReLU6), depthwise 3x3 with
    ``stride`` (ReLU6), linear 1x1 projection to ``channels``; the input
    is added back when the shapes allow (stride 1, same width).

    Parameters
    ----------
    in_channels : int
        Number of input channels.
    channels : int
        Number of output channels.
    t : int
        Layer expansion ratio.
    stride : int
        stride
    """

    def __init__(self, in_channels, channels, t, stride, **kwargs):
        super().__init__(**kwargs)
        self.use_shortcut = stride == 1 and in_channels == channels
        with self.name_scope():
            self.out = nn.HybridSequential()

            _add_conv(self.out, in_channels * t, relu6=True)
            _add_conv(
                self.out,
                in_channels * t,
                kernel=3,
                stride=stride,
                pad=1,
                num_group=in_channels * t,
                relu6=True,
            )
            _add_conv(self.out, channels, active=False, relu6=True)

    def hybrid_forward(self, F, x):
        out = self.out(x)
        if self.use_shortcut:
            out = F.elemwise_add(out, x)
        return out


class MobileNet(HybridBlock):
    r"""MobileNet model from the `"MobileNets: Efficient Convolutional
    Neural Networks for Mobile Vision Applications"
    <https://arxiv.org/abs/1704.04861>`_ paper.

    ``features``: a 3x3/2 convolution, 13 depthwise-separable pairs,
    global average pooling and flatten; ``output``: dense ``classes``.

    Parameters
    ----------
    multiplier : float, default 1.0
        The width multiplier for controling the model size. Only
        multipliers that are no less than 0.25 are supported. The actual
        number of channels is equal to the original channel size multiplied
        by this multiplier.
    classes : int, default 1000
        Number of classes for the output layer.
    """

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            with self.features.name_scope():
                _add_conv(
                    self.features,
                    channels=int(32 * multiplier),
                    kernel=3,
                    pad=1,
                    stride=2,
                )
                dw_channels = [
                    int(x * multiplier)
                    for x in [32, 64]
                    + [128] * 2
                    + [256] * 2
                    + [512] * 6
                    + [1024]
                ]
                channels = [
                    int(x * multiplier)
                    for x in [64]
                    + [128] * 2
                    + [256] * 2
                    + [512] * 6
                    + [1024] * 2
                ]
                strides = [1, 2] * 3 + [1] * 5 + [2, 1]
                for dwc, c, s in zip(dw_channels, channels, strides):
                    _add_conv_dw(
                        self.features, dw_channels=dwc, channels=c, stride=s
                    )
                self.features.add(nn.GlobalAvgPool2D())
                self.features.add(nn.Flatten())

            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        x = self.features(x)
        x = self.output(x)
        return x


class MobileNetV2(nn.HybridBlock):
    r"""MobileNetV2 model from the `"Inverted Residuals and Linear
    Bottlenecks: Mobile Networks for Classification, Detection and
    Segmentation" <https://arxiv.org/abs/1801.04381>`_ paper.

    ``features`` (prefix ``features_``): a 3x3/2 convolution, 17 linear
    bottlenecks, a 1x1 convolution to 1280 channels and global average
    pooling; ``output`` (prefix ``output_``): a 1x1 convolution ``pred``
    to ``classes`` channels and flatten.

    Parameters
    ----------
    multiplier : float, default 1.0
        The width multiplier for controling the model size. The actual
        number of channels is equal to the original channel size multiplied
        by this multiplier.
    classes : int, default 1000
        Number of classes for the output layer.
    """

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='features_')
            with self.features.name_scope():
                _add_conv(
                    self.features,
                    int(32 * multiplier),
                    kernel=3,
                    stride=2,
                    pad=1,
                    relu6=True,
                )

                in_channels_group = [
                    int(x * multiplier)
                    for x in [32]
                    + [16]
                    + [24] * 2
                    + [32] * 3
                    + [64] * 4
                    + [96] * 3
                    + [160] * 3
                ]
                channels_group = [
                    int(x * multiplier)
                    for x in [16]
                    + [24] * 2
                    + [32] * 3
                    + [64] * 4
                    + [96] * 3
                    + [160] * 3
                    + [320]
                ]
                ts = [1] + [6] * 16
                strides = [1, 2] * 2 + [1, 1, 2] + [1] * 6 + [2] + [1] * 3

                for in_c, c, t, s in zip(
                    in_channels_group, channels_group, ts, strides
                ):
                    self.features.add(
                        LinearBottleneck(
                            in_channels=in_c, channels=c, t=t, stride=s
                        )
                    )

                last_channels = (
                    int(1280 * multiplier) if multiplier > 1.0 else 1280
                )
                _add_conv(self.features, last_channels, relu6=True)

                self.features.add(nn.GlobalAvgPool2D())

            self.output = nn.HybridSequential(prefix='output_')
            with self.output.name_scope():
                self.output.add(
                    nn.Conv2D(classes, 1, use_bias=False, prefix='pred_'),
                    nn.Flatten(),
                )

    def hybrid_forward(self, F, x):
        x = self.features(x)
        x = self.output(x)
        return x


def _version_suffix(multiplier):
    """``'1.0'``, ``'0.75'``, ``'0.5'``, ``'0.25'``: the suffix of the
    pretrained file names."""
    suffix = '{0:.2f}'.format(multiplier)
    if suffix in ('1.00', '0.50'):
        suffix = suffix[:-1]
    return suffix


def get_mobilenet(
    multiplier, pretrained=False, ctx=cpu(), root=None, **kwargs
):
    r"""MobileNet model from the `"MobileNets: Efficient Convolutional
    Neural Networks for Mobile Vision Applications"
    <https://arxiv.org/abs/1704.04861>`_ paper.

    Parameters
    ----------
    multiplier : float
        The width multiplier for controling the model size. Only
        multipliers that are no less than 0.25 are supported. The actual
        number of channels is equal to the original channel size multiplied
        by this multiplier.
    pretrained : bool, default False
        Whether to load the pretrained ImageNet weights for model.
    ctx : Context, default CPU
        The context in which to load the pretrained weights.
    root : str, optional
        Location for keeping the model parameters (default: dlbook's model
        cache, see :mod:`~dlbook.gluon.model_zoo.model_store`).
    classes : int, default 1000
        Number of classes for the output layer.
    """
    net = MobileNet(multiplier, **kwargs)
    if pretrained:
        load_pretrained(
            net, f'mobilenet{_version_suffix(multiplier)}', ctx, root
        )
    return net


def get_mobilenet_v2(
    multiplier, pretrained=False, ctx=cpu(), root=None, **kwargs
):
    r"""MobileNetV2 model from the `"Inverted Residuals and Linear
    Bottlenecks: Mobile Networks for Classification, Detection and
    Segmentation" <https://arxiv.org/abs/1801.04381>`_ paper.

    Parameters
    ----------
    multiplier : float
        The width multiplier for controling the model size. The actual
        number of channels is equal to the original channel size multiplied
        by this multiplier.
    pretrained : bool, default False
        Whether to load the pretrained ImageNet weights for model.
    ctx : Context, default CPU
        The context in which to load the pretrained weights.
    root : str, optional
        Location for keeping the model parameters (default: dlbook's model
        cache, see :mod:`~dlbook.gluon.model_zoo.model_store`).
    classes : int, default 1000
        Number of classes for the output layer.
    """
    net = MobileNetV2(multiplier, **kwargs)
    if pretrained:
        load_pretrained(
            net, f'mobilenetv2_{_version_suffix(multiplier)}', ctx, root
        )
    return net


def mobilenet1_0(**kwargs):
    r"""MobileNet with width multiplier 1.0; arguments as
    :func:`get_mobilenet`."""
    return get_mobilenet(1.0, **kwargs)


def mobilenet_v2_1_0(**kwargs):
    r"""MobileNetV2 with width multiplier 1.0; arguments as
    :func:`get_mobilenet_v2`."""
    return get_mobilenet_v2(1.0, **kwargs)


def mobilenet0_75(**kwargs):
    r"""MobileNet with width multiplier 0.75; arguments as
    :func:`get_mobilenet`."""
    return get_mobilenet(0.75, **kwargs)


def mobilenet_v2_0_75(**kwargs):
    r"""MobileNetV2 with width multiplier 0.75; arguments as
    :func:`get_mobilenet_v2`."""
    return get_mobilenet_v2(0.75, **kwargs)


def mobilenet0_5(**kwargs):
    r"""MobileNet with width multiplier 0.5; arguments as
    :func:`get_mobilenet`."""
    return get_mobilenet(0.5, **kwargs)


def mobilenet_v2_0_5(**kwargs):
    r"""MobileNetV2 with width multiplier 0.5; arguments as
    :func:`get_mobilenet_v2`."""
    return get_mobilenet_v2(0.5, **kwargs)


def mobilenet0_25(**kwargs):
    r"""MobileNet with width multiplier 0.25; arguments as
    :func:`get_mobilenet`."""
    return get_mobilenet(0.25, **kwargs)


def mobilenet_v2_0_25(**kwargs):
    r"""MobileNetV2 with width multiplier 0.25; arguments as
    :func:`get_mobilenet_v2`."""
    return get_mobilenet_v2(0.25, **kwargs)
