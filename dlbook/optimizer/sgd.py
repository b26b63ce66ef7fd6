"""SGD and its relatives: momentum, Nesterov, sign-based, delay-compensated
and Langevin updates.

The rules themselves are functions on raw arrays
(``dlbook/ops/update_rules/sgd.py``); the classes here keep the state and
settings, as MXNet's optimizers do.  The formulas are those of MXNet's update
kernels (``apache/mxnet@1.9.1:src/operator/optimizer_op-inl.h``:
``SGDKernel``, ``SGDMomKernel``, ``NAGMomKernel``, ``SignSGDKernel``,
``SignumKernel``) and of the Python rules in
``python/mxnet/optimizer/optimizer.py`` (DCASGD, SGLD).  Below,
``g' = clip(rescale_grad * grad, clip_gradient)``.
"""

import os

from ..backend import on_host
from ..ndarray.invoke import DENSE_CLASSES
from ..ndarray.lazy_update import rows_for_update
from ..ops.update_rules.sgd import (
    dcasgd_update,
    multi_sgd_update,
    nag_mom_update,
    sgd_mom_update,
    sgd_update,
    sgld_update,
    signsgd_update,
    signum_update,
)
from .optimizer import Optimizer, register

__all__ = ['SGD', 'ccSGD', 'NAG', 'Signum', 'DCASGD', 'SGLD', 'Test']


def _dense_on_one_device(weights, grads):
    """Whether these weights and gradients are all dense arrays on the
    device of the first weight (contexts are one object per device).
    Dense means one of the front end's dense classes (NDArray, NumPy
    mode's ndarray), tested by type: quicker than the ``stype`` property
    on every step; any other class takes the one-weight path."""
    ctx = weights[0]._ctx
    for w, g in zip(weights, grads):
        if (
            type(w) not in DENSE_CLASSES
            or type(g) not in DENSE_CLASSES
            or w._ctx is not ctx
            or g._ctx is not ctx
        ):
            return False
    return True


def _flat_rows(arrays):
    """Whether every raw array is C-contiguous: :func:`multi_sgd_update`
    reads them as flat rows."""
    return all(a.flags.c_contiguous for a in arrays)


class _MomentumOptimizer(Optimizer):
    """The state of SGD, NAG and Signum: one momentum array per weight,
    or None when ``momentum`` is 0."""

    def create_state(self, index, weight):
        if self.momentum != 0.0:
            return self._zeros_like(weight)
        return None


