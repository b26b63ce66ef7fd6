"""Checkers of chapter 16: references pass, typical mistakes explained."""

from dlbook.exercises.checker import run_check

from .failing import fails as _fails


def worker_slice(X, num_workers, rank):
    n = X.shape[0] // num_workers
    return X[rank * n : (rank + 1) * n]


def test_worker_slice_reference_and_split_data_pass():
    from dlbook import gluon

    assert run_check('ch16.worker_slice', worker_slice).passed
    assert run_check(
        'ch16.worker_slice', lambda X, n, r: gluon.utils.split_data(X, n)[r]
    ).passed


def test_worker_slice_interleaved_is_explained():
    _fails(
        'ch16.worker_slice',
        lambda X, n, r: X[r::n],
        'every num_workers-th example',
    )
    _fails('ch16.worker_slice', lambda X, n, r: X, 'should get rows')


def bytes_per_step(net, compression=None):
    total = 0
    for param in net.collect_params().values():
        size = param.data().size
        total += -(-size // 16) * 4 if compression == '2bit' else size * 4
    return total


def test_bytes_per_step_reference_passes():
    assert run_check('ch16.bytes_per_step', bytes_per_step).passed


def test_bytes_per_step_mistakes():
    def values(net, compression=None):
        return sum(p.data().size for p in net.collect_params().values())

    _fails('ch16.bytes_per_step', values, 'a float32 is 4 bytes')

    def rounded_once(net, compression=None):
        if compression != '2bit':
            return bytes_per_step(net)
        return (
            sum(p.data().size for p in net.collect_params().values()) * 4 / 16
        )

    _fails('ch16.bytes_per_step', rounded_once, 'round up per parameter')


def ring_allreduce_bytes(size_bytes, num_workers):
    return 2 * (num_workers - 1) / num_workers * size_bytes


def test_ring_allreduce_reference_passes():
    assert run_check('ch16.ring_allreduce_bytes', ring_allreduce_bytes).passed


def test_ring_allreduce_one_phase_is_explained():
    _fails(
        'ch16.ring_allreduce_bytes',
        lambda s, n: (n - 1) / n * s,
        'one of the two phases',
    )
    _fails('ch16.ring_allreduce_bytes', lambda s, n: 2 * s, 'sends')
