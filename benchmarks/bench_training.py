"""Training-step throughput: dlbook against PyTorch CPU, same process.

Models (random data, SGD with momentum):

* MLP 784-256-256-10, batch 256;
* the classic two-conv LeNet (conv 20@5x5 - pool - conv 50@5x5 - pool -
  dense 500 - dense 10), batch 128, eager and hybridized.
* LeNet-5 on CIFAR-sized 3x32x32 images (conv 6@5x5 - pool - conv
  16@5x5 - pool - dense 120 - 84 - 10), batch 512: a training step and
  inference (forward only, PyTorch under ``no_grad`` in eval mode);
* chapter 9's small ResNet (BatchNorm after every convolution) on
  1x32x32 images, batch 256;
* d2l's LeNet of chapter 8 (sigmoid activations, average pooling; the
  first CNN the course trains) on 1x28x28 images, batch 256.

One step = forward, loss, backward, optimizer update.  Also reports the
wall time of one real MNIST epoch of the LeNet (60,000 images through the
DataLoader) when the data set is available (``$DLBOOK_DATA``).

Chapter 9's ResNet is timed once more in a fresh process with glibc's
default ``malloc`` settings (``DLBOOK_HOST_MALLOC=system``), to show what
dlbook's allocator tuning (``dlbook/backend/host_memory.py``) is worth.

Run: ``python benchmarks/bench_training.py`` (writes benchmarks/RESULTS.md).
"""

import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import dlbook as mx  # noqa: E402
from benchmarks import mxnet_workloads  # noqa: E402
from benchmarks.common import (  # noqa: E402
    fmt_ms,
    load_average,
    sgemm_probe,
    table,
    taking_turns,
    try_torch,
    write_section,
)
from dlbook import autograd, gluon, nd  # noqa: E402
from dlbook.gluon import nn  # noqa: E402
from dlbook.ops import fastpath  # noqa: E402

STEPS = 20
REPEAT = 7


# The MLP, LeNet and LeNet-5 are written once, for dlbook and MXNet alike
# (``bench_mxnet.py`` runs the same definitions with MXNet 1.9.1).
mxnet_workloads.use('dlbook')
dlbook_mlp = mxnet_workloads.mlp
dlbook_lenet = mxnet_workloads.lenet
dlbook_lenet5 = mxnet_workloads.lenet5
dlbook_d2l_lenet = mxnet_workloads.d2l_lenet


def dlbook_resnet():
    """Chapter 9's ResNet for 1x32x32 images: a 7x7 stem with BatchNorm
    and 3x3 max pooling, four stages of two residual blocks (8, 16, 32,
    64 channels), global average pooling, dense 10."""
    from dlbook import book as d2l

    net = nn.HybridSequential()
    net.add(
        nn.Conv2D(8, kernel_size=7, strides=2, padding=3),
        nn.BatchNorm(),
        nn.Activation('relu'),
        nn.MaxPool2D(pool_size=3, strides=2, padding=1),
    )
    net.add(
        d2l.resnet_block(8, 2, first_block=True),
        d2l.resnet_block(16, 2),
        d2l.resnet_block(32, 2),
        d2l.resnet_block(64, 2),
    )
    net.add(nn.GlobalAvgPool2D(), nn.Dense(10))
    return net


def torch_resnet(tnn):
    """The same ResNet in PyTorch."""

    class Residual(tnn.Module):
        def __init__(self, c_in, c_out, stride):
            super().__init__()
            self.conv1 = tnn.Conv2d(c_in, c_out, 3, stride, 1)
            self.bn1 = tnn.BatchNorm2d(c_out)
            self.conv2 = tnn.Conv2d(c_out, c_out, 3, 1, 1)
            self.bn2 = tnn.BatchNorm2d(c_out)
            self.conv3 = (
                tnn.Conv2d(c_in, c_out, 1, stride) if stride != 1 else None
            )

        def forward(self, x):
            y = tnn.functional.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            shortcut = x if self.conv3 is None else self.conv3(x)
            return tnn.functional.relu(y + shortcut)

    layers = [
        tnn.Conv2d(1, 8, 7, 2, 3),
        tnn.BatchNorm2d(8),
        tnn.ReLU(),
        tnn.MaxPool2d(3, 2, 1),
    ]
    c_in = 8
    for stage, channels in enumerate((8, 16, 32, 64)):
        stride = 1 if stage == 0 else 2
        layers += [
            Residual(c_in, channels, stride),
            Residual(channels, channels, 1),
        ]
        c_in = channels
    layers += [tnn.AdaptiveAvgPool2d(1), tnn.Flatten(), tnn.Linear(64, 10)]
    return tnn.Sequential(*layers)


