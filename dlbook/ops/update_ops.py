"""MXNet's update operators as graph nodes: ``sym.sgd_update``, ...

In MXNet an update operator is a graph node whose optimizer states are
mutable inputs, listed as the graph's *auxiliary states*
(``sym.sgd_mom_update(weight=w, grad=g, mom=m, lr=0.1)``:
``list_arguments() == ['w', 'g']``, ``list_auxiliary_states() ==
['m']``); running the node returns the new weight and updates the states
in place.  These classes are those nodes.  They run the optimizers' own
rules (``dlbook/ops/update_rules/``), as ``nd.sgd_update`` & co.
(``dlbook/ndarray/updates*.py``, Python functions that keep the
imperative conventions: ``out=``, row_sparse lazy updates) do, so each
rule is written once.

The weight argument is not changed: the node returns an updated copy
(MXNet writes into the weight only when the graph's output *is* the
weight, which a bound graph never arranges).  The states, being aux
states, are updated in place, so a second ``forward`` continues from the
first, as in MXNet.  No gradient flows through an update.

Not offered as nodes: the ``multi_*``/``preloaded_multi_*`` forms (their
states are interleaved with the arguments, ``weight0, grad0, mom0,
weight1, ...``, which dlbook's nodes, arguments first and aux states
after, cannot list in MXNet's order) and ``mp_lamb_update_phase1`` (its
``weight32`` argument follows its aux states ``mean`` and ``var`` in
MXNet's input order, for the same reason).
"""

from ..base import DLBookError
from .op import Op, register
from .update_rules import adam, adaptive, lamb, norms, sgd

__all__ = ['UpdateOp']

_GRAD = {'rescale_grad': 1.0, 'clip_gradient': -1.0}


class UpdateOp(Op):
    """One weight's update: ``forward(xp, weight, grad, *states)`` returns
    the new weight; the states (aux) change in place.

    ``rule`` is the update rule, ``settings`` the attributes it takes after
    the arrays, in its order; ``required`` those MXNet has no default
    for; ``mixed`` marks the ``mp_`` forms, whose last state is the
    float32 master copy ``weight32`` the rule updates (from the gradient
    cast to float32) before the weight is cast back from it.
    """

    arguments = ('weight', 'grad')
    differentiable = False
    reads_train_mode = False
    rule = None
    settings = ()
    required = ('lr',)
    mixed = False

    def forward(self, xp, weight, grad, *states):
        attrs = self.attrs
        for key in self.required:
            if attrs[key] is None:
                raise DLBookError(
                    f'{self.name}: the parameter {key} is required (MXNet '
                    f'has no default for it)'
                )
        values = [attrs[k] for k in self.settings]
        for x in (grad,) + states:
            if x.shape != weight.shape:
                raise DLBookError(
                    f'{self.name}: an input has shape {x.shape}, the weight '
                    f'{weight.shape}; every array of an update has the '
                    f"weight's shape"
                )
        if self.mixed:
            *states, weight32 = states
            grad32 = grad.astype('float32')
            type(self).rule(xp, weight32, grad32, *states, *values)
            return weight32.astype(weight.dtype)
        new = weight.copy()
        type(self).rule(xp, new, grad, *states, *values)
        return new


def _update_op(name, rule, aux, settings, doc, mixed=False, **defaults):
    """Register the node class ``name`` running ``rule``."""
    attrs = dict(defaults)
    cls = type(
        f'_{name}',
        (UpdateOp,),
        {
            'rule': staticmethod(rule),
            'aux_states': tuple(aux) + (('weight32',) if mixed else ()),
            'settings': tuple(settings),
            'defaults': attrs,
            'mixed': mixed,
            '__doc__': doc,
            '__module__': __name__,
        },
    )
    return register(name)(cls)


def _nag(xp, weight, grad, mom, lr, wd, momentum, rescale_grad, clip):
    sgd.nag_mom_update(
        xp, weight, grad, mom, lr, wd, momentum, rescale_grad, clip, False
    )


