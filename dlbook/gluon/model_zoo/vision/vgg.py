"""VGG (Simonyan and Zisserman, 2014, "Very Deep Convolutional Networks for
Large-Scale Image Recognition", https://arxiv.org/abs/1409.1556).

The idea: depth from uniformity.  Only 3x3 convolutions (two stacked see
5x5, three see 7x7, with fewer parameters and more non-linearities),
grouped in five stages that each end in a 2x2 max pool halving the
resolution, then three fully connected layers.  The ``_bn`` variants add
batch normalization after every convolution.
"""

__all__ = [
    'VGG',
    'vgg11',
    'vgg13',
    'vgg16',
    'vgg19',
    'vgg11_bn',
    'vgg13_bn',
    'vgg16_bn',
    'vgg19_bn',
    'get_vgg',
]

from ....base import UsageError
from ....context import cpu
from ....initializer import Xavier
from ... import nn
from ...block import HybridBlock
from ..model_store import load_pretrained


class VGG(HybridBlock):
    r"""VGG model from the `"Very Deep Convolutional Networks for
    Large-Scale Image Recognition" <https://arxiv.org/abs/1409.1556>`_
    paper.

    ``features`` holds the convolution stages followed by two dense-4096
    layers with dropout; ``output`` is the last dense layer.

    Parameters
    ----------
    layers : list of int
        Numbers of convolution layers in each stage.
    filters : list of int
        Numbers of filters in each stage (same length as ``layers``).
    classes : int, default 1000
        Number of classification classes.
    batch_norm : bool, default False
        Use batch normalization after each convolution.
    """

    def __init__(
        self, layers, filters, classes=1000, batch_norm=False, **kwargs
    ):
        super().__init__(**kwargs)
        if len(layers) != len(filters):
            raise UsageError(
                f'VGG: layers and filters must have the same length (one '
                f'count of conv layers and one channel count per stage), '
                f'got {len(layers)} layers {list(layers)} and '
                f'{len(filters)} filters {list(filters)}.'
            )
        with self.name_scope():
            self.features = self._make_features(layers, filters, batch_norm)
            self.features.add(
                nn.Dense(
                    4096,
                    activation='relu',
                    weight_initializer='normal',
                    bias_initializer='zeros',
                )
            )
            self.features.add(nn.Dropout(rate=0.5))
            self.features.add(
                nn.Dense(
                    4096,
                    activation='relu',
                    weight_initializer='normal',
                    bias_initializer='zeros',
                )
            )
            self.features.add(nn.Dropout(rate=0.5))
            self.output = nn.Dense(
                classes, weight_initializer='normal', bias_initializer='zeros'
            )

    def _make_features(self, layers, filters, batch_norm):
        featurizer = nn.HybridSequential(prefix='')
        for i, num in enumerate(layers):
            for _ in range(num):
                featurizer.add(
                    nn.Conv2D(
                        filters[i],
                        kernel_size=3,
                        padding=1,
                        weight_initializer=Xavier(
                            rnd_type='gaussian', factor_type='out', magnitude=2
                        ),
                        bias_initializer='zeros',
                    )
                )
                if batch_norm:
                    featurizer.add(nn.BatchNorm())
                featurizer.add(nn.Activation('relu'))
            featurizer.add(nn.MaxPool2D(strides=2))
        return featurizer

    def hybrid_forward(self, F, x):
        x = self.features(x)
        x = self.output(x)
        return x


# Convolutions per stage and filters per stage, by depth.
vgg_spec = {
    11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]),
    13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
    16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]),
    19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512]),
}


def get_vgg(num_layers, pretrained=False, ctx=cpu(), root=None, **kwargs):
    r"""VGG model from the `"Very Deep Convolutional Networks for
    Large-Scale Image Recognition" <https://arxiv.org/abs/1409.1556>`_
    paper.

    Parameters
    ----------
    num_layers : int
        Number of weight layers: 11, 13, 16 or 19.
    pretrained : bool, default False
        Whether to load the pretrained ImageNet weights for model.
    ctx : Context, default CPU
        The context in which to load the pretrained weights.
    root : str, optional
        Location for keeping the model parameters (default: dlbook's model
        cache, see :mod:`~dlbook.gluon.model_zoo.model_store`).
    batch_norm : bool, default False
        Use batch normalization (the ``_bn`` models).
    classes : int, default 1000
        Number of classes for the output layer.
    """
    layers, filters = vgg_spec[num_layers]
    net = VGG(layers, filters, **kwargs)
    if pretrained:
        suffix = '_bn' if kwargs.get('batch_norm') else ''
        load_pretrained(net, f'vgg{num_layers}{suffix}', ctx, root)
    return net


def vgg11(**kwargs):
    r"""VGG-11 model (8 convolutions + 3 dense layers); arguments as
    :func:`get_vgg`."""
    return get_vgg(11, **kwargs)


def vgg13(**kwargs):
    r"""VGG-13 model (10 convolutions + 3 dense layers); arguments as
    :func:`get_vgg`."""
    return get_vgg(13, **kwargs)


def vgg16(**kwargs):
    r"""VGG-16 model (13 convolutions + 3 dense layers); arguments as
    :func:`get_vgg`."""
    return get_vgg(16, **kwargs)


def vgg19(**kwargs):
    r"""VGG-19 model (16 convolutions + 3 dense layers); arguments as
    :func:`get_vgg`."""
    return get_vgg(19, **kwargs)


def vgg11_bn(**kwargs):
    r"""VGG-11 model with batch normalization; arguments as
    :func:`get_vgg`."""
    kwargs['batch_norm'] = True
    return get_vgg(11, **kwargs)


def vgg13_bn(**kwargs):
    r"""VGG-13 model with batch normalization; arguments as
    :func:`get_vgg`."""
    kwargs['batch_norm'] = True
    return get_vgg(13, **kwargs)


def vgg16_bn(**kwargs):
    r"""VGG-16 model with batch normalization; arguments as
    :func:`get_vgg`."""
    kwargs['batch_norm'] = True
    return get_vgg(16, **kwargs)


def vgg19_bn(**kwargs):
    r"""VGG-19 model with batch normalization; arguments as
    :func:`get_vgg`."""
    kwargs['batch_norm'] = True
    return get_vgg(19, **kwargs)
