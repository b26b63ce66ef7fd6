"""Eager per-operator overhead and a large matrix product.

1. 10,000 ``a + b`` on 16x16 float32 arrays: dlbook eager, dlbook under
   ``autograd.record()`` + ``backward()`` each step, NumPy, PyTorch
   (plain, and with ``requires_grad`` + ``backward()``).
2. ``nd.dot`` of two 1024x1024 float32 matrices vs ``numpy.dot`` (and
   ``torch.mm``).

Run: ``python benchmarks/bench_core.py`` (writes benchmarks/RESULTS.md).
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

import dlbook as mx  # noqa: E402
from dlbook import autograd, nd  # noqa: E402
from benchmarks.common import (best_of, fmt_ms, fmt_us, table,  # noqa
                               try_torch, write_section)

N_OPS = 10_000


def per_op_overhead():
    rng = np.random.RandomState(0)
    a_np = rng.rand(16, 16).astype(np.float32)
    b_np = rng.rand(16, 16).astype(np.float32)
    a, b = nd.array(a_np), nd.array(b_np)
    rows = []

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

    results = {'numpy': best_of(loop_numpy, 3) / N_OPS,
               'eager': best_of(loop_eager, 3) / N_OPS,
               'recorded_fwd': best_of(loop_recorded_forward, 3) / N_OPS,
               'recorded': best_of(loop_recorded, 3) / N_OPS}
    torch = try_torch()
    if torch is not None:
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

        results['torch'] = best_of(torch_plain, 3) / N_OPS
        results['torch_fwd'] = best_of(torch_grad_forward, 3) / N_OPS
        results['torch_grad'] = best_of(torch_grad, 3) / N_OPS

    def cell(key):
        return fmt_us(results[key]) if key in results else 'n/a'

    rows.append(('`a + b`, no gradient', cell('eager'), cell('numpy'),
                 cell('torch')))
    rows.append(('`a + b` recorded (forward only)', cell('recorded_fwd'),
                 '–', cell('torch_fwd')))
    rows.append(('`a + b` recorded + `backward()` per step',
                 cell('recorded'), '–', cell('torch_grad')))
    return rows


def big_dot():
    rng = np.random.RandomState(0)
    a_np = rng.rand(1024, 1024).astype(np.float32)
    b_np = rng.rand(1024, 1024).astype(np.float32)
    a, b = nd.array(a_np), nd.array(b_np)
    t_nd = best_of(lambda: nd.dot(a, b).wait_to_read(), 7)
    t_np = best_of(lambda: np.dot(a_np, b_np), 7)
    row = ['`dot` 1024³ float32', fmt_ms(t_nd), fmt_ms(t_np)]
    torch = try_torch()
    if torch is not None:
        ta, tb = torch.from_numpy(a_np), torch.from_numpy(b_np)
        row.append(fmt_ms(best_of(lambda: torch.mm(ta, tb), 7)))
    else:
        row.append('n/a')
    row.append(f'{t_nd / t_np:.3f}×')
    return row


def main():
    mx.random.seed(0)
    rows = per_op_overhead()
    body = ('Per-operation time (lower is better), best of 3 runs of '
            f'{N_OPS:,} operations on 16×16 float32:\n\n' +
            table(('operation', 'dlbook', 'NumPy', 'PyTorch CPU'), rows))
    dot_row = big_dot()
    body += '\n\nLarge matrix product (best of 7):\n\n' + table(
        ('operation', 'dlbook', 'NumPy', 'PyTorch CPU', 'dlbook / NumPy'),
        [dot_row])
    write_section('core', 'Core engine: per-op overhead and dot '
                  '(`benchmarks/bench_core.py`)', body)


if __name__ == '__main__':
    main()
