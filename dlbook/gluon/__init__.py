"""Gluon: MXNet's imperative, object-oriented model API.

``gluon.nn`` layers, ``gluon.rnn`` recurrent layers, ``gluon.loss``,
``gluon.Trainer``, ``gluon.data`` pipelines, ``gluon.utils``, the
``gluon.model_zoo`` of predefined (and pretrained) vision models and
``gluon.contrib.nn`` (branch containers, pixel shuffling).
"""

from .parameter import (Parameter, Constant, ParameterDict,  # noqa: F401
                        DeferredInitializationError)
from .block import Block, HybridBlock  # noqa: F401
from .symbol_block import SymbolBlock  # noqa: F401
from . import nn, rnn, loss, data, utils  # noqa: F401
from .trainer import Trainer  # noqa: F401
from . import model_zoo  # noqa: F401
from . import contrib  # noqa: F401
