"""Distributed key-value stores over MPI: ``dist_sync``,
``dist_device_sync`` and ``dist_async``.

Start N copies of a training script (``python -m dlbook.launch -n 2
python train.py``, or ``mpiexec -n 2 python train.py``); each one is a
*worker* with ``kv.rank`` in ``0 .. kv.num_workers - 1``.  What MXNet
1.9.1 does, and how dlbook does it on MPI (``mpi4py``):

* ``init(k, v)``: rank 0's value wins (MXNet); a ``Bcast`` from rank 0.
* ``push(k, [g, ...])``: the sum over each worker's devices, then over the
  workers, replaces the stored value or goes to the optimizer (MXNet); a
  local sum, then ``Allreduce(SUM)``.
* ``pull(k, out)``: the stored value; a local copy, since every worker
  holds the same value.
* ``set_optimizer``: MXNet runs it on its servers; here every worker runs
  the same updater on the same summed gradient.
* 2-bit compression: per worker, with a residual (MXNet); an
  ``Allgather`` of the packed 2-bit codes.
* ``dist_async``: a server process applies each push as it arrives, as
  MXNet's servers do.  Each worker's wait for the server has the deadline
  ``DLBOOK_DIST_TIMEOUT`` (a server that stops answering is named), and
  at exit the workers wait for each other, as MXNet's do, so that a
  worker that hangs is named too.

So ``dist_sync`` with n workers of batch b behaves like one process with
batch ``n * b`` (MXNet's documentation of ``create``).  Note that pushes are
*summed*, not averaged: the Gluon ``Trainer`` and ``Module`` divide by the
batch size through ``rescale_grad``.

``dist_device_sync`` keeps the values on the device of the value given to
``init`` (the per-device sum happens there).  GPU keys are then summed
over the workers by NCCL through CuPy (bootstrapped over MPI) where every
worker can, and through host memory with MPI otherwise; see
:mod:`dlbook.kvstore._nccl` and ``DLBOOK_DIST_DEVICE_COMM``.

Outside a launcher a ``dist_*`` store has one worker and warns once.

One measured MXNet 1.9.1 quirk is not copied: with 2-bit compression and
*no* optimizer on the store, MXNet's pulls show no residual carry-over
(constant pushes of 0.3 pull 0 forever).  dlbook carries the residual on
both paths, as MXNet does when an optimizer is set.
"""

import atexit
import json

import numpy

from .. import autograd
from .._atomic import atomic_write
from ..base import DLBookError
from ..context import cpu
from ..ndarray.ndarray import NDArray, from_raw
from . import _mpi, _nccl
from . import kvstore as _kvstore_module
from ._collective import Every, complete
from .kvstore import (
    KVStore,
    KVStoreBase,
    _as_list,
    _check_key,
    _pairs,
    _sum,
    _write,
    check_value,
)

__all__ = ['DistSyncKVStore', 'DistAsyncKVStore', 'create_dist']

_NAMES = {
    'dist_sync': 'sync',
    'dist_device_sync': 'sync',
    'dist_sync_device': 'sync',
    'dist_async': 'async',
    'dist': 'sync',
}


def _signature(pairs):
    """``'key shape dtype; ...'`` of the arrays given for some keys."""
    parts = []
    for k, values in pairs:
        v = values[0] if values else None
        if isinstance(v, NDArray):
            parts.append(f'key {k!r} shape {v.shape} {v.dtype.name}')
        else:
            parts.append(f'key {k!r}')
    return '; '.join(parts)


def _host(raw, ctx):
    """A contiguous host (NumPy) array holding ``raw`` of ``ctx``; a new
    array for GPU values, ``raw`` itself when it already is one."""
    return numpy.ascontiguousarray(ctx.backend.to_numpy(raw))


def _device(host, ctx):
    return (
        ctx.backend.asarray(host, ctx.device_id, host.dtype)
        if ctx.device_type != 'cpu'
        else host
    )


_FAST_DTYPES = (
    numpy.dtype(numpy.float32),
    numpy.dtype(numpy.float64),
    numpy.dtype(numpy.int32),
    numpy.dtype(numpy.int64),
)


def _wire(host):
    """MPI has no float16 sum: exchange such arrays as float32."""
    return host.astype(numpy.float32) if host.dtype == numpy.float16 else host


