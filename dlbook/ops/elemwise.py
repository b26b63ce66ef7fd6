"""Element-wise operators: unary math, broadcasting binary ops, scalar ops.

Every class states its forward rule and its gradient rule in the docstring,
one line each, and implements both side by side.  Families share a small
base class so that each operator only writes its formula:

* ``_Unary``: ``y = f(x)``; subclasses define ``f(xp, x)`` and the
  derivative ``df(xp, x, y)``, and the base computes ``dx = dy * df``.
* ``_Binary``: ``z = f(a, b)`` with NumPy broadcasting; subclasses define
  ``f(xp, a, b)`` and ``grads(xp, dz, a, b, z)``; the base sums each
  gradient back to its input's shape with ``unbroadcast``.
* ``_Scalar``: ``y = f(x, s)`` for a Python number ``s`` (``x + 2``).

MXNet rules kept here: results keep the input dtype (a scalar is first cast
to the array's dtype, so ``float32 * 2.5`` stays float32 and ``int32 / 2``
stays int32); comparisons return 0/1 *in the input dtype*, not bool.
"""

import math

from ..base import DLBookError
from . import Op, register, unbroadcast


def keep_dtype(y, dtype):
    """Return ``y`` converted to ``dtype`` (no copy when it already is).

    NumPy turns ``int32 / int32`` or ``sqrt(int32)`` into float64; MXNet
    keeps the input dtype, so results are converted back.
    """
    return y if y.dtype == dtype else y.astype(dtype)


def _broadcastable(shape_a, shape_b):
    return all(m == n or m == 1 or n == 1
               for m, n in zip(shape_a[::-1], shape_b[::-1]))


# ---------------------------------------------------------------------------
# Unary operators
# ---------------------------------------------------------------------------

class _Unary(Op):
    """Base of element-wise ``y = f(x)``;   ``dx = dy * df(x, y)``."""

    def f(self, xp, x):
        raise NotImplementedError(
            f'{type(self).__name__} must define f()')

    def df(self, xp, x, y):
        """Derivative dy/dx, from the input ``x`` and/or the output ``y``."""
        raise NotImplementedError(
            f'{type(self).__name__} must define df()')

    def forward(self, xp, x):
        y = self.f(xp, x)
        if y.dtype != x.dtype:
            y = y.astype(x.dtype)
        self.saved = (x, y)
        return y

    def backward(self, xp, dy):
        x, y = self.saved
        return dy * self.df(xp, x, y)


class _PiecewiseConstant(_Unary):
    """Base of rounding-like ops: the gradient is zero (as in MXNet)."""

    def backward(self, xp, dy):
        return xp.zeros_like(dy)


@register('negative')
class Negative(_Unary):
    """y = -x;   dx = -dy"""

    def f(self, xp, x):
        return -x

    def backward(self, xp, dy):
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
    """y = |x|;   dx = dy * sign(x)"""

    def f(self, xp, x):
        return xp.abs(x)

    def df(self, xp, x, y):
        return xp.sign(x)


@register('sign')
class Sign(_PiecewiseConstant):
    """y = sign(x) in {-1, 0, 1};   dx = 0"""

    def f(self, xp, x):
        return xp.sign(x)


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
    """y = 1 / sqrt(x);   dx = -dy * y**3 / 2"""

    def f(self, xp, x):
        return 1 / xp.sqrt(x)

    def df(self, xp, x, y):
        return -0.5 * y * y * y


@register('cbrt')
class Cbrt(_Unary):
    """y = x**(1/3);   dx = dy / (3 * y**2)"""

    def f(self, xp, x):
        return xp.cbrt(x)

    def df(self, xp, x, y):
        return 1 / (3 * y * y)


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
class Tanh(_Unary):
    """y = tanh(x);   dx = dy * (1 - y**2)"""

    def f(self, xp, x):
        return xp.tanh(x)

    def df(self, xp, x, y):
        return 1 - y * y


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
class Relu(_Unary):
    """y = max(x, 0);   dx = dy where y > 0, else 0"""

    def f(self, xp, x):
        return xp.maximum(x, 0)

    def df(self, xp, x, y):
        return y > 0


