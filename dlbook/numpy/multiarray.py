"""``mx.np.ndarray``: an NDArray with NumPy-mode semantics.

It *is* an :class:`~dlbook.ndarray.NDArray` (a subclass), so contexts,
``attach_grad``/``backward`` (one autograd tape), ``nd.*`` operators and
Gluon all take it; what changes is what users see:

* reductions and scalar indexing give 0-d arrays (``x.sum()`` is
  ``array(6.)``, shape ``()``);
* comparisons give ``bool`` arrays, usable as masks (``x[x > 2]``);
* NumPy indexing: boolean masks, integer arrays, ``None``, ``...``;
* MXNet's NumPy-mode promotion (``int32 + 1.5`` stays int32,
  ``int32 / 2`` is float32, ``int32 + float32`` is float32);
* ``repr`` is ``array([0., 1.])``, with ``dtype=`` when not float32 and
  ``ctx=gpu(0)`` off the CPU.

Mixing with legacy arrays: an operation with an ``mx.np.ndarray`` operand
returns an ``mx.np.ndarray`` (the legacy operand is read as it is, no
copy).  ``x.as_nd_ndarray()`` and ``y.as_np_ndarray()`` switch the type
of one array, sharing its data.
"""

import numbers

import numpy

from ..base import dtype_name
from ..ndarray.invoke import DENSE_CLASSES, invoke_plain
from ..ndarray.invoke import invoke as _invoke
from ..ndarray.ndarray import NDArray, from_raw
from ..ops import REGISTRY
from . import _core
from . import functions as F
from ._core import call, cast, shaped, to_np

__all__ = ['ndarray']


def _raw_key_part(part, ctx):
    """One entry of an index, as the raw array ``_getitem`` takes: bool
    masks stay bool, float index arrays become int64."""
    if isinstance(part, NDArray):
        raw = part.as_in_context(ctx)._data
        if raw.dtype.kind == 'f':
            raw = raw.astype('int64')
        return raw
    if isinstance(part, list):
        host = numpy.asarray(part)
        if host.dtype.kind == 'f':
            host = host.astype('int64')
        return ctx.backend.asarray(host, ctx.device_id)
    if isinstance(part, numpy.ndarray):
        return ctx.backend.asarray(part, ctx.device_id)
    return part


def _raw_key(key, ctx):
    if isinstance(key, tuple):
        return tuple(_raw_key_part(k, ctx) for k in key)
    return _raw_key_part(key, ctx)


def _result_shape(shape, key):
    """The shape NumPy gives ``x[key]`` for an array of ``shape``."""
    dummy = numpy.lib.stride_tricks.as_strided(
        numpy.zeros(1, dtype='int8'), shape=shape, strides=(0,) * len(shape)
    )
    parts = key if isinstance(key, tuple) else (key,)
    host = tuple(
        p
        if not hasattr(p, 'dtype') or isinstance(p, numpy.ndarray)
        else numpy.asarray(p.get() if hasattr(p, 'get') else p)
        for p in parts
    )
    return dummy[host if isinstance(key, tuple) else host[0]].shape


_FLOAT32 = numpy.dtype('float32')
_NP_SUM = REGISTRY['_np_sum']
_NP_MEAN = REGISTRY['_npi_mean']


