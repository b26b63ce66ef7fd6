"""Run by test_dist.py under ``mpiexec -n 2``: failures must end the job
quickly with a clear message (``kill``, ``raise``, ``shape``, ``key``,
``hang``)."""
import os
import sys
import time

import dlbook as mx

kv = mx.kv.create('dist_sync')
mode = sys.argv[1]
if mode == 'shape':
    kv.init(0, mx.nd.zeros((3,) if kv.rank == 0 else (4,)))
elif mode == 'key':
    kv.init(['a', 'b'], [mx.nd.zeros(2), mx.nd.zeros(2)])
    kv.push('a' if kv.rank == 0 else 'b', mx.nd.ones(2))
elif mode == 'hang':
    kv.init(0, mx.nd.zeros(3))
    kv.pushpull(0, mx.nd.ones(3))
    if kv.rank == 1:
        time.sleep(600)         # alive, but never reaches the next push
else:
    kv.init(0, mx.nd.zeros(3))
    if kv.rank == 1:
        if mode == 'kill':
            os.kill(os.getpid(), 9)
        raise RuntimeError('failing on purpose')
for _ in range(100000):
    kv.pushpull(0, mx.nd.ones(3))
