"""The update rules of Adam, AdamW, FTML, Adamax and Nadam (one weight
each); LAMB's two phases are in ``lamb.py``.

As in ``sgd.py``, each rule changes raw arrays in place.  Sources:
``apache/mxnet@1.9.1:src/operator/optimizer_op-inl.h`` (``AdamUpdateKernel``,
``FTMLKernel``) and
``src/operator/contrib/adamw-inl.h`` (``AdamWUpdate``).  The bias
correction of Adam is folded into the learning rate, as MXNet does:
``lr_t = lr * sqrt(1 - beta2**t) / (1 - beta1**t)``.

Adamax and Nadam, which MXNet writes in Python
(``python/mxnet/optimizer/optimizer.py``), follow at the end, one kernel
each too.
"""

from .. import host_loops
from ..kernels import Elementwise, as_t
from .gradient import (
    RESCALED_G,
    RESCALED_G_WITH_WD,
    kernel_clip,
    python_rule_gradient_with_wd,
    rescaled,
    rescaled_with_wd,
)

__all__ = [
    'adam_update',
    'adamw_update',
    'ftml_update',
    'update_moments',
    'adamax_update',
    'nadam_update',
]


def update_moments(
    xp, g, mean, var, beta1, beta2, one_minus_beta1, one_minus_beta2
):
    """``mean = b1*mean + (1-b1)*g``; ``var = b2*var + (1-b2)*g*g``.

    The caller computes ``1 - b1`` and ``1 - b2``, as the rule does: in
    the weight's dtype for the rules MXNet writes in C++ (Adam, AdamW,
    LAMB, whose kernels compute in ``DType``), in float64 for those it
    writes in Python (Nadam).  The three products share one temporary
    (the same operations in the same order, so the same bits)."""
    t = one_minus_beta1 * g
    mean *= beta1
    mean += t
    if t.ndim:  # an array: reused
        xp.multiply(g, one_minus_beta2, out=t)
        t *= g
    else:  # a 0-d weight: NumPy gives scalars
        t = one_minus_beta2 * g * g
    var *= beta2
    var += t


def adam_update(
    xp,
    weight,
    grad,
    mean,
    var,
    lr,
    wd,
    beta1,
    beta2,
    epsilon,
    rescale_grad,
    clip_gradient,
):
    """Adam, in place (``lr`` already bias-corrected).

    ``g = clip(rescale_grad*grad + wd*weight)``; moments as usual;
    ``weight -= lr * mean / (sqrt(var) + epsilon)``

    One fused kernel on a GPU (:data:`ADAM_KERNEL`), as MXNet's
    ``adam_update``; written with array operations it is about fifteen
    launches per weight.
    """
    ADAM_KERNEL(
        xp,
        grad,
        lr,
        wd,
        beta1,
        beta2,
        epsilon,
        rescale_grad,
        kernel_clip(clip_gradient),
        weight,
        mean,
        var,
    )


def _adam_steps(
    xp,
    grad,
    lr,
    wd,
    beta1,
    beta2,
    epsilon,
    rescale_grad,
    clip_gradient,
    weight,
    mean,
    var,
):
    """:data:`ADAM_KERNEL` in array operations."""
    one, beta1, beta2 = as_t(weight, 1, beta1, beta2)
    g = rescaled_with_wd(xp, weight, grad, wd, rescale_grad, clip_gradient)
    update_moments(xp, g, mean, var, beta1, beta2, one - beta1, one - beta2)
    # lr * mean / (sqrt(var) + epsilon), two temporaries instead of four
    denominator = xp.sqrt(var) + epsilon
    step = lr * mean
    step /= denominator
    weight -= step


# update_moments for one element (after the gradient's preparation),
# 1 - beta1 and 1 - beta2 given
_MOMENTS = """
    mean = mean * beta1 + one_minus_beta1 * g;
    var = var * beta2 + one_minus_beta2 * g * g;
"""

#: CUDA C: :func:`update_moments` for one element with ``1 - beta1`` and
#: ``1 - beta2`` computed in ``T``, as MXNet's kernels compute them in
#: ``DType`` (Adam, AdamW, LAMB).
MOMENTS_IN_T = (
    """
    const T one_minus_beta1 = 1 - beta1;
    const T one_minus_beta2 = 1 - beta2;
"""
    + _MOMENTS
)

