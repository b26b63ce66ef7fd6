"""dlbook on gpu(0) against PyTorch on the same GPU.

Sections (each one appends to ``bench.json`` as soon as it finishes, so a
run cut off by a time limit still leaves numbers):

* ``overhead``: ``a + b`` on 16x16, eager, recorded, raw CuPy, torch;
* ``gemm``: 4096^3 float32 matmul, TF32 off then on (both sides);
* ``conv``: convolution forward + backward on ResNet-18's layer shapes;
* ``resnet18``: training images/s at 32x32 (batch 128, 256) and 224x224
  (batch 64), SGD with momentum, dlbook eager / hybridized, torch eager;
  and at 32x32, batch 128, with Adam (one fused update kernel per weight
  in dlbook, torch's default multi-tensor Adam), eager;
* ``small``: one LeNet step (batch 256, 1x28x28) and one LSTM and one
  GRU step (hidden 256, 35 steps, batch 32, vocab 28);
* peak memory of each training row (CuPy pool bytes, torch max allocated).

Timing: ``warmup`` calls, then the median of ``repeat`` timed calls, each
ended by a device synchronisation on both sides, after a second of
matrix products that brings the GPU's clock up.  Both sides compute in
full float32 (TF32 off; torch's cuDNN would use TF32 by default) except
the ``tf32=True`` GEMM rows.  ``--smoke`` uses tiny
sizes (to check the script on a fake GPU).
Run from the repository root: ``python benchmarks/gpu/bench_vs_torch.py``.
"""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.getcwd())

from workloads import (  # noqa: E402
    conv_step,
    lenet,
    lstm_step,
    train_step,
    without_cudnn,
)

import dlbook as mx  # noqa: E402
from dlbook import autograd, nd  # noqa: E402
from dlbook.backend import cudnn  # noqa: E402

try:
    import torch
except ImportError:  # dlbook rows only
    torch = None

CTX = mx.gpu(0)
RESULTS = []
OUT = '.'


def tdev():
    return 'cuda' if torch.cuda.is_available() else 'cpu'


def tsync():
    if torch is not None and torch.cuda.is_available():
        torch.cuda.synchronize()


def median_time(fn, sync, warmup, repeat):
    for _ in range(warmup):
        fn()
    sync()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def warm_up(seconds):
    """Keep the GPU busy for ``seconds`` before timing anything: an idle
    GPU runs at a low clock (an H200 read 345 MHz idle and 1980 MHz
    under load), so the first section would otherwise be timed while
    the clock ramps up."""
    x = nd.random.uniform(shape=(2048, 2048), ctx=CTX)
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for _ in range(10):
            nd.dot(x, x)
        dsync()


def dsync():
    nd.waitall()


def record(section, case, who, seconds, **extra):
    row = dict(section=section, case=case, who=who, ms=seconds * 1e3, **extra)
    RESULTS.append(row)
    print(json.dumps(row), flush=True)
    with open(os.path.join(OUT, 'bench.json'), 'w') as f:
        json.dump(RESULTS, f, indent=1)


def pool_bytes():
    xp = CTX.xp
    try:
        return xp.get_default_memory_pool().total_bytes()
    except AttributeError:
        return None


def set_tf32(on):
    if torch is not None:
        torch.backends.cuda.matmul.allow_tf32 = on
        torch.backends.cudnn.allow_tf32 = on
    if CTX.backend.name != 'cupy':  # the fake GPU: nothing to set
        return
    import cupy._core._routines_linalg as lin
    import numpy

    lin.set_compute_type(
        numpy.float32,
        lin.COMPUTE_TYPE_TF32 if on else lin.COMPUTE_TYPE_DEFAULT,
    )


# -- sections ------------------------------------------------------------------


def bench_overhead(a):
    x = nd.random.uniform(shape=(16, 16), ctx=CTX)
    y = nd.random.uniform(shape=(16, 16), ctx=CTX)
    w, r = a.warmup, a.repeat * 20
    record(
        'overhead',
        'a+b 16x16',
        'dlbook',
        median_time(lambda: x + y, dsync, w, r),
    )
    x.attach_grad()

    def recorded():
        with autograd.record():
            x + y

    record(
        'overhead',
        'a+b 16x16 recorded',
        'dlbook',
        median_time(recorded, dsync, w, r),
    )
    xr, yr = x._data, y._data
    record(
        'overhead',
        'a+b 16x16',
        'raw xp',
        median_time(lambda: xr + yr, dsync, w, r),
    )
    if torch is not None:
        tx = torch.rand(16, 16, device=tdev())
        ty = torch.rand(16, 16, device=tdev())
        record(
            'overhead',
            'a+b 16x16',
            'torch',
            median_time(lambda: tx + ty, tsync, w, r),
        )
    # the dispatch cost alone: 100 operations between two syncs, per op
    chains = [('dlbook', x, y, dsync), ('raw xp', xr, yr, dsync)]
    if torch is not None:
        chains.append(('torch', tx, ty, tsync))
    for who, p, q, sync in chains:

        def hundred(p=p, q=q):
            for _ in range(100):
                p + q

        t = median_time(hundred, sync, w, a.repeat)
        record('overhead', 'a+b 16x16, 100 per sync', who, t / 100)


