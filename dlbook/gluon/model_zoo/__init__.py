"""Predefined and pretrained models (MXNet's ``gluon.model_zoo``).

``model_zoo.vision`` holds the classic ImageNet classifiers (AlexNet, VGG,
ResNet, DenseNet, SqueezeNet, Inception v3, MobileNet), built block by
block as in MXNet 1.9.1 so that parameter names, ``print(net)`` and
MXNet's pretrained ``.params`` files all match; ``model_store`` finds and
downloads those files.
"""

from . import (
    model_store,
    vision,
)
