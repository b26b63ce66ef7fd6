"""Checkers of chapter 14: references pass, typical mistakes explained."""

import pytest

import dlbook as mx
from dlbook.exercises.checker import run_check

from .failing import fails as _fails


def test_predict_classes():
    assert run_check(
        'ch14.predict_classes', lambda mod, it: mod.predict(it).argmax(axis=1)
    ).passed
    _fails(
        'ch14.predict_classes',
        lambda mod, it: mod.predict(it),
        'shape (20, 3)',
        'argmax',
    )
    _fails(
        'ch14.predict_classes',
        lambda mod, it: mod.predict(it).argmin(axis=1),
        'least likely',
    )


def train_epoch(mod, data_iter, metric):
    data_iter.reset()
    for batch in data_iter:
        mod.forward(batch, is_train=True)
        mod.backward()
        mod.update()
        mod.update_metric(metric, batch.label)


def test_train_epoch_reference_passes():
    result = run_check('ch14.train_epoch', train_epoch)
    assert result.passed, result.report()


def test_train_epoch_mistakes():
    def no_update(mod, data_iter, metric):
        for batch in data_iter:
            mod.forward(batch, is_train=True)
            mod.backward()

    def no_metric(mod, data_iter, metric):
        for batch in data_iter:
            mod.forward(batch, is_train=True)
            mod.backward()
            mod.update()

    def twice(mod, data_iter, metric):
        for batch in data_iter:
            mod.forward(batch, is_train=True)
            mod.backward()
            mod.update()
            mod.update()
            mod.update_metric(metric, batch.label)

    _fails('ch14.train_epoch', no_update, 'did not change', 'mod.update()')
    _fails('ch14.train_epoch', no_metric, 'metric saw 0 examples')
    _fails('ch14.train_epoch', twice, 'differs')


def load_module(prefix, epoch, data_shapes):
    sym, arg_params, aux_params = mx.model.load_checkpoint(prefix, epoch)
    mod = mx.mod.Module(sym)
    mod.bind(data_shapes=data_shapes, for_training=False)
    mod.set_params(arg_params, aux_params)
    return mod


# Binding for inference without label shapes warns, as in MXNet.
label_warning = pytest.mark.filterwarnings(
    'ignore:Data provided by label_shapes'
)


@label_warning
def test_load_module_reference_passes():
    result = run_check('ch14.load_module', load_module)
    assert result.passed, result.report()


@label_warning
def test_load_module_mistakes():
    def label_as_param(prefix, epoch, data_shapes):
        sym, arg_params, aux_params = mx.model.load_checkpoint(prefix, epoch)
        mod = mx.mod.Module(sym, label_names=None)
        mod.bind(data_shapes=data_shapes, for_training=False)
        mod.set_params(arg_params, aux_params)
        return mod

    def unbound(prefix, epoch, data_shapes):
        sym, _, _ = mx.model.load_checkpoint(prefix, epoch)
        return mx.mod.Module(sym)

    def fresh(prefix, epoch, data_shapes):
        sym, _, _ = mx.model.load_checkpoint(prefix, epoch)
        mod = mx.mod.Module(sym)
        mod.bind(data_shapes=data_shapes, for_training=False)
        mod.init_params()
        return mod

    _fails('ch14.load_module', label_as_param, 'allow_missing=True')
    _fails('ch14.load_module', unbound, 'not bound')
    _fails('ch14.load_module', fresh, 'predicts differently')
    _fails('ch14.load_module', lambda p, e, d: None, 'expected a Module')


class MetricLogger:
    def __init__(self):
        self.records = []

    def __call__(self, param):
        _, value = param.eval_metric.get()
        self.records.append((param.epoch, param.nbatch, value))


def test_batch_logger_reference_passes():
    result = run_check('ch14.batch_logger', MetricLogger)
    assert result.passed, result.report()


def test_batch_logger_mistakes():
    class Zeros(MetricLogger):
        def __call__(self, param):
            self.records.append((param.epoch, param.nbatch, 0.0))

    class EpochOnly(MetricLogger):
        def __call__(self, param):
            if param.nbatch == 0:
                super().__call__(param)

    _fails('ch14.batch_logger', Zeros, 'running accuracy')
    _fails('ch14.batch_logger', EpochOnly, 'records has 2 entries')
    _fails('ch14.batch_logger', MetricLogger(), 'expected a class')