@register('sigmoid')
class Sigmoid(_Unary):
    """y = 1 / (1 + exp(-x));   dx = dy * y * (1 - y)"""

    def f(self, xp, x):
        return 1 / (1 + xp.exp(-x))

    def df(self, xp, x, y):
        return y * (1 - y)


@register('softsign')
class Softsign(_Unary):
    """y = x / (1 + |x|);   dx = dy / (1 + |x|)**2"""

    def f(self, xp, x):
        return x / (1 + xp.abs(x))

    def df(self, xp, x, y):
        d = 1 + xp.abs(x)
        return 1 / (d * d)


@register('logical_not')
class LogicalNot(_Unary):
    """y = 1 where x == 0, else 0 (input dtype);   no gradient"""
    differentiable = False

    def f(self, xp, x):
        return x == 0


@register('smooth_l1')
class SmoothL1(_Unary):
    """y = 0.5 (s x)**2 if |x| < 1/s**2 else |x| - 0.5/s**2;
    dx = dy * (s**2 x if |x| < 1/s**2 else sign(x))"""
    defaults = {'scalar': 1.0}

    def f(self, xp, x):
        s2 = float(self.attrs['scalar']) ** 2
        return xp.where(xp.abs(x) < 1 / s2, 0.5 * s2 * x * x,
                        xp.abs(x) - 0.5 / s2)

    def df(self, xp, x, y):
        s2 = float(self.attrs['scalar']) ** 2
        return xp.where(xp.abs(x) < 1 / s2, s2 * x, xp.sign(x))


# ---------------------------------------------------------------------------
# Binary operators with broadcasting
# ---------------------------------------------------------------------------

class _Binary(Op):
    """Base of ``z = f(a, b)`` with NumPy broadcasting.

    ``grads`` returns the gradients at the broadcast shape; ``backward``
    sums them back to each input's shape (``unbroadcast``).
    """
    arguments = ('lhs', 'rhs')
    same_dtype = True

    def f(self, xp, a, b):
        raise NotImplementedError(
            f'{type(self).__name__} must define f()')

    def grads(self, xp, dz, a, b, z):
        raise DLBookError(f'operator {self.name!r} has no gradient rule')

    def forward(self, xp, a, b):
        try:
            z = self.f(xp, a, b)
        except ValueError:
            if not _broadcastable(a.shape, b.shape):
                raise DLBookError(
                    f'{self.name}: shapes {a.shape} and {b.shape} cannot be '
                    f'broadcast together (each axis must match or be 1)'
                ) from None
            raise
        self.saved = (a, b, z)
        return z

    def backward(self, xp, dz):
        a, b, z = self.saved
        da, db = self.grads(xp, dz, a, b, z)
        return unbroadcast(xp, da, a.shape), unbroadcast(xp, db, b.shape)


@register('broadcast_add', 'broadcast_plus', '_plus', '_add', '_Plus')
class BroadcastAdd(_Binary):
    """z = a + b;   da = dz,   db = dz"""

    def f(self, xp, a, b):
        return a + b

    def grads(self, xp, dz, a, b, z):
        return dz, dz


@register('broadcast_sub', 'broadcast_minus', '_minus', '_sub', '_Minus')
class BroadcastSub(_Binary):
    """z = a - b;   da = dz,   db = -dz"""

    def f(self, xp, a, b):
        return a - b

    def grads(self, xp, dz, a, b, z):
        return dz, -dz


@register('broadcast_mul', '_mul', '_Mul')
class BroadcastMul(_Binary):
    """z = a * b;   da = dz * b,   db = dz * a"""

    def f(self, xp, a, b):
        return a * b

    def grads(self, xp, dz, a, b, z):
        return dz * b, dz * a


