"""BLAS thread policy: DLBOOK_NUM_THREADS, one thread for small products,
one per DataLoader worker process, threadpoolctl loaded lazily."""

import os
import subprocess
import sys

import numpy as np
import pytest

from dlbook.backend import blas_threads

threadpoolctl = pytest.importorskip('threadpoolctl')


def blas_threads_now():
    info = threadpoolctl.threadpool_info()
    return [i['num_threads'] for i in info if i['user_api'] == 'blas']


@pytest.fixture
def fresh(monkeypatch):
    """A clean policy state; the process's thread count restored after."""
    saved = dict(blas_threads._STATE)
    before = blas_threads_now()
    for name in blas_threads.CAP_VARIABLES:  # the suite may run under them
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(
        blas_threads,
        '_STATE',
        dict(
            saved,
            current=None,
            default=None,
            single=False,
            fixed=False,
            sample=None,
            # found again: a library loaded since (SciPy's OpenBLAS,
            # which Numba imports) is controlled too
            controllers=None,
        ),
    )
    yield
    blas_threads._STATE.clear()
    blas_threads._STATE.update(saved)
    threadpoolctl.threadpool_limits(before[0] if before else None)


def test_environment_variable_sets_threads(fresh, monkeypatch):
    monkeypatch.setenv('DLBOOK_NUM_THREADS', '3')
    assert blas_threads.default_threads() == 3
    blas_threads.for_gemm(np, 1024, 1024, 1024)
    assert set(blas_threads_now()) == {3}
    assert blas_threads.info()['reason'] == 'DLBOOK_NUM_THREADS=3'


def test_small_products_use_one_thread(fresh, monkeypatch):
    monkeypatch.setenv('DLBOOK_NUM_THREADS', '2')
    blas_threads.for_gemm(np, 1024, 1024, 1024)
    assert set(blas_threads_now()) == {2}
    blas_threads.for_gemm(np, 64, 64, 64)
    assert set(blas_threads_now()) == {1}


def test_automatic_uses_at_least_one_thread(fresh, monkeypatch):
    monkeypatch.delenv('DLBOOK_NUM_THREADS', raising=False)
    assert blas_threads.default_threads() >= 1
    assert blas_threads.info()['reason'].startswith('automatic')


@pytest.fixture
def clock(fresh, monkeypatch):
    """Four cores, a load average of 3.5, and the clock and CPU times of
    all processes and of this one, as a dict the test moves forward."""
    monkeypatch.delenv('DLBOOK_NUM_THREADS', raising=False)
    monkeypatch.setattr(
        blas_threads.os, 'sched_getaffinity', lambda pid: {0, 1, 2, 3}
    )
    monkeypatch.setattr(blas_threads.os, 'getloadavg', lambda: (3.5, 3.5, 3.5))
    clock = {'now': 100.0, 'busy': 1000.0, 'own': 10.0}
    monkeypatch.setattr(blas_threads.time, 'monotonic', lambda: clock['now'])
    monkeypatch.setattr(
        blas_threads, '_busy_cpu_seconds', lambda: clock['busy']
    )
    monkeypatch.setattr(blas_threads, '_own_cpu_seconds', lambda: clock['own'])
    return clock


def test_automatic_counts_only_other_processes(clock):
    """Threads = cores less the cores other processes kept busy since the
    last look; this process's own work does not count, and the choice is
    made again after RECHECK_SECONDS (the load average would lag)."""

    def after(seconds, busy_cores, own_cores):
        clock['now'] += seconds
        clock['busy'] += seconds * busy_cores  # all processes, this one too
        clock['own'] += seconds * own_cores
        return blas_threads.default_threads()

    # the first look has nothing to compare with: the load average
    assert blas_threads.default_threads() == 1
    assert 'load average 3' in blas_threads.info()['reason']
    # this process alone keeps 2 cores busy: all 4 cores stay available
    assert after(blas_threads.RECHECK_SECONDS + 1, 2.0, 2.0) == 4
    assert blas_threads.info()['reason'] == 'automatic: 4 cores'
    # another program takes one core
    assert after(3.0, 3.0, 2.0) == 3
    assert (
        '1.0 cores busy with other processes' in blas_threads.info()['reason']
    )
    # within RECHECK_SECONDS the choice stands, whatever happens
    assert after(blas_threads.RECHECK_SECONDS / 4, 4.0, 0.0) == 3
    # two other programs
    assert after(3.0, 4.0, 2.0) == 2
    # never below one thread
    assert after(3.0, 4.0, 0.0) == 1


