"""``mx.util``: NumPy-mode switches and environment access (as MXNet's
``python/mxnet/util.py``).

``use_np`` decorates a Gluon Block class or a function so it runs in
NumPy mode; ``np_shape``/``np_array`` are scopes; ``set_np``/``reset_np``
are also ``npx.set_np``/``npx.reset_np``.  ``getenv``/``setenv`` read and
write the process environment (``os.environ``), where dlbook reads its
``DLBOOK_*`` and ``MXNET_*`` settings.
"""

import os

from ._np_state import (  # noqa: F401
    is_np_array,
    is_np_shape,
    np_array,
    np_shape,
    reset_np,
    set_np,
    set_np_shape,
    use_np,
    use_np_array,
    use_np_shape,
)
from .base import py_str  # noqa: F401


def getenv(name):
    """The value of environment variable ``name``, or None."""
    return os.environ.get(name)


def setenv(name, value):
    """Set environment variable ``name`` to ``value`` (None unsets it)."""
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = str(value)
