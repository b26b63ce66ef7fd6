"""MXNet's update operators: ``nd.sgd_update``, ``nd.adam_update``, ...

MXNet's optimizers apply one fused operator per weight, and code written
for MXNet calls them directly too::

    nd.sgd_mom_update(weight, grad, mom, lr=0.1, momentum=0.9, wd=1e-4,
                      out=weight)

Each returns the updated weight: a new array, unless ``out`` names one
(``out=weight`` updates the weight itself, as the optimizers do).  The
state arrays (``mom``; Adam's ``mean`` and ``var``; the float32 master
copy ``weight32`` of the ``mp_`` forms) are updated in place, as MXNet's
mutable inputs are.  A ``clip_gradient`` below 0 means no clipping.
With a row_sparse ``grad`` and ``lazy_update=True`` (the default, where
the operator has it) only the rows ``grad`` holds change, weight decay
and state included.

The rules are the optimizers' own (``dlbook/ops/update_rules/``),
written once: on a GPU each call is the rule's one fused kernel.  The
``multi_*`` forms take the arrays interleaved, ``weight0, grad0, [mom0,]
[weight32_0,] weight1, ...``, as MXNet does.

``nd.contrib.adamw_update``, ``mp_adamw_update`` and
``group_adagrad_update`` are here too.  The other update operators, which
share this module's checks and conventions, live next door:

* ``updates_lamb.py``: LAMB's two phases (``nd.lamb_update_phase1``,
  ``phase2``, their ``mp_`` forms) and ``nd.contrib.multi_lamb_update``;
* ``updates_multi.py``: the ``nd.preloaded_multi_*`` forms, whose rates
  come as device arrays, and ``nd.contrib.multi_adamw_update``;
* ``updates_norms.py``: ``nd.multi_sum_sq``, ``nd.multi_lars``,
  ``nd.all_finite`` and ``nd.multi_all_finite``, what LARS and loss
  scaling compute around an update.

These are imperative operators (MXNet's own symbolic forms cannot be
composed with their state inputs); ``sym`` has none.
"""

import numpy

from ..base import DLBookError
from ..ops.update_rules import adam, adaptive, sgd
from .lazy_update import rows_for_update
from .ndarray import NDArray

__all__ = [
    'sgd_update',
    'sgd_mom_update',
    'mp_sgd_update',
    'mp_sgd_mom_update',
    'nag_mom_update',
    'mp_nag_mom_update',
    'signsgd_update',
    'signum_update',
    'adam_update',
    'rmsprop_update',
    'rmspropalex_update',
    'ftml_update',
    'ftrl_update',
    'multi_sgd_update',
    'multi_sgd_mom_update',
    'multi_mp_sgd_update',
    'multi_mp_sgd_mom_update',
]


def _bound(rule, *settings):
    """``rule(xp, weight, grad, *states, *settings)`` (every rule of
    ``ops/update_rules`` has that order) with its settings given: what
    :func:`_update` runs."""
    return lambda xp, w, g, *states: rule(xp, w, g, *states, *settings)


def _required(name, **values):
    for key, value in values.items():
        if value is None:
            raise DLBookError(
                f'{name}: the parameter {key} is required (MXNet has no '
                f'default for it)'
            )


def _check(name, weight, grad, states, grad_name='grad'):
    """Every array an NDArray of the weight's shape and context; the
    weight a floating-point one, grad and the states of its dtype
    (``weight32``, float32, apart).  ``grad_name`` is the gradient's name
    in the messages (``g`` for LAMB's phase 2)."""
    arrays = {'weight': weight, grad_name: grad, **states}
    for key, x in arrays.items():
        if not isinstance(x, NDArray):
            raise DLBookError(
                f'{name}: {key} must be an NDArray, got {type(x).__name__}'
            )
    if numpy.dtype(weight.dtype).kind != 'f':
        raise DLBookError(
            f'{name}: the weight is {numpy.dtype(weight.dtype).name}; the '
            f'update operators take floating-point weights only'
        )
    for key, x in arrays.items():
        if x.shape != weight.shape:
            raise DLBookError(
                f'{name}: {key} has shape {x.shape}, the weight {weight.shape}'
                f'; every array of an update has the weight\'s shape'
            )
        if x.context != weight.context:
            raise DLBookError(
                f'{name}: {key} is on {x.context}, the weight on '
                f'{weight.context}'
            )
        want = numpy.float32 if key == 'weight32' else weight.dtype
        if x.dtype != want:
            raise DLBookError(
                f'{name}: {key} is {numpy.dtype(x.dtype).name}, expected '
                f'{numpy.dtype(want).name}'
            )


