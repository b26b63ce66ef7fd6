"""Large-batch SGD: LARS and LBSGD.

Training with very large batches (thousands of examples) lets one raise
the learning rate, but a single global rate then blows up some layers
while others barely move.  Both optimizers here keep the SGD step of
``sgd.py`` and only change the learning rate each weight sees:

* :class:`LARS` (You, Gitman & Ginsburg, https://arxiv.org/abs/1708.03888)
  scales the rate of every layer by a *trust ratio*
  ``eta * ||w|| / (||g|| + wd * ||w|| + eps)``, so each layer moves by
  about the same fraction of its own size;
* :class:`LBSGD` emulates a batch ``batch_scale`` times larger by
  averaging that many gradients before each step, and warms the rate up
  from ``lr`` to ``lr * batch_scale`` over the first epochs (or uses a
  LARS-like ratio).

Sources: ``apache/mxnet@1.9.1:python/mxnet/optimizer/optimizer.py``
(classes ``LARS`` and ``LBSGD``) and the ``multi_lars`` kernel of
``src/operator/contrib/multi_lars-inl.h``.  Weights are changed in place,
as in ``sgd.py``.
"""

import logging
import math
import os

import numpy

from ..ops.update_rules.norms import l2_norm
from ..ops.update_rules.sgd import sgd_mom_update, sgd_update
from .optimizer import Optimizer, register

__all__ = ['LARS', 'LBSGD', 'lars_rate']


def lars_rate(xp, weight, grad, lr, wd, eta, eps, rescale_grad):
    """The layer-wise learning rate of LARS (MXNet's ``multi_lars``).

    ``lr * eta * ||w|| / (||g|| * rescale_grad + wd * ||w|| + eps)``, or
    ``lr`` itself when ``||w||`` or ``||g||`` is 0.  ``g`` is the raw
    gradient: neither clipped nor rescaled inside the norm.  The result is
    a 0-d array on the weight's device (no host sync), in the weight's
    dtype.
    """
    w_norm = l2_norm(xp, weight)  # one reduction kernel each on a GPU
    g_norm = l2_norm(xp, grad)
    rate = lr * eta * w_norm / (g_norm * rescale_grad + wd * w_norm + eps)
    usable = (w_norm > 0.0) & (g_norm > 0.0)
    return xp.where(usable, rate, lr).astype(weight.dtype)


def _as_lists(index, weight, grad, state):
    if isinstance(index, (list, tuple)):
        return list(index), list(weight), list(grad), list(state)
    return [index], [weight], [grad], [state]


