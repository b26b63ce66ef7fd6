"""Element-wise binary operators: ``z = f(a, b)`` with broadcasting.

``broadcast_add``, ``broadcast_mul``... follow NumPy's broadcasting rules
(each axis must match or be 1, missing leading axes count as 1); their
equal-shape twins (``elemwise_add``, ``_maximum``...) do the same math but
require equal shapes, and ``add_n`` sums any number of equal-shaped
arrays.  As in MXNet, the Python operators ``+ - * / % **`` call the
``broadcast_*`` forms on NDArrays and the equal-shape forms on Symbols.

The gradient of a broadcast input is the gradient at the broadcast shape
summed back to the input's shape (``unbroadcast``): if ``b`` of shape
``(1, 4)`` was added to every row of a ``(3, 4)`` array, each element of
``b`` received three contributions.

MXNet does not promote dtypes: both inputs must share one dtype, and the
result keeps it (``int32 / int32`` stays int32).  Comparisons and logic
with broadcasting live in ``compare.py``.
"""

from ..base import DLBookError
from .op import Op, keep_dtype, register, unbroadcast

#: ``saved`` of an operator whose gradient reads none of ``a, b, z``
_NO_VALUES = (None, None, None)


def _broadcastable(shape_a, shape_b):
    return all(
        m == n or m == 1 or n == 1
        for m, n in zip(shape_a[::-1], shape_b[::-1])
    )


class _Binary(Op):
    """Base of ``z = f(a, b)`` with NumPy broadcasting.

    ``grads`` returns the gradients at the broadcast shape; ``backward``
    sums them back to each input's shape (``unbroadcast``).
    """

    arguments = ('lhs', 'rhs')
    same_dtype = True
    reads_train_mode = False
    #: whether ``grads`` reads ``a``, ``b`` or ``z``.  False (``+``, ``-``,
    #: comparisons) keeps only the two shapes: the output array is not
    #: held for ``backward``, and writing into an input after the operator
    #: ran is harmless (autograd's check for in-place writes knows that).
    needs_values = True

    def f(self, xp, a, b):
        raise NotImplementedError(f'{type(self).__name__} must define f()')

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
        # What backward needs is kept in as few new objects as possible:
        # each one outlives the operator call until backward, and
        # Python's garbage collector visits it meanwhile.  Equal shapes,
        # the common case, need no reduction, so no shapes are kept; an
        # operator that reads no values keeps one shared tuple.
        if self.needs_values:  # else the class's empty saved tuple
            self.saved = (a, b, z)
        a_shape = a.shape
        b_shape = b.shape
        if a_shape != b_shape:
            self.input_shapes = (a_shape, b_shape)
        elif self.input_shapes is not None:  # a graph's node run again
            self.input_shapes = None
        return z

    #: ``(a.shape, b.shape)`` when they differ (set by ``forward``)
    input_shapes = None
    #: what ``backward`` reads, ``(a, b, z)`` (set by ``forward`` where
    #: ``needs_values``)
    saved = _NO_VALUES

    @classmethod
    def plain(cls):
        # ``f`` is forward's value where forward is this one
        return cls().f if cls.forward is _Binary.forward else None

    def graph_grads(self, F, inputs, dys):
        a, b = inputs
        z = self.output_again(F, a, b) if self.needs_values else None
        da, db = self.grads(F, dys[0], a, b, z)
        return unbroadcast(F, da, a.shape), unbroadcast(F, db, b.shape)

    def backward(self, xp, dz):
        da, db = self.grads(xp, dz, *self.saved)
        shapes = self.input_shapes
        if shapes is not None:  # broadcast: sum back to each input's shape
            a_shape, b_shape = shapes
            if da.shape != a_shape:
                da = unbroadcast(xp, da, a_shape)
            if db.shape != b_shape:
                db = unbroadcast(xp, db, b_shape)
        return da, db


