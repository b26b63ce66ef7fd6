"""``nd.linalg``: ``gemm2``, ``gemm`` ... (the ``linalg_*`` operators)."""

from ..ops import REGISTRY
from .register import make_function


def _generate():
    made = {}
    for name, cls in REGISTRY.items():
        for prefix in ('_linalg_', 'linalg_'):
            if name.startswith(prefix):
                short = name[len(prefix) :]
                made.setdefault(short, make_function(cls, short))
    return made


globals().update(_generate())
