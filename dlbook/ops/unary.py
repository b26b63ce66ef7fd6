"""Element-wise unary operators: ``y = f(x)``.

Every operator here writes only its formula: the base class ``_Unary``
asks a subclass for ``f(xp, x)`` and its derivative ``df(xp, x, y)``, and
computes ``dx = dy * df`` (a few operators with a simpler gradient
override ``backward`` directly).  Rounding functions (``floor``,
``round``...) are piecewise constant, so their gradient is zero, as in
MXNet.

The result keeps the input's dtype: ``sqrt`` of an int32 array is int32,
as in MXNet, where NumPy would return float64.  Comparisons and logic
(``logical_not``) live in ``compare.py``; ``erf`` and ``erfinv`` in
``special.py``.
"""

import math

from ..backend import on_host, overflow_expected
from ..backend.blas_threads import split_passes, too_small_to_split
from ..base import DLBookError
from . import host_loops
from .kernels import Elementwise
from .op import Op, cast_scalar, register


class _Unary(Op):
    """Base of element-wise ``y = f(x)``;   ``dx = dy * df(x, y)``."""

    reads_train_mode = False

    def f(self, xp, x):
        raise NotImplementedError(f'{type(self).__name__} must define f()')

    def df(self, xp, x, y):
        """Derivative dy/dx, from the input ``x`` and/or the output ``y``."""
        raise NotImplementedError(f'{type(self).__name__} must define df()')

    def forward(self, xp, x):
        y = self.f(xp, x)
        if y.dtype != x.dtype:
            y = y.astype(x.dtype)
        self.saved = (x, y)
        return y

    def backward(self, xp, dy):
        x, y = self.saved
        return self.grad(xp, dy, x, y)

    def grad(self, xp, dy, x, y):
        """``dx`` from ``dy``, ``x`` and ``y`` (``xp`` may be the ``nd``
        module: :meth:`graph_grads`)."""
        return dy * self.df(xp, x, y)

    def graph_grads(self, F, inputs, dys):
        (x,), (dy,) = inputs, dys
        return (self.grad(F, dy, x, self.output_again(F, x)),)


class _PiecewiseConstant(_Unary):
    """Base of rounding-like ops: the gradient is zero (as in MXNet)."""

    def grad(self, xp, dy, x, y):
        return xp.zeros_like(dy)


def _filled_by_images(xp, into, passes, *inputs):
    """A new array like the last of ``inputs``, filled by ``into(xp,
    *inputs, out)`` over ranges of images: on threads for large NumPy
    arrays (``passes`` element-wise passes,
    :func:`~dlbook.backend.blas_threads.split_passes`), else in one piece
    (directly: slicing the arrays for one range would cost a small
    array's relu a quarter of its time).  On a GPU ``into(xp, *inputs,
    None)`` returns a new array: one kernel, which allocates its
    result."""
    if not on_host(xp):
        return into(xp, *inputs, None)
    last = inputs[-1]
    out = xp.empty_like(last)
    if too_small_to_split(last.size, passes):
        into(xp, *inputs, out)
    else:

        def images(a, b):
            into(xp, *[x[a:b] for x in inputs], out[a:b])

        split_passes(xp, images, last.shape[0], last.size, passes)
    return out


