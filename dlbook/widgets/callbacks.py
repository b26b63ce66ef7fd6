"""Adapters that let MXNet-style training loops feed a ``TrainingMonitor``.

``Module.fit`` calls plain functions (MXNet 1.x, ``module/base_module.py``):

- ``batch_end_callback(param)`` after every batch, with
  ``param = BatchEndParam(epoch, nbatch, eval_metric, locals)``; the
  metric's ``get_name_value()`` gives ``[(name, value), ...]``, running
  means over the epoch so far;
- ``epoch_end_callback(epoch, symbol, arg_params, aux_params)`` after
  every epoch, *before* validation;
- ``eval_end_callback(param)`` when the validation score is ready.

The Gluon estimator (``gluon.contrib.estimator``) calls *event handlers*
instead: objects with ``train_begin``, ``epoch_begin``, ``batch_end``,
``epoch_end`` and ``train_end`` methods taking the estimator; a handler
whose ``batch_end`` or ``epoch_end`` returns True stops the loop.

Everything here is duck-typed: it needs only those attributes, so it
works with dlbook's classes and with MXNet's.
"""

import math

from .history import to_float
from .stopping import StopTraining


def batch_size_of(batch):
    """Number of examples in ``batch``, from shapes only, or None.

    Understands an array (``X``), a tuple or list whose first item is an
    array (``(X, y)``) and an MXNet ``DataBatch`` (``.data`` list and
    ``.pad``). Reading ``.shape`` never waits for a device.
    """
    data = getattr(batch, 'data', None)
    if isinstance(data, (list, tuple)) and data:
        size = _first_dim(data[0])
        if size is not None:
            return size - int(getattr(batch, 'pad', 0) or 0)
    size = _first_dim(batch)
    if size is None and isinstance(batch, (list, tuple)) and batch:
        size = _first_dim(batch[0])
    return size


def _first_dim(x):
    shape = getattr(x, 'shape', None)
    if shape is None or isinstance(x, (list, tuple)) or not len(shape):
        return None
    return int(shape[0])


def metric_values(metrics, prefix=''):
    """``{name: value}`` from one metric object or a list of them.

    Uses ``get_name_value()`` (MXNet's ``EvalMetric``); values that are
    NaN (a metric that has seen no data yet) are left out.
    """
    if metrics is None:
        return {}
    if not isinstance(metrics, (list, tuple)):
        metrics = [metrics]
    values = {}
    for metric in metrics:
        for name, value in metric.get_name_value():
            value = to_float(value)
            if value is not None and not math.isnan(value):
                values[prefix + name] = value
    return values


def _device_of(obj):
    """A device description from a Module's or Estimator's contexts."""
    ctx = getattr(obj, '_context', None) or getattr(obj, 'context', None)
    if ctx is None:
        return None
    if isinstance(ctx, (list, tuple)):
        return ', '.join(str(c) for c in ctx)
    return str(ctx)


class FitCallbacks:
    """The ``Module.fit`` callbacks of ``TrainingMonitor`` (a mixin).

    Examples
    --------
    >>> with TrainingMonitor(epochs=10, device=ctx) as monitor:
    ...     mod.fit(train_iter, eval_data=val_iter, num_epoch=10,
    ...             batch_end_callback=monitor.batch_end_callback,
    ...             epoch_end_callback=monitor.epoch_end_callback,
    ...             eval_end_callback=monitor.eval_end_callback)

    After Stop, ``batch_end_callback`` raises ``StopTraining`` (the only
    way to end ``fit`` early); the ``with`` block catches it.
    """

    def batch_end_callback(self, param):
        """``Module.fit(batch_end_callback=...)``: one batch finished."""
        self._follow_epoch(param.epoch)
        local_vars = getattr(param, 'locals', None) or {}
        if self.device is None:
            self.device = _device_of(local_vars.get('self'))
        size = self.batch_size
        if size is None:
            size = batch_size_of(local_vars.get('data_batch'))
        self._fit_metric = param.eval_metric
        # Read the metric only when the view will show it: reading may
        # copy from the device, and a redraw is due at most 5 times/s.
        running = None
        if param.eval_metric is not None and self.view.due():
            running = metric_values(param.eval_metric)
        self._record_batch(size, running=running)
        self._raise_if_stopped()

    def epoch_end_callback(
        self, epoch, symbol=None, arg_params=None, aux_params=None
    ):
        """``Module.fit(epoch_end_callback=...)``: one epoch finished."""
        self._follow_epoch(epoch)
        running = metric_values(getattr(self, '_fit_metric', None))
        self._record_running(running)
        self.epoch_end()
        # Module.fit validates *after* this callback; if it never did,
        # nothing else will tell us that the last epoch is over.
        last = self.num_epochs is not None and epoch + 1 >= self.num_epochs
        if last and not getattr(self, '_fit_validates', False):
            self.finish()
        self._raise_if_stopped()

    def eval_end_callback(self, param):
        """``Module.fit(eval_end_callback=...)``: validation score ready."""
        self._fit_validates = True
        values = metric_values(param.eval_metric, prefix='val_')
        self._record_epoch_values(param.epoch, values)
        last = (
            self.num_epochs is not None and param.epoch + 1 >= self.num_epochs
        )
        if last:
            self.finish()
        self._raise_if_stopped()

    def _raise_if_stopped(self):
        if self.should_stop:
            raise StopTraining(
                f'training stopped by the user in epoch '
                f'{self.progress.epoch + 1}'
            )

    def event_handler(self):
        """An event handler for the Gluon estimator's ``fit``.

        Examples
        --------
        >>> est.fit(train_data, val_data=val_data, epochs=10,
        ...         event_handlers=[monitor.event_handler()])
        """
        return EstimatorHandler(self)


class EstimatorHandler:
    """Feeds a ``TrainingMonitor`` from a Gluon estimator's events.

    Reads ``estimator.train_metrics`` and ``estimator.val_metrics``
    (lists of metric objects with ``get_name_value()``), the batch size
    from the batch's shape, and ``estimator.max_epoch`` for the number of
    epochs. ``batch_end`` and ``epoch_end`` return True after Stop, which
    is how an estimator handler asks the loop to end.
    """

    # MXNet sorts handlers by priority: metric updates (-inf) and
    # validation (-1000) run first, logging (+inf) last; we run between.
    priority = 0

    def __init__(self, monitor):
        self.monitor = monitor

    def train_begin(self, estimator, *args, **kwargs):
        monitor = self.monitor
        if monitor.num_epochs is None:
            monitor.set_epochs(getattr(estimator, 'max_epoch', None))
        if monitor.device is None:
            monitor.device = _device_of(estimator)
        monitor.start()

    def epoch_begin(self, estimator, *args, **kwargs):
        self.monitor.epoch_begin()

    def batch_end(self, estimator, *args, **kwargs):
        monitor = self.monitor
        size = monitor.batch_size
        if size is None:
            size = batch_size_of(kwargs.get('batch'))
        running = None
        if monitor.view.due():
            running = metric_values(getattr(estimator, 'train_metrics', []))
        monitor._record_batch(size, running=running)
        return monitor.should_stop

    def epoch_end(self, estimator, *args, **kwargs):
        monitor = self.monitor
        monitor._record_running(
            metric_values(getattr(estimator, 'train_metrics', []))
        )
        monitor.epoch_end(
            **metric_values(getattr(estimator, 'val_metrics', []))
        )
        return monitor.should_stop

    def train_end(self, estimator, *args, **kwargs):
        self.monitor.finish()

    def __repr__(self):
        return f'EstimatorHandler({self.monitor!r})'
