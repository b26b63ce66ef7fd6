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
    info['dlbook_cudnn'] = _cudnn_check()
    print(json.dumps(info, indent=1))


def _cudnn_check():
    """One small convolution forward and backward on gpu(0), so that
    dlbook's cuDNN path loads and checks itself; its status line."""
    from dlbook import autograd, nd
    from dlbook.backend import cudnn

    if mx.context.num_gpus() == 0:
        return 'no GPU'
    try:
        x = nd.ones((2, 3, 8, 8), ctx=mx.gpu(0))
        w = nd.ones((4, 3, 3, 3), ctx=mx.gpu(0))
        w.attach_grad()
        with autograd.record():
            y = nd.Convolution(x, w, kernel=(3, 3), num_filter=4, no_bias=True)
        y.backward()
        nd.waitall()
    except Exception as err:
        return f'the convolution failed: {type(err).__name__}: {err}'[:300]
    return cudnn.status()


if __name__ == '__main__':
    main()
