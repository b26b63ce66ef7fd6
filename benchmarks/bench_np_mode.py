"""NumPy mode (``mx.np``/``npx``) against legacy ``nd``: what the front
end costs.

1. Per-operation time of ``a + b``, ``dot`` and a full ``sum`` on 16x16
   float32 arrays, ``nd.NDArray`` vs ``np.ndarray`` (np mode adds MXNet's
   dtype promotion and 0-d results on top of the same operators).
2. A training step of the classic LeNet (batch 64, 28x28, SGD) built with
   Gluon under ``npx.set_np()`` vs legacy mode, eager and hybridized (in
   np mode hybridizing traces the block by running it,
   ``dlbook/gluon/deferred.py``).

Run: ``python benchmarks/bench_np_mode.py`` (writes benchmarks/RESULTS.md).
The runs are short; on a shared machine the numbers move by 10-20 %, so
``nd`` and ``np`` runs alternate in one process and load changes hit both
alike; the tables give the median of the runs (and the load average
before and after).
"""

import os
import statistics
import sys

import numpy

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import dlbook as mx  # noqa: E402
from benchmarks import mxnet_workloads  # noqa: E402
from benchmarks.common import (
    fmt_ms,
    fmt_us,
    load_average,
    table,
    taking_turns,
    write_section,
)
from dlbook import autograd, gluon, nd, np, npx  # noqa: E402

mxnet_workloads.use('dlbook')
lenet = mxnet_workloads.d2l_lenet  # d2l's LeNet of chapter 8

N_OPS = 2_000
REPEAT = 15
STEP_REPEAT = 11
STEPS = 5


def alternate(first, second, repeat=REPEAT):
    """Times of two callables run alternately, ``repeat`` times
    (``taking_turns``): the two medians and the two best times (on a busy
    machine the best is the run least disturbed by other processes)."""
    times = taking_turns({0: first, 1: second}, rounds=repeat)
    return [statistics.median(times[i]) for i in (0, 1)] + [
        min(times[i]) for i in (0, 1)
    ]


def per_op_rows():
    rng = numpy.random.RandomState(0)
    a_host = rng.rand(16, 16).astype(numpy.float32)
    b_host = rng.rand(16, 16).astype(numpy.float32)
    legacy = (nd.array(a_host), nd.array(b_host))
    npx.set_np()
    numpy_mode = (np.array(a_host), np.array(b_host))
    ops = [
        ('`a + b`', lambda a, b: a + b, lambda a, b: a + b),
        ('`dot(a, b)`', lambda a, b: nd.dot(a, b), lambda a, b: np.dot(a, b)),
        ('`a.sum()`', lambda a, b: a.sum(), lambda a, b: a.sum()),
        ('`a > b`', lambda a, b: a > b, lambda a, b: a > b),
        ('`a * 2.0`', lambda a, b: a * 2.0, lambda a, b: a * 2.0),
    ]
    rows = []
    for label, f_nd, f_np in ops:

        def loop(f, arrays):
            def run():
                for _ in range(N_OPS):
                    f(*arrays)

            return run

        t_nd, t_np, b_nd, b_np = (
            t / N_OPS
            for t in alternate(loop(f_nd, legacy), loop(f_np, numpy_mode))
        )
        rows.append(
            (
                label,
                fmt_us(t_nd),
                fmt_us(t_np),
                f'{t_np / t_nd:.2f}×',
                f'{b_np / b_nd:.2f}×',
            )
        )
    npx.reset_np()
    return rows


def training(np_mode, hybridize):
    """A function running STEPS LeNet steps (in ``np_mode`` or legacy)."""
    mx.random.seed(0)
    rng = numpy.random.RandomState(0)
    make = np.array if np_mode else nd.array
    x = make(rng.rand(64, 1, 28, 28).astype(numpy.float32))
    y = make(rng.randint(0, 10, 64).astype(numpy.float32))
    net = lenet()
    net.initialize(mx.init.Xavier())
    if hybridize:
        net.hybridize()
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.1}
    )

    def steps():
        for _ in range(STEPS):
            with autograd.record():
                loss = loss_fn(net(x), y)
            loss.backward()
            trainer.step(64)
        loss.wait_to_read()

    return steps


def in_mode(np_mode, fn):
    """``fn`` run with NumPy mode on or off."""

    def run():
        if np_mode:
            npx.set_np()
        try:
            return fn()
        finally:
            npx.reset_np()

    return run


def step_times(hybridize):
    """(nd, np) median and (nd, np) best time of one LeNet step, runs
    alternating."""
    runs = []
    for np_mode in (False, True):
        build = in_mode(np_mode, lambda m=np_mode: training(m, hybridize))
        steps = in_mode(np_mode, build())
        steps()  # initialize and trace
        runs.append(steps)
    return [t / STEPS for t in alternate(*runs, repeat=STEP_REPEAT)]


def main():
    before = load_average()
    rows = per_op_rows()
    body = (
        'Per-operation time (lower is better), median of '
        f'{REPEAT} runs of {N_OPS:,} operations on 16×16 float32, '
        '`nd` and `np` runs alternating in one process; load average '
        f'(1, 5, 15 min) before {before}, after {load_average()}:\n\n'
        + table(
            (
                'operation',
                '`nd`',
                '`np` (set_np)',
                'np / nd',
                'np / nd (best runs)',
            ),
            rows,
        )
    )
    before = load_average()
    rows = []
    for hybridize in (False, True):
        t_nd, t_np, b_nd, b_np = step_times(hybridize)
        rows.append(
            (
                'hybridized' if hybridize else 'eager',
                fmt_ms(t_nd),
                fmt_ms(t_np),
                f'{t_np / t_nd:.2f}×',
                f'{b_np / b_nd:.2f}×',
            )
        )
    body += (
        '\n\nLeNet training step (batch 64, forward + loss + backward '
        f'+ SGD), median of {STEP_REPEAT} runs of {STEPS} steps, `nd` '
        'and `np` alternating; load average before '
        f'{before}, after {load_average()}; a short run on a shared machine, '
        'so differences under ~5 % are noise:\n\n'
        + table(
            (
                'LeNet step',
                '`nd` mode',
                'np mode',
                'np / nd',
                'np / nd (best runs)',
            ),
            rows,
        )
    )
    write_section(
        'np_mode',
        'NumPy mode vs legacy `nd` (`benchmarks/bench_np_mode.py`)',
        body,
    )
    print(body)


if __name__ == '__main__':
    main()
