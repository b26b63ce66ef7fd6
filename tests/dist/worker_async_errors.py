"""Run by test_dist.py under ``dlbook.launch -n 2 -s 1``: a dist_async
job in which the server or a worker dies or hangs must end within a
bounded time, naming it (``stall_server``, ``kill_server``,
``hang_worker``, ``kill_worker``)."""
import os
import sys
import time

import dlbook as mx

mode = sys.argv[1]


@mx.optimizer.register
class ServerTrouble(mx.optimizer.Optimizer):
    """Runs on the server (update on the store): hangs or dies there."""

    def create_state(self, index, weight):
        return None

    def update(self, index, weight, grad, state):
        if mode == 'stall_server':
            time.sleep(600)
        elif mode == 'kill_server':
            os.kill(os.getpid(), 9)
        weight[:] = weight - 0.1 * grad


kv = mx.kv.create('dist_async')         # the server stays in here
if mode in ('stall_server', 'kill_server'):
    kv.set_optimizer(ServerTrouble())
else:
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1))
kv.init(0, mx.nd.zeros(3))
if kv.rank == 1 and mode == 'hang_worker':
    time.sleep(600)                 # alive, but never finishes
if kv.rank == 1 and mode == 'kill_worker':
    os.kill(os.getpid(), 9)
out = mx.nd.zeros(3)
for _ in range(20):
    kv.push(0, mx.nd.ones(3))
    kv.pull(0, out=out)
print(f'worker {kv.rank} done', flush=True)
