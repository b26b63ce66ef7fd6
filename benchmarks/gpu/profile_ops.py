"""Where a GPU training step spends its time, operator by operator.

For each workload (the slow convolution shapes of ``bench_vs_torch.py``,
ResNet-18 on 32x32 images, LeNet, an LSTM) this prints

* the step's wall time, and the host time until Python returns from the
  step before the final device synchronisation (when the two are close,
  the step is bound by Python and kernel launches, not by the GPU);
* a table of every operator's forward and backward, each timed with a
  device synchronisation before and after (so the times are the GPU's
  work plus one launch each), largest first;
* the same for the convolution helpers of ``dlbook/ops/conv_fast.py``
  and ``conv_fast_data_grad.py``.

Run from the repository root: ``python benchmarks/gpu/profile_ops.py
[--out DIR] [--only conv,resnet]``.  ``--smoke`` uses tiny sizes (fake
GPU check).
"""

import argparse
import collections
import functools
import io
import json
import os
import sys
import time

sys.path.insert(0, os.getcwd())

from workloads import (  # noqa: E402
    conv_step,
    lenet,
    lstm_step,
    resnet18_step,
    train_step,
)

import dlbook as mx  # noqa: E402
from dlbook import gluon, nd  # noqa: E402
from dlbook.ops import (  # noqa: E402
    conv_fast,
    conv_fast_data_grad,
    conv_reference,
    convolution,
    deconvolution,
)
from dlbook.ops.op import REGISTRY  # noqa: E402

CTX = mx.gpu(0)
TIMES = collections.defaultdict(float)
CALLS = collections.Counter()
_DEPTH = collections.Counter()  # nesting per group: 'op', 'conv'


def sync():
    nd.waitall()


def _timed(label, fn, group='op'):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if _DEPTH[group]:  # time the outermost call of a group only
            return fn(*args, **kwargs)
        _DEPTH[group] += 1
        sync()
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            sync()
            TIMES[label] += time.perf_counter() - start
            CALLS[label] += 1
            _DEPTH[group] -= 1

    return wrapper


#: the convolution helpers timed beside the operators: (module, name)
CONV_HELPERS = (
    (conv_fast, 'conv_forward'),
    (conv_fast, 'weight_grad'),
    (conv_fast, 'weight_grad_channels_last'),
    (conv_fast_data_grad, 'data_grad'),
    (conv_fast, 'bias_grad'),
)

#: the operator modules that call ``conv_reference.conv_data_grad`` (each
#: by its own imported name, so each is wrapped)
CONV_DATA_GRAD_CALLERS = (convolution, deconvolution)


def instrument():
    """Wrap every operator's forward/backward and the conv helpers."""
    for cls in set(REGISTRY.values()):
        for method in ('forward', 'backward'):
            fn = cls.__dict__.get(method)
            if fn is not None:
                setattr(cls, method, _timed(f'{cls.name}.{method}', fn))
    for module, name in CONV_HELPERS:
        label = f'{module.__name__.rsplit(".", 1)[-1]}.{name}'
        setattr(module, name, _timed(label, getattr(module, name), 'conv'))
    timed = _timed(
        'conv_reference.conv_data_grad', conv_reference.conv_data_grad, 'conv'
    )
    for module in CONV_DATA_GRAD_CALLERS:
        module.conv_data_grad = timed
    gluon.Trainer.step = _timed('Trainer.step', gluon.Trainer.step, 'step')