_SGD = ('lr', 'wd', 'rescale_grad', 'clip_gradient')
_MOM = ('lr', 'wd', 'momentum', 'rescale_grad', 'clip_gradient')
for _prefix, _mixed in (('', False), ('mp_', True)):
    _update_op(
        f'{_prefix}sgd_update',
        sgd.sgd_update,
        (),
        _SGD,
        'SGD: ``weight - lr * (clip(rescale_grad * grad) + wd * weight)``.',
        _mixed,
        lr=None,
        wd=0.0,
        lazy_update=True,
        **_GRAD,
    )
    _update_op(
        f'{_prefix}sgd_mom_update',
        sgd.sgd_mom_update,
        ('mom',),
        _MOM,
        'SGD with momentum: ``mom = momentum*mom - lr*(wd*weight + g)``'
        ' (aux, in place); the new weight is ``weight + mom``.',
        _mixed,
        lr=None,
        momentum=0.0,
        wd=0.0,
        lazy_update=True,
        **_GRAD,
    )
    _update_op(
        f'{_prefix}nag_mom_update',
        _nag,
        ('mom',),
        _MOM,
        "Nesterov momentum (``nd.nag_mom_update``'s formulas).",
        _mixed,
        lr=None,
        momentum=0.0,
        wd=0.0,
        **_GRAD,
    )

_update_op(
    'signsgd_update',
    sgd.signsgd_update,
    (),
    ('lr', 'wd'),
    'signSGD: ``(1 - lr*wd) * weight - lr * sign(grad)``.',
    lr=None,
    wd=0.0,
    **_GRAD,
)
_update_op(
    'signum_update',
    sgd.signum_update,
    ('mom',),
    ('lr', 'wd', 'momentum', 'wd_lh', 'rescale_grad', 'clip_gradient'),
    "Signum (``nd.signum_update``'s formulas); ``mom`` in place.",
    lr=None,
    momentum=0.0,
    wd=0.0,
    wd_lh=0.0,
    **_GRAD,
)
_update_op(
    'adam_update',
    adam.adam_update,
    ('mean', 'var'),
    (
        'lr',
        'wd',
        'beta1',
        'beta2',
        'epsilon',
        'rescale_grad',
        'clip_gradient',
    ),
    'Adam (``lr`` already bias-corrected); ``mean`` and ``var`` in place.',
    lr=None,
    beta1=0.9,
    beta2=0.999,
    epsilon=1e-8,
    wd=0.0,
    lazy_update=True,
    **_GRAD,
)
_update_op(
    'rmsprop_update',
    adaptive.rmsprop_update,
    ('n',),
    (
        'lr',
        'wd',
        'gamma1',
        'epsilon',
        'rescale_grad',
        'clip_gradient',
        'clip_weights',
    ),
    'RMSProp; ``n`` in place.',
    lr=None,
    gamma1=0.95,
    epsilon=1e-8,
    wd=0.0,
    clip_weights=-1.0,
    **_GRAD,
)
_update_op(
    'rmspropalex_update',
    adaptive.rmspropalex_update,
    ('n', 'g', 'delta'),
    (
        'lr',
        'wd',
        'gamma1',
        'gamma2',
        'epsilon',
        'rescale_grad',
        'clip_gradient',
        'clip_weights',
    ),
    'Centred RMSProp; ``n``, ``g`` and ``delta`` in place.',
    lr=None,
    gamma1=0.95,
    gamma2=0.9,
    epsilon=1e-8,
    wd=0.0,
    clip_weights=-1.0,
    **_GRAD,
)
_ftml = _update_op(
    'ftml_update',
    adam.ftml_update,
    ('d', 'v', 'z'),
    (
        'lr',
        'wd',
        't',
        'beta1',
        'beta2',
        'epsilon',
        'rescale_grad',
        'clip_grad',
    ),
    'FTML at step ``t``; ``d``, ``v`` and ``z`` in place.',
    lr=None,
    beta1=0.6,
    beta2=0.999,
    epsilon=1e-8,
    t=None,
    wd=0.0,
    rescale_grad=1.0,
    clip_grad=-1.0,
)
_ftml.required = ('lr', 't')
_update_op(
    'ftrl_update',
    adaptive.ftrl_update,
    ('z', 'n'),
    ('lr', 'wd', 'lamda1', 'beta', 'rescale_grad', 'clip_gradient'),
    'FTRL-proximal; ``z`` and ``n`` in place.',
    lr=None,
    lamda1=0.01,
    beta=1.0,
    wd=0.0,
    **_GRAD,
)


