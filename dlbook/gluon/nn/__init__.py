"""Neural network layers (``gluon.nn``)."""

from .sequential import *  # noqa: F401,F403
from .activations import *  # noqa: F401,F403
from .basic_layers import *  # noqa: F401,F403
from .conv_layers import *  # noqa: F401,F403
# MXNet re-exports the block classes here: d2l writes ``class
# MLP(nn.Block)``.
from ..block import Block, HybridBlock  # noqa: F401
from ..symbol_block import SymbolBlock  # noqa: F401