#: Adam as one kernel (``weight``, ``mean`` and ``var`` updated).
ADAM_KERNEL = Elementwise(
    'dlbook_adam_update',
    'T grad, T lr, T wd, T beta1, T beta2, T epsilon, T rescale_grad, '
    'T clip_gradient',
    'T weight, T mean, T var',
    RESCALED_G_WITH_WD
    + MOMENTS_IN_T
    + 'weight -= lr * mean / (sqrt(var) + epsilon);',
    _adam_steps,
    host=host_loops.adam_update,
)


def adamw_update(
    xp,
    weight,
    grad,
    mean,
    var,
    lr,
    eta,
    wd,
    beta1,
    beta2,
    epsilon,
    rescale_grad,
    clip_gradient,
):
    """AdamW (decoupled weight decay), in place.

    ``g = clip(rescale_grad*grad)``; moments as usual;
    ``weight -= eta * (lr * mean / (sqrt(var) + epsilon) + wd * weight)``

    One fused kernel on a GPU (:data:`ADAMW_KERNEL`), as MXNet's
    ``adamw_update``.
    """
    ADAMW_KERNEL(
        xp,
        grad,
        lr,
        eta,
        wd,
        beta1,
        beta2,
        epsilon,
        rescale_grad,
        kernel_clip(clip_gradient),
        weight,
        mean,
        var,
    )


def _adamw_steps(
    xp,
    grad,
    lr,
    eta,
    wd,
    beta1,
    beta2,
    epsilon,
    rescale_grad,
    clip_gradient,
    weight,
    mean,
    var,
):
    """:data:`ADAMW_KERNEL` in array operations."""
    one, beta1, beta2 = as_t(weight, 1, beta1, beta2)
    g = rescaled(xp, grad, rescale_grad, clip_gradient)
    update_moments(xp, g, mean, var, beta1, beta2, one - beta1, one - beta2)
    step = lr * mean / (xp.sqrt(var) + epsilon)
    if wd:
        step += wd * weight
    weight -= eta * step


#: AdamW as one kernel (``weight``, ``mean`` and ``var`` updated).
ADAMW_KERNEL = Elementwise(
    'dlbook_adamw_update',
    'T grad, T lr, T eta, T wd, T beta1, T beta2, T epsilon, '
    'T rescale_grad, T clip_gradient',
    'T weight, T mean, T var',
    RESCALED_G
    + MOMENTS_IN_T
    + """
    T step = lr * mean / (sqrt(var) + epsilon);
    if (wd != 0) {
        step += wd * weight;
    }
    weight -= eta * step;
""",
    _adamw_steps,
)


def ftml_update(
    xp,
    weight,
    grad,
    d,
    v,
    z,
    lr,
    wd,
    t,
    beta1,
    beta2,
    epsilon,
    rescale_grad,
    clip_gradient,
):
    """FTML at step ``t``, in place.

    ``g = clip(rescale_grad*grad + wd*weight)``;
    ``v = beta2*v + (1-beta2)*g*g``;
    ``d_t = (1 - beta1**t) / lr * (sqrt(v / (1 - beta2**t)) + epsilon)``;
    ``z = beta1*z + (1-beta1)*g - (d_t - beta1*d) * weight``;
    ``d = d_t``; ``weight = -z / d_t``

    One fused kernel on a GPU (:data:`FTML_KERNEL`), as MXNet's
    ``ftml_update``.  The bias corrections ``1 - beta**t`` are computed
    here, once, in the weight's dtype, as MXNet's kernel computes them
    (for float32, ``1 - powf(beta, t)``).
    """
    # one and t in T too: with NumPy 1.x a float32 scalar meeting a
    # Python number computes in float64
    one, beta1, beta2, t = as_t(weight, 1, beta1, beta2, t)
    FTML_KERNEL(
        xp,
        grad,
        lr,
        wd,
        beta1,
        beta2,
        epsilon,
        one - beta1**t,
        one - beta2**t,
        rescale_grad,
        kernel_clip(clip_gradient),
        weight,
        d,
        v,
        z,
    )


