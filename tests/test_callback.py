"""Callbacks: Speedometer's exact log lines, ProgressBar,
log_train_metric, checkpoint callbacks and BatchEndParam."""

import logging
import os

import numpy as np
import pytest

import dlbook as mx
from dlbook import callback, nd, sym
from dlbook.callback import BatchEndParam
from dlbook.io import NDArrayIter
from dlbook.module import Module


class _Clock:
    """A fake ``time.time``: each call advances by ``step`` seconds."""

    def __init__(self, step):
        self.now, self.step = 1000.0, step

    def __call__(self):
        self.now += self.step
        return self.now


def _metric(correct, total):
    """An accuracy metric that has seen ``correct`` out of ``total``."""
    acc = mx.metric.Accuracy()
    labels = nd.array([1] * correct + [0] * (total - correct))
    acc.update([nd.ones((total,))], [labels])
    return acc


def _run(speedometer, metric, batches, epoch=0):
    for nbatch in batches:
        speedometer(
            BatchEndParam(
                epoch=epoch, nbatch=nbatch, eval_metric=metric, locals=None
            )
        )


@pytest.fixture
def clock(monkeypatch):
    fake = _Clock(0.5)
    monkeypatch.setattr(callback.time, 'time', fake)
    return fake


def test_batch_end_param_fields():
    p = BatchEndParam(epoch=1, nbatch=2, eval_metric=None, locals={})
    assert p._fields == ('epoch', 'nbatch', 'eval_metric', 'locals')
    assert type(p).__name__ == 'BatchEndParams'
    assert mx.model.BatchEndParam is BatchEndParam


def test_speedometer_auto_reset(caplog, clock):
    metric = _metric(3, 4)
    with caplog.at_level(logging.INFO):
        _run(callback.Speedometer(batch_size=8, frequent=2), metric, range(5))
    # The fake clock makes every interval 0.5 s: 2 batches of 8 in
    # 0.5 s -> 32 samples/sec.
    assert caplog.messages == [
        'Epoch[0] Batch [0-2]\tSpeed: 32.00 samples/sec\taccuracy=0.750000',
        'Epoch[0] Batch [2-4]\tSpeed: 32.00 samples/sec\taccuracy=nan',
    ]
    assert all(r.name == 'root' for r in caplog.records)
    assert metric.get_global()[1] == 0.75  # only the local part reset


def test_speedometer_without_auto_reset(caplog, clock):
    metric = _metric(1, 4)
    with caplog.at_level(logging.INFO):
        _run(
            callback.Speedometer(8, frequent=2, auto_reset=False),
            metric,
            range(5),
        )
    assert caplog.messages == [
        'Epoch[0] Batch [0-2]\tSpeed: 32.00 samples/sec\taccuracy=0.250000',
        'Epoch[0] Batch [0-4]\tSpeed: 32.00 samples/sec\taccuracy=0.250000',
    ]


def test_speedometer_several_metrics_and_no_metric(caplog, clock):
    metric = mx.metric.create(['acc', 'mse'])
    metric.update([nd.array([0, 1])], [nd.array([[1, 0], [0, 1]])])
    with caplog.at_level(logging.INFO):
        _run(callback.Speedometer(4, frequent=1), metric, range(2))
        _run(callback.Speedometer(4, frequent=1), None, range(2), epoch=3)
    first, second = caplog.messages
    assert first.startswith(
        'Epoch[0] Batch [0-1]\tSpeed: 8.00 '
        'samples/sec\taccuracy=1.000000\tmse='
    )
    assert second == 'Iter[3] Batch [1]\tSpeed: 8.00 samples/sec'


def test_speedometer_restarts_each_epoch(caplog, clock):
    speedometer = callback.Speedometer(2, frequent=2)
    metric = _metric(2, 2)
    with caplog.at_level(logging.INFO):
        _run(speedometer, metric, range(3), epoch=0)
        _run(speedometer, metric, range(3), epoch=1)
    assert [m.split('\t')[0] for m in caplog.messages] == [
        'Epoch[0] Batch [0-2]',
        'Epoch[1] Batch [0-2]',
    ]


def test_progress_bar(caplog):
    with caplog.at_level(logging.INFO):
        bar = callback.ProgressBar(total=4, length=8)
        bar(BatchEndParam(0, 2, None, None))
    assert caplog.messages == ['[====----] 50%\r']


def test_log_train_metric(caplog):
    metric = _metric(1, 2)
    log = callback.log_train_metric(period=2, auto_reset=True)
    with caplog.at_level(logging.INFO):
        for nbatch in range(3):
            log(BatchEndParam(1, nbatch, metric, None))
    assert caplog.messages == [
        'Iter[1] Batch[0] Train-accuracy=0.500000',
        'Iter[1] Batch[2] Train-accuracy=nan',
    ]


def test_log_validation_metrics_callback(caplog):
    with caplog.at_level(logging.INFO):
        callback.LogValidationMetricsCallback()(
            BatchEndParam(2, 5, _metric(1, 4), None)
        )
    assert caplog.messages == ['Epoch[2] Validation-accuracy=0.250000']


def _tiny_module():
    rng = np.random.RandomState(0)
    x = rng.randn(20, 3).astype('float32')
    y = (x[:, 0] > 0).astype('float32')
    net = sym.SoftmaxOutput(
        sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc'),
        name='softmax',
    )
    return Module(net), NDArrayIter(x, y, batch_size=5)


def test_do_checkpoint_every_epoch(tmp_path, caplog):
    prefix = str(tmp_path / 'net')
    mod, it = _tiny_module()
    with caplog.at_level(logging.INFO):
        mod.fit(
            it, num_epoch=3, epoch_end_callback=callback.do_checkpoint(prefix)
        )
    assert sorted(os.listdir(tmp_path)) == [
        'net-0001.params',
        'net-0002.params',
        'net-0003.params',
        'net-symbol.json',
    ]
    saved = [m for m in caplog.messages if m.startswith('Saved')]
    assert saved == [
        f'Saved checkpoint to "{prefix}-000{i}.params"' for i in (1, 2, 3)
    ]


def test_module_checkpoint_with_states(tmp_path):
    prefix = str(tmp_path / 'm')
    mod, it = _tiny_module()
    mod.fit(
        it,
        num_epoch=4,
        epoch_end_callback=callback.module_checkpoint(
            mod, prefix, period=2, save_optimizer_states=True
        ),
        optimizer_params={'learning_rate': 0.1, 'momentum': 0.9},
    )
    assert sorted(os.listdir(tmp_path)) == [
        'm-0002.params',
        'm-0002.states',
        'm-0004.params',
        'm-0004.states',
        'm-symbol.json',
    ]
    resumed = Module.load(prefix, 4, load_optimizer_states=True)
    resumed.bind(it.provide_data, it.provide_label)
    resumed.init_optimizer(
        optimizer_params={'learning_rate': 0.1, 'momentum': 0.9}
    )
    state = resumed._updater.states[0]
    assert state is not None and state.shape == (2, 3)
