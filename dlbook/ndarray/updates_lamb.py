"""MXNet's LAMB operators: ``nd.lamb_update_phase1`` and ``phase2``, their
mixed-precision forms, and ``nd.contrib.multi_lamb_update``.

LAMB (https://arxiv.org/abs/1904.00962) is Adam's direction rescaled per
layer by a trust ratio of norms.  MXNet splits one step into two
operators, with the norms computed in between, as its LAMB optimizer
does::

    g = nd.lamb_update_phase1(weight, grad, mean, var, t=t, wd=wd)
    r1, r2 = weight.norm(), g.norm()
    nd.lamb_update_phase2(weight, g, r1, r2, lr=lr, out=weight)

Phase 1 updates ``mean`` and ``var`` in place and returns the direction
``g``; phase 2 returns the new weight (``out=weight`` writes it into the
weight).  ``nd.contrib.multi_lamb_update`` does the three steps for a
list of weights, writing the results into ``out``.  The formulas are in
``dlbook/ops/update_rules/lamb.py``, the rule the LAMB optimizer runs.
The checks and conventions (``out``, a negative bound or
``clip_gradient`` meaning none) are those of ``updates.py``.
"""

import numpy

from ..base import DLBookError
from ..ops.update_rules import lamb
from ..ops.update_rules.norms import l2_norm
from .ndarray import NDArray, from_raw
from .updates import (
    _check,
    _check_update,
    _deliver,
    _interleave,
    _multi,
    _required,
)

__all__ = [
    'lamb_update_phase1',
    'lamb_update_phase2',
    'mp_lamb_update_phase1',
    'mp_lamb_update_phase2',
]


def _phase1(name, weight, grad, mean, var, weight32, t, wd, settings, out):
    """Phase 1 on the weight, or on its float32 master copy ``weight32``
    (None for the plain form) with ``grad`` cast to float32; ``g`` as an
    NDArray."""
    _required(name, t=t, wd=wd)
    _check_update(name, weight, grad, {'mean': mean, 'var': var}, weight32)
    if weight32 is None:
        weight32 = weight
    xp = weight.context.backend.xp
    g = lamb.lamb_phase1(
        xp,
        weight32._data,
        grad._data.astype(weight32.dtype, copy=False),
        mean._data,
        var._data,
        wd,
        t,
        settings['beta1'],
        settings['beta2'],
        settings['epsilon'],
        settings['bias_correction'],
        settings['rescale_grad'],
        settings['clip_gradient'],
    )
    return _deliver(from_raw(g, weight.context), out)


def lamb_update_phase1(
    weight,
    grad,
    mean,
    var,
    beta1=0.9,
    beta2=0.999,
    epsilon=1e-6,
    t=None,
    bias_correction=True,
    wd=None,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    out=None,
    name=None,
):
    """LAMB's phase 1: the moments (in place) and the direction ``g``::

        g' = clip(rescale_grad * grad, clip_gradient)
        mean = beta1 * mean + (1 - beta1) * g'
        var = beta2 * var + (1 - beta2) * g' * g'
        g = mean_hat / (sqrt(var_hat) + epsilon) + wd * weight

    with ``mean_hat = mean / (1 - beta1**t)`` and ``var_hat = var / (1 -
    beta2**t)`` at step ``t`` (counted from 1), or ``mean`` and ``var``
    themselves when ``bias_correction`` is False.  ``t`` and ``wd`` are
    required, as in MXNet.  Returns ``g``, a new array (or ``out``).
    """
    settings = dict(
        beta1=beta1,
        beta2=beta2,
        epsilon=epsilon,
        bias_correction=bias_correction,
        rescale_grad=rescale_grad,
        clip_gradient=clip_gradient,
    )
    return _phase1(
        'lamb_update_phase1',
        weight,
        grad,
        mean,
        var,
        None,
        t,
        wd,
        settings,
        out,
    )


def mp_lamb_update_phase1(
    weight,
    grad,
    mean,
    var,
    weight32,
    beta1=0.9,
    beta2=0.999,
    epsilon=1e-6,
    t=None,
    bias_correction=True,
    wd=None,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    out=None,
    name=None,
):
    """:func:`lamb_update_phase1` on the float32 master copy ``weight32``
    of a float16 weight: the gradient is cast to float32, ``mean`` and
    ``var`` are float32, and so is the returned ``g`` (``wd * weight32``
    in it)."""
    settings = dict(
        beta1=beta1,
        beta2=beta2,
        epsilon=epsilon,
        bias_correction=bias_correction,
        rescale_grad=rescale_grad,
        clip_gradient=clip_gradient,
    )
    return _phase1(
        'mp_lamb_update_phase1',
        weight,
        grad,
        mean,
        var,
        weight32,
        t,
        wd,
        settings,
        out,
    )