def _check_update(name, weight, grad, states, weight32=None):
    """The checks of one weight's update (:func:`_check`); with the
    float32 master copy ``weight32`` of the ``mp_`` forms, the states are
    checked against it (float32 too) rather than against the weight."""
    if weight32 is None:
        _check(name, weight, grad, states)
        return
    _check(name, weight, grad, {'weight32': weight32})
    _check(name, weight32, weight32, states, 'weight32')


def _update(name, rule, weight, grad, states, out, lazy=False):
    """Run ``rule(xp, w, g, *states)`` on a copy of ``weight`` (on
    ``weight`` itself when ``out is weight``); the states in place.

    ``states`` maps names to NDArrays, in the rule's order.
    """
    _check(name, weight, grad, states)
    return _apply(rule, weight, grad, states, out, lazy)


def _apply(rule, weight, grad, states, out, lazy=False):
    """:func:`_update` once the arrays are checked."""
    target = weight if out is weight else weight.copy()
    w, g, raw_states, commit = rows_for_update(
        target, grad, list(states.values()), lazy
    )
    rule(weight.context.backend.xp, w, g, *raw_states)
    if commit is not None:
        commit()
    return _deliver(target, out)


def _deliver(result, out):
    """``result``, or ``result`` written into ``out``."""
    if out is None or out is result:
        return result
    out[:] = result
    return out


def _mixed_precision(name, rule, weight, grad, states, weight32, out, lazy):
    """The ``mp_`` forms: the rule updates the float32 master copy
    ``weight32`` (in place) from the gradient cast to float32; the weight
    returned is that copy cast back to the weight's dtype."""
    _check_update(name, weight, grad, states, weight32)
    grad32 = grad.astype(numpy.float32)
    _apply(rule, weight32, grad32, states, weight32, lazy)
    return _deliver(weight32.astype(weight.dtype), out)


# -- SGD and its relatives ----------------------------------------------------


def sgd_update(
    weight,
    grad,
    lr=None,
    wd=0.0,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    lazy_update=True,
    out=None,
    name=None,
):
    """SGD: ``weight = (1 - lr*wd) * weight - lr * clip(rescale_grad *
    grad, clip_gradient)``."""
    _required('sgd_update', lr=lr)
    rule = _bound(sgd.sgd_update, lr, wd, rescale_grad, clip_gradient)
    return _update('sgd_update', rule, weight, grad, {}, out, lazy_update)


def sgd_mom_update(
    weight,
    grad,
    mom,
    lr=None,
    momentum=0.0,
    wd=0.0,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    lazy_update=True,
    out=None,
    name=None,
):
    """SGD with momentum: ``mom = momentum*mom - lr*wd*weight - lr*g'``
    (``mom`` in place); ``weight += mom``."""
    _required('sgd_mom_update', lr=lr)
    rule = _bound(
        sgd.sgd_mom_update,
        lr,
        wd,
        momentum,
        rescale_grad,
        clip_gradient,
    )
    return _update(
        'sgd_mom_update', rule, weight, grad, {'mom': mom}, out, lazy_update
    )


def mp_sgd_update(
    weight,
    grad,
    weight32,
    lr=None,
    wd=0.0,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    lazy_update=True,
    out=None,
    name=None,
):
    """:func:`sgd_update` on the float32 master copy ``weight32``."""
    _required('mp_sgd_update', lr=lr)
    rule = _bound(sgd.sgd_update, lr, wd, rescale_grad, clip_gradient)
    return _mixed_precision(
        'mp_sgd_update', rule, weight, grad, {}, weight32, out, lazy_update
    )


