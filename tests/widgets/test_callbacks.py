"""TrainingMonitor fed by Module.fit callbacks and estimator events.

The fakes below call the adapters in the same order, with the same
arguments, as MXNet 1.x's ``BaseModule.fit`` and the Gluon estimator's
``Estimator.fit``; they are duck-typed, like the adapters.
"""

from collections import namedtuple

import numpy as np
import pytest

from dlbook.widgets import StopTraining, TrainingMonitor
from dlbook.widgets.callbacks import batch_size_of, metric_values

BatchEndParam = namedtuple(
    'BatchEndParams', ['epoch', 'nbatch', 'eval_metric', 'locals']
)
DataBatch = namedtuple('DataBatch', ['data', 'label', 'pad'])


class Metric:
    """Running mean over the batches since ``reset``, like EvalMetric."""

    def __init__(self, name):
        self.name = name
        self.reads = 0
        self.reset()

    def reset(self):
        self.total, self.count = 0.0, 0

    def update(self, value):
        self.total += value
        self.count += 1

    def get_name_value(self):
        self.reads += 1
        value = self.total / self.count if self.count else float('nan')
        return [(self.name, value)]


class FakeModule:
    """The callback protocol of ``BaseModule.fit``."""

    def __init__(self, clock, seconds=0.5):
        self._context = ['gpu(0)']
        self.clock = clock
        self.seconds = seconds
        self.eval_metric = Metric('accuracy')

    def fit(
        self,
        num_epoch,
        num_batches,
        batch_end_callback=None,
        epoch_end_callback=None,
        eval_end_callback=None,
        pad=0,
    ):
        eval_metric = self.eval_metric
        for epoch in range(num_epoch):
            eval_metric.reset()
            for nbatch in range(num_batches):
                data_batch = DataBatch([np.zeros((8, 3))], None, pad)
                self.clock.advance(self.seconds)
                eval_metric.update(0.5 + epoch / 10)
                batch_end_callback(
                    BatchEndParam(
                        epoch=epoch,
                        nbatch=nbatch,
                        eval_metric=eval_metric,
                        locals=locals(),
                    )
                )
            epoch_end_callback(epoch, None, {}, {})
            if eval_end_callback is not None:
                val_metric = Metric('accuracy')
                val_metric.update(0.7 + epoch / 10)
                eval_end_callback(
                    BatchEndParam(
                        epoch=epoch,
                        nbatch=num_batches,
                        eval_metric=val_metric,
                        locals=locals(),
                    )
                )


def fit_with(
    monitor, module, num_epoch=3, num_batches=4, validate=True, **kwargs
):
    module.fit(
        num_epoch,
        num_batches,
        batch_end_callback=monitor.batch_end_callback,
        epoch_end_callback=monitor.epoch_end_callback,
        eval_end_callback=(monitor.eval_end_callback if validate else None),
        **kwargs,
    )


def test_module_fit_callbacks(clock):
    # `with` starts the clock before fit, so the first batch is timed.
    with TrainingMonitor(epochs=3, mode='off', clock=clock) as monitor:
        fit_with(monitor, FakeModule(clock))
        assert monitor.finished  # after the last validation
    assert monitor.history.epochs[2] == pytest.approx(
        {'accuracy': 0.7, 'val_accuracy': 0.9}
    )
    assert monitor.device == 'gpu(0)'  # from the module's contexts
    assert monitor.progress.examples == 3 * 4 * 8
    assert monitor.summary() == (
        'epoch 3/3: accuracy 0.700, val_accuracy 0.900; '
        '16.0 examples/sec on gpu(0), 6.0 sec'
    )


def test_module_fit_without_validation_finishes_after_last_epoch(clock):
    monitor = TrainingMonitor(epochs=2, mode='off', clock=clock)
    fit_with(monitor, FakeModule(clock), num_epoch=2, validate=False)
    assert monitor.finished
    assert list(monitor.history.epochs) == [0, 1]


def test_module_fit_reads_the_metric_only_when_a_redraw_is_due(clock):
    monitor = TrainingMonitor(
        epochs=2, mode='text', clock=clock, text_interval=2.0
    )
    module = FakeModule(clock, seconds=1 / 64)
    fit_with(monitor, module, num_epoch=2, num_batches=256)
    # 8 s of training: a read every 2 s, plus one per epoch end.
    assert module.eval_metric.reads <= 4 + 2


