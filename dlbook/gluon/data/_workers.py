"""Parallel batch loading for the DataLoader: worker processes or threads.

A :class:`WorkerPool` belongs to one DataLoader and lives as long as it
(as in MXNet, whose workers are started with the loader): processes are
forked once, when the first epoch starts, and serve every later epoch.
Each epoch, a :class:`MultiWorkerIter` hands out lists of sample indices,
keeps at most ``prefetch`` batches in flight and returns them in order.

Worker processes return NumPy arrays; big ones travel through shared
memory (one copy in, one copy out) instead of being pickled through a
pipe, and the main process wraps them as NDArrays.  Failures never hang
the loop: an exception in a worker, a worker that dies (killed, out of
memory) or a batch slower than ``timeout`` seconds raises a
:class:`DLBookError` naming the batch; the pool is then replaced.

Random augmentations stay reproducible: before each batch a worker
process reseeds its generators with ``base_seed + batch_number``, where
``base_seed`` is drawn each epoch from ``mx.random.seed``'s generator.
(Forked workers would otherwise all inherit one generator state and
repeat the same "random" crops.)
"""

__all__ = ['WorkerPool', 'MultiWorkerIter']

import collections
import concurrent.futures as cf
import multiprocessing
import random
import signal
import sys
import time
import weakref
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import resource_tracker, shared_memory
from multiprocessing.connection import wait as wait_ready

import numpy

from ... import random as _random
from ...backend import blas_threads
from ...base import DLBookError
from ...context import cpu
from .batchify import Stacked, load_batch, map_leaves, to_host, to_ndarrays

# Arrays at least this big go through shared memory, not the pipe.
_SHM_MIN_BYTES = 1 << 16

# What a worker process works on, set once when it starts.
_STATE = {}


# --------------------------------------------------------- worker side


def _init_process(dataset, batchify_fn):
    # Ctrl-C goes to the whole process group; let the main process decide.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # One BLAS thread per worker: workers and the main process together
    # must not start more threads than there are cores.
    blas_threads.use_single_thread()
    _STATE['dataset'] = dataset
    _STATE['batchify_fn'] = batchify_fn


def _reseed(seed):
    seed %= 2**32
    _random.seed(seed, ctx=cpu())
    numpy.random.seed(seed)
    random.seed(seed)


class _Shared(collections.namedtuple('_Shared', 'name shape dtype')):
    """A batch array left in a shared-memory block for the main process."""


def _put_shared(raw):
    block = shared_memory.SharedMemory(create=True, size=raw.nbytes)
    view = numpy.ndarray(raw.shape, raw.dtype, buffer=block.buf)
    view[...] = raw
    del view  # release before closing
    block.close()
    return _Shared(block.name, raw.shape, raw.dtype.str)


def _share(tree):
    """Move the big NumPy leaves of a batch into shared memory."""

    def leaf(x):
        if isinstance(x, Stacked):
            raw = x.raw
            if isinstance(raw, numpy.ndarray) and raw.nbytes >= _SHM_MIN_BYTES:
                return Stacked(_put_shared(raw), x.device)
        return x

    return map_leaves(leaf, tree)


def _process_task(indices, seed):
    """Runs in a worker process: one batch, as NumPy arrays."""
    try:
        _reseed(seed)
        batch = load_batch(_STATE['dataset'], indices, _STATE['batchify_fn'])
        return _share(to_host(batch))
    except (SystemExit, KeyboardInterrupt) as err:
        # Would otherwise be re-raised as-is in the main process.
        raise RuntimeError(f'worker stopped by {err!r}') from None


# --------------------------------------------------------- main side


def _take_shared(ref, copy=True):
    """Copy a shared block out (or just free it) and unlink it."""
    block = shared_memory.SharedMemory(name=ref.name)
    try:
        if not copy:
            return None
        view = numpy.ndarray(
            ref.shape, numpy.dtype(ref.dtype), buffer=block.buf
        )
        raw = view.copy()
        del view
        return raw
    finally:
        block.close()
        block.unlink()


