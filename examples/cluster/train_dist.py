"""Data-parallel training with a distributed kvstore: the script every
worker runs.

    python -m dlbook.launch -n 2 python examples/cluster/train_dist.py
    python -m dlbook.launch -n 2 python examples/cluster/train_dist.py \
        --kv-store dist_async        # the launcher adds a server process

Each worker reads its own part of the data (``SplitSampler`` with
``num_parts=kv.num_workers, part_index=kv.rank``, as in MXNet's
example/distributed_training), computes gradients on its batch, and the
kvstore sums them over the workers.  With n workers and batch size b per
worker this trains like one process with batch n * b, so the learning
rate is set for ``n * b`` and ``trainer.step`` gets the global batch.
The data is synthetic (two interleaved spirals), so nothing is
downloaded.
"""

import argparse
import time

import numpy as np

import dlbook as mx
from dlbook import autograd, gluon


class SplitSampler(gluon.data.sampler.Sampler):
    """Shuffled indices of part ``part_index`` of ``num_parts`` equal
    parts of ``length`` examples (a new order every epoch)."""

    def __init__(self, length, num_parts=1, part_index=0, seed=0):
        self.part_len = length // num_parts
        self.start = self.part_len * part_index
        self.rng = np.random.default_rng(seed + part_index)

    def __iter__(self):
        idx = np.arange(self.start, self.start + self.part_len)
        self.rng.shuffle(idx)
        return iter(idx.tolist())

    def __len__(self):
        return self.part_len


def spirals(n, seed=0):
    """``n`` points of two spirals in 2-D with labels 0/1."""
    rng = np.random.default_rng(seed)
    t = rng.uniform(0.5, 3 * np.pi, n)
    label = rng.integers(0, 2, n)
    r = t / (3 * np.pi)
    angle = t + np.pi * label
    X = np.stack([r * np.cos(angle), r * np.sin(angle)], 1)
    X += rng.normal(scale=0.02, size=X.shape)
    return X.astype(np.float32), label.astype(np.float32)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--kv-store', default='dist_sync')
    p.add_argument('--batch-size', type=int, default=32, help='per worker')
    p.add_argument('--epochs', type=int, default=5)
    p.add_argument('--lr', type=float, default=0.1)
    p.add_argument('--num-examples', type=int, default=4096)
    p.add_argument(
        '--gpus', type=int, default=0, help='GPUs per worker (0: CPU)'
    )
    args = p.parse_args()

    kv = mx.kv.create(args.kv_store)
    ctx = [mx.gpu(i) for i in range(args.gpus)] or [mx.cpu()]
    X, y = spirals(args.num_examples)
    train = gluon.data.ArrayDataset(X, y)
    sampler = SplitSampler(len(train), kv.num_workers, kv.rank)
    loader = gluon.data.DataLoader(
        train,
        batch_size=args.batch_size,
        sampler=sampler,
        last_batch='discard',
    )

    net = gluon.nn.HybridSequential()
    net.add(
        gluon.nn.Dense(64, activation='relu', in_units=2),
        gluon.nn.Dense(64, activation='relu', in_units=64),
        gluon.nn.Dense(2, in_units=64),
    )
    mx.random.seed(42)  # every worker starts from the same net
    net.initialize(mx.init.Xavier(), ctx=ctx)
    net.hybridize()
    trainer = gluon.Trainer(
        net.collect_params(),
        'adam',
        {'learning_rate': args.lr / 10},
        kvstore=kv,
    )
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    global_batch = args.batch_size * kv.num_workers
    metric = mx.metric.Accuracy()
    for epoch in range(args.epochs):
        tic = time.time()
        metric.reset()
        for data, label in loader:
            xs = gluon.utils.split_and_load(data, ctx)
            ys = gluon.utils.split_and_load(label, ctx)
            with autograd.record():
                outs = [net(x) for x in xs]
                losses = [loss_fn(o, t) for o, t in zip(outs, ys)]
            for l in losses:
                l.backward()
            trainer.step(global_batch)
            metric.update(ys, outs)
        name, acc = metric.get()
        print(
            f'[worker {kv.rank}/{kv.num_workers}] epoch {epoch} '
            f'{name}={acc:.3f} time={time.time() - tic:.2f}s',
            flush=True,
        )
    kv.barrier()
    if kv.rank == 0:
        print(
            f'RESULT accuracy={acc:.4f} workers={kv.num_workers}', flush=True
        )


if __name__ == '__main__':
    main()
