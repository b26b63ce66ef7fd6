"""The update rules of SGD and its relatives: plain, momentum, Nesterov,
sign-based, several weights per kernel, delay-compensated and Langevin.

Each rule is a function on raw arrays (``xp`` is NumPy or CuPy) that
changes ``weight`` and its state in place, so every Parameter sharing the
array sees the new values.  The formulas are those of MXNet's update
kernels (``apache/mxnet@1.9.1:src/operator/optimizer_op-inl.h``:
``SGDKernel``, ``SGDMomKernel``, ``NAGMomKernel``, ``SignSGDKernel``,
``SignumKernel``, ``MultiSGDKernel``) and, for DCASGD and SGLD, the
Python rules of ``python/mxnet/optimizer/optimizer.py``.  Below,
``g' = clip(rescale_grad * grad, clip_gradient)``.
"""

import math

from .. import host_loops
from ..kernels import Elementwise, Grouped, as_t
from .gradient import (
    RESCALED_G,
    cuda_sign,
    kernel_clip,
    python_rule_gradient,
    rescaled,
)

__all__ = [
    'sgd_update',
    'sgd_mom_update',
    'nag_mom_update',
    'signsgd_update',
    'signum_update',
    'multi_sgd_update',
    'dcasgd_update',
    'sgld_update',
]


def sgd_update(xp, weight, grad, lr, wd, rescale_grad, clip_gradient):
    """Plain SGD, in place.

    ``weight = (1 - lr*wd) * weight - lr * g'``

    One fused kernel on a GPU (:data:`SGD_KERNEL`), as MXNet's
    ``sgd_update``.
    """
    SGD_KERNEL(
        xp,
        grad,
        lr,
        wd,
        rescale_grad,
        kernel_clip(clip_gradient),
        weight,
    )


def _scaled(xp, grad, scale, rescale_grad, clip_gradient):
    """``scale * g'`` as MXNet's SGD and Signum kernels compute it: when
    nothing is clipped, ``(scale * rescale_grad) * grad``, the two
    factors multiplied first (one rounding and, in array operations, one
    temporary fewer: this is the hot path of every SGD training loop)."""
    if clip_gradient < 0:
        return (scale * rescale_grad) * grad
    return scale * rescaled(xp, grad, rescale_grad, clip_gradient)


def _cuda_scaled(scale):
    """CUDA C for :func:`_scaled` (after :data:`RESCALED_G`): ``T
    scaled_g``, with ``scale`` a C expression."""
    return f"""
    T scaled_g = clip_gradient >= 0 ? {scale} * g
        : ({scale} * rescale_grad) * grad;
"""


def _sgd_steps(xp, grad, lr, wd, rescale_grad, clip_gradient, weight):
    """:data:`SGD_KERNEL` in array operations (a negative
    ``clip_gradient`` means no clipping)."""
    one, lr, wd, rescale_grad = as_t(weight, 1, lr, wd, rescale_grad)
    if wd:
        weight *= one - lr * wd
    weight -= _scaled(xp, grad, lr, rescale_grad, clip_gradient)


# MXNet's SGDKernel for one element
_SGD = (
    RESCALED_G
    + _cuda_scaled('lr')
    + 'weight = (1 - lr * wd) * weight - scaled_g;'
)

#: Plain SGD as one kernel (``weight`` updated).
SGD_KERNEL = Elementwise(
    'dlbook_sgd_update',
    'T grad, T lr, T wd, T rescale_grad, T clip_gradient',
    'T weight',
    _SGD,
    _sgd_steps,
    host=host_loops.sgd_update,
)


def sgd_mom_update(
    xp, weight, grad, mom, lr, wd, momentum, rescale_grad, clip_gradient
):
    """SGD with momentum, in place.

    ``mom = momentum*mom - lr*wd*weight - lr*g'``; ``weight += mom``

    One fused kernel on a GPU (:data:`SGD_MOM_KERNEL`), as MXNet's
    ``sgd_mom_update``.
    """
    SGD_MOM_KERNEL(
        xp,
        grad,
        lr,
        wd,
        momentum,
        rescale_grad,
        kernel_clip(clip_gradient),
        weight,
        mom,
    )


def _sgd_mom_steps(
    xp, grad, lr, wd, momentum, rescale_grad, clip_gradient, weight, mom
):
    """:data:`SGD_MOM_KERNEL` in array operations (a negative
    ``clip_gradient`` means no clipping)."""
    lr, wd, rescale_grad = as_t(weight, lr, wd, rescale_grad)
    mom *= momentum
    if wd:
        mom -= (lr * wd) * weight
    mom -= _scaled(xp, grad, lr, rescale_grad, clip_gradient)
    weight += mom


