"""``sym.linalg``: the ``_linalg_<name>`` operators as symbol functions
(``sym.linalg.gemm2``, ``sym.linalg.potrf``, ``sym.linalg.syevd``...),
the same names as ``nd.linalg``."""


def _install():
    from ..ndarray.linalg import _generate
    from .register import make_function

    globals().update(_generate(make_function))


_install()