def _fast(array_op, scalar_op, function, reflected=False, kinds='fiu'):
    """An arithmetic method with a fast path.

    ``array_op`` runs when the other operand is an ``mx.np.ndarray`` of the
    same dtype, ``scalar_op`` when it is a Python int or float and this
    array's dtype kind is in ``kinds`` (a number takes the array's dtype,
    MXNet's rule); anything else calls ``function`` (promotion, bool
    arrays, lists...).  ``reflected``: the method of ``2 - x``.
    """
    array_cls = REGISTRY[array_op] if array_op else None
    scalar_cls = REGISTRY[scalar_op]
    # outside autograd.record(): the operators' functions alone
    plain = array_cls.plain() if array_cls else None
    scalar_plain = scalar_cls.plain()

    def with_scalar(x, number):
        """``x <op> number`` (a number of x's dtype kind)."""
        if scalar_plain is not None:
            result = invoke_plain(scalar_plain, x, number, ndarray)
            if result is not None:
                return result
        return _invoke(scalar_cls(scalar=number), (x,))

    # Every operation passes here, so the checks are the cheapest that
    # decide: identity first (float32 arrays share one dtype object), the
    # dtype kind only for other dtypes.  The results need no ``out_cls``:
    # the front end gives the class of its (all np) inputs.

    if reflected:

        def method(self, other):
            t = type(other)
            if t is float or t is int:
                dtype = self._data.dtype
                if dtype is _FLOAT32 or dtype.kind in kinds:
                    return with_scalar(self, other)
            return _binary(function, other, self)
    else:

        def method(self, other):
            t = type(other)
            if t is ndarray:
                dtype = self._data.dtype
                other_dtype = other._data.dtype
                if (other_dtype is dtype or other_dtype == dtype) and (
                    dtype is _FLOAT32 or dtype.kind in kinds
                ):
                    if plain is not None:
                        result = invoke_plain(plain, self, other, ndarray)
                        if result is not None:
                            return result
                    return _invoke(array_cls(), (self, other))
            elif t is float or t is int:
                dtype = self._data.dtype
                if dtype is _FLOAT32 or dtype.kind in kinds:
                    return with_scalar(self, other)
            return _binary(function, self, other)

    method.__name__ = function.__name__
    method.__doc__ = f'``{function.__name__}`` with the other operand.'
    return method


