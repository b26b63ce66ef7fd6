"""Array backends: which array module (``xp``) holds a device's data.

A :class:`~dlbook.context.Context` names a device; its backend says how to
make, move and synchronise arrays there.  ``cpu(i)`` uses NumPy, ``gpu(i)``
uses CuPy, imported only when a GPU is first used.

Tests without a GPU: ``DLBOOK_FAKE_GPUS=N`` makes ``gpu(0..N-1)`` devices
served by a strict fake CuPy (:mod:`dlbook.backend.fake_cupy`: NumPy
underneath, but arrays refuse implicit host conversion and only CuPy's
names exist), so the GPU code paths run in CI.  ``DLBOOK_FAKE_CUPY=0``
serves them with plain NumPy arrays instead; ``DLBOOK_FAKE_CUPY=1`` alone
gives one fake GPU.
"""

import os

import numpy

from .numpy_backend import NumpyBackend

__all__ = [
    'get_backend',
    'gpu_count',
    'gpu_unavailable_reason',
    'fake_mode',
    'reset_gpu_backend',
    'on_host',
    'overflow_expected',
]

_NUMPY = NumpyBackend()
_GPU = None
_GPU_REASON = None


def on_host(xp):
    """Whether ``xp`` is NumPy, whose arrays live in host memory: the CPU
    policies (BLAS threads, cache-sized blocks, BLAS-friendly layouts)
    apply to it and not to a GPU's arrays."""
    return xp is numpy


def overflow_expected():
    """A context in which NumPy does not warn of floating-point overflow,
    for operators whose formula overflows on purpose (``1 / (1 + exp(-x))``
    is exactly 0 where ``exp(-x)`` is infinite).  CuPy never warns;
    NumPy's setting is a no-op for its arrays."""
    return numpy.errstate(over='ignore')


def fake_mode():
    """``(n_fake_gpus, strict)`` from the environment; ``(0, False)`` when
    real GPUs (if any) are used."""
    try:
        n = int(os.environ.get('DLBOOK_FAKE_GPUS', '0') or 0)
    except ValueError:
        n = 0
    flag = os.environ.get('DLBOOK_FAKE_CUPY', '').strip().lower()
    strict = flag not in ('0', 'false', 'no', 'off')
    if n == 0 and flag and strict:
        n = 1
    return n, strict and n > 0


def _fake_gpu_count():
    return fake_mode()[0]


def _load_gpu_backend():
    """Import CuPy once; remember why it failed instead of raising."""
    global _GPU, _GPU_REASON
    if _GPU is not None or _GPU_REASON is not None:
        return _GPU
    n, strict = fake_mode()
    if n:
        if strict:
            from . import fake_cupy
            from .cupy_backend import CupyBackend

            _GPU = CupyBackend(fake_cupy.make_module(n), name='cupy (fake)')
        else:
            _GPU = NumpyBackend(name='numpy (fake gpu)')
        return _GPU
    from . import gpu_probe

    try:
        import cupy
    except Exception as err:  # ImportError, or a broken build
        _GPU_REASON = gpu_probe.import_error_reason(err)
        return None
    from .cupy_backend import CupyBackend

    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception as err:  # no driver, old driver, ...
        runtime, driver = gpu_probe.versions(cupy)
        _GPU_REASON = gpu_probe.cuda_error_reason(err, runtime, driver)
        return None
    _GPU = CupyBackend(cupy)
    if _GPU.device_count() == 0:
        _GPU_REASON = 'CuPy is installed but CUDA found no GPU'
        _GPU = None
    return _GPU


def reset_gpu_backend():
    """Forget the GPU backend (and every Context's cached one), so the next
    use reads the environment again.  For tests that switch fake modes."""
    global _GPU, _GPU_REASON
    _GPU = _GPU_REASON = None
    for forget in _ON_GPU_RESET:
        forget()


#: Functions called by :func:`reset_gpu_backend`; ``dlbook.context``
#: registers one that drops the backends its GPU contexts cached (the
#: context layer sits above this one, so it registers itself).
_ON_GPU_RESET = []


def gpu_count():
    """Number of usable GPUs; 0 (never an exception) without CuPy/CUDA."""
    fake = _fake_gpu_count()
    if fake:
        return fake
    backend = _load_gpu_backend()
    return 0 if backend is None else backend.device_count()


def gpu_unavailable_reason():
    """Why no GPU can be used, or None when one can."""
    _load_gpu_backend()
    return None if gpu_count() else _GPU_REASON


def get_backend(device_type):
    """The backend serving ``device_type`` ('cpu' or 'gpu')."""
    if device_type == 'gpu':
        backend = _load_gpu_backend()
        if backend is None:
            from ..base import DLBookError

            raise DLBookError(
                f'no GPU is available: {_GPU_REASON}. Use '
                f'mx.cpu() instead, or mx.context.num_gpus() '
                f'to check first.'
            )
        return backend
    return _NUMPY