@register('lamb_update_phase1')
class LambPhase1(Op):
    """LAMB's phase 1: ``mean`` and ``var`` (aux) in place; the output is
    the direction ``g`` (``nd.lamb_update_phase1``'s formulas)."""

    arguments = ('weight', 'grad')
    aux_states = ('mean', 'var')
    differentiable = False
    reads_train_mode = False
    defaults = {
        'beta1': 0.9,
        'beta2': 0.999,
        'epsilon': 1e-6,
        't': None,
        'bias_correction': True,
        'wd': None,
        **_GRAD,
    }

    def forward(self, xp, weight, grad, mean, var):
        a = self.attrs
        if a['t'] is None or a['wd'] is None:
            raise DLBookError(
                'lamb_update_phase1: the parameters t and wd are required'
            )
        return lamb.lamb_phase1(
            xp,
            weight,
            grad.astype(weight.dtype, copy=False),
            mean,
            var,
            a['wd'],
            a['t'],
            a['beta1'],
            a['beta2'],
            a['epsilon'],
            a['bias_correction'],
            a['rescale_grad'],
            a['clip_gradient'],
        )


@register('lamb_update_phase2')
class LambPhase2(Op):
    """LAMB's phase 2: ``weight - lr * r1 / r2 * g`` (``r1`` clipped to the
    bounds; ``weight - lr * g`` when ``r1`` or ``r2`` is 0)."""

    arguments = ('weight', 'g', 'r1', 'r2')
    differentiable = False
    reads_train_mode = False
    defaults = {'lr': None, 'lower_bound': -1.0, 'upper_bound': -1.0}

    def forward(self, xp, weight, g, r1, r2):
        a = self.attrs
        if a['lr'] is None:
            raise DLBookError(
                'lamb_update_phase2: the parameter lr is required'
            )
        new = weight.copy()
        lamb.lamb_phase2(
            xp, new, g, r1, r2, a['lr'], a['lower_bound'], a['upper_bound']
        )
        return new


class _Counted(Op):
    """Operators over ``num_arrays`` arrays."""

    variadic = True
    differentiable = False
    reads_train_mode = False

    def list_arguments(self):
        count = self.attrs.get('num_arrays') or 0
        return tuple(f'array{i}' for i in range(count))


@register('multi_sum_sq')
class MultiSumSq(_Counted):
    """The sum of squares of each array, a float32 ``(num_arrays,)``."""

    defaults = {'num_arrays': None}

    def forward(self, xp, *data):
        sums = [norms.sum_of_squares(xp, x) for x in data]
        return xp.stack(sums).astype('float32', copy=False)


@register('multi_all_finite')
class MultiAllFinite(_Counted):
    """``[1.]`` if every element of every array is finite, else ``[0.]``.
    ``init_output`` is accepted; a graph output has no earlier value to
    keep, so the check always starts from 1."""

    defaults = {'num_arrays': 1, 'init_output': True}

    def forward(self, xp, *data):
        return norms.all_finite(xp, list(data)).astype('float32').reshape(1)


@register('all_finite')
class AllFinite(Op):
    """``[1.]`` if every element of ``data`` is finite, else ``[0.]``
    (``init_output`` as for ``multi_all_finite``)."""

    differentiable = False
    reads_train_mode = False
    defaults = {'init_output': True}

    def forward(self, xp, data):
        return norms.all_finite(xp, [data]).astype('float32').reshape(1)


@register('multi_lars')
class MultiLars(Op):
    """LARS's rate per layer, ``lr * eta * ||w|| / (||g|| * rescale_grad +
    wd * ||w|| + eps)`` (``lr`` where a norm is 0)."""

    arguments = ('lrs', 'weights_sum_sq', 'grads_sum_sq', 'wds')
    differentiable = False
    reads_train_mode = False
    defaults = {'eta': None, 'eps': None, 'rescale_grad': 1.0}

    def forward(self, xp, lrs, wss, gss, wds):
        a = self.attrs
        if a['eta'] is None or a['eps'] is None:
            raise DLBookError(
                'multi_lars: the parameters eta and eps are required'
            )
        return norms.lars_rates(
            xp, lrs, wss, gss, wds, a['eta'], a['eps'], a['rescale_grad']
        )