@register('broadcast_div', '_div', '_Div')
class BroadcastDiv(_Binary):
    """z = a / b;   da = dz / b,   db = -dz * a / b**2 = -da * z"""

    def f(self, xp, a, b):
        return keep_dtype(a / b, a.dtype)

    def grads(self, xp, dz, a, b, z):
        da = dz / b
        return da, -da * z


@register('broadcast_mod', '_mod', '_Mod')
class BroadcastMod(_Binary):
    """z = a mod b (sign of b, as Python's %);   da = dz,
    db = -dz * floor(a / b)"""

    def f(self, xp, a, b):
        return xp.mod(a, b)

    def grads(self, xp, dz, a, b, z):
        return dz, -dz * xp.floor(a / b)


@register('broadcast_power', '_power', '_Power')
class BroadcastPower(_Binary):
    """z = a ** b;   da = dz * b * a**(b - 1),   db = dz * z * ln(a)"""

    def f(self, xp, a, b):
        return xp.power(a, b)

    def grads(self, xp, dz, a, b, z):
        return dz * b * xp.power(a, b - 1), dz * z * xp.log(a)


@register('broadcast_maximum', '_maximum', '_Maximum')
class BroadcastMaximum(_Binary):
    """z = max(a, b);   da = dz where a >= b,   db = dz where a < b"""

    def f(self, xp, a, b):
        return xp.maximum(a, b)

    def grads(self, xp, dz, a, b, z):
        return dz * (a >= b), dz * (a < b)


@register('broadcast_minimum', '_minimum', '_Minimum')
class BroadcastMinimum(_Binary):
    """z = min(a, b);   da = dz where a <= b,   db = dz where a > b"""

    def f(self, xp, a, b):
        return xp.minimum(a, b)

    def grads(self, xp, dz, a, b, z):
        return dz * (a <= b), dz * (a > b)


@register('broadcast_hypot', '_hypot', '_Hypot')
class BroadcastHypot(_Binary):
    """z = sqrt(a**2 + b**2);   da = dz * a / z,   db = dz * b / z"""

    def f(self, xp, a, b):
        return keep_dtype(xp.hypot(a, b), a.dtype)

    def grads(self, xp, dz, a, b, z):
        return dz * a / z, dz * b / z


class _Compare(_Binary):
    """Base of comparisons and logic: 0/1 in the input dtype, no gradient."""
    differentiable = False

    def forward(self, xp, a, b):
        return super().forward(xp, a, b).astype(a.dtype)


@register('broadcast_equal', '_equal')
class BroadcastEqual(_Compare):
    """z = 1 if a == b else 0;   no gradient"""

    def f(self, xp, a, b):
        return a == b


@register('broadcast_not_equal', '_not_equal')
class BroadcastNotEqual(_Compare):
    """z = 1 if a != b else 0;   no gradient"""

    def f(self, xp, a, b):
        return a != b


@register('broadcast_greater', '_greater')
class BroadcastGreater(_Compare):
    """z = 1 if a > b else 0;   no gradient"""

    def f(self, xp, a, b):
        return a > b


@register('broadcast_greater_equal', '_greater_equal')
class BroadcastGreaterEqual(_Compare):
    """z = 1 if a >= b else 0;   no gradient"""

    def f(self, xp, a, b):
        return a >= b


@register('broadcast_lesser', '_lesser')
class BroadcastLesser(_Compare):
    """z = 1 if a < b else 0;   no gradient"""

    def f(self, xp, a, b):
        return a < b


@register('broadcast_lesser_equal', '_lesser_equal')
class BroadcastLesserEqual(_Compare):
    """z = 1 if a <= b else 0;   no gradient"""

    def f(self, xp, a, b):
        return a <= b