def test_module_fit_batch_size_from_data_batch_minus_pad(clock):
    monitor = TrainingMonitor(epochs=1, mode='off', clock=clock)
    fit_with(monitor, FakeModule(clock), num_epoch=1, pad=2)
    assert monitor.progress.examples == 4 * 6


def test_module_fit_stop_raises_stop_training(clock):
    monitor = TrainingMonitor(epochs=3, mode='off', clock=clock)
    module = FakeModule(clock)
    callback = monitor.batch_end_callback

    def press_stop_in_epoch_1(param):
        if (param.epoch, param.nbatch) == (1, 2):
            monitor.stop()
        callback(param)

    with monitor:
        module.fit(
            3,
            4,
            batch_end_callback=press_stop_in_epoch_1,
            epoch_end_callback=monitor.epoch_end_callback,
        )
        pytest.fail('fit should have been stopped')
    assert monitor.finished
    assert monitor.progress.batch_counts == {0: 4, 1: 3}
    assert monitor.summary().startswith('stopped at epoch 2/3: ')


def test_module_fit_stop_without_with_propagates(clock):
    monitor = TrainingMonitor(epochs=3, mode='off', clock=clock)
    monitor.stop()
    with pytest.raises(StopTraining, match='stopped by the user'):
        fit_with(monitor, FakeModule(clock))


class FakeEstimator:
    """The event-handler protocol of ``Estimator.fit`` (MXNet 1.9)."""

    def __init__(self, clock, max_epoch):
        self.clock = clock
        self.max_epoch = max_epoch
        self.context = ['cpu(0)']
        self.train_metrics = [Metric('training accuracy')]
        self.val_metrics = [Metric('validation accuracy')]

    def fit(self, train_data, handler):
        handler.train_begin(self)
        for epoch in range(self.max_epoch):
            handler.epoch_begin(self)
            for metric in self.train_metrics:
                metric.reset()
            stop = False
            for batch in train_data:
                self.clock.advance(0.5)
                self.train_metrics[0].update(0.5 + epoch / 10)
                if handler.batch_end(
                    self, batch=batch, pred=None, label=None, loss=None
                ):
                    stop = True
                    break
            self.val_metrics[0].reset()
            self.val_metrics[0].update(0.6 + epoch / 10)
            if handler.epoch_end(self) or stop:
                break
        handler.train_end(self)


def test_estimator_event_handler(clock):
    monitor = TrainingMonitor(mode='off', clock=clock)
    estimator = FakeEstimator(clock, max_epoch=2)
    batches = [(np.zeros((16, 2)), np.zeros(16))] * 3
    estimator.fit(batches, monitor.event_handler())
    assert monitor.num_epochs == 2 and monitor.device == 'cpu(0)'
    assert monitor.finished
    assert monitor.history.epochs[1] == pytest.approx(
        {'training accuracy': 0.6, 'validation accuracy': 0.7}
    )
    assert monitor.history.panels() == ['accuracy']  # one panel, 2 lines
    assert monitor.progress.examples == 2 * 3 * 16


def test_estimator_stop_returns_true(clock):
    monitor = TrainingMonitor(mode='off', clock=clock)
    handler = monitor.event_handler()
    estimator = FakeEstimator(clock, max_epoch=5)
    monitor.stop()
    estimator.fit([(np.zeros((4, 2)),)] * 3, handler)
    assert monitor.progress.batch_counts == {0: 1}
    assert monitor.finished


def test_batch_size_of():
    X = np.zeros((7, 3))
    assert batch_size_of(X) == 7
    assert batch_size_of((X, np.zeros(7))) == 7
    assert batch_size_of([X]) == 7
    assert batch_size_of(DataBatch([X], None, 3)) == 4
    assert batch_size_of([1, 2]) is None
    assert batch_size_of(None) is None


def test_metric_values_skips_nan_and_prefixes():
    seen, empty = Metric('acc'), Metric('ce')
    seen.update(0.5)
    assert metric_values([seen, empty], prefix='val_') == {'val_acc': 0.5}
    assert metric_values(None) == {}
