"""The server process of a distributed job.

MXNet starts server processes with ``DMLC_ROLE=server``; they never get
past ``import mxnet``.  In dlbook the last ``DMLC_NUM_SERVER`` processes
of an MPI job are servers: their ``kv.create('dist_…')`` call enters
:func:`serve` and ends the process when every worker is done.

* ``dist_async``: the server holds every value and handles requests one
  at a time, in the order they arrive (``MPI.ANY_SOURCE``): a push is
  applied at once (optimizer update, or the pushed value replaces the
  stored one), a pull is answered with the current value.
* ``dist_sync``: the workers all-reduce among themselves, so a server has
  nothing to do but wait for them to finish.

While idle the server sleeps between polls instead of spinning, so it
costs no CPU time on a machine shared with its workers.  It waits for the
next request without a deadline (workers may compute for a long time
between pushes; a worker that hangs is named by the others when they
finish, see :func:`dlbook.kvstore.dist._stop_idle_servers`), but once a
request has started, receiving its payload and sending the answer have
the deadline ``DLBOOK_DIST_TIMEOUT``.
"""

import json
import sys
import time

import numpy

from .._atomic import atomic_write
from ..base import DLBookError
from ._collective import complete, timeout_from_env

_REQUEST, _PAYLOAD, _REPLY = 11, 12, 13


def _receive(world, status):
    """The next request, ``(source, header)``, waiting politely."""
    from mpi4py import MPI

    pause = 1e-5
    while not world.Iprobe(source=MPI.ANY_SOURCE, tag=_REQUEST, status=status):
        time.sleep(pause)
        pause = min(pause * 2, 2e-3)
    source, count = status.Get_source(), status.Get_count(MPI.BYTE)
    raw = numpy.empty(count, numpy.uint8)
    world.Recv(raw, source=source, tag=_REQUEST)
    return source, json.loads(raw.tobytes().decode())


class _Server:
    def __init__(self, world):
        self.world = world
        self.values = {}  # key -> numpy array
        self.updater = None
        self.compression = None
        self.timeout = timeout_from_env()
        self.doing = ''

    def _key(self, header):
        key = header['key']
        return key if isinstance(key, str) else int(key)

    def _complete(self, request, source, what):
        def fail():
            raise DLBookError(
                f'KVStore: the server (process {self.world.rank} of '
                f'{self.world.size}) waited {self.timeout:g} s '
                f'(DLBOOK_DIST_TIMEOUT) for worker {source} to {what} '
                f'({self.doing}): the worker is hanging or much slower '
                f'than expected'
            )

        complete(request, self.timeout, fail)

    def _payload(self, source, shape, dtype):
        buf = numpy.empty(shape, dtype)
        self._complete(
            self.world.Irecv(buf, source=source, tag=_PAYLOAD),
            source,
            'send the data of its request',
        )
        return buf

    def _send(self, source, value):
        self._complete(
            self.world.Isend(value, dest=source, tag=_REPLY),
            source,
            'receive the answer to its request',
        )

    def _ack(self, source):
        self._send(source, numpy.zeros(1, numpy.int64))

    def handle(self, source, h):
        op = h['op']
        self.doing = op + (f' of key {h["key"]!r}' if 'key' in h else '')
        if op == 'init':
            self.values[self._key(h)] = self._payload(
                source, tuple(h['shape']), numpy.dtype(h['dtype'])
            )
            self._ack(source)
        elif op in ('push', 'push2bit'):
            key = self._key(h)
            stored = self.values[key]
            if op == 'push':
                grad = self._payload(source, stored.shape, stored.dtype)
            else:
                words = self._payload(
                    source, -(-stored.size // 16), numpy.uint32
                )
                grad = self.compression.unpack(
                    words, stored.shape, stored.dtype
                )
            self._apply(key, grad)
        elif op == 'pull':
            self._send(source, self.values[self._key(h)])
        elif op == 'optimizer':
            from ..optimizer.updater import get_updater, loads_states

            raw = self._payload(source, self._size(source), numpy.uint8)
            _, optimizer = loads_states(raw.tobytes())
            self.updater = get_updater(optimizer)
            self._ack(source)
        elif op == 'compression':
            from .compression import GradientCompression

            self.compression = GradientCompression(h['threshold'])
            self._ack(source)
        elif op == 'save':
            with atomic_write(h['fname']) as f:
                f.write(self.updater.get_states(h['dump']))
            self._ack(source)
        elif op == 'load':
            with open(h['fname'], 'rb') as f:
                self.updater.set_states(f.read())
            self._ack(source)

    def _size(self, source):
        """The size in bytes of the payload ``source`` is sending."""
        from mpi4py import MPI

        status = MPI.Status()

        class Probe:  # Iprobe as a request that can be polled
            def Test(probe):
                return self.world.Iprobe(
                    source=source, tag=_PAYLOAD, status=status
                )

        self._complete(Probe(), source, 'send the data of its request')
        return status.Get_count(MPI.BYTE)

    def _apply(self, key, grad):
        from ..context import cpu
        from ..ndarray.ndarray import from_raw

        if self.updater is None:
            self.values[key] = grad
            return
        weight = from_raw(self.values[key], cpu())
        self.updater(key, from_raw(grad, cpu()), weight)
        self.values[key] = weight._data


def serve(world, num_workers, is_async):
    """Answer the workers until each has said ``stop``; then exit."""
    from mpi4py import MPI

    status = MPI.Status()
    server = _Server(world)
    stopped = 0
    while stopped < num_workers:
        source, header = _receive(world, status)
        if header['op'] == 'stop':
            stopped += 1
        elif is_async:
            server.handle(source, header)
    sys.exit(0)