def dlbook_step(net, x_np, y_np, hybridize=False, inference=False):
    """One training step of ``net`` (or its forward only, ``inference``)
    as a function of no arguments."""
    net.initialize(mx.init.Xavier())
    if hybridize:
        net.hybridize()
    if inference:
        x = nd.array(x_np)
        return lambda: net(x).wait_to_read()
    trainer = gluon.Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.01, 'momentum': 0.9}
    )
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    x, y = nd.array(x_np), nd.array(y_np)

    def step():
        with autograd.record():
            l = loss(net(x), y)
        l.backward()
        trainer.step(x.shape[0])
        l.wait_to_read()

    return step


def torch_step(torch, kind, x_np, y_np, inference=False):
    """The same step in PyTorch, as a function of no arguments."""
    tnn = torch.nn
    if kind == 'mlp':
        net = tnn.Sequential(
            tnn.Flatten(),
            tnn.Linear(784, 256),
            tnn.ReLU(),
            tnn.Linear(256, 256),
            tnn.ReLU(),
            tnn.Linear(256, 10),
        )
    elif kind == 'resnet':
        net = torch_resnet(tnn)
    elif kind == 'd2l':
        net = tnn.Sequential(
            tnn.Conv2d(1, 6, 5, padding=2),
            tnn.Sigmoid(),
            tnn.AvgPool2d(2, 2),
            tnn.Conv2d(6, 16, 5),
            tnn.Sigmoid(),
            tnn.AvgPool2d(2, 2),
            tnn.Flatten(),
            tnn.Linear(400, 120),
            tnn.Sigmoid(),
            tnn.Linear(120, 84),
            tnn.Sigmoid(),
            tnn.Linear(84, 10),
        )
    elif kind == 'lenet5':
        net = tnn.Sequential(
            tnn.Conv2d(3, 6, 5),
            tnn.ReLU(),
            tnn.MaxPool2d(2, 2),
            tnn.Conv2d(6, 16, 5),
            tnn.ReLU(),
            tnn.MaxPool2d(2, 2),
            tnn.Flatten(),
            tnn.Linear(400, 120),
            tnn.ReLU(),
            tnn.Linear(120, 84),
            tnn.ReLU(),
            tnn.Linear(84, 10),
        )
    else:
        net = tnn.Sequential(
            tnn.Conv2d(1, 20, 5),
            tnn.ReLU(),
            tnn.MaxPool2d(2, 2),
            tnn.Conv2d(20, 50, 5),
            tnn.ReLU(),
            tnn.MaxPool2d(2, 2),
            tnn.Flatten(),
            tnn.Linear(800, 500),
            tnn.ReLU(),
            tnn.Linear(500, 10),
        )
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    loss = tnn.CrossEntropyLoss(reduction='sum')
    x = torch.from_numpy(x_np)
    y = torch.from_numpy(y_np.astype(np.int64))

    def step():
        opt.zero_grad()
        loss(net(x), y).backward()
        opt.step()

    if inference:
        net.eval()

        def step():
            with torch.no_grad():
                net(x)

    return step


def mnist_epoch():
    """Wall time of one LeNet epoch on real MNIST, or None without data."""
    try:
        from dlbook.gluon.data.vision import MNIST, transforms

        train = MNIST(train=True)
    except Exception:  # data not available offline
        return None
    loader = gluon.data.DataLoader(
        train.transform_first(transforms.ToTensor()),
        batch_size=128,
        shuffle=True,
    )
    net = dlbook_lenet()
    net.initialize(mx.init.Xavier())
    net.hybridize()
    trainer = gluon.Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.05, 'momentum': 0.9}
    )
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    start = time.perf_counter()
    for X, y in loader:
        with autograd.record():
            l = loss(net(X), y)
        l.backward()
        trainer.step(X.shape[0])
    nd.waitall()
    return time.perf_counter() - start


