"""Per-coordinate adaptive rates: AdaGrad, RMSProp, AdaDelta and Ftrl.

Each rule divides the step by a running measure of past squared
gradients.  As in ``sgd.py`` the rules change raw arrays in place.
Sources: ``apache/mxnet@1.9.1:src/operator/optimizer_op-inl.h``
(``RMSPropUpdateKernel``, ``RMSPropAlexUpdateKernel``, ``FtrlUpdateKernel``)
and the Python rules of ``python/mxnet/optimizer/optimizer.py`` (AdaGrad,
AdaDelta).

AdaGrad, RMSProp (both forms) and AdaDelta are one fused kernel each on a
GPU, their array operations (the ``_*_steps`` twins) elsewhere.
"""


def _clips_as_kernel(bound):
    """Whether a kernel can take this clipping bound: None or >= 0.
    AdaGrad and AdaDelta clip with any bound that is not None, as MXNet's
    Python rules do; a negative one runs their array operations."""
    return bound is None or bound >= 0


# Clip ``weight`` into [-clip_weights, clip_weights] unless negative
_CLIP_WEIGHT = """
    if (clip_weights >= 0) {
        weight = weight > clip_weights ? clip_weights
            : (weight < -clip_weights ? -clip_weights : weight);
    }
"""

from ..ops.kernels import Elementwise
from ._gradient import (
    RESCALED_G,
    RESCALED_G_WITH_WD,
    clip_inplace,
    kernel_clip,
    rescaled,
    rescaled_with_wd,
    twin_clip,
)
from .optimizer import Optimizer, register

__all__ = [
    'AdaGrad',
    'RMSProp',
    'AdaDelta',
    'Ftrl',
    'adagrad_update',
    'rmsprop_update',
    'rmspropalex_update',
    'adadelta_update',
    'ftrl_update',
]


def adagrad_update(
    xp, weight, grad, history, lr, wd, eps, rescale_grad, clip_gradient
):
    """AdaGrad, in place.

    ``g = clip(rescale_grad*grad)``; ``history += g**2``;
    ``weight -= lr * (g / sqrt(history + eps) + wd*weight)``
    """
    args = (grad, lr, wd, eps, rescale_grad)
    if not _clips_as_kernel(clip_gradient):
        _adagrad_steps(xp, *args, clip_gradient, weight, history, kernel=False)
        return
    ADAGRAD_KERNEL(xp, *args, kernel_clip(clip_gradient), weight, history)


def _adagrad_steps(
    xp,
    grad,
    lr,
    wd,
    eps,
    rescale_grad,
    clip_gradient,
    weight,
    history,
    kernel=True,
):
    """:data:`ADAGRAD_KERNEL` in array operations (``kernel=False``:
    ``clip_gradient`` as the rule takes it, not as the kernel does)."""
    if kernel:
        clip_gradient = twin_clip(clip_gradient)
    g = rescaled(xp, grad, rescale_grad, clip_gradient)
    history += g * g
    step = g / xp.sqrt(history + eps)
    if wd:
        step += weight * wd
    weight -= lr * step


#: AdaGrad as one kernel (``weight`` and ``history`` updated).
ADAGRAD_KERNEL = Elementwise(
    'dlbook_adagrad_update',
    'T grad, T lr, T wd, T eps, T rescale_grad, T clip_gradient',
    'T weight, T history',
    RESCALED_G
    + """
    history += g * g;
    T step = g / sqrt(history + eps);
    if (wd != 0) {
        step += weight * wd;
    }
    weight -= lr * step;
""",
    _adagrad_steps,
)


