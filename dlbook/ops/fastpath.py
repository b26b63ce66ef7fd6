"""The switch between the fast and the reference convolution/pooling code.

Convolution, Deconvolution and Pooling each have two implementations that
compute the same numbers:

* the **reference** path (``conv_reference.py``, ``pool.py``): one
  layout and one loop, written to be read first;
* the **fast** path (``conv_fast.py``, ``pool_fast.py``): layouts chosen
  so that NumPy and BLAS do less copying (per-image matrix products whose
  result is already ``(N, F, H, W)``, max pooling one spatial axis at a
  time).

The same switch turns on the **fused steps of compiled graphs**
(``dlbook/symbol/fusion.py``): a hybridized block or a bound Executor
runs a dense layer with its activation, a loss's ``log_softmax`` with
its ``pick``, a relu with the max pooling after it, and a BatchNorm with
the relu after it, as one step each; with the switch off every operator runs
as its own step.  Both compute the same numbers.

The fast path is on by default.  Set the environment variable
``DLBOOK_FAST_OPS=0`` before starting Python to run the reference code,
or switch at run time (the tests compare the two this way)::

    from dlbook.ops import fastpath
    with fastpath.use(False):      # the reference path inside the block
        y = nd.Convolution(...)

The flag is read when an operator (or a compiled graph) runs its forward
pass; the backward pass always uses the path its forward pass used.
"""

import contextlib
import os

__all__ = ['enabled', 'set_enabled', 'use']


def _from_environment():
    value = os.environ.get('DLBOOK_FAST_OPS', '1').strip().lower()
    return value not in ('0', 'false', 'no', 'off')


_ENABLED = _from_environment()


def enabled():
    """Whether Convolution, Deconvolution and Pooling use the fast path
    (and compiled graphs their fused steps)."""
    return _ENABLED


def set_enabled(flag):
    """Turn the fast path on (True) or off (False); returns the old value."""
    global _ENABLED
    old, _ENABLED = _ENABLED, bool(flag)
    return old


@contextlib.contextmanager
def use(flag):
    """Run the block with the fast path on (True) or off (False)."""
    old = set_enabled(flag)
    try:
        yield
    finally:
        set_enabled(old)