@register('broadcast_logical_and', '_logical_and')
class BroadcastLogicalAnd(_Compare):
    """z = 1 if a != 0 and b != 0 else 0;   no gradient"""

    def f(self, xp, a, b):
        return xp.logical_and(a, b)


@register('broadcast_logical_or', '_logical_or')
class BroadcastLogicalOr(_Compare):
    """z = 1 if a != 0 or b != 0 else 0;   no gradient"""

    def f(self, xp, a, b):
        return xp.logical_or(a, b)


@register('broadcast_logical_xor', '_logical_xor')
class BroadcastLogicalXor(_Compare):
    """z = 1 if exactly one of a, b is nonzero else 0;   no gradient"""

    def f(self, xp, a, b):
        return xp.logical_xor(a, b)


# -- equal-shape forms: the same math, but broadcasting is an error --------

class _EqualShapes:
    """Mixin for ``elemwise_*``: both inputs must have the same shape."""

    def forward(self, xp, a, b):
        if a.shape != b.shape:
            raise DLBookError(
                f'{self.name}: lhs shape {a.shape} and rhs shape {b.shape} '
                f'differ; {self.name} needs equal shapes (use broadcast_'
                f'{self.name[len("elemwise_"):]} to broadcast)')
        return super().forward(xp, a, b)


@register('elemwise_add')
class ElemwiseAdd(_EqualShapes, BroadcastAdd):
    """z = a + b, equal shapes;   da = dz,   db = dz"""


@register('elemwise_sub')
class ElemwiseSub(_EqualShapes, BroadcastSub):
    """z = a - b, equal shapes;   da = dz,   db = -dz"""


@register('elemwise_mul')
class ElemwiseMul(_EqualShapes, BroadcastMul):
    """z = a * b, equal shapes;   da = dz * b,   db = dz * a"""


@register('elemwise_div')
class ElemwiseDiv(_EqualShapes, BroadcastDiv):
    """z = a / b, equal shapes;   da = dz / b,   db = -dz * a / b**2"""


# ---------------------------------------------------------------------------
# Operators with a scalar: x + 2, 2 - x, x ** 0.5, x > 0, ...
# ---------------------------------------------------------------------------

class _Scalar(Op):
    """Base of ``y = f(x, s)`` for the number ``s = scalar``.

    ``s`` is cast to ``x.dtype`` first, so a Python float never upcasts a
    float32 array.  ``is_int`` is accepted for MXNet 1.9 symbol files.
    """
    defaults = {'scalar': 1.0, 'is_int': True}

    def f(self, xp, x, s):
        raise NotImplementedError(
            f'{type(self).__name__} must define f()')

    def df(self, xp, x, s, y):
        raise NotImplementedError(
            f'{type(self).__name__} must define df()')

    def forward(self, xp, x):
        s = x.dtype.type(self.attrs['scalar'])
        y = self.f(xp, x, s)
        if y.dtype != x.dtype:
            y = y.astype(x.dtype)
        self.saved = (x, s, y)
        return y

    def backward(self, xp, dy):
        x, s, y = self.saved
        return dy * self.df(xp, x, s, y)


@register('_plus_scalar', '_PlusScalar')
class PlusScalar(_Scalar):
    """y = x + s;   dx = dy"""

    def f(self, xp, x, s):
        return x + s

    def backward(self, xp, dy):
        return dy


@register('_minus_scalar', '_MinusScalar')
class MinusScalar(_Scalar):
    """y = x - s;   dx = dy"""

    def f(self, xp, x, s):
        return x - s

    def backward(self, xp, dy):
        return dy


@register('_rminus_scalar', '_RMinusScalar')
class RMinusScalar(_Scalar):
    """y = s - x;   dx = -dy"""

    def f(self, xp, x, s):
        return s - x

    def backward(self, xp, dy):
        return -dy


@register('_mul_scalar', '_MulScalar')
class MulScalar(_Scalar):
    """y = x * s;   dx = dy * s"""

    def f(self, xp, x, s):
        return x * s

    def df(self, xp, x, s, y):
        return s


