"""NumPy mode on or off: the two switches behind ``npx.set_np()``.

MXNet 1.x has two independent flags (apache/mxnet@1.9.1:python/mxnet/util.py):

* **np shape**: 0-d and zero-size shapes are legal, so an unknown dimension
  is written ``-1`` instead of ``0``;
* **np array**: Gluon creates parameters, batches and outputs as
  ``mx.np.ndarray`` instead of the legacy ``mx.nd.NDArray``.

``npx.set_np()`` turns both on, ``npx.reset_np()`` both off.  The flags are
per thread, as in MXNet.  This module imports nothing heavy, so Gluon can
ask ``is_np_array()`` anywhere.
"""

import functools
import inspect
import threading

__all__ = [
    'set_np',
    'reset_np',
    'is_np_array',
    'is_np_shape',
    'set_np_shape',
    'np_shape',
    'np_array',
    'use_np',
    'use_np_shape',
    'use_np_array',
]


class _Flags(threading.local):
    """The two flags of the calling thread; a new thread starts with both
    off (class attributes: reading an unset per-thread attribute through
    ``getattr(..., default)`` raises and catches an AttributeError, ten
    times slower, on every hybridized call)."""

    shape = False
    array = False


_local = _Flags()


def is_np_shape():
    """True while np-shape semantics are on (0-d shapes are legal)."""
    return _local.shape


def is_np_array():
    """True while Gluon creates and returns ``mx.np.ndarray``."""
    return _local.array


def set_np_shape(active):
    """Turn np-shape semantics on or off; returns the previous state."""
    previous = is_np_shape()
    _local.shape = bool(active)
    return previous


def _set_np_array(active):
    previous = is_np_array()
    _local.array = bool(active)
    return previous


def set_np(shape=True, array=True, dtype=False):
    """Turn on NumPy mode, as at the top of every d2l notebook.

    Parameters
    ----------
    shape : bool
        Allow 0-d and zero-size shapes (``x.sum()`` has shape ``()``).
    array : bool
        Gluon creates parameters, data batches and outputs as
        ``mx.np.ndarray``.  Needs ``shape=True``.
    dtype : bool
        Accepted only as ``False``.  MXNet 1.9.1's ``set_np`` has no
        ``dtype`` argument (``set_np(dtype=True)`` is a TypeError there);
        MXNet 2.0 added it to switch creation defaults to float64.
        dlbook follows 1.9.1: arrays default to float32.
    """
    if array and not shape:
        raise ValueError(
            'NumPy Shape semantics is required in using NumPy Array semantics'
        )
    if dtype:
        raise TypeError(
            "set_np() got an unexpected keyword argument 'dtype' (MXNet "
            "1.9.1 has no float64-default switch; it came with MXNet 2.0, "
            "and dlbook keeps 1.9.1's float32 defaults)"
        )
    set_np_shape(shape)
    _set_np_array(array)


def reset_np():
    """Turn NumPy mode off (legacy ``nd`` semantics everywhere)."""
    set_np(shape=False, array=False)


class _Scope:
    """``with np_shape(True):`` / ``with np_array(True):`` set a flag for a
    block and restore it afterwards; also usable as a decorator."""

    def __init__(self, setter, active):
        self._setter, self._active, self._previous = setter, active, None

    def __enter__(self):
        self._previous = self._setter(self._active)
        return self

    def __exit__(self, *exc):
        self._setter(self._previous)

    def __call__(self, func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            with type(self)(self._setter, self._active):
                return func(*args, **kwargs)

        return wrapped


def np_shape(active=True):
    """Scope (or decorator) with np-shape semantics on or off."""
    return _Scope(set_np_shape, active)


def np_array(active=True):
    """Scope (or decorator) with np-array semantics on or off."""
    return _Scope(_set_np_array, active)


def _both(active):
    previous = (is_np_shape(), is_np_array())
    if isinstance(active, tuple):
        set_np_shape(active[0])
        _set_np_array(active[1])
    else:
        set_np_shape(active)
        _set_np_array(active)
    return previous


def _wrap_callable(func, setter):
    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        with _Scope(setter, True):
            return func(*args, **kwargs)

    return wrapped


def _decorate(target, setter):
    if inspect.isclass(target):
        for name, member in list(vars(target).items()):
            if inspect.isfunction(member):
                setattr(target, name, _wrap_callable(member, setter))
            elif isinstance(member, property):
                setattr(
                    target,
                    name,
                    property(
                        *(
                            f and _wrap_callable(f, setter)
                            for f in (member.fget, member.fset, member.fdel)
                        ),
                        member.__doc__,
                    ),
                )
        return target
    if callable(target):
        return _wrap_callable(target, setter)
    raise TypeError(
        f'use_np can only decorate a class or a function, '
        f'got {type(target).__name__}'
    )


def use_np_shape(target):
    """Decorator: run a function (or every method of a class) with
    np-shape semantics on."""
    return _decorate(target, set_np_shape)


def use_np_array(target):
    """Decorator: run a function (or every method of a class) with
    np-array semantics on."""
    return _decorate(target, _set_np_array)


def use_np(target):
    """Decorator ``mx.util.use_np``: run a function, or every method of a
    class (a Gluon Block), in NumPy mode (np shape and np array on).

    >>> @use_np
    ... class Net(gluon.HybridBlock):
    ...     def forward(self, x):
    ...         return npx.relu(x)
    """
    return _decorate(target, _both)
