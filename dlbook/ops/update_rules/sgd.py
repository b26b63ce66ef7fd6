"""The update rules of SGD and its relatives: plain, momentum, Nesterov,
sign-based, and several weights per kernel.

Each rule is a function on raw arrays (``xp`` is NumPy or CuPy) that
changes ``weight`` and its state in place, so every Parameter sharing the
array sees the new values.  The formulas are those of MXNet's update
kernels (``apache/mxnet@1.9.1:src/operator/optimizer_op-inl.h``:
``SGDKernel``, ``SGDMomKernel``, ``NAGMomKernel``, ``SignSGDKernel``,
``SignumKernel``, ``MultiSGDKernel``).  Below,
``g' = clip(rescale_grad * grad, clip_gradient)``.
"""

from ..kernels import Elementwise, Grouped
from .gradient import (
    RESCALED_G,
    cuda_sign,
    kernel_clip,
    rescaled,
    rule_bound,
)

__all__ = [
    'sgd_update',
    'sgd_mom_update',
    'nag_mom_update',
    'signsgd_update',
    'signum_update',
    'multi_sgd_update',
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


def _sgd_steps(xp, grad, lr, wd, rescale_grad, clip_gradient, weight):
    """:data:`SGD_KERNEL` in array operations (a negative
    ``clip_gradient`` means no clipping)."""
    if wd:
        weight *= 1 - lr * wd
    if clip_gradient < 0:
        # One temporary: this is the hot path of every SGD training loop.
        weight -= (lr * rescale_grad) * grad
    else:
        weight -= lr * rescaled(xp, grad, rescale_grad, clip_gradient)


# MXNet's SGDKernel for one element (after RESCALED_G)
_SGD = 'weight = (1 - lr * wd) * weight - lr * g;'

#: Plain SGD as one kernel (``weight`` updated).
SGD_KERNEL = Elementwise(
    'dlbook_sgd_update',
    'T grad, T lr, T wd, T rescale_grad, T clip_gradient',
    'T weight',
    RESCALED_G + _SGD,
    _sgd_steps,
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
    mom *= momentum
    if wd:
        mom -= (lr * wd) * weight
    if clip_gradient < 0:
        mom -= (lr * rescale_grad) * grad
    else:
        mom -= lr * rescaled(xp, grad, rescale_grad, clip_gradient)
    weight += mom


# MXNet's SGDMomKernel for one element (after RESCALED_G)
_SGD_MOM = """
    mom = momentum * mom - lr * wd * weight - lr * g;
    weight += mom;
"""

#: SGD with momentum as one kernel (``weight`` and ``mom`` updated).
SGD_MOM_KERNEL = Elementwise(
    'dlbook_sgd_mom_update',
    'T grad, T lr, T wd, T momentum, T rescale_grad, T clip_gradient',
    'T weight, T mom',
    RESCALED_G + _SGD_MOM,
    _sgd_mom_steps,
)


def nag_mom_update(
    xp, weight, grad, mom, lr, wd, momentum, rescale_grad, clip_gradient
):
    """Nesterov momentum, in place.

    With ``d = lr * (g' + wd*weight)``: ``mom = momentum*mom - d``;
    ``weight += momentum*mom - d``.  (MXNet's kernel writes it as
    ``m0 = momentum*mom; weight += -m0 + (1 + momentum)*(m0 - d);
    mom = m0 - d``, the same value.)

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
        weight,
        mom,
    )


def _nag_mom_steps(
    xp, grad, lr, wd, momentum, rescale_grad, clip_gradient, weight, mom
):
    """:data:`NAG_MOM_KERNEL` in array operations."""
    d = rescaled(xp, grad, rescale_grad, rule_bound(clip_gradient))
    if wd:
        d += wd * weight
    d *= lr
    mom *= momentum
    mom -= d
    weight += momentum * mom
    weight -= d


#: Nesterov momentum as one kernel (``weight`` and ``mom`` updated); the
#: operations in the order of the twin, so both round alike.
NAG_MOM_KERNEL = Elementwise(
    'dlbook_nag_mom_update',
    'T grad, T lr, T wd, T momentum, T rescale_grad, T clip_gradient',
    'T weight, T mom',
    RESCALED_G
    + """
    if (wd != 0) {
        g += wd * weight;
    }
    T d = g * lr;
    mom = mom * momentum - d;
    weight += momentum * mom;
    weight -= d;
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
    if wd:
        weight *= 1 - lr * wd
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
    mom *= momentum
    if wd:
        mom -= ((1 - momentum) * wd) * weight
    g = rescaled(xp, grad, rescale_grad, rule_bound(clip_gradient))
    mom -= (1 - momentum) * g
    if wd_lh:
        weight *= 1 - lr * wd_lh
    weight += lr * xp.sign(mom)


#: Signum as one kernel (``weight`` and ``mom`` updated).
SIGNUM_KERNEL = Elementwise(
    'dlbook_signum_update',
    'T grad, T lr, T wd, T momentum, T wd_lh, T rescale_grad, T clip_gradient',
    'T weight, T mom',
    RESCALED_G
    + f"""
    mom *= momentum;
    if (wd != 0) {{
        mom -= ((1 - momentum) * wd) * weight;
    }}
    mom -= (1 - momentum) * g;
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
    RESCALED_G + _SGD,
    _sgd_steps,
)

#: Up to four SGD-with-momentum updates in one kernel (MXNet's
#: ``multi_sgd_mom_update``).
MULTI_SGD_MOM_KERNEL = Grouped(
    'dlbook_multi_sgd_mom_update',
    'raw T grad, T lr, T wd',
    'raw T weight, raw T mom',
    'T momentum, T rescale_grad, T clip_gradient',
    RESCALED_G + _SGD_MOM,
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
