"""``mx.np.linalg`` names that MXNet 1.9.1 runs with NumPy on the host.

``cond``, ``lstsq`` and ``matrix_rank`` copy their arguments to the host,
call ``numpy.linalg`` and give array results back as ``mx.np.ndarray``
(NumPy's dtypes; scalars stay NumPy scalars; no gradient), as MXNet's
``mxnet/numpy/fallback_linalg.py`` does.  (MXNet also falls back for
``matrix_power``, ``multi_dot`` and ``qr``; dlbook computes those with
operators, so they run on the device and ``matrix_power`` and
``multi_dot`` have gradients.)

>>> np.linalg.matrix_rank(np.array([[1., 2.], [2., 4.]]))
np.int64(1)
"""

import numpy as _onp

from .fallback import _MXNET_LINALG_FALLBACKS, make_fallback

__all__ = list(_MXNET_LINALG_FALLBACKS)

for _name in __all__:
    globals()[_name] = make_fallback(
        _name, getattr(_onp.linalg, _name), module='np.linalg'
    )
del _name
