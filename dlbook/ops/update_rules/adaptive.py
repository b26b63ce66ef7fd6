"""The update rules of the per-coordinate adaptive rates: AdaGrad (and
its per-row form, Group AdaGrad), RMSProp, AdaDelta and Ftrl.

Each rule divides the step by a running measure of past squared
gradients.  As in ``sgd.py`` the rules change raw arrays in place.
Sources: ``apache/mxnet@1.9.1:src/operator/optimizer_op-inl.h``
(``RMSPropUpdateKernel``, ``RMSPropAlexUpdateKernel``, ``FtrlUpdateKernel``),
``src/operator/contrib/optimizer_op-inl.h`` (``GroupAdagradDnsRspKernel``)
and the Python rules of ``python/mxnet/optimizer/optimizer.py`` (AdaGrad,
AdaDelta).

AdaGrad, RMSProp (both forms) and AdaDelta are one fused kernel each on a
GPU, their array operations (the ``_*_steps`` twins) elsewhere.
"""

from ..kernels import Elementwise, as_t
from .gradient import (
    RESCALED_G,
    RESCALED_G_WITH_WD,
    clip_inplace,
    cuda_sign,
    kernel_clip,
    python_rule_gradient,
    rescaled,
    rescaled_with_wd,
)

__all__ = [
    'adagrad_update',
    'group_adagrad_update',
    'rmsprop_update',
    'rmspropalex_update',
    'adadelta_update',
    'ftrl_update',
]


# Clip ``weight`` into [-clip_weights, clip_weights] unless negative
_CLIP_WEIGHT = """
    if (clip_weights >= 0) {
        weight = weight > clip_weights ? clip_weights
            : (weight < -clip_weights ? -clip_weights : weight);
    }
"""


