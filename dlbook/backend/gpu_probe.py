"""Why ``gpu(i)`` cannot be used: one sentence a learner can act on.

``num_gpus()`` returns 0 instead of raising, and ``mx.gpu()`` arrays raise
an error carrying the reason found here.  The usual causes, in the order
they are checked:

1. CuPy is not installed (or the CPU-only environment is active);
2. CuPy is installed twice (``cupy-cuda12x`` *and* ``cupy-cuda13x``), or
   cannot be imported for another reason;
3. there is no NVIDIA driver (a laptop, a CPU-only cloud machine);
4. the driver is older than the CUDA major version CuPy was built for
   (``cupy-cuda13x`` on a driver that supports only CUDA 12);
5. the driver works but sees no device (``CUDA_VISIBLE_DEVICES=``).
"""

import importlib.metadata

__all__ = [
    'cupy_packages',
    'import_error_reason',
    'cuda_error_reason',
    'EXTRA_HINT',
]

EXTRA_HINT = (
    "pip install 'dlbook[gpu-cuda12]' or 'dlbook[gpu-cuda13]' "
    "(the CUDA version nvidia-smi prints picks one)"
)

# cudaError_t values (CUDA runtime API)
_NO_DEVICE = 100
_INSUFFICIENT_DRIVER = 35


def cupy_packages():
    """Installed CuPy distributions, e.g. ``['cupy-cuda13x']``."""
    names = set()
    for dist in importlib.metadata.distributions():
        name = (dist.metadata.get('Name') or '').lower()
        if (
            name == 'cupy'
            or name.startswith('cupy-cuda')
            or name.startswith('cupy-rocm')
        ):
            names.add(name)
    return sorted(names)


def import_error_reason(err, packages=None):
    """The reason for ``import cupy`` raising ``err``."""
    packages = cupy_packages() if packages is None else packages
    if len(packages) > 1:
        return (
            f'several CuPy packages are installed '
            f'({", ".join(packages)}); keep the one for your CUDA '
            f'version: pip uninstall {" ".join(packages)}, then '
            f'{EXTRA_HINT}'
        )
    if isinstance(err, ModuleNotFoundError) and not packages:
        return (
            f'CuPy is not installed ({err}); install the GPU extra: '
            f'{EXTRA_HINT}'
        )
    return f'CuPy could not be imported: {type(err).__name__}: {err}'


def _major(version):
    """12 from CUDA's integer version 12040."""
    return version // 1000


def cuda_error_reason(
    err, runtime_version=None, driver_version=None, packages=None
):
    """The reason for CuPy's ``getDeviceCount()`` raising ``err``.

    ``runtime_version`` is the CUDA version CuPy was built for and
    ``driver_version`` the highest one the driver supports (0 when there
    is no driver), both as CUDA's integers (13020 is 13.2).
    """
    status = getattr(err, 'status', None)
    packages = cupy_packages() if packages is None else packages
    pkg = packages[0] if packages else 'CuPy'
    if driver_version == 0:
        return (
            'no NVIDIA driver was found (libcuda is missing): this '
            'machine has no usable NVIDIA GPU'
        )
    if status == _INSUFFICIENT_DRIVER or (
        runtime_version
        and driver_version
        and _major(driver_version) < _major(runtime_version)
    ):
        have = (
            f'{_major(driver_version)}.{driver_version % 1000 // 10}'
            if driver_version
            else 'an older CUDA'
        )
        need = _major(runtime_version) if runtime_version else '?'
        return (
            f'the NVIDIA driver supports CUDA {have}, but {pkg} needs '
            f'CUDA {need}: install the CuPy package for your driver '
            f'(pip uninstall {pkg}; {EXTRA_HINT}) or update the driver'
        )
    if status == _NO_DEVICE:
        return (
            'CuPy is installed but CUDA found no GPU '
            '(is CUDA_VISIBLE_DEVICES empty?)'
        )
    return f'CuPy could not use CUDA: {type(err).__name__}: {err}'


def versions(cupy):
    """``(runtime_version, driver_version)`` as CUDA integers, None if
    unknown."""
    runtime = cupy.cuda.runtime
    out = []
    for query in ('runtimeGetVersion', 'driverGetVersion'):
        try:
            out.append(getattr(runtime, query)())
        except Exception:
            out.append(None)
    return tuple(out)
