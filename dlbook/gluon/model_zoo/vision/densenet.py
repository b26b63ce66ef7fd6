"""DenseNet-BC (Huang et al., 2016, "Densely Connected Convolutional
Networks", https://arxiv.org/abs/1608.06993).

The idea: inside a dense block every layer receives the concatenation of
*all* earlier feature maps and adds only ``growth_rate`` new channels
(``x <- concat(x, f(x))``), so features are reused instead of relearnt and
the network stays narrow.  "BC": each layer first squeezes its input with
a 1x1 bottleneck convolution (``bn_size * growth_rate`` channels), and the
transitions between blocks halve both the channels and the resolution.
"""

__all__ = [
    'DenseNet',
    'densenet121',
    'densenet161',
    'densenet169',
    'densenet201',
]

from ....context import cpu
from ... import nn
from ...block import HybridBlock
from ..custom_layers import HybridConcurrent, Identity
from ..model_store import load_pretrained


def _make_dense_block(num_layers, bn_size, growth_rate, dropout, stage_index):
    out = nn.HybridSequential(prefix=f'stage{stage_index}_')
    with out.name_scope():
        for _ in range(num_layers):
            out.add(_make_dense_layer(growth_rate, bn_size, dropout))
    return out


def _make_dense_layer(growth_rate, bn_size, dropout):
    """``concat(x, conv3x3(relu(bn(conv1x1(relu(bn(x)))))))``."""
    new_features = nn.HybridSequential(prefix='')
    new_features.add(nn.BatchNorm())
    new_features.add(nn.Activation('relu'))
    new_features.add(
        nn.Conv2D(bn_size * growth_rate, kernel_size=1, use_bias=False)
    )
    new_features.add(nn.BatchNorm())
    new_features.add(nn.Activation('relu'))
    new_features.add(
        nn.Conv2D(growth_rate, kernel_size=3, padding=1, use_bias=False)
    )
    if dropout:
        new_features.add(nn.Dropout(dropout))

    out = HybridConcurrent(axis=1, prefix='')
    out.add(Identity())
    out.add(new_features)
    return out


def _make_transition(num_output_features):
    out = nn.HybridSequential(prefix='')
    out.add(nn.BatchNorm())
    out.add(nn.Activation('relu'))
    out.add(nn.Conv2D(num_output_features, kernel_size=1, use_bias=False))
    out.add(nn.AvgPool2D(pool_size=2, strides=2))
    return out


class DenseNet(HybridBlock):
    r"""Densenet-BC model from the `"Densely Connected Convolutional
    Networks" <https://arxiv.org/pdf/1608.06993.pdf>`_ paper.

    ``features``: 7x7/2 convolution, BN, ReLU, 3x3/2 max pool, then dense
    blocks ``stage1_`` ... separated by transitions, a final BN and ReLU,
    a 7x7 average pool (so 224x224 inputs) and flatten; ``output``: dense
    ``classes``.

    Parameters
    ----------
    num_init_features : int
        Number of filters to learn in the first convolution layer.
    growth_rate : int
        Number of filters to add each layer (`k` in the paper).
    block_config : list of int
        List of integers for numbers of layers in each pooling block.
    bn_size : int, default 4
        Multiplicative factor for number of bottle neck layers.
        (i.e. bn_size * k features in the bottleneck layer)
    dropout : float, default 0
        Rate of dropout after each dense layer.
    classes : int, default 1000
        Number of classification classes.
    """

    def __init__(
        self,
        num_init_features,
        growth_rate,
        block_config,
        bn_size=4,
        dropout=0,
        classes=1000,
        **kwargs,
    ):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            self.features.add(
                nn.Conv2D(
                    num_init_features,
                    kernel_size=7,
                    strides=2,
                    padding=3,
                    use_bias=False,
                )
            )
            self.features.add(nn.BatchNorm())
            self.features.add(nn.Activation('relu'))
            self.features.add(nn.MaxPool2D(pool_size=3, strides=2, padding=1))
            num_features = num_init_features
            for i, num_layers in enumerate(block_config):
                self.features.add(
                    _make_dense_block(
                        num_layers, bn_size, growth_rate, dropout, i + 1
                    )
                )
                num_features = num_features + num_layers * growth_rate
                if i != len(block_config) - 1:
                    self.features.add(_make_transition(num_features // 2))
                    num_features = num_features // 2
            self.features.add(nn.BatchNorm())
            self.features.add(nn.Activation('relu'))
            self.features.add(nn.AvgPool2D(pool_size=7))
            self.features.add(nn.Flatten())

            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        x = self.features(x)
        x = self.output(x)
        return x


# Initial filters, growth rate and layers per dense block.
densenet_spec = {
    121: (64, 32, [6, 12, 24, 16]),
    161: (96, 48, [6, 12, 36, 24]),
    169: (64, 32, [6, 12, 32, 32]),
    201: (64, 32, [6, 12, 48, 32]),
}


def get_densenet(num_layers, pretrained=False, ctx=cpu(), root=None, **kwargs):
    r"""Densenet-BC model from the `"Densely Connected Convolutional
    Networks" <https://arxiv.org/pdf/1608.06993.pdf>`_ paper.

    Parameters
    ----------
    num_layers : int
        Number of layers for the variant of densenet. Options are 121,
        161, 169, 201.
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
    num_init_features, growth_rate, block_config = densenet_spec[num_layers]
    net = DenseNet(num_init_features, growth_rate, block_config, **kwargs)
    if pretrained:
        load_pretrained(net, f'densenet{num_layers}', ctx, root)
    return net


def densenet121(**kwargs):
    r"""Densenet-BC 121-layer model; arguments as :func:`get_densenet`."""
    return get_densenet(121, **kwargs)


def densenet161(**kwargs):
    r"""Densenet-BC 161-layer model (growth rate 48); arguments as
    :func:`get_densenet`."""
    return get_densenet(161, **kwargs)


def densenet169(**kwargs):
    r"""Densenet-BC 169-layer model; arguments as :func:`get_densenet`."""
    return get_densenet(169, **kwargs)


def densenet201(**kwargs):
    r"""Densenet-BC 201-layer model; arguments as :func:`get_densenet`."""
    return get_densenet(201, **kwargs)