def _unshare(tree, copy=True):
    """Bring the leaves :func:`_share` moved into shared memory back (or,
    without ``copy``, only free them)."""

    def leaf(x):
        if isinstance(x, Stacked) and isinstance(x.raw, _Shared):
            return Stacked(_take_shared(x.raw, copy), x.device)
        return x

    return map_leaves(leaf, tree)


def _discard_result(future):
    """Done-callback of an abandoned task: free its shared memory."""
    if not future.cancelled() and future.exception() is None:
        _unshare(future.result(), copy=False)


def _mp_context():
    """Fork on Linux (cheap, nothing to pickle); the platform default
    (spawn) elsewhere, where forking is unsafe or unavailable."""
    if (
        sys.platform.startswith('linux')
        and 'fork' in multiprocessing.get_all_start_methods()
    ):
        return multiprocessing.get_context('fork')
    return multiprocessing.get_context()


def _close(executor, processes, kill=False, wait=False):
    if kill:
        for process in processes:
            if process.is_alive():
                process.terminate()
    executor.shutdown(wait=wait, cancel_futures=True)


class WorkerPool:
    """The workers of one DataLoader, started on first use.

    Parameters
    ----------
    dataset, batchify_fn
        What the workers load (``batchify_fn`` None means the default).
    num_workers : int
    thread_pool : bool
        Threads instead of processes.
    """

    def __init__(self, dataset, batchify_fn, num_workers, thread_pool):
        self.dataset = dataset
        self.batchify_fn = batchify_fn
        self.num_workers = num_workers
        self.thread_pool = thread_pool
        self._executor = None
        self._processes = []
        self._finalizer = None

    def executor(self):
        """The running executor, started now if needed."""
        if self._executor is None:
            if self.thread_pool:
                self._executor = cf.ThreadPoolExecutor(
                    self.num_workers, thread_name_prefix='DataLoader'
                )
            else:
                # Forked workers must share the parent's tracker of shared
                # memory blocks, so start it first.
                resource_tracker.ensure_running()
                self._executor = cf.ProcessPoolExecutor(
                    self.num_workers,
                    mp_context=_mp_context(),
                    initializer=_init_process,
                    initargs=(self.dataset, self.batchify_fn),
                )
            self._processes = []
            self._finalizer = weakref.finalize(
                self, _close, self._executor, self._processes
            )
        return self._executor

    def submit(self, indices, seed):
        executor = self.executor()
        if self.thread_pool:
            return executor.submit(
                load_batch, self.dataset, indices, self.batchify_fn
            )
        future = executor.submit(_process_task, indices, seed)
        # The executor starts its workers on demand, so look again after
        # every submit: the report of a death needs all of them.
        for process in (getattr(executor, '_processes', None) or {}).values():
            if process not in self._processes:
                self._processes.append(process)
        return future

    def receive(self, batch):
        """A finished task's result as a batch of NDArrays."""
        if not self.thread_pool:
            batch = _unshare(batch)
        return to_ndarrays(batch)

    def death_report(self):
        """Which worker died and how.  The pool stops the survivors with
        SIGTERM, so any other cause is the culprit."""
        for process in self._processes:
            process.join(timeout=1.0)
        _await_exit_codes(self._processes)
        dead = [p for p in self._processes if p.exitcode not in (None, 0)]
        culprits = [p for p in dead if p.exitcode != -signal.SIGTERM] or dead
        return '; '.join(_exit_reason(p) for p in culprits)

    def discard(self, kill=False):
        """Stop the workers (killing them if ``kill``); the next epoch
        starts new ones."""
        if self._finalizer is not None and self._finalizer.detach():
            _close(self._executor, self._processes, kill=kill)
        self._executor = None
        self._processes = []
        self._finalizer = None

    def close(self):
        """Stop the workers after their current tasks."""
        self.discard()


