"""Python's garbage collector while ``autograd.record()`` is open.

Recording one operator allocates a handful of small Python objects (the
operator instance, its output NDArray, the tape node, two tuples and a
weak reference) and keeps them alive until ``backward``.  CPython counts
every such allocation: each 700 (its default first threshold) it runs a
young-generation collection, every tenth of those a middle one, and now
and then a full one, which traverses *every* object of the process.  With
a large library loaded beside dlbook (PyTorch alone brings about 140,000
objects) a long recorded chain spends most of its time in the collector,
looking at objects that cannot be garbage.

So when a collection starts while the thread is recording, or running
``backward`` (which allocates a few objects per node too), the first
threshold is raised to :data:`RECORDING_THRESHOLD` (when it is lower, and
not 0, which means "collection off"); it is put back when that recording
scope or backward pass ends.  A short training step, whose recording
ends before the collector's next run, never changes it.  The collector
still runs; it runs less often.  The tape makes no reference cycles (an
output points to its node and the node to its inputs; an input points
back only through a weak reference), so no memory waits longer to be
freed.

Measured on a 10,000-deep ``c = c + b`` chain plus ``backward`` (2-core
AMD EPYC, Python 3.11, µs per operator): 7.9 at the default threshold and
5.9 with 10,000; with PyTorch imported in the process 14.2 and 5.9.

``DLBOOK_GC_THRESHOLD=n`` sets the threshold used while recording;
``DLBOOK_GC_THRESHOLD=0`` leaves the collector's settings alone.
"""

import gc
import os
import threading

__all__ = ['RECORDING_THRESHOLD', 'watch', 'restore']


def _threshold_from_env():
    text = os.environ.get('DLBOOK_GC_THRESHOLD', '').strip()
    if not text:
        return 10000
    try:
        value = int(text)
    except ValueError:
        raise ValueError(
            f'DLBOOK_GC_THRESHOLD must be a whole number of allocations '
            f'(0 leaves the garbage collector alone), got {text!r}'
        ) from None
    return max(value, 0)


#: First-generation threshold of the garbage collector while recording.
RECORDING_THRESHOLD = _threshold_from_env()

_lock = threading.Lock()
# the thresholds to put back once the busy phase ends (None: not raised)
_raised = {'saved': None}


def watch(busy):
    """Raise the threshold at the first collection that starts while
    ``busy()`` is true (the thread is recording, or in ``backward``).

    Done from ``gc.callbacks``, so a recording scope or a backward pass
    costs nothing until the collector actually runs inside it: short
    training steps never touch the thresholds, long recordings do after
    their first few hundred objects.
    """
    if not RECORDING_THRESHOLD:
        return

    def on_collection(phase, info):
        if phase == 'start' and _raised['saved'] is None and busy():
            _raise()

    gc.callbacks.append(on_collection)


def _raise():
    with _lock:
        current = gc.get_threshold()
        if _raised['saved'] is None and 0 < current[0] < RECORDING_THRESHOLD:
            gc.set_threshold(RECORDING_THRESHOLD, *current[1:])
            _raised['saved'] = current


def restore():
    """The busy phase ended: put the thresholds back if they were raised,
    unless someone changed them in between.  Cheap when they were not."""
    if _raised['saved'] is None:
        return
    with _lock:
        saved, _raised['saved'] = _raised['saved'], None
        if saved is not None and gc.get_threshold()[0] == RECORDING_THRESHOLD:
            gc.set_threshold(*saved)
