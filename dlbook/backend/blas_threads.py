"""How many threads NumPy's BLAS may use, so shared cores never collapse.

OpenBLAS (NumPy's BLAS) starts one thread per core and lets idle threads
spin.  When other programs busy the same cores, or DataLoader worker
processes each start their own BLAS threads, the threads wait on each
other and a training loop can run ten times slower than on one thread
(an MLP cell measured 17.9 s with 2 threads on a busy 2-core machine,
1.9 s with 1).  dlbook therefore picks the thread count itself:

* ``DLBOOK_NUM_THREADS=n`` (environment variable) sets it; ``0`` or unset
  means automatic: the cores this process may run on, less the cores
  other programs keep busy, at least 1, and at most what
  ``OPENBLAS_NUM_THREADS`` or ``OMP_NUM_THREADS`` say when set (a job
  script's "one core per process" is kept).  "Busy" is measured, not
  guessed from the load average (which lags by minutes and counts this
  process's own work): every :data:`RECHECK_SECONDS` at most, the CPU
  time all processes used since the last look (``/proc/stat``) less the
  CPU time this process used (``os.times``), over the wall time between.
  The first look is taken when dlbook is imported, so the first choice
  (at the first large product, after the data and the model are made)
  already has a window to measure.  A window under
  :data:`MIN_WINDOW_SECONDS` is too short to tell, and systems without
  ``/proc/stat`` have none: they use the 1-minute load average, which
  started programs a minute after a busy one on one thread (MXNet's
  benchmarks just before dlbook's: LeNet 43 ms a step on one thread
  against 26 ms on two, on an idle machine);
* products smaller than :data:`SMALL_GEMM` multiply-adds run on one thread
  (starting threads costs more than they save);
* DataLoader worker processes use one BLAS thread each
  (:func:`use_single_thread`), so ``num_workers`` processes never
  oversubscribe the cores together with the main process;
* OpenBLAS's idle threads go to sleep at once instead of spinning.  After
  each multi-threaded product OpenBLAS keeps its threads busy-waiting for
  the next one (``OPENBLAS_THREAD_TIMEOUT``, by default 2**28 cycles,
  about a tenth of a second), and a spinning thread holds a core that
  the next single-threaded NumPy pass, or the convolution's own threads,
  then have to share.  On 2 cores a LeNet training step (batch 128) took
  46 ms with the spinning threads and 26 ms without.  dlbook sets the
  timeout to its minimum (2**4 cycles) and restarts OpenBLAS's threads
  so that it applies (:func:`_stop_spinning`); waking a sleeping thread
  costs microseconds, and only products large enough to be worth
  several threads use them.  An ``OPENBLAS_THREAD_TIMEOUT`` set by the
  user is left as it is.

The control goes through ``threadpoolctl`` (imported at the first matrix
product, not by ``import dlbook``); without it nothing is changed.
CuPy arrays are not affected.  :func:`info` says what was chosen.
"""

import os
import time

from . import on_host

__all__ = [
    'for_gemm',
    'use_single_thread',
    'default_threads',
    'RECHECK_SECONDS',
    'info',
    'split_threads',
    'run_split',
    'run_split_sum',
    'items_per_block',
    'split_passes',
    'too_small_to_split',
    'PASS_COST',
    'SMALL_GEMM',
    'THREAD_TIMEOUT',
]

#: Matrix products with fewer multiply-adds (m * n * k) run on one thread.
SMALL_GEMM = 1 << 24  # e.g. 256 x 256 x 256

#: The automatic choice is made again after this many seconds at most.
RECHECK_SECONDS = 2.0

#: The shortest window over which other processes' CPU time is measured
#: (``/proc/stat`` counts in hundredths of a second per core).
MIN_WINDOW_SECONDS = 0.1

_STATE = {
    'controllers': None,
    'current': None,
    'default': None,
    'reason': 'not configured yet',
    'single': False,
    'fixed': False,  # DLBOOK_NUM_THREADS or a worker process: no re-check
    'checked': 0.0,  # time.monotonic() of the last automatic choice
    'sample': None,  # (time, busy CPU seconds of all processes, own)
}


