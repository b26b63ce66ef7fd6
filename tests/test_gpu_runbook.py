"""The GPU runbook (``benchmarks/gpu/``) runs, on the fake GPU.

A GPU machine is lent for minutes at a time; a script that broke since
its last run would waste them.  Here the runbook's quick steps run with
tiny sizes (``SMOKE=1``) on the strict fake CuPy: the probe, the
CPU-against-GPU parity of every operator, the benchmarks against PyTorch
(dlbook rows only without PyTorch) and the profile, plus the convolution
breakdown.  Only that they run and write their results is checked: the
fake's timings mean nothing.
"""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    shutil.which('bash') is None, reason='the runbook is a bash script'
)


def _env(**extra):
    env = dict(os.environ, DLBOOK_FAKE_GPUS='1', SMOKE='1', **extra)
    env.pop('DLBOOK_FAKE_CUPY', None)
    env['PYTHON'] = sys.executable
    return env


def test_runbook_quick_steps_run_on_the_fake_gpu(tmp_path):
    done = subprocess.run(
        ['bash', 'benchmarks/gpu/run_all.sh', str(tmp_path)],
        cwd=ROOT,
        env=_env(STEPS='1,3,4,7'),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for name in ('probe.json', 'parity.json', 'bench.json', 'profile.md'):
        assert (tmp_path / name).stat().st_size > 0, name
    parity = json.loads((tmp_path / 'parity.json').read_text())
    assert parity and all(row['ok'] for row in parity)
    rows = json.loads((tmp_path / 'bench.json').read_text())
    assert {'overhead', 'small', 'resnet18'} <= {r['section'] for r in rows}


def test_convolution_breakdown_runs_on_the_fake_gpu(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            'benchmarks/gpu/conv_breakdown.py',
            '--smoke',
            '--out',
            str(tmp_path),
        ],
        cwd=ROOT,
        env=_env(PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert (tmp_path / 'conv_breakdown.md').stat().st_size > 0
