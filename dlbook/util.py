"""``mx.util``: NumPy-mode switches (as MXNet's ``python/mxnet/util.py``).

``use_np`` decorates a Gluon Block class or a function so it runs in
NumPy mode; ``np_shape``/``np_array`` are scopes; ``set_np``/``reset_np``
are also ``npx.set_np``/``npx.reset_np``.
"""

from ._np_state import (use_np, use_np_shape, use_np_array,  # noqa: F401
                        np_shape, np_array, is_np_shape, is_np_array,
                        set_np_shape, set_np, reset_np)