def _ftml_steps(
    xp,
    grad,
    lr,
    wd,
    beta1,
    beta2,
    epsilon,
    bias1,
    bias2,
    rescale_grad,
    clip_gradient,
    weight,
    d,
    v,
    z,
):
    """:data:`FTML_KERNEL` in array operations (``bias1 = 1 - beta1**t``,
    ``bias2 = 1 - beta2**t``), in the order of MXNet's ``FTMLKernel``."""
    one, lr, beta1, beta2, bias1 = as_t(weight, 1, lr, beta1, beta2, bias1)
    g = rescaled_with_wd(xp, weight, grad, wd, rescale_grad, clip_gradient)
    v *= beta2
    v += (one - beta2) * (g * g)
    d_t = bias1 / lr * (xp.sqrt(v / bias2) + epsilon)
    z *= beta1
    z += (one - beta1) * g
    z -= (d_t - beta1 * d) * weight
    d[...] = d_t
    weight[...] = -z / d_t


#: FTML as one kernel (``weight``, ``d``, ``v`` and ``z`` updated).
FTML_KERNEL = Elementwise(
    'dlbook_ftml_update',
    'T grad, T lr, T wd, T beta1, T beta2, T epsilon, T bias1, T bias2, '
    'T rescale_grad, T clip_gradient',
    'T weight, T d, T v, T z',
    RESCALED_G_WITH_WD
    + """
    v = v * beta2 + (1 - beta2) * (g * g);
    T d_t = bias1 / lr * (sqrt(v / bias2) + epsilon);
    z = z * beta1 + (1 - beta1) * g - (d_t - beta1 * d) * weight;
    d = d_t;
    weight = -z / d_t;
""",
    _ftml_steps,
)


def adamax_update(
    xp,
    weight,
    grad,
    mean,
    u,
    lr,
    wd,
    beta1,
    beta2,
    rescale_grad,
    clip_gradient,
):
    """AdaMax (Adam with the infinity norm), in place; ``lr`` is already
    divided by ``1 - beta1**t``.

    ``g = clip(rescale_grad*grad + wd*weight)``;
    ``mean = beta1*mean + (1-beta1)*g``; ``u = maximum(beta2*u, |g|)``;
    ``weight -= lr * mean / u``

    One fused kernel on a GPU (:data:`ADAMAX_KERNEL`); MXNet writes this
    rule in Python, about a dozen launches per weight.  As there, any
    ``clip_gradient`` that is not None clips
    (:func:`~.gradient.python_rule_gradient_with_wd`), and ``1 - beta1``
    is computed on the host in float64, then rounded to the weight's
    dtype (Python's ``(1. - beta1) * grad``).
    """
    grad, wd, rescale_grad, clip = python_rule_gradient_with_wd(
        xp, weight, grad, wd, rescale_grad, clip_gradient
    )
    ADAMAX_KERNEL(
        xp,
        grad,
        lr,
        wd,
        beta1,
        1.0 - beta1,
        beta2,
        rescale_grad,
        clip,
        weight,
        mean,
        u,
    )


def _adamax_steps(
    xp,
    grad,
    lr,
    wd,
    beta1,
    one_minus_beta1,
    beta2,
    rescale_grad,
    clip_gradient,
    weight,
    mean,
    u,
):
    """:data:`ADAMAX_KERNEL` in array operations."""
    g = rescaled_with_wd(xp, weight, grad, wd, rescale_grad, clip_gradient)
    mean *= beta1
    mean += one_minus_beta1 * g
    xp.maximum(beta2 * u, xp.abs(g), out=u)
    weight -= lr * mean / u


#: AdaMax as one kernel (``weight``, ``mean`` and ``u`` updated).  The
#: maximum is NumPy's: a NaN on either side wins (``fmax`` would drop
#: it).
ADAMAX_KERNEL = Elementwise(
    'dlbook_adamax_update',
    'T grad, T lr, T wd, T beta1, T one_minus_beta1, T beta2, '
    'T rescale_grad, T clip_gradient',
    'T weight, T mean, T u',
    RESCALED_G_WITH_WD
    + """
    mean = mean * beta1 + one_minus_beta1 * g;
    T decayed = beta2 * u;
    T size = fabs(g);
    u = (decayed > size || decayed != decayed) ? decayed : size;
    weight -= lr * mean / u;
""",
    _adamax_steps,
)


