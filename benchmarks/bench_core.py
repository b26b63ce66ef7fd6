"""Eager per-operator overhead and a large matrix product.

1. ``a + b`` on 16x16 float32 arrays: dlbook eager, dlbook under
   ``autograd.record()`` (forward only, and + ``backward()`` each step),
   a chain ``c = c + b`` 10,000 deep recorded and then one ``backward()``
   through all of it, NumPy, and PyTorch doing the same (plain,
   ``requires_grad`` forward, + ``backward()``, the chain).  The
   candidates take turns (the machine may be shared); medians of the
   rounds, CPU time of the process, PyTorch on 1 thread like NumPy's
   small adds; the load average is recorded.
2. ``nd.dot`` of two 1024x1024 float32 matrices vs ``numpy.dot`` (and
   ``torch.mm``).

Run: ``python benchmarks/bench_core.py`` (writes benchmarks/RESULTS.md).
"""

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import dlbook as mx  # noqa: E402
from benchmarks.common import (
    fmt_ms,
    fmt_us,
    load_average,
    table,
    taking_turns,
    try_torch,
    write_section,
)
from dlbook import autograd, nd  # noqa: E402

N_OPS = 10_000
ROUNDS = 7


def interleaved_medians(loops, rounds=ROUNDS):
    """Median CPU time per operation of each loop (``N_OPS`` operations a
    call), the loops taking turns."""
    times = taking_turns(loops, rounds, clock=time.process_time)
    return {key: float(np.median(t)) / N_OPS for key, t in times.items()}


def per_op_overhead():
    rng = np.random.RandomState(0)
    a_np = rng.rand(16, 16).astype(np.float32)
    b_np = rng.rand(16, 16).astype(np.float32)
    a, b = nd.array(a_np), nd.array(b_np)

    def loop_numpy():
        for _ in range(N_OPS):
            a_np + b_np

    def loop_eager():
        for _ in range(N_OPS):
            a + b

    a_var, b_var = nd.array(a_np), nd.array(b_np)
    a_var.attach_grad()
    b_var.attach_grad()

    def loop_recorded():
        for _ in range(N_OPS):
            with autograd.record():
                c = a_var + b_var
            c.backward()

    def loop_recorded_forward():
        with autograd.record():
            for _ in range(N_OPS):
                a_var + b_var

    def chain():
        with autograd.record():
            c = a_var
            for _ in range(N_OPS):
                c = c + b_var
        c.backward()

    loops = {
        'numpy': loop_numpy,
        'eager': loop_eager,
        'recorded_fwd': loop_recorded_forward,
        'recorded': loop_recorded,
        'chain': chain,
    }
    torch = try_torch()
    threads = None
    if torch is not None:
        threads = torch.get_num_threads()  # restored for the dot below
        torch.set_num_threads(1)
        ta, tb = torch.from_numpy(a_np), torch.from_numpy(b_np)
        ta_g = ta.clone().requires_grad_()
        tb_g = tb.clone().requires_grad_()
        ones = torch.ones(16, 16)

        def torch_plain():
            for _ in range(N_OPS):
                ta + tb

        def torch_grad_forward():
            for _ in range(N_OPS):
                ta_g + tb_g

        def torch_grad():
            for _ in range(N_OPS):
                c = ta_g + tb_g
                c.backward(ones)

        def torch_chain():
            c = ta_g
            for _ in range(N_OPS):
                c = c + tb_g
            c.backward(ones)

        loops.update(
            torch=torch_plain,
            torch_fwd=torch_grad_forward,
            torch_grad=torch_grad,
            torch_chain=torch_chain,
        )
    before = load_average()
    results = interleaved_medians(loops)
    after = load_average()
    if threads is not None:
        torch.set_num_threads(threads)

    def cell(key):
        return fmt_us(results[key]) if key in results else 'n/a'

    def ratio(key, ref):
        if ref not in results:
            return '–'
        return f'{results[key] / results[ref]:.2f}×'

    rows = [
        (
            '`a + b`, no gradient',
            cell('eager'),
            cell('numpy'),
            cell('torch'),
            ratio('eager', 'torch'),
        ),
        (
            '`a + b` recorded (forward only)',
            cell('recorded_fwd'),
            '–',
            cell('torch_fwd'),
            ratio('recorded_fwd', 'torch_fwd'),
        ),
        (
            '`a + b` recorded + `backward()` per step',
            cell('recorded'),
            '–',
            cell('torch_grad'),
            ratio('recorded', 'torch_grad'),
        ),
        (
            f'chain `c = c + b` {N_OPS:,} deep + one `backward()`, per op',
            cell('chain'),
            '–',
            cell('torch_chain'),
            ratio('chain', 'torch_chain'),
        ),
    ]
    rows.append(
        (
            'the same chain, in a process without PyTorch imported '
            '(fewer objects for the garbage collector to traverse)',
            fmt_us(chain_alone()),
            '–',
            '–',
            '–',
        )
    )
    if torch is not None:
        rows.append(
            (
                "the same chain with PyTorch imported and Python's "
                'collector left at its defaults (`DLBOOK_GC_THRESHOLD=0`)',
                fmt_us(chain_alone(with_torch=True, gc_threshold=0)),
                '–',
                cell('torch_chain'),
                '–',
            )
        )
    return rows, before, after


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHAIN_ALONE = f"""
import sys, time
sys.path.insert(0, {ROOT!r})
if sys.argv[1] == 'torch':
    import torch
import numpy as np
from dlbook import autograd, nd
rng = np.random.RandomState(0)
a = nd.array(rng.rand(16, 16).astype(np.float32))
b = nd.array(rng.rand(16, 16).astype(np.float32))
a.attach_grad()
b.attach_grad()
times = []
for _ in range({ROUNDS + 1}):
    start = time.process_time()
    with autograd.record():
        c = a
        for _ in range({N_OPS}):
            c = c + b
    c.backward()
    times.append((time.process_time() - start) / {N_OPS})
print(float(np.median(times[1:])))
"""