def mp_sgd_mom_update(
    weight,
    grad,
    mom,
    weight32,
    lr=None,
    momentum=0.0,
    wd=0.0,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    lazy_update=True,
    out=None,
    name=None,
):
    """:func:`sgd_mom_update` on the float32 master copy ``weight32``
    (``mom`` is float32 too)."""
    _required('mp_sgd_mom_update', lr=lr)
    rule = _bound(
        sgd.sgd_mom_update,
        lr,
        wd,
        momentum,
        rescale_grad,
        clip_gradient,
    )
    return _mixed_precision(
        'mp_sgd_mom_update',
        rule,
        weight,
        grad,
        {'mom': mom},
        weight32,
        out,
        lazy_update,
    )


def nag_mom_update(
    weight,
    grad,
    mom,
    lr=None,
    momentum=0.0,
    wd=0.0,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    out=None,
    name=None,
):
    """Nesterov momentum (MXNet's kernel; ``g'`` the rescaled, clipped
    gradient)::

        m0 = momentum * mom
        out = weight - m0 + (1 + momentum) * (m0 - lr * (g' + wd * weight))
        mom = m0 - lr * (g' + wd * weight)

    where the last ``weight`` is ``out`` when ``out`` is ``weight`` (the
    kernel reads it back), as in MXNet."""
    _required('nag_mom_update', lr=lr)
    rule = _bound(
        sgd.nag_mom_update,
        lr,
        wd,
        momentum,
        rescale_grad,
        clip_gradient,
        out is weight,
    )
    return _update('nag_mom_update', rule, weight, grad, {'mom': mom}, out)


def mp_nag_mom_update(
    weight,
    grad,
    mom,
    weight32,
    lr=None,
    momentum=0.0,
    wd=0.0,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    out=None,
    name=None,
):
    """:func:`nag_mom_update` on the float32 master copy ``weight32``."""
    _required('mp_nag_mom_update', lr=lr)
    rule = _bound(
        sgd.nag_mom_update,
        lr,
        wd,
        momentum,
        rescale_grad,
        clip_gradient,
    )
    return _mixed_precision(
        'mp_nag_mom_update',
        rule,
        weight,
        grad,
        {'mom': mom},
        weight32,
        out,
        False,
    )


def signsgd_update(
    weight,
    grad,
    lr=None,
    wd=0.0,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    out=None,
    name=None,
):
    """signSGD: ``weight = (1 - lr*wd) * weight - lr * sign(grad)`` (MXNet
    ignores ``rescale_grad`` and ``clip_gradient`` here)."""
    _required('signsgd_update', lr=lr)
    rule = _bound(sgd.signsgd_update, lr, wd)
    return _update('signsgd_update', rule, weight, grad, {}, out)


def signum_update(
    weight,
    grad,
    mom,
    lr=None,
    momentum=0.0,
    wd=0.0,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    wd_lh=0.0,
    out=None,
    name=None,
):
    """Signum: ``mom = momentum*mom - (1-momentum)*(wd*weight + g')``;
    ``weight = (1 - lr*wd_lh) * weight + lr * sign(mom)``."""
    _required('signum_update', lr=lr)
    rule = _bound(
        sgd.signum_update,
        lr,
        wd,
        momentum,
        wd_lh,
        rescale_grad,
        clip_gradient,
    )
    return _update('signum_update', rule, weight, grad, {'mom': mom}, out)


# -- adaptive rates --------------------------------------------------------------


def adam_update(
    weight,
    grad,
    mean,
    var,
    lr=None,
    beta1=0.9,
    beta2=0.999,
    epsilon=1e-8,
    wd=0.0,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    lazy_update=True,
    out=None,
    name=None,
):
    """Adam (``lr`` already bias-corrected, as MXNet's optimizer passes
    it): ``g = clip(rescale_grad*grad + wd*weight)``; ``mean = beta1*mean
    + (1-beta1)*g``; ``var = beta2*var + (1-beta2)*g*g``; ``weight -= lr
    * mean / (sqrt(var) + epsilon)``."""
    _required('adam_update', lr=lr)
    rule = _bound(
        adam.adam_update,
        lr,
        wd,
        beta1,
        beta2,
        epsilon,
        rescale_grad,
        clip_gradient,
    )
    states = {'mean': mean, 'var': var}
    return _update('adam_update', rule, weight, grad, states, out, lazy_update)