def test_the_first_choice_measures_from_the_look_at_import(clock):
    """dlbook looks at the CPU time when imported: the first choice, a
    moment later, measures instead of reading the load average (which
    lags: a busy program that just ended still counts).  A window under
    MIN_WINDOW_SECONDS falls back to the load average and keeps the
    older look for the next choice."""
    blas_threads._cores_busy_elsewhere(clock['now'])  # the look at import
    # too soon after it: the load average, and the look is kept
    clock['now'] += blas_threads.MIN_WINDOW_SECONDS / 2
    assert blas_threads.default_threads() == 1
    assert 'load average 3' in blas_threads.info()['reason']
    assert blas_threads._STATE['sample'][0] == 100.0
    # later, after a second of this process alone on the machine
    clock['now'] += blas_threads.RECHECK_SECONDS + 1
    clock['own'] += 1.0
    clock['busy'] += 1.0
    assert blas_threads.default_threads() == 4
    assert blas_threads.info()['reason'] == 'automatic: 4 cores'


@pytest.mark.parametrize(
    'variables, expected',
    [
        ({'OPENBLAS_NUM_THREADS': '1'}, 1),
        ({'OMP_NUM_THREADS': '2'}, 2),
        ({'OMP_NUM_THREADS': '3', 'OPENBLAS_NUM_THREADS': '2'}, 2),
        ({'OMP_NUM_THREADS': '8'}, 4),  # a cap above the cores
        ({'OMP_NUM_THREADS': 'many'}, 4),  # not a number: ignored
    ],
)
def test_automatic_keeps_to_openblas_and_omp_num_threads(
    fresh, monkeypatch, variables, expected
):
    """A job script's OPENBLAS_NUM_THREADS or OMP_NUM_THREADS caps the
    automatic choice (dlbook sets OpenBLAS's threads itself, so without
    the cap the variable would be overridden)."""
    monkeypatch.delenv('DLBOOK_NUM_THREADS', raising=False)
    monkeypatch.setattr(
        blas_threads.os, 'sched_getaffinity', lambda pid: {0, 1, 2, 3}
    )
    monkeypatch.setattr(blas_threads.os, 'getloadavg', lambda: (0.0,) * 3)
    monkeypatch.setattr(blas_threads, '_busy_cpu_seconds', lambda: None)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    assert blas_threads.default_threads() == expected
    if expected < 4:
        assert 'at most' in blas_threads.info()['reason']


def test_environment_variable_is_not_rechecked(fresh, monkeypatch):
    monkeypatch.setenv('DLBOOK_NUM_THREADS', '2')
    clock = {'now': 0.0}
    monkeypatch.setattr(blas_threads.time, 'monotonic', lambda: clock['now'])
    assert blas_threads.default_threads() == 2
    monkeypatch.setenv('DLBOOK_NUM_THREADS', '3')
    clock['now'] += 10 * blas_threads.RECHECK_SECONDS
    assert blas_threads.default_threads() == 2


def test_busy_cpu_seconds_reads_proc_stat():
    busy = blas_threads._busy_cpu_seconds()
    if busy is None:
        pytest.skip('no /proc/stat here')
    own = blas_threads._own_cpu_seconds()
    assert busy >= own > 0


def test_worker_processes_use_one_thread(fresh, monkeypatch):
    monkeypatch.setenv('DLBOOK_NUM_THREADS', '2')
    blas_threads.use_single_thread()
    blas_threads.for_gemm(np, 1024, 1024, 1024)
    assert set(blas_threads_now()) == {1}


def test_other_array_modules_untouched(fresh):
    class FakeCupy:
        __name__ = 'cupy'

    blas_threads.for_gemm(FakeCupy(), 4096, 4096, 4096)
    assert blas_threads._STATE['current'] is None


