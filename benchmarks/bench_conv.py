"""Time LeNet-sized Convolution and Pooling, forward + backward, on CPU.

Runs the raw operators (``dlbook.ops``) with NumPy and, when PyTorch is
installed, the same layers with ``torch.nn.functional`` on the same
number of threads.  Usage::

    python benchmarks/bench_conv.py [--batch 256] [--repeat 20]
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_conv.py   # 1 thread each
"""

import argparse
import os
import sys
import time

import numpy as np

# Run from a checkout without installing: put the repository root first.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
from dlbook.ops import REGISTRY  # noqa: E402
from benchmarks.common import write_section  # noqa: E402

# (label, data shape, op name, attrs, weight shape)
LAYERS = [
    ('conv1 1->6 k5 p2', (1, 28, 28), 'Convolution',
     dict(kernel=(5, 5), num_filter=6, pad=(2, 2)), (6, 1, 5, 5)),
    ('pool1 avg 2x2', (6, 28, 28), 'Pooling',
     dict(kernel=(2, 2), stride=(2, 2), pool_type='avg'), None),
    ('conv2 6->16 k5', (6, 14, 14), 'Convolution',
     dict(kernel=(5, 5), num_filter=16), (16, 6, 5, 5)),
    ('pool2 avg 2x2', (16, 10, 10), 'Pooling',
     dict(kernel=(2, 2), stride=(2, 2), pool_type='avg'), None),
    ('pool max 3x3 s2', (16, 10, 10), 'Pooling',
     dict(kernel=(3, 3), stride=(2, 2), pool_type='max'), None),
    ('conv 16->32 k3 p1', (16, 14, 14), 'Convolution',
     dict(kernel=(3, 3), num_filter=32, pad=(1, 1)), (32, 16, 3, 3)),
]


def best_ms(fn, repeat):
    fn()                                           # warm up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1e3 * min(times), 1e3 * float(np.median(times))


def dlbook_step(name, attrs, inputs):
    def run():
        op = REGISTRY[name](**attrs)
        op.is_train = True                         # as under autograd.record
        y = op.forward(np, *inputs)
        op.backward(np, np.ones_like(y))
    return run


def torch_step(torch, name, attrs, inputs):
    import torch.nn.functional as F
    tensors = [torch.from_numpy(a).requires_grad_(i > 0 or name != 'Pooling')
               for i, a in enumerate(inputs)]
    if name == 'Pooling':
        tensors[0].requires_grad_(True)

    def forward():
        if name == 'Convolution':
            return F.conv2d(tensors[0], tensors[1], tensors[2],
                            padding=attrs.get('pad', (0, 0)))
        pool = F.avg_pool2d if attrs['pool_type'] == 'avg' else F.max_pool2d
        return pool(tensors[0], attrs['kernel'], attrs['stride'])

    def run():
        y = forward()
        y.backward(torch.ones_like(y))
    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--batch', type=int, default=256)
    parser.add_argument('--repeat', type=int, default=20)
    args = parser.parse_args()
    try:
        import torch
        # Give PyTorch as many threads as NumPy's BLAS gets.
        threads = (os.environ.get('OPENBLAS_NUM_THREADS')
                   or os.environ.get('OMP_NUM_THREADS'))
        if threads:
            torch.set_num_threads(int(threads))
    except ImportError:
        torch = None
    rng = np.random.RandomState(0)
    header = f'{"layer (batch %d)" % args.batch:24s} {"dlbook ms":>16s}'
    if torch is not None:
        header += f' {"torch ms":>16s} {"ratio":>6s}'
    lines = [header + '   (fwd+bwd, best / median)']
    total_ours = total_torch = 0.0
    for label, shape, name, attrs, w_shape in LAYERS:
        data = rng.uniform(-1, 1, (args.batch,) + shape).astype(np.float32)
        inputs = [data]
        if w_shape is not None:
            inputs += [rng.uniform(-1, 1, w_shape).astype(np.float32),
                       np.zeros(w_shape[0], np.float32)]
        ours = best_ms(dlbook_step(name, attrs, inputs), args.repeat)
        line = f'{label:24s} {ours[0]:7.2f} / {ours[1]:6.2f}'
        total_ours += ours[1]
        if torch is not None:
            theirs = best_ms(torch_step(torch, name, attrs, inputs),
                             args.repeat)
            total_torch += theirs[1]
            line += (f' {theirs[0]:7.2f} / {theirs[1]:6.2f}'
                     f' {ours[1] / theirs[1]:6.2f}')
        lines.append(line)
    summary = f'{"total (median)":24s} {total_ours:16.2f}'
    if torch is not None:
        summary += f' {total_torch:16.2f} {total_ours / total_torch:6.2f}'
    lines.append(summary)
    write_section('conv', 'Convolution layers (`benchmarks/bench_conv.py`)',
                  'Forward + backward per layer, milliseconds:\n\n```\n' +
                  '\n'.join(lines) + '\n```')


if __name__ == '__main__':
    main()