@register
class SGD(_MomentumOptimizer):
    """The SGD optimizer with momentum and weight decay.

    Updates are applied by::

        rescaled_grad = lr * (clip(rescale_grad * grad, clip_gradient)
                              + wd * weight)
        state = momentum * state + rescaled_grad   (written mom = -state)
        weight = weight - state

    and without momentum ``weight = weight - rescaled_grad``.

    Parameters
    ----------
    momentum : float, optional
        The momentum value.
    lazy_update : bool, optional
        With a row_sparse gradient, update only the rows it holds
        (weight decay and momentum included), as MXNet does.
    multi_precision : bool, optional
        Update a float32 master copy of float16 weights.
    """

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.lazy_update = lazy_update
        # MXNet updates SGD weights in groups of this many (same result).
        self.aggregate_num = int(
            os.getenv('MXNET_OPTIMIZER_AGGREGATION_SIZE', '4')
        )

    def update(self, index, weight, grad, state):
        """As :meth:`Optimizer.update`.  A group of dense weights is
        counted once and updated by one kernel on a GPU
        (:func:`multi_sgd_update`), as MXNet's aggregated
        ``multi_sgd_mom_update`` does; on the CPU, where there are no
        launches to save, weight by weight, but without each weight's
        trip through :meth:`_update_one` (about 1.5 µs a weight)."""
        if not (
            isinstance(index, (list, tuple))
            and len(index) > 1
            and _dense_on_one_device(weight, grad)
        ):
            super().update(index, weight, grad, state)
            return
        self._update_count(index)
        lrs, wds = self._get_lrs(index), self._get_wds(index)
        xp = weight[0].context.backend.xp
        weights = [w._data for w in weight]
        grads = [g._data for g in grad]
        moms = None
        if state[0] is not None and self.momentum > 0:
            moms = [m._data for m in state]
        clip = self._kernel_clip()
        if not on_host(xp) and _flat_rows(weights + grads):
            multi_sgd_update(
                xp,
                weights,
                grads,
                moms,
                lrs,
                wds,
                self.momentum,
                self.rescale_grad,
                clip,
            )
        elif moms is None:
            for w, g, lr, wd in zip(weights, grads, lrs, wds):
                sgd_update(xp, w, g, lr, wd, self.rescale_grad, clip)
        else:
            for w, g, m, lr, wd in zip(weights, grads, moms, lrs, wds):
                sgd_mom_update(
                    xp, w, g, m, lr, wd, self.momentum, self.rescale_grad, clip
                )

    def _update_one(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        xp = weight.context.backend.xp
        # a row_sparse gradient updates only its rows (lazy_update)
        w, g, states, commit = rows_for_update(
            weight, grad, state, self.lazy_update
        )
        # MXNet uses the momentum kernel only for momentum > 0.
        if state is not None and self.momentum > 0:
            sgd_mom_update(
                xp,
                w,
                g,
                states[0],
                lr,
                wd,
                self.momentum,
                self.rescale_grad,
                self._kernel_clip(),
            )
        else:
            sgd_update(
                xp, w, g, lr, wd, self.rescale_grad, self._kernel_clip()
            )
        if commit is not None:
            commit()


@register
class ccSGD(SGD):  # noqa: N801 (MXNet's name)
    """[DEPRECATED] Same as `SGD`. Left here for backward compatibility."""


@register
class NAG(_MomentumOptimizer):
    """Nesterov accelerated gradient.

    Updates are applied by::

        d = lr * (clip(rescale_grad * grad, clip_gradient) + wd * weight)
        mom = momentum * mom - d
        weight = weight + momentum * mom - d

    and, with ``momentum=0``, plain SGD.

    Parameters
    ----------
    momentum : float, optional
        The momentum value.
    """

    def __init__(self, momentum=0.0, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum

    def _update_one(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        xp = weight.context.backend.xp
        if state is not None:
            nag_mom_update(
                xp,
                weight._data,
                grad._data,
                state._data,
                lr,
                wd,
                self.momentum,
                self.rescale_grad,
                self._kernel_clip(),
            )
        else:
            sgd_update(
                xp,
                weight._data,
                grad._data,
                lr,
                wd,
                self.rescale_grad,
                self._kernel_clip(),
            )


@register
class Signum(_MomentumOptimizer):
    """The Signum optimizer: steps along the sign of the momentum.

    Updates are applied by::

        rescaled_grad = clip(rescale_grad * grad, clip_gradient) + wd * weight
        state = momentum * state + (1 - momentum) * rescaled_grad
        weight = (1 - lr * wd_lh) * weight - lr * sign(state)

    and, with ``momentum=0`` (signSGD),
    ``weight = (1 - lr * wd) * weight - lr * sign(grad)``.

    Parameters
    ----------
    momentum : float, optional
        The momentum value.
    wd_lh : float, optional
        Decoupled weight decay (https://arxiv.org/abs/1711.05101).
    """

    def __init__(self, learning_rate=0.01, momentum=0.9, wd_lh=0.0, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = momentum
        self.wd_lh = wd_lh

    def _update_one(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        xp = weight.context.backend.xp
        if state is not None:
            signum_update(
                xp,
                weight._data,
                grad._data,
                state._data,
                lr,
                wd,
                self.momentum,
                self.wd_lh,
                self.rescale_grad,
                self._kernel_clip(),
            )
        else:
            signsgd_update(xp, weight._data, grad._data, lr, wd)


@register
class DCASGD(Optimizer):
    """Delay-compensated asynchronous SGD (https://arxiv.org/abs/1609.08326).

    With ``g = clip(rescale_grad * grad, clip_gradient)``::

        step = -lr * (g + wd * weight + lamda * g * g * (weight - previous))
        mom = momentum * mom + step     (mom = step when momentum is 0)
        previous = weight
        weight = weight + mom

    The rule (``dcasgd_update``) is one fused kernel per weight on a GPU.

    Parameters
    ----------
    momentum : float, optional
        The momentum value.
    lamda : float, optional
        Scale of the delay compensation.
    """

    def __init__(self, momentum=0.0, lamda=0.04, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.weight_previous = {}
        self.lamda = lamda

    def create_state(self, index, weight):
        mom = None if self.momentum == 0.0 else self._zeros_like(weight)
        return (mom, weight.copy())

    def _update_one(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        mom, previous = state
        # MXNet tests ``if mom:``, which fails for arrays of more than one
        # element; ``is not None`` is what it means.
        dcasgd_update(
            weight.context.backend.xp,
            weight._data,
            grad._data,
            None if mom is None else mom._data,
            previous._data,
            lr,
            wd,
            self.momentum,
            self.lamda,
            self.rescale_grad,
            self._python_clip(),
        )


@register
class SGLD(Optimizer):
    """Stochastic Gradient Langevin Dynamics.

    With ``g = clip(rescale_grad * grad, clip_gradient)``::

        weight = weight - lr/2 * (g + wd * weight) + N(0, sqrt(lr))

    The noise is drawn from the generator of the weight's device (seeded
    by ``mx.random.seed``, the numbers ``nd.random.normal`` draws); with
    the rest of the rule (``sgld_update``) that is two launches per
    weight on a GPU.
    """

    def create_state(self, index, weight):
        return None

    def _update_one(self, index, weight, grad, state):
        lr, wd = self._begin_update(index)
        ctx = weight.context
        with ctx.scope:  # the noise is drawn on the weight's device
            sgld_update(
                ctx.backend.xp,
                ctx.backend.rng(ctx.device_id),
                weight._data,
                grad._data,
                lr,
                wd,
                self.rescale_grad,
                self._python_clip(),
            )


@register
class Test(Optimizer):
    """The Test optimizer: ``weight += rescale_grad * grad``; the state
    keeps a copy of the weight."""

    def create_state(self, index, weight):
        """Creates a state to duplicate weight."""
        return self._zeros_like(weight)

    def _update_one(self, index, weight, grad, state):
        weight._data += grad._data * self.rescale_grad
        state._data[...] = weight._data
