"""``sym.contrib``: the ``_contrib_<name>`` operators as symbol functions
(``sym.contrib.MultiBoxPrior``, ``sym.contrib.box_nms``...), and the
control flow operators ``foreach``, ``while_loop`` and ``cond``
(``control_flow.py``)."""


def _install():
    from ..ndarray.contrib import _generate
    from . import control_flow
    from .register import make_function

    globals().update(_generate(make_function))
    for name in control_flow.__all__:  # foreach, while_loop, cond
        globals()[name] = getattr(control_flow, name)


_install()
