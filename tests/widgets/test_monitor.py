"""TrainingMonitor fed from a hand-written loop."""

import os
import signal

import numpy as np
import pytest

from dlbook.widgets import StopTraining, TrainingMonitor
from dlbook.widgets.display import StaticFigure
from dlbook.widgets.progress import Progress, format_duration


def train(monitor, clock, num_batches=4, batch=8, seconds=0.5, stop_at=None):
    """A fake training loop: each batch takes `seconds` on the clock."""
    data = [np.zeros((batch, 3))] * num_batches
    for epoch in monitor.epochs():
        for i, X in enumerate(monitor.batches(data)):
            clock.advance(seconds)
            monitor.log(loss=1.0 / (epoch + 1) + i, acc=0.5)
            if stop_at == (epoch, i):
                monitor.stop()
        monitor.epoch_end(val_acc=0.6 + epoch / 10)


def test_repr_is_short_and_deterministic():
    assert (
        repr(TrainingMonitor(epochs=10, mode='off'))
        == 'TrainingMonitor(epochs=10)'
    )
    assert repr(TrainingMonitor(mode='off')) == 'TrainingMonitor()'


def test_hand_written_loop_records_epoch_means(clock):
    monitor = TrainingMonitor(epochs=2, mode='off', clock=clock)
    train(monitor, clock)
    assert monitor.finished
    # mean over batches of 1/(epoch+1) + i, i = 0..3
    assert monitor.history.epochs[0] == {
        'loss': 2.5,
        'acc': 0.5,
        'val_acc': 0.6,
    }
    assert monitor.history.epochs[1]['loss'] == 2.0
    assert monitor.progress.epochs_done == 2
    assert monitor.progress.examples == 2 * 4 * 8


def test_means_are_weighted_by_batch_size(clock):
    monitor = TrainingMonitor(mode='off', clock=clock)
    monitor.batch_end(batch_size=30, loss=1.0)
    monitor.batch_end(batch_size=10, loss=3.0)
    monitor.epoch_end()
    assert monitor.history.epochs[0]['loss'] == pytest.approx(1.5)


def test_throughput_and_eta_come_from_counts_and_the_clock(clock):
    monitor = TrainingMonitor(epochs=4, mode='off', clock=clock)
    monitor.start()
    monitor.epoch_begin()
    for _ in range(2):
        clock.advance(0.5)
        monitor.batch_end(batch_size=32)
    progress = monitor.progress
    assert progress.speed() == (64.0, 'examples')
    monitor.epoch_end()  # 1 of 4 epochs in 1 second
    assert progress.eta(clock()) == pytest.approx(3.0)
    clock.advance(1.0)  # evaluation is not training time
    monitor.epoch_begin()
    clock.advance(0.5)
    monitor.batch_end(batch_size=32)
    # Half of epoch 2 is done; 2.5 s for 1.5 epochs -> 2.5 * 2.5 / 1.5 s.
    assert progress.eta(clock()) == pytest.approx(2.5 * 2.5 / 1.5)
    assert progress.overall_speed() == (96 / 1.5, 'examples')


def test_batches_per_epoch_is_learnt_from_an_iterator(clock):
    monitor = TrainingMonitor(epochs=2, mode='off', clock=clock)
    for epoch in monitor.epochs():
        for X in monitor.batches(iter([np.zeros((2, 1))] * 5)):
            clock.advance(1.0)
        if epoch == 0:
            assert monitor.progress.num_batches == 5
    assert monitor.progress.batch_counts == {0: 5, 1: 5}


def test_stop_ends_after_the_current_batch(clock):
    monitor = TrainingMonitor(epochs=5, mode='off', clock=clock)
    train(monitor, clock, stop_at=(1, 1))
    progress = monitor.progress
    assert progress.batch_counts == {0: 4, 1: 2}  # batch 1 completed
    assert monitor.should_stop and monitor.finished
    assert monitor.summary().startswith('stopped at epoch 2/5: ')


def test_stop_before_fetching_the_next_batch(clock):
    fetched = []

    def data():
        for i in range(10):
            fetched.append(i)
            yield np.zeros((1, 1))

    monitor = TrainingMonitor(epochs=1, mode='off', clock=clock)
    for X in monitor.batches(data()):
        if len(fetched) == 3:
            monitor.stop()
    assert fetched == [0, 1, 2]  # no batch loaded only to be dropped


