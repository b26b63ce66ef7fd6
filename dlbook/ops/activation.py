"""Operators: softmax family and activation functions.

``softmax``, ``log_softmax``, ``SoftmaxActivation``, ``Activation`` and
``LeakyReLU`` (with its ``prelu``, ``elu``, ``selu``, ``gelu`` and ``rrelu``
variants), as in MXNet 1.x (src/operator/nn/softmax-inl.h,
src/operator/nn/activation-inl.h, src/operator/leaky_relu-inl.h).

The helpers :func:`stable_softmax` and :func:`stable_log_softmax` are
shared with the other ``nn`` families (``SoftmaxOutput``,
``softmax_cross_entropy``).  ``Activation`` computes nothing itself: it
hands each ``act_type`` to the element-wise operator of ``unary.py`` that
defines it (``sigmoid`` and ``softrelu`` live there too); GELU takes
:func:`erf` from ``special.py``.
"""

import math

from ..backend import on_host
from ..base import DLBookError
from .kernels import Elementwise, Reduction
from .op import Op, normalize_axis, register
from .special import erf
from .unary import (  # noqa: F401
    LogSigmoid,
    Mish,
    Relu,
    Sigmoid,
    SoftReLU,
    Softsign,
    Tanh,
    sigmoid,
    softrelu,
)

# -- numerically stable building blocks -------------------------------------


def stable_softmax(xp, x, axis):
    """``exp(x - max) / sum(exp(x - max))``: the max shift keeps exp <= 1."""
    e = xp.exp(x - x.max(axis=axis, keepdims=True))
    e /= e.sum(axis=axis, keepdims=True)
    return e


def stable_log_softmax(xp, x, axis):
    """``(x - max) - log(sum(exp(x - max)))``, never ``log(softmax)``.

    NumPy stores ``x - max`` once and reuses it; a GPU runs a reduction
    kernel for the log of the sum (:data:`LOG_SUM_EXP`) and one
    elementwise kernel for the result (:data:`LOG_SOFTMAX_OUT`): three
    launches with the max, where the array operations take six.
    """
    top = x.max(axis=axis, keepdims=True)
    if on_host(xp):
        shifted = x - top
        return shifted - xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))
    lse = LOG_SUM_EXP(xp, x, top, axis=(axis,)).reshape(top.shape)
    return LOG_SOFTMAX_OUT(xp, x, top, lse)


def _log_sum_exp_steps(xp, x, top, axis):
    """:data:`LOG_SUM_EXP` in array operations."""
    return xp.log(xp.exp(x - top).sum(axis=axis))


#: ``log(sum(exp(x - top)))`` over ``axis`` (``top``, the max, broadcast
#: against ``x``).
LOG_SUM_EXP = Reduction(
    'dlbook_log_sum_exp',
    'T x, T top',
    'T lse',
    'exp(x - top)',
    'a + b',
    'lse = log(a)',
    '0',
    _log_sum_exp_steps,
)


def _log_softmax_out_steps(xp, x, top, lse):
    """:data:`LOG_SOFTMAX_OUT` in array operations."""
    return (x - top) - lse


#: ``y = (x - top) - lse``: log-softmax from the max and the log-sum-exp.
LOG_SOFTMAX_OUT = Elementwise(
    'dlbook_log_softmax_out',
    'T x, T top, T lse',
    'T y',
    'y = (x - top) - lse;',
    _log_softmax_out_steps,
)


def _log_softmax_grad_steps(xp, dy, y, total):
    """:data:`LOG_SOFTMAX_GRAD` in array operations."""
    return dy - xp.exp(y) * total


#: ``dx = dy - exp(y) * sum(dy)`` (``total`` the sum along the axis,
#: broadcast): the gradient of log-softmax in one pass.
LOG_SOFTMAX_GRAD = Elementwise(
    'dlbook_log_softmax_grad',
    'T dy, T y, T total',
    'T dx',
    'dx = dy - exp(y) * total;',
    _log_softmax_grad_steps,
)