class ndarray(NDArray):  # noqa: N801  (MXNet's name)
    """An n-dimensional array with NumPy semantics on a device.

    Create one with ``np.array``, ``np.zeros``, ``np.arange``,
    ``np.random.normal``... or ``x.as_np_ndarray()``.
    """

    __hash__ = NDArray.__hash__

    # -- printing ---------------------------------------------------------------
    def __repr__(self):
        text = repr(self._host_copy())
        dtype = self.dtype
        if 'dtype=' in text:
            if dtype == numpy.float32:
                text = text[: text.rindex(',')] + ')'
        elif dtype not in (numpy.float32, numpy.bool_):
            text = text[:-1] + f', dtype={dtype})'
        if self._ctx.device_type == 'cpu':
            return text
        return text[:-1] + f', ctx={self._ctx})'

    def __str__(self):
        text = str(self._host_copy())
        if self._ctx.device_type == 'cpu' or self.ndim == 0:
            return text
        return f'{text} @{self._ctx}'

    def __format__(self, spec):
        if self.ndim == 0:
            return format(self.item(), spec)
        return super().__format__(spec)

    # -- conversion -------------------------------------------------------------
    def item(self, *args):
        """One element as a Python number (the only one without
        arguments)."""
        return self._host_copy().item(*args)

    def asscalar(self):
        """The only element as a NumPy scalar."""
        return super().asscalar()

    def __len__(self):
        if not self.shape:
            raise TypeError('len() of unsized object')
        return self.shape[0]

    def __index__(self):
        if self.ndim == 0 and self.dtype.kind in 'iu':
            return int(self.item())
        raise TypeError(
            'only integer scalar arrays can be converted to a scalar index'
        )

    def as_nd_ndarray(self):
        """This array as a legacy ``mx.nd.NDArray`` (shares the data)."""
        out = from_raw(self._data, self._ctx)
        out._node, out._out_index = self._node, self._out_index
        return out

    def as_np_ndarray(self):
        """This array (it already is an ``mx.np.ndarray``)."""
        return self

    def detach(self):
        """The same data, cut from the tape."""
        return _core.wrap(self._data, self._ctx)

    def attach_grad(self, grad_req='write', stype=None):
        """Allocate a zero gradient buffer (an ``mx.np.ndarray``)."""
        super().attach_grad(grad_req, stype)
        to_np(self._grad)

    def astype(self, dtype, copy=True):
        """The array cast to ``dtype`` (``self`` if ``copy=False`` and the
        dtype already matches)."""
        name = dtype_name(dtype)
        if not copy and name == self._data.dtype.name:
            return self
        return call('Cast', self, dtype=name)

    # -- indexing ---------------------------------------------------------------
    def __getitem__(self, key):
        raw = _raw_key(key, self._ctx)
        y = call('_getitem', self, key=raw)
        if y.shape == (1,):
            y = shaped(y, _result_shape(self.shape, raw))
        return y

    def __setitem__(self, key, value):
        if isinstance(value, numbers.Number) or isinstance(value, NDArray):
            pass
        else:
            value = numpy.asarray(value)
        super().__setitem__(_raw_key(key, self._ctx), value)

    # -- arithmetic -------------------------------------------------------------
    # The common cases (two np arrays of one dtype; an array and a Python
    # int or float) run their operator directly; everything else goes
    # through the mx.np function, which promotes dtypes (functions.py).
    __add__ = _fast('broadcast_add', '_plus_scalar', F.add)
    __radd__ = _fast(None, '_plus_scalar', F.add, reflected=True)
    __sub__ = _fast('broadcast_sub', '_minus_scalar', F.subtract)
    __rsub__ = _fast(None, '_rminus_scalar', F.subtract, reflected=True)
    __mul__ = _fast('broadcast_mul', '_mul_scalar', F.multiply)
    __rmul__ = _fast(None, '_mul_scalar', F.multiply, reflected=True)
    __truediv__ = _fast(
        'broadcast_div', '_div_scalar', F.true_divide, kinds='f'
    )
    __rtruediv__ = _fast(
        None, '_rdiv_scalar', F.true_divide, reflected=True, kinds='f'
    )

    def __mod__(self, other):
        return _binary(F.mod, self, other)

    def __rmod__(self, other):
        return _binary(F.mod, other, self)

    def __pow__(self, other):
        return _binary(F.power, self, other)

    def __rpow__(self, other):
        return _binary(F.power, other, self)

    def __matmul__(self, other):
        return _binary(F.matmul, self, other)

    def __rmatmul__(self, other):
        return _binary(F.matmul, other, self)

    def __neg__(self):
        return F.negative(self)

    def __abs__(self):
        return F.abs(self)

    __eq__ = _fast('_npi_equal', '_npi_equal_scalar', F.equal, kinds='fiub')
    __ne__ = _fast(
        '_npi_not_equal', '_npi_not_equal_scalar', F.not_equal, kinds='fiub'
    )
    __gt__ = _fast(
        '_npi_greater', '_npi_greater_scalar', F.greater, kinds='fiub'
    )
    __ge__ = _fast(
        '_npi_greater_equal',
        '_npi_greater_equal_scalar',
        F.greater_equal,
        kinds='fiub',
    )
    __lt__ = _fast('_npi_less', '_npi_less_scalar', F.less, kinds='fiub')
    __le__ = _fast(
        '_npi_less_equal', '_npi_less_equal_scalar', F.less_equal, kinds='fiub'
    )

    def _inplace(self, result):
        return super()._inplace(cast(result, self.dtype))

    # -- shape methods (NumPy conventions) ----------------------------------
    def reshape(self, *shape, order='C'):
        """The same data in a new shape: ``x.reshape(2, 3)``,
        ``x.reshape((2, -1))``; ``x.reshape(())`` is 0-d."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return F.reshape(self, shape, order=order)

    def transpose(self, *axes):
        """Permute the axes (reverse them without arguments)."""
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        return F.transpose(self, axes or None)

    def swapaxes(self, axis1, axis2):
        """Exchange two axes."""
        return F.swapaxes(self, axis1, axis2)

    def flatten(self, order='C'):
        """A 1-d copy (NumPy's flatten; ``npx.batch_flatten`` keeps the
        first axis)."""
        return F.reshape(self, (-1,))

    ravel = flatten

    def squeeze(self, axis=None):
        """Drop axes of length 1."""
        return F.squeeze(self, axis)

    def expand_dims(self, axis):
        """Insert an axis of length 1."""
        return F.expand_dims(self, axis)

    def broadcast_to(self, shape):
        """Broadcast to ``shape``."""
        return F.broadcast_to(self, shape)

    def repeat(self, repeats, axis=None):
        """Repeat each element ``repeats`` times."""
        return F.repeat(self, repeats, axis)

    def tile(self, reps):
        """Repeat the whole array."""
        return F.tile(self, reps)

    def split(self, indices_or_sections, axis=0):
        """Split into a list of arrays."""
        return F.split(self, indices_or_sections, axis)

    # -- reductions ---------------------------------------------------------------
    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        """Sum over ``axis`` (0-d for a full sum)."""
        if dtype is None and out is None and self._data.dtype.kind != 'b':
            if axis is None and not keepdims:
                return _invoke(_NP_SUM(), (self,))
            if type(axis) is int:
                return _invoke(
                    _NP_SUM(axis=axis, keepdims=bool(keepdims)), (self,)
                )
        return F.sum(self, axis, dtype, out, keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        """Mean over ``axis``."""
        if dtype is None and out is None and self._data.dtype.kind == 'f':
            if axis is None and not keepdims:
                return _invoke(_NP_MEAN(), (self,))
            if type(axis) is int:
                return _invoke(
                    _NP_MEAN(axis=axis, keepdims=bool(keepdims)), (self,)
                )
        return F.mean(self, axis, dtype, out, keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        """Product over ``axis``."""
        return F.prod(self, axis, dtype, out, keepdims)

    def max(self, axis=None, out=None, keepdims=False):
        """Largest value over ``axis``."""
        return F.max(self, axis, out, keepdims)

    def min(self, axis=None, out=None, keepdims=False):
        """Smallest value over ``axis``."""
        return F.min(self, axis, out, keepdims)

    def argmax(self, axis=None, out=None):
        """Index of the largest value, int64."""
        return F.argmax(self, axis, out)

    def argmin(self, axis=None, out=None):
        """Index of the smallest value, int64."""
        return F.argmin(self, axis, out)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """Standard deviation over ``axis``."""
        return F.std(self, axis, dtype, out, ddof, keepdims)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """Variance over ``axis``."""
        return F.var(self, axis, dtype, out, ddof, keepdims)

    def cumsum(self, axis=None, dtype=None, out=None):
        """Running sums along ``axis``."""
        return F.cumsum(self, axis, dtype, out)

    def all(self, axis=None, out=None, keepdims=False):
        """True where every value is non-zero."""
        return F.all(self, axis, out, keepdims)

    def any(self, axis=None, out=None, keepdims=False):
        """True where some value is non-zero."""
        return F.any(self, axis, out, keepdims)

    def clip(self, min=None, max=None, out=None):  # noqa: A002
        """Limit the values to ``[min, max]``."""
        return F.clip(self, min, max, out)

    def dot(self, b, out=None):
        """NumPy's ``dot`` with ``b``."""
        return F.dot(self, b, out)

    def sort(self, axis=-1, kind=None, order=None):
        """A sorted copy along ``axis``."""
        return F.sort(self, axis)

    def argsort(self, axis=-1, kind=None, order=None):
        """Indices that sort along ``axis``, int64."""
        return F.argsort(self, axis)

    def nonzero(self):
        """Indices of the non-zero elements, one array per axis."""
        return F.nonzero(self)

    def take(self, indices, axis=None, mode='raise'):
        """Elements at ``indices`` along ``axis``."""
        return F.take(self, indices, axis, mode)

    def round(self, decimals=0, out=None, **kwargs):
        """Rounded to ``decimals`` places, halves to even (``np.around``;
        the legacy ``NDArray.round`` rounds halves away from zero)."""
        from .last import around

        return around(self, decimals, out=out, **kwargs)

    def __and__(self, other):
        from .last import bitwise_and

        return _binary(bitwise_and, self, other)

    def __or__(self, other):
        from .last import bitwise_or

        return _binary(bitwise_or, self, other)

    def __xor__(self, other):
        from .last import bitwise_xor

        return _binary(bitwise_xor, self, other)

    def __rand__(self, other):
        return self.__and__(other)

    def __ror__(self, other):
        return self.__or__(other)

    def __rxor__(self, other):
        return self.__xor__(other)

    def __invert__(self):
        from .last import bitwise_not

        return bitwise_not(self)


def _binary(function, a, b):
    """Apply ``function`` unless ``b`` is something arrays do not take
    (then Python tries the other operand)."""
    for x in (a, b):
        if not isinstance(
            x, (NDArray, numbers.Number, numpy.ndarray, list, tuple)
        ):
            return NotImplemented
    return function(a, b)


DENSE_CLASSES.add(ndarray)
F._NP = ndarray
_core._CLASS.append(ndarray)
