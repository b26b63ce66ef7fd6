"""``nd.contrib``: the operators MXNet registers as ``_contrib_<name>``
(``nd.contrib.MultiBoxPrior``, ``nd.contrib.box_iou``, ``box_nms``...),
generated from the operator registry like the rest of ``nd``, and the
update operators ``adamw_update``, ``mp_adamw_update``,
``group_adagrad_update`` (``ndarray/updates.py``), ``multi_lamb_update``,
``multi_mp_lamb_update`` (``updates_lamb.py``), ``multi_adamw_update``
and ``multi_mp_adamw_update`` (``updates_multi.py``), and the control
flow functions ``foreach``, ``while_loop`` and ``cond``
(``control_flow.py``)."""


def _generate(make):
    from ..ops import REGISTRY

    return {
        name[len('_contrib_') :]: make(cls, name[len('_contrib_') :])
        for name, cls in REGISTRY.items()
        if name.startswith('_contrib_')
    }


def _install():
    from . import control_flow, updates, updates_lamb, updates_multi
    from .register import make_function

    globals().update(_generate(make_function))
    for module in (updates, updates_lamb, updates_multi):
        globals().update(module.CONTRIB)  # adamw_update, ...
    for name in control_flow.__all__:  # foreach, while_loop, cond
        globals()[name] = getattr(control_flow, name)


_install()