def nadam_update(
    xp,
    weight,
    grad,
    mean,
    var,
    lr,
    wd,
    t,
    beta1,
    beta2,
    epsilon,
    mu_t,
    mu_t1,
    m_schedule,
    m_schedule_next,
    rescale_grad,
    clip_gradient,
):
    """Nadam (Adam with Nesterov momentum) at step ``t``, in place.

    ``g = clip(rescale_grad*grad + wd*weight)``; moments as Adam's;
    ``m_bar = (1 - mu_t) * g / (1 - m_schedule)
    + mu_t1 * mean / (1 - m_schedule_next)``;
    ``weight -= lr * m_bar / (sqrt(var / (1 - beta2**t)) + epsilon)``

    The momentum schedule (``mu_t``, ``mu_t1``, ``m_schedule``,
    ``m_schedule_next``) is the optimizer's, shared by all weights.  One
    fused kernel on a GPU (:data:`NADAM_KERNEL`); MXNet writes this rule
    in Python, about twenty launches per weight.  As there, any
    ``clip_gradient`` that is not None clips
    (:func:`~.gradient.python_rule_gradient_with_wd`), and every ``1 -
    x`` of the rule (the moments' weights, the bias corrections) is
    computed on the host in float64, the kernel only reading them rounded
    to the weight's dtype.
    """
    grad, wd, rescale_grad, clip = python_rule_gradient_with_wd(
        xp, weight, grad, wd, rescale_grad, clip_gradient
    )
    NADAM_KERNEL(
        xp,
        grad,
        lr,
        wd,
        beta1,
        beta2,
        1.0 - beta1,
        1.0 - beta2,
        epsilon,
        1.0 - mu_t,
        mu_t1,
        1.0 - m_schedule,
        1.0 - m_schedule_next,
        1.0 - beta2**t,
        rescale_grad,
        clip,
        weight,
        mean,
        var,
    )


def _nadam_steps(
    xp,
    grad,
    lr,
    wd,
    beta1,
    beta2,
    one_minus_beta1,
    one_minus_beta2,
    epsilon,
    one_minus_mu_t,
    mu_t1,
    bias_g,
    bias_m,
    bias_v,
    rescale_grad,
    clip_gradient,
    weight,
    mean,
    var,
):
    """:data:`NADAM_KERNEL` in array operations (``bias_g = 1 -
    m_schedule``, ``bias_m = 1 - m_schedule_next``, ``bias_v = 1 -
    beta2**t``)."""
    g = rescaled_with_wd(xp, weight, grad, wd, rescale_grad, clip_gradient)
    update_moments(
        xp, g, mean, var, beta1, beta2, one_minus_beta1, one_minus_beta2
    )
    grad_prime = g / bias_g
    mean_prime = mean / bias_m
    var_prime = var / bias_v
    m_bar = one_minus_mu_t * grad_prime + mu_t1 * mean_prime
    weight -= lr * m_bar / (xp.sqrt(var_prime) + epsilon)


#: Nadam as one kernel (``weight``, ``mean`` and ``var`` updated).
NADAM_KERNEL = Elementwise(
    'dlbook_nadam_update',
    'T grad, T lr, T wd, T beta1, T beta2, T one_minus_beta1, '
    'T one_minus_beta2, T epsilon, T one_minus_mu_t, T mu_t1, T bias_g, '
    'T bias_m, T bias_v, T rescale_grad, T clip_gradient',
    'T weight, T mean, T var',
    RESCALED_G_WITH_WD
    + _MOMENTS
    + """
    T m_bar = one_minus_mu_t * (g / bias_g) + mu_t1 * (mean / bias_m);
    weight -= lr * m_bar / (sqrt(var / bias_v) + epsilon);
""",
    _nadam_steps,
)
