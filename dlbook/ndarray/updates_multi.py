"""MXNet's update operators for several weights per call whose rates come
as arrays: ``nd.preloaded_multi_sgd_update`` and its momentum and
mixed-precision forms, and ``nd.contrib.multi_adamw_update``.

The ``preloaded_`` forms take the arrays of every weight interleaved, as
``nd.multi_sgd_update`` does, followed by two NDArrays: the learning
rates and the weight decays, one float32 value per weight::

    nd.preloaded_multi_sgd_mom_update(w0, g0, mom0, w1, g1, mom1,
                                      lrs, wds, momentum=0.9,
                                      num_weights=2, out=[w0, w1])

The rates stay on the device: LARS computes them there
(``nd.multi_lars``), and the update reads them there, with no trip
through the host.  ``nd.contrib.multi_adamw_update`` takes lists
instead (``weights, grads, mean, var``), a shared ``rescale_grad`` and
per-weight ``lrs``, ``wds`` and ``etas``.

Each weight is updated by the one-weight operator of ``updates.py``
(``sgd_update``, ``adamw_update``, ...), so the rules and checks are
theirs.  Each form returns the list of new weights, written into ``out``
when given; MXNet 1.9.1 needs ``out`` here, dlbook makes new arrays
without it.
"""

import numpy

from ..base import DLBookError
from .ndarray import NDArray
from .updates import (
    _check_count,
    _deliver,
    _interleave,
    _multi,
    _rescale_factor,
    adamw_update,
    mp_adamw_update,
    mp_sgd_mom_update,
    mp_sgd_update,
    sgd_mom_update,
    sgd_update,
)

__all__ = [
    'preloaded_multi_sgd_update',
    'preloaded_multi_sgd_mom_update',
    'preloaded_multi_mp_sgd_update',
    'preloaded_multi_mp_sgd_mom_update',
]


def _rates(name, rates, num_weights, ctx):
    """``lrs`` or ``wds`` of a preloaded form: a float32 NDArray with one
    value per weight on the weights' context."""
    for key, x in rates.items():
        if not isinstance(x, NDArray):
            raise DLBookError(
                f'{name}: {key} must be an NDArray (the last two arrays are '
                f'lrs and wds), got {type(x).__name__}'
            )
        if x.size != num_weights:
            raise DLBookError(
                f'{name}: {key} needs one value per weight '
                f'(num_weights={num_weights}), got shape {x.shape}'
            )
        if x.dtype != numpy.float32 or x.context != ctx:
            raise DLBookError(
                f'{name}: {key} is {numpy.dtype(x.dtype).name} on '
                f'{x.context}; expected float32 on {ctx}'
            )


def _preloaded(name, single, states, data, num_weights, out, **kw):
    """Split ``data`` into the weights' arrays and ``lrs``, ``wds``, then
    update each weight by ``single`` with ``lr=lrs[i]``, ``wd=wds[i]``
    (``states`` names each weight's arrays after its gradient, as
    :func:`~dlbook.ndarray.updates._multi` takes them).

    Those are 0-d arrays on the device, in the dtype the rule computes in
    (the weight's, float32 for the ``mp`` forms, which have a
    ``weight32``), so the kernels read them there.
    """
    per_weight = 2 + len(states)
    _check_count(name, num_weights)
    if len(data) != per_weight * num_weights + 2:
        raise DLBookError(
            f'{name}: expected {per_weight} arrays per weight for '
            f'num_weights={num_weights}, then lrs and wds '
            f'({per_weight * num_weights + 2} in all), got {len(data)}'
        )
    *arrays, lrs, wds = data
    for i in range(num_weights):
        if not isinstance(arrays[i * per_weight], NDArray):
            raise DLBookError(
                f'{name}: weight {i} must be an NDArray, got '
                f'{type(arrays[i * per_weight]).__name__}'
            )
    ctx = arrays[0].context if arrays else lrs.context
    _rates(name, {'lrs': lrs, 'wds': wds}, num_weights, ctx)
    cast = {}  # dtype -> (lrs, wds) as flat raw arrays of that dtype

    def rates_for(dtype):
        if dtype not in cast:
            cast[dtype] = tuple(
                x._data.reshape(-1).astype(dtype, copy=False)
                for x in (lrs, wds)
            )
        return cast[dtype]

    lr_each, wd_each = [], []
    for i in range(num_weights):
        weight = arrays[i * per_weight]
        dtype = numpy.float32 if 'weight32' in states else weight.dtype
        lr, wd = rates_for(numpy.dtype(dtype))
        lr_each.append(lr[i])
        wd_each.append(wd[i])
    return _multi(
        name,
        single,
        states,
        arrays,
        num_weights,
        lr_each,
        wd_each,
        out,
        lazy_update=False,
        **kw,
    )


def preloaded_multi_sgd_update(
    *data,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    num_weights=1,
    out=None,
    name=None,
):
    """:func:`~dlbook.ndarray.sgd_update` of ``num_weights`` weights,
    ``data = weight0, grad0, weight1, grad1, ..., lrs, wds``: weight ``i``
    becomes ``(1 - lrs[i]*wds[i]) * weight - lrs[i] * clip(rescale_grad
    * grad, clip_gradient)``."""
    return _preloaded(
        'preloaded_multi_sgd_update',
        sgd_update,
        (),
        data,
        num_weights,
        out,
        rescale_grad=rescale_grad,
        clip_gradient=clip_gradient,
    )


