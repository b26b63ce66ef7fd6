"""NDArray: a NumPy or CuPy array plus the Context it lives on.

The class keeps MXNet 1.x's behaviour: float32 by default, reductions of a
whole array give shape ``(1,)``, comparisons return 0/1 in the input dtype,
``repr`` prints ``<NDArray 2x3 @cpu(0)>``, and in-place forms
(``x[:] = ...``, ``x += y``) keep the array's identity.

This module holds the data, its device and its place on the autograd
tape.  Arithmetic is not written here: the methods that compute (``x + y``,
``x[1:]``, ``x.sum()``, ``x.reshape``) call registered operators
(``dlbook.ops``) through :func:`dlbook.ndarray.invoke.invoke`, so the same
rule serves ``nd``, ``sym`` and the tape; ``dlbook.ndarray.methods``
attaches them to the class, and nothing here imports the modules above.
"""

import numbers

from .. import _tape, _write_clock
from ..base import DLBookError, DLBookIndexError
from ..ops import cast_scalar
from .host_array import to_host_array

__all__ = ['NDArray', 'from_raw']


def from_raw(data, ctx):
    """Wrap a raw NumPy/CuPy array living on ``ctx`` (no copy)."""
    x = NDArray.__new__(NDArray)
    x._data = data
    x._ctx = ctx
    return x