def rmsprop_update(
    weight,
    grad,
    n,
    lr=None,
    gamma1=0.95,
    epsilon=1e-8,
    wd=0.0,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    clip_weights=-1.0,
    out=None,
    name=None,
):
    """RMSProp: ``g = clip(rescale_grad*grad + wd*weight)``; ``n =
    (1-gamma1)*g*g + gamma1*n``; ``weight = clip(weight - lr*g/sqrt(n +
    epsilon), clip_weights)``."""
    _required('rmsprop_update', lr=lr)
    rule = _bound(
        adaptive.rmsprop_update,
        lr,
        wd,
        gamma1,
        epsilon,
        rescale_grad,
        clip_gradient,
        clip_weights,
    )
    return _update('rmsprop_update', rule, weight, grad, {'n': n}, out)


def rmspropalex_update(
    weight,
    grad,
    n,
    g,
    delta,
    lr=None,
    gamma1=0.95,
    gamma2=0.9,
    epsilon=1e-8,
    wd=0.0,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    clip_weights=-1.0,
    out=None,
    name=None,
):
    """Centered RMSProp (Graves 2013): ``n`` and ``g`` the running means of
    ``g'**2`` and ``g'``; ``delta = gamma2*delta - lr*g'/sqrt(n - g**2 +
    epsilon)``; ``weight = clip(weight + delta, clip_weights)``."""
    _required('rmspropalex_update', lr=lr)
    rule = _bound(
        adaptive.rmspropalex_update,
        lr,
        wd,
        gamma1,
        gamma2,
        epsilon,
        rescale_grad,
        clip_gradient,
        clip_weights,
    )
    states = {'n': n, 'g': g, 'delta': delta}
    return _update('rmspropalex_update', rule, weight, grad, states, out)


def ftml_update(
    weight,
    grad,
    d,
    v,
    z,
    lr=None,
    beta1=0.6,
    beta2=0.999,
    epsilon=1e-8,
    t=None,
    wd=0.0,
    rescale_grad=1.0,
    clip_grad=-1.0,
    out=None,
    name=None,
):
    """FTML at step ``t`` (counted from 1): ``d``, ``v`` and ``z`` updated
    in place (``dlbook.ops.update_rules.adam.ftml_update`` has the formulas)."""
    _required('ftml_update', lr=lr, t=t)
    rule = _bound(
        adam.ftml_update,
        lr,
        wd,
        t,
        beta1,
        beta2,
        epsilon,
        rescale_grad,
        clip_grad,
    )
    states = {'d': d, 'v': v, 'z': z}
    return _update('ftml_update', rule, weight, grad, states, out)


def ftrl_update(
    weight,
    grad,
    z,
    n,
    lr=None,
    lamda1=0.01,
    beta=1.0,
    wd=0.0,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    out=None,
    name=None,
):
    """FTRL-proximal: ``z`` and ``n`` updated in place
    (``dlbook.ops.update_rules.adaptive.ftrl_update`` has the formulas)."""
    _required('ftrl_update', lr=lr)
    rule = _bound(
        adaptive.ftrl_update,
        lr,
        wd,
        lamda1,
        beta,
        rescale_grad,
        clip_gradient,
    )
    return _update('ftrl_update', rule, weight, grad, {'z': z, 'n': n}, out)


def _rescale_factor(name, rescale_grad):
    """``rescale_grad`` (a number or a one-element NDArray) as a float,
    or None when it is 0 or not finite: the update is then skipped, as in
    MXNet (whose loss scaling marks an overflowed step that way)."""
    if isinstance(rescale_grad, NDArray):
        if rescale_grad.size != 1:
            raise DLBookError(
                f'{name}: rescale_grad must hold one value, got shape '
                f'{rescale_grad.shape}'
            )
        rescale_grad = rescale_grad.asscalar()
    value = float(rescale_grad)
    return value if numpy.isfinite(value) and value != 0 else None


