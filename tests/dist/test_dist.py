"""dist_* kvstores across processes: ``mpiexec -n 2`` on this machine.

Expected values are MXNet 1.9.1's, measured with 2 workers (see the
table in dlbook.kvstore.dist and the 2-bit sequence of MXNet's
tests/nightly/dist_sync_kvstore.py, check_compr_residual).
"""
import re
import sys
import time

import pytest

from .conftest import mpirun, needs_mpi, results, run

pytestmark = [needs_mpi, pytest.mark.timeout(120)]


@pytest.mark.parametrize('name', ['dist_sync', 'dist_device_sync'])
def test_semantics_table(name):
    proc = mpirun(2, 'worker_semantics.py', name)
    assert proc.returncode == 0, proc.stderr
    ranks = results(proc)
    assert [r['rank'] for r in ranks] == [0, 1]
    for r in ranks:
        assert r['num_workers'] == 2 and r['type'] == name
        assert r['init'] == [10.0] * 4          # MXNet 1.9.1: rank 0 wins
        assert r['push_sum'] == [3.0] * 4       # the sum, not the mean
        assert r['devices'] == [4.0] * 4        # devices, then workers
        assert r['pushpull'] == [3.0] * 4
        assert r['pull_after_pushpull'] == [3.0] * 4
        assert r['pushpull_out'] == [3.0] * 4
        assert r['2bit'] == [0.0, 1.0, -1.0, 1.0]
        assert r['2bit_sgd'] == pytest.approx([0.9] * 4)
        # MXNet 1.9.1 gives 0, 2, 2, 4, 4, 6 (residual carried over)
        assert [s[0] for s in r['2bit_seq']] == [0, 2, 2, 4, 4, 6]


@pytest.mark.parametrize('update_on_kvstore,optimizer,expect', [
    ('none', 'sgd', False),     # SGD aggregates: MXNet then updates locally
    ('false', 'sgd', False),
    ('true', 'adam', True),
])
def test_two_workers_equal_one_process_two_devices(update_on_kvstore,
                                                   optimizer, expect):
    proc = mpirun(2, 'worker_train.py', 'equiv', update_on_kvstore,
                  optimizer)
    assert proc.returncode == 0, proc.stderr
    r0, r1 = results(proc)
    assert r0['update_on_kvstore'] is expect
    assert r0['moved'] > 0.1
    assert r0['max_diff'] < 1e-5
    assert r0['w0'] == r1['w0']                 # replicas stay identical


def test_dist_async_converges():
    proc = mpirun(3, 'worker_train.py', 'async', DMLC_NUM_SERVER='1')
    assert proc.returncode == 0, proc.stderr
    ranks = results(proc)
    assert len(ranks) == 2
    for r in ranks:
        assert r['type'] == 'dist_async' and r['num_workers'] == 2
        assert r['loss'] < 0.05 * r['loss0']


def test_four_ranks_oversubscribed():
    proc = mpirun(4, 'worker_semantics.py', 'dist_sync', timeout=90)
    assert proc.returncode == 0, proc.stderr
    ranks = results(proc)
    assert len(ranks) == 4
    for r in ranks:
        assert r['num_workers'] == 4
        assert r['init'] == [10.0] * 4
        assert r['push_sum'] == [10.0] * 4      # 1 + 2 + 3 + 4
        assert r['devices'] == [8.0] * 4
        assert r['2bit'] == [0.0, 2.0, -2.0, 2.0]


@pytest.mark.parametrize('mode', ['raise', 'kill'])
def test_failed_worker_stops_the_job(mode):
    start = time.monotonic()
    proc = run([sys.executable, '-m', 'dlbook.launch', '-n', '2',
                sys.executable, 'tests/dist/worker_errors.py', mode],
               timeout=60)
    took = time.monotonic() - start
    assert proc.returncode != 0
    assert took < 30
    if mode == 'raise':
        assert 'worker 1 (process 1 of 2' in proc.stderr
        assert 'failing on purpose' in proc.stderr
    else:
        assert 'worker rank 1 (pid' in proc.stderr


