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
