"""AlexNet (Krizhevsky, 2014, "One weird trick for parallelizing
convolutional neural networks", https://arxiv.org/abs/1404.5997).

The network that started the deep-learning wave in vision: five
convolutions with ReLU and max pooling, then two wide fully connected
layers regularized by dropout.  This is the single-GPU "one weird trick"
variant (64-192-384-256-256 filters) that MXNet and torchvision ship.
"""

__all__ = ['AlexNet', 'alexnet']

from ....context import cpu
from ... import nn
from ...block import HybridBlock
from ..model_store import load_pretrained


class AlexNet(HybridBlock):
    r"""AlexNet model from the `"One weird trick..."
    <https://arxiv.org/abs/1404.5997>`_ paper.

    ``features``: conv 11x11/4 (64) - pool - conv 5x5 (192) - pool -
    conv 3x3 (384, 256, 256) - pool - flatten - dense 4096 - dropout -
    dense 4096 - dropout; ``output``: dense ``classes``.  Expects
    3x224x224 images (the first dense layer then sees 256x6x6 = 9216
    inputs).

    Parameters
    ----------
    classes : int, default 1000
        Number of classes for the output layer.
    """

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            with self.features.name_scope():
                self.features.add(
                    nn.Conv2D(
                        64,
                        kernel_size=11,
                        strides=4,
                        padding=2,
                        activation='relu',
                    )
                )
                self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
                self.features.add(
                    nn.Conv2D(192, kernel_size=5, padding=2, activation='relu')
                )
                self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
                self.features.add(
                    nn.Conv2D(384, kernel_size=3, padding=1, activation='relu')
                )
                self.features.add(
                    nn.Conv2D(256, kernel_size=3, padding=1, activation='relu')
                )
                self.features.add(
                    nn.Conv2D(256, kernel_size=3, padding=1, activation='relu')
                )
                self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
                self.features.add(nn.Flatten())
                self.features.add(nn.Dense(4096, activation='relu'))
                self.features.add(nn.Dropout(0.5))
                self.features.add(nn.Dense(4096, activation='relu'))
                self.features.add(nn.Dropout(0.5))

            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        x = self.features(x)
        x = self.output(x)
        return x


def alexnet(pretrained=False, ctx=cpu(), root=None, **kwargs):
    r"""AlexNet model from the `"One weird trick..."
    <https://arxiv.org/abs/1404.5997>`_ paper.

    Parameters
    ----------
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
    net = AlexNet(**kwargs)
    if pretrained:
        load_pretrained(net, 'alexnet', ctx, root)
    return net
