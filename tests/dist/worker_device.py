"""Run by test_dist.py under ``mpiexec -n 2`` with fake GPUs
(``DLBOOK_FAKE_GPUS=2``), and by benchmarks/gpu/run_all.sh on real ones:
``dist_device_sync`` with keys on ``gpu(rank)`` (``same``: every rank on
``gpu(0)``); prints the values and the fake NCCL's log of calls.
``check``: read those lines from stdin and check the values."""
import json
import sys

import numpy as np

import dlbook as mx


EXPECTED = {'init': [10.0] * 4, 'push_sum': [3.0] * 4, 'devices': [4.0] * 4,
            'pushpull': [3.0] * 4, 'f16': [1.5, 4.5, -6.0],
            'f64': [1.5, 4.5, -6.0], 'i32': [0, 3, -6],
            '2bit': [0.0, 1.0, -1.0, 1.0]}


def check(text):
    """Check the RESULT lines of a run (MXNet's dist_sync values); print
    the path each rank took."""
    decoder, ranks = json.JSONDecoder(), []
    start = text.find('RESULT ')
    while start >= 0:       # the ranks' lines may share one line of output
        obj, end = decoder.raw_decode(text, start + len('RESULT '))
        ranks.append(obj)
        start = text.find('RESULT ', end)
    assert len(ranks) == 2, text
    for r in ranks:
        for name, want in EXPECTED.items():
            assert r[name] == want, (r['rank'], name, r[name], want)
        assert np.allclose(r['sgd'], 0.7), r['sgd']
        print(f"rank {r['rank']}: values as expected; NCCL keys: "
              f"{r['nccl_keys'] or 'none (host-staged MPI)'}")


def strict():
    """The fake NCCL refuses what real NCCL could not use."""
    kv = mx.kv.create('dist_device_sync')
    r = kv.rank
    xp = mx.gpu(r).xp
    nccl = xp.cuda.nccl
    uid = nccl.get_unique_id() if r == 0 else None
    from mpi4py import MPI
    uid = MPI.COMM_WORLD.bcast(uid, root=0)
    with xp.cuda.Device(r):
        comm = nccl.NcclCommunicator(2, uid, r)
    x = xp.ones(4, dtype='float32')
    host = np.ones(4, np.float32)
    errors = {}
    cases = {
        'host_pointer': lambda: comm.allReduce(
            host.ctypes.data, host.ctypes.data, 4, nccl.NCCL_FLOAT32,
            nccl.NCCL_SUM, 0),
        'count': lambda: comm.allReduce(x.data.ptr, x.data.ptr, 5,
                                        nccl.NCCL_FLOAT32, nccl.NCCL_SUM, 0),
        'dtype': lambda: comm.allReduce(x.data.ptr, x.data.ptr, 2,
                                        nccl.NCCL_FLOAT64, nccl.NCCL_SUM, 0),
        'stream': lambda: comm.allReduce(
            x.data.ptr, x.data.ptr, 4, nccl.NCCL_FLOAT32, nccl.NCCL_SUM,
            xp.cuda.get_current_stream()),
        'device': lambda: comm.allReduce(x.data.ptr, x.data.ptr, 4,
                                         nccl.NCCL_FLOAT32, nccl.NCCL_SUM,
                                         0),      # outside Device(r)
    }
    for name, call in cases.items():
        try:
            if name == 'device':
                with xp.cuda.Device(1 - r):
                    call()
            else:
                with xp.cuda.Device(r):
                    call()
            errors[name] = None
        except Exception as e:      # noqa: BLE001
            errors[name] = f'{type(e).__name__}: {e}'
    with xp.cuda.Device(r):
        comm.allReduce(x.data.ptr, x.data.ptr, 4, nccl.NCCL_FLOAT32,
                       nccl.NCCL_SUM, 0)
    print('RESULT ' + json.dumps({'rank': r, 'errors': errors,
                                  'sum': x.get().tolist()}), flush=True)


def main(where):
    kv = mx.kv.create('dist_device_sync')
    r = kv.rank
    ctx = mx.gpu(0 if where == 'same' else r)
    out = {'rank': r}
    a = mx.nd.zeros(4, ctx=ctx)
    kv.init('k', mx.nd.ones(4, ctx=ctx) * 10 * (r + 1))
    kv.pull('k', out=a)
    out['init'] = a.asnumpy().tolist()
    kv.push('k', mx.nd.ones(4, ctx=ctx) * (r + 1))
    kv.pull('k', out=a)
    out['push_sum'] = a.asnumpy().tolist()
    # two devices per worker: summed on this worker's GPU first
    other = mx.gpu(min(1, mx.context.num_gpus() - 1))
    kv.push('k', [mx.nd.ones(4, ctx=mx.gpu(0)), mx.nd.ones(4, ctx=other)])
    kv.pull('k', out=a)
    out['devices'] = a.asnumpy().tolist()
    b = mx.nd.ones(4, ctx=ctx) * (r + 1)
    kv.pushpull('k', b)
    out['pushpull'] = b.asnumpy().tolist()
    # other dtypes: NCCL's half, int32, double
    for name, dtype in (('f16', np.float16), ('i32', np.int32),
                        ('f64', np.float64)):
        kv.init(name, mx.nd.zeros(3, ctx=ctx, dtype=dtype))
        v = mx.nd.array([0.5, 1.5, -2.0], ctx=ctx, dtype=dtype) * (r + 1)
        kv.pushpull(name, v)
        out[name] = v.asnumpy().tolist()
    # an optimizer on the store (update on kvstore)
    kv2 = mx.kv.create('dist_device_sync')
    kv2.set_optimizer(mx.optimizer.SGD(learning_rate=0.1))
    kv2.init(3, mx.nd.ones((2, 3), ctx=ctx))
    kv2.push(3, mx.nd.ones((2, 3), ctx=ctx) * (r + 1))
    w = mx.nd.zeros((2, 3), ctx=ctx)
    kv2.pull(3, out=w)
    out['sgd'] = w.asnumpy().tolist()
    # 2-bit compression: host path even for GPU keys
    kv2.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
    kv2.init(4, mx.nd.zeros(4, ctx=ctx))
    kv2.set_optimizer(mx.optimizer.SGD(learning_rate=1.0,
                                       rescale_grad=-1.0))
    kv2.push(4, mx.nd.array([0.3, 0.7, -0.9, 1.6], ctx=ctx))
    kv2.pull(4, out=a)
    out['2bit'] = a.asnumpy().tolist()
    out['nccl_keys'] = sorted(map(str, kv._nccl_keys)) + \
        sorted(map(str, kv2._nccl_keys))
    # the fake NCCL's log (real CuPy keeps none)
    calls = getattr(getattr(ctx.xp.cuda, 'nccl', None), 'calls', [])
    out['calls'] = [list(c) for c in calls]
    print('RESULT ' + json.dumps(out), flush=True)


if __name__ == '__main__':
    if sys.argv[1:] == ['strict']:
        strict()
    elif sys.argv[1:] == ['check']:
        check(sys.stdin.read())
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else 'own')
