"""Comparison and logical operators: results are 0/1, no gradient.

MXNet's legacy operators return comparisons as 0 and 1 *in the input
dtype*, not as booleans: ``(x > 1)`` of a float32 array is float32, so it
can be multiplied or summed straight away (``(y_hat == y).sum()``).  These
operators are piecewise constant, so they have no gradient and the tape
does not record them.

Four families: ``broadcast_*`` between two arrays (with broadcasting),
their equal-shape twins ``_equal``, ``_greater``... (what Symbol
comparisons record, as in MXNet), ``_*_scalar`` against a number
(``x > 0``), and ``logical_not``.
"""

from ..base import DLBookError
from .binary import _Binary, equal_shape_form
from .op import cast_scalar, register
from .scalar import _Scalar
from .unary import _Unary

# -- two arrays, with broadcasting --------------------------------------------


class _Compare(_Binary):
    """Base of comparisons and logic: 0/1 in the input dtype, no gradient."""

    differentiable = False
    needs_values = False

    def forward(self, xp, a, b):
        return super().forward(xp, a, b).astype(a.dtype)

    @classmethod
    def plain(cls):
        if cls.forward is not _Compare.forward:
            return None
        f = cls().f
        return lambda xp, a, b: f(xp, a, b).astype(a.dtype)


@register('broadcast_equal')
class BroadcastEqual(_Compare):
    """z = 1 if a == b else 0;   no gradient"""

    def f(self, xp, a, b):
        return a == b


@register('broadcast_not_equal')
class BroadcastNotEqual(_Compare):
    """z = 1 if a != b else 0;   no gradient"""

    def f(self, xp, a, b):
        return a != b


@register('broadcast_greater')
class BroadcastGreater(_Compare):
    """z = 1 if a > b else 0;   no gradient"""

    def f(self, xp, a, b):
        return a > b


@register('broadcast_greater_equal')
class BroadcastGreaterEqual(_Compare):
    """z = 1 if a >= b else 0;   no gradient"""

    def f(self, xp, a, b):
        return a >= b


@register('broadcast_lesser')
class BroadcastLesser(_Compare):
    """z = 1 if a < b else 0;   no gradient"""

    def f(self, xp, a, b):
        return a < b


@register('broadcast_lesser_equal')
class BroadcastLesserEqual(_Compare):
    """z = 1 if a <= b else 0;   no gradient"""

    def f(self, xp, a, b):
        return a <= b


@register('broadcast_logical_and')
class BroadcastLogicalAnd(_Compare):
    """z = 1 if a != 0 and b != 0 else 0;   no gradient"""

    def f(self, xp, a, b):
        return xp.logical_and(a, b)


@register('broadcast_logical_or')
class BroadcastLogicalOr(_Compare):
    """z = 1 if a != 0 or b != 0 else 0;   no gradient"""

    def f(self, xp, a, b):
        return xp.logical_or(a, b)


@register('broadcast_logical_xor')
class BroadcastLogicalXor(_Compare):
    """z = 1 if exactly one of a, b is nonzero else 0;   no gradient"""

    def f(self, xp, a, b):
        return xp.logical_xor(a, b)


# -- two arrays of equal shape (what Symbol comparisons use) ----------------

ElemwiseEqual = equal_shape_form(BroadcastEqual, '_equal')
ElemwiseNotEqual = equal_shape_form(BroadcastNotEqual, '_not_equal')
ElemwiseGreater = equal_shape_form(BroadcastGreater, '_greater')
ElemwiseGreaterEqual = equal_shape_form(
    BroadcastGreaterEqual, '_greater_equal'
)
ElemwiseLesser = equal_shape_form(BroadcastLesser, '_lesser')
ElemwiseLesserEqual = equal_shape_form(BroadcastLesserEqual, '_lesser_equal')
ElemwiseLogicalAnd = equal_shape_form(BroadcastLogicalAnd, '_logical_and')
ElemwiseLogicalOr = equal_shape_form(BroadcastLogicalOr, '_logical_or')
ElemwiseLogicalXor = equal_shape_form(BroadcastLogicalXor, '_logical_xor')


# -- an array and a scalar ----------------------------------------------------


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


# -- one array ----------------------------------------------------------------


@register('logical_not')
class LogicalNot(_Unary):
    """y = 1 where x == 0, else 0 (input dtype);   no gradient"""

    differentiable = False

    def f(self, xp, x):
        return x == 0


# -- NumPy mode: the same comparisons with bool results ---------------------


def _bool_twin(cls, name):
    """Register a twin of the comparison ``cls`` under MXNet's NumPy-mode
    name, giving ``bool`` results (``x > y`` under ``set_np``)."""
    if issubclass(cls, _Scalar):

        def forward(self, xp, x):
            s = cast_scalar(xp, self.attrs['scalar'], x.dtype)
            return xp.asarray(self.f(xp, x, s))
    else:

        def forward(self, xp, a, b):
            return xp.asarray(_Binary.forward(self, xp, a, b))

    twin = type(
        f'Np{cls.__name__}',
        (cls,),
        {
            'forward': forward,
            '__doc__': cls.__doc__.replace('1 if', 'True if').replace(
                'else 0', 'else False'
            ),
        },
    )
    twin.__module__ = cls.__module__
    return register(name)(twin)


NpEqual = _bool_twin(BroadcastEqual, '_npi_equal')
NpNotEqual = _bool_twin(BroadcastNotEqual, '_npi_not_equal')
NpGreater = _bool_twin(BroadcastGreater, '_npi_greater')
NpGreaterEqual = _bool_twin(BroadcastGreaterEqual, '_npi_greater_equal')
NpLess = _bool_twin(BroadcastLesser, '_npi_less')
NpLessEqual = _bool_twin(BroadcastLesserEqual, '_npi_less_equal')
NpEqualScalar = _bool_twin(EqualScalar, '_npi_equal_scalar')
NpNotEqualScalar = _bool_twin(NotEqualScalar, '_npi_not_equal_scalar')
NpGreaterScalar = _bool_twin(GreaterScalar, '_npi_greater_scalar')
NpGreaterEqualScalar = _bool_twin(
    GreaterEqualScalar, '_npi_greater_equal_scalar'
)
NpLessScalar = _bool_twin(LesserScalar, '_npi_less_scalar')
NpLessEqualScalar = _bool_twin(LesserEqualScalar, '_npi_less_equal_scalar')
