"""The SLURM job scripts of ``examples/cluster/`` on a one-node SLURM
cluster started on this machine by ``tests/dist/slurm_localhost.sh``.

Runs only with ``DLBOOK_SLURM_TEST=1`` (it installs and starts system
daemons, so it needs root or password-less sudo)::

    DLBOOK_SLURM_TEST=1 python -m pytest tests/dist/test_slurm.py

CI does not run it: on the CI machine, one run in several had MPICH's
shared-memory start-up fail under ``srun`` ("Out of memory" in
``MPIDI_POSIX_comm_bootstrap``) while the same job under ``mpiexec``
passes, so it stays an opt-in check.

Measured since on a 2-core machine (MPICH 5.0.2 wheel, Slurm's ``pmi2``
plugin, jobs that only start MPI and all-reduce one number): the
"Out of memory" failure came back in 1 of 110 jobs of 4 or 8 tasks, and
once, in 12 runs of this file, rank 0 failed ``MPI_Init`` with "Message
truncated" (``MPIDI_UCX_comm_set_vcis``) while rank 1 spun until the
job's time limit.  ``srun --mpi=pmix`` needs the PMIx library, which
Debian's ``slurm-wlm`` does not pull in; ``MPIR_CVAR_PMI_VERSION=2``
fails ``MPI_Init`` every time with the wheel.  ``MPIR_CVAR_NOLOCAL=1``
(no shared memory) and ``MPIR_CVAR_INIT_SKIP_PMI_BARRIER=0`` (a PMI
barrier in ``MPI_Init``) each passed 60 of 60 jobs, but at this failure
rate that does not yet show that either one cures it.
"""
import os
import re
import subprocess
import sys

import pytest

from .conftest import ROOT, job_env, needs_mpi

pytestmark = [
    needs_mpi, pytest.mark.timeout(600),
    pytest.mark.skipif(os.environ.get('DLBOOK_SLURM_TEST') != '1',
                       reason='set DLBOOK_SLURM_TEST=1 to start a one-node '
                              'SLURM on this machine and test the sbatch '
                              'scripts'),
]

SETUP = os.path.join(ROOT, 'tests', 'dist', 'slurm_localhost.sh')
VENV = sys.prefix


@pytest.fixture(scope='module')
def slurm():
    if not os.path.exists(os.path.join(VENV, 'bin', 'activate')):
        pytest.skip(f'{VENV} is not a virtual environment with '
                    f'bin/activate, which the sbatch scripts source')
    sudo = [] if os.geteuid() == 0 else ['sudo', '-n']
    proc = subprocess.run(sudo + ['bash', SETUP], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def sbatch(script, tmp_path, *options, args=()):
    """Submit ``script`` (with its arguments ``args``) from the repository
    root, wait for it, and return ``(exit code, the job's output)``."""
    out = tmp_path / 'job.out'
    env = job_env()
    exports = f'ALL,DLBOOK_VENV={VENV},PYTHONPATH={env["PYTHONPATH"]}'
    proc = subprocess.run(
        ['sbatch', '--wait', f'--output={out}', f'--export={exports}',
         *options, script, *args], capture_output=True, text=True, timeout=500,
        cwd=ROOT, env=env)
    text = out.read_text() if out.exists() else ''
    return proc.returncode, proc.stdout + proc.stderr + text


def test_cpu_one_node_sbatch_trains_with_four_workers(slurm, tmp_path):
    rc, text = sbatch('examples/cluster/cpu_one_node.sbatch', tmp_path,
                      args=('--epochs', '3'))
    assert rc == 0, text
    assert 'dlbook.launch: srun --ntasks=4' in text
    m = re.search(r'RESULT accuracy=([\d.]+) workers=4', text)
    assert m, text
    assert float(m.group(1)) > 0.85
    for rank in range(4):
        assert f'[worker {rank}/4] epoch 2 ' in text


def test_failing_worker_under_srun_stops_the_job(slurm, tmp_path):
    script = tmp_path / 'fail.sbatch'
    script.write_text(
        '#!/bin/bash\n'
        f'source "$DLBOOK_VENV/bin/activate"\n'
        'python -m dlbook.launch -n 2 --launcher slurm '
        'python tests/dist/worker_errors.py raise\n')
    rc, text = sbatch(str(script), tmp_path, '--ntasks=2', '--time=2')
    assert rc != 0
    assert 'worker 1 (process 1 of 2' in text
    assert 'failing on purpose' in text