def _length_mask(xp, data, length, axis):
    """Boolean mask, ``True`` where the position along ``axis`` is below
    ``length`` (``length`` has the shape of ``data`` without ``axis``)."""
    steps = xp.arange(data.shape[axis])
    steps = steps.reshape((-1,) + (1,) * (data.ndim - 1 - axis))
    return steps < xp.expand_dims(length.astype('int64'), axis)


# -- softmax family ---------------------------------------------------------


class _SoftmaxBase(Op):
    """Shared attribute handling of ``softmax`` and ``log_softmax``."""

    arguments = ('data', 'length')
    defaults = {
        'axis': -1,
        'temperature': None,
        'dtype': None,
        'use_length': False,
    }

    def list_arguments(self):
        return self.arguments if self.attrs['use_length'] else ('data',)

    def graph_grads(self, F, inputs, dys):
        attrs = self.attrs
        if attrs['use_length'] or attrs['dtype'] is not None:
            return super().graph_grads(F, inputs, dys)  # raises, naming it
        (x,), (dy,) = inputs, dys
        axis = normalize_axis(attrs['axis'], x.ndim, self.name)
        dx = self.grad(F, dy, self.output_again(F, x), axis)
        if attrs['temperature'] is not None:
            dx = dx / float(attrs['temperature'])
        return (dx,)

    def _prepare(self, xp, x, length):
        attrs = self.attrs
        axis = normalize_axis(attrs['axis'], x.ndim, self.name)
        self.in_dtype = x.dtype
        if attrs['dtype'] is not None:
            x = x.astype(attrs['dtype'])
        temperature = attrs['temperature']
        self.temperature = 1.0 if temperature is None else float(temperature)
        if self.temperature != 1.0:
            x = x / self.temperature
        mask = None
        if attrs['use_length']:
            if length is None:
                raise DLBookError(
                    f'{self.name}: use_length=True needs the length input'
                )
            mask = _length_mask(xp, x, length, axis)
        return x, axis, mask


@register('softmax')
class Softmax(_SoftmaxBase):
    """y = exp(x/T - max) / sum(exp(x/T - max)) along ``axis``;
    dx = y * (dy - sum(dy * y, axis)) / T

    With ``use_length=True`` only the first ``length`` entries along
    ``axis`` take part; the others output 0.
    """

    def forward(self, xp, x, length=None):
        x, axis, mask = self._prepare(xp, x, length)
        if mask is None:
            y = stable_softmax(xp, x, axis)
        else:
            top = xp.where(mask, x, -xp.inf).max(axis=axis, keepdims=True)
            top = xp.where(xp.isfinite(top), top, 0)  # length 0: all masked
            e = xp.where(mask, xp.exp(x - top), 0)
            total = e.sum(axis=axis, keepdims=True)
            y = e / xp.where(total == 0, 1, total)
        self.saved = (y, axis)
        return y

    def grad(self, xp, dy, y, axis):
        """``dx`` before the temperature's ``1 / T``."""
        return y * (dy - (dy * y).sum(axis=axis, keepdims=True))

    def backward(self, xp, dy):
        y, axis = self.saved
        dx = self.grad(xp, dy, y, axis)
        if self.temperature != 1.0:
            dx /= self.temperature
        dx = dx.astype(self.in_dtype, copy=False)
        return (dx, None) if self.attrs['use_length'] else dx


@register('softmin')
class Softmin(Softmax):
    """y = softmax(-x) along ``axis``: exp(-x/T - max) / sum(...);
    dx = -y * (dy - sum(dy * y, axis)) / T

    The softmax of the negated input, so the smallest entry gets the
    largest weight; the same attributes as ``softmax``.
    """

    def forward(self, xp, x, length=None):
        return Softmax.forward(self, xp, -x, length)

    def grad(self, xp, dy, y, axis):
        return -Softmax.grad(self, xp, dy, y, axis)


