"""ResNet V1 (He et al., 2015, "Deep Residual Learning for Image
Recognition", https://arxiv.org/abs/1512.03385) and V2 (He et al., 2016,
"Identity Mappings in Deep Residual Networks",
https://arxiv.org/abs/1603.05027).

The idea: each block learns a *residual* ``F(x)`` and outputs
``x + F(x)``, so a block that has nothing to add can stay close to the
identity and gradients flow straight through the shortcut; this is what
lets networks grow to 152 layers.  V1 applies ReLU after the addition;
V2 moves batch normalization and ReLU *before* each convolution
("pre-activation"), leaving the shortcut path completely clean.

18 and 34 layers use basic blocks (two 3x3 convolutions); 50, 101 and 152
use bottleneck blocks (1x1 reduce, 3x3, 1x1 expand by 4).  A stage's first
block may halve the resolution (stride 2) and change the width; its
shortcut is then a 1x1 convolution (``downsample``).
"""

__all__ = [
    'ResNetV1',
    'ResNetV2',
    'BasicBlockV1',
    'BasicBlockV2',
    'BottleneckV1',
    'BottleneckV2',
    'resnet18_v1',
    'resnet34_v1',
    'resnet50_v1',
    'resnet101_v1',
    'resnet152_v1',
    'resnet18_v2',
    'resnet34_v2',
    'resnet50_v2',
    'resnet101_v2',
    'resnet152_v2',
    'get_resnet',
]

from ....base import UsageError
from ....context import cpu
from ... import nn
from ...block import HybridBlock
from ..model_store import load_pretrained


def _conv3x3(channels, stride, in_channels):
    return nn.Conv2D(
        channels,
        kernel_size=3,
        strides=stride,
        padding=1,
        use_bias=False,
        in_channels=in_channels,
    )


# ------------------------------------------------------------------ blocks


class _BlockV1(HybridBlock):
    """What the V1 blocks share: ``relu(body(x) + x')``, where the
    subclass builds ``body`` and ``x'`` is ``x`` or, when the block changes
    the shape, ``downsample(x)`` (see :meth:`_shortcut`)."""

    @staticmethod
    def _shortcut(channels, stride, in_channels):
        """The V1 ``downsample`` branch: a strided 1x1 convolution and
        BatchNorm, so that ``x'`` has the shape of ``body(x)``."""
        out = nn.HybridSequential(prefix='')
        out.add(
            nn.Conv2D(
                channels,
                kernel_size=1,
                strides=stride,
                use_bias=False,
                in_channels=in_channels,
            )
        )
        out.add(nn.BatchNorm())
        return out

    def hybrid_forward(self, F, x):
        residual = x
        x = self.body(x)
        if self.downsample:
            residual = self.downsample(residual)
        return F.Activation(x + residual, act_type='relu')


class BasicBlockV1(_BlockV1):
    r"""BasicBlock V1 from `"Deep Residual Learning for Image Recognition"
    <http://arxiv.org/abs/1512.03385>`_ paper; used by ResNet V1 with 18
    and 34 layers.

    ``y = relu(x' + bn(conv3x3(relu(bn(conv3x3(x))))))`` where ``x'`` is
    ``x``, or ``bn(conv1x1(x))`` when downsampling.

    Parameters
    ----------
    channels : int
        Number of output channels.
    stride : int
        Stride size.
    downsample : bool, default False
        Whether to downsample the input.
    in_channels : int, default 0
        Number of input channels. Default is 0, to infer from the graph.
    """

    def __init__(
        self, channels, stride, downsample=False, in_channels=0, **kwargs
    ):
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix='')
        self.body.add(_conv3x3(channels, stride, in_channels))
        self.body.add(nn.BatchNorm())
        self.body.add(nn.Activation('relu'))
        self.body.add(_conv3x3(channels, 1, channels))
        self.body.add(nn.BatchNorm())
        self.downsample = (
            self._shortcut(channels, stride, in_channels)
            if downsample
            else None
        )