def adagrad_update(
    xp, weight, grad, history, lr, wd, eps, rescale_grad, clip_gradient
):
    """AdaGrad, in place.

    ``g = clip(rescale_grad*grad)``; ``history += g**2``;
    ``weight -= lr * (g / sqrt(history + eps) + wd*weight)``

    One fused kernel on a GPU (:data:`ADAGRAD_KERNEL`); MXNet writes this
    rule in Python.  As there, any ``clip_gradient`` that is not None
    clips (:func:`~.gradient.python_rule_gradient`).
    """
    grad, rescale_grad, clip = python_rule_gradient(
        xp, grad, rescale_grad, clip_gradient
    )
    ADAGRAD_KERNEL(xp, grad, lr, wd, eps, rescale_grad, clip, weight, history)


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
):
    """:data:`ADAGRAD_KERNEL` in array operations."""
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
    one, gamma1 = as_t(weight, 1, gamma1)
    g = rescaled_with_wd(xp, weight, grad, wd, rescale_grad, clip_gradient)
    n *= gamma1
    n += (one - gamma1) * (g * g)
    weight -= lr * (g / xp.sqrt(n + epsilon))
    clip_inplace(xp, weight, clip_weights)


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
    one, gamma1 = as_t(weight, 1, gamma1)
    g = rescaled_with_wd(xp, weight, grad, wd, rescale_grad, clip_gradient)
    n *= gamma1
    n += (one - gamma1) * g * g
    g_avg *= gamma1
    g_avg += (one - gamma1) * g
    delta *= gamma2
    delta -= lr * g / xp.sqrt(n - g_avg * g_avg + epsilon)
    weight += delta
    clip_inplace(xp, weight, clip_weights)


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

    One fused kernel on a GPU (:data:`ADADELTA_KERNEL`); MXNet writes this
    rule in Python.  As there, any ``clip_gradient`` that is not None
    clips (:func:`~.gradient.python_rule_gradient`), and ``1 - rho`` is
    computed on the host in float64, then rounded to the weight's dtype
    (Python's ``(1. - rho) * grad``).
    """
    grad, rescale_grad, clip = python_rule_gradient(
        xp, grad, rescale_grad, clip_gradient
    )
    ADADELTA_KERNEL(
        xp,
        grad,
        wd,
        rho,
        1.0 - rho,
        epsilon,
        rescale_grad,
        clip,
        weight,
        acc_g,
        acc_delta,
    )


def _adadelta_steps(
    xp,
    grad,
    wd,
    rho,
    one_minus_rho,
    epsilon,
    rescale_grad,
    clip_gradient,
    weight,
    acc_g,
    acc_delta,
):
    """:data:`ADADELTA_KERNEL` in array operations."""
    g = rescaled(xp, grad, rescale_grad, clip_gradient)
    acc_g *= rho
    acc_g += one_minus_rho * g * g
    delta = xp.sqrt(acc_delta + epsilon) / xp.sqrt(acc_g + epsilon) * g
    acc_delta *= rho
    acc_delta += one_minus_rho * delta * delta
    if wd:
        delta += wd * weight
    weight -= delta


#: AdaDelta as one kernel (``weight``, ``acc_g`` and ``acc_delta``
#: updated).
ADADELTA_KERNEL = Elementwise(
    'dlbook_adadelta_update',
    'T grad, T wd, T rho, T one_minus_rho, T epsilon, T rescale_grad, '
    'T clip_gradient',
    'T weight, T acc_g, T acc_delta',
    RESCALED_G
    + """
    acc_g = acc_g * rho + one_minus_rho * g * g;
    T delta = sqrt(acc_delta + epsilon) / sqrt(acc_g + epsilon) * g;
    acc_delta = acc_delta * rho + one_minus_rho * delta * delta;
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

    One fused kernel on a GPU (:data:`FTRL_KERNEL`), as MXNet's
    ``ftrl_update``.
    """
    FTRL_KERNEL(
        xp,
        grad,
        lr,
        wd,
        lamda1,
        beta,
        rescale_grad,
        kernel_clip(clip_gradient),
        weight,
        z,
        n,
    )


def _ftrl_steps(
    xp, grad, lr, wd, lamda1, beta, rescale_grad, clip_gradient, weight, z, n
):
    """:data:`FTRL_KERNEL` in array operations."""
    g = rescaled(xp, grad, rescale_grad, clip_gradient)
    g2 = g * g
    z += g - (xp.sqrt(n + g2) - xp.sqrt(n)) * weight / lr
    n += g2
    weight[...] = (
        (xp.sign(z) * lamda1 - z)
        / ((beta + xp.sqrt(n)) / lr + wd)
        * (xp.abs(z) > lamda1)
    )


#: FTRL as one kernel (``weight``, ``z`` and ``n`` updated).
FTRL_KERNEL = Elementwise(
    'dlbook_ftrl_update',
    'T grad, T lr, T wd, T lamda1, T beta, T rescale_grad, T clip_gradient',
    'T weight, T z, T n',
    RESCALED_G
    + f"""
    T g2 = g * g;
    z += g - (sqrt(n + g2) - sqrt(n)) * weight / lr;
    n += g2;
    weight = ({cuda_sign('z')} * lamda1 - z) / ((beta + sqrt(n)) / lr + wd)
        * (T)(z > lamda1 || z < -lamda1);
""",
    _ftrl_steps,
)


def group_adagrad_update(
    xp, weight, grad, history, lr, epsilon, rescale_grad, clip_gradient
):
    """Group AdaGrad, in place: AdaGrad with one history value per row
    (everything but the first axis), for embedding tables.

    ``g = clip(rescale_grad*grad)``; ``history += mean(g**2 over the
    row)``; ``weight -= lr * g / sqrt(history + epsilon)``

    ``history`` has one value per row, shape ``(rows,)`` or ``(rows, 1)``.
    A handful of array operations (a reduction per row, then a broadcast
    back), not one kernel.
    """
    g = rescaled(xp, grad, rescale_grad, clip_gradient)
    rows = g.reshape(g.shape[0], -1)
    history += (rows * rows).mean(axis=1).reshape(history.shape)
    per_row = history.reshape((-1,) + (1,) * (g.ndim - 1))
    weight -= lr * g / xp.sqrt(per_row + epsilon)