@register('log_softmax')
class LogSoftmax(_SoftmaxBase):
    """y = x/T - max - log(sum(exp(x/T - max))) along ``axis``;
    dx = (dy - exp(y) * sum(dy, axis)) / T
    """

    def forward(self, xp, x, length=None):
        x, axis, mask = self._prepare(xp, x, length)
        if mask is None:
            y = stable_log_softmax(xp, x, axis)
        else:
            top = xp.where(mask, x, -xp.inf).max(axis=axis, keepdims=True)
            top = xp.where(xp.isfinite(top), top, 0)
            shifted = x - top
            total = xp.where(mask, xp.exp(shifted), 0).sum(
                axis=axis, keepdims=True
            )
            y = xp.where(mask, shifted - xp.log(total), 0)
        self.saved = (y, axis, mask)
        return y

    def grad(self, xp, dy, y, axis):
        """``dx`` before the temperature's ``1 / T`` (no length mask)."""
        return _log_softmax_grad_steps(
            xp, dy, y, dy.sum(axis=axis, keepdims=True)
        )

    def backward(self, xp, dy):
        y, axis, mask = self.saved
        if mask is None:
            dx = LOG_SOFTMAX_GRAD(xp, dy, y, dy.sum(axis=axis, keepdims=True))
        else:
            dy = xp.where(mask, dy, 0)
            p = xp.where(mask, xp.exp(y), 0)
            dx = dy - p * dy.sum(axis=axis, keepdims=True)
        if self.temperature != 1.0:
            dx /= self.temperature
        if dx.dtype != self.in_dtype:
            dx = dx.astype(self.in_dtype)
        return (dx, None) if self.attrs['use_length'] else dx


@register('SoftmaxActivation')
class SoftmaxActivation(Op):
    """y = softmax(x) over all axes but 0 (``mode='instance'``) or over
    axis 1 (``mode='channel'``);   dx = y * (dy - sum(dy * y))
    """

    defaults = {'mode': 'instance'}

    def forward(self, xp, x):
        mode = self.attrs['mode']
        if mode == 'instance':
            y = stable_softmax(xp, x.reshape(x.shape[0], -1), 1)
            y = y.reshape(x.shape)
            axes = tuple(range(1, x.ndim))
        elif mode == 'channel':
            if x.ndim < 2:
                raise DLBookError(
                    f'SoftmaxActivation: mode=\'channel\' needs '
                    f'at least 2 dimensions, got {x.shape}'
                )
            axes = 1
            y = stable_softmax(xp, x, axes)
        else:
            raise DLBookError(
                f'SoftmaxActivation: mode must be \'instance\' '
                f'or \'channel\', got {mode!r}'
            )
        self.saved = (y, axes)
        return y

    def backward(self, xp, dy):
        y, axes = self.saved
        return y * (dy - (dy * y).sum(axis=axes, keepdims=True))


# -- Activation -------------------------------------------------------------

#: act_type -> the element-wise operator class that computes it (each
#: activation is defined once, in ``unary.py``)
ACT_TYPES = {
    'relu': Relu,  # y = max(x, 0);          dx = dy * (x > 0)
    'sigmoid': Sigmoid,  # y = 1 / (1 + e^-x);     dx = dy * y * (1 - y)
    'tanh': Tanh,  # y = tanh(x);            dx = dy * (1 - y^2)
    'softrelu': SoftReLU,  # y = log(1 + e^x);       dx = dy * sigmoid(x)
    'softsign': Softsign,  # y = x / (1 + |x|);      dx = dy / (1 + |x|)^2
    'log_sigmoid': LogSigmoid,  # y = log(sigmoid(x));    dx = dy * sigmoid(-x)
    'mish': Mish,  # y = x * tanh(softrelu(x))
}


