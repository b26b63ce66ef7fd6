"""Is a change slower?  The same small workloads on two revisions of dlbook.

A refactoring should not cost speed.  This script checks out a base
revision (default: the previous commit) into a temporary git worktree and
times, in fresh processes that alternate between the base and the current
tree (so a change in the machine's load hits both alike):

* eager ``a + b`` on 16x16 float32 arrays, µs per operation;
* the same recorded under ``autograd.record()`` with ``backward()``;
* a 10,000-deep recorded chain ``c = c + b`` and one ``backward()``,
  µs per operation;
* one training step (forward, backward, ``trainer.step``) of an MLP
  784-256-10 and of LeNet on batches of 64, eager and hybridized, ms.

Each process runs every workload a few times and reports the median CPU
time; the table gives the median over processes and the ratio
current / base.  BLAS runs on one thread in both, as in a notebook on a
busy machine, so the ratios measure dlbook's own code.

Run: ``python benchmarks/bench_revisions.py [BASE] [--rounds N]``
(writes the section ``revisions`` of benchmarks/RESULTS.md).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from benchmarks.common import load_average, table, write_section  # noqa: E402

#: Run in a fresh interpreter with the tree under test first on sys.path;
#: prints one JSON object {workload: seconds}.
CHILD = r'''
import json, statistics, time
import numpy as np
import dlbook as mx
from dlbook import autograd, gluon, nd

def median_cpu(fn, repeat):
    fn()
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times)

out = {}
a = nd.array(np.random.RandomState(0).rand(16, 16).astype('float32'))
b = nd.array(np.random.RandomState(1).rand(16, 16).astype('float32'))
N = 5000

def eager():
    for _ in range(N):
        a + b
out['eager a+b (µs/op)'] = median_cpu(eager, 5) / N * 1e6

a.attach_grad()
def recorded():
    for _ in range(N // 5):
        with autograd.record():
            c = a + b
        c.backward()
out['recorded a+b + backward (µs/op)'] = median_cpu(recorded, 5) / (N // 5) * 1e6

def chain():
    with autograd.record():
        c = a
        for _ in range(10000):
            c = c + b
    c.backward()
out['10k chain + backward (µs/op)'] = median_cpu(chain, 3) / 10000 * 1e6

def mlp():
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(256, activation='relu'), gluon.nn.Dense(10))
    return net, (64, 784)

def lenet():
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Conv2D(6, 5, activation='relu'),
            gluon.nn.MaxPool2D(2, 2),
            gluon.nn.Conv2D(16, 5, activation='relu'),
            gluon.nn.MaxPool2D(2, 2),
            gluon.nn.Dense(120, activation='relu'),
            gluon.nn.Dense(84, activation='relu'),
            gluon.nn.Dense(10))
    return net, (64, 1, 28, 28)

loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
for name, build in (('MLP', mlp), ('LeNet', lenet)):
    for hybrid in (False, True):
        mx.random.seed(0)
        net, shape = build()
        net.initialize(mx.init.Xavier())
        if hybrid:
            net.hybridize()
        trainer = gluon.Trainer(net.collect_params(), 'sgd',
                                {'learning_rate': 0.01})
        x = nd.random.uniform(shape=shape)
        y = nd.array(np.arange(shape[0]) % 10)
        def step():
            with autograd.record():
                loss = loss_fn(net(x), y)
            loss.backward()
            trainer.step(shape[0])
            loss.wait_to_read()
        mode = 'hybridized' if hybrid else 'eager'
        out[f'{name} step, {mode} (ms)'] = median_cpu(step, 15) * 1e3
print(json.dumps({'file': mx.__file__, 'times': out}))
'''


def measure(tree):
    env = dict(
        os.environ,
        PYTHONPATH=tree,
        OPENBLAS_NUM_THREADS='1',
        OMP_NUM_THREADS='1',
        MKL_NUM_THREADS='1',
        DLBOOK_NUM_THREADS='1',
    )
    done = subprocess.run(
        [sys.executable, '-c', CHILD],
        cwd=tree,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if not result['file'].startswith(os.path.realpath(tree) + os.sep):
        raise RuntimeError(f"measured {result['file']}, not the tree {tree}")
    return result['times']


def git(*args, cwd=ROOT):
    return subprocess.run(
        ['git', *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument(
        'base',
        nargs='?',
        default='HEAD~1',
        help='revision to compare against (default HEAD~1)',
    )
    parser.add_argument(
        '--rounds', type=int, default=5, help='processes per tree (default 5)'
    )
    args = parser.parse_args()
    base = git('rev-parse', '--short', args.base)
    head = git('rev-parse', '--short', 'HEAD')
    loads = [load_average().split()[0]]
    with tempfile.TemporaryDirectory() as tmp:
        tree = os.path.join(tmp, 'base')
        git('worktree', 'add', '--detach', tree, base)
        try:
            runs = {'base': [], 'current': []}
            for _ in range(args.rounds):
                runs['base'].append(measure(tree))
                runs['current'].append(measure(ROOT))
        finally:
            git('worktree', 'remove', '--force', tree)
    loads.append(load_average().split()[0])
    rows = []
    for key in runs['current'][0]:
        old = statistics.median(r[key] for r in runs['base'])
        new = statistics.median(r[key] for r in runs['current'])
        rows.append((key, f'{old:.2f}', f'{new:.2f}', f'{new / old:.2f}x'))
    body = (
        f'Base {base}, current {head} (working tree); {args.rounds} '
        f'alternating processes each, medians of CPU time, BLAS on one '
        f'thread; 1-minute load average {loads[0]} before, {loads[1]} '
        f'after.  A ratio above 1.05x is a slowdown.\n\n'
        + table(
            ('workload', f'base {base}', f'current {head}', 'current / base'),
            rows,
        )
    )
    write_section(
        'revisions',
        'Two revisions side by side (`benchmarks/bench_revisions.py`)',
        body,
    )


if __name__ == '__main__':
    main()