# MXNet's SGDMomKernel for one element
_SGD_MOM = (
    RESCALED_G
    + _cuda_scaled('lr')
    + """
    mom = momentum * mom - lr * wd * weight - scaled_g;
    weight += mom;
"""
)

#: SGD with momentum as one kernel (``weight`` and ``mom`` updated).
SGD_MOM_KERNEL = Elementwise(
    'dlbook_sgd_mom_update',
    'T grad, T lr, T wd, T momentum, T rescale_grad, T clip_gradient',
    'T weight, T mom',
    _SGD_MOM,
    _sgd_mom_steps,
    host=host_loops.sgd_mom_update,
)


def nag_mom_update(
    xp,
    weight,
    grad,
    mom,
    lr,
    wd,
    momentum,
    rescale_grad,
    clip_gradient,
    reread=True,
):
    """Nesterov momentum, in place, as MXNet's kernel computes it::

        m0 = momentum * mom
        weight = weight - m0 + (1 + momentum) * (m0 - lr * (g' + wd * weight))
        mom = m0 - lr * (g' + wd * weight)

    (``g'`` the rescaled, clipped gradient).  With ``reread`` the last
    line reads the *new* weight: MXNet's optimizer calls the kernel with
    ``out=weight`` (and the mixed-precision kernel updates ``weight32``
    in place), and the kernel reads ``weight`` again after writing
    ``out``.  ``nd.nag_mom_update`` with a separate ``out`` passes
    ``reread=False``: the momentum then uses the old weight, as MXNet's
    does.  Without ``wd`` the two readings agree.

    One fused kernel on a GPU (:data:`NAG_MOM_KERNEL`), as MXNet's
    ``nag_mom_update``.
    """
    NAG_MOM_KERNEL(
        xp,
        grad,
        lr,
        wd,
        momentum,
        rescale_grad,
        kernel_clip(clip_gradient),
        int(reread),
        weight,
        mom,
    )


def _nag_mom_steps(
    xp,
    grad,
    lr,
    wd,
    momentum,
    rescale_grad,
    clip_gradient,
    reread,
    weight,
    mom,
):
    """:data:`NAG_MOM_KERNEL` in array operations."""
    g = rescaled(xp, grad, rescale_grad, clip_gradient)
    old = None if reread else weight.copy()
    mom *= momentum
    weight[...] = (
        weight - mom + (momentum + 1) * (mom - lr * (g + wd * weight))
    )
    mom[...] = mom - lr * (g + wd * (weight if reread else old))


#: Nesterov momentum as one kernel (``weight`` and ``mom`` updated); the
#: operations in the order of the twin, so both round alike.
NAG_MOM_KERNEL = Elementwise(
    'dlbook_nag_mom_update',
    'T grad, T lr, T wd, T momentum, T rescale_grad, T clip_gradient, '
    'int32 reread',
    'T weight, T mom',
    RESCALED_G
    + """
    const T m0 = mom * momentum;
    const T w0 = weight;
    weight = w0 - m0 + (momentum + 1) * (m0 - lr * (g + wd * w0));
    mom = m0 - lr * (g + wd * (reread ? weight : w0));
""",
    _nag_mom_steps,
)


def signsgd_update(xp, weight, grad, lr, wd):
    """signSGD, in place (MXNet ignores rescale and clipping here).

    ``weight = (1 - lr*wd) * weight - lr * sign(grad)``

    One fused kernel on a GPU (:data:`SIGNSGD_KERNEL`).
    """
    SIGNSGD_KERNEL(xp, grad, lr, wd, weight)


def _signsgd_steps(xp, grad, lr, wd, weight):
    """:data:`SIGNSGD_KERNEL` in array operations."""
    one, lr, wd = as_t(weight, 1, lr, wd)
    if wd:
        weight *= one - lr * wd
    weight -= lr * xp.sign(grad)


#: signSGD as one kernel (``weight`` updated).
SIGNSGD_KERNEL = Elementwise(
    'dlbook_signsgd_update',
    'T grad, T lr, T wd',
    'T weight',
    f"""
    if (wd != 0) {{
        weight *= 1 - lr * wd;
    }}
    weight -= lr * {cuda_sign('grad')};
""",
    _signsgd_steps,
)


def signum_update(
    xp, weight, grad, mom, lr, wd, momentum, wd_lh, rescale_grad, clip_gradient
):
    """Signum, in place.

    ``mom = momentum*mom - (1-momentum)*(wd*weight + g')``;
    ``weight = (1 - lr*wd_lh) * weight + lr * sign(mom)``

    One fused kernel on a GPU (:data:`SIGNUM_KERNEL`).
    """
    SIGNUM_KERNEL(
        xp,
        grad,
        lr,
        wd,
        momentum,
        wd_lh,
        rescale_grad,
        kernel_clip(clip_gradient),
        weight,
        mom,
    )


