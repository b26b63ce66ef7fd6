"""Gluon: MXNet's imperative, object-oriented model API.

``gluon.nn`` layers, ``gluon.rnn`` recurrent layers, ``gluon.loss``,
``gluon.Trainer``, ``gluon.data`` pipelines, ``gluon.utils``, the
``gluon.model_zoo`` of predefined (and pretrained) vision models and
``gluon.contrib.nn`` (branch containers, pixel shuffling).
"""

#: what a Gluon block accepts as data: Symbols and NDArrays (MXNet's name)
from ..ndarray.ndarray import NDArray as _NDArray  # noqa: E402
from ..symbol.symbol import Symbol as _Symbol  # noqa: E402
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

tensor_types = (_Symbol, _NDArray)
