"""Time Convolution and Pooling layers, forward + backward, on CPU.

Runs the raw operators (``dlbook.ops``) on NumPy with the fast path and
with the reference path (``dlbook.ops.fastpath``), and, when PyTorch is
installed, the same layers with ``torch.nn.functional``, on the same
number of threads.  The candidates take turns in one process (the
machine may be shared) and the medians are reported with the load
average.  Usage::

    python benchmarks/bench_conv.py [--batch 128] [--repeat 15]
    DLBOOK_NUM_THREADS=1 python benchmarks/bench_conv.py   # 1 thread each
"""

import argparse
import os
import sys
import time

import numpy as np

# Run from a checkout without installing: put the repository root first.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchmarks.common import load_average, write_section  # noqa: E402
from dlbook.backend import blas_threads  # noqa: E402
from dlbook.ops import REGISTRY, fastpath  # noqa: E402

# (label, data shape, op name, attrs, weight shape)
LAYERS = [
    (
        'conv 3->32 k3 p1 32x32',
        64,
        (3, 32, 32),
        'Convolution',
        dict(kernel=(3, 3), num_filter=32, pad=(1, 1)),
        (32, 3, 3, 3),
    ),
    (
        'LeNet conv1 1->20 k5',
        None,
        (1, 28, 28),
        'Convolution',
        dict(kernel=(5, 5), num_filter=20),
        (20, 1, 5, 5),
    ),
    (
        'LeNet pool1 max 2x2',
        None,
        (20, 24, 24),
        'Pooling',
        dict(kernel=(2, 2), stride=(2, 2), pool_type='max'),
        None,
    ),
    (
        'LeNet conv2 20->50 k5',
        None,
        (20, 12, 12),
        'Convolution',
        dict(kernel=(5, 5), num_filter=50),
        (50, 20, 5, 5),
    ),
    (
        'LeNet pool2 max 2x2',
        None,
        (50, 8, 8),
        'Pooling',
        dict(kernel=(2, 2), stride=(2, 2), pool_type='max'),
        None,
    ),
    (
        'pool avg 2x2',
        None,
        (16, 10, 10),
        'Pooling',
        dict(kernel=(2, 2), stride=(2, 2), pool_type='avg'),
        None,
    ),
    (
        'pool max 3x3 s2',
        None,
        (16, 10, 10),
        'Pooling',
        dict(kernel=(3, 3), stride=(2, 2), pool_type='max'),
        None,
    ),
    (
        'conv 16->32 k3 p1',
        None,
        (16, 14, 14),
        'Convolution',
        dict(kernel=(3, 3), num_filter=32, pad=(1, 1)),
        (32, 16, 3, 3),
    ),
]


def medians_ms(fns, repeat):
    """Median wall time (ms) of each function, the functions taking turns."""
    times = {key: [] for key in fns}
    for fn in fns.values():
        fn()  # warm up
    for _ in range(repeat):
        for key, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[key].append(time.perf_counter() - start)
    return {key: 1e3 * float(np.median(t)) for key, t in times.items()}


def dlbook_step(name, attrs, inputs, fast):
    def run():
        with fastpath.use(fast):
            op = REGISTRY[name](**attrs)
            op.is_train = True  # as under autograd.record
            y = op.forward(np, *inputs)
            op.backward(np, np.ones_like(y))

    return run


def torch_step(torch, name, attrs, inputs):
    import torch.nn.functional as F

    tensors = [
        torch.from_numpy(a).requires_grad_(i > 0 or name != 'Pooling')
        for i, a in enumerate(inputs)
    ]
    if name == 'Pooling':
        tensors[0].requires_grad_(True)

    def forward():
        if name == 'Convolution':
            return F.conv2d(
                tensors[0],
                tensors[1],
                tensors[2],
                padding=attrs.get('pad', (0, 0)),
            )
        pool = F.avg_pool2d if attrs['pool_type'] == 'avg' else F.max_pool2d
        return pool(tensors[0], attrs['kernel'], attrs['stride'])

    def run():
        y = forward()
        y.backward(torch.ones_like(y))

    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--batch', type=int, default=128)
    parser.add_argument('--repeat', type=int, default=15)
    args = parser.parse_args()
    # Large products use DLBOOK_NUM_THREADS (automatic when unset).
    threads = blas_threads.default_threads()
    try:
        import torch

        torch.set_num_threads(threads)
    except ImportError:
        torch = None
    rng = np.random.RandomState(0)
    header = (
        '| layer | batch | fast (ms) | reference (ms) | reference / fast |'
    )
    rule = '|---|---|---|---|---|'
    if torch is not None:
        header += ' PyTorch (ms) | fast / PyTorch |'
        rule += '---|---|'
    lines = [header, rule]
    totals = {'fast': 0.0, 'ref': 0.0, 'torch': 0.0}
    load_before = load_average()
    for label, batch, shape, name, attrs, w_shape in LAYERS:
        batch = batch or args.batch
        data = rng.uniform(-1, 1, (batch,) + shape).astype(np.float32)
        inputs = [data]
        if w_shape is not None:
            inputs += [
                rng.uniform(-1, 1, w_shape).astype(np.float32),
                np.zeros(w_shape[0], np.float32),
            ]
        fns = {
            'fast': dlbook_step(name, attrs, inputs, True),
            'ref': dlbook_step(name, attrs, inputs, False),
        }
        if torch is not None:
            fns['torch'] = torch_step(torch, name, attrs, inputs)
        ms = medians_ms(fns, args.repeat)
        for key in ms:
            totals[key] += ms[key]
        line = (
            f'| {label} | {batch} | {ms["fast"]:.2f} | {ms["ref"]:.2f} '
            f'| {ms["ref"] / ms["fast"]:.2f}x |'
        )
        if torch is not None:
            line += f' {ms["torch"]:.2f} | {ms["fast"] / ms["torch"]:.2f}x |'
        lines.append(line)
    line = (
        f'| total | | {totals["fast"]:.2f} | {totals["ref"]:.2f} | '
        f'{totals["ref"] / totals["fast"]:.2f}x |'
    )
    if torch is not None:
        line += (
            f' {totals["torch"]:.2f} | '
            f'{totals["fast"] / totals["torch"]:.2f}x |'
        )
    lines.append(line)
    body = (
        f'Forward + backward (all gradients) per layer, float32, median '
        f'of {args.repeat} runs taken in turns; BLAS and PyTorch on '
        f'{threads} thread(s) ({blas_threads.info()["reason"]}); '
        f'load average before {load_before}, after {load_average()} '
        f'(2 cores shared with other jobs: noisy).\n\n' + '\n'.join(lines)
    )
    write_section(
        'conv',
        'Convolution and pooling layers (`benchmarks/bench_conv.py`)',
        body,
    )


if __name__ == '__main__':
    main()
