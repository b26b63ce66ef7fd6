"""``mx.util``: MXNet's switches for NumPy semantics, and environment access.

MXNet 1.6+ can run in a "NumPy mode" (``mx.np``/``mx.npx``, zero-size
and scalar shapes) switched on by ``set_np``, ``np_shape``/``np_array``
scopes and the ``use_np`` decorators.  dlbook implements MXNet 1.x's
classic ``nd`` semantics only, so here:

* ``is_np_shape()`` and ``is_np_array()`` are always False;
* ``use_np``, ``use_np_shape`` and ``use_np_array`` return what they
  decorate unchanged (code written for both modes keeps running in ``nd``
  mode);
* asking to switch NumPy semantics *on* (``set_np_shape(True)``,
  ``with np_shape(True):``, ``set_np()``) raises a :class:`DLBookError`
  instead of pretending; switching them off is accepted.

``getenv``/``setenv`` read and write the process environment
(``os.environ``), where dlbook reads its ``DLBOOK_*`` and ``MXNET_*``
settings.
"""

import os

from .base import DLBookError, py_str  # noqa: F401

__all__ = ['is_np_shape', 'is_np_array', 'set_np_shape', 'np_shape',
           'np_array', 'use_np', 'use_np_shape', 'use_np_array', 'set_np',
           'reset_np', 'getenv', 'setenv', 'py_str']


def _refuse(what):
    raise DLBookError(
        f'{what}: dlbook provides MXNet 1.x\'s classic nd semantics only; '
        f'NumPy-compatible semantics (mx.np, mx.npx, zero-size and scalar '
        f'shapes) are not available. Use mx.nd.')


def is_np_shape():
    """Whether NumPy shape semantics are on: always False in dlbook."""
    return False


def is_np_array():
    """Whether ``mx.np`` arrays are the default: always False in dlbook."""
    return False


def set_np_shape(active):
    """Turn NumPy shape semantics off (``active=False``, accepted) or on
    (refused); returns the previous state, False."""
    if active:
        _refuse('set_np_shape(True)')
    return False


def set_np(shape=True, array=True, dtype=False):
    """MXNet's switch to NumPy mode: refused unless everything is False."""
    if shape or array or dtype:
        _refuse('set_np()')


def reset_np():
    """Back to classic semantics: dlbook is always there, a no-op."""


class _Scope:
    """``with np_shape(False):`` / ``with np_array(False):`` scopes."""

    def __init__(self, what, active):
        if active:
            _refuse(f'{what}(True)')
        self._what = what

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def np_shape(active=True):
    """Scope for NumPy shape semantics; only ``np_shape(False)`` is
    accepted, and changes nothing."""
    return _Scope('np_shape', active)


def np_array(active=True):
    """Scope for ``mx.np`` array semantics; only ``np_array(False)`` is
    accepted, and changes nothing."""
    return _Scope('np_array', active)


def use_np_shape(func):
    """Decorator: returns ``func`` (a function or class) unchanged."""
    return func


def use_np_array(func):
    """Decorator: returns ``func`` (a function or class) unchanged."""
    return func


def use_np(func):
    """Decorator: returns ``func`` (a function or class) unchanged, so a
    Block written for both modes runs with ``nd`` semantics."""
    return func


def getenv(name):
    """The value of environment variable ``name``, or None."""
    return os.environ.get(name)


def setenv(name, value):
    """Set environment variable ``name`` to ``value`` (None unsets it)."""
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = str(value)
