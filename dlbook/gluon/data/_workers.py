"""Parallel batch loading for the DataLoader: worker processes or threads.

The main process hands out lists of sample indices and keeps at most
``prefetch`` batches in flight; results come back in order.  Worker
processes return NumPy arrays (``batchify.to_host``) and the main process
wraps them as NDArrays.  Failures never hang the loop: an exception in a
worker, a worker that dies (killed, out of memory) or a batch slower than
``timeout`` seconds raises a :class:`DLBookError` naming the batch.

Random augmentations stay reproducible: before each batch a worker
process reseeds its generators with ``base_seed + batch_number``, where
``base_seed`` comes from ``mx.random.seed``'s generator.  (Forked workers
would otherwise all inherit one generator state and repeat the same
"random" crops.)
"""

__all__ = ['MultiWorkerIter']

import collections
import concurrent.futures as cf
import multiprocessing
import random
import signal
import sys
import weakref
from concurrent.futures.process import BrokenProcessPool

import numpy

from ... import random as _random
from ...base import DLBookError
from ...context import cpu
from .batchify import to_host, to_ndarrays
from .dataloader import load_batch

# What a worker process works on, set once when it starts.
_STATE = {}


def _init_process(dataset, batchify_fn):
    # Ctrl-C goes to the whole process group; let the main process decide.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _STATE['dataset'] = dataset
    _STATE['batchify_fn'] = batchify_fn


def _reseed(seed):
    seed %= 2 ** 32
    _random.seed(seed, ctx=cpu())
    numpy.random.seed(seed)
    random.seed(seed)


def _process_task(indices, seed):
    """Runs in a worker process: one batch, as NumPy arrays."""
    try:
        _reseed(seed)
        batch = load_batch(_STATE['dataset'], indices, _STATE['batchify_fn'])
        return to_host(batch)
    except (SystemExit, KeyboardInterrupt) as err:
        # Would otherwise be re-raised as-is in the main process.
        raise RuntimeError(f'worker stopped by {err!r}') from None


def _mp_context():
    """Fork on Linux (cheap, nothing to pickle); the platform default
    (spawn) elsewhere, where forking is unsafe or unavailable."""
    if sys.platform.startswith('linux') and \
            'fork' in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context('fork')
    return multiprocessing.get_context()


def _close(pool, processes, kill=False, wait=False):
    if kill:
        for process in processes:
            if process.is_alive():
                process.terminate()
    pool.shutdown(wait=wait, cancel_futures=True)


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
        return (f'worker process {process.pid} was killed by {name}'
                f'{hint}')
    return f'worker process {process.pid} exited with code {code}'


class MultiWorkerIter:
    """One epoch of batches prepared by a pool of workers."""

    def __init__(self, dataset, batchify_fn, batch_sampler, num_workers,
                 prefetch, thread_pool=False, timeout=120):
        self._batch_sampler = batch_sampler
        self._timeout = timeout
        self._thread_pool = thread_pool
        self._dataset = dataset
        self._batchify_fn = batchify_fn
        self._tasks = enumerate(iter(batch_sampler))
        self._pending = collections.deque()
        self._seed = int(_random.numpy_rng().randint(0, 2 ** 31 - 1))
        self._processes = []
        if thread_pool:
            self._pool = cf.ThreadPoolExecutor(
                num_workers, thread_name_prefix='DataLoader')
        else:
            self._pool = cf.ProcessPoolExecutor(
                num_workers, mp_context=_mp_context(),
                initializer=_init_process, initargs=(dataset, batchify_fn))
        self._finalizer = weakref.finalize(self, _close, self._pool,
                                           self._processes)
        for _ in range(max(1, prefetch)):
            self._submit()
        if not thread_pool:
            self._processes.extend(
                getattr(self._pool, '_processes', {}).values())

    def __len__(self):
        return len(self._batch_sampler)

    def __iter__(self):
        return self

    def _submit(self):
        try:
            number, indices = next(self._tasks)
        except StopIteration:
            return
        if self._thread_pool:
            future = self._pool.submit(load_batch, self._dataset, indices,
                                       self._batchify_fn)
        else:
            future = self._pool.submit(_process_task, indices,
                                       self._seed + number)
        self._pending.append((number, indices, future))

    def shutdown(self, kill=False):
        """Stop the workers (killing them if ``kill``)."""
        self._pending.clear()
        if self._finalizer.detach() is not None:
            _close(self._pool, self._processes, kill=kill, wait=not kill)

    def _death_report(self):
        """Which worker died and how.  The pool stops the survivors with
        SIGTERM, so any other cause is the culprit."""
        for process in self._processes:
            process.join(timeout=1.0)
        dead = [p for p in self._processes if p.exitcode not in (None, 0)]
        culprits = [p for p in dead
                    if p.exitcode != -signal.SIGTERM] or dead
        return '; '.join(_exit_reason(p) for p in culprits)

    def __next__(self):
        if not self._pending:
            self.shutdown()
            raise StopIteration
        number, indices, future = self._pending.popleft()
        self._submit()                    # keep the workers busy
        where = f'batch {number} (sample indices {_describe(indices)})'
        try:
            batch = future.result(timeout=self._timeout)
        except cf.TimeoutError:
            self.shutdown(kill=True)
            raise DLBookError(
                f'DataLoader worker timed out after {self._timeout} seconds '
                f'while loading {where}. This might be caused by a slow '
                f'transform (increase `timeout` to allow slower data '
                f'loading in each worker) or a worker that is stuck.'
            ) from None
        except BrokenProcessPool as err:
            detail = self._death_report() or str(err)
            self.shutdown(kill=True)
            raise DLBookError(
                f'DataLoader worker process died unexpectedly while loading '
                f'{where}: {detail}. Try num_workers=0 to see the error in '
                f'the main process.') from err
        except Exception as err:
            self.shutdown(kill=True)
            raise DLBookError(
                f'DataLoader worker raised {type(err).__name__} while '
                f'loading {where}: {err}') from err
        return to_ndarrays(batch)

    next = __next__