def rmsprop_update(
    xp,
    weight,
    grad,
    n,
    lr,
    wd,
    gamma1,
    epsilon,
    rescale_grad,
    clip_gradient,
    clip_weights,
):
    """RMSProp (Tieleman & Hinton), in place.

    ``g = clip(rescale_grad*grad + wd*weight)``;
    ``n = (1-gamma1)*g*g + gamma1*n``;
    ``weight = clip(weight - lr*g/sqrt(n + epsilon), clip_weights)``

    One fused kernel on a GPU (:data:`RMSPROP_KERNEL`), as MXNet's
    ``rmsprop_update``.
    """
    RMSPROP_KERNEL(
        xp,
        grad,
        lr,
        wd,
        gamma1,
        epsilon,
        rescale_grad,
        kernel_clip(clip_gradient),
        kernel_clip(clip_weights),
        weight,
        n,
    )


def _rmsprop_steps(
    xp,
    grad,
    lr,
    wd,
    gamma1,
    epsilon,
    rescale_grad,
    clip_gradient,
    clip_weights,
    weight,
    n,
):
    """:data:`RMSPROP_KERNEL` in array operations."""
    g = rescaled_with_wd(
        xp, weight, grad, wd, rescale_grad, twin_clip(clip_gradient)
    )
    n *= gamma1
    n += (1 - gamma1) * (g * g)
    weight -= lr * (g / xp.sqrt(n + epsilon))
    clip_inplace(xp, weight, twin_clip(clip_weights))


#: RMSProp as one kernel (``weight`` and ``n`` updated).
RMSPROP_KERNEL = Elementwise(
    'dlbook_rmsprop_update',
    'T grad, T lr, T wd, T gamma1, T epsilon, T rescale_grad, '
    'T clip_gradient, T clip_weights',
    'T weight, T n',
    RESCALED_G_WITH_WD
    + """
    n = n * gamma1 + (1 - gamma1) * (g * g);
    weight -= lr * (g / sqrt(n + epsilon));
"""
    + _CLIP_WEIGHT,
    _rmsprop_steps,
)


def rmspropalex_update(
    xp,
    weight,
    grad,
    n,
    g_avg,
    delta,
    lr,
    wd,
    gamma1,
    gamma2,
    epsilon,
    rescale_grad,
    clip_gradient,
    clip_weights,
):
    """Centered RMSProp (Graves 2013, eq. 38-45), in place.

    ``g = clip(rescale_grad*grad + wd*weight)``;
    ``n = (1-gamma1)*g*g + gamma1*n``; ``g_avg = (1-gamma1)*g +
    gamma1*g_avg``; ``delta = gamma2*delta - lr*g/sqrt(n - g_avg**2 +
    epsilon)``; ``weight = clip(weight + delta, clip_weights)``

    One fused kernel on a GPU (:data:`RMSPROPALEX_KERNEL`), as MXNet's
    ``rmspropalex_update``.
    """
    RMSPROPALEX_KERNEL(
        xp,
        grad,
        lr,
        wd,
        gamma1,
        gamma2,
        epsilon,
        rescale_grad,
        kernel_clip(clip_gradient),
        kernel_clip(clip_weights),
        weight,
        n,
        g_avg,
        delta,
    )


def _rmspropalex_steps(
    xp,
    grad,
    lr,
    wd,
    gamma1,
    gamma2,
    epsilon,
    rescale_grad,
    clip_gradient,
    clip_weights,
    weight,
    n,
    g_avg,
    delta,
):
    """:data:`RMSPROPALEX_KERNEL` in array operations."""
    g = rescaled_with_wd(
        xp, weight, grad, wd, rescale_grad, twin_clip(clip_gradient)
    )
    n *= gamma1
    n += (1 - gamma1) * g * g
    g_avg *= gamma1
    g_avg += (1 - gamma1) * g
    delta *= gamma2
    delta -= lr * g / xp.sqrt(n - g_avg * g_avg + epsilon)
    weight += delta
    clip_inplace(xp, weight, twin_clip(clip_weights))