@register
class LARS(Optimizer):
    """LARS: SGD with a learning rate per layer
    (https://arxiv.org/abs/1708.03888).

    For each weight ``w`` (a whole layer's matrix or vector) with
    gradient ``g``, learning rate ``lr`` (times its ``lr_mult``) and weight
    decay ``wd`` (times its ``wd_mult``)::

        if ||w|| > 0 and ||g|| > 0:
            lr_layer = lr * eta * ||w|| / (rescale_grad * ||g||
                                           + wd * ||w|| + eps)
        else:
            lr_layer = lr
        g' = clip(rescale_grad * g, clip_gradient)
        mom = momentum' * mom - lr_layer * wd * w - lr_layer * g'
        w = w + mom

    (without momentum: ``w = (1 - lr_layer * wd) * w - lr_layer * g'``).
    Norms are L2 norms over the whole array and use the unclipped
    gradient.

    Parameters whose name ends in ``gamma``, ``beta`` or ``bias`` (batch
    norm scales and shifts, biases) keep ``lr_layer = lr``.  Names come
    from ``param_idx2name`` (the Module API passes it); a Gluon
    ``Trainer`` gives none, so there every parameter, biases included,
    gets the trust ratio, as in MXNet.  With ``param_idx2name``, weight
    decay applies only to names ending in ``_weight`` (not ``_gamma``, as
    for other optimizers).

    ``momentum'`` is the momentum corrected for a change of the global
    learning rate (Goyal et al., https://arxiv.org/abs/1706.02677):
    ``momentum * lr_now / lr_before`` with ``momentum_correction`` (and
    ``lr_before`` not 0), else ``momentum``.  The two rates are the
    scheduled rates (before ``lr_mult``) seen by this call of ``update``
    and by the previous one.  Updaters hand weights over in groups of
    ``aggregate_num`` (``MXNET_OPTIMIZER_AGGREGATION_SIZE``, 4), one call
    each, so, as in MXNet, only the first group of a step sees the change.

    Parameters
    ----------
    momentum : float, optional
        The momentum value.
    lazy_update : bool, optional
        Accepted for compatibility; dlbook has no sparse gradients, so it
        has no effect.
    eta : float, optional, default 0.001
        The LARS coefficient (trust in the ratio of norms).
    eps : float, optional, default 0
        Added to the denominator, for very small gradients.
    momentum_correction : bool, optional, default True
        Scale the momentum when the global learning rate changes.

    Examples
    --------
    >>> o = mx.optimizer.create('lars', learning_rate=0.1, momentum=0.9,
    ...                         eta=0.001, wd=1e-4)
    """

    #: LARS decays only ``*_weight`` (not BatchNorm's ``_gamma``).
    decayed_suffixes = ('_weight',)

    def __init__(
        self,
        momentum=0.0,
        lazy_update=True,
        eta=0.001,
        eps=0,
        momentum_correction=True,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.momentum_correction = momentum_correction
        self.lazy_update = lazy_update
        self.aggregate_num = int(
            os.getenv('MXNET_OPTIMIZER_AGGREGATION_SIZE', '4')
        )
        self.eta = eta
        self.eps = eps
        self.last_lr = None
        self.cur_lr = None

    def _get_lrs(self, indices):
        """Learning rates of ``indices``, remembering the global rate of
        this call and of the previous one for the momentum correction."""
        lr = self._base_lr()
        self.last_lr = lr if self.cur_lr is None else self.cur_lr
        self.cur_lr = lr
        return [self._lr_of(index, lr) for index in indices]

    def _skips_lars(self, index):
        """Whether ``index`` names a bias or a batch-norm gamma/beta."""
        name = self.idx2name.get(index, str(index))
        return name.endswith(('gamma', 'beta', 'bias'))

    def _current_momentum(self):
        if self.momentum_correction and self.last_lr != 0:
            return self.momentum * (self.cur_lr / self.last_lr)
        return self.momentum

    def create_state(self, index, weight):
        if self.momentum != 0.0:
            return self._zeros_like(weight)
        return None

    def update(self, index, weight, grad, state):
        self._update_group(*_as_lists(index, weight, grad, state))

    def update_multi_precision(self, index, weight, grad, state):
        """Update a group of weights at once (one learning-rate reading),
        through float32 master copies of float16 weights with
        ``multi_precision``."""
        indices, weights, grads, states = _as_lists(index, weight, grad, state)
        if not (self.multi_precision and weights[0].dtype == numpy.float16):
            self._update_group(indices, weights, grads, states)
            return
        masters = [s[0] for s in states]
        self._update_group(
            indices,
            masters,
            [g.astype(numpy.float32) for g in grads],
            [s[1] for s in states],
        )
        for w, master in zip(weights, masters):
            w._data[...] = master._data

    def _update_group(self, indices, weights, grads, states):
        self._update_count(indices)
        lrs = self._get_lrs(indices)
        wds = self._get_wds(indices)
        momentum = self._current_momentum() if self.momentum > 0 else 0.0
        clip = self._kernel_clip()
        for index, weight, grad, state, lr, wd in zip(
            indices, weights, grads, states, lrs, wds
        ):
            xp = weight.context.backend.xp
            if not self._skips_lars(index):
                lr = lars_rate(
                    xp,
                    weight._data,
                    grad._data,
                    lr,
                    wd,
                    self.eta,
                    self.eps,
                    self.rescale_grad,
                )
            if self.momentum > 0:
                sgd_mom_update(
                    xp,
                    weight._data,
                    grad._data,
                    state._data,
                    lr,
                    wd,
                    momentum,
                    self.rescale_grad,
                    clip,
                )
            else:
                sgd_update(
                    xp,
                    weight._data,
                    grad._data,
                    lr,
                    wd,
                    self.rescale_grad,
                    clip,
                )


@register
class LBSGD(Optimizer):
    """Large-batch SGD: gradient accumulation, warmup and LARS-like rates.

    Each weight accumulates ``batch_scale`` gradients (one per call of
    ``update``) and then takes one SGD step with their mean ``g``,
    emulating a batch ``batch_scale`` times larger; in between the weight
    does not change.  The step is SGD's::

        g' = clip(rescale_grad * g, clip_gradient)
        mom = momentum * mom - lr_t * wd * w - lr_t * g'
        w = w + mom

    (``w = (1 - lr_t * wd) * w - lr_t * g'`` without momentum), with
    ``lr_t = lr * mult``.  For ``warmup_strategy`` ``'linear'``,
    ``'power2'`` and ``'sqrt'``, the multiplier grows from 1 to
    ``batch_scale`` over ``N = warmup_epochs * updates_per_epoch``
    gradients::

        'linear':  mult = 1 + (batch_scale - 1) * n / N
        'power2':  mult = 1 + (batch_scale - 1) * (n / N)**2
        'sqrt':    mult = 1 + (batch_scale - 1) * sqrt(n / N)

    and is ``batch_scale`` once ``n >= N`` (1 when ``N <= 1``; 1 for an
    unknown strategy).  ``n`` counts this weight's gradients, starting at
    ``begin_epoch * updates_per_epoch + 1``.  For ``'lars'``::

        mult = clip(sqrt(||w||**2 / (||g||**2 + wd * ||w||**2 + 1e-18)),
                    0.01, 100)

    computed from the averaged, not rescaled, gradient.  Note the
    difference from :class:`LARS`: the squares are inside the square
    root and there is no ``eta``.

    As in MXNet, ``lr`` is read *before* the step is counted (a scheduler
    sees the previous step number), and ``num_epochs`` is stored but not
    used.

    Parameters
    ----------
    momentum : float, optional
        The momentum value.
    multi_precision : bool, optional
        Update a float32 master copy of float16 weights.
    warmup_strategy : {'linear', 'power2', 'sqrt', 'lars'}, default 'linear'
    warmup_epochs : int, default 5
    batch_scale : int, default 1
        How many gradients make one step (1: plain SGD).
    updates_per_epoch : int, default 32
        Used for the warmup length only.
    begin_epoch : int, default 0
        The epoch training starts from (resumed training).
    num_epochs : int, default 60

    Examples
    --------
    >>> o = mx.optimizer.create('lbsgd', learning_rate=0.1, momentum=0.9,
    ...                         batch_scale=4, warmup_epochs=2,
    ...                         updates_per_epoch=100)
    """

    def __init__(
        self,
        momentum=0.0,
        multi_precision=False,
        warmup_strategy='linear',
        warmup_epochs=5,
        batch_scale=1,
        updates_per_epoch=32,
        begin_epoch=0,
        num_epochs=60,
        **kwargs,
    ):
        super().__init__(multi_precision=multi_precision, **kwargs)
        logging.info('Running Large-Batch SGD Algorithm')
        logging.info(
            '(Batch_scale=%f, warmup_epochs=%d, warmup_strategy=%s,'
            ' updates_per_epoch=%d)',
            batch_scale,
            warmup_epochs,
            warmup_strategy,
            updates_per_epoch,
        )
        self.momentum = momentum
        self.warmup_strategy = warmup_strategy
        self.warmup_epochs = warmup_epochs
        self.batch_scale = batch_scale
        self.updates_per_epoch = updates_per_epoch
        self.init_updates = begin_epoch * updates_per_epoch
        self.num_epochs = num_epochs
        # index -> {'cum_grad': NDArray or 0, 'num_cums': int}
        self.cumgrads = {}

    def create_state(self, index, weight):
        if self.momentum != 0.0:
            return self._zeros_like(weight)
        return None

    def _get_lbmult(self, nup):
        """The warmup multiplier after ``nup`` gradients."""
        nwup = self.warmup_epochs * self.updates_per_epoch
        maxmult = float(self.batch_scale)
        if nup >= nwup:
            return maxmult
        if nwup <= 1:
            return 1.0
        if self.warmup_strategy == 'linear':
            return 1.0 + (maxmult - 1) * nup / nwup
        if self.warmup_strategy == 'power2':
            return 1.0 + (maxmult - 1) * (nup * nup) / (nwup * nwup)
        if self.warmup_strategy == 'sqrt':
            return 1.0 + (maxmult - 1) * math.sqrt(float(nup) / nwup)
        return 1.0

    @staticmethod
    def _get_lars(xp, weight, grad, wd):
        """The ``'lars'`` multiplier (see the class docstring)."""
        weight2 = float(xp.sum(weight * weight))
        grad2 = float(xp.sum(grad * grad))
        lars = math.sqrt(weight2 / (grad2 + wd * weight2 + 1e-18))
        return min(max(lars, 0.01), 100)

    def _cumulate_gradient(self, grad, index):
        """Add ``grad`` to the sum of ``index``; return its record."""
        cgrad = self.cumgrads.get(index)
        if cgrad and cgrad['num_cums'] > 0:
            cum_grad = (
                grad.copy()
                if isinstance(cgrad['cum_grad'], int)
                else cgrad['cum_grad'] + grad
            )
            num_cums = cgrad['num_cums'] + 1
        else:
            # A copy: the caller's gradient buffer is overwritten by the
            # next backward pass.
            cum_grad = grad.copy()
            num_cums = self.init_updates + 1
        cgrad = {'cum_grad': cum_grad, 'num_cums': num_cums}
        self.cumgrads[index] = cgrad
        return cgrad

    def _update_one(self, index, weight, grad, state):
        lr = self._get_lr(index)
        wd = self._get_wd(index)
        self._update_count(index)
        cgrad = self._cumulate_gradient(grad, index)
        if cgrad['num_cums'] % self.batch_scale != 0:
            return  # still accumulating: the weight stays as it is
        xp = weight.context.backend.xp
        g = cgrad['cum_grad']._data / self.batch_scale
        if self.warmup_strategy == 'lars':
            lr *= self._get_lars(xp, weight._data, g, wd)
        else:
            lr *= self._get_lbmult(cgrad['num_cums'])
        if state is not None:
            # MXNet passes the momentum to its kernel only when positive.
            momentum = self.momentum if self.momentum > 0 else 0.0
            sgd_mom_update(
                xp,
                weight._data,
                g,
                state._data,
                lr,
                wd,
                momentum,
                self.rescale_grad,
                self._kernel_clip(),
            )
        else:
            sgd_update(
                xp,
                weight._data,
                g,
                lr,
                wd,
                self.rescale_grad,
                self._kernel_clip(),
            )
        cgrad['cum_grad'] = 0
