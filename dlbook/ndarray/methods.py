"""NDArray's methods that run operators, attached to the class by ``nd``.

:class:`~dlbook.ndarray.ndarray.NDArray` holds the data and its device;
everything that computes is written here, above the operator front end
(``invoke``, ``register``, ``creation``, ``sparse``), and attached when
``dlbook.ndarray`` is imported:

* Python's operators (``x + y``, ``x == 0``, ``-x``, ``x[1:]``) and the
  methods with MXNet's own calling conventions (``astype``, ``reshape``,
  ``copyto``...), in :class:`_Methods`;
* the ``nd`` functions made methods (``x.sum(axis=1)``), listed in
  ``METHOD_NAMES``.  MXNet generates these from its operator list;
  listing them explicitly keeps the set reviewable.
"""

import numbers
import types

from .. import _tape
from ..base import DLBookError, dtype_name
from ..context import Context
from ..ops import REGISTRY
from .creation import array
from .invoke import invoke, invoke_plain
from .ndarray import NDArray, _raw_key, from_raw
from .register import function_for as _nd
from .sparse import cast_storage
from .sparse import zeros as sparse_zeros

#: ``cls()`` for operators whose ``bare`` says it is the same instance
_new = object.__new__

METHOD_NAMES = (
    # reductions
    'sum',
    'nansum',
    'prod',
    'nanprod',
    'mean',
    'max',
    'min',
    'norm',
    'argmax',
    'argmin',
    'argmax_channel',
    # element-wise math
    'abs',
    'sign',
    'round',
    'rint',
    'fix',
    'floor',
    'ceil',
    'trunc',
    'sqrt',
    'rsqrt',
    'cbrt',
    'square',
    'reciprocal',
    'exp',
    'expm1',
    'log',
    'log10',
    'log2',
    'log1p',
    'sin',
    'cos',
    'tan',
    'arcsin',
    'arccos',
    'arctan',
    'sinh',
    'cosh',
    'tanh',
    'arcsinh',
    'arccosh',
    'arctanh',
    'degrees',
    'radians',
    'relu',
    'sigmoid',
    'softsign',
    'clip',
    # nn
    'softmax',
    'log_softmax',
    # shape
    'flatten',
    'expand_dims',
    'squeeze',
    'swapaxes',
    'flip',
    'tile',
    'repeat',
    'pad',
    'split',
    'slice',
    'slice_axis',
    'slice_like',
    'take',
    'pick',
    'one_hot',
    'topk',
    'sort',
    'argsort',
    'broadcast_like',
    'broadcast_axes',
    'reshape_like',
    'zeros_like',
    'ones_like',
    'shape_array',
    'size_array',
    'diag',
)


#: methods that take MXNet's ``inplace=`` keyword (a view instead of a
#: copy there; results here share memory when NumPy can make a view)
_INPLACE = ('flatten', 'expand_dims', 'squeeze')


def _method(function):
    """``function`` as a method: the array is its first argument, so the
    ``nd`` function itself serves, except where MXNet's ``inplace=``
    keyword has to be dropped first."""
    if function.__name__ not in _INPLACE:
        return function

    def method(self, *args, inplace=None, **kwargs):
        return function(self, *args, **kwargs)

    method.__name__ = function.__name__
    method.__doc__ = function.__doc__
    return method