def _check_norm(name, key, r, like):
    """``r`` (``r1`` or ``r2``): a one-element NDArray of ``like``'s dtype
    on its context."""
    if not isinstance(r, NDArray):
        raise DLBookError(
            f'{name}: {key} must be an NDArray, got {type(r).__name__}'
        )
    if r.size != 1 or r.ndim == 0:
        raise DLBookError(
            f'{name}: {key} must hold one value (shape (1,)), got shape '
            f'{r.shape}'
        )
    if r.dtype != like.dtype or r.context != like.context:
        raise DLBookError(
            f'{name}: {key} is {numpy.dtype(r.dtype).name} on {r.context}, '
            f'expected {numpy.dtype(like.dtype).name} on {like.context}'
        )


def _phase2(name, weight32, g, r1, r2, lr, bounds, in_place=False):
    """Phase 2 on ``weight32`` (the weight, or its master copy) when
    ``in_place``, else on a copy: the array updated."""
    _required(name, lr=lr)
    _check(name, weight32, g, {}, grad_name='g')
    _check_norm(name, 'r1', r1, weight32)
    _check_norm(name, 'r2', r2, weight32)
    target = weight32 if in_place else weight32.copy()
    lamb.lamb_phase2(
        weight32.context.backend.xp,
        target._data,
        g._data,
        r1._data,
        r2._data,
        lr,
        *bounds,
    )
    return target


def lamb_update_phase2(
    weight,
    g,
    r1,
    r2,
    lr=None,
    lower_bound=-1.0,
    upper_bound=-1.0,
    out=None,
    name=None,
):
    """LAMB's phase 2: the step scaled by the trust ratio ``r1 / r2``::

        r1 = clip(r1, lower_bound, upper_bound)
        weight - lr * r1 / r2 * g          (weight - lr * g if r1 or r2 is 0)

    ``g`` is phase 1's result; ``r1 = ||weight||`` and ``r2 = ||g||``
    are one-element arrays (``weight.norm()``, ``g.norm()``) of the
    weight's dtype, read on the device.  A negative bound is no bound.
    Returns the new weight (a new array, or ``out``; ``out=weight``
    updates the weight itself).
    """
    result = _phase2(
        'lamb_update_phase2',
        weight,
        g,
        r1,
        r2,
        lr,
        (lower_bound, upper_bound),
        in_place=out is weight,
    )
    return _deliver(result, out)


def mp_lamb_update_phase2(
    weight,
    g,
    r1,
    r2,
    weight32,
    lr=None,
    lower_bound=-1.0,
    upper_bound=-1.0,
    out=None,
    name=None,
):
    """:func:`lamb_update_phase2` from the float32 master copy: returns
    ``weight32 - lr * r1 / r2 * g`` cast to the weight's dtype (``g``,
    ``r1``, ``r2`` float32).

    ``weight32`` itself is left unchanged, as MXNet 1.9.1's kernel leaves
    it (its documentation says it is updated): keep the master copy in
    step yourself, e.g. ``weight32[:] = weight32 - ...``, or use
    :func:`multi_mp_lamb_update`, which does update it.
    """
    name = 'mp_lamb_update_phase2'
    _check(name, weight, weight, {'weight32': weight32})
    bounds = (lower_bound, upper_bound)
    result = _phase2(name, weight32, g, r1, r2, lr, bounds)
    return _deliver(result.astype(weight.dtype), out)


# -- several weights per call --------------------------------------------------


