"""Device calls per training step, counted on the strict fake CuPy.

On a GPU a small training step is bound by the host: each CuPy call (a
kernel launch, an allocation, a copy) costs some microseconds of Python
and driver time, and ResNet-18 at 32x32 makes hundreds of them
(``benchmarks/gpu/profile_ops.py`` shows wall time = host time).  The
number of calls is what this machine can measure without a GPU: the fake
CuPy (``dlbook/backend/fake_cupy.py``) counts every call that would
compute on the device, a fused kernel as one.

The GPU workloads of ``benchmarks/gpu/workloads.py`` run a few steps on
``gpu(0)`` of the fake; each step's calls are counted, in total and by
the operator that made them.  With ``--base REV`` the same counts are
taken in a checkout of revision ``REV`` (a temporary ``git worktree``),
for a before/after table.  The counts are exact, so one step each is
enough.

Run: ``python benchmarks/bench_gpu_calls.py [--base REV]`` (writes
benchmarks/RESULTS.md).
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

#: Kinds of calls that launch no kernel on a real GPU (the memory pool
#: hands out a block): shown apart from the launches.  ``zeros`` and
#: ``ones`` fill their block, a launch.
ALLOCATIONS = frozenset({'empty', 'empty_like'})


def workloads():
    """``(name, make)`` pairs; ``make(ctx)`` returns one training step."""
    from benchmarks.gpu.workloads import (
        lenet,
        lstm_step,
        resnet18_step,
        train_step,
    )

    def resnet18(size, batch, hybridize=False, optimizer='sgd'):
        return lambda ctx: resnet18_step(
            ctx, size, batch, hybridize, optimizer
        )

    return [
        ('ResNet-18 32×32, batch 128', resnet18(32, 128)),
        ('ResNet-18 32×32, batch 128, hybridized', resnet18(32, 128, True)),
        ('ResNet-18 32×32, batch 128, Adam', resnet18(32, 128, False, 'adam')),
        ('ResNet-18 224×224, batch 4', resnet18(224, 4)),
        (
            'LeNet (sigmoid, average pooling), batch 256',
            lambda ctx: train_step(ctx, lenet(), (1, 28, 28), 10, 256),
        ),
        (
            'LSTM 256 × 35 steps, batch 32',
            lambda ctx: lstm_step(ctx, 35, 256, 28, 32, 'LSTM'),
        ),
        (
            'GRU 256 × 35 steps, batch 32',
            lambda ctx: lstm_step(ctx, 35, 256, 28, 32, 'GRU'),
        ),
    ]


def _by_operator(step, fake_cupy):
    """Run ``step`` once; ``(calls by kind, calls by operator)``.  Calls
    outside any operator (the tape, the optimizer) are under their own
    names."""
    from dlbook.ops import REGISTRY
    from dlbook.symbol import fusion

    by_op = collections.Counter()
    depth = [0]  # an operator may run another inside (a cut convolution)
    wrapped = []
    # the registered operators and the fused steps of compiled graphs
    for cls in set(REGISTRY.values()) | set(fusion.FUSED):
        for method in ('forward', 'backward'):
            original = cls.__dict__.get(method)
            if original is None:
                continue

            def counted(self, *args, _f=original, _m=method, **kwargs):
                before = sum(fake_cupy.CALLS.values())
                depth[0] += 1
                try:
                    return _f(self, *args, **kwargs)
                finally:
                    depth[0] -= 1
                    if not depth[0]:  # the outermost operator's calls
                        made = sum(fake_cupy.CALLS.values()) - before
                        by_op[f'{self.name} {_m}'] += made
                        by_op['(in operators)'] += made

            setattr(cls, method, counted)
            wrapped.append((cls, method, original))
    try:
        with fake_cupy.count_calls() as calls:
            step()
    finally:
        for cls, method, original in wrapped:
            setattr(cls, method, original)
    return calls, by_op


def count_here(with_cudnn=False):
    """Counts for every workload in this process (the fake GPU must be
    configured before dlbook is imported).  ``with_cudnn``: convolutions
    take dlbook's cuDNN path, each cuDNN call counted as the one launch it
    is on a GPU (``conv_definition.definition_calls`` computes it here)."""
    import dlbook as mx
    from dlbook.backend import cudnn, fake_cupy
    from dlbook.backend.conv_definition import definition_calls

    if with_cudnn:
        cudnn.usable = lambda xp, dtype: True
        cudnn.forward, cudnn.backward_data, cudnn.backward_filter = (
            definition_calls(
                lambda kind: fake_cupy.one_kernel(f'cudnnConvolution{kind}')
            )
        )
    ctx = mx.gpu(0)
    results = {}
    for name, make in workloads():
        mx.random.seed(0)
        step = make(ctx)
        step()  # first step: parameters, caches
        calls, by_op = _by_operator(step, fake_cupy)
        total = sum(calls.values())
        allocations = sum(v for k, v in calls.items() if k in ALLOCATIONS)
        inside = by_op.pop('(in operators)', 0)
        results[name] = {
            'total': total,
            'launches': total - allocations,
            'allocations': allocations,
            'outside_operators': total - inside,
            'operators': dict(by_op.most_common(6)),
        }
    return results


def count_in(root, with_cudnn=False):
    """:func:`count_here` in a fresh interpreter on the checkout ``root``."""
    env = dict(os.environ, DLBOOK_FAKE_GPUS='1')
    env.pop('DLBOOK_FAKE_CUPY', None)
    env.pop('PYTHONPATH', None)
    # the workloads come from this checkout (a folder holding only a link
    # to its benchmarks), dlbook from ``root``
    scripts = tempfile.mkdtemp()
    os.symlink(HERE, os.path.join(scripts, 'benchmarks'))
    code = (
        'import sys, json; sys.path[:0] = sys.argv[1:3]; '
        'import dlbook; assert dlbook.__file__.startswith(sys.argv[2]); '
        'from benchmarks.bench_gpu_calls import count_here; '
        'print(json.dumps(count_here(sys.argv[3] == "cudnn")))'
    )
    done = subprocess.run(
        [
            sys.executable,
            '-c',
            code,
            scripts,
            root,
            'cudnn' if with_cudnn else 'im2col',
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--base', help='also count revision BASE')
    args = parser.parse_args()
    from benchmarks.common import table, write_section

    now = count_in(ROOT)
    on_cudnn = count_in(ROOT, with_cudnn=True)
    base = None
    if args.base:
        tree = tempfile.mkdtemp(prefix='dlbook-base-')
        subprocess.run(
            ['git', 'worktree', 'add', '--detach', tree, args.base],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        try:
            base = count_in(tree)
        finally:
            subprocess.run(
                ['git', 'worktree', 'remove', '--force', tree],
                cwd=ROOT,
                check=True,
            )
    rows = []
    for name, r in now.items():
        row = [name]
        if base is not None:
            row.append(str(base[name]['total']))
        row += [
            str(r['total']),
            str(on_cudnn[name]['total']),
            str(r['launches']),
            str(r['allocations']),
            str(r['outside_operators']),
            ', '.join(f'{k} {v}' for k, v in r['operators'].items()),
        ]
        rows.append(row)
    header = ['workload']
    if base is not None:
        header.append(f'calls at {args.base}')
    header += [
        'calls now',
        'with cuDNN',
        'launches',
        'allocations',
        'outside operators',
        'most calls (operator: calls)',
    ]
    body = (
        'Device calls of one training step on `gpu(0)` of the strict fake '
        'CuPy (`DLBOOK_FAKE_GPUS=1`): every CuPy call that would compute '
        'or allocate on a GPU, a fused kernel counted once; views and '
        'shape changes are not calls.  "Launches" leaves out allocations '
        '(`empty`, `empty_like`), which take a block from the memory pool '
        'without a kernel; "outside operators" are the tape\'s gradient '
        'writes and the optimizer.  "With cuDNN": the same step where '
        'convolutions take dlbook\'s cuDNN path (`dlbook/backend/cudnn.py`; '
        'each cuDNN call one launch and its output one allocation, plus a '
        'workspace where cuDNN\'s algorithm needs one).  On the H200 of the '
        'GPU section each '
        'call cost about 20 µs of host time, and ResNet-18 at 32×32 was '
        'bound by them.\n\n' + table(header, rows) + '\n'
    )
    write_section(
        'gpu_calls',
        'Device calls per training step (`benchmarks/bench_gpu_calls.py`)',
        body,
    )


if __name__ == '__main__':
    sys.path.insert(0, ROOT)
    main()