def _signum_steps(
    xp, grad, lr, wd, momentum, wd_lh, rescale_grad, clip_gradient, weight, mom
):
    """:data:`SIGNUM_KERNEL` in array operations."""
    one, lr, wd, momentum, wd_lh, rescale_grad = as_t(
        weight, 1, lr, wd, momentum, wd_lh, rescale_grad
    )
    mom *= momentum
    if wd:
        mom -= ((one - momentum) * wd) * weight
    mom -= _scaled(xp, grad, one - momentum, rescale_grad, clip_gradient)
    if wd_lh:
        weight *= one - lr * wd_lh
    weight += lr * xp.sign(mom)


#: Signum as one kernel (``weight`` and ``mom`` updated).
SIGNUM_KERNEL = Elementwise(
    'dlbook_signum_update',
    'T grad, T lr, T wd, T momentum, T wd_lh, T rescale_grad, T clip_gradient',
    'T weight, T mom',
    RESCALED_G
    + _cuda_scaled('(1 - momentum)')
    + f"""
    mom *= momentum;
    if (wd != 0) {{
        mom -= ((1 - momentum) * wd) * weight;
    }}
    mom -= scaled_g;
    if (wd_lh != 0) {{
        weight *= 1 - lr * wd_lh;
    }}
    weight += lr * {cuda_sign('mom')};
""",
    _signum_steps,
)


# -- several weights in one kernel (MXNet's multi_sgd_update) -----------------

#: Up to four plain SGD updates in one kernel (MXNet's
#: ``multi_sgd_update``).
MULTI_SGD_KERNEL = Grouped(
    'dlbook_multi_sgd_update',
    'raw T grad, T lr, T wd',
    'raw T weight',
    'T rescale_grad, T clip_gradient',
    _SGD,
    _sgd_steps,
)

#: Up to four SGD-with-momentum updates in one kernel (MXNet's
#: ``multi_sgd_mom_update``).
MULTI_SGD_MOM_KERNEL = Grouped(
    'dlbook_multi_sgd_mom_update',
    'raw T grad, T lr, T wd',
    'raw T weight, raw T mom',
    'T momentum, T rescale_grad, T clip_gradient',
    _SGD_MOM,
    _sgd_mom_steps,
)


def multi_sgd_update(
    xp, weights, grads, moms, lrs, wds, momentum, rescale_grad, clip_gradient
):
    """SGD (with momentum when ``moms`` is not None) of several weights,
    in place, four per kernel.  The arrays must be C-contiguous (they are
    read as flat rows); values as :func:`sgd_update` and
    :func:`sgd_mom_update` give weight by weight."""
    clip = kernel_clip(clip_gradient)
    if moms is None:
        MULTI_SGD_KERNEL.apply(
            xp,
            [
                ((g, lr, wd), (w,))
                for w, g, lr, wd in zip(weights, grads, lrs, wds)
            ],
            rescale_grad,
            clip,
        )
        return
    MULTI_SGD_MOM_KERNEL.apply(
        xp,
        [
            ((g, lr, wd), (w, m))
            for w, g, m, lr, wd in zip(weights, grads, moms, lrs, wds)
        ],
        momentum,
        rescale_grad,
        clip,
    )


# -- delay-compensated and Langevin updates (MXNet's Python rules) ------------


def dcasgd_update(
    xp,
    weight,
    grad,
    mom,
    previous,
    lr,
    wd,
    momentum,
    lamda,
    rescale_grad,
    clip_gradient,
):
    """Delay-compensated SGD, in place; ``mom`` is None without momentum.

    ``step = -lr * (g' + wd*weight + lamda*g'*g'*(weight - previous))``;
    ``mom = momentum*mom + step``; ``previous = weight``;
    ``weight += mom`` (``weight += step`` without momentum).

    ``previous`` is the weight before the last update: the term in
    ``lamda`` corrects a gradient computed on a stale weight.  One fused
    kernel on a GPU (:data:`DCASGD_KERNEL`, :data:`DCASGD_MOM_KERNEL`);
    MXNet writes this rule in Python, about a dozen launches per weight.
    As there, any ``clip_gradient`` that is not None clips
    (:func:`~.gradient.python_rule_gradient`).
    """
    grad, rescale_grad, clip = python_rule_gradient(
        xp, grad, rescale_grad, clip_gradient
    )
    if mom is None:
        DCASGD_KERNEL(
            xp, grad, lr, wd, lamda, rescale_grad, clip, weight, previous
        )
        return
    DCASGD_MOM_KERNEL(
        xp,
        grad,
        lr,
        wd,
        momentum,
        lamda,
        rescale_grad,
        clip,
        weight,
        previous,
        mom,
    )


