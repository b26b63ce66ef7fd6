"""SqueezeNet (Iandola et al., 2016, "SqueezeNet: AlexNet-level accuracy
with 50x fewer parameters and <0.5MB model size",
https://arxiv.org/abs/1602.07360).

The idea: the *fire module*.  A 1x1 "squeeze" convolution first cuts the
channels, then parallel 1x1 and 3x3 "expand" convolutions restore them and
are concatenated; most filters are 1x1 (9x fewer weights than 3x3) and
the 3x3 filters see few input channels.  There is no dense layer at all:
a 1x1 convolution produces one map per class, averaged over space.
Version 1.1 (from the authors' repository) pools earlier and needs 2.4x
less computation for the same accuracy.
"""

__all__ = ['SqueezeNet', 'squeezenet1_0', 'squeezenet1_1']

from ....base import UsageError
from ....context import cpu
from ... import nn
from ...block import HybridBlock
from ..custom_layers import HybridConcurrent
from ..model_store import load_pretrained


def _make_fire(squeeze_channels, expand1x1_channels, expand3x3_channels):
    out = nn.HybridSequential(prefix='')
    out.add(_make_fire_conv(squeeze_channels, 1))

    paths = HybridConcurrent(axis=1, prefix='')
    paths.add(_make_fire_conv(expand1x1_channels, 1))
    paths.add(_make_fire_conv(expand3x3_channels, 3, 1))
    out.add(paths)
    return out


def _make_fire_conv(channels, kernel_size, padding=0):
    out = nn.HybridSequential(prefix='')
    out.add(nn.Conv2D(channels, kernel_size, padding=padding))
    out.add(nn.Activation('relu'))
    return out


# Per version: the stem convolution (channels, kernel size; stride 2),
# then the layers after its ReLU: 'pool' is a 3x3/2 max pool, a number a
# fire module squeezing to that many channels and expanding to four times
# as many in each of its two paths.
_squeezenet_spec = {
    '1.0': (
        (96, 7),
        ['pool', 16, 16, 32, 'pool', 32, 48, 48, 64, 'pool', 64],
    ),
    '1.1': (
        (64, 3),
        ['pool', 16, 16, 'pool', 32, 32, 'pool', 48, 48, 64, 64],
    ),
}


class SqueezeNet(HybridBlock):
    r"""SqueezeNet model from the `"SqueezeNet: AlexNet-level accuracy with
    50x fewer parameters and <0.5MB model size"
    <https://arxiv.org/abs/1602.07360>`_ paper.
    SqueezeNet 1.1 model from the `official SqueezeNet repo
    <https://github.com/DeepScale/SqueezeNet/tree/master/SqueezeNet_v1.1>`_.
    SqueezeNet 1.1 has 2.4x less computation and slightly fewer parameters
    than SqueezeNet 1.0, without sacrificing accuracy.

    ``features``: a convolution, max pools and eight fire modules, then
    dropout; ``output``: 1x1 convolution to ``classes`` maps, ReLU, 13x13
    average pool (so 224x224 inputs) and flatten.

    Parameters
    ----------
    version : str
        Version of squeezenet. Options are '1.0', '1.1'.
    classes : int, default 1000
        Number of classification classes.
    """

    def __init__(self, version, classes=1000, **kwargs):
        super().__init__(**kwargs)
        if version not in ['1.0', '1.1']:
            raise UsageError(
                f'Unsupported SqueezeNet version {version!r}: '
                f"'1.0' or '1.1' expected (a string)."
            )
        (stem_channels, stem_kernel), layers = _squeezenet_spec[version]
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            self.features.add(
                nn.Conv2D(stem_channels, kernel_size=stem_kernel, strides=2)
            )
            self.features.add(nn.Activation('relu'))
            for layer in layers:
                if layer == 'pool':
                    self.features.add(
                        nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True)
                    )
                else:
                    self.features.add(_make_fire(layer, 4 * layer, 4 * layer))
            self.features.add(nn.Dropout(0.5))

            self.output = nn.HybridSequential(prefix='')
            self.output.add(nn.Conv2D(classes, kernel_size=1))
            self.output.add(nn.Activation('relu'))
            self.output.add(nn.AvgPool2D(13))
            self.output.add(nn.Flatten())

    def hybrid_forward(self, F, x):
        x = self.features(x)
        x = self.output(x)
        return x


def get_squeezenet(version, pretrained=False, ctx=cpu(), root=None, **kwargs):
    r"""SqueezeNet model from the `"SqueezeNet: AlexNet-level accuracy with
    50x fewer parameters and <0.5MB model size"
    <https://arxiv.org/abs/1602.07360>`_ paper.

    Parameters
    ----------
    version : str
        Version of squeezenet. Options are '1.0', '1.1'.
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
    net = SqueezeNet(version, **kwargs)
    if pretrained:
        load_pretrained(net, f'squeezenet{version}', ctx, root)
    return net


def squeezenet1_0(**kwargs):
    r"""SqueezeNet 1.0 model; arguments as :func:`get_squeezenet`."""
    return get_squeezenet('1.0', **kwargs)


def squeezenet1_1(**kwargs):
    r"""SqueezeNet 1.1 model (earlier pooling, 2.4x less computation);
    arguments as :func:`get_squeezenet`."""
    return get_squeezenet('1.1', **kwargs)
