"""The update rule of LAMB, in MXNet's two phases.

LAMB (You et al., https://arxiv.org/abs/1904.00962) takes Adam's
direction and rescales it for each layer by a *trust ratio*, so that a
layer moves by about the same fraction of its own size whatever the
scale of its gradients:

* phase 1, element by element (:func:`lamb_phase1`)::

      g' = clip(rescale_grad * grad, clip_gradient)
      mean = beta1 * mean + (1 - beta1) * g'
      var = beta2 * var + (1 - beta2) * g' * g'
      g = mean_hat / (sqrt(var_hat) + epsilon) + wd * weight

  with ``mean_hat = mean / (1 - beta1**t)`` and ``var_hat = var / (1 -
  beta2**t)`` (``mean`` and ``var`` themselves without bias
  correction);

* the two norms of the layer, ``r1 = ||weight||`` and ``r2 = ||g||``
  (``norms.l2_norm``);

* phase 2, element by element (:func:`lamb_phase2`)::

      r1 = clip(r1, lower_bound, upper_bound)
      weight -= lr * r1 / r2 * g          (lr * g if r1 or r2 is 0)

:func:`lamb_update` runs the three steps.  As everywhere in
``update_rules`` the arrays change in place.  Source:
``apache/mxnet@1.9.1:src/operator/optimizer_op-inl.h``
(``LambUpdatePhaseOneKernel``, ``LambUpdatePhaseTwoKernel``).

On a GPU each phase is one fused kernel and each norm one reduction: four
launches per weight, and no read of ``r1`` or ``r2`` on the host, since
phase 2 reads them from device memory.
"""

from ..kernels import Elementwise, as_t
from .adam import MOMENTS_IN_T, update_moments
from .gradient import RESCALED_G, kernel_clip, rescaled
from .norms import l2_norm

__all__ = ['lamb_phase1', 'lamb_phase2', 'lamb_update']


def lamb_phase1(
    xp,
    weight,
    grad,
    mean,
    var,
    wd,
    t,
    beta1,
    beta2,
    epsilon,
    bias_correction,
    rescale_grad,
    clip_gradient,
    out=None,
):
    """LAMB's phase 1: update ``mean`` and ``var`` in place and return the
    direction ``g`` (the module docstring has the formulas).

    ``t`` is the weight's step count, from 1; a ``clip_gradient`` of None
    or below 0 means no clipping.  ``g`` has ``mean``'s dtype; it is written into ``out``
    when given, else into a new array.  One fused kernel on a GPU
    (:data:`LAMB_PHASE1_KERNEL`).
    """
    if out is None:
        out = xp.empty_like(mean)
    bias1 = _bias_correction(mean, beta1, t) if bias_correction else 1.0
    bias2 = _bias_correction(mean, beta2, t) if bias_correction else 1.0
    LAMB_PHASE1_KERNEL(
        xp,
        weight,
        grad,
        wd,
        beta1,
        beta2,
        epsilon,
        bias1,
        bias2,
        rescale_grad,
        kernel_clip(clip_gradient),
        mean,
        var,
        out,
    )
    return out


def _bias_correction(like, beta, t):
    """``1 - beta**t`` as MXNet's phase 1 computes it for ``like``'s
    dtype: ``beta`` of that dtype raised to ``t`` in double (C++'s
    ``std::pow`` of a float and an int), the power rounded to the dtype,
    then subtracted from 1 there."""
    one, beta = as_t(like, 1, beta)
    return one - type(beta)(float(beta) ** t)


def _lamb_phase1_steps(
    xp,
    weight,
    grad,
    wd,
    beta1,
    beta2,
    epsilon,
    bias1,
    bias2,
    rescale_grad,
    clip_gradient,
    mean,
    var,
    direction,
):
    """:data:`LAMB_PHASE1_KERNEL` in array operations (``bias1 = 1 -
    beta1**t``, ``bias2 = 1 - beta2**t``, both 1 without bias
    correction)."""
    one, beta1, beta2 = as_t(mean, 1, beta1, beta2)
    g = rescaled(xp, grad, rescale_grad, clip_gradient)
    update_moments(xp, g, mean, var, beta1, beta2, one - beta1, one - beta2)
    direction[...] = (mean / bias1) / (xp.sqrt(var / bias2) + epsilon)
    direction += wd * weight