def _dcasgd_step(
    xp, grad, lr, wd, lamda, rescale_grad, clip_gradient, weight, previous
):
    """DCASGD's step: ``-lr * (g' + wd*weight + lamda*g'*g'*(weight -
    previous))``, a new array."""
    g = rescaled(xp, grad, rescale_grad, clip_gradient)
    return -lr * (g + wd * weight + lamda * g * g * (weight - previous))


def _dcasgd_steps(
    xp,
    grad,
    lr,
    wd,
    lamda,
    rescale_grad,
    clip_gradient,
    weight,
    previous,
):
    """:data:`DCASGD_KERNEL` in array operations."""
    step = _dcasgd_step(
        xp, grad, lr, wd, lamda, rescale_grad, clip_gradient, weight, previous
    )
    previous[...] = weight
    weight += step


def _dcasgd_mom_steps(
    xp,
    grad,
    lr,
    wd,
    momentum,
    lamda,
    rescale_grad,
    clip_gradient,
    weight,
    previous,
    mom,
):
    """:data:`DCASGD_MOM_KERNEL` in array operations."""
    step = _dcasgd_step(
        xp, grad, lr, wd, lamda, rescale_grad, clip_gradient, weight, previous
    )
    mom *= momentum
    mom += step
    previous[...] = weight
    weight += mom


# DCASGD's step for one element (after RESCALED_G); the weight, not yet
# updated, becomes the previous one
_DCASGD_STEP = """
    T step = -lr * (g + wd * weight + lamda * g * g * (weight - previous));
    previous = weight;
"""

#: DCASGD without momentum as one kernel (``weight`` and ``previous``
#: updated).
DCASGD_KERNEL = Elementwise(
    'dlbook_dcasgd_update',
    'T grad, T lr, T wd, T lamda, T rescale_grad, T clip_gradient',
    'T weight, T previous',
    RESCALED_G + _DCASGD_STEP + 'weight += step;',
    _dcasgd_steps,
)

#: DCASGD with momentum as one kernel (``weight``, ``previous`` and
#: ``mom`` updated).
DCASGD_MOM_KERNEL = Elementwise(
    'dlbook_dcasgd_mom_update',
    'T grad, T lr, T wd, T momentum, T lamda, T rescale_grad, T clip_gradient',
    'T weight, T previous, T mom',
    RESCALED_G
    + _DCASGD_STEP
    + """
    mom = mom * momentum + step;
    weight += mom;
""",
    _dcasgd_mom_steps,
)


def sgld_update(xp, rng, weight, grad, lr, wd, rescale_grad, clip_gradient):
    """Stochastic gradient Langevin dynamics, in place: half a gradient
    step plus Gaussian noise.

    ``weight = weight - lr/2 * (g' + wd*weight) + noise``, with
    ``noise ~ N(0, sqrt(lr))`` drawn from ``rng`` (the ``RandomState`` of
    the weight's device, which ``mx.random.seed`` resets).

    Two launches on a GPU: the draw (float64, one number per element),
    then one fused kernel (:data:`SGLD_KERNEL`) that rounds the noise to
    the weight's dtype and adds it; MXNet writes this rule in Python.
    As there, any ``clip_gradient`` that is not None clips
    (:func:`~.gradient.python_rule_gradient`).
    """
    noise = rng.normal(0.0, math.sqrt(lr), weight.shape)
    grad, rescale_grad, clip = python_rule_gradient(
        xp, grad, rescale_grad, clip_gradient
    )
    SGLD_KERNEL(xp, grad, noise, lr, wd, rescale_grad, clip, weight)


def _sgld_steps(xp, grad, noise, lr, wd, rescale_grad, clip_gradient, weight):
    """:data:`SGLD_KERNEL` in array operations."""
    g = rescaled(xp, grad, rescale_grad, clip_gradient)
    weight -= lr / 2 * (g + wd * weight)
    weight += noise.astype(weight.dtype, copy=False)


#: SGLD as one kernel (``weight`` updated); ``noise`` is float64, as
#: drawn.
SGLD_KERNEL = Elementwise(
    'dlbook_sgld_update',
    'T grad, float64 noise, T lr, T wd, T rescale_grad, T clip_gradient',
    'T weight',
    RESCALED_G
    + """
    weight -= lr / 2 * (g + wd * weight);
    weight += (T)noise;
""",
    _sgld_steps,
)