class DistSyncKVStore(KVStore):
    """Synchronous data-parallel store across processes (``dist_sync``,
    ``dist_device_sync``); create it with ``mx.kv.create``.

    Every worker keeps the same copy of every value, so ``pull`` needs no
    communication: a ``push`` all-reduces, and the optimizer (if one is
    set) runs on every worker on the same summed gradient.

    The common case (a CPU key of float32/float64/int32/int64, no
    compression) is one ``Iallreduce`` in place, in a buffer allocated at
    ``init`` (MPICH's in-place all-reduce is faster than the one from a
    separate send buffer, even counting the copy into the buffer).  Keys, shapes and dtypes are compared across workers at
    ``init``; alongside each push's all-reduce, a second one of two
    integers, ``t`` and ``t**2`` for the key's tag ``t``, shows whether
    every worker pushed the same key (the sums are ``n t`` and ``n t**2``
    only if all the tags are ``t``); it runs at the same time, so it adds
    no wait.  ``DLBOOK_DIST_CHECK=1`` compares every call in full instead.

    With ``dist_device_sync``, a key that every worker holds on its own
    GPU is summed on the GPU and then all-reduced by NCCL (the workers
    choose at ``init``; see :mod:`dlbook.kvstore._nccl`); the store makes
    one NCCL communicator, at the first such key.
    """

    def __init__(self, name, group=None):
        super().__init__('local' if 'device' not in name else 'device')
        self._type = name
        self._group = group  # None: one worker, no MPI at all
        self._slots = {}  # key -> (buffer, body, tag)
        self._check_all = _mpi.check_every_call()
        # dist_device_sync: 'auto', 'nccl' or 'host'; the NCCL
        # communicator (made at the first GPU key) and the keys it serves
        self._device_comm = _nccl.mode_from_env() if 'device' in name else None
        self._nccl = None
        self._nccl_keys = set()

    def __repr__(self):
        return (
            f'<KVStore {self._type}: worker {self.rank} of '
            f'{self.num_workers}, {len(self._store)} keys>'
        )

    @property
    def rank(self):
        """This worker's rank, from 0 to ``num_workers - 1``."""
        return 0 if self._group is None else self._group.rank

    @property
    def num_workers(self):
        """The number of workers in the job."""
        return 1 if self._group is None else self._group.size

    # -- the collectives ------------------------------------------------------
    def _agree(self, pairs, what):
        if self._group is not None:
            _mpi.agree(self._group, _signature(pairs), what)

    def init(self, key, value):
        """Initialize keys on every worker with **rank 0's** values.

        Every worker must call ``init`` with the same keys, shapes and
        dtypes (checked: a mismatch raises on every worker).
        """
        pairs = _pairs(key, value)
        for k, values in pairs:
            _check_key(k)
            if not isinstance(values[0], NDArray):
                raise DLBookError(
                    f'KVStore.init: values must be NDArrays, '
                    f'got {type(values[0]).__name__} for key '
                    f'{k!r}'
                )
        self._agree(pairs, 'init')
        super().init(key, value)
        if self._group is None:
            return
        for k, _ in pairs:
            stored = self._store[k]
            if self._device_comm is not None and self._use_nccl(k, stored):
                self._nccl.bcast(stored._data)  # rank 0's value wins
                self._nccl_keys.add(k)
                continue
            host = _wire(_host(stored._data, stored.context).copy())
            self._group.bcast(host, f'init of key {k!r}')
            stored._data = _device(
                host.astype(stored.dtype, copy=False), stored.context
            )
            self._make_slot(k, stored)

    def _use_nccl(self, key, stored):
        """Whether every worker can sum ``key`` with NCCL (decided by all
        of them together; makes the store's communicator when needed)."""
        code, place = _nccl.local_code(stored, self._device_comm, self._nccl)
        mine = numpy.array([code, _nccl.place_digest(place)], numpy.int64)
        every = numpy.empty((self._group.size, 2), numpy.int64)
        self._group.allgather(
            mine, every, f'init of key {key!r} (NCCL or host memory?)'
        )
        use, why = _nccl.decide(
            every[:, 0], every[:, 1], self._device_comm, key, stored.dtype
        )
        if not use:
            if (
                self._device_comm == 'auto'
                and (every[:, 0] != _nccl.CPU).any()
            ):
                _nccl.note_host_path(key, why)
            return False
        if self._nccl is None:
            ctx = stored.context
            self._nccl = _nccl.NcclChannel(
                self._group, _nccl.nccl_module(ctx.xp), ctx.xp, ctx.device_id
            )
        return True

    def _make_slot(self, key, stored):
        """The all-reduce buffer of ``key`` and its tag, when the key can
        take the fast path (a NumPy value of a dtype MPI can sum)."""
        if (
            isinstance(stored._data, numpy.ndarray)
            and stored.dtype in _FAST_DTYPES
        ):
            self._slots[key] = (
                numpy.empty(stored.shape, stored.dtype),
                len(self._slots) + 1,
            )

    def push(self, key, value, priority=0):
        """Sum the values over each worker's devices, then over workers.

        Without an optimizer the sum replaces the stored value; with one,
        every worker applies the optimizer to it.
        """
        pairs = _pairs(key, value)
        if self._check_all:
            self._agree(pairs, 'push')
        for k, values in pairs:
            self._push_one(k, values, 'push')

    def _push_one(self, key, values, what='push', into=None):
        """Push ``values`` to ``key``.  ``into``: the one pushed array,
        which is also where the result goes (``pushpull(k, v)``); the
        all-reduce may then run in it.  Returns ``into`` when it already
        holds the value a pull would give, else None."""
        stored = self._stored(key)
        slot = self._slots.get(key) if self._compression is None else None
        done = None
        if key in self._nccl_keys and self._compression is None:
            if not self._check_all:
                self._agree([(key, values)], what)
            merged = _sum(values, stored, key)  # on this worker's GPU
            self._nccl.allreduce(merged)  # then over the workers
        elif slot is not None:
            merged = self._reduce_fast(key, values, stored, slot, what, into)
            if merged is not slot[0] and self._updater is None:
                numpy.copyto(slot[0], merged)  # the stored copy
                merged, done = slot[0], into
        else:
            if not self._check_all:
                self._agree([(key, values)], what)
            merged = _sum(values, stored, key)  # this worker's devices
            merged = self._reduce(key, merged, stored.context)
        if self._updater is None:
            stored._data = merged
        else:
            self._updater(key, from_raw(merged, stored.context), stored)
        return done

    def _reduce_fast(self, key, values, stored, slot, what, into=None):
        """All-reduce this worker's ``values`` of ``key`` in place, in the
        key's buffer or in ``into``'s array; check the tags; return the
        array that holds the sum."""
        buf, tag = slot
        for i, v in enumerate(values):
            check_value(v, stored, key)
            if v.stype != 'default':  # row_sparse: sum it dense
                v = v.tostype('default')
            raw = (
                v._data
                if isinstance(v._data, numpy.ndarray)
                else v.context.backend.to_numpy(v._data)
            )
            if (
                into is not None
                and raw is into._data
                and raw.dtype == buf.dtype
                and raw.flags.c_contiguous
            ):
                buf = raw  # no copy in: the result goes here anyway
            elif i == 0:
                numpy.copyto(buf, raw, casting='unsafe')
            else:
                buf += raw
        tags = numpy.array([tag, tag * tag], numpy.int64)
        n = self._group.size
        self._group.allreduce(
            buf, f'{what} of key {key!r} shape {stored.shape}', extra=tags
        )
        if tags[0] != n * tag or tags[1] != n * tag * tag:
            # Every worker sees the same sums, so all of them get here.
            self._agree([(key, values)], what)
            raise DLBookError(
                f'KVStore.{what}: the workers pushed '
                f'different keys in the same call (this '
                f'worker: {key!r})'
            )
        return buf

    def _reduce(self, key, merged, ctx):
        """Sum ``merged`` over the workers (2-bit compressed if set)."""
        if self._group is None and self._compression is None:
            return merged
        host = _host(merged, ctx)
        if self._compression is not None:
            total = self._reduce_compressed(key, host)
        else:
            total = _wire(host)
            self._group.allreduce(total, f'push of key {key!r}')
        return _device(total.astype(host.dtype, copy=False), ctx)

    def _reduce_compressed(self, key, host):
        gc = self._compression
        sent = gc.quantize(key, host)
        if self._group is None:
            return sent
        words = gc.pack(sent)
        every = numpy.empty((self._group.size, words.size), numpy.uint32)
        self._group.allgather(words, every, f'2-bit push of key {key!r}')
        total = numpy.zeros(host.shape, host.dtype)
        for w in every:  # the same order on every worker
            total += gc.unpack(w, host.shape, host.dtype)
        return total

    def pushpull(self, key, value, out=None, priority=0):
        """``push`` then ``pull``: one all-reduce per key."""
        outs = value if out is None else out
        pairs = _pairs(key, value)
        if self._check_all:
            self._agree(pairs, 'pushpull')
        for (k, values), (_, targets) in zip(pairs, _pairs(key, outs)):
            into = (
                targets[0]
                if len(values) == len(targets) == 1 and targets[0] is values[0]
                else None
            )
            done = self._push_one(k, values, 'pushpull', into)
            stored = self._stored(k)
            for target in targets:
                if target is not done:
                    _write(target, stored, k)

    def broadcast(self, key, value, out, priority=0):
        """``init(key, value)`` (rank 0's value wins) then ``pull``."""
        self.init(key, value)
        self.pull(key, out=out, priority=priority)

    def barrier(self):
        """Wait until every worker reaches this call."""
        if self._group is not None:
            self._group.barrier()

    _barrier = barrier

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Worker 0 writes the optimizer states (every worker holds the
        same ones); the others wait until the file is complete.

        MXNet 1.9.1 cannot save the states of a distributed store (they
        live on its servers); dlbook can, since every worker has them.
        """
        if self._updater is None:
            raise DLBookError(
                'KVStore.save_optimizer_states: no optimizer '
                'has been set with set_optimizer'
            )
        if self.rank == 0:
            data = self._updater.get_states(dump_optimizer)
            with atomic_write(fname) as f:
                f.write(data)
        self.barrier()

    def load_optimizer_states(self, fname):
        """Every worker reads the states written by
        :meth:`save_optimizer_states` (``fname`` must be visible to all,
        e.g. on a shared file system)."""
        self.barrier()
        super().load_optimizer_states(fname)


# -- dist_async: one server process applies every push as it arrives -------

_REQUEST, _PAYLOAD, _REPLY = 11, 12, 13


class DistAsyncKVStore(KVStoreBase):
    """Asynchronous store: a server process holds the values and applies
    each worker's push as soon as it arrives (create it with
    ``mx.kv.create('dist_async')`` under ``dlbook.launch``, which starts
    the server process).

    Updates are never simultaneous on one key, but their order across
    workers is not defined, so runs are not bit-for-bit repeatable.
    """

    def __init__(self, name, world, group, server):
        self._type = name
        self._world = world
        self._group = group
        self._server = server  # world rank of the server
        self._meta = {}  # key -> (shape, dtype)
        self._compression = None
        self._has_optimizer = None  # the Optimizer once set

    def __repr__(self):
        return (
            f'<KVStore {self._type}: worker {self.rank} of '
            f'{self.num_workers}, {len(self._meta)} keys>'
        )

    type = property(
        lambda self: self._type, doc='The store type given to ``create``.'
    )
    rank = property(lambda self: self._group.rank, doc="This worker's rank.")
    num_workers = property(
        lambda self: self._group.size,
        doc='The number of workers (servers excluded).',
    )

    def _ask(self, header, payload=None, reply=None):
        """Send one request to the server; wait for the reply if asked.

        Every wait has the deadline ``DLBOOK_DIST_TIMEOUT``: a server that
        stops answering (an updater stuck in a loop, a stalled write) is
        named, and the job stops, instead of every worker waiting forever.
        """
        world, server = self._world, self._server
        raw = numpy.frombuffer(json.dumps(header).encode(), numpy.uint8)
        requests = [world.Isend(raw, dest=server, tag=_REQUEST)]
        if payload is not None:
            requests.append(world.Isend(payload, dest=server, tag=_PAYLOAD))
        if reply is not None:
            requests.append(world.Irecv(reply, source=server, tag=_REPLY))
        complete(
            Every(*requests),
            self._group.timeout,
            lambda: self._server_silent(header, reply is not None),
        )
        return reply

    def _ack(self, header):
        self._ask(header, reply=numpy.empty(1, numpy.int64))

    def _server_silent(self, header, answer):
        what = header['op'] + (
            f' of key {header["key"]!r}' if 'key' in header else ''
        )
        raise DLBookError(
            f'KVStore: worker {self.rank} waited '
            f'{self._group.timeout:g} s (DLBOOK_DIST_TIMEOUT) for the '
            f'server (process {self._server} of {self._world.size}) to '
            f'{"answer" if answer else "take"} {what}: the server is '
            f'hanging (an optimizer update or a file write that does not '
            f'return, a deadlock) or much slower than expected; set '
            f'DLBOOK_DIST_TIMEOUT (seconds; 0 waits forever) if it can '
            f'legitimately take longer'
        )

    def init(self, key, value):
        """Initialize keys on the server with **rank 0's** values."""
        pairs = _pairs(key, value)
        _mpi.agree(self._group, _signature(pairs), 'init')
        for k, values in pairs:
            _check_key(k)
            if k in self._meta:
                raise DLBookError(f'KVStore: duplicate init of key {k!r}')
            v = values[0]
            self._meta[k] = (v.shape, v.dtype)
            if self.rank == 0:
                self._ask(
                    {
                        'op': 'init',
                        'key': k,
                        'shape': list(v.shape),
                        'dtype': v.dtype.name,
                    },
                    _host(v._data, v.context),
                    numpy.empty(1, numpy.int64),
                )
        self.barrier()

    def _meta_of(self, key):
        try:
            return self._meta[key]
        except KeyError:
            raise DLBookError(
                f'KVStore: key {key!r} has not been '
                f'initialized; call kv.init({key!r}, value) '
                f'first'
            ) from None

    def push(self, key, value, priority=0):
        """Send each key's sum over this worker's devices to the server,
        which applies it at once (optimizer, or replaces the value)."""
        for k, values in _pairs(key, value):
            shape, dtype = self._meta_of(k)
            stored = from_raw(numpy.zeros(shape, dtype), cpu())
            merged = _host(_sum(values, stored, k), cpu())
            if self._compression is not None:
                sent = self._compression.quantize(k, merged)
                self._ask(
                    {'op': 'push2bit', 'key': k}, self._compression.pack(sent)
                )
            else:
                self._ask({'op': 'push', 'key': k}, merged)

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Fetch the server's current value of each key into ``out``."""
        if out is None:
            raise DLBookError('KVStore.pull: out must be given')
        for k, outs in _pairs(key, out):
            shape, dtype = self._meta_of(k)
            value = self._ask(
                {'op': 'pull', 'key': k}, None, numpy.empty(shape, dtype)
            )
            with autograd.pause():
                current = from_raw(value, cpu())
                for target in _as_list(outs):
                    _write(target, current, k)

    def pushpull(self, key, value, out=None, priority=0):
        """``push`` then ``pull`` (into ``value`` when ``out`` is None)."""
        self.push(key, value, priority)
        self.pull(key, value if out is None else out, priority)

    def broadcast(self, key, value, out, priority=0):
        """``init(key, value)`` then ``pull(key, out)``."""
        self.init(key, value)
        self.pull(key, out=out, priority=priority)

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        """Not available: dlbook has no row-sparse storage."""
        raise DLBookError(
            'KVStore.row_sparse_pull: row_sparse storage is '
            'not supported by dlbook; use pull'
        )

    def set_optimizer(self, optimizer):
        """Send ``optimizer`` to the server (by worker 0, in dlbook's
        pickle-free format); it then updates on every push."""
        from ..optimizer.updater import dumps_states

        if self.rank == 0:
            data = numpy.frombuffer(dumps_states({}, optimizer), numpy.uint8)
            self._ask({'op': 'optimizer'}, data, numpy.empty(1, numpy.int64))
        self._has_optimizer = optimizer
        self.barrier()

    def set_gradient_compression(self, compression_params):
        """2-bit compression of pushes (see :meth:`KVStore.
        set_gradient_compression`); the server decodes them."""
        from .compression import GradientCompression, parse_compression_params

        _, threshold = parse_compression_params(compression_params)
        self._compression = GradientCompression(threshold)
        if self.rank == 0:
            self._ack({'op': 'compression', 'threshold': threshold})
        self.barrier()

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """The server writes its optimizer states to ``fname``."""
        if self._has_optimizer is None:
            raise DLBookError(
                'KVStore.save_optimizer_states: no optimizer '
                'has been set with set_optimizer'
            )
        if self.rank == 0:
            self._ack(
                {
                    'op': 'save',
                    'fname': str(fname),
                    'dump': bool(dump_optimizer),
                }
            )
        self.barrier()

    def load_optimizer_states(self, fname):
        """The server reads optimizer states from ``fname``."""
        if self._has_optimizer is None:
            raise DLBookError(
                'KVStore.load_optimizer_states: no optimizer '
                'has been set with set_optimizer'
            )
        self.barrier()
        if self.rank == 0:
            self._ack({'op': 'load', 'fname': str(fname)})
        self.barrier()

    @property
    def _updater(self):
        # ``Trainer.load_states`` reads ``kv._updater.optimizer``.
        return _OptimizerRef(self._has_optimizer)

    def barrier(self):
        """Wait until every worker reaches this call."""
        self._group.barrier()

    _barrier = barrier


