"""``mx.runtime``: which features this installation really has.

MXNet reports the options its C++ library was compiled with.  dlbook
answers the same questions, under MXNet's feature names, about itself:

* ``CUDA``: CuPy imports and at least one CUDA device is usable (the
  test-only fake GPUs do not count);
* ``CPU_SSE`` ... ``CPU_AVX2``, ``F16C``: the CPU instructions NumPy found
  and dispatches to on this machine;
* ``BLAS_OPEN``/``BLAS_MKL``/``BLAS_APPLE``, ``LAPACK``: the libraries
  NumPy was built against;
* ``PROFILER``: ``mx.profiler`` is available; ``INT64_TENSOR_SIZE``: NumPy
  and CuPy index with 64-bit sizes;
* ``CUDNN``: CUDA is enabled, convolutions may use cuDNN
  (``DLBOOK_CUDNN`` is not 0) and its library loads (``pip install
  nvidia-cudnn-cu12``; ``dlbook/backend/cudnn.py``);
* ``DIST_KVSTORE``: ``mpi4py`` is installed, so the ``dist_*`` kvstores
  can span processes; ``NCCL``: CUDA is enabled and CuPy loads NCCL,
  which ``dist_device_sync`` then uses between GPUs;
* everything dlbook does not use (``TENSORRT``, ``MKLDNN``,
  ``OPENMP``, ``OPENCV``, ...) is False.

Example::

    >>> mx.runtime.Features().is_enabled('CUDA')
    False
"""

import collections
import importlib.util

__all__ = ['Feature', 'Features', 'feature_list']

#: MXNet 1.9.1's feature names, in its order.
FEATURE_NAMES = (
    'CUDA',
    'CUDNN',
    'NCCL',
    'CUDA_RTC',
    'TENSORRT',
    'CPU_SSE',
    'CPU_SSE2',
    'CPU_SSE3',
    'CPU_SSE4_1',
    'CPU_SSE4_2',
    'CPU_SSE4A',
    'CPU_AVX',
    'CPU_AVX2',
    'OPENMP',
    'SSE',
    'F16C',
    'JEMALLOC',
    'BLAS_OPEN',
    'BLAS_ATLAS',
    'BLAS_MKL',
    'BLAS_APPLE',
    'LAPACK',
    'MKLDNN',
    'OPENCV',
    'CAFFE',
    'PROFILER',
    'DIST_KVSTORE',
    'CXX14',
    'INT64_TENSOR_SIZE',
    'SIGNAL_HANDLER',
    'DEBUG',
    'TVM_OP',
)

# feature name -> NumPy's name for the CPU instruction set
_CPU = {
    'CPU_SSE': 'SSE',
    'CPU_SSE2': 'SSE2',
    'CPU_SSE3': 'SSE3',
    'CPU_SSE4_1': 'SSE41',
    'CPU_SSE4_2': 'SSE42',
    'CPU_AVX': 'AVX',
    'CPU_AVX2': 'AVX2',
    'F16C': 'F16C',
}


class Feature:
    """One feature: ``name``, ``enabled``; prints as ``✔ NAME``/``✖ NAME``."""

    __slots__ = ('name', 'enabled')

    def __init__(self, name, enabled):
        self.name = name
        self.enabled = bool(enabled)

    def __repr__(self):
        return f'{"✔" if self.enabled else "✖"} {self.name}'


def _cuda():
    from .backend import _load_gpu_backend

    try:
        backend = _load_gpu_backend()
        return backend is not None and backend.device_count() > 0
    except Exception:  # never raise here
        return False


def _nccl(cuda):
    if not cuda:
        return False
    try:  # never raise here
        nccl = importlib.import_module('cupy.cuda.nccl')
        return bool(nccl.available) and nccl.get_version() >= 0
    except Exception:
        return False


def _cudnn(cuda):
    if not cuda:
        return False
    from .backend import cudnn, cudnn_library

    try:  # never raise here
        return cudnn._switched_on() and cudnn_library.load() is not None
    except Exception:
        return False


def _cpu_features():
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # NumPy 1.x
        try:
            from numpy.core._multiarray_umath import __cpu_features__
        except ImportError:
            return {}
    return __cpu_features__


def _blas():
    import numpy as np

    try:
        deps = np.__config__.CONFIG['Build Dependencies']
    except (AttributeError, KeyError, TypeError):
        return '', ''
    name = lambda key: str((deps.get(key) or {}).get('name', '')).lower()  # noqa
    return name('blas'), name('lapack')


def _detect():
    cpu = _cpu_features()
    blas, lapack = _blas()
    enabled = {
        name: bool(cpu.get(numpy_name)) for name, numpy_name in _CPU.items()
    }
    cuda = _cuda()
    enabled.update(
        {
            'CUDA': cuda,
            'NCCL': _nccl(cuda),
            'CUDNN': _cudnn(cuda),
            'DIST_KVSTORE': importlib.util.find_spec('mpi4py') is not None,
            'BLAS_OPEN': 'openblas' in blas,
            'BLAS_MKL': 'mkl' in blas,
            'BLAS_APPLE': 'accelerate' in blas,
            'LAPACK': bool(lapack),
            'PROFILER': importlib.util.find_spec('dlbook.profiler')
            is not None,
            'INT64_TENSOR_SIZE': True,
        }
    )
    return enabled


def feature_list():
    """Every feature as a :class:`Feature`, in MXNet's order."""
    enabled = _detect()
    return [Feature(name, enabled.get(name, False)) for name in FEATURE_NAMES]


class Features(collections.OrderedDict):
    """``{name: Feature}`` for this installation, with :meth:`is_enabled`."""

    def __init__(self):
        super().__init__((f.name, f) for f in feature_list())

    def __repr__(self):
        return str(list(self.values()))

    def is_enabled(self, feature_name):
        """Whether ``feature_name`` (any case) is enabled; RuntimeError
        for a name MXNet does not know."""
        feature_name = feature_name.upper()
        if feature_name not in self:
            raise RuntimeError(
                f"Feature '{feature_name}' is unknown, known "
                f"features are: {list(self.keys())}"
            )
        return self[feature_name].enabled