def wall(step, repeat):
    """Median wall time and median host time (before the final sync)."""
    walls, hosts = [], []
    for _ in range(repeat):
        sync()
        start = time.perf_counter()
        step()
        hosts.append(time.perf_counter() - start)
        sync()
        walls.append(time.perf_counter() - start)
    walls.sort()
    hosts.sort()
    return walls[len(walls) // 2], hosts[len(hosts) // 2]


def workloads(smoke):
    """``(name, make)`` pairs: ``make()`` builds the workload's step, so
    only the workloads ``--only`` selects are built."""
    b = 2 if smoke else 32
    big = 16 if smoke else 224
    mid = 8 if smoke else 56

    def resnet18(size, batch, hybridize=False):
        return lambda: resnet18_step(CTX, size, batch, hybridize)

    narrow = 4 if smoke else 64
    return [
        (
            'conv 3->64 k7 s2',
            lambda: conv_step(CTX, 3, 8 if smoke else 64, big, 7, 2, b),
        ),
        (
            'conv 64->128 k3 s2',
            lambda: conv_step(CTX, narrow, 8 if smoke else 128, mid, 3, 2, b),
        ),
        (
            'conv 64->64 k3 s1',
            lambda: conv_step(CTX, narrow, narrow, mid, 3, 1, b),
        ),
        ('resnet18 32x32 b128', resnet18(32, 4 if smoke else 128)),
        (
            'resnet18 32x32 b128 hybridized',
            resnet18(32, 4 if smoke else 128, hybridize=True),
        ),
        (
            'resnet18 224x224 b64',
            resnet18(32 if smoke else 224, 2 if smoke else 64),
        ),
        (
            'lenet b256',
            lambda: train_step(
                CTX, lenet(), (1, 28, 28), 10, 8 if smoke else 256
            ),
        ),
        (
            'lstm 256x35 b32',
            lambda: lstm_step(
                CTX,
                5 if smoke else 35,
                16 if smoke else 256,
                28,
                4 if smoke else 32,
            ),
        ),
    ]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--out', default='.')
    p.add_argument('--only', default='')
    p.add_argument('--repeat', type=int, default=10)
    p.add_argument('--smoke', action='store_true')
    p.add_argument(
        '--cprofile',
        type=int,
        default=0,
        help='also print the N functions with the most own time (cProfile '
        'of 3 uninstrumented steps)',
    )
    a = p.parse_args()
    repeat = 2 if a.smoke else a.repeat
    os.makedirs(a.out, exist_ok=True)
    results = []
    lines = []
    for name, make in workloads(a.smoke):
        if a.only and not any(w in name for w in a.only.split(',')):
            continue
        step = make()
        for _ in range(3):  # warm-up: kernels compiled, pool filled
            step()
        sync()
        t_wall, t_host = wall(step, repeat)
        if a.cprofile:
            lines.extend(python_profile(name, step, a.cprofile))
        instrument_once()
        TIMES.clear()
        CALLS.clear()
        step()
        sync()
        ops = sorted(TIMES.items(), key=lambda kv: -kv[1])
        uninstrument()
        results.append(
            {
                'workload': name,
                'wall_ms': t_wall * 1e3,
                'host_ms': t_host * 1e3,
                'ops': [(k, v * 1e3, CALLS[k]) for k, v in ops],
            }
        )
        lines.append(
            f'## {name}: wall {t_wall * 1e3:.2f} ms, host '
            f'{t_host * 1e3:.2f} ms, {sum(CALLS.values())} timed calls'
        )
        lines.append('| call | ms | calls |')
        lines.append('| --- | --- | --- |')
        for k, v in ops[:25]:
            lines.append(f'| {k} | {v * 1e3:.3f} | {CALLS[k]} |')
        print('\n'.join(lines[-(min(len(ops), 25) + 3) :]), flush=True)
    with open(os.path.join(a.out, 'profile.json'), 'w') as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(a.out, 'profile.md'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    return 0


def python_profile(name, step, top):
    """The ``top`` functions by own time over three steps (cProfile)."""
    import cProfile
    import pstats

    profile = cProfile.Profile()
    profile.enable()
    for _ in range(3):
        step()
    sync()
    profile.disable()
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats('tottime').print_stats(top)
    text = out.getvalue().strip().splitlines()
    print(f'## {name}: cProfile, 3 steps', *text, sep='\n', flush=True)
    return [f'## {name}: cProfile, 3 steps', '```', *text, '```']


_SAVED = {}


def instrument_once():
    """Instrument, remembering the originals so they can be put back."""
    if not _SAVED:
        for cls in set(REGISTRY.values()):
            for method in ('forward', 'backward'):
                if method in cls.__dict__:
                    _SAVED[(cls, method)] = cls.__dict__[method]
        for module, name in CONV_HELPERS:
            _SAVED[(module, name)] = getattr(module, name)
        for module in CONV_DATA_GRAD_CALLERS:
            _SAVED[(module, 'conv_data_grad')] = module.conv_data_grad
        _SAVED[(gluon.Trainer, 'step')] = gluon.Trainer.step
    instrument()


def uninstrument():
    for (owner, name), fn in _SAVED.items():
        setattr(owner, name, fn)


if __name__ == '__main__':
    sys.exit(main())
