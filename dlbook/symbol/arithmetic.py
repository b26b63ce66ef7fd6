"""``sym.add``, ``sym.maximum``, ... accepting symbols or numbers (the
same table as ``nd``'s, recording graph nodes instead of computing)."""

from ..ndarray.arithmetic import __all__, build  # noqa: F401
from .register import make_node
from .symbol import Symbol

globals().update(build(
    Symbol, lambda op, inputs, attrs: make_node(op, inputs, dict(attrs),
                                                None)))