class _Activation(_Unary):
    """Base of the activations of every network (relu, sigmoid, tanh).

    On float arrays the forward and backward write into one new array
    each, a range of images at a time: ``f_into(xp, x, y)`` and
    ``df_into(xp, y, dy, dx)`` (the same operations as ``f`` and
    ``dy * df``, so the same numbers).  Large NumPy arrays are split over
    a few threads (:func:`~dlbook.backend.blas_threads.split_passes`,
    ``passes`` element-wise passes each way), small ones run in one
    piece; on a GPU the output argument is None and each is one kernel
    that returns a new array.  Other dtypes take ``_Unary``'s rule.
    """

    passes = (1, 1)  # (forward, backward)

    def forward(self, xp, x):
        if x.ndim == 0 or x.dtype.kind != 'f':  # bool, integers: as _Unary
            return super().forward(xp, x)
        y = _filled_by_images(xp, self.f_into, self.passes[0], x)
        self.saved = (x, y)
        return y

    def backward(self, xp, dy):
        x, y = self.saved
        if y.ndim == 0 or y.dtype.kind != 'f' or dy.shape != y.shape:
            return super().backward(xp, dy)
        return self.grad_from_output(xp, y, dy)

    def grad_from_output(self, xp, y, dy):
        """``dx = dy * f'`` from the float output ``y`` alone (relu,
        sigmoid and tanh need no input), into a new array: what backward
        computes, for a fused step that applied ``f`` itself
        (``symbol/fusion.py``)."""
        return _filled_by_images(xp, self.df_into, self.passes[1], y, dy)

    def apply_in_place(self, xp, x):
        """``x = f(x)``, overwriting the float array ``x``: the same
        operations as forward, for a fused step whose own new output
        ``x`` is (a block of images of a convolution's output, while it
        is still in cache)."""
        return self.f_into(xp, x, x)


@register('negative')
class Negative(_Unary):
    """y = -x;   dx = -dy"""

    def f(self, xp, x):
        return -x

    def grad(self, xp, dy, x, y):
        return -dy


@register('reciprocal')
class Reciprocal(_Unary):
    """y = 1 / x;   dx = -dy * y**2"""

    def f(self, xp, x):
        return 1 / x

    def df(self, xp, x, y):
        return -y * y


@register('abs')
class Abs(_Unary):
    """y = |x|;   dx = dy * sign(x)  (0 at NaN, as MXNet's sign)"""

    def f(self, xp, x):
        return xp.abs(x)

    def df(self, xp, x, y):
        return _sign(xp, x)


def _sign(xp, x):
    """-1, 0 or 1; 0 for NaN, where NumPy gives NaN: MXNet's kernel is
    ``x < 0 ? -1 : (x > 0 ? 1 : 0)``.  (``xp`` may be the ``nd`` module.)"""
    s = xp.sign(x)
    return xp.where(s != s, xp.zeros_like(s), s)


@register('sign')
class Sign(_PiecewiseConstant):
    """y = sign(x) in {-1, 0, 1} (0 for NaN, as MXNet);   dx = 0"""

    def f(self, xp, x):
        return _sign(xp, x)


@register('round')
class Round(_PiecewiseConstant):
    """y = x rounded to nearest, halves away from zero (2.5 -> 3);   dx = 0"""

    def f(self, xp, x):
        # xp.round rounds halves to even; MXNet uses C's round().
        t = xp.trunc(x)
        return xp.where(xp.abs(x - t) >= 0.5, t + xp.sign(x), t)


@register('rint')
class Rint(_PiecewiseConstant):
    """y = nearest integer, halves go down (1.5 -> 1, -1.5 -> -2);   dx = 0"""

    def f(self, xp, x):
        # MXNet's rule: floor(x) unless ceil(x) is strictly nearer.
        lo, hi = xp.floor(x), xp.ceil(x)
        return xp.where(x - lo <= hi - x, lo, hi)


@register('ceil')
class Ceil(_PiecewiseConstant):
    """y = ceil(x);   dx = 0"""

    def f(self, xp, x):
        return xp.ceil(x)


@register('floor')
class Floor(_PiecewiseConstant):
    """y = floor(x);   dx = 0"""

    def f(self, xp, x):
        return xp.floor(x)


@register('trunc')
class Trunc(_PiecewiseConstant):
    """y = x rounded toward zero;   dx = 0"""

    def f(self, xp, x):
        return xp.trunc(x)


@register('fix')
class Fix(_PiecewiseConstant):
    """y = x rounded toward zero (same as trunc);   dx = 0"""

    def f(self, xp, x):
        return xp.trunc(x)


@register('square')
class Square(_Unary):
    """y = x**2;   dx = dy * 2 * x"""

    def f(self, xp, x):
        return x * x

    def df(self, xp, x, y):
        return 2 * x


