"""Small bookkeeping helpers from d2l: ``Timer`` and ``Accumulator``.

Both keep plain Python floats, so they never hold on to device arrays.
Chapter notebooks use them to time epochs and to sum losses and counts
over a pass through the data.
"""

import itertools
import time


class Timer:
    """Record several running times.

    Parameters
    ----------
    clock : callable, optional
        Returns the current time in seconds. Defaults to
        ``time.perf_counter``, a monotonic clock made for measuring
        intervals (``time.time`` can jump when the system clock is set).
        Tests pass a fake clock.

    Examples
    --------
    >>> timer = Timer()
    >>> # ... some work ...
    >>> elapsed = timer.stop()   # seconds since the timer was created
    >>> timer.start()            # start the next interval
    >>> total = timer.sum()

    On a GPU, synchronise the device (``nd.waitall()``) before
    ``stop()``: work is queued asynchronously, so otherwise the timer
    measures how long it took to *queue* the work.
    """

    def __init__(self, clock=None):
        self._clock = clock if clock is not None else time.perf_counter
        self.times = []
        self.start()

    def start(self):
        """Start (or restart) the current interval."""
        self.tik = self._clock()

    def stop(self):
        """Stop the current interval, record it and return its length."""
        self.times.append(self._clock() - self.tik)
        return self.times[-1]

    def avg(self):
        """Return the mean of the recorded intervals."""
        return sum(self.times) / len(self.times)

    def sum(self):
        """Return the sum of the recorded intervals."""
        return sum(self.times)

    def cumsum(self):
        """Return the running totals of the recorded intervals, as a list."""
        return list(itertools.accumulate(self.times))

    def __repr__(self):
        return f'Timer(intervals={len(self.times)})'


class Accumulator:
    """Sum ``n`` quantities over many calls to ``add``.

    Parameters
    ----------
    n : int
        How many running sums to keep.

    Examples
    --------
    >>> metric = Accumulator(2)   # sum of losses, number of examples
    >>> metric.add(3.0, 4)
    >>> metric.add(1.0, 2)
    >>> metric[0] / metric[1]
    0.6666666666666666

    Each value is converted with ``float()`` when it is added. For a
    device array that is a synchronisation, so pass a Python number (for
    example ``l.sum().asscalar()``) once per batch, not one per element.
    """

    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        """Add one value to each running sum (as many values as sums)."""
        if len(args) != len(self.data):
            raise ValueError(
                f'Accumulator({len(self.data)}).add() takes '
                f'{len(self.data)} values, got {len(args)}'
            )
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def reset(self):
        """Set every running sum back to zero."""
        self.data = [0.0] * len(self.data)

    def __getitem__(self, idx):
        return self.data[idx]

    def __len__(self):
        return len(self.data)

    def __repr__(self):
        return f'Accumulator({len(self.data)})'