def test_import_dlbook_does_not_load_threadpoolctl():
    code = 'import sys, dlbook; print("threadpoolctl" in sys.modules)'
    out = subprocess.run(
        [sys.executable, '-c', code],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == 'False'


@pytest.mark.parametrize(
    'op, shapes',
    [
        ('dot', [(512, 512), (512, 512)]),
        ('batch_dot', [(2, 512, 512), (2, 512, 512)]),
    ],
)
def test_dot_and_batch_dot_follow_the_policy(fresh, monkeypatch, op, shapes):
    """A large product gets DLBOOK_NUM_THREADS threads, a small one 1,
    forward and backward alike."""
    from dlbook import autograd, nd

    monkeypatch.setenv('DLBOOK_NUM_THREADS', '2')
    rng = np.random.RandomState(0)
    big = [nd.array(rng.rand(*s)) for s in shapes]
    small = [nd.array(rng.rand(*(s[:-2] + (4, 4)))) for s in shapes]
    for x in big + small:
        x.attach_grad()
    with autograd.record():
        y = getattr(nd, op)(*small)
    assert set(blas_threads_now()) == {1}
    with autograd.record():
        y = getattr(nd, op)(*big)
    assert set(blas_threads_now()) == {2}
    blas_threads.for_gemm(np, 4, 4, 4)
    y.backward()
    assert set(blas_threads_now()) == {2}


def _ranges(start, stop):
    return start, stop


def _split_in_child():
    return blas_threads.run_split(_ranges, 5, 2)


def test_run_split_covers_the_range_in_order():
    assert blas_threads.run_split(_ranges, 5, 2) == [(0, 2), (2, 5)]
    assert blas_threads.run_split(_ranges, 2, 3) == [(0, 1), (1, 2)]
    assert blas_threads.run_split(_ranges, 5, 1) == [(0, 5)]


@pytest.mark.skipif(not hasattr(__import__('os'), 'fork'), reason='needs fork')
def test_items_per_block_fits_the_budget_within_a_threads_share():
    # 1 MiB of buffers, 100 KiB per image: 10 images a block
    assert blas_threads.items_per_block(100 * 2**10, 512, 2, 2**20) == 10
    # never more than a thread's share (3 of 5 images on 2 threads)
    assert blas_threads.items_per_block(1, 5, 2, 2**20) == 3
    # at least one, even when one image is over the budget
    assert blas_threads.items_per_block(2**30, 512, 2, 2**20) == 1


@pytest.mark.parametrize('threads', [1, 2, 3])
def test_run_split_sum_adds_the_ranges_results(threads):
    values = np.arange(10.0)

    def partial(start, stop):
        return np.array([values[start:stop].sum()])

    total = blas_threads.run_split_sum(partial, 10, threads)
    np.testing.assert_array_equal(total, [values.sum()])


def test_run_split_in_a_forked_child():
    """A child process forked after the pool started gets its own pool
    (the inherited one has no threads: its work would never run)."""
    import multiprocessing

    blas_threads.run_split(_ranges, 4, 2)  # the parent's pool
    with multiprocessing.get_context('fork').Pool(1) as pool:
        result = pool.apply_async(_split_in_child).get(timeout=60)
    assert result == [(0, 2), (2, 5)]


class FakeLibrary:
    """A BLAS library's functions as ``threadpoolctl`` exposes them."""

    def __init__(self):
        self.calls = []

    def openblas_read_env(self):
        self.calls.append('read_env')

    def blas_thread_shutdown_(self):
        self.calls.append('shutdown')


class FakeController:
    def __init__(self, internal_api='openblas', dynlib=None):
        self.internal_api = internal_api
        self.dynlib = dynlib


def clear_timeout(monkeypatch):
    for name in blas_threads._TIMEOUT_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def test_openblas_threads_are_restarted_to_sleep_at_once(monkeypatch):
    """The timeout is set, OpenBLAS re-reads it and restarts its threads
    (re-read first: the restart applies what was read)."""
    clear_timeout(monkeypatch)
    lib = FakeLibrary()
    changed = blas_threads._stop_spinning([FakeController(dynlib=lib)])
    assert len(changed) == 1
    assert lib.calls == ['read_env', 'shutdown']
    assert os.environ['OPENBLAS_THREAD_TIMEOUT'] == blas_threads.THREAD_TIMEOUT


@pytest.mark.parametrize(
    'name', ['OPENBLAS_THREAD_TIMEOUT', 'GOTO_THREAD_TIMEOUT']
)
def test_a_timeout_set_by_the_user_is_kept(monkeypatch, name):
    clear_timeout(monkeypatch)
    monkeypatch.setenv(name, '20')
    lib = FakeLibrary()
    assert blas_threads._stop_spinning([FakeController(dynlib=lib)]) == []
    assert lib.calls == []


def test_other_libraries_and_builds_without_the_functions_are_left(
    monkeypatch,
):
    clear_timeout(monkeypatch)
    mkl = FakeLibrary()
    controllers = [
        FakeController('mkl', mkl),
        FakeController('openblas', object()),  # functions not exported
        FakeController('openblas', None),
    ]
    assert blas_threads._stop_spinning(controllers) == []
    assert mkl.calls == []


def test_numpy_openblas_gets_the_short_timeout():
    """In a fresh process (NumPy imported first, as in a notebook), the
    first product dlbook configures leaves OpenBLAS with the new
    timeout; skipped where NumPy does not use an OpenBLAS that exports
    the functions."""
    code = (
        'import numpy\n'
        'from dlbook.backend import blas_threads\n'
        'blas_threads.for_gemm(numpy, 1024, 1024, 1024)\n'
        'a = numpy.ones((512, 512), numpy.float32)\n'
        'a @ a  # starts the threads again\n'
        'for c in blas_threads._controllers():\n'
        '    if hasattr(c.dynlib, "openblas_thread_timeout"):\n'
        '        print(c.dynlib.openblas_thread_timeout())\n'
    )
    env = {k: v for k, v in os.environ.items() if 'THREAD_TIMEOUT' not in k}
    out = subprocess.run(
        [sys.executable, '-c', code],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout.split()
    if not out:
        pytest.skip('NumPy does not use an OpenBLAS exporting the functions')
    assert set(out) == {blas_threads.THREAD_TIMEOUT}
