"""Devices: ``cpu(i)`` and ``gpu(i)``, and the default-device stack.

A :class:`Context` names where an array lives.  It is immutable and
hashable, prints as ``cpu(0)``, and ``with mx.gpu(0):`` makes it the
default for arrays created inside the block (the initial default is
``cpu(0)``).  ``ctx.backend`` gives the array module that serves it:
NumPy for ``cpu(i)``, CuPy (imported lazily) for ``gpu(i)``.

Each ``cpu(i)`` is its own device: arrays on ``cpu(0)`` and ``cpu(1)`` can't
meet in one operator and moving between them is a real copy, so
multi-device code can be taught and tested on any laptop.
"""

import threading

from . import backend as _backend
from .base import DLBookError

__all__ = [
    'Context',
    'cpu',
    'gpu',
    'cpu_pinned',
    'current_context',
    'num_gpus',
    'gpu_memory_info',
    'HOST_TYPES',
]

#: Device types of host memory.  ``cpu(i)``, ``cpu_pinned(i)`` and
#: ``cpu_shared(i)`` differ only in how memory is allocated, so, as in
#: MXNet, their arrays meet in one operator and share ``cpu(i)``'s
#: parameters.
HOST_TYPES = ('cpu', 'cpu_pinned', 'cpu_shared')


class Context:
    """A device: ``Context('cpu', 0)`` or ``Context('gpu', 1)``.

    Parameters
    ----------
    device_type : str or Context
        ``'cpu'``, ``'gpu'`` or ``'cpu_pinned'`` (treated as CPU memory).
    device_id : int
        Which device of that type.
    """

    devtype2str = {1: 'cpu', 2: 'gpu', 3: 'cpu_pinned', 5: 'cpu_shared'}
    devstr2type = {v: k for k, v in devtype2str.items()}
    _default = threading.local()

    __slots__ = (
        'device_type',
        'device_id',
        '_backend',
        '_xp',
        '_scope',
        '_switch',
    )

    _instances = {}

    def __new__(cls, device_type, device_id=0):
        # One object per device: ``x._ctx is y._ctx`` is then a cheap
        # same-device test on the hot path, and each device caches its
        # backend once.
        if isinstance(device_type, Context):
            return device_type
        key = (device_type, int(device_id))
        ctx = cls._instances.get(key)
        if ctx is None:
            if device_type not in cls.devstr2type:
                raise DLBookError(
                    f'unknown device type {device_type!r}; '
                    f"use 'cpu' or 'gpu'"
                )
            ctx = object.__new__(cls)
            ctx.device_type, ctx.device_id = key
            ctx._backend = ctx._xp = ctx._scope = ctx._switch = None
            cls._instances[key] = ctx
        return ctx

    def __reduce__(self):
        return (Context, (self.device_type, self.device_id))

    @property
    def device_typeid(self):
        """MXNet's numeric device type (cpu 1, gpu 2, cpu_pinned 3)."""
        return self.devstr2type[self.device_type]

    @property
    def backend(self):
        """The backend holding this device's arrays (loaded on first use)."""
        if self._backend is None:
            kind = 'gpu' if self.device_type == 'gpu' else 'cpu'
            backend = _backend.get_backend(kind)
            if kind == 'gpu' and self.device_id >= _backend.gpu_count():
                raise DLBookError(
                    f'{self} does not exist: {_backend.gpu_count()} GPU(s) '
                    f'available'
                )
            self._backend = backend
            self._scope = backend.scope(self.device_id)
            # the front end enters ``_switch`` around each operator only
            # when the backend really switches devices (CUDA)
            self._switch = self._scope if backend.switches_device else None
        return self._backend

    @property
    def xp(self):
        """The array module (``numpy`` or ``cupy``) of this device."""
        if self._xp is None:
            self._xp = self.backend.xp
        return self._xp

    @property
    def scope(self):
        """Context manager making this device current while an operator
        runs (a CUDA device switch on GPU, nothing on CPU)."""
        if self._scope is None:
            self.backend
        return self._scope

    def empty_cache(self):
        """Release cached GPU memory (CuPy's pool); nothing on CPU."""
        if self.device_type == 'gpu':
            self.xp.get_default_memory_pool().free_all_blocks()

    def __eq__(self, other):
        return (
            isinstance(other, Context)
            and self.device_type == other.device_type
            and self.device_id == other.device_id
        )

    # Every device is one object (see __new__), so equal contexts are the
    # same object and the identity hash agrees with ``==``; a C-level hash
    # keeps the dict look-ups keyed by context (a parameter's array per
    # device, read on every call of a block) cheap.
    __hash__ = object.__hash__

    def __repr__(self):
        return f'{self.device_type}({self.device_id})'

    __str__ = __repr__

    def __enter__(self):
        stack = _stack()
        stack.append(self)
        return self

    def __exit__(self, *exc):
        _stack().pop()
        return False


def _stack():
    stack = getattr(Context._default, 'stack', None)
    if stack is None:
        stack = Context._default.stack = [Context('cpu', 0)]
    return stack


def current_context():
    """The default context: the innermost ``with ctx:``, else ``cpu(0)``."""
    return _stack()[-1]


def cpu(device_id=0):
    """The CPU device ``device_id`` (NumPy memory)."""
    return Context('cpu', device_id)


def cpu_pinned(device_id=0):
    """Pinned CPU memory; on dlbook the same NumPy memory as ``cpu``."""
    return Context('cpu_pinned', device_id)


def gpu(device_id=0):
    """The GPU device ``device_id`` (CuPy memory).

    Creating the Context never fails; using it without a GPU raises an
    error that says why no GPU is available.
    """
    return Context('gpu', device_id)


def num_gpus():
    """Number of usable GPUs; 0 without CuPy or CUDA (never raises)."""
    try:
        return _backend.gpu_count()
    except Exception:  # never raise here
        return 0


def gpu_memory_info(device_id=0):
    """``(free, total)`` bytes of GPU memory, as in MXNet."""
    xp = gpu(device_id).xp
    with gpu(device_id).backend.scope(device_id):
        return xp.cuda.runtime.memGetInfo()


def _forget_gpu_backends():
    """Drop the backend every GPU context cached (after the fake/real GPU
    mode changed; see ``backend.reset_gpu_backend``)."""
    for ctx in Context._instances.values():
        if ctx.device_type == 'gpu':
            ctx._backend = ctx._xp = ctx._scope = ctx._switch = None


_backend._ON_GPU_RESET.append(_forget_gpu_backends)
