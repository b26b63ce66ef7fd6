"""Learning-rate schedules: ``sched(num_update) -> lr``.

A scheduler is called by the optimizer with ``num_update``, the largest
number of updates any weight has received so far, and returns the learning
rate to use.  d2l calls one per epoch instead:
``trainer.set_learning_rate(scheduler(epoch))``.

The classes follow ``apache/mxnet@1.9.1:python/mxnet/lr_scheduler.py``
exactly, including two behaviours worth knowing:

* :class:`FactorScheduler` and :class:`MultiFactorScheduler` are
  *stateful*: they lower ``base_lr`` as ``num_update`` grows and never raise
  it again, so calling them with a smaller ``num_update`` afterwards does
  not go back in time;
* a warm-up phase (``warmup_steps > 0``) returns
  ``warmup_begin_lr + (base_lr - warmup_begin_lr) * num_update /
  warmup_steps`` (``'linear'``) or ``warmup_begin_lr`` (``'constant'``) while
  ``num_update < warmup_steps``.
"""

import logging
from math import cos, pi

from .base import UsageError

__all__ = [
    'LRScheduler',
    'FactorScheduler',
    'MultiFactorScheduler',
    'PolyScheduler',
    'CosineScheduler',
]


class LRScheduler:
    """Base class of a learning rate scheduler.

    Parameters
    ----------
    base_lr : float, optional
        The initial learning rate.
    warmup_steps : int
        Number of warm-up steps before the schedule proper starts.
    warmup_begin_lr : float
        The learning rate the warm-up starts from.
    warmup_mode : {'linear', 'constant'}
        ``'linear'`` raises the rate in equal increments up to ``base_lr``;
        ``'constant'`` keeps ``warmup_begin_lr`` for ``warmup_steps``.
    """

    def __init__(
        self,
        base_lr=0.01,
        warmup_steps=0,
        warmup_begin_lr=0,
        warmup_mode='linear',
    ):
        self.base_lr = base_lr
        if not isinstance(warmup_steps, int):
            raise UsageError(
                f'warmup_steps must be an int (a number of '
                f'updates), got {type(warmup_steps).__name__} '
                f'{warmup_steps!r}.'
            )
        self.warmup_steps = warmup_steps
        self.warmup_final_lr = base_lr
        self.warmup_begin_lr = warmup_begin_lr
        if self.warmup_begin_lr > self.warmup_final_lr:
            raise ValueError('Base lr has to be higher than warmup_begin_lr')
        if self.warmup_steps < 0:
            raise ValueError('Warmup steps has to be positive or 0')
        if warmup_mode not in ['linear', 'constant']:
            raise ValueError(
                'Supports only linear and constant modes of warmup'
            )
        self.warmup_mode = warmup_mode

    def get_warmup_lr(self, num_update):
        """The warm-up learning rate at ``num_update < warmup_steps``.

        ``linear``: ``begin + (final - begin) * num_update / warmup_steps``;
        ``constant``: ``begin``.
        """
        if not num_update < self.warmup_steps:
            raise UsageError(
                f'get_warmup_lr({num_update}) is only for '
                f'updates before warmup_steps='
                f'{self.warmup_steps}; call the scheduler '
                f'itself: scheduler(num_update).'
            )
        if self.warmup_mode == 'linear':
            increase = (
                (self.warmup_final_lr - self.warmup_begin_lr)
                * float(num_update)
                / float(self.warmup_steps)
            )
            return self.warmup_begin_lr + increase
        if self.warmup_mode == 'constant':
            return self.warmup_begin_lr
        raise ValueError(f'Invalid warmup mode {self.warmup_mode}')

    def __call__(self, num_update):
        """Return the learning rate after ``num_update`` updates.

        ``num_update`` is the largest number of updates applied to any one
        weight: ``max(k_i)`` when weight ``i`` was updated ``k_i`` times.
        """
        raise NotImplementedError('must override this')


class FactorScheduler(LRScheduler):
    """Multiply the learning rate by ``factor`` every ``step`` updates.

    ``lr = base_lr * factor ** floor((num_update - 1) / step)``, never
    below ``stop_factor_lr``.

    Parameters
    ----------
    step : int
        Changes the learning rate every ``step`` updates.
    factor : float, optional
        The factor to change the learning rate by (at most 1).
    stop_factor_lr : float, optional
        Stop lowering the learning rate once it falls below this value.
    base_lr, warmup_steps, warmup_begin_lr, warmup_mode
        As in :class:`LRScheduler`.
    """

    def __init__(
        self,
        step,
        factor=1,
        stop_factor_lr=1e-8,
        base_lr=0.01,
        warmup_steps=0,
        warmup_begin_lr=0,
        warmup_mode='linear',
    ):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if step < 1:
            raise ValueError(
                'Schedule step must be greater or equal than 1 round'
            )
        if factor > 1.0:
            raise ValueError('Factor must be no more than 1 to make lr reduce')
        self.step = step
        self.factor = factor
        self.stop_factor_lr = stop_factor_lr
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        # A loop, not an if: resuming at a large num_update (load_epoch)
        # applies every factor change that was missed.
        while num_update > self.count + self.step:
            self.count += self.step
            self.base_lr *= self.factor
            if self.base_lr < self.stop_factor_lr:
                self.base_lr = self.stop_factor_lr
                logging.info(
                    'Update[%d]: now learning rate arrived at '
                    '%0.5e, will not change in the future',
                    num_update,
                    self.base_lr,
                )
            else:
                logging.info(
                    'Update[%d]: Change learning rate to %0.5e',
                    num_update,
                    self.base_lr,
                )
        return self.base_lr