def adamw_update(
    weight,
    grad,
    mean,
    var,
    rescale_grad=None,
    lr=None,
    eta=None,
    beta1=0.9,
    beta2=0.999,
    epsilon=1e-8,
    wd=0.0,
    clip_gradient=-1.0,
    out=None,
    name=None,
):
    """AdamW (``nd.contrib.adamw_update``): ``g = clip(rescale_grad *
    grad)``; moments as Adam's; ``weight -= eta * (lr * mean /
    (sqrt(var) + epsilon) + wd * weight)``.  A ``rescale_grad`` of 0 or
    not finite skips the update (weight and moments unchanged).  MXNet's
    kernel also leaves the rescaled, clipped gradient in ``grad``; here
    ``grad`` is left as it was, as everywhere in dlbook."""
    _required('adamw_update', rescale_grad=rescale_grad, lr=lr, eta=eta)
    factor = _rescale_factor('adamw_update', rescale_grad)
    if factor is None:
        _check('adamw_update', weight, grad, {'mean': mean, 'var': var})
        return _deliver(weight if out is weight else weight.copy(), out)
    rule = _bound(
        adam.adamw_update,
        lr,
        eta,
        wd,
        beta1,
        beta2,
        epsilon,
        factor,
        clip_gradient,
    )
    states = {'mean': mean, 'var': var}
    return _update('adamw_update', rule, weight, grad, states, out)


def mp_adamw_update(
    weight,
    grad,
    mean,
    var,
    weight32,
    rescale_grad=None,
    lr=None,
    eta=None,
    beta1=0.9,
    beta2=0.999,
    epsilon=1e-8,
    wd=0.0,
    clip_gradient=-1.0,
    out=None,
    name=None,
):
    """:func:`adamw_update` on the float32 master copy ``weight32``
    (``nd.contrib.mp_adamw_update``; ``mean`` and ``var`` float32)."""
    _required('mp_adamw_update', rescale_grad=rescale_grad, lr=lr, eta=eta)
    factor = _rescale_factor('mp_adamw_update', rescale_grad)
    states = {'mean': mean, 'var': var}
    if factor is None:
        _check_update('mp_adamw_update', weight, grad, states, weight32)
        return _deliver(weight if out is weight else weight.copy(), out)
    rule = _bound(
        adam.adamw_update,
        lr,
        eta,
        wd,
        beta1,
        beta2,
        epsilon,
        factor,
        clip_gradient,
    )
    return _mixed_precision(
        'mp_adamw_update', rule, weight, grad, states, weight32, out, False
    )


def group_adagrad_update(
    weight,
    grad,
    history,
    lr=None,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    epsilon=1e-5,
    out=None,
    name=None,
):
    """Group AdaGrad (``nd.contrib.group_adagrad_update``): AdaGrad with
    one adaptive rate per row, for embedding tables::

        g = clip(rescale_grad * grad, clip_gradient)
        history += mean(g**2, axis=1, keepdims=True)
        weight -= lr * g / sqrt(history + epsilon)

    A row is everything but the first axis (``mean`` is over all of
    them); ``history`` holds one value per row, shape ``(rows, 1)`` (as
    MXNet's ``GroupAdaGrad`` optimizer makes it) or ``(rows,)``, and is
    updated in place.  With a row_sparse ``grad`` only its rows change,
    as in MXNet, whose operator takes no other gradient; a dense one
    updates every row (a zero row stays as it is).  There is no weight
    decay.
    """
    _required('group_adagrad_update', lr=lr)
    _check('group_adagrad_update', weight, grad, {})
    if weight.ndim == 0:
        raise DLBookError('group_adagrad_update: the weight needs rows')
    rows = weight.shape[0]
    if not isinstance(history, NDArray):
        raise DLBookError(
            f'group_adagrad_update: history must be an NDArray, got '
            f'{type(history).__name__}'
        )
    if history.ndim == 0 or history.shape[0] != rows or history.size != rows:
        raise DLBookError(
            f'group_adagrad_update: history has shape {history.shape}; it '
            f'needs one value per row of the weight {weight.shape}, shape '
            f'({rows}, 1) or ({rows},)'
        )
    if history.context != weight.context or history.dtype != weight.dtype:
        raise DLBookError(
            f'group_adagrad_update: history is '
            f'{numpy.dtype(history.dtype).name} on {history.context}, the '
            f'weight {numpy.dtype(weight.dtype).name} on {weight.context}'
        )
    rule = _bound(
        adaptive.group_adagrad_update,
        lr,
        epsilon,
        rescale_grad,
        clip_gradient,
    )
    return _apply(rule, weight, grad, {'history': history}, out, lazy=True)