@register('sqrt')
class Sqrt(_Unary):
    """y = sqrt(x);   dx = dy / (2 * y)"""

    def f(self, xp, x):
        return xp.sqrt(x)

    def df(self, xp, x, y):
        return 0.5 / y


@register('rsqrt')
class Rsqrt(_Unary):
    """y = 1 / sqrt(x);   dx = -dy / (2 x sqrt(x))  (= -dy y^3 / 2)

    The derivative is computed from ``x`` as MXNet's kernel does, so it
    rounds the same (and is -inf at -0, as MXNet's)."""

    def f(self, xp, x):
        return 1 / xp.sqrt(x)

    def df(self, xp, x, y):
        return -1 / (2 * x * xp.sqrt(x))


@register('cbrt')
class Cbrt(_Unary):
    """y = x**(1/3);   dx = dy / (3 * y**2)"""

    def f(self, xp, x):
        return xp.cbrt(x)

    def df(self, xp, x, y):
        return 1 / (3 * y * y)


@register('rcbrt')
class Rcbrt(_Unary):
    """y = x**(-1/3);   dx = -dy * y**4 / 3"""

    def f(self, xp, x):
        return 1 / xp.cbrt(x)

    def df(self, xp, x, y):
        return -(y * y) * (y * y) / 3


@register('exp')
class Exp(_Unary):
    """y = exp(x);   dx = dy * y"""

    def f(self, xp, x):
        return xp.exp(x)

    def df(self, xp, x, y):
        return y


@register('expm1')
class Expm1(_Unary):
    """y = exp(x) - 1;   dx = dy * (y + 1)"""

    def f(self, xp, x):
        return xp.expm1(x)

    def df(self, xp, x, y):
        return y + 1


@register('log')
class Log(_Unary):
    """y = ln(x);   dx = dy / x"""

    def f(self, xp, x):
        return xp.log(x)

    def df(self, xp, x, y):
        return 1 / x


@register('log10')
class Log10(_Unary):
    """y = log10(x);   dx = dy / (x * ln 10)"""

    def f(self, xp, x):
        return xp.log10(x)

    def df(self, xp, x, y):
        return 1 / (x * math.log(10))


@register('log2')
class Log2(_Unary):
    """y = log2(x);   dx = dy / (x * ln 2)"""

    def f(self, xp, x):
        return xp.log2(x)

    def df(self, xp, x, y):
        return 1 / (x * math.log(2))


@register('log1p')
class Log1p(_Unary):
    """y = ln(1 + x);   dx = dy / (1 + x)"""

    def f(self, xp, x):
        return xp.log1p(x)

    def df(self, xp, x, y):
        return 1 / (1 + x)


@register('sin')
class Sin(_Unary):
    """y = sin(x);   dx = dy * cos(x)"""

    def f(self, xp, x):
        return xp.sin(x)

    def df(self, xp, x, y):
        return xp.cos(x)


@register('cos')
class Cos(_Unary):
    """y = cos(x);   dx = -dy * sin(x)"""

    def f(self, xp, x):
        return xp.cos(x)

    def df(self, xp, x, y):
        return -xp.sin(x)


@register('tan')
class Tan(_Unary):
    """y = tan(x);   dx = dy * (1 + y**2)"""

    def f(self, xp, x):
        return xp.tan(x)

    def df(self, xp, x, y):
        return 1 + y * y


@register('arcsin')
class Arcsin(_Unary):
    """y = arcsin(x);   dx = dy / sqrt(1 - x**2)"""

    def f(self, xp, x):
        return xp.arcsin(x)

    def df(self, xp, x, y):
        return 1 / xp.sqrt(1 - x * x)


@register('arccos')
class Arccos(_Unary):
    """y = arccos(x);   dx = -dy / sqrt(1 - x**2)"""

    def f(self, xp, x):
        return xp.arccos(x)

    def df(self, xp, x, y):
        return -1 / xp.sqrt(1 - x * x)


@register('arctan')
class Arctan(_Unary):
    """y = arctan(x);   dx = dy / (1 + x**2)"""

    def f(self, xp, x):
        return xp.arctan(x)

    def df(self, xp, x, y):
        return 1 / (1 + x * x)


