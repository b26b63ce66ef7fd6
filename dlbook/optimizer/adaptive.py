"""Per-coordinate adaptive rates: AdaGrad, RMSProp, AdaDelta and Ftrl.

Each rule divides the step by a running measure of past squared
gradients.  The rules themselves, on raw arrays, are in
``dlbook/ops/update_rules/adaptive.py``; the classes here keep their
state and settings, as MXNet's optimizers do.
"""

from ..ops.update_rules.adaptive import (
    adadelta_update,
    adagrad_update,
    ftrl_update,
    rmsprop_update,
    rmspropalex_update,
)
from .optimizer import Optimizer, register

__all__ = ['AdaGrad', 'RMSProp', 'AdaDelta', 'Ftrl']


@register
class AdaGrad(Optimizer):
    """AdaGrad (Duchi et al., JMLR 2011).

    Updates are applied by::

        grad = clip(grad * rescale_grad, clip_gradient)
        history += square(grad)
        div = grad / sqrt(history + float_stable_eps)
        weight += (div + weight * wd) * -lr

    Parameters
    ----------
    eps : float, optional
        Added inside the square root to avoid division by 0.
    """

    def __init__(self, eps=1e-7, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        return self._zeros_like(weight)  # history

    def _update_one(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        adagrad_update(
            weight.context.backend.xp,
            weight._data,
            grad._data,
            state._data,
            lr,
            wd,
            self.float_stable_eps,
            self.rescale_grad,
            self._python_clip(),
        )


@register
class RMSProp(Optimizer):
    """The RMSProp optimizer.

    ``centered=False`` follows Tieleman & Hinton (2012)::

        g = clip(grad * rescale_grad + wd * weight, clip_gradient)
        n = (1 - gamma1) * g * g + gamma1 * n
        weight = weight - lr * g / sqrt(n + epsilon)

    ``centered=True`` follows Graves (2013, eq. 38-45)::

        n = (1 - gamma1) * g * g + gamma1 * n
        g_avg = (1 - gamma1) * g + gamma1 * g_avg
        delta = gamma2 * delta - lr * g / sqrt(n - g_avg * g_avg + epsilon)
        weight = weight + delta

    Parameters
    ----------
    gamma1 : float, optional
        Decay factor of the moving average of squared gradients.
    gamma2 : float, optional
        Momentum factor (``centered=True`` only).
    epsilon : float, optional
        Small value to avoid division by 0.
    centered : bool, optional
        Use Graves' centered version.
    clip_weights : float, optional
        Clip weights into ``[-clip_weights, clip_weights]`` after the step.
    """

    def __init__(
        self,
        learning_rate=0.001,
        gamma1=0.9,
        gamma2=0.9,
        epsilon=1e-8,
        centered=False,
        clip_weights=None,
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1 = gamma1
        self.gamma2 = gamma2
        self.centered = centered
        self.epsilon = epsilon
        self.clip_weights = clip_weights

    def create_state(self, index, weight):
        if self.centered:
            return (
                self._zeros_like(weight),  # n
                self._zeros_like(weight),  # g
                self._zeros_like(weight),
            )  # delta
        return (self._zeros_like(weight),)  # n

    def _update_one(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        xp = weight.context.backend.xp
        # Like clip_gradient, MXNet's kernels clip weights only for a
        # truthy, non-negative clip_weights.
        cw = self._kernel_bound(self.clip_weights)
        if not self.centered:
            rmsprop_update(
                xp,
                weight._data,
                grad._data,
                state[0]._data,
                lr,
                wd,
                self.gamma1,
                self.epsilon,
                self.rescale_grad,
                self._kernel_clip(),
                cw,
            )
        else:
            n, g, delta = (s._data for s in state)
            rmspropalex_update(
                xp,
                weight._data,
                grad._data,
                n,
                g,
                delta,
                lr,
                wd,
                self.gamma1,
                self.gamma2,
                self.epsilon,
                self.rescale_grad,
                self._kernel_clip(),
                cw,
            )


@register
class AdaDelta(Optimizer):
    """AdaDelta (https://arxiv.org/abs/1212.5701); it has no learning rate.

    Updates are applied by::

        grad = clip(grad * rescale_grad, clip_gradient)
        acc_grad = rho * acc_grad + (1. - rho) * grad * grad
        delta = sqrt(acc_delta + epsilon) / sqrt(acc_grad + epsilon) * grad
        acc_delta = rho * acc_delta + (1. - rho) * delta * delta
        weight -= (delta + wd * weight)

    Parameters
    ----------
    rho : float
        Decay rate for both squared gradients and delta.
    epsilon : float
        Small value to avoid division by 0.
    """

    def __init__(self, rho=0.90, epsilon=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def create_state(self, index, weight):
        return (
            self._zeros_like(weight),  # accumulated g
            self._zeros_like(weight),
        )  # accumulated delta

    def _update_one(self, index, weight, grad, state):
        wd = self._get_wd(index)
        self._update_count(index)
        # MXNet scales ``grad`` in place here (``grad *= rescale_grad``);
        # dlbook leaves the caller's gradient untouched.
        adadelta_update(
            weight.context.backend.xp,
            weight._data,
            grad._data,
            state[0]._data,
            state[1]._data,
            wd,
            self.rho,
            self.epsilon,
            self.rescale_grad,
            self._python_clip(),
        )


@register
class Ftrl(Optimizer):
    """FTRL-proximal (McMahan et al., "Ad Click Prediction", KDD 2013).

    Updates are applied by::

        rescaled_grad = clip(grad * rescale_grad, clip_gradient)
        z += rescaled_grad - (sqrt(n + rescaled_grad**2) - sqrt(n))
             * weight / learning_rate
        n += rescaled_grad**2
        w = (sign(z) * lamda1 - z) / ((beta + sqrt(n)) / learning_rate + wd)
            * (abs(z) > lamda1)

    Parameters
    ----------
    lamda1 : float, optional
        L1 regularization coefficient.
    learning_rate : float, optional
        The initial learning rate.
    beta : float, optional
        Per-coordinate learning rate correlation parameter.
    """

    def __init__(self, lamda1=0.01, learning_rate=0.1, beta=1, **kwargs):
        super().__init__(**kwargs)
        self.lamda1 = lamda1
        self.beta = beta
        # Set after the base class, as MXNet does: a scheduler's base_lr is
        # not overridden by this default.
        self.lr = learning_rate

    def create_state(self, index, weight):
        return (
            self._zeros_like(weight),  # z
            self._zeros_like(weight),
        )  # n

    def _update_one(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        ftrl_update(
            weight.context.backend.xp,
            weight._data,
            grad._data,
            state[0]._data,
            state[1]._data,
            lr,
            wd,
            self.lamda1,
            self.beta,
            self.rescale_grad,
            self._kernel_clip(),
        )