#: LAMB's phase 1 as one kernel (``mean`` and ``var`` updated, the
#: direction written).
LAMB_PHASE1_KERNEL = Elementwise(
    'dlbook_lamb_phase1',
    'T weight, T grad, T wd, T beta1, T beta2, T epsilon, T bias1, '
    'T bias2, T rescale_grad, T clip_gradient',
    'T mean, T var, T direction',
    RESCALED_G
    + MOMENTS_IN_T
    + """
    direction = (mean / bias1) / (sqrt(var / bias2) + epsilon)
        + wd * weight;
""",
    _lamb_phase1_steps,
)


def lamb_phase2(xp, weight, g, r1, r2, lr, lower_bound, upper_bound):
    """LAMB's phase 2, in place: ``weight -= lr * r1 / r2 * g`` (``lr *
    g`` when ``r1`` or ``r2`` is 0), ``r1`` first clipped into
    ``[lower_bound, upper_bound]`` (None or below 0: no bound).

    ``r1`` and ``r2`` are one-element arrays on the weight's device (the
    norms of the weight and of ``g``), read inside the kernel: the host
    never waits for them.  One fused kernel on a GPU
    (:data:`LAMB_PHASE2_KERNEL`).
    """
    LAMB_PHASE2_KERNEL(
        xp,
        g,
        r1.reshape(1),
        r2.reshape(1),
        lr,
        kernel_clip(lower_bound),
        kernel_clip(upper_bound),
        weight,
    )


def _lamb_phase2_steps(xp, g, r1, r2, lr, lower_bound, upper_bound, weight):
    """:data:`LAMB_PHASE2_KERNEL` in array operations (a negative bound
    means none)."""
    # the scalars in T: with NumPy 1.x, 0-d arrays meeting Python numbers
    # compute in float64
    one, lr, lower_bound, upper_bound = as_t(
        weight, 1, lr, lower_bound, upper_bound
    )
    r1, r2 = r1.reshape(()), r2.reshape(())
    if lower_bound >= 0:
        r1 = xp.maximum(r1, lower_bound)
    if upper_bound >= 0:
        r1 = xp.minimum(r1, upper_bound)
    usable = (r1 != 0) & (r2 != 0)
    rate = xp.where(usable, lr * r1 / xp.where(r2 != 0, r2, one), lr)
    weight -= rate.astype(g.dtype) * g


#: LAMB's phase 2 as one kernel (``weight`` updated); ``r1`` and ``r2``
#: are read from device memory (``raw``: the kernel indexes them).
LAMB_PHASE2_KERNEL = Elementwise(
    'dlbook_lamb_phase2',
    'T g, raw T r1, raw T r2, T lr, T lower_bound, T upper_bound',
    'T weight',
    """
    T norm = r1[0];
    if (lower_bound >= 0) {
        norm = fmax(norm, lower_bound);
    }
    if (upper_bound >= 0) {
        norm = fmin(norm, upper_bound);
    }
    T rate = (norm == 0 || r2[0] == 0) ? lr : lr * norm / r2[0];
    weight -= rate * g;
""",
    _lamb_phase2_steps,
)


def lamb_update(
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
    bias_correction,
    lower_bound,
    upper_bound,
    rescale_grad,
    clip_gradient,
):
    """LAMB, in place: phase 1, the norms ``r1 = ||weight||`` and ``r2 =
    ||g||``, phase 2 (the module docstring has the formulas).  Bounds and
    a ``clip_gradient`` of None or below 0 mean none."""
    g = lamb_phase1(
        xp,
        weight,
        grad,
        mean,
        var,
        wd,
        t,
        beta1,
        beta2,
        epsilon,
        bias_correction,
        rescale_grad,
        clip_gradient,
    )
    r1, r2 = l2_norm(xp, weight), l2_norm(xp, g)
    lamb_phase2(xp, weight, g, r1, r2, lr, lower_bound, upper_bound)