@register('sinh')
class Sinh(_Unary):
    """y = sinh(x);   dx = dy * cosh(x)"""

    def f(self, xp, x):
        return xp.sinh(x)

    def df(self, xp, x, y):
        return xp.cosh(x)


@register('cosh')
class Cosh(_Unary):
    """y = cosh(x);   dx = dy * sinh(x)"""

    def f(self, xp, x):
        return xp.cosh(x)

    def df(self, xp, x, y):
        return xp.sinh(x)


@register('tanh')
class Tanh(_Activation):
    """y = tanh(x);   dx = dy * (1 - y**2)"""

    passes = (1, 3)

    def f(self, xp, x):
        return xp.tanh(x)

    def df(self, xp, x, y):
        return 1 - y * y

    def f_into(self, xp, x, y):
        return xp.tanh(x, out=y)

    def df_into(self, xp, y, dy, dx):
        return TANH_GRAD(xp, dy, y, dx)


@register('arcsinh')
class Arcsinh(_Unary):
    """y = arcsinh(x);   dx = dy / sqrt(x**2 + 1)"""

    def f(self, xp, x):
        return xp.arcsinh(x)

    def df(self, xp, x, y):
        return 1 / xp.sqrt(x * x + 1)


@register('arccosh')
class Arccosh(_Unary):
    """y = arccosh(x);   dx = dy / sqrt(x**2 - 1)"""

    def f(self, xp, x):
        return xp.arccosh(x)

    def df(self, xp, x, y):
        return 1 / xp.sqrt(x * x - 1)


@register('arctanh')
class Arctanh(_Unary):
    """y = arctanh(x);   dx = dy / (1 - x**2)"""

    def f(self, xp, x):
        return xp.arctanh(x)

    def df(self, xp, x, y):
        return 1 / (1 - x * x)


@register('degrees')
class Degrees(_Unary):
    """y = x * 180 / pi;   dx = dy * 180 / pi"""

    def f(self, xp, x):
        return x * (180 / math.pi)

    def df(self, xp, x, y):
        return 180 / math.pi


@register('radians')
class Radians(_Unary):
    """y = x * pi / 180;   dx = dy * pi / 180"""

    def f(self, xp, x):
        return x * (math.pi / 180)

    def df(self, xp, x, y):
        return math.pi / 180


@register('relu')
class Relu(_Activation):
    """y = max(x, 0);   dx = dy where y > 0, else 0

    The activation of every CNN layer: its backward's mixed
    float-times-boolean product takes about 1 ns per element on one
    thread, hence the threads of :class:`_Activation`.
    """

    def f(self, xp, x):
        return xp.maximum(x, 0)

    def df(self, xp, x, y):
        return y > 0

    def f_into(self, xp, x, y):
        return xp.maximum(x, 0, out=y)

    def df_into(self, xp, y, dy, dx):
        return RELU_GRAD(xp, dy, y, dx)


def _relu_grad_steps(xp, dy, y, dx=None):
    """:data:`RELU_GRAD` with array operations."""
    return xp.multiply(dy, y > 0, out=dx)


#: ``dx = dy * (y > 0)`` in one pass (a comparison and a product
#: otherwise).
RELU_GRAD = Elementwise(
    'dlbook_relu_grad',
    'T dy, T y',
    'T dx',
    'dx = dy * (T)(y > 0);',
    _relu_grad_steps,
    host=host_loops.relu_grad,
)


def _tanh_grad_steps(xp, dy, y, dx=None):
    """:data:`TANH_GRAD` with array operations."""
    slope = xp.multiply(y, y)
    xp.subtract(1, slope, out=slope)
    return xp.multiply(dy, slope, out=dx)


#: ``dx = dy * (1 - y^2)`` in one pass (three operations otherwise).
TANH_GRAD = Elementwise(
    'dlbook_tanh_grad',
    'T dy, T y',
    'T dx',
    'dx = dy * (1 - y * y);',
    _tanh_grad_steps,
    host=host_loops.tanh_grad,
)


