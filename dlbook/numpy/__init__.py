"""``mx.np``: MXNet's NumPy-compatible array API (NumPy mode).

``from dlbook import np, npx; npx.set_np()`` gives the interface that
d2l 0.17 and MXNet's NumPy-style tutorials use: ``np.ndarray`` with 0-d
results, bool comparisons and NumPy indexing, and NumPy's function names
(``np.dot``, ``np.concatenate``, ``np.random.normal(loc, scale, size)``).
Every function runs the same registered operators as ``mx.nd``, so
``autograd`` records both on one tape.
"""

import math as _math

import numpy as _onp

from ..ndarray.ndarray import NDArray as _NDArray
from . import fallback, fallback_linalg, linalg, random
from .creation import *  # noqa: F401,F403
from .fallback import *  # noqa: F401,F403
from .functions import *  # noqa: F401,F403
from .last import *  # noqa: F401,F403
from .more import *  # noqa: F401,F403
from .multiarray import ndarray

# dtypes and constants, as NumPy's
float16, float32, float64 = _onp.float16, _onp.float32, _onp.float64
int8, int32, int64, uint8 = _onp.int8, _onp.int32, _onp.int64, _onp.uint8
bool_ = _onp.bool_
dtype = _onp.dtype
pi, e, inf, nan, newaxis = _math.pi, _math.e, _onp.inf, _onp.nan, None
PZERO, NZERO = 0.0, -0.0


def _as_np_ndarray(self):
    """This legacy array as an ``mx.np.ndarray`` (shares the data)."""
    from ._core import wrap

    out = wrap(self._data, self._ctx)
    out._node, out._out_index = self._node, self._out_index
    return out


def _as_nd_ndarray(self):
    """This array (it already is a legacy NDArray)."""
    return self


# Legacy arrays learn the two conversions (MXNet 1.x has both methods on
# ``mx.nd.NDArray``); ``mx.np.ndarray`` overrides them.
_NDArray.as_np_ndarray = _as_np_ndarray
_NDArray.as_nd_ndarray = _as_nd_ndarray