@pytest.mark.parametrize('n', [2, 3])
def test_hanging_worker_is_named_within_the_timeout(n):
    start = time.monotonic()
    proc = run([sys.executable, '-m', 'dlbook.launch', '-n', str(n),
                sys.executable, 'tests/dist/worker_errors.py', 'hang'],
               timeout=60, DLBOOK_DIST_TIMEOUT='3')
    took = time.monotonic() - start
    assert proc.returncode != 0
    assert took < 30
    # the first waiting worker to give up stops the job
    assert re.search(r'worker [02] waited 3 s \(DLBOOK_DIST_TIMEOUT\) in '
                     r'pushpull of key 0 shape \(3,\)', proc.stderr), \
        proc.stderr
    assert 'worker 1 did not answer' in proc.stderr
    if n == 3:
        assert re.search(r'waiting here too: worker [02]\n', proc.stderr)


@pytest.mark.parametrize('mode,words,check', [
    ('shape', ['KVStore.init', 'worker 0: key 0 shape (3,)',
               'worker 1: key 0 shape (4,)'], '0'),
    # found by the tags summed with the data, then by the full check
    ('key', ['KVStore.push', "worker 0: key 'a'", "worker 1: key 'b'"], '0'),
    ('key', ['KVStore.push', "worker 0: key 'a'", "worker 1: key 'b'"], '1'),
])
def test_mismatch_is_one_clear_error(mode, words, check):
    proc = mpirun(2, 'worker_errors.py', mode, timeout=60,
                  DLBOOK_DIST_CHECK=check)
    assert proc.returncode != 0
    for w in words:
        assert w in proc.stderr


def test_launcher_runs_the_job():
    proc = run([sys.executable, '-m', 'dlbook.launch', '-n', '2',
                sys.executable, 'tests/dist/worker_semantics.py'])
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith('dlbook.launch: ')
    assert len(results(proc)) == 2


def test_module_fit_on_dist_sync():
    proc = mpirun(2, 'worker_module.py')
    assert proc.returncode == 0, proc.stderr
    r0, r1 = results(proc)
    # MXNet's Module: rescale_grad = 1 / (batch_size * num_workers)
    assert r0['rescale'] == r1['rescale'] == 1 / 16
    assert r0['w'] == r1['w']
    assert r0['w'] == pytest.approx([1.0, -2.0, 0.5], abs=0.02)


# -- dist_device_sync on (fake) GPUs: NCCL or host-staged MPI --------------

def _nccl_calls(rank):
    """The fake NCCL's log for one rank of worker_device.py: one
    communicator per store (rank 0 makes the unique id), a bcast per init,
    an in-place allReduce per push on the default stream (ptr 0), and
    NCCL's datatype codes (7 float32, 6 float16, 2 int32, 8 float64)."""
    def store():
        return ([['get_unique_id']] if rank == 0 else []) + \
            [['NcclCommunicator', 2, rank, rank]]
    return store() + [
        ['bcast', 4, 7, 0, 0]] + [['allReduce', 4, 7, 0, 0, True]] * 3 + [
        ['bcast', 3, 6, 0, 0], ['allReduce', 3, 6, 0, 0, True],
        ['bcast', 3, 2, 0, 0], ['allReduce', 3, 2, 0, 0, True],
        ['bcast', 3, 8, 0, 0], ['allReduce', 3, 8, 0, 0, True]] + store() + [
        ['bcast', 6, 7, 0, 0], ['allReduce', 6, 7, 0, 0, True],
        # 2-bit compression: the push goes through the host
        ['bcast', 4, 7, 0, 0]]


