"""Metric values over a training run, kept as plain Python floats.

Metrics are named freely (``loss``, ``acc``, ``val_acc``, MXNet's
``accuracy`` or ``cross-entropy``). A prefix says which data a value
comes from: ``train_``/``training``, ``val_``/``valid_``/``validation``
or ``test_``; no prefix means training data. Values that share the rest
of the name (``acc``, ``val_acc``, ``test_acc``) are drawn in the same
panel, one line per split.
"""

SPLITS = ('train', 'val', 'test')

_PREFIXES = (
    ('training', 'train'),
    ('train', 'train'),
    ('validation', 'val'),
    ('valid', 'val'),
    ('val', 'val'),
    ('test', 'test'),
)
_SEPARATORS = ('_', '-', ' ', '.')


def split_name(name):
    """Split a metric name into ``(split, base)``.

    Examples
    --------
    >>> split_name('val_acc')
    ('val', 'acc')
    >>> split_name('validation accuracy')   # MXNet's estimator names
    ('val', 'accuracy')
    >>> split_name('loss')
    ('train', 'loss')
    """
    lowered = name.lower()
    for prefix, split in _PREFIXES:
        for sep in _SEPARATORS:
            head = prefix + sep
            if lowered.startswith(head) and len(name) > len(head):
                return split, name[len(head) :]
    return 'train', name


def to_float(value):
    """Convert a metric value to a Python float (None stays None).

    Callers should pass floats. An array scalar (anything with
    ``asscalar()`` or ``item()``) is converted here, once, but on a GPU
    that conversion waits for the device: prefer to convert once per
    epoch, or to read a metric object that already lives on the host.
    """
    if value is None or type(value) is float:
        return value
    if hasattr(value, 'asscalar'):
        value = value.asscalar()
    elif hasattr(value, 'item'):
        value = value.item()
    return float(value)


class MetricHistory:
    """Running means per epoch, epoch values, and the points to plot.

    Attributes
    ----------
    names : list of str
        Metric names in the order first seen.
    latest : dict
        Latest value of each metric (for progress text).
    epochs : dict
        Epoch index -> {name: value} for finished epochs.
    points : dict
        Name -> list of ``(epoch, batches, value)``. ``batches`` is the
        number of batches done in that epoch when the value was taken,
        or None for a value that belongs to the end of the epoch. The
        plot turns this into ``x = epoch + batches / batches_per_epoch``
        once the number of batches per epoch is known.
    """

    def __init__(self):
        self.names = []
        self.latest = {}
        self.epochs = {}
        self.points = {}
        self.norm_names = []  # layers with norms, in first-seen order
        self.norm_points = []  # (epoch, batches, {layer: norm})
        self._sums = {}  # name -> [weighted sum, total weight]
        self._running = {}  # name -> running value this epoch

    def _see(self, name):
        if name not in self.names:
            self.names.append(name)
            self.points[name] = []

    def _record(self, epoch, batches, values, record):
        """Keep each of ``values`` that converts to a float: in ``record``
        (this epoch's running means or its final values), as the latest
        value and as the point ``(epoch, batches, value)``.  A value of
        None (not measured) is skipped."""
        for name, value in values.items():
            value = to_float(value)
            if value is None:
                continue
            self._see(name)
            record[name] = value
            self.latest[name] = value
            self.points[name].append((epoch, batches, value))

    def add_batch(self, epoch, batches, values, weight=None):
        """Add per-batch values; keep their mean over the epoch.

        ``weight`` is the batch size when known, so the epoch mean is a
        mean over examples, as ``metric[0] / metric[1]`` is in d2l.
        """
        weight = 1.0 if weight is None else float(weight)
        for name, value in values.items():
            value = to_float(value)
            if value is None:
                continue
            self._see(name)
            total = self._sums.setdefault(name, [0.0, 0.0])
            total[0] += value * weight
            total[1] += weight
            mean = total[0] / total[1] if total[1] else value
            self._running[name] = mean
            self.latest[name] = mean
            self.points[name].append((epoch, batches, mean))

    def set_running(self, epoch, batches, values):
        """Record values that are already means over the epoch so far.

        MXNet's metric objects report exactly that (they are reset at
        the start of every epoch).
        """
        self._record(epoch, batches, values, self._running)

    def close_epoch(self, epoch, values=None):
        """Finish an epoch: its running means plus explicit ``values``.

        An explicit value (say the test accuracy, or a loss you averaged
        yourself) is added as a point at the end of the epoch.
        """
        record = dict(self._running)
        self._record(epoch, None, values or {}, record)
        self.epochs[epoch] = record
        self._sums.clear()
        self._running.clear()
        return record

    def set_epoch_values(self, epoch, values):
        """Add values to an epoch that has already been closed.

        ``Module.fit`` reports validation scores after the epoch's own
        callback has run.
        """
        self._record(epoch, None, values, self.epochs.setdefault(epoch, {}))

    def add_norms(self, epoch, batches, norms):
        """Record one sample of per-layer norms (see ``log_norms``)."""
        sample = {}
        for name, value in norms.items():
            value = to_float(value)
            if value is None:
                continue
            if name not in self.norm_names:
                self.norm_names.append(name)
            sample[name] = value
        if sample:
            self.norm_points.append((epoch, batches, sample))

    def panels(self):
        """Base names in first-seen order: one plot panel each."""
        bases = []
        for name in self.names:
            base = split_name(name)[1]
            if base not in bases:
                bases.append(base)
        return bases

    def last_values(self):
        """The values to report at the end: last epoch, else latest."""
        if self.epochs:
            merged = {}
            for epoch in sorted(self.epochs):
                merged.update(self.epochs[epoch])
            return {
                name: merged[name] for name in self.names if name in merged
            }
        return {
            name: self.latest[name]
            for name in self.names
            if name in self.latest
        }