@register('Activation')
class Activation(Op):
    """y = act(x) for ``act_type`` in relu, sigmoid, tanh, softrelu,
    softsign (and log_sigmoid, mish);   dx = dy * act'(x)

    relu: max(x, 0), dx = dy*(x > 0);  sigmoid: dx = dy*y*(1 - y);
    tanh: dx = dy*(1 - y^2);  softrelu: log(1 + e^x), dx = dy*sigmoid(x);
    softsign: x/(1 + |x|), dx = dy/(1 + |x|)^2.
    """

    defaults = {'act_type': None}

    def forward(self, xp, x):
        act_type = self.attrs['act_type']
        if act_type not in ACT_TYPES:
            raise DLBookError(
                f'Activation: act_type must be one of '
                f'{sorted(ACT_TYPES)}, got {act_type!r}'
            )
        # delegate to the one operator of this activation
        self.inner = ACT_TYPES[act_type]()
        return self.inner.forward(xp, x)

    def backward(self, xp, dy):
        return self.inner.backward(xp, dy)

    def graph_grads(self, F, inputs, dys):
        act_type = self.attrs['act_type']
        if act_type not in GRAPH_ACT_TYPES:
            raise DLBookError(
                f'Activation(act_type={act_type!r}) has no higher-order '
                f'gradient in dlbook; {", ".join(GRAPH_ACT_TYPES)} have'
            )
        (x,), (dy,) = inputs, dys
        inner = ACT_TYPES[act_type]()
        return (inner.grad(F, dy, x, self.output_again(F, x)),)


#: The activations whose derivative is plain arithmetic on ``x`` and
#: ``y``, so that ``nd`` operators can compute (and record) it
GRAPH_ACT_TYPES = ('relu', 'sigmoid', 'tanh', 'softsign')


# -- LeakyReLU --------------------------------------------------------------

# SELU constants (Klambauer et al. 2017), as in MXNet's mshadow_op.h.
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_LAMBDA = 1.0507009873554804934193349852946
_LEAKY_TYPES = ('leaky', 'prelu', 'rrelu', 'elu', 'selu', 'gelu')


