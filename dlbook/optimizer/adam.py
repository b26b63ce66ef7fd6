"""Adam and the optimizers built on its two moment estimates: AdamW,
Adamax, Nadam, FTML and LAMB.

The rules themselves, on raw arrays, are in
``dlbook/ops/update_rules/adam.py`` with their sources (Adamax and Nadam
from the Python rules of ``python/mxnet/optimizer/optimizer.py``) and
LAMB's in ``lamb.py``, one fused kernel per weight (LAMB: per phase) on
a GPU.  The bias correction of Adam is folded
into the learning rate, as MXNet does: ``lr_t = lr * sqrt(1 - beta2**t)
/ (1 - beta1**t)``.
"""

import math

import numpy

from ..ndarray.lazy_update import rows_for_update
from ..ops.update_rules.adam import (
    adam_update,
    adamax_update,
    adamw_update,
    ftml_update,
    nadam_update,
)
from ..ops.update_rules.lamb import lamb_update
from .optimizer import Optimizer, register

__all__ = ['Adam', 'AdamW', 'Adamax', 'Nadam', 'FTML', 'LAMB']


@register
class Adam(Optimizer):
    """The Adam optimizer (http://arxiv.org/abs/1412.6980).

    At step ``t`` of a weight::

        rescaled_grad = clip(grad * rescale_grad + wd * weight,
                             clip_gradient)
        m = beta1 * m + (1 - beta1) * rescaled_grad
        v = beta2 * v + (1 - beta2) * (rescaled_grad**2)
        lr_t = learning_rate * sqrt(1 - beta2**t) / (1 - beta1**t)
        w = w - lr_t * m / (sqrt(v) + epsilon)

    (MXNet's docstring writes the bias-correction ratio the other way up;
    its code, followed here, uses this one.)

    Parameters
    ----------
    beta1 : float, optional
        Exponential decay rate for the first moment estimates.
    beta2 : float, optional
        Exponential decay rate for the second moment estimates.
    epsilon : float, optional
        Small value to avoid division by 0.
    lazy_update : bool, optional
        With a row_sparse gradient, update only the rows it holds (and
        their mean and variance), as MXNet does.
    """

    def __init__(
        self,
        learning_rate=0.001,
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-8,
        lazy_update=True,
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        return (
            self._zeros_like(weight),  # mean
            self._zeros_like(weight),
        )  # variance

    def _update_one(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        t = self._index_update_count[index]
        lr *= math.sqrt(1.0 - self.beta2**t) / (1.0 - self.beta1**t)
        w, g, (mean, var), commit = rows_for_update(
            weight, grad, state, self.lazy_update
        )
        adam_update(
            weight.context.backend.xp,
            w,
            g,
            mean,
            var,
            lr,
            wd,
            self.beta1,
            self.beta2,
            self.epsilon,
            self.rescale_grad,
            self._kernel_clip(),
        )
        if commit is not None:
            commit()


@register
class AdamW(Optimizer):
    """The AdamW optimizer (https://arxiv.org/abs/1711.05101).

    At step ``t`` of a weight::

        grad = clip(grad * rescale_grad, clip_gradient)
        m = beta1 * m + (1 - beta1) * grad
        v = beta2 * v + (1 - beta2) * (grad**2)
        eta = learning_rate * sqrt(1 - beta2**t) / (1 - beta1**t)
        w = w - eta * (m / (sqrt(v) + epsilon) + wd * w)

    (``eta = learning_rate`` with ``correct_bias=False``.)  MXNet 1.9 has no
    ``mx.optimizer.AdamW`` class, only the fused operator
    ``nd.contrib.adamw_update`` (``src/operator/contrib/adamw-inl.h``:
    ``w -= eta * (lr * m / (sqrt(v) + epsilon) + wd * w)``).  This class
    follows the optimizer built on it in MXNet 2
    (``apache/mxnet@master:python/mxnet/optimizer/adamW.py``,
    ``fused_step``: kernel ``lr=1`` and the bias-corrected rate as ``eta``),
    which is also GluonNLP's ``AdamW``.

    Parameters
    ----------
    beta1 : float, optional
        Exponential decay rate for the first moment estimates.
    beta2 : float, optional
        Exponential decay rate for the second moment estimates.
    epsilon : float, optional
        Small value to avoid division by 0.
    correct_bias : bool, optional
        Apply Adam's bias correction to the step size.
    """

    def __init__(
        self,
        learning_rate=0.001,
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-6,
        correct_bias=True,
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.correct_bias = correct_bias

    def create_state(self, index, weight):
        return (
            self._zeros_like(weight),  # mean
            self._zeros_like(weight),
        )  # variance

    def _update_one(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        t = self._index_update_count[index]
        if self.correct_bias:
            lr *= math.sqrt(1.0 - self.beta2**t) / (1.0 - self.beta1**t)
        mean, var = state
        adamw_update(
            weight.context.backend.xp,
            weight._data,
            grad._data,
            mean._data,
            var._data,
            1.0,
            lr,
            wd,
            self.beta1,
            self.beta2,
            self.epsilon,
            self.rescale_grad,
            self._kernel_clip(),
        )


@register
class Adamax(Optimizer):
    """AdaMax, Adam with the infinity norm (arXiv:1412.6980, section 7).

    At step ``t`` of a weight::

        grad = clip(grad * rescale_grad + wd * weight, clip_gradient)
        m = beta1 * m + (1 - beta1) * grad
        u = maximum(beta2 * u, abs(grad))
        weight -= lr / (1 - beta1**t) * m / u

    The rule (``adamax_update``) is one fused kernel per weight on a GPU.

    Parameters
    ----------
    beta1 : float, optional
        Exponential decay rate for the first moment estimates.
    beta2 : float, optional
        Exponential decay rate for the infinity norm.
    """

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2

    def create_state(self, index, weight):
        return (
            self._zeros_like(weight),  # mean
            self._zeros_like(weight),
        )  # infinity norm

    def _update_one(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        t = self._index_update_count[index]
        lr /= 1.0 - self.beta1**t
        mean, u = state
        adamax_update(
            weight.context.backend.xp,
            weight._data,
            grad._data,
            mean._data,
            u._data,
            lr,
            wd,
            self.beta1,
            self.beta2,
            self.rescale_grad,
            self._python_clip(),
        )


@register
class Nadam(Optimizer):
    """Nesterov Adam (http://cs229.stanford.edu/proj2015/054_report.pdf).

    At step ``t`` of a weight, with ``g = clip(grad * rescale_grad +
    wd * weight)``::

        mu_t = beta1 * (1 - 0.5 * 0.96**(t * schedule_decay))
        mu_t1 = beta1 * (1 - 0.5 * 0.96**((t + 1) * schedule_decay))
        m_schedule = m_schedule * mu_t       (shared by all weights)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        g' = g / (1 - m_schedule)
        m' = m / (1 - m_schedule * mu_t1)
        v' = v / (1 - beta2**t)
        weight -= lr * ((1 - mu_t) * g' + mu_t1 * m') / (sqrt(v') + epsilon)

    The schedule's numbers are computed on the host; the rest
    (``nadam_update``) is one fused kernel per weight on a GPU.

    Parameters
    ----------
    beta1, beta2 : float, optional
        Exponential decay rates for the moment estimates.
    epsilon : float, optional
        Small value to avoid division by 0.
    schedule_decay : float, optional
        Exponential decay rate for the momentum schedule.
    """

    def __init__(
        self,
        learning_rate=0.001,
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-8,
        schedule_decay=0.004,
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.schedule_decay = schedule_decay
        self.m_schedule = 1.0

    def create_state(self, index, weight):
        return (
            self._zeros_like(weight),  # mean
            self._zeros_like(weight),
        )  # variance

    def _update_one(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        t = self._index_update_count[index]
        # the warming momentum schedule, on the host
        mu_t = self.beta1 * (1.0 - 0.5 * pow(0.96, t * self.schedule_decay))
        mu_t1 = self.beta1 * (
            1.0 - 0.5 * pow(0.96, (t + 1) * self.schedule_decay)
        )
        self.m_schedule = self.m_schedule * mu_t
        m_schedule_next = self.m_schedule * mu_t1
        mean, var = state
        nadam_update(
            weight.context.backend.xp,
            weight._data,
            grad._data,
            mean._data,
            var._data,
            lr,
            wd,
            t,
            self.beta1,
            self.beta2,
            self.epsilon,
            mu_t,
            mu_t1,
            self.m_schedule,
            m_schedule_next,
            self.rescale_grad,
            self._python_clip(),
        )


@register
class FTML(Optimizer):
    """FTML, Follow the Moving Leader (Zheng & Kwok, ICML 2017).

    At step ``t`` of a weight::

        g = clip(grad * rescale_grad + wd * weight, clip_gradient)
        v = beta2 * v + (1 - beta2) * g**2
        d_t = (1 - beta1**t) / lr * (sqrt(v / (1 - beta2**t)) + epsilon)
        z = beta1 * z + (1 - beta1) * g - (d_t - beta1 * d_(t-1)) * weight
        weight = - z / d_t

    Parameters
    ----------
    beta1 : float, optional
        0 < beta1 < 1. Generally close to 0.5.
    beta2 : float, optional
        0 < beta2 < 1. Generally close to 1.
    epsilon : float, optional
        Small value to avoid division by 0.
    """

    def __init__(self, beta1=0.6, beta2=0.999, epsilon=1e-8, **kwargs):
        super().__init__(**kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon

    def create_state(self, index, weight):
        return (
            self._zeros_like(weight),  # d_0
            self._zeros_like(weight),  # v_0
            self._zeros_like(weight),
        )  # z_0

    def _update_one(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        t = self._index_update_count[index]
        d, v, z = (s._data for s in state)
        ftml_update(
            weight.context.backend.xp,
            weight._data,
            grad._data,
            d,
            v,
            z,
            lr,
            wd,
            t,
            self.beta1,
            self.beta2,
            self.epsilon,
            self.rescale_grad,
            self._kernel_clip(),
        )


@register
class LAMB(Optimizer):
    """LAMB: layer-wise adaptive large-batch optimizer
    (https://arxiv.org/abs/1904.00962).

    At step ``t`` of a weight::

        g = clip(grad * rescale_grad, clip_gradient)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        r = m_hat / (sqrt(v_hat) + epsilon) + wd * weight
        r1 = clip(norm(weight), lower_bound, upper_bound); r2 = norm(r)
        weight -= lr * r1 / r2 * r          (lr * r if r1 or r2 is 0)

    with ``m_hat = m / (1 - beta1**t)``, ``v_hat = v / (1 - beta2**t)``
    (``m``, ``v`` when ``bias_correction=False``).  States are float32.
    """

    def __init__(
        self,
        learning_rate=0.001,
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-6,
        lower_bound=None,
        upper_bound=None,
        bias_correction=True,
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        self.bias_correction = bias_correction

    def create_state(self, index, weight):
        return (
            self._zeros_like(weight, numpy.float32),
            self._zeros_like(weight, numpy.float32),
        )

    def _update_one(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        t = self._index_update_count[index]
        mean, var = state
        # MXNet passes the bounds only when truthy, so 0 means "no bound".
        lamb_update(
            weight.context.backend.xp,
            weight._data,
            grad._data,
            mean._data,
            var._data,
            lr,
            wd,
            t,
            self.beta1,
            self.beta2,
            self.epsilon,
            self.bias_correction,
            self.lower_bound or None,
            self.upper_bound or None,
            self.rescale_grad,
            self._kernel_clip(),
        )