#: Centered RMSProp as one kernel (``weight``, ``n``, ``g_avg`` and
#: ``delta`` updated).
RMSPROPALEX_KERNEL = Elementwise(
    'dlbook_rmspropalex_update',
    'T grad, T lr, T wd, T gamma1, T gamma2, T epsilon, T rescale_grad, '
    'T clip_gradient, T clip_weights',
    'T weight, T n, T g_avg, T delta',
    RESCALED_G_WITH_WD
    + """
    n = n * gamma1 + (1 - gamma1) * g * g;
    g_avg = g_avg * gamma1 + (1 - gamma1) * g;
    delta = delta * gamma2 - lr * g / sqrt(n - g_avg * g_avg + epsilon);
    weight += delta;
"""
    + _CLIP_WEIGHT,
    _rmspropalex_steps,
)


def adadelta_update(
    xp,
    weight,
    grad,
    acc_g,
    acc_delta,
    wd,
    rho,
    epsilon,
    rescale_grad,
    clip_gradient,
):
    """AdaDelta, in place (no learning rate).

    ``g = clip(rescale_grad*grad)``; ``acc_g = rho*acc_g + (1-rho)*g*g``;
    ``delta = sqrt(acc_delta + eps) / sqrt(acc_g + eps) * g``;
    ``acc_delta = rho*acc_delta + (1-rho)*delta*delta``;
    ``weight -= delta + wd*weight``
    """
    args = (grad, wd, rho, epsilon, rescale_grad)
    if not _clips_as_kernel(clip_gradient):
        _adadelta_steps(
            xp, *args, clip_gradient, weight, acc_g, acc_delta, kernel=False
        )
        return
    ADADELTA_KERNEL(
        xp, *args, kernel_clip(clip_gradient), weight, acc_g, acc_delta
    )


def _adadelta_steps(
    xp,
    grad,
    wd,
    rho,
    epsilon,
    rescale_grad,
    clip_gradient,
    weight,
    acc_g,
    acc_delta,
    kernel=True,
):
    """:data:`ADADELTA_KERNEL` in array operations (``kernel=False``:
    ``clip_gradient`` as the rule takes it, not as the kernel does)."""
    if kernel:
        clip_gradient = twin_clip(clip_gradient)
    g = rescaled(xp, grad, rescale_grad, clip_gradient)
    acc_g *= rho
    acc_g += (1.0 - rho) * g * g
    delta = xp.sqrt(acc_delta + epsilon) / xp.sqrt(acc_g + epsilon) * g
    acc_delta *= rho
    acc_delta += (1.0 - rho) * delta * delta
    if wd:
        delta += wd * weight
    weight -= delta


#: AdaDelta as one kernel (``weight``, ``acc_g`` and ``acc_delta``
#: updated).
ADADELTA_KERNEL = Elementwise(
    'dlbook_adadelta_update',
    'T grad, T wd, T rho, T epsilon, T rescale_grad, T clip_gradient',
    'T weight, T acc_g, T acc_delta',
    RESCALED_G
    + """
    acc_g = acc_g * rho + (1 - rho) * g * g;
    T delta = sqrt(acc_delta + epsilon) / sqrt(acc_g + epsilon) * g;
    acc_delta = acc_delta * rho + (1 - rho) * delta * delta;
    if (wd != 0) {
        delta += wd * weight;
    }
    weight -= delta;
""",
    _adadelta_steps,
)


def ftrl_update(
    xp, weight, grad, z, n, lr, wd, lamda1, beta, rescale_grad, clip_gradient
):
    """FTRL-proximal, in place.

    ``g = clip(rescale_grad*grad)``;
    ``z += g - (sqrt(n + g*g) - sqrt(n)) * weight / lr``; ``n += g*g``;
    ``weight = (sign(z)*lamda1 - z) / ((beta + sqrt(n))/lr + wd)
    * (|z| > lamda1)``
    """
    g = rescaled(xp, grad, rescale_grad, clip_gradient)
    g2 = g * g
    z += g - (xp.sqrt(n + g2) - xp.sqrt(n)) * weight / lr
    n += g2
    weight[...] = (
        (xp.sign(z) * lamda1 - z)
        / ((beta + xp.sqrt(n)) / lr + wd)
        * (xp.abs(z) > lamda1)
    )


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
