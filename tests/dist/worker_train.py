"""Run by test_dist.py under ``mpiexec``: Gluon training on a dist store.

``equiv [update_on_kvstore]``: 2 workers with dist_sync, batch b each,
train k steps; rank 0 then trains the same model in one process on
[cpu(0), cpu(1)] with batch b per device and reports the largest weight
difference.  ``async``: linear regression with dist_async; reports the
final loss.
"""
import json
import sys

import numpy as np

import dlbook as mx
from dlbook import autograd, gluon


def data(n=64, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    w = rng.normal(size=(d, 1)).astype(np.float32)
    y = X @ w + 0.01 * rng.normal(size=(n, 1)).astype(np.float32)
    return X, y


def make_net(ctx):
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(8, activation='relu', in_units=5),
            gluon.nn.Dense(1, in_units=8))
    mx.random.seed(rank_seed)
    net.initialize(mx.init.Xavier(), ctx=ctx)
    return net


rank_seed = 0


def train(net, trainer, shards, ctxs, b, steps):
    """Each step, device/worker k takes the k-th slice of size b."""
    loss_fn = gluon.loss.L2Loss()
    X, y = data()
    for step in range(steps):
        start = (step * b * shards[1]) % len(X)
        losses = []
        with autograd.record():
            for ctx, k in zip(ctxs, shards[0]):
                lo = start + k * b
                xb = mx.nd.array(X[lo:lo + b], ctx=ctx)
                yb = mx.nd.array(y[lo:lo + b], ctx=ctx)
                losses.append(loss_fn(net(xb), yb))
        for l in losses:
            l.backward()
        trainer.step(b * shards[1])
    return net


def weights(net):
    return [p.data(p.list_ctx()[0]).asnumpy()
            for p in net.collect_params().values()]


def equiv(update_on_kvstore, optimizer='sgd', b=4, steps=5):
    global rank_seed
    kv = mx.kv.create('dist_sync')
    rank_seed = 100     # the first gradients use each worker's own init
    n = kv.num_workers
    opt = {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-3}
    net = make_net(mx.cpu())
    if optimizer == 'adam':
        opt = {'learning_rate': 0.01, 'wd': 1e-3}
    trainer = gluon.Trainer(net.collect_params(), optimizer, opt, kvstore=kv,
                            update_on_kvstore=update_on_kvstore)
    train(net, trainer, ([kv.rank], n), [mx.cpu()], b, steps)
    dist_w = weights(net)
    out = {'rank': kv.rank, 'update_on_kvstore': trainer._update_on_kvstore}
    if kv.rank == 0:
        rank_seed = 100
        ctxs = [mx.cpu(i) for i in range(n)]
        ref = make_net(ctxs)
        rt = gluon.Trainer(ref.collect_params(), optimizer, opt,
                           kvstore='device')
        train(ref, rt, (list(range(n)), n), ctxs, b, steps)
        out['max_diff'] = max(float(np.abs(a - r).max())
                              for a, r in zip(dist_w, weights(ref)))
        out['moved'] = max(float(np.abs(a).max()) for a in dist_w)
    out['w0'] = float(dist_w[0].ravel()[0])
    print('\nRESULT ' + json.dumps(out), flush=True)


def run_async(name='dist_async', steps=60, b=8):
    kv = mx.kv.create(name)
    net = gluon.nn.Dense(1, in_units=5)
    mx.random.seed(kv.rank)
    net.initialize(mx.init.Zero())
    trainer = gluon.Trainer(net.collect_params(), 'sgd',
                            {'learning_rate': 0.05}, kvstore=kv)
    X, y = data()
    loss_fn = gluon.loss.L2Loss()
    for step in range(steps):
        lo = ((step * kv.num_workers + kv.rank) * b) % len(X)
        xb, yb = mx.nd.array(X[lo:lo + b]), mx.nd.array(y[lo:lo + b])
        with autograd.record():
            l = loss_fn(net(xb), yb)
        l.backward()
        trainer.step(b)
    kv.barrier()
    for p in (net.weight, net.bias) if trainer._update_on_kvstore else ():
        trainer._kvstore.pull(trainer._param2idx[id(p)], out=p.data())
    full = float(loss_fn(net(mx.nd.array(X)), mx.nd.array(y)).mean()
                 .asscalar())
    first = float(loss_fn(mx.nd.zeros((len(X), 1)), mx.nd.array(y)).mean()
                  .asscalar())
    print('\nRESULT ' + json.dumps({'rank': kv.rank, 'type': kv.type,
                                    'num_workers': kv.num_workers,
                                    'loss': full, 'loss0': first}),
          flush=True)


if __name__ == '__main__':
    mode = sys.argv[1]
    if mode == 'equiv':
        equiv({'none': None, 'true': True, 'false': False}[sys.argv[2]],
              *sys.argv[3:4])
    elif mode == 'async':
        run_async(*sys.argv[2:3])