#: The update operators of ``nd.contrib`` defined here
CONTRIB = {
    'adamw_update': adamw_update,
    'mp_adamw_update': mp_adamw_update,
    'group_adagrad_update': group_adagrad_update,
}


# -- several weights per call -----------------------------------------------------


def _outputs(name, out, count):
    """``out`` as one target per weight (None where new arrays are
    made)."""
    if out is None:
        return [None] * count
    targets = [out] if isinstance(out, NDArray) else list(out)
    if len(targets) != count:
        raise DLBookError(
            f'{name}: out needs one array per weight ({count}), '
            f'got {len(targets)}'
        )
    return targets


#: The lists of the several-weight forms of ``nd.contrib`` whose names are
#: plural: what one array of each is called (the others, ``mean`` and
#: ``var``, keep their names)
_ONE_OF = {'weights': 'weight', 'grads': 'grad', 'weights32': 'weight32'}


def _interleave(name, count, **lists):
    """The per-weight lists of ``nd.contrib.multi_lamb_update`` and its
    kin (``weights=[w0, w1]``, ``grads=[g0, g1]``, ...) interleaved as
    :func:`_multi` takes them, ``w0, g0, ..., w1, g1, ...``.

    Returns them, the number of weights (``count``, or when 0 the length
    of the lists, which must agree) and the names of one weight's arrays
    after its gradient, the ``states`` of :func:`_multi` (``('mean',
    'var', 'weight32')`` for ``mean``, ``var`` and ``weights32``).
    """
    for key, arrays in lists.items():
        if isinstance(arrays, NDArray):
            raise DLBookError(
                f'{name}: {key} must be a list of NDArrays, one per weight'
            )
    lists = {key: list(arrays) for key, arrays in lists.items()}
    count = count or len(next(iter(lists.values())))
    for key, arrays in lists.items():
        if len(arrays) != count:
            raise DLBookError(
                f'{name}: {key} holds {len(arrays)} arrays, expected '
                f'{count} (one per weight)'
            )
    data = [a for group in zip(*lists.values()) for a in group]
    states = tuple(_ONE_OF.get(key, key) for key in lists)[2:]
    return data, count, states


def _multi(
    name, single, states, data, num_weights, lrs, wds, out, each=(), **kw
):
    """The ``multi_*`` forms: ``data`` holds, for each weight, the weight,
    its gradient and the arrays named in ``states`` (``('mom',)``,
    ``('mean', 'var', 'weight32')``, ...; a ``weight32`` is the float32
    master copy of the ``mp_`` forms).  Each weight is updated by
    ``single(*its_arrays, lr=lrs[i], wd=wds[i], out=..., **kw)``.

    ``each`` maps further per-weight arguments, by MXNet's name, to the
    keyword ``single`` takes and the values: ``{'etas': ('eta', etas)}``
    gives weight ``i`` ``eta=etas[i]``.  Returns the list of updated
    weights, or ``out`` itself when given, as MXNet does.

    Every input is checked before the first weight changes, as MXNet's
    shape and type inference does for the whole call: a mismatch in the
    third weight must not leave the first two updated and the rest not.
    """
    per_weight = 2 + len(states)
    _check_count(name, num_weights)
    if len(data) != per_weight * num_weights:
        raise DLBookError(
            f'{name}: expected {per_weight} arrays per weight for '
            f'num_weights={num_weights} ({per_weight * num_weights} in all), '
            f'got {len(data)}'
        )
    # MXNet's name of each per-weight list -> single's keyword, the values
    lists = {'lrs': ('lr', lrs), 'wds': ('wd', wds), **dict(each)}
    _required(name, **{key: values for key, (_, values) in lists.items()})
    lists = {
        key: (keyword, tuple(values))
        for key, (keyword, values) in lists.items()
    }
    for key, (_, values) in lists.items():
        if len(values) != num_weights:
            raise DLBookError(
                f'{name}: {key} needs one value per weight '
                f'(num_weights={num_weights}), got {len(values)}'
            )
    targets = _outputs(name, out, num_weights)
    groups = [
        data[i * per_weight : (i + 1) * per_weight] for i in range(num_weights)
    ]
    for i, (arrays, target) in enumerate(zip(groups, targets)):
        given = {key: values[i] for key, (_, values) in lists.items()}
        _check_weight(f'{name} (weight {i})', states, arrays, target, given)
    results = [
        single(
            *arrays,
            out=target,
            **{keyword: values[i] for keyword, values in lists.values()},
            **kw,
        )
        for i, (arrays, target) in enumerate(zip(groups, targets))
    ]
    return results if out is None else out