class _Methods:
    """The methods :func:`attach_methods` copies onto NDArray."""

    def __init__(self, data, ctx=None):
        made = array(data, ctx=ctx)
        self._data, self._ctx = made._data, made._ctx

    def astype(self, dtype, copy=True):
        """Return the array cast to ``dtype`` (``self`` if ``copy=False``
        and the dtype already matches)."""
        name = dtype_name(dtype)
        if not copy and name == self.dtype.name:
            return self
        return _nd('Cast')(self, dtype=name)

    def copy(self):
        """A copy on the same context."""
        return _nd('_copy')(self)

    def copyto(self, other):
        """Copy to a Context (a new array) or into an existing NDArray.

        Moving between devices is itself an operator with a gradient, so
        ``x.copyto(mx.cpu(1))`` can be differentiated.
        """
        if isinstance(other, Context):
            if other == self._ctx:
                return self.copy()
            op = REGISTRY['_copyto'](ctx=other, src_ctx=self._ctx)
            return invoke(op, [self])
        if isinstance(other, NDArray):
            if other is self:
                return other
            if other.shape != self.shape:
                raise DLBookError(
                    f'copyto: shape mismatch, source '
                    f'{self.shape} vs target {other.shape}'
                )
            other._assign(
                self if other._ctx == self._ctx else self.copyto(other._ctx)
            )
            return other
        raise TypeError(f'copyto does not support type {type(other)}')

    def attach_grad(self, grad_req='write', stype=None):
        """Allocate a zero gradient buffer and make this array a variable
        whose gradient ``backward`` computes; ``stype='row_sparse'``
        keeps the gradient row-sparse."""
        if stype not in (None, 'default'):
            buf = sparse_zeros(
                stype, self.shape, ctx=self._ctx, dtype=self.dtype
            )
        else:
            buf = from_raw(self._ctx.xp.zeros_like(self._data), self._ctx)
        _tape.mark_variables([self], [buf], grad_req)

    def __getitem__(self, key):
        return _nd('_getitem')(self, key=_raw_key(key, self._ctx))

    # -- arithmetic (each calls a registered operator) ---------------------------
    def __add__(self, other):
        return _binary(self, other, 'broadcast_add', '_plus_scalar')

    def __radd__(self, other):
        return _binary(self, other, 'broadcast_add', '_plus_scalar')

    def __sub__(self, other):
        return _binary(self, other, 'broadcast_sub', '_minus_scalar')

    def __rsub__(self, other):
        return _binary(self, other, None, '_rminus_scalar')

    def __mul__(self, other):
        return _binary(self, other, 'broadcast_mul', '_mul_scalar')

    def __rmul__(self, other):
        return _binary(self, other, 'broadcast_mul', '_mul_scalar')

    def __truediv__(self, other):
        return _binary(self, other, 'broadcast_div', '_div_scalar')

    def __rtruediv__(self, other):
        return _binary(self, other, None, '_rdiv_scalar')

    __div__, __rdiv__ = __truediv__, __rtruediv__

    def __mod__(self, other):
        return _binary(self, other, 'broadcast_mod', '_mod_scalar')

    def __rmod__(self, other):
        return _binary(self, other, None, '_rmod_scalar')

    def __pow__(self, other):
        return _binary(self, other, 'broadcast_power', '_power_scalar')

    def __rpow__(self, other):
        return _binary(self, other, None, '_rpower_scalar')

    def __neg__(self):
        return _nd('negative')(self)

    def __abs__(self):
        return _nd('abs')(self)

    def __eq__(self, other):
        return _compare(self, other, 'broadcast_equal', '_equal_scalar')

    def __ne__(self, other):
        return _compare(
            self, other, 'broadcast_not_equal', '_not_equal_scalar'
        )

    def __gt__(self, other):
        return _compare(self, other, 'broadcast_greater', '_greater_scalar')

    def __ge__(self, other):
        return _compare(
            self, other, 'broadcast_greater_equal', '_greater_equal_scalar'
        )

    def __lt__(self, other):
        return _compare(self, other, 'broadcast_lesser', '_lesser_scalar')

    def __le__(self, other):
        return _compare(
            self, other, 'broadcast_lesser_equal', '_lesser_equal_scalar'
        )

    def __iadd__(self, other):
        return self._inplace(self.__add__(other))

    def __isub__(self, other):
        return self._inplace(self.__sub__(other))

    def __imul__(self, other):
        return self._inplace(self.__mul__(other))

    def __itruediv__(self, other):
        return self._inplace(self.__truediv__(other))

    __idiv__ = __itruediv__

    def __imod__(self, other):
        return self._inplace(self.__mod__(other))

    # -- shape helpers with MXNet's calling conventions ----------------------
    def reshape(self, *shape, **kwargs):
        """Reshape; accepts ``reshape(2, 3)``, ``reshape((2, 3))`` and
        MXNet's special codes ``0, -1, -2, -3, -4``."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        if 'shape' in kwargs:
            shape = tuple(kwargs.pop('shape'))
        return _nd('Reshape')(self, shape=shape, **kwargs)

    def broadcast_to(self, shape):
        """Broadcast to ``shape`` (NumPy broadcasting rules)."""
        return _nd('broadcast_to')(self, shape=tuple(shape))

    def transpose(self, *axes):
        """Permute axes; no argument reverses them."""
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        return _nd('transpose')(self, axes=axes)

    def tostype(self, stype):
        """This array with storage ``stype``: ``'default'`` (itself),
        ``'csr'`` or ``'row_sparse'`` (see ``nd.sparse``)."""
        if stype == 'default':
            return self
        return cast_storage(self, stype)


#: The usual numbers, tested by type before the slower ``isinstance``
#: check against the abstract ``numbers.Number``.
_PLAIN_NUMBERS = frozenset((int, float))


#: Operator class -> its plain ``f(xp, a, b)`` (the class's ``plain()``)
_PLAIN = {}
_tape_state = _tape._state


def _plain_result(cls, x, other):
    """``x <op> other`` by the operator's plain function, outside
    ``autograd.record()``; None where the front end is needed."""
    plain = _PLAIN.get(cls, _PLAIN)
    if plain is _PLAIN:
        plain = _PLAIN[cls] = cls.plain()
    if plain is None:
        return None
    return invoke_plain(plain, x, other)


def _binary(x, other, array_op, scalar_op):
    # Reflected operators (``2 - x``) only ever see numbers: with two
    # NDArrays Python calls the left operand's method.
    if isinstance(other, NDArray) and array_op is not None:
        cls = REGISTRY[array_op]
        if not _tape_state.recording:  # no tape bookkeeping: plain f
            result = _plain_result(cls, x, other)
            if result is not None:
                return result
        return invoke(_new(cls) if cls.bare else cls(), (x, other))
    if type(other) in _PLAIN_NUMBERS or isinstance(other, numbers.Number):
        cls = REGISTRY[scalar_op]
        if not _tape_state.recording:
            result = _plain_result(cls, x, other)
            if result is not None:
                return result
        return invoke(cls(scalar=other), (x,))
    raise TypeError(
        f'type {type(other).__name__} not supported for NDArray '
        f'arithmetic; use nd.array(...) to convert it first'
    )


def _compare(x, other, array_op, scalar_op):
    if not isinstance(other, (NDArray, numbers.Number)):
        return NotImplemented
    return _binary(x, other, array_op, scalar_op)


def attach_methods(cls, namespace):
    """Give ``cls`` (NDArray) the methods of :class:`_Methods`, then every
    available name in ``METHOD_NAMES`` (names already defined on the
    class keep their own definition)."""
    for name, value in vars(_Methods).items():
        if isinstance(value, types.FunctionType):
            setattr(cls, name, value)
    for name in METHOD_NAMES:
        function = namespace.get(name)
        if function is not None and name not in cls.__dict__:
            setattr(cls, name, _method(function))