@pytest.mark.parametrize('where,env,nccl,warns', [
    ('own', {}, True, False),
    ('own', {'DLBOOK_DIST_DEVICE_COMM': 'host'}, False, False),
    ('own', {'DLBOOK_FAKE_NCCL': '0'}, False, 'CuPy reports no NCCL'),
    ('same', {}, False, 'workers 0, 1 share one GPU'),
])
def test_dist_device_sync_nccl_or_host(where, env, nccl, warns):
    proc = mpirun(2, 'worker_device.py', where, DLBOOK_FAKE_GPUS='2',
                  **env)
    assert proc.returncode == 0, proc.stderr
    ranks = results(proc)
    for r in ranks:
        # the same values on both paths: MXNet's dist_sync semantics
        assert r['init'] == [10.0] * 4          # rank 0 wins
        assert r['push_sum'] == [3.0] * 4       # 1 + 2
        assert r['devices'] == [4.0] * 4        # devices, then workers
        assert r['pushpull'] == [3.0] * 4
        assert r['f16'] == r['f64'] == [1.5, 4.5, -6.0]
        assert r['i32'] == [0, 3, -6]
        assert sum(r['sgd'], []) == pytest.approx([0.7] * 6)   # 1 - 0.1 * 3
        assert r['2bit'] == [0.0, 1.0, -1.0, 1.0]
        if nccl:
            assert r['nccl_keys'] == ['f16', 'f64', 'i32', 'k', '3', '4']
            assert r['calls'] == _nccl_calls(r['rank'])
        else:
            assert r['nccl_keys'] == [] and r['calls'] == []
    if warns:
        assert warns in proc.stderr and 'not NCCL' in proc.stderr
    else:
        assert 'not NCCL' not in proc.stderr


@pytest.mark.parametrize('where,env,words', [
    ('same', {}, 'workers 0, 1 share one GPU, and NCCL needs one GPU'),
    ('own', {'DLBOOK_FAKE_NCCL': '0'}, 'workers 0, 1: CuPy reports no NCCL'),
])
def test_dist_device_sync_forced_nccl_says_why_not(where, env, words):
    proc = mpirun(2, 'worker_device.py', where, DLBOOK_FAKE_GPUS='2',
                  DLBOOK_DIST_DEVICE_COMM='nccl', **env)
    assert proc.returncode != 0
    assert "DLBOOK_DIST_DEVICE_COMM=nccl: key 'k' cannot go through " \
           "NCCL" in proc.stderr
    assert words in proc.stderr


def test_fake_nccl_is_strict():
    proc = mpirun(2, 'worker_device.py', 'strict', DLBOOK_FAKE_GPUS='2')
    assert proc.returncode == 0, proc.stderr
    for r in results(proc):
        e = r['errors']
        assert 'not the data.ptr of a live device array' in e['host_pointer']
        assert '5 elements of float32 do not fit' in e['count']
        assert 'datatype 8 (float64) given for an array of float32' in \
            e['dtype']
        assert e['stream'].startswith('TypeError: allReduce: stream must '
                                      'be an int')
        assert f'the communicator belongs to device {r["rank"]}' in \
            e['device']
        assert r['sum'] == [2.0] * 4


# -- dist_async: a server or worker that dies or hangs ---------------------

@pytest.mark.parametrize('mode,words', [
    # a hanging server: each worker's wait for its answer has a deadline
    ('stall_server', [r'worker [01] waited 3 s \(DLBOOK_DIST_TIMEOUT\) for '
                      r'the server \(process 2 of 3\) to answer pull of '
                      r'key 0: the server is hanging']),
    # named by the launcher (with any process mpiexec stopped within the
    # same 10 ms)
    ('kill_server', [r'server rank 2 \(pid \d+ on \S+\)',
                     'ended abnormally']),
    # a hanging worker: the others name it when they finish
    ('hang_worker', [r'worker 0 waited 3 s \(DLBOOK_DIST_TIMEOUT\) in the '
                     r'end of the job', r'worker 1 did not answer']),
    ('kill_worker', [r'worker rank 1 \(pid \d+ on \S+\)',
                     'ended abnormally']),
])
def test_dist_async_failure_is_named_within_the_timeout(mode, words):
    start = time.monotonic()
    proc = run([sys.executable, '-m', 'dlbook.launch', '-n', '2', '-s', '1',
                sys.executable, 'tests/dist/worker_async_errors.py', mode],
               timeout=60, DLBOOK_DIST_TIMEOUT='3')
    took = time.monotonic() - start
    assert proc.returncode != 0
    assert took < 30
    for w in words:
        assert re.search(w, proc.stderr), proc.stderr