@register('LeakyReLU')
class LeakyReLU(Op):
    """Leaky rectifiers; ``a`` is ``slope`` unless said otherwise.

    leaky: y = x if x > 0 else a*x;            dx = dy * (1 if x > 0 else a)
    prelu: as leaky with a learnt ``gamma`` per channel (axis 1);
           dgamma = sum over all axes but 1 of dy * min(x, 0)
    rrelu: training: a ~ U(lower_bound, upper_bound) per element;
           otherwise a = (lower_bound + upper_bound) / 2
    elu:   y = x if x > 0 else a*(e^x - 1);  dx = dy * (1 if x > 0 else y+a)
    selu:  y = lambda*(x if x > 0 else alpha*(e^x - 1));
           dx = dy * lambda * (1 if x > 0 else alpha*e^x)
    gelu:  y = x/2 * (1 + erf(x/sqrt 2));      dx = dy * (Phi(x) + x*phi(x))
    """

    arguments = ('data', 'gamma')
    learned_inputs = ('gamma',)
    defaults = {
        'act_type': 'leaky',
        'slope': 0.25,
        'lower_bound': 0.125,
        'upper_bound': 0.334,
    }

    def __init__(self, **attrs):
        super().__init__(**attrs)
        # Only the randomized variant draws random numbers.
        self.needs_rng = self.attrs['act_type'] == 'rrelu'

    def list_arguments(self):
        if self.attrs['act_type'] == 'prelu':
            return self.arguments
        return ('data',)

    def infer_shape(self, *in_shapes):
        data = in_shapes[0]
        if not is_known_shape(data):
            return list(in_shapes), [None], []
        if self.attrs['act_type'] == 'prelu':
            gamma = in_shapes[1] if len(in_shapes) > 1 else None
            if not is_known_shape(gamma):
                gamma = (data[1],) if len(data) >= 2 else (1,)
            return [tuple(data), tuple(gamma)], [tuple(data)], []
        return [tuple(data)], [tuple(data)], []

    def forward(self, xp, x, gamma=None):
        attrs = self.attrs
        act_type = attrs['act_type']
        slope = float(attrs['slope'])
        positive = x > 0
        self.saved = (x, positive)
        if act_type == 'leaky':
            return xp.where(positive, x, slope * x)
        if act_type == 'prelu':
            if gamma is None:
                raise DLBookError(
                    'LeakyReLU: act_type=\'prelu\' needs the gamma input'
                )
            g = self._broadcast_gamma(x, gamma)
            self.saved = (x, positive, gamma, g)
            return xp.where(positive, x, g * x)
        if act_type == 'rrelu':
            lower, upper = (
                float(attrs['lower_bound']),
                float(attrs['upper_bound']),
            )
            if self.is_train:
                a = self.rng.uniform(lower, upper, size=x.shape)
                a = xp.asarray(a).astype(x.dtype, copy=False)
            else:
                a = (lower + upper) / 2
            self.saved = (x, positive, a)
            return xp.where(positive, x, a * x)
        if act_type == 'elu':
            y = xp.where(positive, x, slope * xp.expm1(xp.minimum(x, 0)))
            self.saved = (x, positive, y)
            return y
        if act_type == 'selu':
            neg = SELU_ALPHA * xp.expm1(xp.minimum(x, 0))
            y = SELU_LAMBDA * xp.where(positive, x, neg)
            self.saved = (x, positive, neg)
            return y
        if act_type == 'gelu':
            cdf = 0.5 * (1 + erf(xp, x * (1 / math.sqrt(2))))
            self.saved = (x, cdf)
            return x * cdf
        raise DLBookError(
            f'LeakyReLU: act_type must be one of '
            f'{list(_LEAKY_TYPES)}, got {act_type!r}'
        )

    def graph_grads(self, F, inputs, dys):
        if self.attrs['act_type'] != 'leaky':
            raise DLBookError(
                f"LeakyReLU(act_type={self.attrs['act_type']!r}) has no "
                f"higher-order gradient in dlbook; act_type='leaky' has"
            )
        (x,), (dy,) = inputs, dys
        slope = float(self.attrs['slope'])
        return (dy * ((x > 0) * (1 - slope) + slope),)

    @staticmethod
    def _broadcast_gamma(x, gamma):
        """Lay a ``(C,)`` (or ``(1,)``) gamma along axis 1 of ``x``."""
        if x.ndim < 2:
            return gamma
        if gamma.size not in (1, x.shape[1]):
            raise DLBookError(
                f'LeakyReLU(prelu): gamma of shape '
                f'{gamma.shape} cannot broadcast over axis 1 of '
                f'data with shape {x.shape}; expected '
                f'({x.shape[1]},) or (1,)'
            )
        return gamma.reshape((1, -1) + (1,) * (x.ndim - 2))

    def backward(self, xp, dy):
        act_type = self.attrs['act_type']
        slope = float(self.attrs['slope'])
        x, positive = self.saved[:2]
        if act_type == 'leaky':
            return xp.where(positive, dy, slope * dy)
        if act_type == 'prelu':
            gamma, g = self.saved[2:]
            dx = xp.where(positive, dy, g * dy)
            dg = xp.where(positive, 0, dy * x)
            if x.ndim >= 2:
                axes = (0,) + tuple(range(2, x.ndim))
                dg = dg.sum(axis=axes)
            if dg.size != gamma.size or gamma.size == 1:
                dg = dg.sum()
            return dx, dg.reshape(gamma.shape).astype(gamma.dtype, copy=False)
        if act_type == 'rrelu':
            a = self.saved[2]
            return xp.where(positive, dy, a * dy)
        if act_type == 'elu':
            y = self.saved[2]
            return xp.where(positive, dy, dy * (y + slope))
        if act_type == 'selu':
            neg = self.saved[2]
            return dy * SELU_LAMBDA * xp.where(positive, 1, neg + SELU_ALPHA)
        # gelu: d/dx [x * Phi(x)] = Phi(x) + x * phi(x)
        x, cdf = self.saved
        pdf = xp.exp(-0.5 * x * x) * (1 / math.sqrt(2 * math.pi))
        return dy * (cdf + x * pdf)


def is_known_shape(shape):
    """A shape is known when it is given and has no 0 (unknown) dimension."""
    return (
        shape is not None and len(shape) > 0 and all(int(n) > 0 for n in shape)
    )
