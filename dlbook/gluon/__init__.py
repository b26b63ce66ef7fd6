"""Gluon: MXNet's imperative, object-oriented model API.

``gluon.nn`` layers, ``gluon.rnn`` recurrent layers, ``gluon.loss``,
``gluon.Trainer``, ``gluon.data`` pipelines, ``gluon.utils``, the
``gluon.model_zoo`` of predefined (and pretrained) vision models and
``gluon.contrib.nn`` (branch containers, pixel shuffling).
"""

from . import (
    contrib,
    data,
    loss,
    model_zoo,
    nn,
    rnn,
    utils,
)
from .block import Block, HybridBlock
from .parameter import (
    Constant,
    DeferredInitializationError,
    Parameter,
    ParameterDict,
)
from .symbol_block import SymbolBlock
from .trainer import Trainer
