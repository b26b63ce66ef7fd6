"""The garbage collector's threshold while ``autograd.record()`` is open
or ``backward`` runs (``dlbook/_gc_policy.py``): raised at the first
collection inside, kept for the backward pass after a recording and put
back when it ends (or, with no backward, at the next collection outside
recording), never lowered, and left alone when the user has changed
it."""

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
    monkeypatch.setitem(_gc_policy._raised, 'saved', None)
    monkeypatch.setitem(_gc_policy._raised, 'ended', False)
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*saved)


def test_a_collection_while_recording_raises_the_threshold():
    with autograd.record():
        # nothing changes until the collector runs inside the scope
        assert gc.get_threshold() == (700, 10, 10)
        gc.collect()
        assert gc.get_threshold() == (10000, 10, 10)
        with autograd.record():  # nested: still raised
            gc.collect()
        assert gc.get_threshold() == (10000, 10, 10)
    # kept for a backward pass; no backward came: put back at the next
    # collection outside recording
    assert gc.get_threshold() == (10000, 10, 10)
    gc.collect()
    assert gc.get_threshold() == (700, 10, 10)


def test_recording_again_inside_pause_keeps_the_outer_scope_relaxed():
    with autograd.record():
        with autograd.pause():
            with autograd.record():
                gc.collect()
                assert gc.get_threshold()[0] == 10000
            # the inner recording ended: a collection here, outside
            # recording, puts the threshold back
            gc.collect()
            assert gc.get_threshold()[0] == 700
        gc.collect()
        assert gc.get_threshold()[0] == 10000
    gc.collect()
    assert gc.get_threshold() == (700, 10, 10)


def test_outside_recording_the_collector_is_left_alone():
    gc.collect()
    with autograd.train_mode():
        gc.collect()
        assert gc.get_threshold() == (700, 10, 10)
    with autograd.pause():
        gc.collect()
        assert gc.get_threshold() == (700, 10, 10)


def test_restored_after_an_exception():
    with pytest.raises(RuntimeError):
        with autograd.record():
            gc.collect()
            raise RuntimeError('in the loop')
    gc.collect()
    assert gc.get_threshold() == (700, 10, 10)


@pytest.mark.parametrize('threshold', [0, 50000])
def test_collection_off_or_a_higher_threshold_is_kept(threshold):
    gc.set_threshold(threshold, 10, 10)
    with autograd.record():
        gc.collect()
        assert gc.get_threshold() == (threshold, 10, 10)
    assert gc.get_threshold() == (threshold, 10, 10)


def test_a_threshold_set_inside_the_scope_is_not_overwritten():
    with autograd.record():
        gc.collect()
        gc.set_threshold(123, 4, 5)
    assert gc.get_threshold() == (123, 4, 5)


def test_policy_off(monkeypatch):
    monkeypatch.setattr(_gc_policy, 'RECORDING_THRESHOLD', 0)
    with autograd.record():
        gc.collect()
        assert gc.get_threshold() == (700, 10, 10)


def test_only_the_recording_thread_raises_it():
    inside, release = threading.Event(), threading.Event()
    seen = {}

    def worker():
        with autograd.record():
            gc.collect()
            seen['worker'] = gc.get_threshold()[0]
            inside.set()
            release.wait(10)

    gc.collect()  # this thread does not record: no change
    seen['before'] = gc.get_threshold()[0]
    thread = threading.Thread(target=worker)
    thread.start()
    inside.wait(10)
    gc.collect()  # a collection in this thread keeps the worker's setting
    seen['beside'] = gc.get_threshold()[0]
    release.set()
    thread.join(10)
    assert seen == {'before': 700, 'worker': 10000, 'beside': 10000}
    gc.collect()  # the worker's recording ended: put back
    assert gc.get_threshold() == (700, 10, 10)


@pytest.mark.parametrize(
    'text, expected', [('', 100000), ('2500', 2500), ('0', 0), ('-3', 0)]
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


def test_a_collection_in_backward_raises_it_until_backward_ends():
    import dlbook as mx

    seen = []

    class Probe(autograd.Function):
        def forward(self, x):
            return x * 1

        def backward(self, dy):
            gc.collect()
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


def test_kept_raised_from_recording_through_backward():
    """A collection while recording raises the threshold; it stays raised
    through the backward pass that follows (no collection at its start
    over everything recorded) and is put back when backward ends."""
    import dlbook as mx

    x = mx.nd.ones((2, 2))
    x.attach_grad()
    with autograd.record():
        y = x * 2
        gc.collect()
    assert gc.get_threshold()[0] == 10000
    y.backward()
    assert gc.get_threshold() == (700, 10, 10)
