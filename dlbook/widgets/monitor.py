"""``TrainingMonitor``: a live dashboard for a training loop.

It shows progress bars for epochs and batches, loss and metric curves for
training and validation data, throughput, elapsed time, ETA and the
device, and a Stop button that ends training after the current batch.
It is fed plain Python floats, so it never waits for a GPU by itself.

Three ways to feed it:

1. A hand-written loop (chapter notebooks)::

       monitor = TrainingMonitor(epochs=num_epochs, device=ctx)
       for epoch in monitor.epochs():           # ends early after Stop
           for X, y in monitor.batches(train_iter):
               with autograd.record():
                   l = loss(net(X), y)
               l.backward()
               trainer.step(batch_size)
               monitor.log(loss=l.mean().asscalar())
           monitor.epoch_end(val_acc=evaluate_accuracy(net, test_iter))

   ``.asscalar()`` waits for the device, as d2l's loops do for every
   batch. To avoid that, sum the loss on the device and log once per
   epoch: ``monitor.epoch_end(loss=total.asscalar() / n)``.
2. ``Module.fit`` callbacks: ``batch_end_callback``,
   ``epoch_end_callback`` and ``eval_end_callback`` (``callbacks.py``).
3. Gluon estimator event handler: ``monitor.event_handler()``.

Stop (the button, or one interrupt) ends the run after the current batch:
``batches()`` yields no further batch, ``epochs()`` no further epoch, and
the ``Module.fit`` callbacks raise ``StopTraining``. How Stop reaches a
busy kernel is explained in ``stopping.py``; how the dashboard appears
(widget, text lines, or nothing) and why it passes strict nbval, in
``display.py``. ``log_norms`` adds a heat strip of per-layer norms.
"""

import html
import time

from . import display
from .callbacks import FitCallbacks, batch_size_of
from .charts import CurveFigure
from .history import MetricHistory
from .progress import Progress, format_duration, format_speed
from .stopping import InterruptCatcher, StopTraining, route_to_side_thread


def _format_values(values, sep=', '):
    return sep.join(f'{name} {value:.3f}' for name, value in values.items())