def _await_exit_codes(processes, seconds=2.0):
    """Wait until every ended process shows its exit code.

    The executor's own thread reaps its dead workers at the same moment:
    while it does, ``exitcode`` of a process that has ended can still
    read None here (our ``waitpid`` finds nothing left to reap), and the
    report would blame a survivor the pool stopped.  A process has ended
    when its sentinel is ready.
    """
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        waiting = []
        for process in processes:
            try:
                ended = wait_ready([process.sentinel], 0)
            except ValueError:  # closed: nothing more to learn
                continue
            if ended and process.exitcode is None:
                waiting.append(process)
        if not waiting:
            return
        time.sleep(0.01)


def _describe(indices):
    indices = list(indices)
    shown = ', '.join(str(int(i)) for i in indices[:8])
    more = f', ... ({len(indices)} samples)' if len(indices) > 8 else ''
    return f'[{shown}{more}]'


def _exit_reason(process):
    code = process.exitcode
    if code is None:
        return f'worker process {process.pid} is still running'
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f'signal {-code}'
        hint = ' (often the out-of-memory killer)' if -code == 9 else ''
        return f'worker process {process.pid} was killed by {name}{hint}'
    return f'worker process {process.pid} exited with code {code}'


def _abandon(pending):
    """Cancel what has not started; free the results of the rest."""
    for _, _, future in pending:
        if not future.cancel():
            future.add_done_callback(_discard_result)
    pending.clear()


class MultiWorkerIter:
    """One epoch of batches prepared by a :class:`WorkerPool`."""

    def __init__(self, pool, batch_sampler, prefetch, timeout=120):
        self._pool = pool
        self._batch_sampler = batch_sampler
        self._timeout = timeout
        self._tasks = enumerate(iter(batch_sampler))
        self._pending = collections.deque()
        self._seed = int(_random.numpy_rng().randint(0, 2**31 - 1))
        # An epoch left early must not leave work or memory behind.
        self._finalizer = weakref.finalize(self, _abandon, self._pending)
        for _ in range(max(1, prefetch)):
            self._submit()

    def __len__(self):
        return len(self._batch_sampler)

    def __iter__(self):
        return self

    def _submit(self):
        try:
            number, indices = next(self._tasks)
        except StopIteration:
            return
        future = self._pool.submit(indices, self._seed + number)
        self._pending.append((number, indices, future))

    def _fail(self, kill):
        self._finalizer()
        self._pool.discard(kill=kill)

    def __next__(self):
        if not self._pending:
            raise StopIteration
        number, indices, future = self._pending.popleft()
        self._submit()  # keep the workers busy
        where = f'batch {number} (sample indices {_describe(indices)})'
        try:
            batch = future.result(timeout=self._timeout)
        except cf.TimeoutError:
            self._fail(kill=True)
            raise DLBookError(
                f'DataLoader worker timed out after {self._timeout} seconds '
                f'while loading {where}. This might be caused by a slow '
                f'transform (increase `timeout` to allow slower data '
                f'loading in each worker) or a worker that is stuck.'
            ) from None
        except BrokenProcessPool as err:
            # A dead worker breaks the whole pool: every batch in flight
            # fails, and which one killed its worker is not known.
            in_flight = ', '.join(
                str(n) for n in [number] + [p[0] for p in self._pending]
            )
            detail = self._pool.death_report() or str(err)
            self._fail(kill=True)
            raise DLBookError(
                f'DataLoader worker process died unexpectedly while loading '
                f'one of the batches in flight ({in_flight}; {where}): '
                f'{detail}. Try num_workers=0 to see the error in the main '
                f'process.'
            ) from err
        except Exception as err:
            self._finalizer()
            raise DLBookError(
                f'DataLoader worker raised {type(err).__name__} while '
                f'loading {where}: {err}'
            ) from err
        return self._pool.receive(batch)

    next = __next__
