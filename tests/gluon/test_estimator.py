"""gluon.contrib.estimator: Estimator.fit/evaluate and its handlers.

The log lines, metric values, checkpoint file names and early-stopping
epochs below were recorded with MXNet 1.9.1 running the same program
(times replaced by ``T``).
"""

import logging
import os
import re
import sys
import types
import warnings

import numpy as np
import pytest

import dlbook as mx
from dlbook import gluon
from dlbook.gluon.contrib.estimator import (
    BatchEnd,
    CheckpointHandler,
    EarlyStoppingHandler,
    EpochEnd,
    Estimator,
    LoggingHandler,
    MetricHandler,
)

rng = np.random.RandomState(0)
X = rng.uniform(-1, 1, (12, 4)).astype('float32')
Y = (X[:, 0] > 0).astype('float32') + (X[:, 1] > 0.5)
W = rng.uniform(-0.5, 0.5, (3, 4)).astype('float32')


def loaders():
    ds = gluon.data.ArrayDataset(mx.nd.array(X), mx.nd.array(Y))
    return (
        gluon.data.DataLoader(ds, batch_size=4),
        gluon.data.DataLoader(ds, batch_size=6),
    )


class Capture(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines = []

    def emit(self, record):
        self.lines.append(re.sub(r'\d+\.\d+s|\d+s', 'Ts', record.getMessage()))


def make(hybridize=False, **kwargs):
    net = gluon.nn.Dense(3, in_units=4)
    net.initialize()
    net.weight.set_data(mx.nd.array(W))
    net.bias.set_data(mx.nd.zeros(3))
    if hybridize:
        net.hybridize()
    trainer = gluon.Trainer(
        net.collect_params(), 'sgd', {'learning_rate': 0.5}
    )
    est = Estimator(
        net,
        gluon.loss.SoftmaxCrossEntropyLoss(),
        trainer=trainer,
        context=mx.cpu(),
        **kwargs,
    )
    capture = Capture()
    est.logger.handlers = [capture]
    return net, est, capture


# MXNet 1.9.1's log for fit(epochs=2) with LoggingHandler(log_interval=2)
FIT_LOG = """\
Training begin: using optimizer SGD with current learning rate 0.5000 
Train for 2 epochs.
[Epoch 0] Begin, current learning rate: 0.5000
[Epoch 0][Batch 0][Samples 4] time/interval: Ts training accuracy: 0.5000, training softmaxcrossentropyloss: 1.0279
[Epoch 0][Batch 2][Samples 12] time/interval: Ts training accuracy: 0.5000, training softmaxcrossentropyloss: 1.0968
Validation Begin
[Epoch 0] Finished in Ts, validation accuracy: 0.5833, validation softmaxcrossentropyloss: 0.9727
[Epoch 0] Finished in Ts, training accuracy: 0.5000, training softmaxcrossentropyloss: 1.0968
[Epoch 1] Begin, current learning rate: 0.5000
[Epoch 1][Batch 0][Samples 16] time/interval: Ts training accuracy: 0.7500, training softmaxcrossentropyloss: 0.8986
[Epoch 1][Batch 2][Samples 24] time/interval: Ts training accuracy: 0.5833, training softmaxcrossentropyloss: 0.9799
Validation Begin
[Epoch 0] Finished in Ts, validation accuracy: 0.5833, validation softmaxcrossentropyloss: 0.8925
[Epoch 1] Finished in Ts, training accuracy: 0.5833, training softmaxcrossentropyloss: 0.9799
Train finished using total Ts with 2 epochs. training accuracy: 0.5833, training softmaxcrossentropyloss: 0.9799"""


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        yield


def test_fit_with_validation_logs_as_mxnet():
    train, val = loaders()
    net, est, capture = make()
    # MXNet 1.9.1 default metric names
    assert [m.name for m in est.train_metrics] == [
        'training accuracy',
        'training softmaxcrossentropyloss',
    ]
    assert [m.name for m in est.val_metrics] == [
        'validation accuracy',
        'validation softmaxcrossentropyloss',
    ]
    est.fit(
        train,
        val_data=val,
        epochs=2,
        event_handlers=[
            LoggingHandler(log_interval=2, metrics=est.train_metrics)
        ],
    )
    assert '\n'.join(capture.lines) == FIT_LOG
    # MXNet 1.9.1: 0.9798893, 0.8925270 and this weight row
    np.testing.assert_allclose(
        est.train_metrics[1].get()[1], 0.9798893, rtol=1e-5
    )
    np.testing.assert_allclose(
        est.val_metrics[1].get()[1], 0.8925270, rtol=1e-5
    )
    np.testing.assert_allclose(
        net.weight.data().asnumpy()[1],
        [0.48835, -0.37152, 0.09878, -0.18219],
        atol=2e-5,
    )


def test_fit_by_batches_and_evaluate():
    train, val = loaders()
    _, est, capture = make()
    est.fit(train, batches=5)
    assert capture.lines == [
        'Training begin: using optimizer SGD with current learning rate '
        '0.5000 ',
        'Train for 5 batches.',
        '[Epoch 0] Begin, current learning rate: 0.5000',
        '[Epoch 0] Finished in Ts, training accuracy: 0.5000, training '
        'softmaxcrossentropyloss: 1.0968',
        '[Epoch 1] Begin, current learning rate: 0.5000',
        '[Epoch 1] Finished in Ts, training accuracy: 0.6250, training '
        'softmaxcrossentropyloss: 0.9819',
        'Train finished using total Ts with 2 epochs. training accuracy: '
        '0.6250, training softmaxcrossentropyloss: 0.9819',
    ]
    capture.lines.clear()
    est.evaluate(val)
    assert capture.lines == [
        'Validation Begin',
        '[Epoch 0] Finished in Ts, validation accuracy: 0.5833, validation '
        'softmaxcrossentropyloss: 0.9159',
    ]


def test_checkpoint_files_and_messages(tmp_path):
    train, _ = loaders()
    _, est, capture = make(hybridize=True)
    folder = str(tmp_path / 'ck')
    handler = CheckpointHandler(
        folder,
        model_prefix='m',
        monitor=est.train_metrics[0],
        save_best=True,
        verbose=1,
        batch_period=2,
        max_checkpoints=3,
    )
    est.fit(train, epochs=3, event_handlers=[handler])
    # MXNet 1.9.1 keeps these files
    assert sorted(os.listdir(folder)) == [
        'm-best.params',
        'm-best.states',
        'm-epoch1batch6.params',
        'm-epoch1batch6.states',
        'm-epoch2batch7.params',
        'm-epoch2batch7.states',
        'm-epoch2batch9.params',
        'm-epoch2batch9.states',
        'm-symbol.json',
    ]
    lines = [
        line.replace(folder, 'DIR')
        for line in capture.lines
        if 'Checkpoint' in line
    ]
    assert lines[:4] == [
        '[Epoch 0] CheckpointHandler: trained total 2 batches, saving model '
        'at DIR with prefix: m-epoch0batch1',
        '[Epoch 0] CheckpointHandler: training accuracy improved from '
        '0.50000 to 0.50000, updating best model at DIR with prefix: m-best',
        '[Epoch 0] CheckpointHandler: trained total 4 batches, saving model '
        'at DIR with prefix: m-epoch0batch3',
        '[Epoch 3] CheckpointHandler: training accuracy did not improve from '
        '0.50000, skipping updating best model',
    ]
    assert len(lines) == 14
    net2 = gluon.nn.Dense(3, in_units=4)
    net2.load_parameters(os.path.join(folder, 'm-epoch2batch9.params'))
    symbol = mx.sym.load(os.path.join(folder, 'm-symbol.json'))
    assert (
        symbol.list_arguments()[1:] == ['dense0_weight', 'dense0_bias']
        or len(symbol.list_arguments()) == 3
    )


def test_early_stopping_epoch():
    train, _ = loaders()
    _, est, capture = make(train_metrics=mx.metric.Accuracy())
    # MXNet 1.9.1: names, stopped_epoch 2 after 3 epochs, this message
    assert [m.name for m in est.train_metrics] == ['training accuracy']
    assert [m.name for m in est.val_metrics] == ['validation accuracy']
    stop = EarlyStoppingHandler(
        monitor=est.train_metrics[0], patience=1, mode='max'
    )
    est.fit(train, epochs=10, event_handlers=[stop])
    assert (stop.stopped_epoch, stop.current_epoch) == (2, 3)
    assert capture.lines[-2:] == [
        '[Epoch 2] EarlyStoppingHanlder: early stopping due to training '
        'accuracy not improving',
        'Train finished using total Ts with 3 epochs. training accuracy: '
        '0.5833',
    ]


def test_argument_errors_are_mxnets():
    train, _ = loaders()
    _, est, _ = make()
    with pytest.raises(
        ValueError, match='Fit only support exactly one type of iteration'
    ):
        est.fit(train, epochs=1, batches=2)
    # MXNet 1.9.1 names the foreign metric with its repr
    with pytest.raises(
        ValueError,
        match=re.escape(
            "Event handler MetricHandler refers to a metric instance "
            "EvalMetric: {'accuracy': nan} outside of the known training"
        ),
    ):
        est.fit(
            train,
            epochs=1,
            event_handlers=[MetricHandler([mx.metric.Accuracy()])],
        )
    with pytest.raises(ValueError, match='loss must be a Loss'):
        Estimator(gluon.nn.Dense(2), loss='l2')


def test_custom_handler_can_stop_training():
    train, _ = loaders()
    _, est, _ = make()

    class StopAfterThree(BatchEnd, EpochEnd):
        def __init__(self):
            self.batches = 0

        def batch_end(self, estimator, *args, **kwargs):
            self.batches += 1
            return self.batches == 3

    handler = StopAfterThree()
    est.fit(train, epochs=5, event_handlers=[handler])
    # as in MXNet, True from batch_end only ends the current epoch (here
    # at its last batch); the five epochs still run
    assert handler.batches == 5 * 3


def test_live_monitor_is_added_inside_a_kernel(monkeypatch):
    import dlbook.widgets
    from dlbook.widgets import display

    fake = types.ModuleType('IPython')
    fake.get_ipython = lambda: None
    monkeypatch.setitem(sys.modules, 'IPython', fake)
    monkeypatch.setattr(display, 'in_kernel', lambda: True)
    monkeypatch.setenv('DLBOOK_WIDGETS', 'off')
    made = []

    class Spy(dlbook.widgets.TrainingMonitor):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(dlbook.widgets, 'TrainingMonitor', Spy)
    train, val = loaders()
    _, est, _ = make()
    est.fit(train, val_data=val, epochs=2)
    (monitor,) = made
    assert len(monitor.history.epochs) == 2
    assert set(monitor.history.epochs[1]) >= {
        'training accuracy',
        'validation accuracy',
    }
    # a monitor passed by the user replaces the default one
    mine = dlbook.widgets.TrainingMonitor(mode='off')
    made.clear()
    est.fit(train, epochs=1, event_handlers=[mine.event_handler()])
    assert made == [] and len(mine.history.epochs) == 1


def test_no_monitor_outside_a_kernel():
    train, val = loaders()
    _, est, _ = make()
    handlers = est._prepare_default_handlers(val, None, train)
    assert not [h for h in handlers if type(h).__name__ == '_DuckHandler']


def test_custom_batch_processor_and_default_trainer():
    from dlbook.gluon.contrib.estimator import BatchProcessor

    train, val = loaders()
    calls = []

    class Counting(BatchProcessor):
        def fit_batch(self, estimator, batch, batch_axis=0):
            calls.append('fit')
            return super().fit_batch(estimator, batch, batch_axis)

    net = gluon.nn.Dense(3, in_units=4)
    with pytest.warns(
        UserWarning,
        match='No trainer specified, default '
        'SGD optimizer with learning rate '
        '0.001 is used.',
    ):
        est = Estimator(
            net,
            gluon.loss.SoftmaxCrossEntropyLoss(),
            context=mx.cpu(),
            batch_processor=Counting(),
        )
    est.logger.handlers = [Capture()]
    assert est.trainer.learning_rate == 0.001
    est.fit(train, batches=2)
    assert calls == ['fit', 'fit']
    with pytest.raises(
        ValueError, match='Customized Batch Processor must contain fit_batch'
    ):
        Estimator(
            net,
            gluon.loss.L2Loss(),
            trainer=est.trainer,
            batch_processor=object(),
        )
    with pytest.raises(
        ValueError, match='Estimator only support input as Gluon DataLoader'
    ):
        est.fit([(mx.nd.ones((2, 4)), mx.nd.ones((2,)))], epochs=1)
