"""Compiled loops on the CPU, through Numba when it is installed.

Some steps are a single pass over memory that NumPy can only write as
several: the gradient of max pooling (which element of each window is
its first maximum, then ``dy`` written there), or relu's gradient
``dy * (y > 0)``, whose float-times-boolean product NumPy runs through
a casting loop.  Worse, NumPy walks a pooling window's short strided
rows one inner loop at a time: LeNet's first pooling (24x24 maps) makes
tens of thousands of 12-element calls per operation.  The same step
written as plain Python loops over the elements and compiled by Numba
reads each array once.  Measured on a 2-core Xeon (2 threads, medians):
LeNet's first max pooling, 2x2 on ``(128, 20, 24, 24)``, forward 0.55
-> 0.39 ms, backward 1.71 -> 0.95 ms; its second, on ``(128, 50, 8,
8)``, 0.33 -> 0.19 and 0.77 -> 0.37 ms; relu's gradient on the first's
shape 0.72 -> 0.32 ms; a ResNet stem's 3x3 stride-2 pooling of ``(64,
64, 56, 56)`` 9.7 -> 3.8 ms forward, 66 -> 38 ms backward.  The same
holds for a convolution's col2im (its data gradient's slice-adds, rows as
short as the output's) and the shifted adds and copies of the whole-row
convolutions (``conv_wide_rows.py``): LeNet-5's first layer forward 6.1
-> 4.3 ms.  Training steps: LeNet (batch 128) 25.5 -> 21.7 ms eager,
24.4 -> 21.1 ms hybridized; LeNet-5 (batch 512) 43.4 -> 35.9 ms.

The loops (``host_loops.py``) are ordinary Python functions:
they are also the clearest statement of what the step computes, and the
tests run them uncompiled against NumPy's results.  They are compiled
the first time they run (``numba.njit``: ``nogil`` so dlbook's own
threads run them on ranges of images at once, ``cache`` so a later
process loads the machine code from disk instead of compiling again,
about 0.3 s against 0.6 s).  ``import dlbook`` does not import Numba.

They run when all of these hold, else the NumPy code does:

* Numba imports (``pip install 'dlbook[fast]'``; the notebook and test
  extras include it);
* the fast path is on (``dlbook.ops.fastpath``: ``DLBOOK_FAST_OPS=0``
  turns every fast path off);
* ``DLBOOK_HOST_JIT`` is not ``0`` (this tier alone off);
* the arrays are NumPy's (CuPy's have their own kernels), of at least
  :data:`MIN_ELEMENTS` elements.

Should Numba fail to compile a loop (a Numba release that rejects it),
dlbook warns once and runs the NumPy code from then on.
"""

import os
import warnings

from ..backend import on_host
from . import fastpath

__all__ = [
    'MIN_ELEMENTS',
    'applies',
    'ran',
    'enabled',
    'set_enabled',
    'compiled',
    'Loop',
    'NotCompiled',
]


#: Arrays smaller than this many elements stay with NumPy: a call into
#: a compiled loop costs about a microsecond more than a NumPy call
#: (Numba matches the argument types first), which a short loop does not
#: earn back.  Relu's gradient on 1,024 elements: 4.4 us compiled against
#: 3.2 us NumPy; on 16,384: 6.8 against 12.0 us.
MIN_ELEMENTS = 8192


def _from_environment():
    value = os.environ.get('DLBOOK_HOST_JIT', '1').strip().lower()
    return value not in ('0', 'false', 'no', 'off')


_STATE = {'enabled': _from_environment(), 'numba': None}


def _numba():
    """The ``numba`` module, or False when it does not import."""
    module = _STATE['numba']
    if module is None:
        try:
            import numba as module
        except Exception:  # not installed, or refuses this NumPy
            module = False
        _STATE['numba'] = module
    return module


def set_enabled(flag):
    """Allow (True) or forbid (False) the compiled loops; returns the old
    setting.  Tests compare the two paths this way."""
    old, _STATE['enabled'] = _STATE['enabled'], bool(flag)
    return old


def enabled(xp):
    """Whether the compiled loops run on ``xp``'s arrays now: NumPy's
    arrays, the fast path on, this tier allowed and Numba installed."""
    return (
        on_host(xp)
        and _STATE['enabled']
        and fastpath.enabled()
        and _numba() is not False
    )


def applies(xp, first, *others):
    """Whether a compiled loop takes these arrays now: ``first`` float32
    or float64 with at least :data:`MIN_ELEMENTS` elements, ``others`` of
    its dtype, and the loops on for ``xp`` (:func:`enabled`, checked last:
    it imports Numba)."""
    dtype = first.dtype
    return (
        dtype.kind == 'f'
        and dtype.itemsize >= 4
        and first.size >= MIN_ELEMENTS
        and all(a.dtype == dtype for a in others)
        and enabled(xp)
    )


def ran(run, *args):
    """Call ``run(*args)`` (a :class:`Loop`, or what calls one); False if
    Numba could not compile the loop (warned once), for the caller to run
    its NumPy code instead."""
    try:
        run(*args)
    except NotCompiled:
        return False
    return True


def compiled():
    """Whether Numba is installed (whatever the switches say)."""
    return _numba() is not False


class Loop:
    """A Python function over arrays, compiled by Numba at its first
    call; called as the function itself.

    ``Loop(f).python`` is ``f`` uncompiled (what the tests check against
    NumPy).  If Numba cannot compile ``f``, the call raises
    :class:`NotCompiled` after a warning, and every later call raises it
    at once, so the caller runs its NumPy code instead.
    """

    def __init__(self, python):
        self.python = python
        self.__name__ = python.__name__
        self.__doc__ = python.__doc__
        self._machine = None
        self.failed = None

    def __call__(self, *args):
        machine = self._machine
        if machine is None:
            machine = self._compile()
        try:
            return machine(*args)
        except _typing_errors() as err:  # compiled lazily, at this call
            self._fail(err)
            raise NotCompiled(self.__name__) from err

    def _compile(self):
        if self.failed is not None:
            raise NotCompiled(self.__name__)
        numba = _numba()
        try:
            self._machine = numba.njit(nogil=True, cache=True)(self.python)
        except RuntimeError:
            # Numba found no writable place for its cache (the package's
            # __pycache__ and the user's cache directory both read-only):
            # compiled in each process instead
            self._machine = numba.njit(nogil=True)(self.python)
        return self._machine

    def _fail(self, err):
        self.failed = (str(err).strip().splitlines() or [''])[0]
        self._machine = None
        warnings.warn(
            f'dlbook: Numba could not compile {self.__name__} '
            f'({self.failed}); the NumPy code runs instead',
            RuntimeWarning,
            stacklevel=3,
        )


class NotCompiled(Exception):
    """A :class:`Loop` that Numba could not compile."""


def _typing_errors():
    """Numba's compile-time error classes (its typing and lowering
    errors derive from ``numba.core.errors.NumbaError``)."""
    return (_numba().core.errors.NumbaError,)