def _lamb_one(
    weight,
    grad,
    mean,
    var,
    weight32=None,
    *,
    lr,
    wd,
    t,
    out,
    op,
    lower_bound,
    upper_bound,
    **settings,
):
    """One weight of :func:`multi_lamb_update` (``op``: the operator's
    name): phase 1, the norms, phase 2 on the weight (a copy unless
    ``out`` is the weight) or on the master copy ``weight32``, which is
    updated in place."""
    master = weight if weight32 is None else weight32
    g = _phase1(op, weight, grad, mean, var, weight32, t, wd, settings, None)
    xp = weight.context.backend.xp
    # MXNet takes r1 from the weight as given: the float16 one in the
    # mixed-precision form (its norm accumulated in float32)
    r1, r2 = l2_norm(xp, weight._data), l2_norm(xp, g._data)
    in_place = weight32 is not None or out is weight
    target = master if in_place else weight.copy()
    lamb.lamb_phase2(
        xp,
        target._data,
        g._data,
        r1.astype(target.dtype, copy=False),
        r2,
        lr,
        lower_bound,
        upper_bound,
    )
    if weight32 is not None:
        target = target.astype(weight.dtype)
    return _deliver(target, out)


def _multi_lamb(op, arrays, step_count, lrs, wds, out, num_tensors, kw):
    """The two several-weight forms: ``arrays`` maps MXNet's list names
    to the lists, ``step_count`` gives each weight its ``t``."""
    data, count, states = _interleave(op, num_tensors, **arrays)
    return _multi(
        op,
        _lamb_one,
        states,
        data,
        count,
        lrs,
        wds,
        out,
        each={'step_count': ('t', step_count)},
        op=op,
        **kw,
    )


def multi_lamb_update(
    weights,
    grads,
    mean,
    var,
    step_count,
    lrs,
    wds,
    out=None,
    num_tensors=0,
    beta1=0.9,
    beta2=0.999,
    epsilon=1e-6,
    rescale_grad=1.0,
    lower_bound=-1.0,
    upper_bound=-1.0,
    clip_gradient=-1.0,
    bias_correction=True,
    name=None,
):
    """LAMB on a list of weights (``nd.contrib.multi_lamb_update``): for
    weight ``i``, :func:`lamb_update_phase1` at step ``step_count[i]``
    with ``wd=wds[i]``, the norms ``r1 = ||weights[i]||`` and ``r2 =
    ||g||``, then :func:`lamb_update_phase2` with ``lr=lrs[i]``.

    ``weights``, ``grads``, ``mean`` and ``var`` are lists with one array
    per weight (``num_tensors`` of them; 0 counts the list); the moments
    are updated in place.  Returns the list of new weights, written into
    ``out`` when given (``out=weights`` updates the weights; MXNet 1.9.1
    needs ``out``, dlbook makes new arrays without it).
    """
    arrays = dict(weights=weights, grads=grads, mean=mean, var=var)
    kw = dict(
        beta1=beta1,
        beta2=beta2,
        epsilon=epsilon,
        rescale_grad=rescale_grad,
        lower_bound=lower_bound,
        upper_bound=upper_bound,
        clip_gradient=clip_gradient,
        bias_correction=bias_correction,
    )
    return _multi_lamb(
        'multi_lamb_update', arrays, step_count, lrs, wds, out, num_tensors, kw
    )


def multi_mp_lamb_update(
    weights,
    grads,
    mean,
    var,
    weights32,
    step_count,
    lrs,
    wds,
    out=None,
    num_tensors=0,
    beta1=0.9,
    beta2=0.999,
    epsilon=1e-6,
    rescale_grad=1.0,
    lower_bound=-1.0,
    upper_bound=-1.0,
    clip_gradient=-1.0,
    bias_correction=True,
    name=None,
):
    """:func:`multi_lamb_update` on float32 master copies
    (``nd.contrib.multi_mp_lamb_update``): each ``weights32[i]`` is
    updated in place and the returned weight is it cast to the weight's
    dtype; ``mean`` and ``var`` are float32.  As in MXNet, ``r1`` is the
    norm of ``weights[i]`` (the float16 weight, summed in float32)."""
    arrays = dict(
        weights=weights, grads=grads, mean=mean, var=var, weights32=weights32
    )
    kw = dict(
        beta1=beta1,
        beta2=beta2,
        epsilon=epsilon,
        rescale_grad=rescale_grad,
        lower_bound=lower_bound,
        upper_bound=upper_bound,
        clip_gradient=clip_gradient,
        bias_correction=bias_correction,
    )
    return _multi_lamb(
        'multi_mp_lamb_update',
        arrays,
        step_count,
        lrs,
        wds,
        out,
        num_tensors,
        kw,
    )


#: The operators of ``nd.contrib`` defined here
CONTRIB = {
    'multi_lamb_update': multi_lamb_update,
    'multi_mp_lamb_update': multi_mp_lamb_update,
}
