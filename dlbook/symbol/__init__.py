"""``mx.sym``: symbolic graphs built from the same operators as ``nd``.

Every registered operator is available as ``sym.<name>``; graphs are run
by binding them to arrays (``simple_bind``/``bind``, see
``dlbook.executor``).
"""

from ..base import DLBookError
from ..ops import REGISTRY
from .register import make_function
from .symbol import Group, Symbol, Variable, load_json, var


def _generate():
    made = {}
    for name, cls in REGISTRY.items():
        if name.isidentifier():
            made[name] = make_function(cls, name)
    return made


globals().update(_generate())
from . import (
    contrib,  # noqa: E402,F401
    image,  # noqa: E402,F401
    linalg,  # noqa: E402,F401
    np_names,  # noqa: E402,F401  (np-mode names load from JSON)
    random,  # noqa: E402,F401
    sparse,  # noqa: E402,F401
)
from .numpy import np, npx  # noqa: E402,F401


def load(fname):
    """Load a symbol saved with ``Symbol.save`` (or by MXNet)."""
    with open(fname, 'rb') as f:
        data = f.read()
    source = f"symbol file '{fname}'"
    try:
        text = data.decode('utf-8')
    except UnicodeDecodeError as err:
        raise DLBookError(
            f'cannot load {source}: not a symbol JSON file '
            f'(not UTF-8 text: {err})'
        ) from None
    return load_json(text, source)


def zeros(shape, dtype=None, name=None, attr=None, **kwargs):
    """A symbol of zeros of ``shape``.  Other keywords (``__layout__``)
    are accepted and ignored, as in MXNet."""
    return globals()['_zeros'](
        shape=tuple(shape), dtype=dtype or 'float32', name=name, attr=attr
    )


def ones(shape, dtype=None, name=None, attr=None, **kwargs):
    """A symbol of ones of ``shape``.  Other keywords are ignored."""
    return globals()['_ones'](
        shape=tuple(shape), dtype=dtype or 'float32', name=name, attr=attr
    )


from .arithmetic import *  # noqa: E402,F401,F403
from .arithmetic import attach_operators as _attach_operators  # noqa: E402


def _method(function):
    def method(self, *args, **kwargs):
        return function(self, *args, **kwargs)

    method.__name__ = function.__name__
    method.__doc__ = function.__doc__
    return method


def _attach_methods():
    from ..ndarray.methods import METHOD_NAMES

    namespace = globals()
    for name in METHOD_NAMES + (
        'reshape',
        'transpose',
        'broadcast_to',
        'astype',
    ):
        function = namespace.get(
            {'reshape': 'Reshape', 'astype': 'Cast'}.get(name, name)
        )
        if function is not None and name not in Symbol.__dict__:
            setattr(Symbol, name, _method(function))


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """Symbolic :func:`dlbook.ndarray.split_v2`: ``indices_or_sections``
    an int (stored as the ``sections`` attribute, as MXNet) or a tuple
    of indices; a list raises ValueError."""
    split = globals()['_split_v2']  # generated from the registry above
    if isinstance(indices_or_sections, int):
        return split(
            ary,
            sections=indices_or_sections,
            axis=axis,
            squeeze_axis=squeeze_axis,
        )
    if isinstance(indices_or_sections, tuple):
        return split(
            ary,
            indices=(0,) + indices_or_sections,
            axis=axis,
            squeeze_axis=squeeze_axis,
        )
    raise ValueError('indices_or_sections must either int or tuple of ints')


Symbol.split_v2 = lambda self, *args, **kwargs: split_v2(self, *args, **kwargs)

_attach_operators(Symbol)
_attach_methods()


def pow(base, exp):  # noqa: A001 (MXNet's name)
    """``base ** exp`` for Symbols and numbers (MXNet's ``sym.pow``, the
    same nodes as :func:`power`: ``_power``, ``_power_scalar`` or
    ``_rpower_scalar``)."""
    return globals()['power'](base, exp)


def choose_element_0index(lhs, rhs, name=None, attr=None):
    """``lhs[i, rhs[i]]`` for each row ``i``: a ``pick`` node named
    ``choose_element0index<N>``, as MXNet makes it."""
    from .register import make_node

    return make_node(
        'pick', [lhs, rhs], {}, name, attr, hint='choose_element_0index'
    )
