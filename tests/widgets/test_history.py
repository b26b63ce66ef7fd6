"""MetricHistory on its own: where running means, epoch values and late
values (validation scores reported after the epoch closed) end up."""

import numpy as np

from dlbook.widgets.history import MetricHistory


def test_running_values_close_and_late_values():
    history = MetricHistory()
    running = {'loss': 0.75, 'acc': None}  # None: not measured yet
    history.set_running(0, 3, running)
    assert history.names == ['loss']
    assert history.latest == {'loss': running['loss']}
    assert history.points == {'loss': [(0, 3, running['loss'])]}

    final = {'val_acc': 0.5, 'skipped': None}
    record = history.close_epoch(0, final)
    assert record == {'loss': running['loss'], 'val_acc': final['val_acc']}
    assert history.epochs == {0: record}
    assert history.names == ['loss', 'val_acc']
    assert history.points['val_acc'] == [(0, None, final['val_acc'])]
    # closing starts a new epoch: nothing runs over into the next one
    assert history.close_epoch(1) == {}
    assert history.epochs[1] == {}

    late = {'val_loss': 0.25, 'val_acc': 0.625}
    history.set_epoch_values(0, late)
    assert history.epochs[0] == {'loss': running['loss'], **late}
    assert history.latest['val_acc'] == late['val_acc']
    assert history.points['val_acc'] == [
        (0, None, final['val_acc']),
        (0, None, late['val_acc']),
    ]
    assert history.names == ['loss', 'val_acc', 'val_loss']
    # an epoch that was never closed gets a record of its own
    history.set_epoch_values(5, {'val_loss': 1.0})
    assert history.epochs[5] == {'val_loss': 1.0}


def test_values_are_stored_as_python_floats():
    history = MetricHistory()
    history.set_running(0, 1, {'loss': np.float32(0.5)})
    history.close_epoch(0, {'acc': np.float64(0.25)})
    assert all(type(v) is float for v in history.epochs[0].values())
    assert type(history.latest['loss']) is float