class BottleneckV1(_BlockV1):
    r"""Bottleneck V1 from `"Deep Residual Learning for Image Recognition"
    <http://arxiv.org/abs/1512.03385>`_ paper; used by ResNet V1 with 50,
    101 and 152 layers.

    1x1 convolution to ``channels // 4`` (carrying the stride), 3x3
    convolution, 1x1 convolution back to ``channels``, each followed by
    batch normalization (ReLU on the first two); then the shortcut is
    added and a ReLU applied.

    Parameters
    ----------
    channels : int
        Number of output channels.
    stride : int
        Stride size.
    downsample : bool, default False
        Whether to downsample the input.
    in_channels : int, default 0
        Number of input channels. Default is 0, to infer from the graph.
    """

    def __init__(
        self, channels, stride, downsample=False, in_channels=0, **kwargs
    ):
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix='')
        self.body.add(nn.Conv2D(channels // 4, kernel_size=1, strides=stride))
        self.body.add(nn.BatchNorm())
        self.body.add(nn.Activation('relu'))
        self.body.add(_conv3x3(channels // 4, 1, channels // 4))
        self.body.add(nn.BatchNorm())
        self.body.add(nn.Activation('relu'))
        self.body.add(nn.Conv2D(channels, kernel_size=1, strides=1))
        self.body.add(nn.BatchNorm())
        self.downsample = (
            self._shortcut(channels, stride, in_channels)
            if downsample
            else None
        )


class _BlockV2(HybridBlock):
    """What the V2 blocks share: pre-activated convolutions
    ``x = conv_k(relu(bn_k(x)))`` for ``k = 1 ... _depth`` (the subclass
    creates ``bn1, conv1, bn2, conv2 ...``), added to the shortcut.  When
    the block changes the shape, the shortcut is ``downsample`` applied to
    ``relu(bn1(x))``, so it too sees normalized input."""

    #: Number of ``(bn_k, conv_k)`` pairs.
    _depth = 2

    @staticmethod
    def _shortcut(channels, stride, in_channels):
        """The V2 ``downsample`` branch: a strided 1x1 convolution."""
        return nn.Conv2D(
            channels, 1, stride, use_bias=False, in_channels=in_channels
        )

    def hybrid_forward(self, F, x):
        residual = x
        for k in range(1, self._depth + 1):
            x = getattr(self, f'bn{k}')(x)
            x = F.Activation(x, act_type='relu')
            if k == 1 and self.downsample:
                residual = self.downsample(x)
            x = getattr(self, f'conv{k}')(x)
        return x + residual


class BasicBlockV2(_BlockV2):
    r"""BasicBlock V2 from `"Identity Mappings in Deep Residual Networks"
    <https://arxiv.org/abs/1603.05027>`_ paper; used by ResNet V2 with 18
    and 34 layers.

    ``y = x' + conv3x3(relu(bn(conv3x3(relu(bn(x))))))``: normalization
    and ReLU come first ("pre-activation"); ``x'`` is ``x``, or a 1x1
    convolution of ``relu(bn(x))`` when downsampling.

    Parameters
    ----------
    channels : int
        Number of output channels.
    stride : int
        Stride size.
    downsample : bool, default False
        Whether to downsample the input.
    in_channels : int, default 0
        Number of input channels. Default is 0, to infer from the graph.
    """

    def __init__(
        self, channels, stride, downsample=False, in_channels=0, **kwargs
    ):
        super().__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = _conv3x3(channels, stride, in_channels)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels, 1, channels)
        self.downsample = (
            self._shortcut(channels, stride, in_channels)
            if downsample
            else None
        )


class BottleneckV2(_BlockV2):
    r"""Bottleneck V2 from `"Identity Mappings in Deep Residual Networks"
    <https://arxiv.org/abs/1603.05027>`_ paper; used by ResNet V2 with 50,
    101 and 152 layers.

    Three pre-activated convolutions (1x1 to ``channels // 4``, 3x3
    carrying the stride, 1x1 back to ``channels``), none with a bias,
    added to the shortcut.

    Parameters
    ----------
    channels : int
        Number of output channels.
    stride : int
        Stride size.
    downsample : bool, default False
        Whether to downsample the input.
    in_channels : int, default 0
        Number of input channels. Default is 0, to infer from the graph.
    """

    _depth = 3

    def __init__(
        self, channels, stride, downsample=False, in_channels=0, **kwargs
    ):
        super().__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = nn.Conv2D(
            channels // 4, kernel_size=1, strides=1, use_bias=False
        )
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels // 4, stride, channels // 4)
        self.bn3 = nn.BatchNorm()
        self.conv3 = nn.Conv2D(
            channels, kernel_size=1, strides=1, use_bias=False
        )
        self.downsample = (
            self._shortcut(channels, stride, in_channels)
            if downsample
            else None
        )


# -------------------------------------------------------------------- nets


class _ResNet(HybridBlock):
    """What ResNetV1 and ResNetV2 share: the stem, the stages and the
    forward ``output(features(x))``; each adds its own first and last
    layers around :meth:`_add_stem_and_stages`."""

    def _add_stem_and_stages(self, block, layers, channels, thumbnail):
        """Append to ``self.features`` the stem (one 3x3 convolution with
        ``thumbnail``, else a 7x7/2 convolution, BN, ReLU and a 3x3/2 max
        pool) and one stage per entry of ``layers``: the first keeps the
        resolution, each later one halves it, and stage ``i`` widens
        ``channels[i - 1]`` to ``channels[i]``."""
        _check_stages(type(self).__name__, layers, channels)
        if thumbnail:
            self.features.add(_conv3x3(channels[0], 1, 0))
        else:
            self.features.add(nn.Conv2D(channels[0], 7, 2, 3, use_bias=False))
            self.features.add(nn.BatchNorm())
            self.features.add(nn.Activation('relu'))
            self.features.add(nn.MaxPool2D(3, 2, 1))
        for i, num_layer in enumerate(layers):
            stride = 1 if i == 0 else 2
            self.features.add(
                self._make_layer(
                    block,
                    num_layer,
                    channels[i + 1],
                    stride,
                    i + 1,
                    in_channels=channels[i],
                )
            )

    def _make_layer(
        self, block, layers, channels, stride, stage_index, in_channels=0
    ):
        """One stage: ``layers`` blocks, the first changing width/stride."""
        layer = nn.HybridSequential(prefix=f'stage{stage_index}_')
        with layer.name_scope():
            layer.add(
                block(
                    channels,
                    stride,
                    channels != in_channels,
                    in_channels=in_channels,
                    prefix='',
                )
            )
            for _ in range(layers - 1):
                layer.add(
                    block(channels, 1, False, in_channels=channels, prefix='')
                )
        return layer

    def hybrid_forward(self, F, x):
        x = self.features(x)
        x = self.output(x)
        return x


def _check_stages(name, layers, channels):
    if len(layers) != len(channels) - 1:
        raise UsageError(
            f'{name}: channels needs one entry more than layers (the stem '
            f'and then one per stage), got {len(layers)} layers '
            f'{list(layers)} and {len(channels)} channels {list(channels)}.'
        )


class ResNetV1(_ResNet):
    r"""ResNet V1 model from `"Deep Residual Learning for Image
    Recognition" <http://arxiv.org/abs/1512.03385>`_ paper.

    ``features``: stem (7x7/2 convolution, BN, ReLU, 3x3/2 max pool; a
    single 3x3 convolution with ``thumbnail``), four stages named
    ``stage1_`` ... ``stage4_``, global average pooling; ``output``: dense
    ``classes``.

    Parameters
    ----------
    block : HybridBlock
        Class for the residual block. Options are BasicBlockV1,
        BottleneckV1.
    layers : list of int
        Numbers of layers in each block.
    channels : list of int
        Numbers of channels in each block. Length should be one larger than
        layers list.
    classes : int, default 1000
        Number of classification classes.
    thumbnail : bool, default False
        Enable thumbnail: a 3x3 stride-1 stem without pooling, for small
        images such as CIFAR's 32x32.
    """

    def __init__(
        self, block, layers, channels, classes=1000, thumbnail=False, **kwargs
    ):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            self._add_stem_and_stages(block, layers, channels, thumbnail)
            self.features.add(nn.GlobalAvgPool2D())

            self.output = nn.Dense(classes, in_units=channels[-1])


class ResNetV2(_ResNet):
    r"""ResNet V2 model from `"Identity Mappings in Deep Residual Networks"
    <https://arxiv.org/abs/1603.05027>`_ paper.

    ``features``: an input BatchNorm without scale and shift (it only
    standardizes the data), the stem, four pre-activation stages, then BN,
    ReLU, global average pooling and flatten; ``output``: dense
    ``classes``.

    Parameters
    ----------
    block : HybridBlock
        Class for the residual block. Options are BasicBlockV2,
        BottleneckV2.
    layers : list of int
        Numbers of layers in each block.
    channels : list of int
        Numbers of channels in each block. Length should be one larger than
        layers list.
    classes : int, default 1000
        Number of classification classes.
    thumbnail : bool, default False
        Enable thumbnail: a 3x3 stride-1 stem without pooling.
    """

    def __init__(
        self, block, layers, channels, classes=1000, thumbnail=False, **kwargs
    ):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            self.features.add(nn.BatchNorm(scale=False, center=False))
            self._add_stem_and_stages(block, layers, channels, thumbnail)
            # V2 blocks end on a convolution: normalize before pooling
            self.features.add(nn.BatchNorm())
            self.features.add(nn.Activation('relu'))
            self.features.add(nn.GlobalAvgPool2D())
            self.features.add(nn.Flatten())

            self.output = nn.Dense(classes, in_units=channels[-1])


# Block type, blocks per stage and channels (stem, then each stage).
resnet_spec = {
    18: ('basic_block', [2, 2, 2, 2], [64, 64, 128, 256, 512]),
    34: ('basic_block', [3, 4, 6, 3], [64, 64, 128, 256, 512]),
    50: ('bottle_neck', [3, 4, 6, 3], [64, 256, 512, 1024, 2048]),
    101: ('bottle_neck', [3, 4, 23, 3], [64, 256, 512, 1024, 2048]),
    152: ('bottle_neck', [3, 8, 36, 3], [64, 256, 512, 1024, 2048]),
}

resnet_net_versions = [ResNetV1, ResNetV2]
resnet_block_versions = [
    {'basic_block': BasicBlockV1, 'bottle_neck': BottleneckV1},
    {'basic_block': BasicBlockV2, 'bottle_neck': BottleneckV2},
]


def get_resnet(
    version, num_layers, pretrained=False, ctx=cpu(), root=None, **kwargs
):
    r"""ResNet V1 model from `"Deep Residual Learning for Image
    Recognition" <http://arxiv.org/abs/1512.03385>`_ paper.
    ResNet V2 model from `"Identity Mappings in Deep Residual Networks"
    <https://arxiv.org/abs/1603.05027>`_ paper.

    Parameters
    ----------
    version : int
        Version of ResNet. Options are 1, 2.
    num_layers : int
        Numbers of layers. Options are 18, 34, 50, 101, 152.
    pretrained : bool, default False
        Whether to load the pretrained ImageNet weights for model.
    ctx : Context, default CPU
        The context in which to load the pretrained weights.
    root : str, optional
        Location for keeping the model parameters (default: dlbook's model
        cache, see :mod:`~dlbook.gluon.model_zoo.model_store`).
    classes : int, default 1000
        Number of classes for the output layer.
    thumbnail : bool, default False
        Small-image stem (see :class:`ResNetV1`).
    """
    if num_layers not in resnet_spec:
        raise UsageError(
            f'Invalid number of layers: {num_layers}. Options '
            f'are {sorted(resnet_spec)}.'
        )
    block_type, layers, channels = resnet_spec[num_layers]
    if version not in (1, 2):
        raise UsageError(
            f'Invalid resnet version: {version}. Options are 1 and 2.'
        )
    resnet_class = resnet_net_versions[version - 1]
    block_class = resnet_block_versions[version - 1][block_type]
    net = resnet_class(block_class, layers, channels, **kwargs)
    if pretrained:
        load_pretrained(net, f'resnet{num_layers}_v{version}', ctx, root)
    return net


def resnet18_v1(**kwargs):
    r"""ResNet-18 V1 (basic blocks, [2, 2, 2, 2]); arguments as
    :func:`get_resnet`."""
    return get_resnet(1, 18, **kwargs)


def resnet34_v1(**kwargs):
    r"""ResNet-34 V1 (basic blocks, [3, 4, 6, 3]); arguments as
    :func:`get_resnet`."""
    return get_resnet(1, 34, **kwargs)


def resnet50_v1(**kwargs):
    r"""ResNet-50 V1 (bottlenecks, [3, 4, 6, 3]); arguments as
    :func:`get_resnet`."""
    return get_resnet(1, 50, **kwargs)


def resnet101_v1(**kwargs):
    r"""ResNet-101 V1 (bottlenecks, [3, 4, 23, 3]); arguments as
    :func:`get_resnet`."""
    return get_resnet(1, 101, **kwargs)


def resnet152_v1(**kwargs):
    r"""ResNet-152 V1 (bottlenecks, [3, 8, 36, 3]); arguments as
    :func:`get_resnet`."""
    return get_resnet(1, 152, **kwargs)


def resnet18_v2(**kwargs):
    r"""ResNet-18 V2 (pre-activation basic blocks); arguments as
    :func:`get_resnet`."""
    return get_resnet(2, 18, **kwargs)


def resnet34_v2(**kwargs):
    r"""ResNet-34 V2 (pre-activation basic blocks); arguments as
    :func:`get_resnet`."""
    return get_resnet(2, 34, **kwargs)


def resnet50_v2(**kwargs):
    r"""ResNet-50 V2 (pre-activation bottlenecks); arguments as
    :func:`get_resnet`."""
    return get_resnet(2, 50, **kwargs)


def resnet101_v2(**kwargs):
    r"""ResNet-101 V2 (pre-activation bottlenecks); arguments as
    :func:`get_resnet`."""
    return get_resnet(2, 101, **kwargs)


def resnet152_v2(**kwargs):
    r"""ResNet-152 V2 (pre-activation bottlenecks); arguments as
    :func:`get_resnet`."""
    return get_resnet(2, 152, **kwargs)
