r"""Classic ImageNet classification networks (MXNet's
``gluon.model_zoo.vision``).

-  AlexNet (https://arxiv.org/abs/1404.5997)
-  DenseNet (https://arxiv.org/abs/1608.06993)
-  Inception V3 (http://arxiv.org/abs/1512.00567)
-  ResNet V1 (https://arxiv.org/abs/1512.03385)
-  ResNet V2 (https://arxiv.org/abs/1603.05027)
-  SqueezeNet (https://arxiv.org/abs/1602.07360)
-  VGG (https://arxiv.org/abs/1409.1556)
-  MobileNet (https://arxiv.org/abs/1704.04861)
-  MobileNetV2 (https://arxiv.org/abs/1801.04381)

Construct a model with random weights by calling its constructor::

    from dlbook.gluon.model_zoo import vision
    resnet18 = vision.resnet18_v1()
    alexnet = vision.alexnet()
    squeezenet = vision.squeezenet1_0()
    densenet = vision.densenet161()

or by name with :func:`get_model`.  Every model has a ``features`` block
(the convolutional body) and an ``output`` block (the classifier), so
fine-tuning replaces ``output`` and keeps ``features``.

``pretrained=True`` loads MXNet's ImageNet weights (see
:mod:`~dlbook.gluon.model_zoo.model_store` for where the files are looked
for and downloaded to).  All pretrained models expect mini-batches of
3-channel RGB images of shape (N x 3 x H x W), with H and W at least 224
(299 for Inception V3), loaded into [0, 1] and normalized with
``mean = [0.485, 0.456, 0.406]`` and ``std = [0.229, 0.224, 0.225]``.
"""

from .alexnet import *  # noqa: F401,F403
from .alexnet import alexnet
from .densenet import *  # noqa: F401,F403
from .densenet import densenet121, densenet161, densenet169, densenet201
from .inception import *  # noqa: F401,F403
from .inception import inception_v3
from .mobilenet import *  # noqa: F401,F403
from .mobilenet import (
    mobilenet0_5,
    mobilenet0_25,
    mobilenet0_75,
    mobilenet1_0,
    mobilenet_v2_0_5,
    mobilenet_v2_0_25,
    mobilenet_v2_0_75,
    mobilenet_v2_1_0,
)
from .resnet import *  # noqa: F401,F403
from .resnet import (
    resnet18_v1,
    resnet18_v2,
    resnet34_v1,
    resnet34_v2,
    resnet50_v1,
    resnet50_v2,
    resnet101_v1,
    resnet101_v2,
    resnet152_v1,
    resnet152_v2,
)
from .squeezenet import *  # noqa: F401,F403
from .squeezenet import squeezenet1_0, squeezenet1_1
from .vgg import *  # noqa: F401,F403
from .vgg import (
    vgg11,
    vgg11_bn,
    vgg13,
    vgg13_bn,
    vgg16,
    vgg16_bn,
    vgg19,
    vgg19_bn,
)

_models = {
    'resnet18_v1': resnet18_v1,
    'resnet34_v1': resnet34_v1,
    'resnet50_v1': resnet50_v1,
    'resnet101_v1': resnet101_v1,
    'resnet152_v1': resnet152_v1,
    'resnet18_v2': resnet18_v2,
    'resnet34_v2': resnet34_v2,
    'resnet50_v2': resnet50_v2,
    'resnet101_v2': resnet101_v2,
    'resnet152_v2': resnet152_v2,
    'vgg11': vgg11,
    'vgg13': vgg13,
    'vgg16': vgg16,
    'vgg19': vgg19,
    'vgg11_bn': vgg11_bn,
    'vgg13_bn': vgg13_bn,
    'vgg16_bn': vgg16_bn,
    'vgg19_bn': vgg19_bn,
    'alexnet': alexnet,
    'densenet121': densenet121,
    'densenet161': densenet161,
    'densenet169': densenet169,
    'densenet201': densenet201,
    'squeezenet1.0': squeezenet1_0,
    'squeezenet1.1': squeezenet1_1,
    'inceptionv3': inception_v3,
    'mobilenet1.0': mobilenet1_0,
    'mobilenet0.75': mobilenet0_75,
    'mobilenet0.5': mobilenet0_5,
    'mobilenet0.25': mobilenet0_25,
    'mobilenetv2_1.0': mobilenet_v2_1_0,
    'mobilenetv2_0.75': mobilenet_v2_0_75,
    'mobilenetv2_0.5': mobilenet_v2_0_5,
    'mobilenetv2_0.25': mobilenet_v2_0_25,
}


def get_model(name, **kwargs):
    """Returns a pre-defined model by name.

    Parameters
    ----------
    name : str
        Name of the model (case-insensitive): ``'resnet18_v1'``,
        ``'vgg16_bn'``, ``'squeezenet1.1'``, ``'inceptionv3'``,
        ``'mobilenet0.25'``, ``'mobilenetv2_1.0'`` ...
    pretrained : bool
        Whether to load the pretrained weights for model.
    classes : int
        Number of classes for the output layer.
    ctx : Context, default CPU
        The context in which to load the pretrained weights.
    root : str, optional
        Location for keeping the model parameters.

    Returns
    -------
    HybridBlock
        The model.

    Examples
    --------
    >>> net = vision.get_model('resnet18_v1', classes=10, thumbnail=True)
    >>> net.output
    Dense(512 -> 10, linear)
    """
    name = name.lower()
    if name not in _models:
        raise ValueError(
            'Model %s is not supported. Available options are\n\t%s'
            % (name, '\n\t'.join(sorted(_models.keys())))
        )
    return _models[name](**kwargs)