def _busy_cpu_seconds():
    """CPU seconds all processes have used since boot (``/proc/stat``'s
    first line: user, nice, system, irq, softirq and steal time), or None
    where there is no ``/proc/stat``."""
    try:
        with open('/proc/stat') as f:
            ticks = [int(v) for v in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    idle = sum(ticks[3:5])  # idle and iowait
    return (sum(ticks) - idle) / os.sysconf('SC_CLK_TCK')


def _own_cpu_seconds():
    """CPU seconds this process has used, all its threads together."""
    times = os.times()
    return times.user + times.system


def _cores_busy_elsewhere(now):
    """Cores other processes kept busy since the previous call (CPU time
    of all processes less this one's, over the wall time between), or
    None on the first call and without ``/proc/stat``."""
    busy = _busy_cpu_seconds()
    own = _own_cpu_seconds()
    last = _STATE['sample']
    if last is not None and now - last[0] < MIN_WINDOW_SECONDS:
        return None  # too short to tell: keep the older look
    _STATE['sample'] = (now, busy, own)
    if busy is None or last is None or last[1] is None:
        return None
    elsewhere = (busy - last[1]) - (own - last[2])
    return max(0.0, elsewhere / (now - last[0]))


#: Variables by which a user or a job script limits a process's threads:
#: the automatic choice never exceeds them.
CAP_VARIABLES = ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS')


def _environment_cap():
    """``(n, variable)``: the smallest positive thread count set by one of
    :data:`CAP_VARIABLES`, or None."""
    found = []
    for name in CAP_VARIABLES:
        try:
            value = int(os.environ.get(name, '').strip())
        except ValueError:
            continue
        if value > 0:
            found.append((value, name))
    return min(found) if found else None


def default_threads():
    """Threads for large products: ``DLBOOK_NUM_THREADS`` or automatic."""
    now = time.monotonic()
    if _STATE['default'] is not None and (
        _STATE['fixed'] or now - _STATE['checked'] < RECHECK_SECONDS
    ):
        return _STATE['default']
    text = os.environ.get('DLBOOK_NUM_THREADS', '').strip()
    try:
        wanted = int(text) if text else 0
    except ValueError:
        wanted = 0
    if wanted > 0:
        threads, why = wanted, f'DLBOOK_NUM_THREADS={wanted}'
        _STATE['fixed'] = True
    else:
        try:
            cores = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            cores = os.cpu_count() or 1
        elsewhere = _cores_busy_elsewhere(now)
        if elsewhere is not None:
            busy = round(elsewhere)
            seen = f'{elsewhere:.1f} cores busy with other processes'
        else:
            try:
                busy = int(os.getloadavg()[0])
            except OSError:
                busy = 0
            seen = f'load average {busy}'
        threads = max(1, cores - busy)
        why = f'automatic: {cores} cores' + (f', {seen}' if busy else '')
        cap = _environment_cap()
        if cap is not None and cap[0] < threads:
            threads = cap[0]
            why += f', at most {cap[0]} ({cap[1]}={cap[0]})'
        _STATE['fixed'] = False
    _STATE['default'] = threads
    _STATE['reason'] = why
    _STATE['checked'] = now
    return threads


def _controllers():
    """threadpoolctl's BLAS controllers (an empty list without it)."""
    if _STATE['controllers'] is None:
        try:
            from threadpoolctl import ThreadpoolController

            found = ThreadpoolController().select(user_api='blas')
            _STATE['controllers'] = list(found.lib_controllers)
        except Exception as err:  # not installed, or fails
            _STATE['controllers'] = []
            _STATE['reason'] = f'threadpoolctl unavailable ({err})'
        _stop_spinning(_STATE['controllers'])
    return _STATE['controllers']


#: The value dlbook gives ``OPENBLAS_THREAD_TIMEOUT`` (OpenBLAS's minimum:
#: idle threads wait 2**4 cycles before they sleep).
THREAD_TIMEOUT = '4'

_TIMEOUT_VARIABLES = ('OPENBLAS_THREAD_TIMEOUT', 'GOTO_THREAD_TIMEOUT')


def _stop_spinning(controllers):
    """Make OpenBLAS's idle threads sleep at once (see the module's
    docstring); returns the libraries changed.

    OpenBLAS reads ``OPENBLAS_THREAD_TIMEOUT`` when it starts its
    threads, which happened when NumPy was imported.  So the variable is
    set, OpenBLAS re-reads its environment (``openblas_read_env``) and
    its threads are stopped (``blas_thread_shutdown_``, what it does
    itself before a ``fork``); the next multi-threaded product starts
    them again with the new timeout.  Builds that do not export these
    functions are left alone, as is a timeout the user has set.
    """
    if any(name in os.environ for name in _TIMEOUT_VARIABLES):
        return []
    changed = []
    for lib in controllers:
        dynlib = getattr(lib, 'dynlib', None)
        read_env = getattr(dynlib, 'openblas_read_env', None)
        shutdown = getattr(dynlib, 'blas_thread_shutdown_', None)
        if lib.internal_api != 'openblas' or not (read_env and shutdown):
            continue
        os.environ['OPENBLAS_THREAD_TIMEOUT'] = THREAD_TIMEOUT
        read_env()
        shutdown()
        changed.append(lib)
    return changed


def _set(threads):
    if threads == _STATE['current']:
        return
    for lib in _controllers():
        lib.set_num_threads(threads)
    _STATE['current'] = threads


def for_gemm(xp, m, n, k):
    """Set the BLAS threads for an ``(m, k) @ (k, n)`` product on ``xp``.

    Cheap when nothing changes (one comparison); only NumPy is affected.
    """
    if not on_host(xp):
        return
    if _STATE['single'] or m * n * k < SMALL_GEMM:
        _set(1)
    else:
        _set(default_threads())


def split_threads(xp, work):
    """How many Python threads should share a batch of ``work``
    multiply-adds made of many small products (a convolution's per-image
    matrix products, each too small for BLAS's own threads).

    The same policy as :func:`for_gemm`: one thread for small work, in
    DataLoader workers and for arrays other than NumPy's, else
    :func:`default_threads`.  When it returns more than 1, BLAS is set to
    one thread, so the threads never oversubscribe the cores.
    """
    if not on_host(xp) or _STATE['single'] or work < SMALL_GEMM:
        return 1
    threads = default_threads()
    if threads > 1:
        _set(1)
    return threads


#: Each element-wise pass over an element is counted as this many
#: multiply-adds when deciding whether to split it over threads
#: (:func:`split_passes`): NumPy's passes over strided or mixed-type
#: arrays run at about 1 ns per element, so one pass over a million
#: elements (about a millisecond of work) is split; smaller ones do not
#: repay the threads.
PASS_COST = 16


def too_small_to_split(elements, passes=1):
    """Whether ``passes`` element-wise passes over ``elements`` elements
    are too little work for :func:`split_passes` ever to split: the
    caller may then run its one piece itself (a small array's relu, say,
    where the look at the thread policy would cost as much as the
    pass)."""
    return PASS_COST * passes * elements < SMALL_GEMM


def split_passes(xp, fn, n, elements, passes=1):
    """Run ``fn(start, stop)`` over ranges of ``range(n)`` (a leading
    axis) on threads when ``passes`` element-wise passes over
    ``elements`` elements are large enough (:data:`PASS_COST`), else
    once over everything.  NumPy releases the GIL in its loops, so the
    ranges run at once; CuPy's kernels are not split."""
    run_split(fn, n, split_threads(xp, PASS_COST * passes * elements))


def run_split_sum(fn, n, threads):
    """The sum of :func:`run_split`'s results: each range's partial
    result (a weight gradient over a range of images, say) added into the
    first range's."""
    parts = run_split(fn, n, threads)
    total = parts[0]
    for part in parts[1:]:
        total += part
    return total


def items_per_block(item_bytes, n, threads, budget):
    """How many of ``n`` items (images, say) one block takes when the
    items are shared by ``threads`` threads (:func:`run_split`) and one
    block's buffers, ``item_bytes`` per item, should stay within
    ``budget`` bytes: at least one, at most a thread's share."""
    return max(1, min(-(-n // threads), budget // max(item_bytes, 1)))


_POOL = {'pool': None, 'size': 0, 'pid': None}


def run_split(fn, n, threads):
    """Call ``fn(start, stop)`` on ``threads`` consecutive ranges covering
    ``range(n)``, at once on a thread pool (NumPy and BLAS release the
    GIL while they compute); return the results in range order."""
    if threads < 2:  # one piece, on this thread: no ranges to work out
        return [fn(0, n)] if n else []
    bounds = [n * i // threads for i in range(threads + 1)]
    ranges = [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]
    if len(ranges) < 2:
        return [fn(a, b) for a, b in ranges]
    # a forked child inherits the pool but not its threads: make its own
    if (
        _POOL['pool'] is None
        or _POOL['size'] < len(ranges) - 1
        or _POOL['pid'] != os.getpid()
    ):
        from concurrent.futures import ThreadPoolExecutor

        if _POOL['pool'] is not None and _POOL['pid'] == os.getpid():
            _POOL['pool'].shutdown(wait=False)
        _POOL.update(
            pool=ThreadPoolExecutor(
                len(ranges) - 1, thread_name_prefix='dlbook'
            ),
            size=len(ranges) - 1,
            pid=os.getpid(),
        )
    futures = [_POOL['pool'].submit(fn, a, b) for a, b in ranges[1:]]
    first = fn(*ranges[0])  # this thread takes the first range
    return [first] + [f.result() for f in futures]


def use_single_thread():
    """One BLAS thread in this process from now on (DataLoader workers)."""
    _STATE['single'] = True
    _STATE['fixed'] = True
    _STATE['default'] = 1
    _STATE['reason'] = 'worker process: 1 thread'
    _set(1)


def info():
    """What was chosen: ``{'threads', 'current', 'reason', 'libraries',
    'thread_timeout'}`` (the last: ``OPENBLAS_THREAD_TIMEOUT``, None when
    unset)."""
    libs = [f'{lib.internal_api} {lib.version}' for lib in _controllers()]
    return {
        'threads': default_threads(),
        'current': _STATE['current'],
        'reason': _STATE['reason'],
        'libraries': libs,
        'thread_timeout': os.environ.get('OPENBLAS_THREAD_TIMEOUT'),
    }


# The first look, so that the first choice has a window to measure.
_cores_busy_elsewhere(time.monotonic())