class _OptimizerRef:
    def __init__(self, optimizer):
        self.optimizer = optimizer


_JOB = []  # (world, workers' Group, number of workers), made once


def _job(name):
    """This process's place in the MPI job, found on the first
    ``create``: servers enter their loop here and never return."""
    if _JOB:
        return _JOB[0]
    world = _mpi.world()
    expected = _mpi.job_size()
    if world.size == 1 and expected > 1:
        raise DLBookError(
            f'The launcher started {expected} processes but MPI sees only '
            f'this one: the processes do not form one MPI job. Under SLURM '
            f'use srun --mpi=pmix (or pmi2), or run mpiexec inside the '
            f'allocation (python -m dlbook.launch --launcher mpi)'
        )
    servers = _mpi.num_servers()
    workers = world.size - servers
    if workers < 1:
        raise DLBookError(
            f'DMLC_NUM_SERVER={servers} leaves no worker in '
            f'a job of {world.size} processes'
        )
    _mpi.record_pid(
        world.rank, 'server' if world.rank >= workers else 'worker'
    )
    if _NAMES[name] == 'async' and servers != 1:
        raise DLBookError(
            f"kv.create('{name}') needs exactly one server process besides "
            f"the workers; this job has {servers}. Start it with "
            f"python -m dlbook.launch -n {workers} -s 1 python ... (or set "
            f"DMLC_NUM_SERVER=1 and start one more process)"
        )
    is_server = world.rank >= workers
    comm = world.Split(1 if is_server else 0, world.rank)
    _mpi.abort_on_error(
        world, 'server' if is_server else f'worker {world.rank}'
    )
    if is_server:
        from ._server import serve

        serve(world, workers, _NAMES[name] == 'async')  # never returns
    from ._collective import Group

    group = Group(comm)
    if servers:
        atexit.register(_stop_idle_servers, world, group, workers, servers)
    _JOB.append((world, group, workers))
    return _JOB[0]


