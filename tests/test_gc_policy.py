"""The garbage collector's threshold while ``autograd.record()`` is open
(``dlbook/_gc_policy.py``): raised in the outermost scope, restored after
it, never lowered, and left alone when the user has changed it."""

import gc
import threading

import pytest

from dlbook import _gc_policy, autograd


@pytest.fixture(autouse=True)
def default_collector(monkeypatch):
    """Each test starts from Python's default thresholds and the policy's
    default setting, and puts the process's thresholds back after."""
    saved = gc.get_threshold()
    monkeypatch.setattr(_gc_policy, 'RECORDING_THRESHOLD', 10000)
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*saved)


def test_recording_raises_the_first_threshold_and_restores_it():
    with autograd.record():
        assert gc.get_threshold() == (10000, 10, 10)
        with autograd.record():  # nested: still relaxed
            assert gc.get_threshold() == (10000, 10, 10)
        assert gc.get_threshold() == (10000, 10, 10)
        with autograd.pause():
            assert gc.get_threshold() == (10000, 10, 10)
            with autograd.record():  # recording again inside pause
                assert gc.get_threshold()[0] == 10000
            assert gc.get_threshold()[0] == 10000
    assert gc.get_threshold() == (700, 10, 10)


def test_training_scopes_leave_the_collector_alone():
    with autograd.train_mode():
        assert gc.get_threshold() == (700, 10, 10)
    with autograd.pause():
        assert gc.get_threshold() == (700, 10, 10)


def test_restored_after_an_exception():
    with pytest.raises(RuntimeError):
        with autograd.record():
            raise RuntimeError('in the loop')
    assert gc.get_threshold() == (700, 10, 10)


@pytest.mark.parametrize('threshold', [0, 50000])
def test_collection_off_or_a_higher_threshold_is_kept(threshold):
    gc.set_threshold(threshold, 10, 10)
    with autograd.record():
        assert gc.get_threshold() == (threshold, 10, 10)
    assert gc.get_threshold() == (threshold, 10, 10)


def test_a_threshold_set_inside_the_scope_is_not_overwritten():
    with autograd.record():
        gc.set_threshold(123, 4, 5)
    assert gc.get_threshold() == (123, 4, 5)


def test_policy_off(monkeypatch):
    monkeypatch.setattr(_gc_policy, 'RECORDING_THRESHOLD', 0)
    with autograd.record():
        assert gc.get_threshold() == (700, 10, 10)


def test_scopes_in_two_threads_restore_after_the_last():
    inside, release = threading.Event(), threading.Event()
    seen = {}

    def worker():
        with autograd.record():
            inside.set()
            release.wait(10)
            seen['worker'] = gc.get_threshold()[0]

    thread = threading.Thread(target=worker)
    thread.start()
    inside.wait(10)
    with autograd.record():
        pass
    seen['after main'] = gc.get_threshold()[0]  # the worker is still in
    release.set()
    thread.join(10)
    assert seen == {'worker': 10000, 'after main': 10000}
    assert gc.get_threshold() == (700, 10, 10)


@pytest.mark.parametrize(
    'text, expected', [('', 10000), ('2500', 2500), ('0', 0), ('-3', 0)]
)
def test_threshold_from_the_environment(monkeypatch, text, expected):
    monkeypatch.setenv('DLBOOK_GC_THRESHOLD', text)
    assert _gc_policy._threshold_from_env() == expected


def test_bad_environment_value_names_the_variable(monkeypatch):
    monkeypatch.setenv('DLBOOK_GC_THRESHOLD', 'lots')
    with pytest.raises(ValueError, match="DLBOOK_GC_THRESHOLD.*'lots'"):
        _gc_policy._threshold_from_env()


def test_recorded_graph_is_freed_without_the_collector():
    """The relaxed collector must not hold memory: a recorded graph is
    freed by reference counting alone when its result is dropped."""
    import weakref

    import dlbook as mx

    x = mx.nd.ones((4, 4))
    x.attach_grad()
    gc.disable()
    try:
        with autograd.record():
            y = (x * 2 + 1).sum()
        node = weakref.ref(y._node)
        del y
        assert node() is None
    finally:
        gc.enable()


def test_backward_runs_relaxed_and_restores():
    import dlbook as mx

    seen = []

    class Probe(autograd.Function):
        def forward(self, x):
            return x * 1

        def backward(self, dy):
            seen.append(gc.get_threshold()[0])
            return dy

    x = mx.nd.ones((2, 2))
    x.attach_grad()
    with autograd.record():
        y = Probe()(x)
    assert gc.get_threshold()[0] == 700
    y.backward()
    assert seen == [10000]
    assert gc.get_threshold() == (700, 10, 10)
