"""Hybridize: what running the traced graph saves, and its memory plan.

1. Training-step time of small MLPs (784-256-10 and 64-64-10) at batch 1,
   16 and 64, where Python overhead dominates: dlbook eager, dlbook with
   the network hybridized, dlbook with network and loss hybridized, and
   PyTorch eager, in the same process.  One step = forward, softmax
   cross-entropy, backward, ``trainer.step`` (SGD).
2. LeNet training steps, eager and hybridized: with the NumPy work
   dominating, hybridizing must not cost time.
3. The executor's memory plan: the peak of the intermediate arrays alive
   at once during forward + backward of a LeNet graph (arrays kept for
   backward included, bound arguments excluded;
   ``GraphProgram.track_memory``) against the sum of every intermediate
   array the pass produces, which an eager pass that frees nothing would
   hold.

Run: ``python benchmarks/bench_hybridize.py`` (writes benchmarks/RESULTS.md).
"""

import os
import sys
import time

# One BLAS thread, like PyTorch below: the steps are tiny, and on a shared
# machine idle BLAS threads spinning make the timings erratic.
for _var in ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS'):
    os.environ.setdefault(_var, '1')

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import dlbook as mx  # noqa: E402
from benchmarks.bench_training import dlbook_lenet  # noqa: E402
from benchmarks.common import (
    fmt_ms,
    fmt_us,
    load_average,
    table,
    taking_turns,
    try_torch,
    write_section,
)  # noqa
from dlbook import autograd, gluon, nd, sym  # noqa: E402
from dlbook.gluon import nn  # noqa: E402
from dlbook.symbol.program import GraphProgram  # noqa: E402

STEPS = 40
REPEAT = 15
SIZES = [(784, 256, 10), (64, 64, 10)]
BATCHES = [1, 16, 64]


def dlbook_step(sizes, batch, mode):
    """A function running one training step; mode is 'eager', 'net' (net
    hybridized) or 'all' (net and loss hybridized)."""
    n_in, hidden, n_out = sizes
    net = nn.HybridSequential()
    net.add(
        nn.Dense(hidden, activation='relu', in_units=n_in),
        nn.Dense(n_out, in_units=hidden),
    )
    net.initialize(mx.init.Xavier())
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    if mode in ('net', 'all'):
        net.hybridize()
    if mode == 'all':
        loss_fn.hybridize()
    trainer = gluon.Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.01}
    )
    rng = np.random.RandomState(0)
    x = nd.array(rng.rand(batch, n_in))
    y = nd.array(rng.randint(0, n_out, batch))

    def step():
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(batch)

    return step


def torch_step(torch, sizes, batch):
    n_in, hidden, n_out = sizes
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Linear(n_in, hidden),
        torch.nn.ReLU(),
        torch.nn.Linear(hidden, n_out),
    )
    loss_fn = torch.nn.CrossEntropyLoss(reduction='none')
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01 / batch)
    rng = np.random.RandomState(0)
    x = torch.from_numpy(rng.rand(batch, n_in).astype('f4'))
    y = torch.from_numpy(rng.randint(0, n_out, batch))

    def step():
        optimizer.zero_grad()
        loss_fn(net(x), y).sum().backward()
        optimizer.step()

    return step


def interleaved(steps, rounds=REPEAT, number=STEPS):
    """Best CPU time per call of each function in ``steps`` (a dict), the
    candidates taking turns (``taking_turns``).  The process's CPU time,
    not the wall time: on a shared machine the wall clock also counts
    the time other processes run, the CPU time does not."""
    times = taking_turns(steps, rounds, number, clock=time.process_time)
    return {name: min(t) for name, t in times.items()}


def step_times():
    torch = try_torch()
    if torch is not None:
        torch.set_num_threads(1)
    rows = []
    for sizes in SIZES:
        for batch in BATCHES:
            steps = {
                mode: dlbook_step(sizes, batch, mode)
                for mode in ('eager', 'net', 'all')
            }
            if torch is not None:
                steps['torch'] = torch_step(torch, sizes, batch)
            t = interleaved(steps)
            rows.append(
                (
                    '-'.join(map(str, sizes)),
                    batch,
                    fmt_us(t['eager']),
                    fmt_us(t['net']),
                    fmt_us(t['all']),
                    f"{t['eager'] / t['net']:.2f}×",
                    f"{t['eager'] / t['all']:.2f}×",
                    fmt_us(t['torch']) if 'torch' in t else '–',
                )
            )
    return rows


def network_times(sizes=(64, 64, 10), batch=16):
    """The part hybridize replaces: the network alone, predicting and
    recording + backward."""
    rows = []
    for label, record in (
        ('forward (prediction)', False),
        ('forward + backward (recorded)', True),
    ):
        steps = {}
        for mode in ('eager', 'net'):
            n_in, hidden, n_out = sizes
            net = nn.HybridSequential()
            net.add(
                nn.Dense(hidden, activation='relu', in_units=n_in),
                nn.Dense(n_out, in_units=hidden),
            )
            net.initialize()
            if mode == 'net':
                net.hybridize()
            x = nd.array(np.random.RandomState(0).rand(batch, n_in))

            def run(net=net, x=x, record=record):
                if record:
                    with autograd.record():
                        y = net(x)
                    y.backward()
                else:
                    net(x)

            steps[mode] = run
        t = interleaved(steps)
        rows.append(
            (
                label,
                fmt_us(t['eager']),
                fmt_us(t['net']),
                f"{t['eager'] / t['net']:.2f}×",
            )
        )
    return rows


