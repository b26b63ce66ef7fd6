"""Optimizers: MXNet's update rules on NumPy/CuPy arrays.

``mx.optimizer.create('sgd', learning_rate=0.1, momentum=0.9)`` (names are
case-insensitive), or the classes directly.  ``get_updater(opt)`` wraps an
optimizer with per-weight state for the Trainer and the Module API.

Modules: ``optimizer`` (base class, registry), ``sgd`` (SGD, NAG, Signum,
DCASGD, SGLD), ``adam`` (Adam, AdamW, Adamax, Nadam, FTML, LAMB),
``adaptive`` (AdaGrad, RMSProp, AdaDelta, Ftrl), ``large_batch`` (LARS,
LBSGD), ``updater`` (Updater and the pickle-free state format).
"""

from .adam import FTML, LAMB, Adam, Adamax, AdamW, Nadam
from .adaptive import AdaDelta, AdaGrad, Ftrl, RMSProp
from .large_batch import LARS, LBSGD
from .optimizer import Optimizer, create, register
from .sgd import DCASGD, NAG, SGD, SGLD, Signum, Test, ccSGD
from .updater import Updater, get_updater

__all__ = [
    'Optimizer',
    'register',
    'create',
    'Updater',
    'get_updater',
    'SGD',
    'ccSGD',
    'NAG',
    'Signum',
    'DCASGD',
    'SGLD',
    'Test',
    'Adam',
    'AdamW',
    'Adamax',
    'Nadam',
    'FTML',
    'LAMB',
    'AdaGrad',
    'RMSProp',
    'AdaDelta',
    'Ftrl',
    'LARS',
    'LBSGD',
]