def bench_gemm(a):
    n = 64 if a.smoke else 4096
    x = nd.random.uniform(shape=(n, n), ctx=CTX)
    y = nd.random.uniform(shape=(n, n), ctx=CTX)
    for tf32 in (False, True):
        set_tf32(tf32)
        case = f'{n}^3 fp32 tf32={tf32}'
        t = median_time(lambda: nd.dot(x, y), dsync, a.warmup, a.repeat)
        record('gemm', case, 'dlbook', t, tflops=2 * n**3 / t / 1e12)
        if torch is not None:
            tx = torch.rand(n, n, device=tdev())
            ty = torch.rand(n, n, device=tdev())
            t = median_time(lambda: tx @ ty, tsync, a.warmup, a.repeat)
            record('gemm', case, 'torch', t, tflops=2 * n**3 / t / 1e12)
    set_tf32(False)


# (in_channels, out_channels, size, kernel, stride) of ResNet-18 at 224x224
RESNET18_CONVS = [
    (3, 64, 224, 7, 2),
    (64, 64, 56, 3, 1),
    (64, 128, 56, 3, 2),
    (128, 128, 28, 3, 1),
    (128, 256, 28, 3, 2),
    (256, 256, 14, 3, 1),
    (256, 512, 14, 3, 2),
    (512, 512, 7, 3, 1),
]


def bench_conv(a):
    batch = 2 if a.smoke else 32
    for cin, cout, size, k, s in RESNET18_CONVS:
        if a.smoke:
            cin, cout, size = min(cin, 4), min(cout, 4), min(size, 16)
        case = f'{cin}->{cout} {size}x{size} k{k} s{s} batch {batch}'
        step = conv_step(CTX, cin, cout, size, k, s, batch)
        record(
            'conv',
            case,
            'dlbook',
            median_time(step, dsync, a.warmup, a.repeat),
        )
        if cudnn.usable(CTX.backend.xp, 'float32'):
            with without_cudnn():  # the same step as im2col + cuBLAS
                record(
                    'conv',
                    case,
                    'dlbook, DLBOOK_CUDNN=0',
                    median_time(step, dsync, a.warmup, a.repeat),
                )
        if torch is not None:
            torch.backends.cudnn.benchmark = True
            tx = torch.rand(
                batch, cin, size, size, device=tdev(), requires_grad=True
            )
            tw = torch.rand(cout, cin, k, k, device=tdev(), requires_grad=True)

            def tstep():
                y = torch.nn.functional.conv2d(
                    tx, tw, stride=s, padding=k // 2
                )
                y.backward(torch.ones_like(y))

            record(
                'conv',
                case,
                'torch',
                median_time(tstep, tsync, a.warmup, a.repeat),
            )


def _train_dlbook(net, shape, classes, batch, a, hybridize, optimizer='sgd'):
    step = train_step(CTX, net, shape, classes, batch, hybridize, optimizer)
    return median_time(step, dsync, a.warmup, a.repeat)


def _train_torch(model, shape, classes, batch, a, optimizer='sgd'):
    model = model.to(tdev())
    if optimizer == 'adam':
        opt = torch.optim.Adam(model.parameters(), lr=0.001)
    else:
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    X = torch.rand((batch,) + shape, device=tdev())
    y = torch.arange(batch, device=tdev()) % classes
    lossf = torch.nn.CrossEntropyLoss()
    if torch.cuda.is_available():
        torch.cuda.reset_peak_memory_stats()

    def step():
        opt.zero_grad(set_to_none=True)
        lossf(model(X), y).backward()
        opt.step()

    t = median_time(step, tsync, a.warmup, a.repeat)
    peak = (
        torch.cuda.max_memory_allocated()
        if torch.cuda.is_available()
        else None
    )
    return t, peak


def bench_resnet18(a):
    from dlbook.gluon.model_zoo import vision

    # (size, batch, optimizer, hybridize settings to time)
    rows = [
        (32, 128, 'sgd', (False, True)),
        (32, 256, 'sgd', (False, True)),
        (224, 64, 'sgd', (False, True)),
        (32, 128, 'adam', (False,)),
    ]
    if a.smoke:
        rows = [(32, 4, 'sgd', (False, True)), (32, 4, 'adam', (False,))]
    for size, batch, optimizer, hybridize in rows:
        case = f'{size}x{size} batch {batch}'
        if optimizer != 'sgd':
            case += f', {optimizer}'
        for hyb in hybridize:
            net = vision.resnet18_v1(classes=10)
            CTX.empty_cache()
            t = _train_dlbook(
                net, (3, size, size), 10, batch, a, hyb, optimizer
            )
            record(
                'resnet18',
                case,
                'dlbook hybridized' if hyb else 'dlbook eager',
                t,
                img_s=batch / t,
                peak_bytes=pool_bytes(),
            )
        if torch is not None:
            try:
                import torchvision

                model = torchvision.models.resnet18(num_classes=10)
            except ImportError:
                continue
            t, peak = _train_torch(
                model, (3, size, size), 10, batch, a, optimizer
            )
            record(
                'resnet18',
                case,
                'torch eager',
                t,
                img_s=batch / t,
                peak_bytes=peak,
            )