class NDArray:
    """An n-dimensional array on a device (``cpu(i)`` or ``gpu(i)``).

    Create arrays with ``nd.array``, ``nd.zeros``, ``nd.random.normal``...
    rather than with this class.  The raw array is ``x._data``; its device
    is ``x.context``.
    """

    # Class-level defaults keep array creation cheap: most arrays never
    # get a gradient buffer or a tape node.
    _grad = None
    _grad_req = None
    _node = None
    _out_index = 0
    _fresh_grad = False
    _written_at = 0  # write-clock time of the last in-place write
    _used_by = None  # weak reference to the last recorded op it fed
    __array_priority__ = 1000.0  # numpy defers to our reflected ops

    # -- basic properties ----------------------------------------------------
    @property
    def shape(self):
        """Tuple of dimension sizes."""
        return self._data.shape

    @property
    def dtype(self):
        """The element type as a NumPy dtype (``numpy.float32``)."""
        return self._data.dtype

    @property
    def size(self):
        """Number of elements."""
        return self._data.size

    @property
    def ndim(self):
        """Number of dimensions."""
        return self._data.ndim

    @property
    def context(self):
        """The device this array lives on."""
        return self._ctx

    ctx = context

    @property
    def stype(self):
        """Storage type: ``'default'`` (dense); the sparse subclasses say
        ``'csr'`` or ``'row_sparse'``."""
        return 'default'

    @property
    def T(self):
        """Transpose (reverse the axes)."""
        return self.transpose()

    @property
    def grad(self):
        """The gradient buffer attached by ``attach_grad``, or None."""
        return self._grad

    @property
    def handle(self):
        """The raw NumPy/CuPy array (MXNet's C handle has no analogue)."""
        return self._data

    # -- conversion ----------------------------------------------------------
    def asnumpy(self):
        """Return a NumPy copy of the data (waits for the device).

        The copy is a :class:`~dlbook.ndarray.host_array.HostArray`: a
        NumPy array that, as under NumPy 1.x, converts to a Python number
        when it has one element (``float(loss.mean().asnumpy())``).
        """
        return to_host_array(self._host_copy())

    def _host_copy(self):
        return self._ctx.backend.to_numpy(self._data).copy()

    def asscalar(self):
        """Return the only element as a NumPy scalar; size must be 1."""
        if self.size != 1:
            raise ValueError('The current array is not a scalar')
        return self._host_copy().reshape(-1)[0]

    def item(self):
        """The only element as a Python number (NumPy-mode name)."""
        return self.asscalar().item()

    def tolist(self):
        """Nested Python lists of the values."""
        return self.asnumpy().tolist()

    def __array__(self, dtype=None, copy=None):
        a = self._host_copy()
        return a if dtype is None else a.astype(dtype)

    # astype, copy, copyto, tostype, reshape, transpose, broadcast_to,
    # x[key], the operators (x + y, x == y, -x) and the nd functions made
    # methods (x.sum()) run operators: dlbook.ndarray.methods attaches them.

    def as_in_context(self, context):
        """This array on ``context``: ``self`` if already there, else a
        copy."""
        if context == self._ctx:
            return self
        return self.copyto(context)

    as_in_ctx = as_in_context

    def wait_to_read(self):
        """Block until pending device work on this array has finished."""
        self._ctx.backend.synchronize(self._ctx.device_id)

    # -- autograd ------------------------------------------------------------
    def detach(self):
        """The same data, cut from the tape (no gradient flows back)."""
        return from_raw(self._data, self._ctx)

    def backward(self, out_grad=None, retain_graph=False, train_mode=True):
        """Compute gradients of this array with respect to the variables.

        ``out_grad`` is the head gradient; by default all ones, so a
        non-scalar ``y.backward()`` differentiates ``y.sum()``.
        """
        _tape.backward(
            [self],
            None if out_grad is None else [out_grad],
            retain_graph=retain_graph,
            train_mode=train_mode,
        )

    def _store_grad(self, g, req):
        """Write the raw gradient ``g`` into this gradient buffer
        (``req`` 'write' or 'add'); the tape calls it after backward."""
        if _tape.is_row_sparse(g):  # into a dense buffer:
            if req != 'add':  # only its rows change
                self._data[...] = 0
            self._data[g.indices] += g.data
        elif req == 'add':
            self._data += g
        else:
            self._data[...] = g

    # -- printing ------------------------------------------------------------
    def __repr__(self):
        shape = 'x'.join(str(n) for n in self.shape)
        return (
            f'\n{self.asnumpy()}\n<{type(self).__name__} {shape} @{self._ctx}>'
        )

    # -- container protocol --------------------------------------------------
    def __len__(self):
        if not self.shape:
            raise TypeError('len() of a 0-d NDArray')
        return self.shape[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __bool__(self):
        if self.size == 0:
            return False
        if self.size == 1:
            return bool(self.asscalar())
        raise ValueError(
            'The truth value of an NDArray with multiple '
            'elements is ambiguous.'
        )

    def __float__(self):
        return float(self.asscalar())

    def __int__(self):
        return int(self.asscalar())

    def __hash__(self):
        return id(self) // 16

    def __setitem__(self, key, value):
        self._check_writable()
        key = _raw_key(key, self._ctx)
        self._stamp_write()
        try:
            self._data[key] = _raw_value(value, self._ctx, self.dtype)
        except (ValueError, IndexError, TypeError) as err:
            vshape = getattr(value, 'shape', type(value).__name__)
            error = (
                DLBookIndexError
                if isinstance(err, IndexError)
                else DLBookError
            )
            raise error(
                f'cannot assign a value of shape {vshape} to '
                f'index {key!r} of an array of shape '
                f'{self.shape}: {err}'
            ) from err

    def _check_writable(self):
        if _tape._state.recording:
            _tape.check_write(self)

    def _stamp_write(self):
        """Tick the write clock for an in-place write (autograd's check
        for stale inputs and outputs, ``dlbook/_write_clock.py``)."""
        self._written_at = _write_clock.tick()
        if self._node is not None:
            _tape.output_written(self)

    def _assign(self, other):
        """Write ``other``'s values into this array (shape broadcast,
        dtype cast), keeping this array's identity."""
        self[...] = other
        return self

    def _inplace(self, result):
        self._check_writable()
        if result.shape != self.shape:
            raise DLBookError(
                f'in-place operation would change the shape '
                f'from {self.shape} to {result.shape}'
            )
        self._stamp_write()
        self._data[...] = result._data
        return self


# -- helpers -------------------------------------------------------------------


def _raw_key(key, ctx):
    """Turn NDArrays inside an index into raw integer arrays."""
    if isinstance(key, NDArray):
        return key.as_in_context(ctx)._data.astype('int64')
    if isinstance(key, tuple):
        return tuple(_raw_key(k, ctx) for k in key)
    if isinstance(key, list):
        return ctx.xp.asarray(key)
    return key


def _raw_value(value, ctx, dtype):
    """The raw array (or number) to write for ``x[key] = value``.

    A number is converted to the array's ``dtype`` as MXNet does (a C
    cast: ``300`` written into ``uint8`` is 44 on every NumPy).

    A one-element value is written as a 0-d array.  MXNet broadcasts it to
    whatever the key selects, including a single element
    (``c[i] = a[i] + b[i]`` with ``a[i]`` of shape ``(1,)``); NumPy 2.4
    no longer writes a ``(1,)`` array into one element, so the value is
    given the shape NumPy accepts everywhere.
    """
    if isinstance(value, numbers.Number):
        return cast_scalar(ctx.xp, value, dtype)
    if isinstance(value, NDArray):
        raw = value.as_in_context(ctx)._data
    else:
        raw = ctx.backend.asarray(value, ctx.device_id)
    if raw.ndim and raw.size == 1:
        raw = raw.reshape(())
    return raw
