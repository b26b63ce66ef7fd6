"""Neural network layers (``gluon.nn``)."""

# MXNet re-exports the block classes here: d2l writes ``class
# MLP(nn.Block)``.
from ..block import Block, HybridBlock
from ..symbol_block import SymbolBlock
from .activations import *  # noqa: F401,F403
from .basic_layers import *  # noqa: F401,F403
from .conv_layers import *  # noqa: F401,F403
from .sequential import *  # noqa: F401,F403