class MultiFactorScheduler(LRScheduler):
    """Multiply the learning rate by ``factor`` at each listed step.

    With ``step[k] < num_update <= step[k+1]`` the rate is
    ``base_lr * factor ** (k + 1)``.

    Parameters
    ----------
    step : list of int
        Increasing update counts at which to change the learning rate.
    factor : float
        The factor to change the learning rate by (at most 1).
    base_lr, warmup_steps, warmup_begin_lr, warmup_mode
        As in :class:`LRScheduler`.
    """

    def __init__(
        self,
        step,
        factor=1,
        base_lr=0.01,
        warmup_steps=0,
        warmup_begin_lr=0,
        warmup_mode='linear',
    ):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if not (isinstance(step, list) and len(step) >= 1):
            raise UsageError(
                f'MultiFactorScheduler: step must be a '
                f'non-empty list of update counts, got '
                f'{step!r}; for one step use FactorScheduler.'
            )
        for i, _step in enumerate(step):
            if i != 0 and step[i] <= step[i - 1]:
                raise ValueError(
                    'Schedule step must be an increasing integer list'
                )
            if _step < 1:
                raise ValueError(
                    'Schedule step must be greater or equal than 1 round'
                )
        if factor > 1.0:
            raise ValueError('Factor must be no more than 1 to make lr reduce')
        self.step = step
        self.cur_step_ind = 0
        self.factor = factor
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        # A loop for the same reason as in FactorScheduler.
        while self.cur_step_ind <= len(self.step) - 1:
            if num_update > self.step[self.cur_step_ind]:
                self.count = self.step[self.cur_step_ind]
                self.cur_step_ind += 1
                self.base_lr *= self.factor
                logging.info(
                    'Update[%d]: Change learning rate to %0.5e',
                    num_update,
                    self.base_lr,
                )
            else:
                return self.base_lr
        return self.base_lr


class _DecayScheduler(LRScheduler):
    """Shared by :class:`PolyScheduler` and :class:`CosineScheduler`: after
    warm-up, ``lr = final_lr + _decay(base_lr - final_lr, t)`` with
    ``t = num_update - warmup_steps``, until ``num_update`` reaches
    ``max_update``; the last value is kept afterwards.  ``_decay(delta,
    t)`` scales ``delta`` by a factor falling from 1 at ``t = 0`` to 0 at
    ``t = max_steps``."""

    def __init__(
        self,
        max_update,
        base_lr,
        final_lr,
        warmup_steps,
        warmup_begin_lr,
        warmup_mode,
    ):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if not isinstance(max_update, int):
            raise UsageError(
                f'max_update must be an int (a number of '
                f'updates), got {type(max_update).__name__} '
                f'{max_update!r}.'
            )
        if max_update < 1:
            raise ValueError(
                'maximum number of updates must be strictly positive'
            )
        self.base_lr_orig = self.base_lr
        self.max_update = max_update
        self.final_lr = final_lr
        self.max_steps = self.max_update - self.warmup_steps

    def _decay(self, delta, t):
        raise NotImplementedError()

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            self.base_lr = self.final_lr + self._decay(
                self.base_lr_orig - self.final_lr,
                num_update - self.warmup_steps,
            )
        return self.base_lr


class PolyScheduler(_DecayScheduler):
    """Polynomial decay from ``base_lr`` to ``final_lr``.

    After warm-up, ``lr = final_lr + (base_lr - final_lr) *
    (1 - (num_update - warmup_steps) / (max_update - warmup_steps)) ** pwr``
    while ``num_update <= max_update``; the last value is kept afterwards.

    Parameters
    ----------
    max_update : int
        Number of updates at which the decay reaches ``final_lr``.
    base_lr : float
        Learning rate to start from.
    pwr : int
        Power of the decay term.
    final_lr : float
        Learning rate after ``max_update`` updates.
    warmup_steps, warmup_begin_lr, warmup_mode
        As in :class:`LRScheduler`.
    """

    def __init__(
        self,
        max_update,
        base_lr=0.01,
        pwr=2,
        final_lr=0,
        warmup_steps=0,
        warmup_begin_lr=0,
        warmup_mode='linear',
    ):
        super().__init__(
            max_update,
            base_lr,
            final_lr,
            warmup_steps,
            warmup_begin_lr,
            warmup_mode,
        )
        self.power = pwr

    def _decay(self, delta, t):
        return delta * pow(1 - float(t) / float(self.max_steps), self.power)


class CosineScheduler(_DecayScheduler):
    """Cosine decay from ``base_lr`` to ``final_lr``.

    After warm-up, ``lr = final_lr + (base_lr - final_lr) *
    (1 + cos(pi * (num_update - warmup_steps) / (max_update -
    warmup_steps))) / 2`` while ``num_update <= max_update``; the last value
    is kept afterwards.

    Parameters
    ----------
    max_update : int
        Number of updates at which the decay reaches ``final_lr``.
    base_lr : float
        Learning rate to start from.
    final_lr : float
        Learning rate after ``max_update`` updates.
    warmup_steps, warmup_begin_lr, warmup_mode
        As in :class:`LRScheduler`.
    """

    def __init__(
        self,
        max_update,
        base_lr=0.01,
        final_lr=0,
        warmup_steps=0,
        warmup_begin_lr=0,
        warmup_mode='linear',
    ):
        super().__init__(
            max_update,
            base_lr,
            final_lr,
            warmup_steps,
            warmup_begin_lr,
            warmup_mode,
        )

    def _decay(self, delta, t):
        return delta * (1 + cos(pi * t / self.max_steps)) / 2