def test_break_out_of_batches_still_records_the_batch(clock):
    monitor = TrainingMonitor(epochs=1, mode='off', clock=clock)
    for i, X in enumerate(monitor.batches([np.zeros((4, 1))] * 10)):
        monitor.log(loss=float(i))
        if i == 2:
            break
    assert monitor.progress.batch == 3
    assert monitor.history.latest['loss'] == 1.0


def test_context_manager_swallows_stop_training_only(clock):
    with TrainingMonitor(epochs=2, mode='off', clock=clock) as monitor:
        monitor.batch_end(loss=1.0)
        raise StopTraining('from a callback')
    assert monitor.finished
    with pytest.raises(KeyError):
        with TrainingMonitor(epochs=2, mode='off', clock=clock) as monitor:
            raise KeyError('a real error')
    assert monitor.finished


def test_values_are_converted_to_floats_once(clock):
    class Scalar:  # an NDArray-like scalar
        calls = 0

        def asscalar(self):
            Scalar.calls += 1
            return np.float32(0.25)

    monitor = TrainingMonitor(mode='off', clock=clock)
    monitor.batch_end(loss=Scalar())
    monitor.epoch_end(val_loss=np.float64(0.5))
    assert Scalar.calls == 1
    assert monitor.history.epochs[0] == {'loss': 0.25, 'val_loss': 0.5}
    assert all(type(v) is float for v in monitor.history.epochs[0].values())


def test_text_fallback(clock, capsys):
    monitor = TrainingMonitor(
        epochs=3, device='cpu(0)', mode='text', clock=clock, text_interval=2.0
    )
    train(monitor, clock)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        'epoch 1/3, batch 1/4: loss 1.000, acc 0.500 '
        '| 16.0 examples/sec | ETA 0:06 | cpu(0)'
    )
    assert len(lines) == 4  # 6 s of training: lines 2 s apart
    assert lines[-1] == (
        'epoch 3/3: loss 1.833, acc 0.500, val_acc 0.800; '
        '16.0 examples/sec on cpu(0), 6.0 sec'
    )


def test_widget_dashboard_and_final_figure(clock, shown, capsys):
    monitor = TrainingMonitor(
        epochs=2, device='gpu(0)', mode='widget', clock=clock
    )
    train(monitor, clock)
    widget_view, picture = shown
    bundle = widget_view._repr_mimebundle_()
    assert bundle['text/plain'] == 'TrainingMonitor(epochs=2)'
    assert isinstance(picture, StaticFigure)
    assert repr(picture) == '<Figure size 700x250 with 2 Axes>'
    assert monitor.view.image.layout.display == 'none'
    w = monitor._widgets
    assert (w['epoch_bar'].value, w['epoch_bar'].max) == (2, 2)
    assert w['batch_text'].value.startswith('4/4')
    assert 'device gpu(0)' in w['info'].value
    assert w['stop'].description == 'Done' and w['stop'].disabled
    assert capsys.readouterr().out == (
        'epoch 2/2: loss 2.000, acc 0.500, val_acc 0.700; '
        '16.0 examples/sec on gpu(0), 4.0 sec\n'
    )


def test_stop_button_requests_a_stop(clock, shown):
    monitor = TrainingMonitor(epochs=2, mode='widget', clock=clock)
    monitor.start()
    monitor._widgets['stop'].click()  # what a click in the browser does
    assert monitor.should_stop
    clock.advance(1.0)
    monitor.batch_end(loss=1.0)
    assert monitor._widgets['stop'].description == 'Stopping'
    monitor.finish()
    assert monitor._widgets['stop'].description == 'Stopped'


def test_first_interrupt_stops_cleanly_second_interrupts(clock):
    monitor = TrainingMonitor(epochs=2, mode='off', clock=clock)
    previous = signal.getsignal(signal.SIGINT)
    monitor.start()
    os.kill(os.getpid(), signal.SIGINT)
    assert monitor.should_stop
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
    monitor.finish()
    assert signal.getsignal(signal.SIGINT) == previous


