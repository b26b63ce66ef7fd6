"""Callbacks for ``Module.fit`` (``mx.callback``).

``fit`` calls two kinds of callbacks, as in
``apache/mxnet@1.9.1:python/mxnet/callback.py``:

* **batch-end** callbacks get a :class:`~dlbook.model.BatchEndParam`
  ``(epoch, nbatch, eval_metric, locals)`` after every batch:
  :class:`Speedometer`, :class:`ProgressBar`, :func:`log_train_metric`;
* **epoch-end** callbacks are called as ``callback(epoch, symbol,
  arg_params, aux_params)``: :func:`do_checkpoint`,
  :func:`module_checkpoint`.

Everything is reported through :mod:`logging` (the root logger, like
MXNet), so ``logging.basicConfig(level=logging.INFO)`` shows it.
"""

import logging
import math
import time

from .model import BatchEndParam, save_checkpoint

__all__ = [
    'BatchEndParam',
    'module_checkpoint',
    'do_checkpoint',
    'log_train_metric',
    'Speedometer',
    'ProgressBar',
    'LogValidationMetricsCallback',
]


def module_checkpoint(mod, prefix, period=1, save_optimizer_states=False):
    """An epoch-end callback saving ``mod`` every ``period`` epochs.

    Parameters
    ----------
    mod : BaseModule
        The module to save (``mod.save_checkpoint``).
    prefix : str
        Prefix of the checkpoint files.
    period : int, default 1
        Save after every ``period`` epochs.
    save_optimizer_states : bool, default False
        Also save ``prefix-%04d.states`` to resume training.

    Returns
    -------
    callback : function
        To pass as ``epoch_end_callback``.
    """
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        # Epochs count from 0 in fit, checkpoints from 1.
        if (iter_no + 1) % period == 0:
            mod.save_checkpoint(prefix, iter_no + 1, save_optimizer_states)

    return _callback


def do_checkpoint(prefix, period=1):
    """An epoch-end callback saving a checkpoint every ``period`` epochs.

    After epoch ``i`` (counted from 0) it saves epoch number ``i + 1``,
    so training for 8 epochs ends with ``prefix-0008.params``.

    Parameters
    ----------
    prefix : str
        Prefix of the files ``prefix-symbol.json`` and
        ``prefix-%04d.params``.
    period : int, default 1
        Interval (in epochs) between checkpoints.

    Returns
    -------
    callback : function
        To pass as ``epoch_end_callback`` to ``fit``.

    Examples
    --------
    >>> mod.fit(train_iter, num_epoch=2,
    ...         epoch_end_callback=mx.callback.do_checkpoint('mlp'))
    ... # doctest: +SKIP
    INFO:root:Epoch[0] Train-accuracy=0.812500
    INFO:root:Epoch[0] Time cost=0.100
    INFO:root:Saved checkpoint to "mlp-0001.params"
    """
    period = int(max(1, period))

    def _callback(iter_no, sym, arg, aux):
        if (iter_no + 1) % period == 0:
            save_checkpoint(prefix, iter_no + 1, sym, arg, aux)

    return _callback


def log_train_metric(period, auto_reset=False):
    """A batch-end callback logging the training metric every ``period``
    batches as ``Iter[epoch] Batch[n] Train-name=value``.

    Parameters
    ----------
    period : int
        Log every ``period`` batches.
    auto_reset : bool, default False
        Reset the (local) metric after each log.

    Returns
    -------
    callback : function
    """

    def _callback(param):
        if param.nbatch % period == 0 and param.eval_metric is not None:
            for name, value in param.eval_metric.get_name_value():
                logging.info(
                    'Iter[%d] Batch[%d] Train-%s=%f',
                    param.epoch,
                    param.nbatch,
                    name,
                    value,
                )
            if auto_reset:
                param.eval_metric.reset_local()

    return _callback


class Speedometer:
    """Log the training speed and the metric every ``frequent`` batches.

    Parameters
    ----------
    batch_size : int
        Examples per batch (speed = ``frequent * batch_size / seconds``).
    frequent : int, default 50
        Log every ``frequent`` batches.
    auto_reset : bool, default True
        Reset the local metric after each log, so each line shows the
        metric of the last ``frequent`` batches (``Batch [50-100]``);
        otherwise it covers the epoch so far (``Batch [0-100]``).

    Examples
    --------
    >>> mod.fit(train_iter, num_epoch=1,
    ...         batch_end_callback=mx.callback.Speedometer(32, 10))
    ... # doctest: +SKIP
    INFO:root:Epoch[0] Batch [0-10]   Speed: 1910.41 samples/sec   accuracy...

    (the fields are separated by tabs).
    """

    def __init__(self, batch_size, frequent=50, auto_reset=True):
        self.batch_size = batch_size
        self.frequent = frequent
        self.init = False
        self.tic = 0
        self.last_count = 0
        self.auto_reset = auto_reset

    def __call__(self, param):
        count = param.nbatch
        if self.last_count > count:
            # A new epoch started: the first batch only starts the clock.
            self.init = False
        self.last_count = count

        if not self.init:
            self.init = True
            self.tic = time.time()
            return
        if count % self.frequent != 0:
            return
        try:
            speed = self.frequent * self.batch_size / (time.time() - self.tic)
        except ZeroDivisionError:
            speed = float('inf')
        if param.eval_metric is not None:
            name_value = param.eval_metric.get_name_value()
            pairs = sum(name_value, ())
            if self.auto_reset:
                param.eval_metric.reset_local()
                msg = 'Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec'
                msg += '\t%s=%f' * len(name_value)
                logging.info(
                    msg,
                    param.epoch,
                    count - self.frequent,
                    count,
                    speed,
                    *pairs,
                )
            else:
                msg = 'Epoch[%d] Batch [0-%d]\tSpeed: %.2f samples/sec'
                msg += '\t%s=%f' * len(name_value)
                logging.info(msg, param.epoch, count, speed, *pairs)
        else:
            logging.info(
                'Iter[%d] Batch [%d]\tSpeed: %.2f samples/sec',
                param.epoch,
                count,
                speed,
            )
        self.tic = time.time()


class ProgressBar:
    """Log a text progress bar of the batches done in the epoch.

    Parameters
    ----------
    total : int
        Number of batches per epoch.
    length : int, default 80
        Width of the bar in characters.

    Examples
    --------
    >>> mod.fit(train_iter, num_epoch=1,
    ...         batch_end_callback=mx.callback.ProgressBar(total=2))
    ... # doctest: +SKIP
    INFO:root:[========================================----...] 50%
    """

    def __init__(self, total, length=80):
        self.bar_len = length
        self.total = total

    def __call__(self, param):
        count = param.nbatch
        filled_len = int(round(self.bar_len * count / float(self.total)))
        percents = math.ceil(100.0 * count / float(self.total))
        prog_bar = '=' * filled_len + '-' * (self.bar_len - filled_len)
        logging.info('[%s] %s%s\r', prog_bar, percents, '%')


class LogValidationMetricsCallback:
    """Log ``Epoch[n] Validation-name=value`` for each metric value; use
    as ``eval_end_callback`` of ``fit``."""

    def __call__(self, param):
        if not param.eval_metric:
            return
        for name, value in param.eval_metric.get_name_value():
            logging.info(
                'Epoch[%d] Validation-%s=%f', param.epoch, name, value
            )
