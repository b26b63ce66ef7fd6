"""Run by test_dist.py under ``mpiexec -n 2``: the semantics table of
MXNet 1.9.1's dist_sync store; each rank prints one JSON line."""
import json
import sys

import dlbook as mx


class _AddOptimizer(mx.optimizer.Optimizer):
    """MXNet's ``'test'`` optimizer: ``w += rescale_grad * g``."""

    def create_state(self, index, weight):
        return None

    def update(self, index, weight, grad, state):
        weight[:] = weight + self.rescale_grad * grad


def main(name):
    kv = mx.kv.create(name)
    r = kv.rank
    out = {'rank': r, 'num_workers': kv.num_workers, 'type': kv.type}
    shape = (4,)
    a = mx.nd.zeros(shape)
    kv.init('k', mx.nd.ones(shape) * 10 * (r + 1))
    kv.pull('k', out=a)
    out['init'] = a.asnumpy().tolist()
    kv.push('k', mx.nd.ones(shape) * (r + 1))
    kv.pull('k', out=a)
    out['push_sum'] = a.asnumpy().tolist()
    kv.push('k', [mx.nd.ones(shape, ctx=mx.cpu(0)),
                  mx.nd.ones(shape, ctx=mx.cpu(1))])
    kv.pull('k', out=a)
    out['devices'] = a.asnumpy().tolist()
    kv.barrier()
    b = mx.nd.ones(shape) * (r + 1)
    kv.pushpull('k', b)
    out['pushpull'] = b.asnumpy().tolist()
    b[:] = -1                   # the store keeps its own copy of the sum
    kv.pull('k', out=a)
    out['pull_after_pushpull'] = a.asnumpy().tolist()
    c = mx.nd.zeros(shape)
    kv.pushpull('k', mx.nd.ones(shape) * (r + 1), out=c)
    out['pushpull_out'] = c.asnumpy().tolist()

    kv2 = mx.kv.create(name)
    kv2.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
    kv2.init(0, mx.nd.zeros(shape))
    kv2.push(0, mx.nd.array([0.3, 0.7, -0.9, 1.6]))
    kv2.pull(0, out=a)
    out['2bit'] = a.asnumpy().tolist()
    kv2.init(1, mx.nd.ones(shape))
    kv2.set_optimizer(mx.optimizer.SGD(learning_rate=0.1))
    kv2.push(1, mx.nd.ones(shape) * (r + 1))
    kv2.pull(1, out=a)
    out['2bit_sgd'] = a.asnumpy().tolist()

    kv3 = mx.kv.create(name)
    kv3.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
    kv3.set_optimizer(_AddOptimizer(rescale_grad=2))
    kv3.init(7, mx.nd.zeros(shape))
    seq = []
    for g in (0.4, 0.1, 0.2, 0.3, 0.3, 0.3):
        kv3.push(7, mx.nd.ones(shape) * g)
        kv3.pull(7, out=a)
        seq.append(a.asnumpy().tolist())
    out['2bit_seq'] = seq
    print('RESULT ' + json.dumps(out), flush=True)


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else 'dist_sync')
