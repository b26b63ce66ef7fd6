"""The cluster example script runs under ``mpiexec -n 2`` and learns."""
import re
import sys

import pytest

from .conftest import MPIEXEC, needs_mpi, run

pytestmark = [needs_mpi, pytest.mark.timeout(120)]


def test_example_script_trains_with_two_workers():
    proc = run([MPIEXEC, '-n', '2', sys.executable,
                'examples/cluster/train_dist.py', '--epochs', '4',
                '--num-examples', '2048'], timeout=90)
    assert proc.returncode == 0, proc.stderr
    m = re.search(r'RESULT accuracy=([\d.]+) workers=2', proc.stdout)
    assert m, proc.stdout
    assert float(m.group(1)) > 0.85
    assert '[worker 1/2]' in proc.stdout
