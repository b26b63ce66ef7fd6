"""The GPU chapters run unchanged on GPUs, here the strict fake ones.

Chapter 7 (GPUs and contexts) and chapter 13 (several devices) are the
chapters a student runs on a GPU machine.  ``benchmarks/gpu/run_notebooks.py``
runs their code cells in order as a kernel would; on a real GPU machine
``benchmarks/gpu/run_all.sh`` calls it.  Here it runs with two fake GPUs
(``DLBOOK_FAKE_GPUS=2``: CuPy's names only, and arrays that refuse the
implicit host conversions CuPy refuses), so every cell takes the GPU code
paths, in a fresh process as a student's kernel would start.
"""

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).parents[2]
CHAPTERS = (
    'notebooks/ch07_gpus_and_contexts.ipynb',
    'notebooks/ch13_multi_device.ipynb',
)
DATA = os.environ.get('DLBOOK_DATA')


@pytest.mark.skipif(
    not (DATA and os.path.isdir(os.path.join(DATA, 'fashion-mnist'))),
    reason='chapter 13 trains on Fashion-MNIST (set DLBOOK_DATA)',
)
def test_gpu_chapters_run_on_two_fake_gpus():
    env = dict(
        os.environ,
        DLBOOK_FAKE_GPUS='2',
        DLBOOK_FAST='1',
        MPLBACKEND='Agg',
        OPENBLAS_NUM_THREADS='1',
    )
    env.pop('DLBOOK_FAKE_CUPY', None)
    done = subprocess.run(
        [sys.executable, 'benchmarks/gpu/run_notebooks.py', *CHAPTERS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = done.stdout + done.stderr
    assert done.returncode == 0, report[-4000:]
    for chapter in CHAPTERS:
        assert f'=== {chapter}: 0 failed cells' in report, report[-4000:]
    # the cells really ran on the GPUs: arrays printed on both of them,
    # and chapter 13 trained on the two
    assert '@gpu(0)>' in report and '@gpu(1)>' in report
    assert "on ['gpu(0)', 'gpu(1)']" in report