@register('_div_scalar', '_DivScalar')
class DivScalar(_Scalar):
    """y = x / s;   dx = dy / s"""

    def f(self, xp, x, s):
        return x / s

    def backward(self, xp, dy):
        return dy / self.saved[1]


@register('_rdiv_scalar', '_RDivScalar')
class RDivScalar(_Scalar):
    """y = s / x;   dx = -dy * s / x**2 = -dy * y / x"""

    def f(self, xp, x, s):
        return s / x

    def df(self, xp, x, s, y):
        return -y / x


@register('_mod_scalar', '_ModScalar')
class ModScalar(_Scalar):
    """y = x mod s (sign of s);   dx = dy"""

    def f(self, xp, x, s):
        return xp.mod(x, s)

    def backward(self, xp, dy):
        return dy


@register('_rmod_scalar', '_RModScalar')
class RModScalar(_Scalar):
    """y = s mod x (sign of x);   dx = -dy * floor(s / x)"""

    def f(self, xp, x, s):
        return xp.mod(s, x)

    def df(self, xp, x, s, y):
        return -xp.floor(s / x)


@register('_power_scalar', '_PowerScalar')
class PowerScalar(_Scalar):
    """y = x ** s;   dx = dy * s * x**(s - 1)"""

    def f(self, xp, x, s):
        return xp.power(x, s)

    def df(self, xp, x, s, y):
        return s * xp.power(x, s - 1)


@register('_rpower_scalar', '_RPowerScalar')
class RPowerScalar(_Scalar):
    """y = s ** x;   dx = dy * y * ln(s)"""

    def f(self, xp, x, s):
        return xp.power(s, x)

    def df(self, xp, x, s, y):
        return y * (math.log(s) if s > 0 else math.nan)


@register('_maximum_scalar', '_MaximumScalar')
class MaximumScalar(_Scalar):
    """y = max(x, s);   dx = dy where x >= s, else 0"""

    def f(self, xp, x, s):
        return xp.maximum(x, s)

    def df(self, xp, x, s, y):
        return x >= s


@register('_minimum_scalar', '_MinimumScalar')
class MinimumScalar(_Scalar):
    """y = min(x, s);   dx = dy where x <= s, else 0"""

    def f(self, xp, x, s):
        return xp.minimum(x, s)

    def df(self, xp, x, s, y):
        return x <= s


@register('_hypot_scalar', '_HypotScalar')
class HypotScalar(_Scalar):
    """y = sqrt(x**2 + s**2);   dx = dy * x / y"""

    def f(self, xp, x, s):
        return xp.hypot(x, s)

    def df(self, xp, x, s, y):
        return x / y


class _CompareScalar(_Scalar):
    """Base of comparisons with a scalar: 0/1 in the input dtype."""
    differentiable = False

    def backward(self, xp, dy):
        raise DLBookError(f'operator {self.name!r} has no gradient rule')


@register('_equal_scalar', '_EqualScalar')
class EqualScalar(_CompareScalar):
    """y = 1 if x == s else 0;   no gradient"""

    def f(self, xp, x, s):
        return x == s


@register('_not_equal_scalar', '_NotEqualScalar')
class NotEqualScalar(_CompareScalar):
    """y = 1 if x != s else 0;   no gradient"""

    def f(self, xp, x, s):
        return x != s


@register('_greater_scalar', '_GreaterScalar')
class GreaterScalar(_CompareScalar):
    """y = 1 if x > s else 0;   no gradient"""

    def f(self, xp, x, s):
        return x > s


@register('_greater_equal_scalar', '_GreaterEqualScalar')
class GreaterEqualScalar(_CompareScalar):
    """y = 1 if x >= s else 0;   no gradient"""

    def f(self, xp, x, s):
        return x >= s


