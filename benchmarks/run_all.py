"""Run every benchmark script in turn (``make bench``); each one rewrites
its own section of ``benchmarks/RESULTS.md``."""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = [
    'bench_core.py',
    'bench_training.py',
    'bench_hybridize.py',
    'bench_conv.py',
    'bench_dataloader.py',
    'bench_stale_inputs.py',
    'bench_np_mode.py',
    'bench_sparse.py',
    'bench_mxnet.py',  # skipped without an MXNet interpreter
    'bench_gpu_calls.py',
]


def main():
    env = dict(os.environ)
    env['PYTHONPATH'] = (
        os.path.dirname(HERE) + os.pathsep + env.get('PYTHONPATH', '')
    )
    for script in SCRIPTS:
        path = os.path.join(HERE, script)
        if os.path.exists(path):
            print(f'== {script}', flush=True)
            subprocess.run([sys.executable, path], check=True, env=env)


if __name__ == '__main__':
    main()