def _check_count(name, num_weights):
    """``num_weights`` a number of weights: an int, 0 or more."""
    if not isinstance(num_weights, int) or num_weights < 0:
        raise DLBookError(
            f'{name}: num_weights must be a count (an int >= 0), got '
            f'{num_weights!r}'
        )


def _check_weight(name, states, arrays, target, settings):
    """The checks of one weight of :func:`_multi`: its arrays
    (:func:`_check_update`), its settings given (``settings`` maps MXNet's
    list names to this weight's values) and its ``out`` target, None or
    an NDArray of the weight's shape."""
    weight, grad, *rest = arrays
    named = dict(zip(states, rest))
    weight32 = named.pop('weight32', None)
    _check_update(name, weight, grad, named, weight32)
    for key, value in settings.items():
        if value is None:
            raise DLBookError(f'{name}: {key} holds None for it')
    if target is None:
        return
    if not isinstance(target, NDArray) or target.shape != weight.shape:
        got = getattr(target, 'shape', type(target).__name__)
        raise DLBookError(
            f'{name}: out must be an NDArray of the weight\'s shape '
            f'{weight.shape}, got {got}'
        )


def multi_sgd_update(
    *data,
    lrs=None,
    wds=None,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    num_weights=1,
    out=None,
    name=None,
):
    """:func:`sgd_update` of ``num_weights`` weights, ``data`` =
    ``weight0, grad0, weight1, grad1, ...``; returns the list of updated
    weights."""
    return _multi(
        'multi_sgd_update',
        sgd_update,
        (),
        data,
        num_weights,
        lrs,
        wds,
        out,
        lazy_update=False,  # MXNet's multi_ forms are dense
        rescale_grad=rescale_grad,
        clip_gradient=clip_gradient,
    )


def multi_sgd_mom_update(
    *data,
    lrs=None,
    wds=None,
    momentum=0.0,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    num_weights=1,
    out=None,
    name=None,
):
    """:func:`sgd_mom_update` of ``num_weights`` weights, ``data`` =
    ``weight0, grad0, mom0, weight1, ...``."""
    return _multi(
        'multi_sgd_mom_update',
        sgd_mom_update,
        ('mom',),
        data,
        num_weights,
        lrs,
        wds,
        out,
        momentum=momentum,
        lazy_update=False,  # MXNet's multi_ forms are dense
        rescale_grad=rescale_grad,
        clip_gradient=clip_gradient,
    )


def multi_mp_sgd_update(
    *data,
    lrs=None,
    wds=None,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    num_weights=1,
    out=None,
    name=None,
):
    """:func:`mp_sgd_update` of ``num_weights`` weights, ``data`` =
    ``weight0, grad0, weight32_0, weight1, ...``."""
    return _multi(
        'multi_mp_sgd_update',
        mp_sgd_update,
        ('weight32',),
        data,
        num_weights,
        lrs,
        wds,
        out,
        lazy_update=False,  # MXNet's multi_ forms are dense
        rescale_grad=rescale_grad,
        clip_gradient=clip_gradient,
    )


def multi_mp_sgd_mom_update(
    *data,
    lrs=None,
    wds=None,
    momentum=0.0,
    rescale_grad=1.0,
    clip_gradient=-1.0,
    num_weights=1,
    out=None,
    name=None,
):
    """:func:`mp_sgd_mom_update` of ``num_weights`` weights, ``data`` =
    ``weight0, grad0, mom0, weight32_0, weight1, ...``."""
    return _multi(
        'multi_mp_sgd_mom_update',
        mp_sgd_mom_update,
        ('mom', 'weight32'),
        data,
        num_weights,
        lrs,
        wds,
        out,
        momentum=momentum,
        lazy_update=False,  # MXNet's multi_ forms are dense
        rescale_grad=rescale_grad,
        clip_gradient=clip_gradient,
    )