def _sigmoid_grad_steps(xp, dy, y, dx=None):
    """:data:`SIGMOID_GRAD` with array operations: ``dy * (y * (1 - y))``,
    as ``_Unary`` computes it."""
    slope = xp.subtract(1, y)
    xp.multiply(y, slope, out=slope)
    return xp.multiply(dy, slope, out=dx)


#: ``dx = dy * y * (1 - y)`` in one pass (three operations otherwise).
SIGMOID_GRAD = Elementwise(
    'dlbook_sigmoid_grad',
    'T dy, T y',
    'T dx',
    'dx = dy * (y * (1 - y));',
    _sigmoid_grad_steps,
    host=host_loops.sigmoid_grad,
)


def _sigmoid_steps(xp, x, y=None):
    """:data:`SIGMOID` with array operations (see :func:`sigmoid`): into
    ``y`` when given, else into a new array.  Four passes, in place.
    float16 is computed in float32, as MXNet's float16 kernels do
    (``exp`` overflows float16 from 11 on), and integers in float64."""
    if x.dtype.kind == 'f' and x.dtype.itemsize >= 4:
        t = xp.empty_like(x) if y is None else y
        xp.negative(x, out=t)
    else:
        t = x.astype(xp.float32 if x.dtype.kind == 'f' else xp.float64)
        xp.negative(t, out=t)
    # exp(-x) is inf below x = -88.7 in float32 (-709.8 in float64), and
    # 1 / (1 + inf) the 0 that MXNet gives too: nothing to warn about
    with overflow_expected():
        xp.exp(t, out=t)
    t += 1
    xp.divide(1, t, out=t)
    if t is y or (y is None and x.dtype.kind != 'f'):
        return t
    if y is None:  # float16
        return t.astype(x.dtype)
    y[...] = t
    return y


#: The sigmoid as one kernel on a GPU (four array operations otherwise).
SIGMOID = Elementwise(
    'dlbook_sigmoid',
    'T x',
    'T y',
    'y = 1 / (1 + exp(-x));',
    _sigmoid_steps,
)


def sigmoid(xp, x):
    """``y = 1 / (1 + exp(-x))``, computed as written, as MXNet does.

    Below ``x = -88.7`` (float32; -709.8 in float64) ``exp(-x)``
    overflows to infinity and ``y`` is exactly 0, silently; the true
    value there is below float32's smallest normal number, and MXNet
    gives the same 0.  Rewriting the formula to avoid the overflow
    (``exp(-|x|)``, two branches and a selection) costs twice the
    passes over the array, which dominate d2l's sigmoid LeNet, and
    rounds differently from MXNet.  This is the one sigmoid of dlbook:
    ``nd.sigmoid``, ``Activation(act_type='sigmoid')``, the RNN gates
    and the losses all call it (:data:`SIGMOID`: one kernel on a GPU;
    on NumPy its four passes split over threads for large arrays, as
    ``relu``'s).
    """
    if x.ndim == 0 or x.dtype.kind != 'f':
        return SIGMOID(xp, x)
    return _filled_by_images(xp, SIGMOID, Sigmoid.passes[0], x)


def softrelu(xp, x):
    """``log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|))`` (no overflow)."""
    return xp.maximum(x, 0) + xp.log1p(xp.exp(-xp.abs(x)))


@register('sigmoid')
class Sigmoid(_Activation):
    """y = 1 / (1 + exp(-x)) (computed by :func:`sigmoid`);
    dx = dy * y * (1 - y)"""

    passes = (4, 3)

    def f(self, xp, x):
        return sigmoid(xp, x)

    def df(self, xp, x, y):
        return y * (1 - y)

    def f_into(self, xp, x, y):
        return SIGMOID(xp, x, y)

    def df_into(self, xp, y, dy, dx):
        return SIGMOID_GRAD(xp, dy, y, dx)


