"""Element-wise operators with a scalar: ``x + 2``, ``2 - x``, ``x ** 0.5``.

``nd`` and ``sym`` arithmetic with a Python number calls these operators:
``x + 2`` is ``_plus_scalar(x, scalar=2)`` and ``2 - x`` is
``_rminus_scalar(x, scalar=2)`` (the ``r`` forms put the scalar on the
left).  The base class ``_Scalar`` casts the scalar to the array's dtype
first, so ``float32 * 2.5`` stays float32 and ``int32 / 2`` stays int32,
as in MXNet.  Comparisons with a scalar live in ``compare.py``.
"""

import math

from .binary import check_int_divisor, mod_or_zero
from .op import Op, cast_scalar, register


class _Scalar(Op):
    """Base of ``y = f(x, s)`` for the number ``s = scalar``.

    ``s`` is cast to ``x.dtype`` first, so a Python float never upcasts a
    float32 array.  ``is_int`` is accepted for MXNet 1.9 symbol files.
    """

    defaults = {'scalar': 1.0, 'is_int': True}
    #: whether the gradient reads x or y (False: only the scalar), so that
    #: autograd's check for in-place writes knows what the op kept
    needs_values = True
    reads_train_mode = False

    def f(self, xp, x, s):
        raise NotImplementedError(f'{type(self).__name__} must define f()')

    def df(self, xp, x, s, y):
        raise NotImplementedError(f'{type(self).__name__} must define df()')

    def forward(self, xp, x):
        y, s = self.value(xp, x, self.attrs['scalar'])
        self.saved = (x, s, y) if self.needs_values else (None, s, None)
        return y

    def value(self, xp, x, scalar):
        """``(y, s)``: ``y = f(x, s)`` in ``x``'s dtype, ``s`` the number
        ``scalar`` cast to that dtype."""
        s = cast_scalar(xp, scalar, x.dtype)
        y = self.f(xp, x, s)
        if y.dtype != x.dtype:
            y = y.astype(x.dtype)
        return y, s

    @classmethod
    def plain(cls):
        if cls.forward is not _Scalar.forward:
            return None
        value = cls().value
        return lambda xp, x, scalar: value(xp, x, scalar)[0]

    def backward(self, xp, dy):
        x, s, y = self.saved
        return self.grad(xp, dy, x, s, y)

    def grad(self, xp, dy, x, s, y):
        """``dx`` from ``dy``, ``x``, ``s`` and ``y`` (``xp`` may be the
        ``nd`` module: :meth:`graph_grads`)."""
        return dy * self.df(xp, x, s, y)

    def graph_grads(self, F, inputs, dys):
        (x,), (dy,) = inputs, dys
        y = self.output_again(F, x) if self.needs_values else None
        return (self.grad(F, dy, x, self.attrs['scalar'], y),)


@register('_plus_scalar', '_PlusScalar')
class PlusScalar(_Scalar):
    """y = x + s;   dx = dy"""

    needs_values = False

    def f(self, xp, x, s):
        return x + s

    def grad(self, xp, dy, x, s, y):
        return dy


@register('_minus_scalar', '_MinusScalar')
class MinusScalar(_Scalar):
    """y = x - s;   dx = dy"""

    needs_values = False

    def f(self, xp, x, s):
        return x - s

    def grad(self, xp, dy, x, s, y):
        return dy


@register('_rminus_scalar', '_RMinusScalar')
class RMinusScalar(_Scalar):
    """y = s - x;   dx = -dy"""

    needs_values = False

    def f(self, xp, x, s):
        return s - x

    def grad(self, xp, dy, x, s, y):
        return -dy


@register('_mul_scalar', '_MulScalar')
class MulScalar(_Scalar):
    """y = x * s;   dx = dy * s"""

    needs_values = False

    def f(self, xp, x, s):
        return x * s

    def df(self, xp, x, s, y):
        return s


@register('_div_scalar', '_DivScalar')
class DivScalar(_Scalar):
    """y = x / s;   dx = dy / s"""

    needs_values = False

    def f(self, xp, x, s):
        check_int_divisor(xp, x, s, self.name)
        return x / s

    def grad(self, xp, dy, x, s, y):
        return dy / s


@register('_rdiv_scalar', '_RDivScalar')
class RDivScalar(_Scalar):
    """y = s / x;   dx = -dy * s / x**2 = -dy * y / x"""

    def f(self, xp, x, s):
        check_int_divisor(xp, x, x, self.name)
        return s / x

    def df(self, xp, x, s, y):
        return -y / x


@register('_mod_scalar', '_ModScalar')
class ModScalar(_Scalar):
    """y = x mod s (sign of s);   dx = dy"""

    def f(self, xp, x, s):
        return mod_or_zero(xp, x, s)

    def grad(self, xp, dy, x, s, y):
        return dy


@register('_rmod_scalar', '_RModScalar')
class RModScalar(_Scalar):
    """y = s mod x (sign of x);   dx = -dy * floor(s / x)"""

    def f(self, xp, x, s):
        return mod_or_zero(xp, s, x)

    def df(self, xp, x, s, y):
        return -xp.floor(s / x)


@register('_power_scalar', '_PowerScalar')
class PowerScalar(_Scalar):
    """y = x ** s;   dx = dy * s * x**(s - 1)"""

    def f(self, xp, x, s):
        return xp.power(x, s)

    def df(self, xp, x, s, y):
        if s == 2:  # x**2, a variance's square: x**1 is x, no power pass
            return s * x
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