def test_interrupt_handler_is_restored_on_finish(clock):
    previous = signal.getsignal(signal.SIGINT)
    monitor = TrainingMonitor(epochs=1, mode='off', clock=clock)
    train(monitor, clock)
    assert signal.getsignal(signal.SIGINT) == previous
    TrainingMonitor(epochs=1, mode='off', catch_interrupt=False).start()
    assert signal.getsignal(signal.SIGINT) == previous


def test_format_duration():
    assert format_duration(None) == '?'
    assert format_duration(83.4) == '1:23'
    assert format_duration(3725) == '1:02:05'


def test_progress_without_planned_epochs_has_no_eta():
    progress = Progress()
    progress.begin_epoch(0.0)
    progress.end_batch(1.0)
    assert progress.eta(1.0) is None
    assert progress.speed() == (1.0, 'batches')


def test_batches_in_a_plain_range_loop_opens_one_epoch_each(clock):
    monitor = TrainingMonitor(epochs=3, mode='off', clock=clock)
    for epoch in range(3):
        for X in monitor.batches([np.zeros((2, 1))] * 4):
            clock.advance(0.25)
            monitor.log(loss=float(epoch))
        if epoch == 1:
            monitor.epoch_end(val_loss=0.5)  # optional
    monitor.finish()
    assert monitor.progress.batch_counts == {0: 4, 1: 4, 2: 4}
    assert [monitor.history.epochs[e]['loss'] for e in range(3)] == [
        0.0,
        1.0,
        2.0,
    ]
    assert monitor.history.epochs[1]['val_loss'] == 0.5


def test_epoch_level_values_only_d2l_style(clock):
    monitor = TrainingMonitor(
        epochs=2, device='cpu(0)', mode='off', clock=clock
    )
    monitor.start()  # else the clock starts at epoch_end
    for epoch in range(2):
        clock.advance(1.0)
        monitor.epoch_end(loss=1.0 / (epoch + 1), test_acc=0.8)
    monitor.finish()
    assert monitor.history.epochs[1] == {'loss': 0.5, 'test_acc': 0.8}
    assert monitor.summary() == (
        'epoch 2/2: loss 0.500, test_acc 0.800; on cpu(0), 2.0 sec'
    )


def test_norms_heat_strip(clock, shown):
    monitor = TrainingMonitor(epochs=2, mode='widget', clock=clock)
    for epoch in monitor.epochs():
        for i, X in enumerate(monitor.batches([np.zeros((4, 1))] * 4)):
            clock.advance(0.25)
            monitor.log(loss=1.0)
            if i % 2 == 1:
                monitor.log_norms(
                    {'dense0': 10.0**-epoch, 'dense1': 1.0, 'dense2': 0.0}
                )  # zero: no colour
    picture = shown[-1]
    # loss, the strip and its colour bar
    assert repr(picture) == '<Figure size 700x250 with 3 Axes>'
    strip = monitor._chart._strip
    data = strip.get_array()
    assert data.shape == (3, 4)
    assert data[0].tolist() == [0.0, 0.0, -1.0, -1.0]
    assert data.mask[2].all()  # log10(0): left blank
    assert strip.get_clim() == (-1.0, 0.0)


def test_cell_end_finishes_the_monitor_and_training_again_continues(
    clock, shown
):
    from dlbook.widgets import display

    previous = signal.getsignal(signal.SIGINT)
    monitor = TrainingMonitor(epochs=1, mode='widget', clock=clock)
    for X in monitor.batches([np.zeros((2, 1))] * 3):
        monitor.log(loss=1.0)
    display.finish_open_views()  # what the cell end does
    assert monitor.finished and len(shown) == 2
    assert signal.getsignal(signal.SIGINT) == previous
    for epoch in monitor.epochs(3):  # the next cell: a new view
        monitor.batch_end(loss=3.0)
    assert epoch == 2 and len(shown) == 4
    assert monitor.progress.epochs_done == 3
    assert monitor.history.epochs[2]['loss'] == 3.0


def test_validation_after_finish_is_recorded_without_a_new_view(clock, shown):
    monitor = TrainingMonitor(epochs=1, mode='widget', clock=clock)
    monitor.batch_end(loss=1.0)
    monitor.finish()
    monitor._record_epoch_values(0, {'val_loss': 0.5})
    assert monitor.finished and len(shown) == 2
    assert monitor.history.epochs[0]['val_loss'] == 0.5