@register('softsign')
class Softsign(_Unary):
    """y = x / (1 + |x|);   dx = dy / (1 + |x|)**2"""

    def f(self, xp, x):
        return x / (1 + xp.abs(x))

    def df(self, xp, x, y):
        d = 1 + xp.abs(x)
        return 1 / (d * d)


# Activations that MXNet offers only through ``Activation(act_type=...)``:
# element-wise ops like the ones above, but not registered under a name.


class SoftReLU(_Unary):
    """y = log(1 + exp(x)) (:func:`softrelu`);   dx = dy * sigmoid(x)"""

    def f(self, xp, x):
        return softrelu(xp, x)

    def df(self, xp, x, y):
        return sigmoid(xp, x)


class LogSigmoid(_Unary):
    """y = log(sigmoid(x)) = -softrelu(-x);   dx = dy * sigmoid(-x)"""

    def f(self, xp, x):
        return -softrelu(xp, -x)

    def df(self, xp, x, y):
        return sigmoid(xp, -x)


class Mish(_Unary):
    """y = x * tanh(softrelu(x));
    dx = dy * (t + x * sigmoid(x) * (1 - t**2)),  t = tanh(softrelu(x))"""

    def f(self, xp, x):
        return x * xp.tanh(softrelu(xp, x))

    def df(self, xp, x, y):
        t = xp.tanh(softrelu(xp, x))
        return t + x * sigmoid(xp, x) * (1 - t * t)


@register('smooth_l1')
class SmoothL1(_Unary):
    """y = 0.5 (s x)**2 if |x| < 1/s**2 else |x| - 0.5/s**2;
    dx = dy * (s**2 x if |x| < 1/s**2 else sign(x))"""

    defaults = {'scalar': 1.0}

    def f(self, xp, x):
        s2 = float(self.attrs['scalar']) ** 2
        return xp.where(
            xp.abs(x) < 1 / s2, 0.5 * s2 * x * x, xp.abs(x) - 0.5 / s2
        )

    def df(self, xp, x, y):
        s2 = float(self.attrs['scalar']) ** 2
        return xp.where(xp.abs(x) < 1 / s2, s2 * x, xp.sign(x))


@register('hard_sigmoid')
class HardSigmoid(_Unary):
    """y = clip(alpha x + beta, 0, 1), a piecewise-linear sigmoid
    (MobileNetV3's);   dx = dy * alpha where 0 < y < 1, else 0"""

    defaults = {'alpha': 0.2, 'beta': 0.5}

    def f(self, xp, x):
        alpha = cast_scalar(xp, float(self.attrs['alpha']), x.dtype)
        beta = cast_scalar(xp, float(self.attrs['beta']), x.dtype)
        return xp.clip(alpha * x + beta, 0, 1)

    def df(self, xp, x, y):
        alpha = cast_scalar(xp, float(self.attrs['alpha']), y.dtype)
        return alpha * ((y > 0) * (y < 1))


# -- clipping -----------------------------------------------------------------


@register('clip')
class Clip(Op):
    """y = min(max(x, a_min), a_max);   dx = dy where a_min <= x <= a_max

    The gradient passes at the bounds themselves and at NaN (MXNet's
    rule: it stops only where ``x < a_min`` or ``x > a_max``).
    """

    defaults = {'a_min': None, 'a_max': None}

    def forward(self, xp, x):
        a_min, a_max = self.attrs['a_min'], self.attrs['a_max']
        if a_min is None or a_max is None:
            raise DLBookError(
                'clip: both a_min and a_max are required, '
                'e.g. nd.clip(x, 0, 1)'
            )
        lo = cast_scalar(xp, a_min, x.dtype)
        hi = cast_scalar(xp, a_max, x.dtype)
        self.saved = (x, lo, hi)
        if a_min > a_max:
            # MXNet tests x > a_max first: with crossed bounds the values
            # above a_max become a_max, all others a_min
            return xp.where(x > hi, hi, xp.where(x < lo, lo, x))
        return xp.clip(x, lo, hi)

    def backward(self, xp, dy):
        x, lo, hi = self.saved
        return dy * ~((x < lo) | (x > hi))