class TrainingMonitor(FitCallbacks):
    """Live progress, curves and a Stop button for a training loop.

    Parameters
    ----------
    epochs : int, optional
        Planned number of epochs (needed for ``epochs()`` and the ETA).
    batches_per_epoch : int, optional
        Batches in one epoch. Taken from ``len(data)`` by ``batches()``
        when possible, else learnt during the first epoch.
    batch_size : int, optional
        Examples per batch, for the throughput. Without it the size is
        read from each batch's shape (``X.shape[0]``).
    device : object, optional
        Where training runs, shown as ``str(device)`` (e.g. ``gpu(0)``).
    mode : {'auto', 'widget', 'text', 'off'}, optional
        How to display; see ``set_display_mode``.
    interval : float
        Minimum seconds between two redraws of the dashboard.
    text_interval : float
        Minimum seconds between two status lines in text mode.
    catch_interrupt : bool
        While training, make the first interrupt (the notebook's stop
        square, Ctrl-C) stop after the current batch, like Stop.
    clock : callable, optional
        Current time in seconds (``time.monotonic``); tests inject one.
    dpi : int
        Resolution of the curve figure.

    Attributes
    ----------
    history : MetricHistory
        Every logged value, per epoch and as plotted points.
    progress : Progress
        Counts, times, throughput and ETA.

    Examples
    --------
    A context manager finishes the display even if the loop fails, and
    catches ``StopTraining`` from the callbacks:

    >>> with TrainingMonitor(epochs=3, mode='off') as monitor:
    ...     for epoch in monitor.epochs():
    ...         for X in monitor.batches([[1, 2]] * 4):
    ...             monitor.log(loss=1.0 / (epoch + 1))
    ...         monitor.epoch_end(val_loss=1.2 / (epoch + 1))
    >>> monitor.history.epochs[2]
    {'loss': 0.3333333333333333, 'val_loss': 0.39999999999999997}
    """

    def __init__(
        self,
        epochs=None,
        batches_per_epoch=None,
        batch_size=None,
        device=None,
        *,
        mode=None,
        interval=0.2,
        text_interval=2.0,
        catch_interrupt=True,
        clock=None,
        dpi=100,
    ):
        self.num_epochs = None if epochs is None else int(epochs)
        self.batch_size = batch_size
        self.device = None if device is None else str(device)
        self.clock = clock if clock is not None else time.monotonic
        self.history = MetricHistory()
        self.progress = Progress(self.num_epochs, batches_per_epoch)
        self.view = display.LiveView(
            self,
            mode=mode,
            interval=interval,
            text_interval=text_interval,
            clock=self.clock,
        )
        self._chart = CurveFigure(dpi=dpi)
        self._interrupts = InterruptCatcher(self.stop)
        self._catch_interrupt = catch_interrupt
        self._pending = {}
        self._epoch_data_done = False  # batches() went through the data
        self._stop_requested = False
        self._started = False
        self._finished = False
        self._widgets = None

    def __repr__(self):
        if self.num_epochs is None:
            return 'TrainingMonitor()'
        return f'TrainingMonitor(epochs={self.num_epochs})'

    # -- stopping ------------------------------------------------------

    def stop(self):
        """Ask the loop to stop after the current batch (the Stop button)."""
        self._stop_requested = True

    @property
    def should_stop(self):
        """True once Stop was pressed (or ``stop()`` called)."""
        return self._stop_requested

    @property
    def finished(self):
        """True after ``finish()``."""
        return self._finished

    # -- life cycle ----------------------------------------------------

    def set_epochs(self, epochs):
        """Set the planned number of epochs (before or during training)."""
        self.num_epochs = None if epochs is None else int(epochs)
        self.progress.num_epochs = self.num_epochs

    def start(self):
        """Show the dashboard and start the clock.

        Called automatically by every event, so training again after
        ``finish()`` (say, in the next notebook cell) continues the same
        run in a new dashboard: ``for epoch in monitor.epochs(20)`` after
        10 epochs trains epochs 10 to 19.
        """
        if self._started and not self._finished:
            return
        if self._finished:  # continue a finished run
            self._finished = False
            self._stop_requested = False
            self.progress.end_time = None
        self._started = True
        self.progress.start(self.clock())
        if self._catch_interrupt:
            self._interrupts = InterruptCatcher(self.stop)
            self._interrupts.install()
        self.view.update(force=True)

    def finish(self):
        """Draw the final state: static figure and one summary line.

        Called automatically by ``epochs()``, ``with``, the estimator's
        ``train_end``, after the last ``Module.fit`` epoch, and at the
        end of the notebook cell. Safe to call more than once.
        """
        if self._finished:
            return
        if self.progress.in_epoch and self.progress.batch:
            self.epoch_end()  # a run stopped half-way through
        self.progress.in_epoch = False
        self._finished = True
        self.progress.finish(self.clock())
        self._interrupts.uninstall()
        if self._started:
            self.view.finish()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc, tb):
        self.finish()
        # Stop from a callback is a normal way to end training.
        return exc_type is not None and issubclass(exc_type, StopTraining)

    # -- the hand-written loop ----------------------------------------

    def epochs(self, num_epochs=None):
        """Iterate over epoch numbers ``0, 1, ...``; stop early on Stop.

        Closes each epoch that the loop body did not close with
        ``epoch_end()``, and finishes the display when the loop ends.
        """
        if num_epochs is not None:
            self.set_epochs(num_epochs)
        if self.num_epochs is None:
            raise ValueError(
                'TrainingMonitor.epochs() needs the number of epochs: '
                'TrainingMonitor(epochs=10) or monitor.epochs(10)'
            )
        self.start()
        try:
            for epoch in range(self.progress.epoch, self.num_epochs):
                if self.should_stop:
                    break
                self.epoch_begin(epoch)
                yield epoch
                if self.progress.in_epoch:
                    self.epoch_end()
        finally:
            self.finish()

    def batches(self, data):
        """Iterate over ``data`` and count batches; stop early on Stop.

        Each batch is recorded when the loop asks for the next one, with
        the values given to ``log()`` meanwhile. After Stop no further
        batch is yielded, so the current batch completes normally.
        """
        if self.progress.num_batches is None:
            try:
                self.progress.num_batches = len(data)
            except TypeError:  # an iterator: learnt in epoch 1
                pass
        if self.progress.in_epoch and self._epoch_data_done:
            # A second pass without epoch_end(): a loop over
            # range(num_epochs) rather than monitor.epochs().
            self.epoch_end()
        if not self.progress.in_epoch:
            self.epoch_begin()
        iterator = iter(data)
        # Check before fetching, so no batch is loaded only to be dropped.
        while not self.should_stop:
            try:
                item = next(iterator)
            except StopIteration:
                if self.progress.num_batches is None:  # learnt now
                    self.progress.num_batches = self.progress.batch
                self._epoch_data_done = True
                return
            try:
                yield item
            finally:
                # Also runs when the loop is left with `break`.
                size = self.batch_size
                if size is None:
                    size = batch_size_of(item)
                self.batch_end(size)

    def log(self, **metrics):
        """Record metric values of the current batch (plain floats).

        Give per-batch values (the mean loss of the batch, its
        accuracy); the monitor keeps their mean over the epoch, weighted
        by batch size. Prefix validation values with ``val_`` and test
        values with ``test_``.
        """
        self._pending.update(metrics)

    def log_norms(self, norms):
        """Record a norm per layer, drawn as a heat strip over time.

        Parameters
        ----------
        norms : dict
            Layer (or parameter) name -> norm, as plain floats. Computing
            norms reads every gradient back from the device, so do it
            every few dozen batches or once per epoch, not every batch.

        Examples
        --------
        >>> if i % 50 == 0:
        ...     monitor.log_norms({
        ...         name: param.grad().norm().asscalar()
        ...         for name, param in net.collect_params().items()})

        Vanishing gradients show as the first layers turning dark,
        exploding ones as a bright band spreading from the last layers.
        """
        self.start()
        progress = self.progress
        self.history.add_norms(progress.epoch, progress.batch, norms)
        self.view.dirty = True
        self._update()

    # -- events (all adapters end up here) -----------------------------

    def epoch_begin(self, epoch=None):
        """Start an epoch (default: the next one)."""
        self.start()
        if self.progress.in_epoch:
            self.epoch_end()
        self.progress.begin_epoch(self.clock(), epoch)
        self._epoch_data_done = False
        self._update()

    def _follow_epoch(self, epoch):
        """Callbacks give epoch numbers; open that epoch if needed.

        ``Module.fit`` has no "epoch begins" callback: we learn about an
        epoch from its first ``batch_end_callback``, one batch late. The
        epoch is dated back to the last thing that happened before it
        (the previous epoch's end or validation, or ``start()``, which
        ``with monitor:`` calls before ``fit``), so that no batch is
        missing from the throughput.
        """
        progress = self.progress
        if progress.in_epoch and progress.epoch == epoch:
            return
        self.start()
        if progress.in_epoch:
            self.epoch_end()
        progress.begin_epoch(progress.last_event, epoch)
        self._update()

    def batch_end(self, batch_size=None, **metrics):
        """Record one finished batch of ``batch_size`` examples.

        ``metrics`` are added to those given to ``log()``. Returns
        ``should_stop``, so a loop can write
        ``if monitor.batch_end(len(y), loss=l): break``.
        """
        values = dict(self._pending, **metrics)
        self._pending.clear()
        self._record_batch(batch_size, values=values)
        return self.should_stop

    def epoch_end(self, **metrics):
        """Close the current epoch, adding epoch-level values.

        Typical values are validation scores (``val_acc=0.91``) or
        training averages you computed yourself. Returns ``should_stop``.
        """
        self.start()
        now = self.clock()
        progress = self.progress
        if not progress.in_epoch:  # no batches were reported
            progress.begin_epoch(progress.last_event)
        self._epoch_data_done = False
        values = dict(self._pending, **metrics)
        self._pending.clear()
        self.history.close_epoch(progress.epoch, values)
        progress.end_epoch(now)
        self.view.dirty = True
        self._update()
        return self.should_stop

    def _record_batch(self, size, values=None, running=None):
        self.start()
        self.progress.end_batch(self.clock(), size)
        epoch, batch = self.progress.epoch, self.progress.batch
        if values:
            self.history.add_batch(epoch, batch, values, weight=size)
            self.view.dirty = True
        if running:
            self.history.set_running(epoch, batch, running)
            self.view.dirty = True
        self._update()

    def _record_running(self, values):
        if values:
            self.history.set_running(
                self.progress.epoch, self.progress.batch, values
            )
            self.view.dirty = True

    def _record_epoch_values(self, epoch, values):
        self.progress.last_event = self.clock()
        if values:
            self.history.set_epoch_values(epoch, values)
            self.view.dirty = True
            self._update()

    def _update(self):
        if not self._finished:
            self.view.update()

    # -- what the view shows -------------------------------------------

    def _epoch_text(self):
        progress = self.progress
        # During an epoch: its 1-based number; between epochs: how many
        # are done.
        if progress.in_epoch:
            shown = progress.epoch + 1
        else:
            shown = progress.epochs_done
        total = progress.num_epochs
        return f'{shown}/{total}' if total else f'{shown}'

    def _batch_text(self):
        progress = self.progress
        per_epoch = progress.batches_per_epoch()
        if per_epoch and progress.batch <= per_epoch:
            return f'{progress.batch}/{per_epoch}'
        return f'{progress.batch}'

    def _status_line(self):
        """One line for text mode (None before the first batch)."""
        progress = self.progress
        if not progress.batch and not progress.epochs_done:
            return None
        now = self.clock()
        parts = [f'epoch {self._epoch_text()}']
        if progress.in_epoch:
            parts[0] += f', batch {self._batch_text()}'
        head = ' '.join(parts)
        values = _format_values(self.history.latest)
        line = f'{head}: {values}' if values else head
        tail = [
            format_speed(progress.speed()),
            f'ETA {format_duration(progress.eta(now))}',
        ]
        if self.device:
            tail.append(self.device)
        return f'{line} | ' + ' | '.join(tail)

    def _summary_line(self):
        """The final line, in d2l's style.

        Example: ``epoch 10/10: loss 0.312, acc 0.887, val_acc 0.871;
        45210.3 examples/sec on gpu(0), 12.3 sec``
        """
        progress = self.progress
        if not progress.epochs_done and not progress.batch:
            return None
        head = f'epoch {self._epoch_text()}'
        if self.should_stop:
            head = f'stopped at {head}'
        values = _format_values(self.history.last_values())
        line = f'{head}: {values}' if values else head
        where = []
        speed = progress.overall_speed()
        if speed[0] is not None:
            where.append(format_speed(speed))
        if self.device:
            where.append(f'on {self.device}')
        where = ' '.join(where)
        elapsed = f'{progress.elapsed(self.clock()):.1f} sec'
        tail = f'{where}, {elapsed}' if where else elapsed
        return f'{line}; {tail}'

    def summary(self):
        """The summary line (also printed by ``finish``)."""
        return self._summary_line()

    def _render(self, final=False):
        return self._chart.render(self.history, self.progress, final=final)

    # -- ipywidgets ----------------------------------------------------

    def _build_header(self, widgets):
        bar_layout = widgets.Layout(width='320px')
        epoch_bar = widgets.IntProgress(
            min=0,
            max=max(self.num_epochs or 1, 1),
            description='epoch',
            layout=bar_layout,
        )
        batch_bar = widgets.IntProgress(
            min=0, max=1, description='batch', layout=bar_layout
        )
        stop = widgets.Button(
            description='Stop',
            icon='stop',
            button_style='danger',
            tooltip='Stop training after the current batch',
            layout=widgets.Layout(width='90px'),
        )
        stop.on_click(lambda _: self.stop())
        # Handle clicks while the cell is busy training (stopping.py).
        route_to_side_thread(stop)
        self._widgets = dict(
            epoch_bar=epoch_bar,
            epoch_text=widgets.HTML(),
            batch_bar=batch_bar,
            batch_text=widgets.HTML(),
            values=widgets.HTML(),
            info=widgets.HTML(),
            stop=stop,
        )
        w = self._widgets
        return [
            widgets.HBox([epoch_bar, w['epoch_text']]),
            widgets.HBox([batch_bar, w['batch_text']]),
            widgets.HBox([stop, widgets.VBox([w['values'], w['info']])]),
        ]

    def _refresh_header(self):
        w = self._widgets
        if w is None:
            return
        progress = self.progress
        now = self.clock()
        done = progress.epochs_done
        w['epoch_bar'].max = max(progress.num_epochs or done + 1, 1)
        w['epoch_bar'].value = min(done, w['epoch_bar'].max)
        w['epoch_text'].value = html.escape(f'{self._epoch_text()}')
        per_epoch = progress.batches_per_epoch() or progress.batch or 1
        w['batch_bar'].max = max(per_epoch, progress.batch, 1)
        w['batch_bar'].value = progress.batch
        w['batch_text'].value = html.escape(
            f'{self._batch_text()} \u00b7 {format_speed(progress.speed())}'
        )
        w['values'].value = html.escape(
            _format_values(self.history.latest, sep=' \u00b7 ')
        )
        info = [f'elapsed {format_duration(progress.elapsed(now))}']
        if not self._finished:
            info.append(f'ETA {format_duration(progress.eta(now))}')
        if self.device:
            info.append(f'device {self.device}')
        w['info'].value = html.escape(' \u00b7 '.join(info))
        stop = w['stop']
        if self._finished:
            stop.description = 'Stopped' if self.should_stop else 'Done'
            stop.disabled = True
            style = 'warning' if self.should_stop else 'success'
            w['epoch_bar'].bar_style = style
            w['batch_bar'].bar_style = style
        elif self.should_stop and not stop.disabled:
            stop.description = 'Stopping'
            stop.disabled = True
