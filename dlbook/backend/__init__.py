"""Array backends: which array module (``xp``) holds a device's data.

A :class:`~dlbook.context.Context` names a device; its backend says how to
make, move and synchronise arrays there.  ``cpu(i)`` uses NumPy, ``gpu(i)``
uses CuPy, imported only when a GPU is first used.  Setting the environment
variable ``DLBOOK_FAKE_GPUS=N`` (tests only) makes ``gpu(0..N-1)`` NumPy
devices labelled ``gpu``, so the multi-device plumbing is testable without
CUDA.
"""

import os

from .numpy_backend import NumpyBackend

__all__ = ['get_backend', 'gpu_count', 'gpu_unavailable_reason']

_NUMPY = NumpyBackend()
_GPU = None
_GPU_REASON = None


def _fake_gpu_count():
    try:
        return int(os.environ.get('DLBOOK_FAKE_GPUS', '0') or 0)
    except ValueError:
        return 0


def _load_gpu_backend():
    """Import CuPy once; remember why it failed instead of raising."""
    global _GPU, _GPU_REASON
    if _GPU is not None or _GPU_REASON is not None:
        return _GPU
    if _fake_gpu_count():
        _GPU = NumpyBackend(name='numpy (fake gpu)')
        return _GPU
    try:
        from .cupy_backend import CupyBackend
        _GPU = CupyBackend()
        if _GPU.device_count() == 0:
            _GPU_REASON = 'CuPy is installed but found no CUDA device'
            _GPU = None
    except ImportError as err:
        _GPU_REASON = (f'CuPy is not installed ({err}); install the GPU extra: '
                       f"pip install 'dlbook[gpu]'")
    except Exception as err:                   # driver/runtime mismatch
        _GPU_REASON = f'CuPy could not use CUDA: {type(err).__name__}: {err}'
        _GPU = None
    return _GPU


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
            raise DLBookError(f'no GPU is available: {_GPU_REASON}. Use '
                              f'mx.cpu() instead, or mx.context.num_gpus() '
                              f'to check first.')
        return backend
    return _NUMPY