@register('broadcast_add', 'broadcast_plus')
class BroadcastAdd(_Binary):
    """z = a + b;   da = dz,   db = dz"""

    needs_values = False

    def f(self, xp, a, b):
        return a + b

    def grads(self, xp, dz, a, b, z):
        return dz, dz


@register('broadcast_sub', 'broadcast_minus')
class BroadcastSub(_Binary):
    """z = a - b;   da = dz,   db = -dz"""

    needs_values = False

    def f(self, xp, a, b):
        return a - b

    def grads(self, xp, dz, a, b, z):
        return dz, -dz


@register('broadcast_mul')
class BroadcastMul(_Binary):
    """z = a * b;   da = dz * b,   db = dz * a"""

    def f(self, xp, a, b):
        return a * b

    def grads(self, xp, dz, a, b, z):
        return dz * b, dz * a


class IntegerDivisionByZero(DLBookError, ZeroDivisionError):
    """An integer array divided by zero.

    An integer result has no inf or nan to hold ``1 / 0``: NumPy would
    give a garbage value (-2147483648 for int32) with a warning, and MXNet
    1.9.1 kills the process with SIGFPE.  dlbook raises this error (also a
    ``ZeroDivisionError``).  Divide float arrays to get ``inf``.
    """


def check_int_divisor(xp, x, divisor, op_name):
    """Raise :class:`IntegerDivisionByZero` when integer ``x`` would be
    divided by a zero in ``divisor`` (an array or a number)."""
    if x.dtype.kind in 'iub' and not xp.all(divisor):
        raise IntegerDivisionByZero(
            f'{op_name}: integer division by zero ({x.dtype} values); '
            f'an integer result cannot hold inf. Cast to float first '
            f"(x.astype('float32')) or make sure the divisor has no zero"
        )


@register('broadcast_div')
class BroadcastDiv(_Binary):
    """z = a / b;   da = dz / b,   db = -dz * a / b**2 = -da * z

    Integer arrays raise :class:`IntegerDivisionByZero` for a zero in
    ``b``."""

    def f(self, xp, a, b):
        check_int_divisor(xp, a, b, self.name)
        return keep_dtype(a / b, a.dtype)

    def grads(self, xp, dz, a, b, z):
        da = dz / b
        return da, -da * z


def mod_or_zero(xp, a, b):
    """a mod b with the sign of b, and 0 where b == 0 (MXNet's ``mod``
    functor; floating NumPy gives NaN there).  ``a`` or ``b`` may be a
    Python number (the scalar operators)."""
    z = xp.mod(a, b)
    if z.dtype.kind != 'f':
        return z  # integer mod by 0 is already 0
    if isinstance(b, (int, float)):
        return z if b != 0 else xp.zeros_like(z)
    return xp.where(b == 0, xp.zeros((), dtype=z.dtype), z)


@register('broadcast_mod')
class BroadcastMod(_Binary):
    """z = a mod b (sign of b, as Python's %);   da = dz,
    db = -dz * floor(a / b)"""

    def f(self, xp, a, b):
        return mod_or_zero(xp, a, b)

    def grads(self, xp, dz, a, b, z):
        return dz, -dz * xp.floor(a / b)


@register('broadcast_power')
class BroadcastPower(_Binary):
    """z = a ** b;   da = dz * b * a**(b - 1),   db = dz * z * ln(a)"""

    def f(self, xp, a, b):
        return xp.power(a, b)

    def grads(self, xp, dz, a, b, z):
        return dz * b * xp.power(a, b - 1), dz * z * xp.log(a)


@register('broadcast_maximum')
class BroadcastMaximum(_Binary):
    """z = max(a, b);   da = dz where a >= b,   db = dz where a < b"""

    def f(self, xp, a, b):
        return xp.maximum(a, b)

    def grads(self, xp, dz, a, b, z):
        return dz * (a >= b), dz * (a < b)


@register('broadcast_minimum')
class BroadcastMinimum(_Binary):
    """z = min(a, b);   da = dz where a <= b,   db = dz where a > b"""

    def f(self, xp, a, b):
        return xp.minimum(a, b)

    def grads(self, xp, dz, a, b, z):
        return dz * (a <= b), dz * (a > b)


