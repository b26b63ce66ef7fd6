"""``mx.mon.Monitor``: statistics of every operator's output, for debugging.

Installed on executors (``mon.install(exe)``, or ``module.fit(...,
monitor=mon)`` / ``mod.install_monitor(mon)``), a monitor collects, every
``interval`` batches, one statistic per array whose name matches
``pattern``: each operator's outputs as the forward computes them
(``'fc1_output'``, ``'relu1_output'``), and at ``toc()`` the arguments and
auxiliary states (``'fc1_weight'``, ``'bn_moving_mean'``).  The default
statistic is the root mean square ``norm(x) / sqrt(x.size)``; a vanishing
or exploding layer shows up as a number far from its neighbours'::

    mon = mx.mon.Monitor(100, pattern='.*output')
    mod.fit(train_iter, num_epoch=1, monitor=mon)   # logs every 100 batches

MXNet also reports the outputs of its backward nodes
(``'fc1_backward_output0'``); dlbook's backward has no such named nodes,
so gradients are not reported (monitor ``exe.grad_arrays`` yourself).
"""

import logging
import re
from math import sqrt

from . import ndarray
from .ndarray import NDArray

__all__ = ['Monitor']


class _Collector:
    """The executor callback: records ``(step, name, stat)`` while the
    monitor is collecting (``collecting``, which the executor reads to
    skip the per-operator bookkeeping between intervals)."""

    def __init__(self, monitor):
        self.monitor = monitor

    @property
    def collecting(self):
        return self.monitor.activated

    def __call__(self, name, array):
        mon = self.monitor
        if mon.activated and mon.re_prog.match(name):
            mon.queue.append((mon.step, name, mon.stat_func(array)))


class Monitor:
    """Monitor inputs, outputs, weights and gradients for debugging.

    Parameters
    ----------
    interval : int
        Number of batches between collections.
    stat_func : function, optional
        ``NDArray -> NDArray`` (or list of them): the statistic.  Default
        ``norm(x) / sqrt(x.size)``.
    pattern : str, default '.*'
        Regular expression: only arrays whose names match are reported,
        e.g. ``'.*weight|.*output'``.
    sort : bool, default False
        Sort the results by name.
    monitor_all : bool, default False
        Also report each operator's inputs (``'fc1_data'``).
    """

    def __init__(
        self,
        interval,
        stat_func=None,
        pattern='.*',
        sort=False,
        monitor_all=False,
    ):
        if stat_func is None:

            def asum_stat(x):
                """Root mean square, ``norm(x) / sqrt(size(x))``."""
                return ndarray.norm(x) / sqrt(x.size)

            stat_func = asum_stat
        self.stat_func = stat_func
        self.interval = interval
        self.activated = False
        self.queue = []
        self.step = 0
        self.exes = []
        self.re_prog = re.compile(pattern)
        self.sort = sort
        self.monitor_all = monitor_all
        self.stat_helper = _Collector(self)

    def install(self, exe):
        """Install the callback on executor ``exe`` (several may be)."""
        exe.set_monitor_callback(self.stat_helper, self.monitor_all)
        self.exes.append(exe)

    def tic(self):
        """Start collecting for the current batch (call before forward);
        collects only every ``interval`` batches."""
        if self.step % self.interval == 0:
            self.queue = []
            self.activated = True
        self.step += 1

    def toc(self):
        """Stop collecting; ``[(step, name, 'values\\t'), ...]`` for this
        batch (empty between intervals)."""
        if not self.activated:
            return []
        for exe in self.exes:
            symbol = exe._symbol
            for name, array in zip(symbol.list_arguments(), exe.arg_arrays):
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
            for name, array in zip(
                symbol.list_auxiliary_states(), exe.aux_arrays
            ):
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
        self.activated = False
        if self.sort:
            self.queue.sort(key=lambda entry: entry[1])
        res = [(n, k, _format(v)) for n, k, v in self.queue]
        self.queue = []
        return res

    def toc_print(self):
        """:meth:`toc`, logged at INFO level."""
        for n, k, v in self.toc():
            logging.info('Batch: {:7d} {:30s} {:s}'.format(n, k, v))


def _format(values):
    """MXNet's text for one statistic (or a list of them): a scalar for
    shape-(1,) arrays, the array otherwise, each followed by a tab."""
    if isinstance(values, NDArray):
        values = [values]
    text = ''
    for v in values:
        if v.shape in ((1,), ()):
            text += str(v.asscalar()) + '\t'
        else:
            text += str(v.asnumpy()) + '\t'
    return text
