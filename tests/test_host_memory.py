"""glibc malloc tuning: freed step memory is reused, and can be turned off.

Each case runs in a fresh interpreter, since the setting is per process.
"""

import json
import os
import subprocess
import sys

import pytest

from dlbook.backend.host_memory import _is_glibc

pytestmark = pytest.mark.skipif(
    not _is_glibc(), reason='malloc tuning applies to glibc only'
)

# A recorded step over a 64 MB array, repeated: ``x * 2``, its sum and
# their gradients make temporaries the size of ``x``, larger than glibc's
# largest dynamic mmap threshold (32 MB), so that with glibc's defaults
# each is mapped and unmapped again every step.  Reports whether tuning
# is on and the minor page faults of the later steps (the first ones
# warm up).
PROBE = r'''
import json, resource
import dlbook as mx
from dlbook import nd, autograd
from dlbook.backend.host_memory import tune_malloc
x = nd.random.uniform(shape=(4096, 4096))
x.attach_grad()
def step():
    with autograd.record():
        y = (x * 2).sum()
    y.backward()
    x.grad.wait_to_read()
for _ in range(3):
    step()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(5):
    step()
after = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
print(json.dumps({'tuned': tune_malloc(), 'faults': (after - before) / 5}))
'''


def run_probe(**env):
    full_env = {
        key: value
        for key, value in os.environ.items()
        if key != 'DLBOOK_HOST_MALLOC'
    }
    full_env.update(env)
    out = subprocess.run(
        [sys.executable, '-c', PROBE],
        env=full_env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_steps_reuse_freed_memory():
    result = run_probe()
    assert result['tuned'] is True
    # The step moves over 100 MB of temporaries; reusing them means next
    # to no fresh pages (200 faults = 800 KiB) once the first steps are
    # done.
    assert result['faults'] < 200, result


def test_opt_out_keeps_system_defaults():
    system = run_probe(DLBOOK_HOST_MALLOC='system')
    assert system['tuned'] is False
    # What the tuning is for: glibc's defaults page-fault the step's
    # temporaries in again every time.
    tuned = run_probe()
    assert system['faults'] > 10 * max(tuned['faults'], 1), (system, tuned)