def bench_small(a):
    batch = 8 if a.smoke else 256
    net = lenet()
    for hyb in (False, True):
        t = _train_dlbook(net, (1, 28, 28), 10, batch, a, hyb)
        record(
            'small',
            f'LeNet batch {batch}',
            'dlbook hybridized' if hyb else 'dlbook eager',
            t,
            img_s=batch / t,
        )
    if torch is not None:
        F = torch.nn
        model = F.Sequential(
            F.Conv2d(1, 6, 5, padding=2),
            F.Sigmoid(),
            F.AvgPool2d(2, 2),
            F.Conv2d(6, 16, 5),
            F.Sigmoid(),
            F.AvgPool2d(2, 2),
            F.Flatten(),
            F.Linear(400, 120),
            F.Sigmoid(),
            F.Linear(120, 84),
            F.Sigmoid(),
            F.Linear(84, 10),
        )
        t, _ = _train_torch(model, (1, 28, 28), 10, batch, a)
        record(
            'small', f'LeNet batch {batch}', 'torch eager', t, img_s=batch / t
        )
    steps, hidden, vocab, bsz = (
        (5, 16, 28, 4) if a.smoke else (35, 256, 28, 32)
    )
    for cell in ('LSTM', 'GRU'):
        case = f'{cell} {hidden} x {steps} steps batch {bsz}'
        step = lstm_step(CTX, steps, hidden, vocab, bsz, cell)
        record(
            'small',
            case,
            'dlbook eager',
            median_time(step, dsync, a.warmup, a.repeat),
        )
        if torch is not None:
            t = _torch_rnn(cell, steps, hidden, vocab, bsz, a)
            record('small', case, 'torch eager', t)


def _torch_rnn(cell, steps, hidden, vocab, bsz, a):
    """The same language-model step in PyTorch (``cell``: LSTM or GRU)."""
    layer = getattr(torch.nn, cell)(vocab, hidden).to(tdev())
    lin = torch.nn.Linear(hidden, vocab).to(tdev())
    opt = torch.optim.SGD(
        list(layer.parameters()) + list(lin.parameters()), lr=1.0
    )
    tX = torch.rand(steps, bsz, vocab, device=tdev())
    ty = (torch.arange(steps, device=tdev()) % vocab).repeat_interleave(bsz)

    def tstep():
        opt.zero_grad(set_to_none=True)
        out, _ = layer(tX)
        l = torch.nn.functional.cross_entropy(lin(out).reshape(-1, vocab), ty)
        l.backward()
        torch.nn.utils.clip_grad_value_(layer.parameters(), 1.0)
        opt.step()

    return median_time(tstep, tsync, a.warmup, a.repeat)


SECTIONS = {
    'overhead': bench_overhead,
    'gemm': bench_gemm,
    'conv': bench_conv,
    'small': bench_small,
    'resnet18': bench_resnet18,
}


def write_table():
    lines = [
        f'dlbook convolutions: {cudnn.status()}',
        '',
        '| section | case | who | ms | img/s | TFLOP/s | peak MiB |',
        '| --- | --- | --- | --- | --- | --- | --- |',
    ]
    for r in RESULTS:
        img = f"{r['img_s']:.0f}" if r.get('img_s') else ''
        tfl = f"{r['tflops']:.1f}" if r.get('tflops') else ''
        peak = f"{r['peak_bytes'] / 2**20:.0f}" if r.get('peak_bytes') else ''
        lines.append(
            f"| {r['section']} | {r['case']} | {r['who']} | "
            f"{r['ms']:.3f} | {img} | {tfl} | {peak} |"
        )
    with open(os.path.join(OUT, 'bench.md'), 'w') as f:
        f.write('\n'.join(lines) + '\n')


def main():
    global OUT
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--out', default='.')
    p.add_argument('--sections', default=','.join(SECTIONS))
    p.add_argument('--warmup', type=int, default=10)
    p.add_argument('--repeat', type=int, default=50)
    p.add_argument('--smoke', action='store_true')
    a = p.parse_args()
    if a.smoke:
        a.warmup, a.repeat = 1, 2
    OUT = a.out
    os.makedirs(OUT, exist_ok=True)
    CTX.backend  # fail early with the reason
    warm_up(1.0 if not a.smoke else 0.01)
    # full float32 on both sides (torch's cuDNN defaults to TF32, CuPy's
    # cuBLAS to float32); only the gemm section's tf32=True rows use TF32
    set_tf32(False)
    for name in a.sections.split(','):
        try:
            SECTIONS[name](a)
        except Exception as exc:  # keep the other sections
            record(name, 'failed', f'{type(exc).__name__}: {exc}'[:200], 0.0)
        write_table()
    return 0


if __name__ == '__main__':
    sys.exit(main())
