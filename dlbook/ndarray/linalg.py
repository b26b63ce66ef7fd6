"""``nd.linalg``: ``gemm2``, ``potrf``, ``trsm``, ``syevd`` ... (the
``_linalg_*`` and ``linalg_*`` operators, without their prefix)."""

from ..ops import REGISTRY
from .register import make_function


def _generate(make=make_function):
    """``{short name: make(cls, short name)}`` for every linalg operator;
    ``sym.linalg`` passes its own ``make``."""
    made = {}
    for name, cls in REGISTRY.items():
        for prefix in ('_linalg_', 'linalg_'):
            if name.startswith(prefix):
                short = name[len(prefix) :]
                made.setdefault(short, make(cls, short))
    return made


globals().update(_generate())
