"""All-reduce of 4 MiB of float32: ``kv.pushpull`` on a dist_sync store
against raw ``mpi4py`` ``Allreduce``.

    python -m dlbook.launch -n 2 python benchmarks/bench_dist.py

Rank 0 prints one line per method: the median time of one all-reduce.
The store adds its own work on top of MPI: the per-call agreement check
(one 8-byte Allgather), summing into a fresh array and copying back.
"""
import argparse
import time

import numpy as np


def median_ms(fn, repeat):
    fn()                                  # warm up
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return 1e3 * float(np.median(times))


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--mib', type=float, default=4)
    p.add_argument('--repeat', type=int, default=10)
    args = p.parse_args()
    import dlbook as mx
    from mpi4py import MPI
    kv = mx.kv.create('dist_sync')
    comm = MPI.COMM_WORLD
    n = int(args.mib * 2 ** 20 / 4)
    a = np.ones(n, np.float32)
    out = np.empty_like(a)
    grad = mx.nd.ones((n,))
    kv.init(0, mx.nd.zeros((n,)))

    def raw():
        comm.Allreduce(a, out)

    def store():
        kv.pushpull(0, grad, out=grad)

    results = {'mpi4py Allreduce': median_ms(raw, args.repeat),
               'kv.pushpull': median_ms(store, args.repeat)}
    if kv.rank == 0:
        for name, ms in results.items():
            print(f'{name:18s} {args.mib:g} MiB float32, '
                  f'{kv.num_workers} ranks: {ms:7.2f} ms', flush=True)


if __name__ == '__main__':
    main()