@register('broadcast_hypot')
class BroadcastHypot(_Binary):
    """z = sqrt(a**2 + b**2);   da = dz * a / z,   db = dz * b / z"""

    def f(self, xp, a, b):
        return keep_dtype(xp.hypot(a, b), a.dtype)

    def grads(self, xp, dz, a, b, z):
        return dz * a / z, dz * b / z


# -- equal-shape forms: the same math, but broadcasting is an error -----------
# MXNet's Symbol arithmetic uses these: ``a + b`` on symbols is
# ``elemwise_add`` (recorded as ``_plus0``), ``sym.maximum(a, b)`` is
# ``_maximum``.  Only the NDArray operators broadcast.


class EqualShapes:
    """Mixin for the equal-shape form of a ``broadcast_*`` operator.

    Both inputs must have the same shape, which is also the output's; so
    shape inference works in every direction (knowing ``a`` gives ``b``).
    """

    #: name of the operator that broadcasts instead
    broadcast_form = None
    #: inputs and output have one shape (partial shape inference merges)
    equal_shapes = True

    def _check(self, lhs, rhs):
        if tuple(lhs) != tuple(rhs):
            raise DLBookError(
                f'{self.name}: lhs shape {tuple(lhs)} and rhs shape '
                f'{tuple(rhs)} differ; {self.name} needs equal shapes '
                f'(Symbol arithmetic does not broadcast, as in MXNet): use '
                f'{self.broadcast_form} to broadcast'
            )

    def infer_shape(self, lhs=None, rhs=None):
        if lhs is not None and rhs is not None:
            self._check(lhs, rhs)
        shape = lhs if lhs is not None else rhs
        shape = None if shape is None else tuple(shape)
        return [shape, shape], [shape], []

    def forward(self, xp, a, b):
        self._check(a.shape, b.shape)
        return super().forward(xp, a, b)


def equal_shape_form(broadcast_class, *names):
    """Register the equal-shape twin of ``broadcast_class`` under
    ``names`` (the first is the one written into symbol JSON)."""
    doc = broadcast_class.__doc__.replace(';', ', equal shapes;', 1)
    cls = type(
        broadcast_class.__name__.replace('Broadcast', 'Elemwise'),
        (EqualShapes, broadcast_class),
        {
            '__doc__': doc,
            '__module__': __name__,
            'broadcast_form': broadcast_class.name,
        },
    )
    return register(*names)(cls)


ElemwiseAdd = equal_shape_form(
    BroadcastAdd, 'elemwise_add', '_plus', '_add', '_Plus'
)
ElemwiseSub = equal_shape_form(
    BroadcastSub, 'elemwise_sub', '_minus', '_sub', '_Minus'
)
ElemwiseMul = equal_shape_form(BroadcastMul, 'elemwise_mul', '_mul', '_Mul')
ElemwiseDiv = equal_shape_form(BroadcastDiv, 'elemwise_div', '_div', '_Div')
ElemwiseMod = equal_shape_form(BroadcastMod, '_mod', '_Mod')
ElemwisePower = equal_shape_form(BroadcastPower, '_power', '_Power')
ElemwiseMaximum = equal_shape_form(BroadcastMaximum, '_maximum', '_Maximum')
ElemwiseMinimum = equal_shape_form(BroadcastMinimum, '_minimum', '_Minimum')
ElemwiseHypot = equal_shape_form(BroadcastHypot, '_hypot', '_Hypot')


# -- sums of many arrays ------------------------------------------------------
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
            raise DLBookError(
                f'add_n: all inputs need the same shape, got '
                f'{", ".join(map(str, shapes))}'
            )
        y = arrays[0].copy()
        for a in arrays[1:]:
            y += a
        self.saved = (len(arrays),)
        return y

    def backward(self, xp, dy):
        return (dy,) * self.saved[0]