def chain_alone(with_torch=False, gc_threshold=None):
    """The recorded chain + backward per op, in a fresh process (that
    imports PyTorch first when ``with_torch``): recording creates a few
    Python objects per operator, and the garbage collector's full passes
    also traverse every object of the process (PyTorch's among them).
    ``gc_threshold`` sets ``DLBOOK_GC_THRESHOLD`` for that process
    (``dlbook/_gc_policy.py``)."""
    import subprocess

    env = dict(os.environ)
    if gc_threshold is not None:
        env['DLBOOK_GC_THRESHOLD'] = str(gc_threshold)
    out = subprocess.run(
        [sys.executable, '-c', CHAIN_ALONE, 'torch' if with_torch else '-'],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    return float(out.stdout.strip().splitlines()[-1])


def big_dot():
    """``dot`` 1024³ float32: dlbook, NumPy and PyTorch taking turns (best
    of 7 wall-clock rounds each; the automatic thread choice on both
    BLAS libraries)."""
    rng = np.random.RandomState(0)
    a_np = rng.rand(1024, 1024).astype(np.float32)
    b_np = rng.rand(1024, 1024).astype(np.float32)
    a, b = nd.array(a_np), nd.array(b_np)
    calls = {
        'dlbook': lambda: nd.dot(a, b).wait_to_read(),
        'numpy': lambda: np.dot(a_np, b_np),
    }
    torch = try_torch()
    if torch is not None:
        ta, tb = torch.from_numpy(a_np), torch.from_numpy(b_np)
        calls['torch'] = lambda: torch.mm(ta, tb)
    best = {k: min(t) for k, t in taking_turns(calls, rounds=7).items()}
    return [
        '`dot` 1024³ float32',
        fmt_ms(best['dlbook']),
        fmt_ms(best['numpy']),
        fmt_ms(best['torch']) if 'torch' in best else 'n/a',
        f'{best["dlbook"] / best["numpy"]:.3f}×',
    ]


def main():
    mx.random.seed(0)
    rows, before, after = per_op_overhead()
    body = (
        'Per-operation time (lower is better) on 16×16 float32: CPU '
        f'time of the process, median of {ROUNDS} rounds of {N_OPS:,} '
        'operations, the candidates taking turns; PyTorch on 1 '
        f'thread; load average before {before}, after {after} (2 '
        'cores shared with other jobs):\n\n'
        + table(
            (
                'operation',
                'dlbook',
                'NumPy',
                'PyTorch CPU',
                'dlbook / PyTorch',
            ),
            rows,
        )
    )
    dot_row = big_dot()
    body += (
        '\n\nLarge matrix product (best of 7, the three taking turns):\n\n'
    ) + table(
        ('operation', 'dlbook', 'NumPy', 'PyTorch CPU', 'dlbook / NumPy'),
        [dot_row],
    )
    write_section(
        'core',
        'Core engine: per-op overhead and dot (`benchmarks/bench_core.py`)',
        body,
    )


if __name__ == '__main__':
    main()