MODELS = {
    'mlp': ('MLP 784-256-256-10', 256, False),
    'lenet': ('LeNet', 128, False),
    'lenet-hybrid': ('LeNet (hybridized)', 128, True),
    'lenet-reference': (
        'LeNet, reference conv/pool (`DLBOOK_FAST_OPS=0`)',
        128,
        False,
    ),
    'lenet5': ('LeNet-5 on 3×32×32 (CIFAR-sized)', 512, False),
    'lenet5-inference': (
        'LeNet-5 on 3×32×32, inference (forward only)',
        512,
        False,
    ),
    'resnet': ('ResNet of chapter 9 (BatchNorm) on 1×32×32', 256, False),
    'd2l': (
        "d2l's LeNet of chapter 8 (sigmoid, average pooling) on 1×28×28",
        256,
        False,
    ),
}


def time_model(key, torch):
    """(dlbook, PyTorch or None) seconds per step for one MODELS entry:
    the best of ``REPEAT`` rounds of ``STEPS // 4`` steps, the two
    libraries taking turns."""
    mx.random.seed(0)
    rng = np.random.RandomState(0)
    _, batch, hybridize = MODELS[key]
    kind = key.split('-')[0]
    inference = key.endswith('-inference')
    image = {'lenet5': (3, 32, 32), 'resnet': (1, 32, 32)}.get(
        kind, (1, 28, 28)
    )
    x = rng.rand(batch, *image).astype(np.float32)
    y = rng.randint(0, 10, batch).astype(np.float32)
    build = {
        'mlp': dlbook_mlp,
        'lenet': dlbook_lenet,
        'lenet5': dlbook_lenet5,
        'resnet': dlbook_resnet,
        'd2l': dlbook_d2l_lenet,
    }
    fast = not key.endswith('-reference')
    step = dlbook_step(build[kind](), x, y, hybridize, inference)

    def ours():
        with fastpath.use(fast):
            step()

    calls = {'dlbook': ours}
    if torch:
        calls['torch'] = torch_step(torch, kind, x, y, inference)
    times = taking_turns(calls, rounds=REPEAT, number=STEPS // 4)
    return min(times['dlbook']), min(times['torch']) if torch else None


def time_in_fresh_process(key, **env):
    """time_model in a new interpreter with extra environment variables."""
    out = subprocess.run(
        [sys.executable, os.path.abspath(__file__), '--one', key],
        env=dict(os.environ, **env),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def row(name, batch, ours, theirs):
    return (
        name,
        batch,
        fmt_ms(ours),
        fmt_ms(theirs) if theirs else 'n/a',
        f'{ours / theirs:.2f}×' if theirs else 'n/a',
    )


def main():
    if sys.argv[1:2] == ['--one']:
        print(json.dumps(time_model(sys.argv[2], try_torch())))
        return
    torch = try_torch()
    load_before, speed_before = load_average(), sgemm_probe()
    rows = []
    for key, (name, batch, _) in MODELS.items():
        rows.append(row(name, batch, *time_model(key, torch)))
    name, batch, _ = MODELS['resnet']
    rows.append(
        row(
            name + ', glibc malloc defaults',
            batch,
            *time_in_fresh_process('resnet', DLBOOK_HOST_MALLOC='system'),
        )
    )
    load_after, speed_after = load_average(), sgemm_probe()
    body = (
        'Time per training step (forward, loss, backward, SGD '
        f'momentum update; the inference row: forward only), wall clock, '
        f'best of {REPEAT} rounds of {STEPS // 4} steps, dlbook and '
        'PyTorch taking turns; load average before '
        f'{load_before}, after {load_after}; one-thread 1024³ sgemm '
        f'before {speed_before}, after {speed_after} (about 14 ms on a '
        'quiet machine: more means neighbours slowed it). '
        'The last row runs in a fresh process with glibc\'s default '
        '`malloc` settings, which both libraries then share '
        '(`DLBOOK_HOST_MALLOC=system`):\n\n'
        + table(
            ('model', 'batch', 'dlbook', 'PyTorch CPU', 'dlbook / PyTorch'),
            rows,
        )
    )
    epoch_load, epoch_speed = load_average(), sgemm_probe()
    epoch = mnist_epoch()
    if epoch is not None:
        body += (
            f'\n\nOne real MNIST epoch of the hybridized LeNet '
            f'(60,000 images, batch 128, DataLoader with ToTensor, '
            f'num_workers=0): **{epoch:.1f} s** (load average before '
            f'{epoch_load}, after {load_average()}; sgemm before '
            f'{epoch_speed}, after {sgemm_probe()}).'
        )
    write_section(
        'training',
        'Training throughput (`benchmarks/bench_training.py`)',
        body,
    )


if __name__ == '__main__':
    main()
