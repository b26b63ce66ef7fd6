"""Workloads written once for MXNet 1.x and dlbook (``import ... as mx``).

``benchmarks/bench_mxnet.py`` runs this file in two interpreters, one
with MXNet 1.9.1 installed and one with dlbook, in alternating rounds:
the code below is the same for both, which is the point of dlbook.
Run as ``python mxnet_workloads.py mxnet|dlbook ROUNDS``; prints one
JSON object ``{workload: [seconds, ...]}``.

Only NumPy and the framework are imported here (no dlbook helpers), so
the file runs unchanged with MXNet.
"""

import importlib
import json
import sys
import time

import numpy as np

#: The library under test (set by :func:`use`): ``mxnet`` or ``dlbook``.
mx = autograd = gluon = nd = nn = None


def use(library):
    """Import ``library`` as ``mx`` for the workloads below."""
    global mx, autograd, gluon, nd, nn
    mx = importlib.import_module(library)
    autograd, gluon, nd = mx.autograd, mx.gluon, mx.nd
    nn = gluon.nn


def lenet():
    """The classic LeNet of MXNet's examples (20@5x5, pool, 50@5x5, pool,
    500, 10; ReLU)."""
    net = nn.HybridSequential()
    net.add(
        nn.Conv2D(20, kernel_size=5, activation='relu'),
        nn.MaxPool2D(pool_size=2, strides=2),
        nn.Conv2D(50, kernel_size=5, activation='relu'),
        nn.MaxPool2D(pool_size=2, strides=2),
        nn.Dense(500, activation='relu'),
        nn.Dense(10),
    )
    return net


def lenet5():
    """LeNet-5 for CIFAR-sized 3x32x32 images (6@5x5, pool, 16@5x5, pool,
    120, 84, 10; ReLU)."""
    net = nn.HybridSequential()
    net.add(
        nn.Conv2D(6, kernel_size=5, activation='relu'),
        nn.MaxPool2D(pool_size=2, strides=2),
        nn.Conv2D(16, kernel_size=5, activation='relu'),
        nn.MaxPool2D(pool_size=2, strides=2),
        nn.Dense(120, activation='relu'),
        nn.Dense(84, activation='relu'),
        nn.Dense(10),
    )
    return net


def d2l_lenet():
    """d2l's LeNet, as chapter 8 trains it on Fashion-MNIST (6@5x5 pad 2,
    avg pool, 16@5x5, avg pool, 120, 84, 10; sigmoid)."""
    net = nn.HybridSequential()
    net.add(
        nn.Conv2D(6, kernel_size=5, padding=2, activation='sigmoid'),
        nn.AvgPool2D(pool_size=2, strides=2),
        nn.Conv2D(16, kernel_size=5, activation='sigmoid'),
        nn.AvgPool2D(pool_size=2, strides=2),
        nn.Dense(120, activation='sigmoid'),
        nn.Dense(84, activation='sigmoid'),
        nn.Dense(10),
    )
    return net


def mlp():
    net = nn.HybridSequential()
    net.add(
        nn.Dense(256, activation='relu'),
        nn.Dense(256, activation='relu'),
        nn.Dense(10),
    )
    return net


def median_seconds(fn, steps):
    fn()  # warm up (shapes, deferred initialisation)
    fn()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def training_step(make, shape, batch, hybridize=False):
    net = make()
    net.initialize(mx.init.Xavier())
    if hybridize:
        net.hybridize()
    trainer = gluon.Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.01, 'momentum': 0.9}
    )
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    rng = np.random.RandomState(0)
    x = nd.array(rng.standard_normal((batch,) + shape).astype('float32'))
    y = nd.array(rng.randint(0, 10, batch).astype('float32'))

    def step():
        with autograd.record():
            out = loss(net(x), y)
        out.backward()
        trainer.step(batch)
        out.wait_to_read()

    return step


def inference(make, shape, batch):
    net = make()
    net.initialize(mx.init.Xavier())
    x = nd.array(
        np.random.RandomState(0).standard_normal((batch,) + shape),
        dtype='float32',
    )
    return lambda: net(x).wait_to_read()


def conv_layer():
    """conv 3 -> 32, 3x3, pad 1 on 64x3x32x32: forward and all gradients."""
    rng = np.random.RandomState(0)
    x = nd.array(rng.uniform(-1, 1, (64, 3, 32, 32)))
    w = nd.array(rng.uniform(-1, 1, (32, 3, 3, 3)))
    b = nd.zeros(32)
    for a in (x, w, b):
        a.attach_grad()

    def step():
        with autograd.record():
            y = nd.Convolution(
                x, w, b, kernel=(3, 3), pad=(1, 1), num_filter=32
            )
        y.backward()
        x.grad.wait_to_read()

    return step


def eager_add():
    """``a + b`` on 16x16, 1,000 times (per-op overhead)."""
    a, b = nd.ones((16, 16)), nd.ones((16, 16))

    def loop():
        for _ in range(1000):
            c = a + b
        c.wait_to_read()

    return loop


WORKLOADS = {
    'add': (eager_add, 20),
    'conv': (conv_layer, 15),
    'mlp': (lambda: training_step(mlp, (784,), 256), 30),
    'lenet': (lambda: training_step(lenet, (1, 28, 28), 128), 10),
    'lenet_hybrid': (
        lambda: training_step(lenet, (1, 28, 28), 128, hybridize=True),
        10,
    ),
    'lenet5': (lambda: training_step(lenet5, (3, 32, 32), 512), 7),
    'lenet5_inference': (lambda: inference(lenet5, (3, 32, 32), 512), 7),
}


def main():
    use(sys.argv[1] if len(sys.argv) > 1 else 'dlbook')
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    results = {name: [] for name in WORKLOADS}
    fns = {name: make() for name, (make, _) in WORKLOADS.items()}
    for _ in range(rounds):
        for name, (_, steps) in WORKLOADS.items():
            results[name].append(median_seconds(fns[name], steps))
    print(json.dumps(results))


if __name__ == '__main__':
    main()