def create_dist(name):
    """The store for ``mx.kv.create('dist_…')``."""
    if name not in _NAMES:
        raise DLBookError(
            f"Unknown KVStore type '{name}'; the distributed "
            f"ones are dist_sync, dist_device_sync and "
            f"dist_async"
        )
    if _mpi.job_size() == 1:
        _mpi.warn_single(name)
        return DistSyncKVStore(name)
    world, group, workers = _job(name)
    if _NAMES[name] == 'async':
        if world.size - workers != 1:
            raise DLBookError(
                f"kv.create('{name}') needs exactly one server process "
                f"besides the workers; this job has "
                f"{world.size - workers}"
            )
        return DistAsyncKVStore(name, world, group, server=workers)
    return DistSyncKVStore(name, group)


def _stop_idle_servers(world, group, workers, servers):
    """At interpreter exit: wait for every worker (as MXNet's workers do
    when they shut down), then tell every server that this worker is done.

    The wait has the deadline ``DLBOOK_DIST_TIMEOUT``, so a worker that
    hangs while the others finish is named, and the job stops, instead of
    the servers waiting for it forever.
    """
    import sys

    try:
        group.barrier(
            'the end of the job (every worker waits for the '
            'others before stopping the servers)'
        )
    except DLBookError as e:
        sys.stderr.write(
            f'\n{e}\ndlbook.kvstore: stopping all '
            f'{world.size} processes of the job (MPI_Abort)\n'
        )
        sys.stderr.flush()
        world.Abort(1)
    header = numpy.frombuffer(b'{"op": "stop"}', numpy.uint8)
    for s in range(workers, workers + servers):
        try:
            world.Send(header, dest=s, tag=_REQUEST)
        except Exception:  # noqa: BLE001
            pass


_kvstore_module._DIST_FACTORY[0] = create_dist
