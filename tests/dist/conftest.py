"""Helpers for the multi-process tests: run a script under ``mpiexec``."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _mpiexec():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return None
    from dlbook.launch import find_mpiexec
    return find_mpiexec()


MPIEXEC = _mpiexec()
needs_mpi = pytest.mark.skipif(
    MPIEXEC is None, reason='mpi4py or mpiexec missing: pip install '
                            '"dlbook[dist]" (mpi4py and the mpich wheel)')


def job_env(**extra):
    env = dict(os.environ, OMP_NUM_THREADS='1', OPENBLAS_NUM_THREADS='1',
               PYTHONPATH=ROOT + os.pathsep + os.environ.get('PYTHONPATH',
                                                            ''))
    for name in ('DMLC_NUM_SERVER', 'DLBOOK_LAUNCH_DIR'):
        env.pop(name, None)
    env.update(extra)
    return env


def run(argv, timeout=60, **extra):
    """Run ``argv`` (an mpiexec or launcher command); CompletedProcess."""
    return subprocess.run(argv, capture_output=True, text=True,
                          timeout=timeout, env=job_env(**extra), cwd=ROOT)


def mpirun(n, script, *args, timeout=60, **extra):
    return run([MPIEXEC, '-n', str(n), sys.executable,
                os.path.join(HERE, script), *args], timeout=timeout,
               **extra)


def results(proc):
    """The JSON objects printed after ``RESULT `` by the ranks, by rank."""
    decoder = json.JSONDecoder()
    found = {}
    text = proc.stdout
    start = text.find('RESULT ')
    while start >= 0:
        obj, end = decoder.raw_decode(text, start + len('RESULT '))
        found[obj['rank']] = obj
        start = text.find('RESULT ', end)
    assert found, f'no result; stdout:\n{proc.stdout}\nstderr:\n' \
                  f'{proc.stderr}'
    return [found[r] for r in sorted(found)]
