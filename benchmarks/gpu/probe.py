"""Versions and devices of a GPU machine, as JSON (step 1 of the runbook)."""

import importlib
import json
import os
import sys

sys.path.insert(0, os.getcwd())

import dlbook as mx  # noqa: E402


def main():
    info = {
        'python': sys.version.split()[0],
        'dlbook': mx.__version__,
        'num_gpus': mx.context.num_gpus(),
        'no_gpu_reason': mx.backend.gpu_unavailable_reason(),
    }
    for name in ('numpy', 'cupy', 'torch'):
        try:
            info[name] = importlib.import_module(name).__version__
        except Exception as err:
            info[name] = f'missing: {err}'
    try:
        import cupy

        rt = cupy.cuda.runtime
        info['cuda_runtime'] = rt.runtimeGetVersion()
        info['cuda_driver'] = rt.driverGetVersion()
        info['devices'] = [
            rt.getDeviceProperties(i)['name'].decode()
            for i in range(rt.getDeviceCount())
        ]
    except Exception as err:
        info['cuda'] = f'{type(err).__name__}: {err}'
    for lib in (
        'cupy.cuda.cudnn',
        'cupyx.cudnn',
        'cupy.cuda.nccl',
        'cudnn',
        'pytest',
    ):
        try:
            importlib.import_module(lib)
            info[lib] = 'ok'
        except Exception as err:
            info[lib] = f'{type(err).__name__}: {err}'[:120]
    print(json.dumps(info, indent=1))


if __name__ == '__main__':
    main()
