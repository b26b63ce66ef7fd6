"""Counting progress: epochs, batches, examples, throughput and ETA.

Everything here is arithmetic on counts and wall-clock times that the
caller passes in. Nothing touches an array, so asking for the throughput
or the ETA never waits for a GPU. The catch, as in every asynchronous
framework: on a GPU the loop may run ahead of the device, and the times
then measure how fast work is *queued*. They even out as soon as the loop
reads a number back (a loss value, a metric) once per batch or epoch.
"""


def format_duration(seconds):
    """Format seconds as ``m:ss`` or ``h:mm:ss``; '?' when unknown.

    Examples
    --------
    >>> format_duration(83.4)
    '1:23'
    >>> format_duration(3725)
    '1:02:05'
    """
    if seconds is None:
        return '?'
    seconds = int(round(max(seconds, 0.0)))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f'{hours}:{minutes:02d}:{secs:02d}'
    return f'{minutes}:{secs:02d}'


class Progress:
    """Where a training run is, and how fast it goes.

    Parameters
    ----------
    num_epochs : int, optional
        Planned number of epochs; without it there is no ETA.
    num_batches : int, optional
        Batches per epoch. When unknown (a data iterator without
        ``len``) it is learnt from the first epoch.

    Notes
    -----
    *Throughput* counts only the time from the start of an epoch to its
    last batch, as d2l's ``train_ch6`` does: evaluation on the validation
    set is not training speed. The *ETA* uses the whole elapsed time,
    evaluation included, because that is what you wait for.
    """

    def __init__(self, num_epochs=None, num_batches=None):
        self.num_epochs = num_epochs
        self.num_batches = num_batches
        self.epoch = 0  # index of the current (or next) epoch
        self.batch = 0  # batches finished in this epoch
        self.in_epoch = False
        self.examples = 0  # examples in finished batches, total
        self.epoch_examples = 0
        self.sized = False  # whether batch sizes were ever known
        self.batch_counts = {}  # epoch index -> batches it had
        self.start_time = None
        self.epoch_start = None
        self.last_batch_time = None
        self.train_time = 0.0  # finished epochs, first to last batch
        self.end_time = None
        self.last_event = None  # time of the latest event of any kind

    # -- events --------------------------------------------------------

    def start(self, now):
        """Start the clock (once)."""
        if self.start_time is None:
            self.start_time = now
            self.last_event = now

    def begin_epoch(self, now, epoch=None):
        """Start epoch ``epoch`` (default: the next one)."""
        self.start(now)
        if epoch is not None:
            self.epoch = epoch
        self.in_epoch = True
        self.batch = 0
        self.epoch_examples = 0
        self.epoch_start = now
        self.last_batch_time = None

    def end_batch(self, now, size=None):
        """Record one finished batch of ``size`` examples (if known)."""
        if not self.in_epoch:
            self.begin_epoch(now)
        self.batch += 1
        if size is not None:
            self.sized = True
            self.examples += size
            self.epoch_examples += size
        self.last_batch_time = now
        self.last_event = now

    def end_epoch(self, now):
        """Close the current epoch."""
        if not self.in_epoch:
            self.begin_epoch(now)
        self.in_epoch = False
        self.batch_counts[self.epoch] = self.batch
        if self.last_batch_time is not None:
            self.train_time += self.last_batch_time - self.epoch_start
        self.epoch += 1
        self.last_event = now

    def finish(self, now):
        """Stop the clock."""
        self.end_time = now

    # -- questions -----------------------------------------------------

    @property
    def epochs_done(self):
        """Number of finished epochs."""
        return len(self.batch_counts)

    def batches_per_epoch(self, epoch=None):
        """Batches in ``epoch`` (default: the current one), or None.

        The planned number if known, else the count of that epoch if it
        finished, else the count of the last finished epoch.
        """
        if self.num_batches:
            return self.num_batches
        epoch = self.epoch if epoch is None else epoch
        if epoch in self.batch_counts:
            return self.batch_counts[epoch]
        if self.batch_counts:
            return self.batch_counts[max(self.batch_counts)]
        return None

    def fraction_done(self):
        """Fraction of the planned run already done, or None."""
        if not self.num_epochs:
            return None
        done = float(self.epochs_done)
        per_epoch = self.batches_per_epoch()
        if self.in_epoch and per_epoch:
            done += min(self.batch / per_epoch, 1.0)
        return min(done / self.num_epochs, 1.0)

    def elapsed(self, now):
        """Seconds since the start (until ``finish`` if finished)."""
        if self.start_time is None:
            return 0.0
        end = self.end_time if self.end_time is not None else now
        return end - self.start_time

    def eta(self, now):
        """Estimated seconds left, or None while it cannot be known."""
        fraction = self.fraction_done()
        if not fraction:
            return None
        elapsed = self.elapsed(now)
        return elapsed * (1.0 - fraction) / fraction

    def _rate(self, count, seconds):
        return count / seconds if seconds > 0 else None

    def speed(self):
        """Current epoch's ``(value, unit)``, e.g. ``(1234.5, 'examples')``.

        Per second; ``'batches'`` when batch sizes are unknown. The value
        is None before two time stamps exist.
        """
        if self.in_epoch and self.last_batch_time is not None:
            seconds = self.last_batch_time - self.epoch_start
            count = self.epoch_examples if self.sized else self.batch
        else:
            return self.overall_speed()
        unit = 'examples' if self.sized else 'batches'
        return self._rate(count, seconds), unit

    def overall_speed(self):
        """Whole run's ``(value, unit)`` over training time only."""
        seconds = self.train_time
        if self.in_epoch and self.last_batch_time is not None:
            seconds += self.last_batch_time - self.epoch_start
        if self.sized:
            return self._rate(self.examples, seconds), 'examples'
        batches = sum(self.batch_counts.values())
        if self.in_epoch:
            batches += self.batch
        return self._rate(batches, seconds), 'batches'


def format_speed(speed):
    """Format a ``(value, unit)`` pair: ``'1234.5 examples/sec'``."""
    value, unit = speed
    if value is None:
        return f'? {unit}/sec'
    return f'{value:.1f} {unit}/sec'