def lenet_step(batch, mode):
    """One LeNet training step (Conv2D 20@5x5 relu, max pool, Conv2D
    50@5x5 relu, max pool, Dense 500 relu, Dense 10; SGD with momentum),
    eager or with network and loss hybridized ('all')."""
    net = dlbook_lenet()
    net.initialize(mx.init.Xavier())
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    if mode == 'all':
        net.hybridize()
        loss_fn.hybridize()
    trainer = gluon.Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.01, 'momentum': 0.9}
    )
    rng = np.random.RandomState(0)
    x = nd.array(rng.rand(batch, 1, 28, 28))
    y = nd.array(rng.randint(0, 10, batch))

    def step():
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(batch)

    return step


def lenet_times(batches=(16, 128)):
    """Eager against hybridized LeNet steps: compute-bound, where
    hybridize must not cost time."""
    rows = []
    for batch in batches:
        steps = {mode: lenet_step(batch, mode) for mode in ('eager', 'all')}
        t = interleaved(steps, rounds=5, number=4)
        rows.append(
            (
                batch,
                fmt_ms(t['eager']),
                fmt_ms(t['all']),
                f"{t['eager'] / t['all']:.2f}×",
            )
        )
    return rows


def lenet_symbol():
    data = sym.var('data')
    net = sym.Convolution(data, kernel=(5, 5), num_filter=20, name='conv1')
    net = sym.Activation(net, act_type='relu')
    net = sym.Pooling(net, kernel=(2, 2), stride=(2, 2), pool_type='max')
    net = sym.Convolution(net, kernel=(5, 5), num_filter=50, name='conv2')
    net = sym.Activation(net, act_type='relu')
    net = sym.Pooling(net, kernel=(2, 2), stride=(2, 2), pool_type='max')
    net = sym.FullyConnected(sym.Flatten(net), num_hidden=500, name='fc1')
    net = sym.Activation(net, act_type='relu')
    net = sym.FullyConnected(net, num_hidden=10, name='fc2')
    return sym.SoftmaxOutput(net, name='softmax')


def memory_plan(batch=64):
    GraphProgram.track_memory = True
    try:
        exe = lenet_symbol().simple_bind(mx.cpu(), data=(batch, 1, 28, 28))
        rng = np.random.RandomState(0)
        for arr in exe.arg_arrays:
            arr[:] = rng.uniform(-0.1, 0.1, arr.shape)
        exe.forward(is_train=True)
        exe.backward()
        peak, total = exe.peak_bytes, exe.total_bytes
        predict = lenet_symbol().simple_bind(
            mx.cpu(), grad_req='null', data=(batch, 1, 28, 28)
        )
        predict.copy_params_from(exe.arg_dict)
        predict.forward()
        predict_peak, predict_total = predict.peak_bytes, predict.total_bytes
    finally:
        GraphProgram.track_memory = False
    mib = 2.0**20
    return [
        (
            'forward + backward (training)',
            f'{peak / mib:.2f} MiB',
            f'{total / mib:.2f} MiB',
            f'{peak / total:.0%}',
        ),
        (
            'forward only (prediction)',
            f'{predict_peak / mib:.2f} MiB',
            f'{predict_total / mib:.2f} MiB',
            f'{predict_peak / predict_total:.0%}',
        ),
    ]


def main():
    before = load_average()
    rows = step_times()
    network = network_times()
    lenet = lenet_times()
    after = load_average()
    memory = memory_plan()
    body = (
        f'Time per training step (forward, softmax cross-entropy, '
        f'backward, SGD `trainer.step`): CPU time of the process, best of '
        f'{REPEAT} runs of {STEPS} steps, the candidates taking turns (the '
        f'machine is shared: load average before {before}, after {after}); '
        f'NumPy (OpenBLAS) and PyTorch on 1 thread:\n\n'
        + table(
            (
                'MLP',
                'batch',
                'dlbook eager',
                'dlbook hybridized net',
                'net + loss hybridized',
                'speed-up (net)',
                'speed-up (net + loss)',
                'PyTorch eager',
            ),
            rows,
        )
        + '\n\nThe network alone (64-64-10, batch 16, CPU time as above), '
        'the part hybridize replaces; the rest of a step (loss, autograd '
        'bookkeeping, `trainer.step`) is the same in both:\n\n'
        + table(('pass', 'eager', 'hybridized', 'speed-up'), network)
        + '\n\nA hybridized graph runs with its steps fused '
        '(`dlbook/symbol/fusion.py`: dense layer + activation, relu + max '
        'pooling, BatchNorm + relu, convolution + activation, '
        'log_softmax + pick + scale + mean of the loss) unless the fast '
        'path is off (`DLBOOK_FAST_OPS=0`). LeNet (conv 20@5x5 relu, max '
        'pool, conv 50@5x5 relu, max pool, dense 500 relu, dense 10; SGD '
        'with momentum), where the NumPy work dominates: eager against '
        'network and loss hybridized, CPU time, best of 5 runs of 4 steps, '
        'taking turns:\n\n'
        + table(('batch', 'eager', 'hybridized', 'speed-up'), lenet)
        + '\n\nExecutor memory plan, LeNet (conv 20@5x5, pool, conv 50@5x5, '
        'pool, dense 500, dense 10, SoftmaxOutput), batch 64: peak of the '
        'intermediate arrays alive at once (released after their last '
        'reader; arrays kept for backward counted) against the sum of all '
        'intermediate arrays produced (what a pass that frees nothing '
        'holds):\n\n'
        + table(
            ('pass', 'peak alive', 'sum of intermediates', 'ratio'), memory
        )
        + '\n'
    )
    write_section(
        'hybridize',
        'Hybridize: step time and memory plan '
        '(`benchmarks/bench_hybridize.py`)',
        body,
    )


if __name__ == '__main__':
    main()