def preloaded_multi_sgd_mom_update(
    *data,
    momentum=0.0,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    num_weights=1,
    out=None,
    name=None,
):
    """:func:`~dlbook.ndarray.sgd_mom_update` of ``num_weights`` weights,
    ``data = weight0, grad0, mom0, weight1, ..., lrs, wds``: ``mom =
    momentum*mom - lrs[i]*wds[i]*weight - lrs[i]*g'`` (in place),
    ``weight += mom``."""
    return _preloaded(
        'preloaded_multi_sgd_mom_update',
        sgd_mom_update,
        ('mom',),
        data,
        num_weights,
        out,
        momentum=momentum,
        rescale_grad=rescale_grad,
        clip_gradient=clip_gradient,
    )


def preloaded_multi_mp_sgd_update(
    *data,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    num_weights=1,
    out=None,
    name=None,
):
    """:func:`preloaded_multi_sgd_update` on float32 master copies,
    ``data = weight0, grad0, weight32_0, weight1, ..., lrs, wds``: each
    ``weight32`` is updated in place, the returned weight is it cast to
    the weight's dtype."""
    return _preloaded(
        'preloaded_multi_mp_sgd_update',
        mp_sgd_update,
        ('weight32',),
        data,
        num_weights,
        out,
        rescale_grad=rescale_grad,
        clip_gradient=clip_gradient,
    )


def preloaded_multi_mp_sgd_mom_update(
    *data,
    momentum=0.0,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    num_weights=1,
    out=None,
    name=None,
):
    """:func:`preloaded_multi_sgd_mom_update` on float32 master copies,
    ``data = weight0, grad0, mom0, weight32_0, weight1, ..., lrs, wds``
    (``mom`` float32)."""
    return _preloaded(
        'preloaded_multi_mp_sgd_mom_update',
        mp_sgd_mom_update,
        ('mom', 'weight32'),
        data,
        num_weights,
        out,
        momentum=momentum,
        rescale_grad=rescale_grad,
        clip_gradient=clip_gradient,
    )


# -- nd.contrib: AdamW on lists of weights ---------------------------------------


def _skipped(weight, *_, out, **__):
    """One weight of a skipped AdamW step (already checked): left as it
    is."""
    return _deliver(weight if out is weight else weight.copy(), out)


def _multi_adamw(
    name, single, arrays, rescale_grad, lrs, wds, etas, size, out, **kw
):
    """The AdamW forms: ``single`` (``adamw_update`` or
    ``mp_adamw_update``) per weight, or nothing but checks when
    ``rescale_grad`` skips the step.  The factor is read once, for all
    the weights."""
    data, count, states = _interleave(name, size, **arrays)
    factor = _rescale_factor(name, rescale_grad)
    return _multi(
        name,
        single if factor is not None else _skipped,
        states,
        data,
        count,
        lrs,
        wds,
        out,
        each={'etas': ('eta', etas)},
        rescale_grad=factor,
        **kw,
    )


def multi_adamw_update(
    weights,
    grads,
    mean,
    var,
    rescale_grad,
    lrs,
    wds,
    etas,
    out=None,
    name=None,
    size=0,
    beta1=0.9,
    beta2=0.999,
    epsilon=1e-8,
    clip_gradient=-1.0,
):
    """AdamW on a list of weights (``nd.contrib.multi_adamw_update``):
    weight ``i`` gets :func:`~dlbook.ndarray.contrib.adamw_update` with
    ``lr=lrs[i]``, ``wd=wds[i]``, ``eta=etas[i]``::

        g = clip(rescale_grad * grad, clip_gradient)
        mean = beta1 * mean + (1 - beta1) * g          (in place)
        var = beta2 * var + (1 - beta2) * g * g        (in place)
        weight -= eta * (lr * mean / (sqrt(var) + epsilon) + wd * weight)

    ``weights``, ``grads``, ``mean``, ``var`` are lists with one array per
    weight (``size`` of them; 0 counts the list).  ``rescale_grad`` (a
    number or a one-element NDArray) is shared; when it is 0 or not
    finite the whole step is skipped: weights and moments are left as
    they are (and copied into ``out``).
    """
    arrays = dict(weights=weights, grads=grads, mean=mean, var=var)
    return _multi_adamw(
        'multi_adamw_update',
        adamw_update,
        arrays,
        rescale_grad,
        lrs,
        wds,
        etas,
        size,
        out,
        beta1=beta1,
        beta2=beta2,
        epsilon=epsilon,
        clip_gradient=clip_gradient,
    )


def multi_mp_adamw_update(
    weights,
    grads,
    mean,
    var,
    weights32,
    rescale_grad,
    lrs,
    wds,
    etas,
    out=None,
    name=None,
    size=0,
    beta1=0.9,
    beta2=0.999,
    epsilon=1e-8,
    clip_gradient=-1.0,
):
    """:func:`multi_adamw_update` on float32 master copies
    (``nd.contrib.multi_mp_adamw_update``): each ``weights32[i]`` is
    updated in place and the returned weight is it cast to the weight's
    dtype; ``mean`` and ``var`` are float32."""
    arrays = dict(
        weights=weights, grads=grads, mean=mean, var=var, weights32=weights32
    )
    return _multi_adamw(
        'multi_mp_adamw_update',
        mp_adamw_update,
        arrays,
        rescale_grad,
        lrs,
        wds,
        etas,
        size,
        out,
        beta1=beta1,
        beta2=beta2,
        epsilon=epsilon,
        clip_gradient=clip_gradient,
    )


#: The operators of ``nd.contrib`` defined here
CONTRIB = {
    'multi_adamw_update': multi_adamw_update,
    'multi_mp_adamw_update': multi_mp_adamw_update,
}
