"""``sym.contrib``: the ``_contrib_<name>`` operators as symbol functions
(``sym.contrib.MultiBoxPrior``, ``sym.contrib.box_nms``...)."""


def _install():
    from ..ndarray.contrib import _generate
    from .register import make_function

    globals().update(_generate(make_function))


_install()
