"""A training step on shared cores: quiet, then with another program busy.

A classroom server or a laptop running a browser lends dlbook fewer cores
than it has.  BLAS threads that wait on a busy core can make a step many
times slower (``dlbook/backend/blas_threads.py`` explains why).  This
script times the training step of an MLP 784-256-256-10 (batch 256, SGD)
in a fresh process for each BLAS thread policy:

* automatic (``DLBOOK_NUM_THREADS`` unset): cores less those other
  processes keep busy, looked at again every 2 s at most;
* ``DLBOOK_NUM_THREADS=<all cores>``: every core, whatever else runs;
* ``DLBOOK_NUM_THREADS=1``.

Each process times its steps quietly, then starts one busy-looping
Python process per ``--burners`` (default 1), waits 3 s, and times them
again.  The table gives the median wall time per step (the time a student
waits), the ratio busy / quiet, and the threads the policy used.

Run: ``python benchmarks/bench_shared_cores.py`` (writes the section
``shared_cores`` of benchmarks/RESULTS.md).
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from benchmarks.common import table, write_section  # noqa: E402

#: One policy, in a fresh process: prints {quiet, busy, threads...}.
CHILD = r'''
import json, statistics, subprocess, sys, time
import numpy as np
import dlbook as mx
from dlbook import autograd, gluon, nd
from dlbook.backend import blas_threads

BURNERS, STEPS = int(sys.argv[1]), int(sys.argv[2])
from benchmarks.bench_training import dlbook_mlp

mx.random.seed(0)
net = dlbook_mlp()
net.initialize(mx.init.Xavier())
trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
x = nd.random.uniform(shape=(256, 784))
y = nd.array(np.arange(256) % 10)

def median_step():
    times = []
    for _ in range(STEPS):
        start = time.perf_counter()
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(256)
        loss.wait_to_read()
        times.append(time.perf_counter() - start)
    return statistics.median(times)

median_step()                                       # warm up
quiet = median_step()
quiet_threads = blas_threads.info()['current']
burners = [subprocess.Popen([sys.executable, '-c', 'while True: pass'])
           for _ in range(BURNERS)]
try:
    time.sleep(3)
    median_step()                     # the policy looks again meanwhile
    busy = median_step()
    busy_threads = blas_threads.info()['current']
finally:
    for b in burners:
        b.kill()
print(json.dumps({'quiet': quiet, 'busy': busy, 'quiet_threads':
                  quiet_threads, 'busy_threads': busy_threads}))
'''


def run(policy, burners, steps):
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop('DLBOOK_NUM_THREADS', None)
    env.pop('OPENBLAS_NUM_THREADS', None)
    if policy is not None:
        env['DLBOOK_NUM_THREADS'] = str(policy)
    done = subprocess.run(
        [sys.executable, '-c', CHILD, str(burners), str(steps)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument(
        '--burners',
        type=int,
        default=1,
        help='busy-looping processes (default 1)',
    )
    parser.add_argument(
        '--steps',
        type=int,
        default=40,
        help='steps timed per phase (default 40)',
    )
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0))
    load_before = os.getloadavg()[0]
    rows = []
    for label, policy in (
        ('automatic', None),
        (f'DLBOOK_NUM_THREADS={cores}', cores),
        ('DLBOOK_NUM_THREADS=1', 1),
    ):
        r = run(policy, args.burners, args.steps)
        rows.append(
            (
                label,
                f"{r['quiet'] * 1e3:.2f} ms",
                f"{r['busy'] * 1e3:.2f} ms",
                f"{r['busy'] / r['quiet']:.2f}x",
                f"{r['quiet_threads']} / {r['busy_threads']}",
            )
        )
    body = (
        f'MLP 784-256-256-10, batch 256, SGD: median wall time of '
        f'{args.steps} steps, quiet and then with {args.burners} '
        f'busy-looping process(es) beside it, each policy in a fresh '
        f'process; {cores} cores; 1-minute load average before '
        f'{load_before:.2f}.  The target: busy within 1.5x of quiet.'
        f'\n\n'
        + table(
            (
                'BLAS threads',
                'quiet',
                'busy',
                'busy / quiet',
                'threads used (quiet / busy)',
            ),
            rows,
        )
    )
    write_section(
        'shared_cores',
        'Shared cores (`benchmarks/bench_shared_cores.py`)',
        body,
    )


if __name__ == '__main__':
    main()