@register('_lesser_scalar', '_LesserScalar')
class LesserScalar(_CompareScalar):
    """y = 1 if x < s else 0;   no gradient"""

    def f(self, xp, x, s):
        return x < s


@register('_lesser_equal_scalar', '_LesserEqualScalar')
class LesserEqualScalar(_CompareScalar):
    """y = 1 if x <= s else 0;   no gradient"""

    def f(self, xp, x, s):
        return x <= s


@register('_logical_and_scalar', '_LogicalAndScalar')
class LogicalAndScalar(_CompareScalar):
    """y = 1 if x != 0 and s != 0 else 0;   no gradient"""

    def f(self, xp, x, s):
        return xp.logical_and(x, s)


@register('_logical_or_scalar', '_LogicalOrScalar')
class LogicalOrScalar(_CompareScalar):
    """y = 1 if x != 0 or s != 0 else 0;   no gradient"""

    def f(self, xp, x, s):
        return xp.logical_or(x, s)


@register('_logical_xor_scalar', '_LogicalXorScalar')
class LogicalXorScalar(_CompareScalar):
    """y = 1 if exactly one of x, s is nonzero else 0;   no gradient"""

    def f(self, xp, x, s):
        return xp.logical_xor(x, s)


# ---------------------------------------------------------------------------
# Clipping, sums of many arrays, casts and copies
# ---------------------------------------------------------------------------

@register('clip')
class Clip(Op):
    """y = min(max(x, a_min), a_max);   dx = dy where a_min < x < a_max"""
    defaults = {'a_min': None, 'a_max': None}

    def forward(self, xp, x):
        a_min, a_max = self.attrs['a_min'], self.attrs['a_max']
        if a_min is None or a_max is None:
            raise DLBookError('clip: both a_min and a_max are required, '
                              'e.g. nd.clip(x, 0, 1)')
        lo, hi = x.dtype.type(a_min), x.dtype.type(a_max)
        self.saved = (x, lo, hi)
        return xp.clip(x, lo, hi)

    def backward(self, xp, dy):
        x, lo, hi = self.saved
        return dy * ((x > lo) & (x < hi))


@register('add_n', 'ElementWiseSum')
class AddN(Op):
    """y = x0 + x1 + ... (equal shapes);   dxi = dy for every i"""
    variadic = True
    defaults = {'num_args': None}

    def forward(self, xp, *arrays):
        if not arrays:
            raise DLBookError('add_n: needs at least one array')
        shapes = [a.shape for a in arrays]
        if any(s != shapes[0] for s in shapes):
            raise DLBookError(f'add_n: all inputs need the same shape, got '
                              f'{", ".join(map(str, shapes))}')
        y = arrays[0].copy()
        for a in arrays[1:]:
            y += a
        self.saved = (len(arrays),)
        return y

    def backward(self, xp, dy):
        return (dy,) * self.saved[0]


@register('Cast', 'cast')
class Cast(Op):
    """y = x converted to dtype;   dx = dy converted back to x's dtype"""
    defaults = {'dtype': None}

    def forward(self, xp, x):
        dtype = self.attrs['dtype']
        if dtype is None:
            raise DLBookError("Cast: the dtype attribute is required, e.g. "
                              "nd.cast(x, dtype='float64')")
        self.saved = (x.dtype,)
        return x.astype(dtype)

    def backward(self, xp, dy):
        return dy.astype(self.saved[0], copy=False)


@register('_copy', 'identity')
class Copy(Op):
    """y = x (a new array);   dx = dy"""

    def forward(self, xp, x):
        return x.copy()

    def backward(self, xp, dy):
        return dy


@register('BlockGrad', 'stop_gradient')
class BlockGrad(Op):
    """y = x (a new array);   dx = 0: gradients stop here"""

    def forward(self, xp, x):
        return x.copy()

    def backward(self, xp, dy):
        return xp.zeros_like(dy)
